"""The package of a published plan: one zip with the numbers, the privacy label, the plan and a script to re-run it.

Contents of the zip (:func:`build_package`):

* ``release.csv``: the published numbers only (statistic, label, released value rounded to a tenth of its expected
  error, the expected error), spreadsheet-safe (:func:`explorer.export.to_safe_csv`);
* ``report.json``: the privacy label (:func:`report_dict`): unit of privacy and neighbouring relation, total and
  per-statistic ε, δ (and ρ), mechanism and noise scale, accountant, declared public facts with their source and
  provenance, expected errors (a mean's at its planned number of records and at its released noisy count, both a
  bound over every table within the declared bounds), date, software version, the publication's id and the
  publication log charged. A planned number of records the Publish page took from its own default (nobody typed
  it) is said to be the page's default (:data:`PLANNED_DEFAULT`), not declared. The
  dataset is named, never fingerprinted: a hash of the private file is a function of every row (one who knows all
  rows but one finds the last by trying its candidates against the hash), so the report carries a random
  publication id instead, which the log's entry names (its label);
* ``report.html``: the same, self-contained (inline CSS, no script, no external resource: opening it makes no
  request), every user string escaped;
* ``plan.json``: the plan (:func:`dpcore.plan.plan_to_dict`);
* ``rerun_plan.py``: re-runs the plan on a data file with fresh secure noise, a new publication charged again.

Publishing (:func:`publish_package`) charges the persistent publication log
(:class:`explorer.publication_log.PublicationLog`) all or nothing, before anything is returned: the plan's total
(ε, δ) is checked against the dataset's budget, the noise is drawn inside the log's transaction, and a refusal or a
failure leaves nothing charged and nothing drawn to show.
"""

from __future__ import annotations

import html
import io
import json
import math
import secrets
import zipfile
from dataclasses import dataclass
from importlib import metadata

import pandas as pd

from dpcore.plan import Allocation, Plan, allocate, check_publishable, plan_to_dict
from dpcore.plan_release import PlanRelease, check_columns, publish_plan
from explorer.export import to_safe_csv

__all__ = [
    "FILES",
    "PLANNED_DEFAULT",
    "PLANNED_FACT",
    "error_sentence",
    "released_error_sentence",
    "Package",
    "software_version",
    "report_dict",
    "report_html",
    "release_csv",
    "rerun_script",
    "build_package",
    "publish_package",
]

#: The files of a package, in the zip's order.
FILES = ("release.csv", "report.html", "report.json", "plan.json", "rerun_plan.py")
#: What a statistic's provenance says when its planned number of records is the Publish page's default, kept as it
#: was (nobody typed it): the report then says so instead of calling it declared.
PLANNED_DEFAULT = "planned number of records: the page default, not read from your data"
#: The name of a mean's planned-n fact (:func:`dpcore.plan_release` writes it).
PLANNED_FACT = "planned number of records (for the expected error only)"


def software_version() -> str:
    """The installed version of dp-explorer (``unknown`` when run from a checkout that was not installed)."""
    try:
        return metadata.version("dp-explorer")
    except metadata.PackageNotFoundError:
        return "unknown"


def _num(x):
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def _fact(stat, fact) -> dict:
    """A public fact as the report states it: name, value, source and where it came from."""
    said = stat.provenance.replace(PLANNED_DEFAULT, "").strip("; ")
    if fact.name == PLANNED_FACT and PLANNED_DEFAULT in stat.provenance:
        return {
            "name": fact.name,
            "value": fact.value,
            "source": "page default",
            "from": PLANNED_DEFAULT.split(": ", 1)[1],
        }
    where = "a rule fixed by the software before the data is read" if fact.source == "fixed" else None
    return {
        "name": fact.name,
        "value": fact.value,
        "source": fact.source,
        "from": where or said or "declared in the plan",
    }


def error_sentence(stat, error: float | None, confidence: float) -> str | None:
    """What a statistic's stated error means, in one sentence (None without one), from the plan alone: a mean's is a
    worst case over every table within its declared bounds, at its planned (or public) number of records; a
    selection's bounds its shortfall; any other's holds for each number at the confidence."""
    if error is None:
        return None
    level = f"{confidence:.0%}"
    if stat.error_unit:  # a selection (a quantile, the most common value): a bound on its shortfall
        return f"shortfall at most {error:.3g} {stat.error_unit} at {level}"
    if stat.kind != "mean":
        return f"each number within ±{error:.3g} of its true value at {level}"
    where = (
        f"the public n {stat.n_public:,}" if stat.n_public is not None else f"the planned {stat.planned_n:,} records"
    )
    return f"at most ±{error:.3g} at {level} at {where}, whatever the values within the declared bounds"


def released_error_sentence(at_count, counts, confidence: float) -> str | None:
    """A mean's error at its released noisy counts (:meth:`dpcore.plan_release.PlanRelease.released_errors`), in one
    sentence (None for a statistic without one): the same worst case, with the count released in place of the
    planned n (post-processing, free)."""
    if not at_count:
        return None
    level = f"{confidence:.0%}"
    if len(at_count) == 1:
        where = f"the released count of {round(counts[0]):,} records"
        return (
            f"at most ±{at_count[0]:.3g} at {level} at {where} (post-processing), whatever the values within the bounds"
        )
    low, high = min(at_count), max(at_count)
    return (
        f"at most ±{low:.3g} to ±{high:.3g} at {level} at each group's released count (post-processing), whatever "
        "the values within the bounds"
    )


def report_dict(release: PlanRelease, *, dataset: str = "", publication: str = "", log: str = "") -> dict:
    """The privacy label of a published plan, JSON-ready: every parameter a reader needs to judge the numbers.

    ``publication`` is the publication's random id (what the log's entry names); nothing in the report is a
    function of the data but the published numbers (no fingerprint, no number of rows)."""
    a: Allocation = release.allocation
    plan = a.plan
    unit = plan.unit
    statistics = []
    for share, r, at_count, counts in zip(
        a.shares, release.releases, release.released_errors(), release.counts or (None,) * len(a.shares)
    ):
        s = share.statistic
        statistics.append(
            {
                "name": s.name,
                "what": s.words(),
                "kind": s.kind,
                "column": s.column,
                "by": s.by,
                "epsilon": share.epsilon,
                "delta": share.delta,
                "rho": share.rho,
                "mechanism": r.mechanism,
                "noise": list(share.noise),
                "noise_std": _num(r.noise_std),
                "expected_error": share.expected_error,
                "expected_error_in_words": error_sentence(s, share.expected_error, plan.confidence),
                "released_count": None if counts is None else [round(c) for c in counts],
                "error_at_released_count": None if at_count is None else list(at_count),
                "error_at_released_count_in_words": released_error_sentence(at_count, counts, plan.confidence),
                "error_unit": s.error_unit or "the statistic's own unit",
                "target": s.target,
                "weight": s.weight,
                "error_to_target": share.ratio,
                "public_facts": [_fact(s, f) for f in r.public],
                "provenance": s.provenance,
                "labels": list(r.labels),
                "values": [v if isinstance(v, str) else float(v) for v in r.values],
            }
        )
    return {
        "title": plan.title,
        "created": release.created,
        "software": {"name": "dp-explorer (dpx_publish)", "version": software_version()},
        "randomness": release.combined.randomness.words,
        "dataset": {"name": dataset},
        "publication_id": publication,
        "unit_of_privacy": {
            "unit": unit.unit,
            "in_words": unit.words(),
            "identifier": unit.identifier,
            "max_rows": unit.bounds.max_rows,
            "max_groups": unit.bounds.max_groups,
            "max_rows_per_group": unit.bounds.max_rows_per_group,
        },
        "neighbouring_relation": a.relation.words(unit.unit),
        "total": {"epsilon": a.epsilon, "delta": a.delta, "planned_epsilon": plan.epsilon, "planned_delta": plan.delta},
        "accountant": a.accountant,
        "split": {
            "policy": plan.policy,
            "confidence": plan.confidence,
            "worst_error_to_target": a.worst_ratio,
            "smallest_total_meeting_targets": a.needed_epsilon,
        },
        "statistics": statistics,
        "publication_log": log,
        "notes": [
            "Each error is that of each published number: it lies within ± the error of its true value (on the "
            "bounded, clipped rows) with the stated confidence. A mean's error is an upper bound: at most ± the error "
            "at the stated confidence whatever the values within the declared bounds (it puts the mean at the bound "
            "of largest magnitude, the worst case; a table whose mean lies inside the bounds has a smaller one), "
            "stated at its planned number of records and at its released noisy count (post-processing, free). A "
            "quantile's is a bound on its rank shortfall.",
            "Published numbers are rounded to a power of ten at most a tenth of the smallest error stated for them "
            "(post-processing).",
        ],
    }


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:64em;color:#1b1b1b;
line-height:1.45;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6em 0;width:100%}th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;
vertical-align:top}th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums}
.label{background:#f7f9fc;border:1px solid #b9c7dd;padding:.8em 1em;border-radius:6px}
small{color:#555}
"""


def _e(value) -> str:
    """Any value as escaped text (nothing a user typed is rendered as markup)."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return html.escape(f"{value:.6g}")
    return html.escape(str(value), quote=True)


def _table(header, rows, numeric=()) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header) if header else ""
    body = "".join(
        "<tr>"
        + "".join(f'<td class="n">{_e(c)}</td>' if i in numeric else f"<td>{_e(c)}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    thead = f"<thead><tr>{head}</tr></thead>" if head else ""
    return f"<table>{thead}<tbody>{body}</tbody></table>"


def _error_words(s: dict) -> str | None:
    return "; ".join(w for w in (s["expected_error_in_words"], s["error_at_released_count_in_words"]) if w) or None


def report_html(report: dict, table: pd.DataFrame) -> str:
    """The report as one self-contained HTML page (inline CSS; no script, link, image or font from anywhere)."""
    total = report["total"]
    unit = report["unit_of_privacy"]
    title = report["title"] or "Differentially private release"
    label_rows = [
        ("unit of privacy", unit["in_words"]),
        ("neighbouring relation", report["neighbouring_relation"]),
        ("total ε", total["epsilon"]),
        ("total δ", total["delta"]),
        ("accountant", report["accountant"]),
        ("split", report["split"]["policy"]),
        ("confidence of every error", report["split"]["confidence"]),
        ("randomness", report["randomness"]),
        ("dataset", report["dataset"]["name"]),
        ("publication id (in the log's entry)", report["publication_id"] or "none"),
        ("publication log charged", report["publication_log"] or "none"),
        ("date (UTC)", report["created"]),
        ("software", f"{report['software']['name']} {report['software']['version']}"),
    ]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        '<div class="label"><strong>Privacy label.</strong> ' + _table((), label_rows) + "</div>",
        "<h2>Statistics</h2>",
        _table(
            ("statistic", "what", "ε", "δ", "ρ (zCDP)", "mechanism and noise", "expected error", "target"),
            [
                (
                    s["name"],
                    s["what"],
                    s["epsilon"],
                    s["delta"],
                    s["rho"],
                    "; ".join(s["noise"]),
                    _error_words(s),
                    s["target"],
                )
                for s in report["statistics"]
            ],
            numeric=(2, 3, 4, 7),
        ),
        "<h2>Published numbers</h2>",
        _table(list(table.columns), table.itertuples(index=False, name=None), numeric=(2, 3)),
        "<h2>Public facts (declared, fixed by the software, or a page default)</h2>",
        _table(
            ("statistic", "fact", "value", "source", "where it came from"),
            [
                (s["name"], f["name"], f["value"], f["source"], f["from"])
                for s in report["statistics"]
                for f in s["public_facts"]
            ],
        ),
        "<h2>Notes</h2>",
        "".join(f"<p><small>{_e(n)}</small></p>" for n in report["notes"]),
        "</body></html>",
    ]
    return "\n".join(parts)


def release_csv(release: PlanRelease) -> bytes:
    """The published numbers only, rounded to what the noise allows, spreadsheet-safe."""
    return to_safe_csv(release.table(rounded=True))


def rerun_script() -> str:
    """The script shipped in a package: the plan beside it, re-run on a data file with fresh secure noise."""
    return '''"""Re-run the plan beside this script on a data file, with fresh secure noise: a new publication, charged again.

    python rerun_plan.py data.csv --out new_release.zip [--log publications.sqlite3]

Needs the dp-explorer checkout (or an installed copy) importable: run it from the checkout, or set PYTHONPATH to it.
"""

import pathlib
import sys

from dpx_publish.cli import main

if __name__ == "__main__":
    plan = pathlib.Path(__file__).resolve().parent / "plan.json"
    sys.exit(main(["publish", str(plan), *sys.argv[1:]]))
'''


def build_package(release: PlanRelease, *, dataset: str = "", publication: str = "", log: str = "") -> bytes:
    """The zip of a published plan (module notes), as bytes."""
    report = report_dict(release, dataset=dataset, publication=publication, log=log)
    table = release.table(rounded=True)
    files = {
        "release.csv": to_safe_csv(table),
        "report.html": report_html(report, table).encode("utf-8"),
        "report.json": json.dumps(report, ensure_ascii=False, indent=2, allow_nan=False).encode("utf-8"),
        "plan.json": json.dumps(plan_to_dict(release.allocation.plan), ensure_ascii=False, indent=2).encode("utf-8"),
        "rerun_plan.py": rerun_script().encode("utf-8"),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name in FILES:
            z.writestr(name, files[name])
    return buffer.getvalue()


@dataclass(frozen=True, eq=False)
class Package:
    """A published plan and its zip."""

    release: PlanRelease
    zip_bytes: bytes


def publish_package(plan: Plan, data, *, log, fingerprint: str, dataset: str) -> Package:
    """Allocate ``plan``, charge ``log`` (an :class:`explorer.publication_log.PublicationLog`) and publish, all or
    nothing; return the release and its zip.

    ``data`` is the private table (a pandas DataFrame: :func:`dpcore.plan_release.publish_plan` draws on its rows) or
    a file opened by path (:class:`dpx_publish.source.FileSource`: its exact aggregates computed by DuckDB over every
    row, then :func:`dpcore.plan_release.publish_from_aggregates`). The plan and the columns are checked, and a
    file's aggregates computed, before the log is touched (a refusal costs nothing); the noise is drawn inside the
    log's transaction (:meth:`~explorer.publication_log.PublicationLog.publish`), so a publication over the dataset's
    budget is refused before anything is drawn.

    Raises
    ------
    ValueError
        One sentence: the plan (:class:`dpcore.plan.PlanError`), a missing column, a budget refused by the log.
    """
    check_publishable(plan)
    allocation = allocate(plan)
    if isinstance(data, pd.DataFrame):
        check_columns(allocation, data)

        def compute() -> PlanRelease:
            return publish_plan(allocation, data)
    else:
        compute = data.prepare(allocation)  # reads the file now: before the charge
    drawn: list[PlanRelease] = []

    def draw():
        drawn.append(compute())
        return drawn[-1].combined

    publication = secrets.token_hex(8)  # random: the report names the log's entry by it, never by the data's hash
    label = f"release plan {publication}: {len(plan.statistics)} statistics" + (
        f" ({plan.title})" if plan.title else ""
    )
    log.publish(fingerprint, dataset, (allocation.epsilon, allocation.delta), draw, label=label[:200])
    release = drawn[-1]
    zip_bytes = build_package(release, dataset=dataset, publication=publication, log=str(log.path))
    return Package(release, zip_bytes)
