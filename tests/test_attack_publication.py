"""Attacks on the publication paths of the release plan (issues 18 and 21), run from the outside.

Each test runs one attack against what a user publishes (:func:`dpcore.plan_release.publish_plan`, the package of
:mod:`dpx_publish` and its command line, :func:`dpcore.groupby.publish_group_by`,
:func:`dpcore.bound_tradeoff.private_bound`, Compare's quantile file) and passes when the attack recovers nothing:

1. reproducibility: seeds, environment and a ``seed`` key in plan.json change nothing; two publications differ,
   and none equals a seeded simulation;
2. two totals: ``2·r₁ − r₂`` from publications at ε and ε/2 is the truth plus fresh noise of the stated variance;
3. overlap: a count and category counts covering every row, and a mean's count part, never share a noise draw;
4. data-chosen outputs: removing the one row of a unique category changes no label, row or report field;
5. floating point: a count published on tables of count 0 and 1 lies on the same lattice, no low bit set;
6. charge before show: a refused budget, log or output writes nothing and charges nothing, in one sentence;
7. every report names its unit and neighbouring relation;
8. the package: hostile names are escaped (no markup runs in Chromium, no request leaves), release.csv is
   spreadsheet-safe.

Monte-Carlo tolerances are from sampling error (a variance estimated from ``k`` Laplace draws has relative standard
error ``√((κ − 1)/k)`` with kurtosis κ = 6); the simulations the attacks compare against are seeded; the
publications are not.
"""

from __future__ import annotations

import csv
import hashlib
import html.parser
import http.server
import io
import json
import math
import os
import random
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpcore.groupby import publish_group_by
from dpcore.lattice import LatticeMechanism, lattice_mechanism
from dpcore.partition_selection import LaplaceThresholding
from dpcore.plan import PlanError, allocate, noise_parts, plan_from_dict
from dpcore.plan_release import publish_plan, simulate_plan
from dpcore.randomness import Randomness
from dpx_publish.cli import EXIT_REFUSED, main
from dpx_publish.package import publish_package
from explorer.dataset import load_csv
from explorer.publication_log import PublicationLog

ROOT = Path(__file__).resolve().parents[1]
EDU = ["HS-grad", "Some-college", "Bachelors", "Masters", "Doctorate"]
RARE = "Zanzibar"  # one person's category, never declared
#: Laplace's kurtosis: a variance estimated from k draws has relative standard error √(5/k).
LAPLACE_KURTOSIS = 6.0


def _rows(n: int = 600, *, rare: bool = True) -> pd.DataFrame:
    gen = np.random.default_rng(18)
    frame = pd.DataFrame(
        {
            "edu": [EDU[i % 5] for i in range(n)],
            "age": gen.integers(17, 91, size=n).astype(float),
            "hours": gen.integers(1, 80, size=n).astype(float),
            "pid": [f"p{i // 2}" for i in range(n)],
        }
    )
    if rare:
        frame.loc[len(frame)] = {"edu": RARE, "age": 97.0, "hours": 99.0, "pid": "p-rare"}
    return frame


def _plan(epsilon: float = 1.0, *, person: bool = False, **extra) -> dict:
    unit = {"identifier": "pid", "max_rows": 2, "max_groups": 1, "max_rows_per_group": 2} if person else {}
    stats = [
        {"name": "rows", "kind": "count"},
        {"name": "per education", "kind": "counts", "column": "edu", "domain": EDU, "other": True},
        {"name": "mean age", "kind": "mean", "column": "age", "lower": 17, "upper": 90, "planned_n": 1000},
        {"name": "age bins", "kind": "histogram", "column": "age", "lower": 0, "upper": 100, "bins": 10},
        {
            "name": "hours by education",
            "kind": "sum",
            "column": "hours",
            "lower": 0,
            "upper": 80,
            "by": "edu",
            "keys": EDU,
        },  # fmt: skip
    ]
    if not person:
        stats.append({"name": "median age", "kind": "quantile", "column": "age", "lower": 0, "upper": 100, "q": 0.5,
                      "resolution": 1})  # fmt: skip
    plan = {"version": 1, "title": "attack", "unit": unit, "total": {"epsilon": epsilon, "delta": 0},
            "policy": "equal", "statistics": stats}  # fmt: skip
    plan.update(extra)
    return plan


def _numbers(release) -> np.ndarray:
    return np.array([float(v) for r in release.releases for v in r.values])


def _additive(release) -> np.ndarray:
    """The published numbers of every statistic drawn with additive lattice noise (the quantile left out)."""
    return np.array(
        [float(v) for s, r in zip(release.allocation.shares, release.releases) if s.statistic.kind != "quantile"
         for v in r.values]
    )  # fmt: skip


def _unzip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {name: z.read(name) for name in z.namelist()}


def _csv_rows(data: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))


def _write(tmp_path: Path, plan: dict, frame: pd.DataFrame, name: str = "data.csv") -> tuple[Path, Path]:
    plan_file, data_file = tmp_path / "plan.json", tmp_path / name
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    if name.endswith(".parquet"):
        frame.to_parquet(data_file, index=False)  # read where it lies, by DuckDB (dpx_publish.source)
    else:
        frame.to_csv(data_file, index=False)
    return plan_file, data_file


def _fingerprint(path: Path) -> str:
    return load_csv(path.read_bytes(), path.name).fingerprint


# ---------------------------------------------------------------------------------------------- 1. reproducibility


def test_publications_are_fresh_whatever_seed_is_set(monkeypatch):
    frame = _rows()
    a = allocate(plan_from_dict(_plan()))
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    monkeypatch.setenv("DPX_SEED", "2017")
    drawn = []
    for _ in range(2):
        np.random.seed(2017)  # the global generators, reset before each publication
        random.seed(2017)
        drawn.append(_additive(publish_plan(a, frame)))
    first, second = drawn
    assert first.shape == second.shape and first.size == 23
    # each number's noise is spread over thousands of lattice steps: two fresh draws almost never coincide
    assert np.count_nonzero(first == second) <= 2
    for seed in (0, 1, 2017, 20170101):  # the app's default seed and a few others
        simulated = simulate_plan(a, frame, seed, 1)
        seeded = np.concatenate([v[0] for s, v in zip(a.shares, simulated.values) if s.statistic.kind != "quantile"])
        assert np.count_nonzero(seeded == first) <= 2 and np.count_nonzero(seeded == second) <= 2


@pytest.mark.parametrize("person", [False, True], ids=["record", "person"])
def test_a_publication_never_builds_a_seedable_generator(monkeypatch, person):
    """No numpy generator (seeded or not) and no global numpy draw takes part in a publication: every bit is secure."""

    def refuse(*args, **kwargs):
        raise AssertionError("a publication asked numpy's generators for randomness")

    a = allocate(plan_from_dict(_plan(person=person)))
    frame = _rows()
    monkeypatch.setattr(np.random, "default_rng", refuse)
    for name in ("PCG64", "Philox", "MT19937", "SFC64"):  # the bit generators a seeded Generator is built on
        monkeypatch.setattr(np.random, name, refuse)
    for name in ("random", "laplace", "normal", "integers", "randint", "uniform", "choice", "permutation", "shuffle"):
        monkeypatch.setattr(np.random, name, refuse, raising=False)
    release = publish_plan(a, frame)
    assert release.combined.randomness is Randomness.PUBLICATION
    with pytest.raises(AssertionError, match="numpy's generators"):  # the trap is live: a simulation falls in it
        simulate_plan(a, frame, 2017, 1)


@pytest.mark.parametrize("where", ["plan", "statistic", "unit", "total"], ids=["plan", "statistic", "unit", "total"])
def test_a_seed_in_the_plan_file_is_refused_by_name(where):
    plan = _plan()
    target = {"plan": plan, "statistic": plan["statistics"][0], "unit": plan["unit"], "total": plan["total"]}[where]
    target["seed"] = 2017
    with pytest.raises(PlanError, match="unknown entry 'seed'"):
        plan_from_dict(plan)


@pytest.mark.parametrize("name", ["data.csv", "data.parquet"])  # the app's reader; the engine's aggregates
def test_command_line_twice_with_the_same_environment_gives_different_noise(tmp_path, name):
    plan = _plan()
    plan["statistics"] = plan["statistics"][:2]
    plan_file, data_file = _write(tmp_path, plan, _rows(), name)
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(ROOT), "DPX_DATA_DIR": str(tmp_path / "var")}
    tables = []
    for i in range(2):
        out = tmp_path / f"r{i}.zip"
        run = subprocess.run(
            [sys.executable, "-m", "dpx_publish", "publish", str(plan_file), str(data_file), "--out", str(out)],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        tables.append(_csv_rows(_unzip(out.read_bytes())["release.csv"]))
    first, second = tables
    assert [(r["statistic"], r["label"]) for r in first] == [(r["statistic"], r["label"]) for r in second]
    assert len(first) == 7
    assert [r["released value"] for r in first] != [r["released value"] for r in second]


# ---------------------------------------------------------------------------------------------- 2. two totals


def test_publications_at_two_totals_do_not_combine_to_the_truth():
    frame = _rows()
    stats = _plan()["statistics"][:2]
    at = {e: allocate(plan_from_dict({**_plan(e), "statistics": stats})) for e in (1.0, 0.5)}
    truth = np.array([len(frame), *[(frame["edu"] == e).sum() for e in EDU], (frame["edu"] == RARE).sum()], float)
    combos = []
    for _ in range(40):
        r1, r2 = (_numbers(publish_plan(at[e], frame)) for e in (1.0, 0.5))
        combos.append(2 * r1 - r2 - truth)
    combo = np.concatenate(combos)
    # rescaled noise (r₂ − truth = 2(r₁ − truth)) would make every combination exactly 0
    assert np.count_nonzero(combo == 0.0) <= 2
    # fresh draws: Var(2r₁ − r₂) = 4 Var(r₁) + Var(r₂), each number's variance 2b² of its Laplace scale
    b1 = [noise.scale for s in at[1.0].shares for _, noise in noise_parts(s.statistic, at[1.0].plan.unit, s.budget)]
    b2 = [noise.scale for s in at[0.5].shares for _, noise in noise_parts(s.statistic, at[0.5].plan.unit, s.budget)]
    per = np.array([4 * 2 * b1[0] ** 2 + 2 * b2[0] ** 2] + [4 * 2 * b1[1] ** 2 + 2 * b2[1] ** 2] * 6)
    ratio = np.mean(combo**2 / np.tile(per, 40))
    se = math.sqrt((LAPLACE_KURTOSIS - 1) / combo.size)
    assert abs(ratio - 1.0) < 5 * se, (ratio, se)


# ---------------------------------------------------------------------------------------------- 3. overlap


def test_overlapping_statistics_never_share_a_noise_draw(monkeypatch):
    """A count of rows and category counts whose domain (with "(other)") covers every row; a mean's noisy count."""
    frame = _rows()
    plan = _plan()
    plan["statistics"] = plan["statistics"][:3]
    a = allocate(plan_from_dict(plan))
    recorded = []
    original = LatticeMechanism.draw

    def spy(self, values, rng):
        out = original(self, values, rng)
        grid = self.grid
        recorded.append(np.atleast_1d(np.asarray(out) - np.round(np.asarray(values, dtype=float) / grid) * grid))
        return out

    monkeypatch.setattr(LatticeMechanism, "draw", spy)
    trials, differences, pairs = 150, [], []
    for _ in range(trials):
        recorded.clear()
        release = publish_plan(a, frame)
        assert len(recorded) == 4  # the count, the counts, the mean's sum and its count: one draw each
        count_noise, counts_noise, _, mean_count_noise = recorded
        pairs.append((count_noise[0], mean_count_noise[0]))
        total, cells = release.releases[0].values[0], release.releases[1].values
        differences.append(total - sum(cells))  # the truth cancels: what is left is noise alone
    d = np.array(differences)
    b_count = noise_parts(a.shares[0].statistic, a.plan.unit, a.shares[0].budget)[0][1].scale
    b_cell = noise_parts(a.shares[1].statistic, a.plan.unit, a.shares[1].budget)[0][1].scale
    expected = 2 * b_count**2 + 6 * 2 * b_cell**2  # independent draws; a shared draw would cancel part of it
    se = math.sqrt((LAPLACE_KURTOSIS - 1) / trials)
    assert abs(np.mean(d**2) / expected - 1.0) < 5 * se
    x, y = np.array(pairs).T
    assert not np.any(x == y) or np.count_nonzero(x == y) <= 2
    assert abs(np.corrcoef(x, y)[0, 1]) < 5 / math.sqrt(trials)


# ---------------------------------------------------------------------------------------------- 4. data-chosen outputs

#: drawn anew: besides the values, a mean's released noisy count and its error at that count (post-processing)
_VOLATILE = {"created", "publication_id", "values", "released_count", "error_at_released_count",
             "error_at_released_count_in_words"}  # fmt: skip


def _structure(report):
    """The report without what a publication draws anew (values, date, its random id)."""
    if isinstance(report, dict):
        return {k: _structure(v) for k, v in report.items() if k not in _VOLATILE}
    if isinstance(report, list):
        return [_structure(v) for v in report]
    return report


@pytest.mark.parametrize("person", [False, True], ids=["record", "person"])
def test_removing_one_row_of_a_unique_category_changes_nothing_but_noise(tmp_path, person):
    packages = {}
    for rare in (True, False):
        folder = tmp_path / str(rare)
        folder.mkdir()
        _, data_file = _write(folder, _plan(person=person), _rows(rare=rare))
        dataset = load_csv(data_file.read_bytes(), "data.csv")
        log = PublicationLog(tmp_path / "log.db")
        package = publish_package(
            plan_from_dict(_plan(person=person)), dataset.frame, log=log, fingerprint=dataset.fingerprint,
            dataset="data.csv",
        )  # fmt: skip
        packages[rare] = (dataset.fingerprint, _unzip(package.zip_bytes))
    (fp_with, with_rare), (fp_without, without) = packages[True], packages[False]
    assert fp_with != fp_without  # the files differ by one row
    rows_with, rows_without = _csv_rows(with_rare["release.csv"]), _csv_rows(without["release.csv"])
    assert len(rows_with) == len(rows_without) == (23 if person else 24)  # the median is offered per record only
    assert [(r["statistic"], r["label"]) for r in rows_with] == [(r["statistic"], r["label"]) for r in rows_without]
    assert all(RARE not in r["label"] for r in rows_with)
    report_with, report_without = (json.loads(p["report.json"]) for p in (with_rare, without))
    assert _structure(report_with) == _structure(report_without)
    # the data's fingerprint (a hash of every row) is in no file of the package
    for fingerprint, files in packages.values():
        for name, data in files.items():
            assert fingerprint.encode() not in data, name
    assert RARE.encode() not in b"".join(with_rare.values())


def test_kept_groups_of_a_partition_selection_are_said_to_be_a_private_output():
    groups = np.array([f"g{i % 4}" for i in range(800)] + ["solo"])
    selection = LaplaceThresholding(0.5, 1e-6)
    release = publish_group_by(groups, 1.0, selection=selection)
    facts = {f.name: f for f in release.public}
    assert "partition selection" in facts and facts["partition selection"].value
    assert "threshold" in " ".join(facts) and release.epsilon == pytest.approx(1.5)
    assert release.delta > 0 and release.randomness is Randomness.PUBLICATION
    assert list(release.labels) == sorted(release.labels)  # ordered by name, never by count
    # a group of one person is kept with probability δ₀ ≈ 10⁻⁶: the one row "solo" is (almost) never released
    assert "solo" not in release.labels


# ---------------------------------------------------------------------------------------------- 5. floating point


def test_a_count_on_tables_of_zero_and_one_rows_lies_on_one_lattice():
    plan = plan_from_dict({**_plan(), "statistics": [{"name": "rows", "kind": "count"}]})
    a = allocate(plan)
    grid = lattice_mechanism(noise_parts(a.shares[0].statistic, plan.unit, a.shares[0].budget)[0][1]).grid
    assert math.log2(grid).is_integer()
    low_bits = {}
    for n in (0, 1):
        frame = pd.DataFrame({"x": np.zeros(n)})
        values = np.array([publish_plan(a, frame).releases[0].values[0] for _ in range(150)])
        assert np.all(np.abs(values / grid - np.round(values / grid)) == 0.0)  # every number on the lattice
        words = values.view(np.uint64)
        low_bits[n] = np.count_nonzero(words & np.uint64(0xFF))  # the textbook float attack reads these
        assert len(np.unique(values)) > 120  # noise of thousands of lattice steps, not a handful of values
    assert low_bits == {0: 0, 1: 0}
    # a published number is a function of its lattice index: the same index prints the same digits on both tables
    assert float(7 * grid + 1.0 - 1.0) == 7 * grid


# ---------------------------------------------------------------------------------------------- 6. charge before show


def _cli(capsys, *args) -> tuple[int, str]:
    code = main(["publish", *map(str, args)])
    err = capsys.readouterr().err.strip()
    return code, err


def _one_sentence(err: str) -> bool:
    return err.count("\n") == 0 and err.endswith(".") and "Traceback" not in err


def test_a_refused_budget_writes_and_charges_nothing(tmp_path, capsys):
    plan_file, data_file = _write(tmp_path, _plan(), _rows())
    log = PublicationLog(tmp_path / "log.db")
    fingerprint = _fingerprint(data_file)
    log.set_budget(fingerprint, 0.5, 0.0, reason="attack")
    code, err = _cli(capsys, plan_file, data_file, "--out", tmp_path / "r.zip", "--log", tmp_path / "log.db")
    assert code == EXIT_REFUSED and _one_sentence(err), err
    assert not (tmp_path / "r.zip").exists() and tuple(log.spent(fingerprint)) == (0.0, 0.0)
    assert not list(tmp_path.glob("*.part"))


def test_an_unwritable_log_folder_writes_nothing(tmp_path, capsys, monkeypatch):
    plan_file, data_file = _write(tmp_path, _plan(), _rows())
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("DPX_DATA_DIR", str(blocker / "data"))
    code, err = _cli(capsys, plan_file, data_file, "--out", tmp_path / "r.zip")
    assert code == EXIT_REFUSED and _one_sentence(err) and "DPX_DATA_DIR" in err, err
    assert not (tmp_path / "r.zip").exists()


def test_a_log_that_is_not_a_database_writes_nothing(tmp_path, capsys):
    plan_file, data_file = _write(tmp_path, _plan(), _rows())
    (tmp_path / "log.db").write_bytes(b"this is not SQLite" * 100)
    code, err = _cli(capsys, plan_file, data_file, "--out", tmp_path / "r.zip", "--log", tmp_path / "log.db")
    assert code == EXIT_REFUSED and _one_sentence(err), err
    assert not (tmp_path / "r.zip").exists()


def test_rows_without_a_person_are_refused_with_nothing_charged(tmp_path, capsys):
    frame = _rows()
    frame.loc[:9, "pid"] = None
    plan_file, data_file = _write(tmp_path, _plan(person=True), frame)
    code, err = _cli(capsys, plan_file, data_file, "--out", tmp_path / "r.zip", "--log", tmp_path / "log.db")
    # dpcore's sentence ("10 missing value(s)") or the engine's ("10 row(s) without one in 'pid'"): the command line
    # computes a plan's aggregates in DuckDB (dpx_publish.source)
    assert code == EXIT_REFUSED and _one_sentence(err) and "must name a person on every row, got 10 " in err, err
    assert not (tmp_path / "r.zip").exists()
    assert tuple(PublicationLog(tmp_path / "log.db").spent(_fingerprint(data_file))) == (0.0, 0.0)


def test_an_unwritable_output_is_refused_before_the_charge(tmp_path, capsys):
    plan_file, data_file = _write(tmp_path, _plan(), _rows())
    folder = tmp_path / "out"
    folder.mkdir()
    code, err = _cli(capsys, plan_file, data_file, "--out", folder, "--log", tmp_path / "log.db")
    assert code == EXIT_REFUSED and _one_sentence(err) and "folder" in err, err
    assert tuple(PublicationLog(tmp_path / "log.db").spent(_fingerprint(data_file))) == (0.0, 0.0)


def test_a_failed_draw_charges_nothing_and_a_package_holds_only_charged_numbers(tmp_path, monkeypatch):
    import dpx_publish.package as package_module

    frame = _rows()
    log = PublicationLog(tmp_path / "log.db")
    plan = plan_from_dict(_plan())

    def broken(allocation, table):
        raise RuntimeError("the draw failed")

    with monkeypatch.context() as m:
        m.setattr(package_module, "publish_plan", broken)
        with pytest.raises(RuntimeError):
            publish_package(plan, frame, log=log, fingerprint="f00d", dataset="d.csv")
    assert tuple(log.spent("f00d")) == (0.0, 0.0)
    package = publish_package(plan, frame, log=log, fingerprint="f00d", dataset="d.csv")
    assert log.spent("f00d").epsilon == pytest.approx(1.0, rel=1e-9)
    report = json.loads(_unzip(package.zip_bytes)["report.json"])
    shown = [v for s in report["statistics"] for v in s["values"]]
    stored = [float(v) for r in log.releases("f00d") for v in r.values]
    assert shown == stored  # every number in the package is one the log was charged for
    assert report["publication_id"] in log.entries("f00d")["label"].iloc[0]


# ---------------------------------------------------------------------------------------------- 7. relation and unit


@pytest.mark.parametrize("person", [False, True], ids=["record", "person"])
def test_every_report_names_its_unit_and_relation(tmp_path, person):
    log = PublicationLog(tmp_path / "log.db")
    package = publish_package(
        plan_from_dict(_plan(person=person)), _rows(), log=log, fingerprint="cafe", dataset="d.csv"
    )
    report = json.loads(_unzip(package.zip_bytes)["report.json"])
    unit = "person" if person else "record"
    assert report["unit_of_privacy"]["unit"] == unit
    assert report["neighbouring_relation"] == f"add/remove one {unit}"
    assert (report["unit_of_privacy"]["identifier"] == "pid") is person
    assert all(r.unit == unit and r.relation.value for r in log.releases("cafe"))
    html_text = _unzip(package.zip_bytes)["report.html"].decode()
    assert f"add/remove one {unit}" in html_text


# ---------------------------------------------------------------------------------------------- 8. the package


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)


class _Hits(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802 - the server's name
        _Hits.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_hostile_names_are_inert_in_the_report_and_the_spreadsheet(tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hits)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    bait = f"http://127.0.0.1:{port}"
    hostile = [
        f'<img src="{bait}/img" onerror="fetch(\'{bait}/js\')">',
        f"<script>fetch('{bait}/script')</script>",
        f'"><iframe src="{bait}/frame"></iframe>',
        '=HYPERLINK("http://evil")',
        "+1+1",
        "-2+3",
        "@SUM(A1)",
        "\tcell",
    ]
    column = f"<b onmouseover=\"fetch('{bait}/col')\">age</b>"
    frame = pd.DataFrame({"cat": [hostile[i % len(hostile)] for i in range(400)], column: np.arange(400) % 90.0})
    plan = {
        "version": 1,
        "title": hostile[1][:200],
        "total": {"epsilon": 1.0, "delta": 0},
        "statistics": [
            {"name": hostile[0], "kind": "counts", "column": "cat", "domain": hostile, "other": True,
             "provenance": hostile[2]},
            {"name": "=cmd|' /C calc'!A0", "kind": "mean", "column": column, "lower": 0, "upper": 90,
             "planned_n": 400},
        ],
    }  # fmt: skip
    try:
        log = PublicationLog(tmp_path / "log.db")
        package = publish_package(plan_from_dict(plan), frame, log=log, fingerprint="beef", dataset=hostile[0])
        files = _unzip(package.zip_bytes)
        page = files["report.html"].decode("utf-8")
        tags = _Tags()
        tags.feed(page)
        allowed = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "div", "strong", "table", "thead",
                   "tbody", "tr", "th", "td", "p", "small"}  # fmt: skip
        assert tags.tags <= allowed, tags.tags - allowed
        assert tags.attributes <= {"lang", "charset", "http-equiv", "content", "class"}, tags.attributes
        for cell in (c for row in csv.reader(io.StringIO(files["release.csv"].decode("utf-8-sig"))) for c in row):
            try:
                float(cell)
            except ValueError:
                assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
        report_path = tmp_path / "report.html"
        report_path.write_bytes(files["report.html"])
        requests = _open_in_chromium(report_path)
        assert all(url.startswith("file://") for url in requests), requests
        assert _Hits.hits == []
    finally:
        server.shutdown()
        server.server_close()


def _open_in_chromium(path: Path) -> list[str]:
    from tests.browser import chromium_path, launch_browser

    if chromium_path() is None:
        pytest.skip("Chromium is not installed")
    with launch_browser() as browser:
        page = browser.new_page()
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(path.as_uri(), wait_until="load")
        page.hover("h1")
        page.mouse.move(200, 400)
        page.wait_for_timeout(300)
        title = page.title()
        text = page.inner_text("body")
    assert "<script>" in title and "<img" in text  # shown as text, not run
    return requests


# ---------------------------------------------------------------------------------------------- private bound, Compare


def test_private_bound_publication_is_fresh_and_labelled_for_persons():
    from dpcore.bound_tradeoff import private_bound, publish_private_bound

    persons = np.repeat(np.arange(400), np.arange(400) % 7 + 1)
    np.random.seed(0)
    release = publish_private_bound(persons, 1.0, q=0.9, max_bound=50, identifier="pid")
    assert release.unit == "person" and release.relation.value and release.randomness is Randomness.PUBLICATION
    without = publish_private_bound(persons[:-1], 1.0, q=0.9, max_bound=50, identifier="pid")
    assert release.labels == without.labels  # the label from q alone
    # the seeded path is a simulation, reproducible; the secure one is not tied to it
    assert private_bound(persons, 1.0, max_bound=50, rng=3) == private_bound(persons, 1.0, max_bound=50, rng=3)


def test_compare_quantile_file_is_labelled_simulated_on_every_row():
    """Compare's quantile download is seeded (reproducible from the link): every row must say it is not private."""
    from dpcore.histogram_quantile import dp_histogram_quantile
    from dpcore.quantiles import ExponentialQuantile
    from explorer import releases
    from explorer.compare_layout import labelled_file
    from explorer.compare_quantiles import EXPONENTIAL, HISTOGRAMS, _label

    values = np.arange(300) % 90.0
    name, family = next(iter(HISTOGRAMS.items()))
    chosen = [EXPONENTIAL, name]
    drawn = releases.compare_quantiles(values, 0.5, 0.0, 100.0, 20, chosen, 1.0, 1e-6, [1, 2])
    again = releases.compare_quantiles(values, 0.5, 0.0, 100.0, 20, chosen, 1.0, 1e-6, [1, 2])
    assert drawn["released"].tolist() == again["released"].tolist()  # seeded: a simulation, so it must say so
    laws = {
        EXPONENTIAL: ExponentialQuantile(1.0, 0.0, 100.0, 0.5),
        name: dp_histogram_quantile(values, 0.5, 0.0, 100.0, 20, 1.0, 0, mechanism=family.key),
    }
    rows = {
        m: (pd.DataFrame({"column": ["age"], "quantile q": [0.5], "released": [v]}), _label(m, 1.0, laws[m], "median"))
        for m, v in zip(drawn["mechanism"], drawn["released"])
    }
    said = labelled_file(rows).astype(str).agg(" ".join, axis=1)
    assert said.str.contains("not private").all() and said.str.contains("add/remove one record").all()


def test_the_data_file_hash_is_not_what_the_log_key_prints(tmp_path):
    """The fingerprint is 8 hex digits of SHA-256 of the file: one who knows every row but one would find the last by
    trying candidates against it, so it stays in the log and never reaches a package (test 4 checks the zip)."""
    _, data_file = _write(tmp_path, _plan(), _rows())
    assert _fingerprint(data_file) == hashlib.sha256(data_file.read_bytes()).hexdigest()[:8]


def test_a_quantile_read_off_a_float_histogram_cannot_pass_for_a_publication():
    """dp_histogram_quantile draws textbook float noise (a simulation): given the secure generator it used to draw
    float noise from secure bits, which looks published but is not floating-point safe; it is refused by name."""
    from dpcore.histogram_quantile import dp_histogram_quantile, quantile_from_counts
    from dpcore.publish import publish_histogram
    from dpcore.randomness import SecureGenerator

    values = np.arange(200) % 90.0
    with pytest.raises(TypeError, match="publish_histogram"):
        dp_histogram_quantile(values, 0.5, 0.0, 100.0, 10, 1.0, SecureGenerator())
    simulated = dp_histogram_quantile(values, 0.5, 0.0, 100.0, 10, 1.0, 0)
    assert simulated.randomness is Randomness.SIMULATION
    with pytest.raises(TypeError, match="SecureGenerator"):
        simulated.simulate(3, SecureGenerator())
    # the safe route: a published histogram (lattice noise), its quantile by post-processing
    published = publish_histogram(values, 10, 0.0, 100.0, 1.0)
    assert published.randomness is Randomness.PUBLICATION
    assert 0.0 <= quantile_from_counts(np.array(published.values, dtype=float), np.linspace(0, 100, 11), 0.5) <= 100


@pytest.mark.parametrize("field", ["domain", "keys"])
def test_a_declared_category_named_like_the_catch_all_is_refused(field):
    """Two published rows labelled "(other)" (the declared one and the catch-all) cannot be told apart."""
    stat = {"name": "s", "kind": "counts", "column": "edu", "domain": ["a", "(other)"], "other": True}
    if field == "keys":
        stat = {"name": "s", "kind": "count", "by": "edu", "keys": ["a", "(other)"], "other": True}
    with pytest.raises(ValueError, match="must not hold it"):
        plan_from_dict({"total": {"epsilon": 1.0}, "statistics": [stat]})
    stat["other"] = False  # without the catch-all, "(other)" is an ordinary declared category
    assert plan_from_dict({"total": {"epsilon": 1.0}, "statistics": [stat]}).statistics[0].labels == ("a", "(other)")


# ---------------------------------------------------------------------------------------------- 9. every publication


def _fixed_stream(key: bytes):
    """An ``os.urandom`` stand-in: SHAKE-256 of a key and a counter, the same bytes for the same key."""
    counter = iter(range(1 << 62))
    return lambda n: hashlib.shake_256(key + next(counter).to_bytes(8, "little")).digest(n)


def _all_publication_functions() -> dict[str, object]:
    """Every public ``publish*`` function of every dpcore module, by qualified name (found by walking the package)."""
    import importlib
    import inspect
    import pkgutil

    import dpcore

    found = {}
    for info in pkgutil.walk_packages(dpcore.__path__, "dpcore."):
        module = importlib.import_module(info.name)
        for name, f in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("publish") and f.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = f
    return found


def _small_plan(kinds=("count", "counts")):
    plan = _plan()
    plan["statistics"] = [s for s in plan["statistics"] if s["kind"] in kinds and "by" not in s]
    return allocate(plan_from_dict(plan))


_X = np.arange(200.0) / 3
_CODES = np.arange(300) % 4
#: One call per publication function: small inputs, every number drawn from secure bits. A new publish* function
#: fails test_every_publication_function_has_a_call until it gets one here.
PUBLICATION_CALLS = {
    "dpcore.publish.publish": lambda f: f(__import__("dpcore").dp_count(_X, 1.0, 0)),
    "dpcore.publish.publish_count": lambda f: f(_X, 1.0),
    "dpcore.publish.publish_sum": lambda f: f(_X, 0, 50, 1.0, mechanism="gaussian", delta=1e-6),
    "dpcore.publish.publish_mean": lambda f: f(_X, 0, 50, 1.0),
    "dpcore.publish.publish_histogram": lambda f: f(_X, 10, 0, 100, 1.0),
    "dpcore.publish.publish_count_matching": lambda f: f(_X > 20, "x > 20", 1.0),
    "dpcore.publish.publish_category_counts": lambda f: f(_CODES, "abc", 1.0, other=True),
    "dpcore.publish.publish_two_way_table": lambda f: f(_CODES % 2, _CODES // 2, ["a", "b"], ["x", "y"], 1.0),
    "dpcore.publish.publish_most_common": lambda f: f(_CODES, "abcd", 0.01),
    "dpcore.publish.publish_local_counts": lambda f: f(_CODES, "abc", "OUE", 1.0),
    "dpcore.publish.publish_local_mean": lambda f: f(_X, 0, 70, 1.0),
    "dpcore.publish.publish_clipping_bound": lambda f: f(_X, 100.0, 1_000, 0.01),
    "dpcore.publish.publish_automatic_mean": lambda f: f(_X, 100.0, 20, 1.0),
    "dpcore.publish.publish_range_counts": lambda f: f(_X, [[0, 30], [30, 70]], 10, 2, 1.0),
    "dpcore.publish.publish_quantile": lambda f: f(_X, 0.5, 0, 100, 1.0),
    "dpcore.publish.publish_logistic_regression": lambda f: f(
        np.eye(4)[:, :2], np.array([0.0, 1.0, 0.0, 1.0]), ["a", "b"], epsilon=1.0, delta=1e-5, iterations=2, clip=1.0
    ),
    "dpcore.groupby.publish_group_by": lambda f: f(["a", "b", "a", "c"] * 30, 1.0, keys=["a", "b"], other=True),
    "dpcore.bound_tradeoff.publish_private_bound": lambda f: f(np.repeat(np.arange(60), 3), 0.1, max_bound=50),
    "dpcore.plan_release.publish_plan": lambda f: f(_small_plan(("count", "counts", "mean")), _rows()),
    "dpcore.plan_release.publish_from_aggregates": lambda f: f(
        _small_plan(), [pd.DataFrame({"rows": [600.0]}), pd.DataFrame({"rows": [120.0] * 5 + [1.0]})]
    ),
}


def _published_numbers(out) -> tuple:
    """What a publication shows: a release's values (numbers, or a chosen label), or those of every release of a plan."""
    if hasattr(out, "releases"):
        return tuple(v for r in out.releases for v in r.values)
    return tuple(out.values)


def _os_bits_verdict(call, monkeypatch) -> str | None:
    """Why ``call`` is not a function of its inputs and the operating system's bits alone (None when it is).

    With ``os.urandom`` replaced by one fixed stream, two runs under different numpy and Python global seeds must
    be equal (nothing else enters); with the real bits, runs must differ. Outputs with few possible values (a
    chosen bound, a most common category) are drawn again until two differ: at most 40 runs, and each of these
    publications' most likely output has probability at most 0.6 (in 300 runs of the calls below: 0.27 for the
    most common category, 0.33 for the clipping bound, 0.04 for the private bound), so 40 equal runs have
    probability below 0.6³⁹ ≈ 2e-9 for a correct publication.
    """
    runs = []
    with monkeypatch.context() as m:
        for seed in (1, 2):
            m.setattr(os, "urandom", _fixed_stream(b"the same bits"))
            np.random.seed(seed)
            random.seed(seed)
            runs.append(_published_numbers(call()))
    if runs[0] != runs[1]:
        return "differs under the same operating-system bits: something else (a global generator?) enters it"
    first = _published_numbers(call())
    for _ in range(40):
        if _published_numbers(call()) != first:
            return None
    return "the same numbers from fresh operating-system bits: a seed or a fixed state decides them"


def test_every_publication_function_has_a_call():
    found = set(_all_publication_functions())
    assert found == set(PUBLICATION_CALLS), (found - set(PUBLICATION_CALLS), set(PUBLICATION_CALLS) - found)


@pytest.mark.parametrize("name", sorted(PUBLICATION_CALLS))
def test_every_publication_is_a_function_of_its_inputs_and_the_operating_systems_bits_alone(name, monkeypatch):
    f = _all_publication_functions()[name]
    release = PUBLICATION_CALLS[name](f)
    combined = release.combined if hasattr(release, "combined") else release
    assert combined.randomness is Randomness.PUBLICATION
    assert _os_bits_verdict(lambda: PUBLICATION_CALLS[name](f), monkeypatch) is None


def test_the_os_bits_check_catches_seeded_and_global_state_publications(monkeypatch):
    from dpcore import publish

    def seeded(values, epsilon):  # the old release: noise from a seed anyone can read
        return publish.publish_count(values, epsilon).__class__.__name__, np.random.default_rng(2017).laplace(0, 1)

    def global_state(values, epsilon):  # noise from numpy's global generator, which a page may have seeded
        return np.random.laplace(0, 1 / epsilon)

    class Out:
        def __init__(self, v):
            self.values = (v,)

    verdict = _os_bits_verdict(lambda: Out(seeded(_X, 1.0)[1]), monkeypatch)
    assert verdict is not None and "a seed" in verdict
    verdict = _os_bits_verdict(lambda: Out(global_state(_X, 1.0)), monkeypatch)
    assert verdict is not None and "global generator" in verdict


# ---------------------------------------------------------------------------------------------- 10. the three attacks
# on the local publications and on the sparse vector technique's answered counts
#
# Each recovered value is compared with the truth: its error must have the variance of independent noises of the
# stated laws, checked two-sided by tests.test_publish.assert_variance (the mean of squares against its exact
# standard error, skewness and kurtosis, from the law's cumulants). The local estimates' error is a sum of
# independent centred Bernoulli reports, whose even cumulants are summed exactly below (their odd cumulants enter only
# the Cornish–Fisher correction's higher terms, by O(1/n)); the sparse vector answers carry lattice Laplace noise.


def _bernoulli_moments(pi, scale: float):
    """Even cumulants of ``scale · Σ_i (B_i − π_i)``, ``B_i ~ Bernoulli(π_i)`` independent (κ_r adds over the terms).

    A Bernoulli's raw moments are all ``π``; its cumulants follow from ``κ_n = m_n − Σ_{k<n} C(n−1, k−1) κ_k m_{n−k}``.
    """
    from tests.test_publish import Moments

    pi = np.asarray(pi, dtype=np.float64)
    kappa = {}
    for n in range(1, 9):
        kappa[n] = pi - sum(math.comb(n - 1, k - 1) * kappa[k] * pi for k in range(1, n))
    return Moments(*(float(np.sum(kappa[r])) * scale**r for r in (2, 4, 6, 8)))


def _local_count_moments(codes, k: int, epsilon: float, oracle: str) -> list:
    """The error law of each category's published estimate: report v is set with probability p (code v) or q."""
    from dpcore import families

    mech = families.family(oracle).counts(epsilon, k).mechanism
    counts = np.bincount(codes, minlength=k)
    laws = [_bernoulli_moments(np.where(codes == v, mech.p, mech.q), 1.0 / mech.p_minus_q) for v in range(k)]
    # the stated scale: the oracle's own variance formula (Wang et al. 2017), which the release's error bound reads
    np.testing.assert_allclose([law.var for law in laws], mech.variance(counts), rtol=1e-9)
    return laws


def _local_mean_moments(values, lower: float, upper: float, epsilon: float):
    from dpcore.ldp_mean import LDPMean

    mech = LDPMean(epsilon, lower, upper)
    t = (np.clip(values, lower, upper) - lower) / (upper - lower)
    law = _bernoulli_moments(mech.rr.q + mech.rr.p_minus_q * t, (upper - lower) / (values.size * mech.rr.p_minus_q))
    assert law.var == pytest.approx(mech.variance(values), rel=1e-9)  # the stated scale
    return law


_LOCAL_DOMAIN = ["a", "b", "c"]
_LOCAL_CODES = np.repeat(np.arange(4), [600, 450, 300, 150])  # the domain then "(other)": 1,500 reports
_LOCAL_OTHER = _LOCAL_CODES.copy()
_LOCAL_OTHER[::10] = (_LOCAL_OTHER[::10] + 1) % 4  # a second column: every tenth person answers differently
_LOCAL_VALUES = np.arange(1_500) % 71.0
_LOCAL_VALUES_OTHER = np.where(np.arange(1_500) % 10 == 0, 70.0 - _LOCAL_VALUES, _LOCAL_VALUES)
#: the seeds an attacker tries against the Local page: the default session seed with its salt, then small integers
_LOCAL_SEEDS = [2017, [2017, sum(map(ord, "local"))], [0, sum(map(ord, "local"))], *range(1_000)]


def _local_counts(codes, oracle, epsilon):
    from dpcore import publish

    return np.array(publish.publish_local_counts(codes, _LOCAL_DOMAIN, oracle, epsilon).values)


def _local_mean(values, epsilon):
    from dpcore import publish

    return publish.publish_local_mean(values, 0.0, 70.0, epsilon).value


@pytest.mark.parametrize("oracle", ["GRR", "OUE"])
def test_local_counts_resist_the_three_attacks(oracle):
    from explorer import releases
    from tests.test_publish import assert_mean_zero, assert_variance

    labels = [*_LOCAL_DOMAIN, "(other)"]
    truth = np.bincount(_LOCAL_CODES, minlength=4).astype(float)
    law = _local_count_moments(_LOCAL_CODES, 4, 1.0, oracle)
    trials = 300

    # (a) seed subtraction: the Local page's release rerun with each seed an attacker would try
    def seeded(seed, codes=_LOCAL_CODES, epsilon=1.0):
        return releases.local_counts(codes, labels, oracle, epsilon, seed)["noisy count"].to_numpy()

    for seed in _LOCAL_SEEDS[:5]:  # negative control: a seeded release is reproduced exactly by its seed
        assert np.array_equal(seeded(seed), seeded(seed))
    published = np.array([_local_counts(_LOCAL_CODES, oracle, 1.0) for _ in range(trials)])
    recovered = published - (np.array([seeded(s) for s in _LOCAL_SEEDS[:trials]]) - truth)
    for v in range(4):
        assert_mean_zero(published[:, v] - truth[v], law[v])
        assert_variance(published[:, v] - truth[v], law[v])  # the publication: the stated spread
        assert_variance(recovered[:, v] - truth[v], law[v] + law[v])  # the attack: two independent errors

    # (b) ε-doubling: 2·r(ε) − r(ε/2)
    half = _local_count_moments(_LOCAL_CODES, 4, 0.5, oracle)
    r2 = np.array([_local_counts(_LOCAL_CODES, oracle, 0.5) for _ in range(trials)])
    combo = 2 * published - r2 - truth
    for v in range(4):
        assert_mean_zero(combo[:, v], law[v].times(2) + half[v])
        assert_variance(combo[:, v], law[v].times(2) + half[v])

    # (c) shared noise: two columns published at the same ε; the difference of their estimates against the truth
    other_truth = np.bincount(_LOCAL_OTHER, minlength=4).astype(float)
    other_law = _local_count_moments(_LOCAL_OTHER, 4, 1.0, oracle)
    other = np.array([_local_counts(_LOCAL_OTHER, oracle, 1.0) for _ in range(trials)])
    gap = (published - other) - (truth - other_truth)
    for v in range(4):
        assert_variance(gap[:, v], law[v] + other_law[v])
    # negative control: one seed for both columns (shared randomness) makes the gap far too precise, and it is caught
    shared = np.array([seeded(s) - seeded(s, _LOCAL_OTHER) for s in _LOCAL_SEEDS[:trials]]) - (truth - other_truth)
    with pytest.raises(AssertionError, match="mean square"):
        assert_variance(shared[:, 0], law[0] + other_law[0])


def test_the_local_mean_resists_the_three_attacks():
    from dpcore.ldp_mean import LDPMean
    from explorer import releases
    from tests.test_publish import assert_mean_zero, assert_variance

    truth = LDPMean(1.0, 0.0, 70.0).clipped_mean(_LOCAL_VALUES)
    law = _local_mean_moments(_LOCAL_VALUES, 0.0, 70.0, 1.0)
    trials = 600

    def seeded(seed, values=_LOCAL_VALUES, epsilon=1.0):
        return releases.local_mean(values, 0.0, 70.0, epsilon, seed)

    assert all(seeded(s) == seeded(s) for s in _LOCAL_SEEDS[:5])  # negative control: reproduced by its seed
    published = np.array([_local_mean(_LOCAL_VALUES, 1.0) for _ in range(trials)])
    recovered = published - (np.array([seeded(s) for s in _LOCAL_SEEDS[:trials]]) - truth)
    assert_mean_zero(published - truth, law)
    assert_variance(published - truth, law)
    assert_variance(recovered - truth, law + law)

    r2 = np.array([_local_mean(_LOCAL_VALUES, 0.5) for _ in range(trials)])
    assert_variance(2 * published - r2 - truth, law.times(2) + _local_mean_moments(_LOCAL_VALUES, 0.0, 70.0, 0.5))

    other_truth = LDPMean(1.0, 0.0, 70.0).clipped_mean(_LOCAL_VALUES_OTHER)
    other_law = _local_mean_moments(_LOCAL_VALUES_OTHER, 0.0, 70.0, 1.0)
    other = np.array([_local_mean(_LOCAL_VALUES_OTHER, 1.0) for _ in range(trials)])
    assert_variance((published - other) - (truth - other_truth), law + other_law)
    shared = np.array([seeded(s) - seeded(s, _LOCAL_VALUES_OTHER) for s in _LOCAL_SEEDS[:trials]])
    with pytest.raises(AssertionError, match="mean square"):  # negative control: one seed for both columns
        assert_variance(shared - (truth - other_truth), law + other_law)


_SVT_VALUES = np.arange(6_000) % 60.0
_SVT_RANGES = [[0, 9], [10, 29], [30, 59]]  # 1,000, 2,000 and 3,000 rows, against a threshold of 100
_SVT_SHIFTED = [[0, 19], [20, 39], [40, 59]]  # 2,000 each
_SVT_SEEDS = [2017, [2017, sum(map(ord, "svt"))], [0, sum(map(ord, "svt"))], *range(1_000)]


def _range_truth(ranges) -> np.ndarray:
    return np.array([np.count_nonzero((_SVT_VALUES >= a) & (_SVT_VALUES <= b)) for a, b in ranges], dtype=float)


def _range_counts(ranges, epsilon: float) -> np.ndarray:
    from dpcore import publish

    release = publish.publish_range_counts(_SVT_VALUES, ranges, 100, 3, epsilon)
    # the counts lie 900 and more above the threshold, the comparison noise at ε = 0.5 has scale 48: every range is
    # answered except with probability below 3e-8 a publication
    assert len(release.values) == 3
    return np.array(release.values)


def test_range_counts_answered_by_the_sparse_vector_technique_resist_the_three_attacks():
    from dpcore.laplace import Laplace
    from dpcore.svt import naive_scale, range_query_svt
    from tests.test_publish import (
        assert_mean_zero,
        assert_uncorrelated,
        assert_variance,
        coincidence_bound,
        collision_probability,
        law_moments,
    )

    def law_at(epsilon):  # the stated answer noise: Lap(2c/ε) on the lattice (range_query_svt's answers)
        lattice = lattice_mechanism(Laplace(naive_scale(epsilon / 2, 3), 1.0))
        return lattice, law_moments(lattice.noise, lattice.grid)

    truth, trials = _range_truth(_SVT_RANGES), 300
    lattice, law = law_at(1.0)

    def seeded(seed, epsilon=1.0):  # the SVT page's release with a seed (explorer.releases.range_queries)
        return np.array(
            [v for _, v in range_query_svt(truth, 100, 3, epsilon, np.random.default_rng(seed), lattice=True)]
        )

    for seed in _SVT_SEEDS[:5]:  # negative control: the seeded answers are reproduced by their seed
        assert np.array_equal(seeded(seed), seeded(seed))
    published = np.array([_range_counts(_SVT_RANGES, 1.0) for _ in range(trials)])
    simulated = np.array([seeded(s) for s in _SVT_SEEDS[:trials]])
    recovered = published - (simulated - truth)
    bound = coincidence_bound(published.size, collision_probability(lattice.noise))
    assert np.count_nonzero(published == simulated) < bound
    assert_mean_zero(published - truth, law)
    assert_variance(published - truth, law)
    assert_variance(recovered - truth, law + law)
    assert_uncorrelated(published - truth, simulated - truth, law, law)

    # (b) ε-doubling
    _, half = law_at(0.5)
    r2 = np.array([_range_counts(_SVT_RANGES, 0.5) for _ in range(trials)])
    assert_mean_zero(2 * published - r2 - truth, law.times(2) + half)
    assert_variance(2 * published - r2 - truth, law.times(2) + half)

    # (c) shared noise: overlapping ranges published at the same ε; [0, 19] − [0, 9] is the count of [10, 19]
    shifted = np.array([_range_counts(_SVT_SHIFTED, 1.0) for _ in range(trials)])
    gap = (shifted[:, 0] - published[:, 0]) - (_range_truth(_SVT_SHIFTED)[0] - truth[0])
    assert np.count_nonzero(gap == 0) < coincidence_bound(trials, collision_probability(lattice.noise))
    assert_variance(gap, law + law)
