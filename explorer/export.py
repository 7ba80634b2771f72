"""Downloads: CSV bytes a spreadsheet opens safely; every released number rounded by one rule.

The rule is :mod:`dpcore.postprocess`'s (:func:`~dpcore.postprocess.release_step`): a count to whole units,
any other number to the largest power of ten at most a tenth of its noise's standard deviation, an ε or a δ to 4
significant digits, upwards. :func:`published_table` and :func:`published_label` apply it to a publication's file
and label (the label keeps the exact ε and δ beside them, as the log charged them); :func:`simulated` to the label
columns of a simulated release's file; a view rounds the numbers it shows with :func:`rounded`.
"""

from __future__ import annotations

import math

import pandas as pd

from dpcore.postprocess import release_step, round_release, round_up
from dpcore.release import Release
from explorer.columns import is_numeric

__all__ = [
    "to_safe_csv",
    "SIMULATED_RELEASE",
    "SIMULATED_HELP",
    "SIMULATED_NOTE",
    "simulated",
    "COUNTING_QUERIES",
    "rounded",
    "published_table",
    "published_label",
]

#: The queries (as a release names them) whose every number counts something: published in whole units.
COUNTING_QUERIES = frozenset(
    {
        "count",
        "count where",
        "count_matching",
        "category counts",
        "category_counts",
        "histogram",
        "two-way table",
        "two_way_table",
        "period_counts",
        "counts per period",
        "range counts",
        "local counts",
        "group-by count",
    }
)


def rounded(values, noise_std: float, query: str):
    """``values`` (a number or a sequence) rounded as a release of ``query`` with noise ``noise_std`` is published."""
    return round_release(values, release_step(noise_std, whole=query in COUNTING_QUERIES))


def published_table(release: Release) -> pd.DataFrame:
    """A publication's file and on-screen table: :meth:`Release.table` with every number rounded by the rule."""
    table = release.table()
    values = release.values
    if all(isinstance(v, (int, float)) for v in values):
        table["released value"] = list(pd.Series(rounded(list(values), release.noise_std, release.query)))
    return table


def published_label(release: Release) -> dict:
    """A publication's privacy label (:meth:`Release.label`) with ε and δ to 4 significant digits, rounded up, and
    the exact values the log charged kept beside them (``epsilon_exact``, ``delta_exact``)."""
    label = release.label()
    exact = {"epsilon_exact": label["epsilon"], "delta_exact": label["delta"]}
    label.update(epsilon=round_up(label["epsilon"]), delta=round_up(label["delta"]))
    if label["noise_std"] is not None and math.isfinite(label["noise_std"]):
        label["noise_std"] = float(f"{label['noise_std']:.4g}")
    return {**label, **exact}


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _neutralise(value):
    return "'" + value if isinstance(value, str) and value.startswith(_FORMULA_STARTS) else value


def to_safe_csv(frame: pd.DataFrame) -> bytes:
    """CSV bytes of ``frame`` with spreadsheet formula injection neutralised.

    Text cells and column names starting with ``=``, ``+``, ``-``, ``@``, tab
    or carriage return get a leading single quote (OWASP "CSV Injection"), so
    a spreadsheet shows them as text instead of running them. Numeric
    columns are written unchanged (``-3.5`` stays a number). Everything else,
    HTML included, is written as it is: it is data.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to write; its index is not written.

    Returns
    -------
    bytes
        UTF-8 with a byte-order mark (so that Excel reads accents correctly),
        comma-separated, ``\\n`` line ends.
    """
    safe = frame.copy()
    for name in safe.columns:
        if not is_numeric(safe[name]):
            safe[name] = safe[name].astype(object).map(_neutralise, na_action="ignore")
    safe.columns = [_neutralise(str(name)) for name in safe.columns]
    return safe.to_csv(index=False, lineterminator="\n").encode("utf-8-sig")


#: The download of a view's simulated release: what it is, on the button and in the file.
SIMULATED_RELEASE = "Simulated release (CSV), not private"
SIMULATED_NOTE = "simulated, not private: seeded noise that anyone with the link's seed can recompute"
SIMULATED_HELP = (
    "The noisy answer alone, as one would publish it, but drawn from the session's seed: anyone with the link can "
    "recompute the noise and subtract it. For teaching; the Publish section draws what may be published."
)


def simulated(frame: pd.DataFrame, release: Release | None = None) -> pd.DataFrame:
    """``frame`` with last columns that say, on every row, that its noise is simulated and not private.

    With ``release`` (:func:`dpcore.simulation.simulated`), the columns also carry its label as a
    publication's file does: the mechanism, the (ε, δ) each number would cost, and the neighbouring relation
    and unit under which that guarantee would hold.
    """
    out = frame.assign(randomness=SIMULATED_NOTE)
    if release is None:
        return out
    label = release.label()
    return out.assign(
        mechanism=label["mechanism"],
        epsilon=round_up(label["epsilon"]),
        delta=round_up(label["delta"]),
        neighbouring_relation=label["neighbouring_relation"],
        unit_of_privacy=label["unit_of_privacy"],
    )
