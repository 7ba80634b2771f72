"""Downloads: CSV bytes a spreadsheet opens safely."""

from __future__ import annotations

import pandas as pd

from dpcore.release import Release
from explorer.columns import is_numeric

__all__ = ["to_safe_csv", "SIMULATED_RELEASE", "SIMULATED_HELP", "SIMULATED_NOTE", "simulated"]


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
        epsilon=label["epsilon"],
        delta=label["delta"],
        neighbouring_relation=label["neighbouring_relation"],
        unit_of_privacy=label["unit_of_privacy"],
    )
