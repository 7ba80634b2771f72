"""Downloads: CSV bytes a spreadsheet opens safely."""

from __future__ import annotations

import pandas as pd

from explorer.columns import is_numeric

__all__ = ["to_safe_csv"]


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
