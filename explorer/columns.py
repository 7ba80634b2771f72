"""Columns of a loaded table as mechanism inputs: profiles, pickers, category codes, numbers and bounds.

* :func:`profile` describes every column (kind, missing, distinct, range, top
  values, which mechanisms it fits); :func:`categorical_columns` and
  :func:`numeric_columns` feed the column pickers.
* :func:`encode_categories`, :func:`numeric_values` and :func:`suggest_bounds`
  turn one column into the arrays the local-model frequency oracles and the
  central-model sums and means take.
* :func:`parse_dates` reads a text column of dates (ISO ``2024-01-31``, with a time or not, ``2024/01/31``,
  ``31/01/2024``, ``01/31/2024``, ``31.01.2024``, ``2024-01``) as dates, the profile's kind ``"date"``;
  :func:`date_columns` lists them and :func:`period_codes` counts them per year or month of a declared range.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from dpcore.validation import check_int, check_probability
from explorer.csv_reader import DatasetError

__all__ = [
    "MAX_CATEGORIES_FOR_ORACLES",
    "OTHER_LABEL",
    "MISSING_LABEL",
    "profile",
    "categorical_columns",
    "numeric_columns",
    "is_numeric",
    "encode_categories",
    "numeric_values",
    "suggest_bounds",
    "TEXT_CONDITIONS",
    "NUMBER_CONDITIONS",
    "condition_mask",
    "DATE_FORMATS",
    "parse_dates",
    "is_date",
    "date_columns",
    "PERIODS",
    "period_labels",
    "period_codes",
]

#: Categories a frequency oracle is offered; more are top-k'd with an "(other)" bucket.
MAX_CATEGORIES_FOR_ORACLES = 50

OTHER_LABEL = "(other)"
MISSING_LABEL = "(missing)"


def _summary(series: pd.Series, max_categories: int) -> dict:
    """Profile of one column; the single source of truth for kinds and fits."""
    n = len(series)
    if is_numeric(series):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        finite = values[np.isfinite(values)]
        n_inf = int(np.isinf(values).sum())
        distinct = int(pd.unique(finite).size)
        kind = "numeric" if finite.size else "empty"
        frequency = 2 <= distinct <= max_categories
        notes = [f"{n_inf:,} infinite value(s) counted as missing"] if n_inf else []
        if distinct == 1:
            notes.append("only one distinct value")
        return dict(
            kind=kind,
            missing=n - int(finite.size),
            distinct=distinct,
            min=float(finite.min()) if finite.size else np.nan,
            max=float(finite.max()) if finite.size else np.nan,
            top_values="",
            frequency=frequency,
            numeric=bool(finite.size),
            note="; ".join(notes),
        )
    counted = _arrow_counts(series)
    dates = parse_dates(series) if counted is None or counted[2] else None
    if dates is not None:
        present = dates.dropna()
        return dict(
            kind="date",
            missing=n - int(present.size),
            distinct=int(present.nunique()),
            min=np.nan,
            max=np.nan,
            top_values="",
            frequency=False,
            numeric=False,
            note=f"dates from {present.min():%Y-%m-%d} to {present.max():%Y-%m-%d}: counted per year or month",
        )
    if counted is None:
        found = series.value_counts(dropna=True, sort=False)
        found = found[found > 0]  # a categorical dtype lists unused categories too
        labels, frequencies = found.index.tolist(), found.to_numpy(dtype=np.int64)
    else:
        labels, frequencies = counted[0], counted[1]
    order = np.argsort(-frequencies, kind="stable")  # most frequent first; ties in the order values first appear
    frequencies = frequencies[order]
    present = int(frequencies.sum())
    distinct = int(frequencies.size)
    top = ", ".join(f"{labels[i]} ({count:,})" for i, count in zip(order[:3].tolist(), frequencies[:3].tolist()))
    note = ""
    if present == 0:
        kind = "empty"
    elif distinct > max_categories and frequencies[:max_categories].sum() < 0.5 * present:
        kind = "identifier-like"
        note = f"{distinct:,} distinct values: too many to count as categories"
    else:
        kind = "categorical"
        if distinct > max_categories:
            note = f"frequency oracles use the top {max_categories - 1} values and {OTHER_LABEL}"
        elif distinct == 1:
            note = "only one distinct value"
    return dict(
        kind=kind,
        missing=n - present,
        distinct=distinct,
        min=np.nan,
        max=np.nan,
        top_values=top,
        frequency=kind == "categorical" and distinct >= 2,
        numeric=False,
        note=note,
    )


def _arrow_counts(series: pd.Series) -> tuple[list, np.ndarray, bool] | None:
    """The present values of a text column stored by Arrow (pandas' ``str`` dtype), their counts in the order the
    values first appear, and whether it may be a column of dates (95% of its first :data:`_DATE_SAMPLE` distinct
    values start with a digit, as :func:`parse_dates` asks first); None for any other storage.

    One Arrow ``value_counts`` per column: pandas' own took about 1 ms a column through its Series machinery (0.9 s
    of a 999-column upload's profile; issue 23's rerun of at most 2 s of CPU), this about a fifth of that.
    """
    dtype = series.dtype
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return None
    found = pc.value_counts(pa.chunked_array(series.array.__arrow_array__()))
    values, counts = found.field("values"), found.field("counts")
    if values.null_count:
        present = pc.is_valid(values)
        values, counts = values.filter(present), counts.filter(present)
    sample = pc.utf8_trim_whitespace(values.slice(0, _DATE_SAMPLE))
    digits = pc.sum(pc.utf8_is_digit(pc.utf8_slice_codeunits(sample, 0, 1))).as_py() or 0
    return (
        values.to_pylist(),
        counts.to_numpy(zero_copy_only=False).astype(np.int64),
        digits >= _DATE_SHARE * len(sample),
    )


def is_numeric(series: pd.Series) -> bool:
    """Whether ``series`` is a numeric column (booleans are not)."""
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)


def profile(frame: pd.DataFrame, max_categories: int = MAX_CATEGORIES_FOR_ORACLES) -> pd.DataFrame:
    """Describe every column of ``frame``: one row per column.

    Parameters
    ----------
    frame : pandas.DataFrame
        Any frame; numeric dtypes are numeric columns, everything else is text.
    max_categories : int
        Category limit of the frequency oracles, must be in [2, inf).

    Returns
    -------
    pandas.DataFrame
        Columns ``column``, ``kind`` (``"numeric"``, ``"categorical"``, ``"date"``,
        ``"identifier-like"`` or ``"empty"``), ``missing`` (NaN and infinite
        cells), ``distinct`` (distinct non-missing values), ``min`` and
        ``max`` (numeric only, else NaN), ``top_values`` (the three most
        frequent values with counts, text only), ``fits`` (the mechanisms the
        column can feed) and ``note``.

    Notes
    -----
    A text column is *identifier-like* when it has more than
    ``max_categories`` distinct values and the ``max_categories`` most
    frequent cover less than half its values: top-k with an "(other)" bucket
    would then mostly count "(other)". A numeric column with between 2 and
    ``max_categories`` distinct values (a 1-5 score) also fits the frequency
    oracles.
    """
    max_categories = check_int(max_categories, "max_categories", minimum=2)
    rows = []
    for name in frame.columns:
        s = _summary(frame[name], max_categories)
        fits = [label for label, ok in (("frequency oracles", s["frequency"]), ("sums and means", s["numeric"])) if ok]
        if s["kind"] == "date":
            fits.append("counts per year or month")
        rows.append(
            {
                "column": str(name),
                "kind": s["kind"],
                "missing": s["missing"],
                "distinct": s["distinct"],
                "min": s["min"],
                "max": s["max"],
                "top_values": s["top_values"],
                "fits": ", ".join(fits) if fits else "none",
                "note": s["note"],
            }
        )
    columns = ["column", "kind", "missing", "distinct", "min", "max", "top_values", "fits", "note"]
    dtypes = {"missing": "int64", "distinct": "int64", "min": "float64", "max": "float64"}
    return pd.DataFrame(rows, columns=columns).astype(dtypes)


def categorical_columns(frame: pd.DataFrame, max_categories: int = MAX_CATEGORIES_FOR_ORACLES) -> list[str]:
    """Columns a frequency oracle can be offered, in frame order.

    Text columns of kind ``"categorical"`` with at least two distinct values
    (those above ``max_categories`` are top-k'd by :func:`encode_categories`),
    and numeric columns with 2 to ``max_categories`` distinct values.
    Identifier-like and empty columns are never offered.
    """
    max_categories = check_int(max_categories, "max_categories", minimum=2)
    return [name for name in frame.columns if _summary(frame[name], max_categories)["frequency"]]


def numeric_columns(frame: pd.DataFrame) -> list[str]:
    """Numeric columns with at least one finite value (for sums and means), in frame order."""
    return [
        name
        for name in frame.columns
        if is_numeric(frame[name]) and np.isfinite(frame[name].to_numpy(dtype=np.float64, na_value=np.nan)).any()
    ]


# --------------------------------------------------------------------------- columns to mechanism inputs


def encode_categories(
    series: pd.Series, max_categories: int = MAX_CATEGORIES_FOR_ORACLES
) -> tuple[np.ndarray, list[str], str]:
    """Map a column to category indices ``0..k-1`` for the frequency oracles.

    Parameters
    ----------
    series : pandas.Series
        A text or numeric column.
    max_categories : int
        Largest number of labels k returned, counting ``"(other)"`` and
        ``"(missing)"``; must be in [2, inf).

    Returns
    -------
    codes : numpy.ndarray of int64
        One index per row (missing rows included), each in [0, k).
    labels : list of str
        The k category names. Text values are ordered by decreasing count
        (ties by name), numbers in increasing order; then ``"(other)"`` when
        rarer values were merged, then ``"(missing)"`` when some rows are
        missing (NaN or infinite). Every respondent keeps a category, so the
        number of users equals the number of rows.
    note : str
        One sentence about merged or missing values, or ``""``.

    Raises
    ------
    DatasetError
        When the column has no values.
    """
    max_categories = check_int(max_categories, "max_categories", minimum=2)
    numeric = is_numeric(series)
    if numeric:
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        missing = ~np.isfinite(values)
        keys = pd.Series(np.where(missing, np.nan, values))
    else:
        keys = series.astype(object).where(series.notna(), None)
        missing = keys.isna().to_numpy()
        keys = keys.where(missing, keys.astype(str))  # mixed objects: count by their text
    n_missing = int(missing.sum())
    counts = keys[~missing].value_counts()
    if counts.empty:
        raise DatasetError(f"Column '{series.name}' has no values to count.")
    counts = counts.rename_axis("value").reset_index(name="n")
    counts = counts.sort_values(["n", "value"], ascending=[False, True])  # text values are str here
    room = max_categories - (1 if n_missing else 0)
    kept = counts.iloc[: room - 1] if len(counts) > room else counts  # room - 1: one label for (other)
    if numeric:
        kept = kept.sort_values("value")
        labels = [_format_number(v) for v in kept["value"]]
    else:
        labels = [str(v) for v in kept["value"]]
    index = pd.Index(kept["value"])
    codes = index.get_indexer(keys)
    sentences = []
    if len(counts) > len(kept):
        other = int((codes == -1).sum() - n_missing)
        codes[(codes == -1) & ~missing] = len(labels)
        labels.append(OTHER_LABEL)
        sentences.append(f"{len(counts) - len(kept):,} rarer values in {other:,} row(s) were merged into {OTHER_LABEL}")
    if n_missing:
        codes[missing] = len(labels)
        labels.append(MISSING_LABEL)
        sentences.append(f"{n_missing:,} row(s) with no value are counted as {MISSING_LABEL}")
    note = "; ".join(sentences) + "." if sentences else ""
    note = note[:1].upper() + note[1:]
    return codes.astype(np.int64), labels, note


def _format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 2.0**53 else f"{value:g}"


def numeric_values(series: pd.Series) -> tuple[np.ndarray, int]:
    """Finite values of a numeric column and how many cells were dropped.

    Parameters
    ----------
    series : pandas.Series
        A numeric column.

    Returns
    -------
    values : numpy.ndarray of float64
        The finite values, in row order.
    dropped : int
        Number of missing (NaN) or infinite cells left out.

    Raises
    ------
    DatasetError
        When the column is not numeric.
    """
    if not is_numeric(series):
        raise DatasetError(f"Column '{series.name}' is not numeric, so it cannot be summed or averaged.")
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    finite = np.isfinite(values)
    return values[finite], int(values.size - finite.sum())


def suggest_bounds(series: pd.Series, upper_quantile: float = 0.99) -> tuple[float, float]:
    """Default clipping bounds for a numeric column: its minimum and a high quantile, rounded outward.

    These bounds are read from the data, so they are **not** differentially
    private: a release using them leaks through the choice of bounds. The app
    offers them only as slider defaults labelled "from the data, not private";
    a DP analysis fixes bounds from domain knowledge (ages in [0, 100]) or
    spends budget on a private quantile.

    Parameters
    ----------
    series : pandas.Series
        A numeric column with at least one finite value.
    upper_quantile : float
        Quantile used for the upper bound, must be in (0, 1]; the default 0.99
        keeps a heavy tail (capital gains) from setting the clipping range.

    Returns
    -------
    (lower, upper) : tuple of float
        Finite with lower < upper, each rounded outward to two significant
        digits (17 -> 17, 15024 -> 16000).

    Raises
    ------
    DatasetError
        When the column is not numeric or has no finite values.
    """
    upper_quantile = check_probability(upper_quantile, "upper_quantile", high_open=False)
    values, _ = numeric_values(series)
    if values.size == 0:
        raise DatasetError(f"Column '{series.name}' has no numbers, so no bounds can be suggested.")
    # "inverted_cdf" picks a data value: no interpolation arithmetic that could overflow near 1.8e308.
    lower = _round_out(float(values.min()), up=False)
    upper = _round_out(float(np.quantile(values, upper_quantile, method="inverted_cdf")), up=True)
    if not upper > lower:  # constant column (or a quantile below a rounded-down minimum)
        step = max(1.0, abs(lower) * 0.01)
        upper = lower + step
        if not math.isfinite(upper):
            lower, upper = lower - step, lower
    return lower, upper


def _round_out(x: float, up: bool) -> float:
    """Round to two significant digits away from the data (ceil if ``up`` else floor)."""
    if x == 0 or not math.isfinite(x):
        return x
    decimals = 1 - math.floor(math.log10(abs(x)))  # two significant digits
    rounder = math.ceil if up else math.floor
    try:
        if decimals >= 0:
            scale = 10.0**decimals
            r = rounder(x * scale) / scale
        else:
            scale = 10.0**-decimals
            r = rounder(x / scale) * scale
    except (OverflowError, ValueError):
        return x
    return float(r) if math.isfinite(r) and (r >= x if up else r <= x) else x


#: The conditions a count can be asked for, by the kind of column; chosen from lists, never typed and evaluated.
TEXT_CONDITIONS = ("is", "is not")
NUMBER_CONDITIONS = ("≥", ">", "≤", "<", "=", "≠")
_COMPARE = {
    "≥": np.greater_equal,
    ">": np.greater,
    "≤": np.less_equal,
    "<": np.less,
    "=": np.equal,
    "≠": np.not_equal,
}


def condition_mask(series: pd.Series, condition: str, value) -> np.ndarray:
    """The rows where ``column <condition> value`` holds, as a bool array (missing values never match).

    ``condition`` is one of :data:`TEXT_CONDITIONS` for a text column (the value
    compared as text) or :data:`NUMBER_CONDITIONS` for a numeric one. Nothing
    is evaluated: the condition picks a fixed numpy comparison.

    Raises
    ------
    ValueError
        For a condition the column's kind does not offer.
    """
    if is_numeric(series):
        if condition not in _COMPARE:
            raise ValueError(
                f"condition must be one of {', '.join(NUMBER_CONDITIONS)} for a numeric column, got {condition!r}"
            )
        numbers = series.to_numpy(dtype=np.float64, na_value=np.nan)
        with np.errstate(invalid="ignore"):
            return _COMPARE[condition](numbers, float(value)) & np.isfinite(numbers)
    if condition not in TEXT_CONDITIONS:
        raise ValueError(f"condition must be one of {', '.join(TEXT_CONDITIONS)} for a text column, got {condition!r}")
    present = series.notna().to_numpy()
    equal = (series.astype(str) == str(value)).to_numpy() & present
    return equal if condition == "is" else present & ~equal


# --------------------------------------------------------------------------- dates

#: The formats a text column of dates may be written in, tried in this order (a day-first and a month-first
#: reading of ``01/02/2024`` both parse: the one that reads more of the column's values wins, ties to the first).
DATE_FORMATS = (
    "%Y-%m-%d",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y/%m/%d",
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%d.%m.%Y",
    "%Y-%m",
)
#: The share of a column's present values that must read as dates in one format for it to be a date column.
_DATE_SHARE = 0.95
_DATE_SAMPLE = 200


def parse_dates(series: pd.Series) -> pd.Series | None:
    """``series`` read as dates (``datetime64``; a value that does not parse is missing), or None when it is not a
    column of dates: a text column at least 95% of whose present values, and all of the first 200 distinct ones
    but 5%, read in one of :data:`DATE_FORMATS`. Numbers are never dates (a year column stays numeric).

    >>> parse_dates(pd.Series(["2024-01-31", "2023-12-01", None])).dt.year.tolist()
    [2024.0, 2023.0, nan]
    >>> parse_dates(pd.Series(["31/01/2024", "01/02/2024"])).dt.month.tolist()  # 31 cannot be a month: day first
    [1, 2]
    >>> parse_dates(pd.Series(["Paris", "Lyon"])) is None
    True
    """
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        return series
    if is_numeric(series) or pd.api.types.is_bool_dtype(series.dtype):
        return None
    present = series.dropna()
    if present.empty:
        return None
    sample = pd.Series(present.unique()[:_DATE_SAMPLE]).astype(str).str.strip()  # cheap on a column of text
    if sum(value[:1].isdigit() for value in sample) < _DATE_SHARE * len(sample):  # every format starts with a digit
        return None  # (nine pandas calls per text column otherwise: 3 s for 1,000 columns of words)
    best, best_share = None, 0.0
    for fmt in DATE_FORMATS:
        share = float(pd.to_datetime(sample, format=fmt, errors="coerce").notna().mean())
        if share > best_share:
            best, best_share = fmt, share
    if best is None or best_share < _DATE_SHARE:
        return None
    parsed = pd.to_datetime(present.astype(str).str.strip(), format=best, errors="coerce")
    if float(parsed.notna().mean()) < _DATE_SHARE:
        return None
    return parsed.reindex(series.index)


def is_date(series: pd.Series) -> bool:
    """Whether ``series`` is a column of dates (:func:`parse_dates`)."""
    return parse_dates(series) is not None


def date_columns(frame: pd.DataFrame) -> list[str]:
    """The columns of dates, in frame order."""
    return [name for name in frame.columns if is_date(frame[name])]


#: How dates are counted: per year or per month.
PERIODS = ("year", "month")


def period_labels(period: str, first_year: int, last_year: int) -> list[str]:
    """Every period of the declared range of years, in order: ``"2023"`` per year, ``"2023-01"`` per month.

    A public list, from the declared years alone (never from the data): a period nobody falls in is counted too.

    >>> period_labels("month", 2023, 2023)[:2], period_labels("year", 2022, 2024)
    (['2023-01', '2023-02'], ['2022', '2023', '2024'])
    """
    if period not in PERIODS:
        raise ValueError(f"period must be one of {', '.join(PERIODS)}, got {period!r}")
    first_year = check_int(first_year, "first_year", minimum=1, maximum=9999)
    last_year = check_int(last_year, "last_year", minimum=first_year, maximum=9999)
    years = range(first_year, last_year + 1)
    if period == "year":
        return [f"{y:04d}" for y in years]
    return [f"{y:04d}-{m:02d}" for y in years for m in range(1, 13)]


def period_codes(dates: pd.Series, period: str, first_year: int, last_year: int) -> tuple[np.ndarray, list[str]]:
    """Each dated row's index among :func:`period_labels` of the declared range, and the labels.

    Rows with a missing date or a date outside the declared years are left out (a rule fixed before the data is
    read; how many were is not released).

    >>> codes, labels = period_codes(pd.to_datetime(pd.Series(["2023-02-10", "2020-01-01", None])), "month", 2023, 2023)
    >>> codes.tolist(), labels[codes[0]]
    ([1], '2023-02')
    """
    labels = period_labels(period, first_year, last_year)
    present = dates.dropna()
    years = present.dt.year.to_numpy(dtype=np.int64)
    inside = (years >= first_year) & (years <= last_year)
    offset = years[inside] - first_year
    if period == "year":
        codes = offset
    else:
        codes = offset * 12 + present.dt.month.to_numpy(dtype=np.int64)[inside] - 1
    return codes.astype(np.int64), labels
