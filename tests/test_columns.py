"""Tests for explorer.columns: profiles, pickers, category codes, numeric values and suggested bounds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explorer.columns import (
    categorical_columns,
    condition_mask,
    encode_categories,
    numeric_columns,
    numeric_values,
    profile,
    suggest_bounds,
)
from explorer.dataset import Dataset, DatasetError, load_csv

PROFILE_COLUMNS = ["column", "kind", "missing", "distinct", "min", "max", "top_values", "fits", "note"]


def _profile_row(dataset: Dataset, column: str) -> pd.Series:
    p = dataset.profile()
    assert list(p.columns) == PROFILE_COLUMNS
    return p.set_index("column").loc[column]


# --------------------------------------------------------------------------- profile and pickers


def test_profile_kinds_and_pickers():
    n = 30_000
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "id": [f"user{i:05d}" for i in range(n)],  # 30,000 distinct values
            "colour": rng.choice(["red", "green", "blue"], n),
            "score": rng.integers(1, 6, n),  # numeric with 5 values
            "income": rng.lognormal(10, 1, n),
            "many": [f"c{int(v)}" for v in rng.zipf(1.6, n) % 200],  # > 50 values, top ones dominate
            "const": ["same"] * n,
            "nothing": [np.nan] * n,
        }
    )
    p = profile(frame).set_index("column")
    assert p.loc["id", "kind"] == "identifier-like" and p.loc["id", "distinct"] == n and p.loc["id", "fits"] == "none"
    assert p.loc["colour", "kind"] == "categorical" and p.loc["colour", "fits"] == "frequency oracles"
    assert p.loc["score", "fits"] == "frequency oracles, sums and means"
    assert p.loc["income", "fits"] == "sums and means" and p.loc["income", "min"] > 0
    assert p.loc["many", "kind"] == "categorical" and "top 49" in p.loc["many", "note"]
    assert p.loc["const", "fits"] == "none" and "one distinct" in p.loc["const", "note"]
    assert p.loc["nothing", "kind"] == "empty"
    assert categorical_columns(frame) == ["colour", "score", "many"]
    assert numeric_columns(frame) == ["score", "income"]
    assert categorical_columns(frame, max_categories=4) == ["colour", "many"]


def test_identifier_column_from_a_file():
    raw = ("id,v\n" + "\n".join(f"k{i},{i % 3}" for i in range(30_000)) + "\n").encode()
    d = load_csv(raw, "ids.csv")
    assert _profile_row(d, "id")["kind"] == "identifier-like"
    assert categorical_columns(d.frame) == ["v"]
    codes, labels, note = encode_categories(d.frame["id"], max_categories=10)
    assert len(labels) == 10 and labels[-1] == "(other)" and "merged" in note
    assert codes.min() == 0 and codes.max() == 9 and (codes == 9).sum() == 30_000 - 9


def test_encode_categories_orders_merges_and_keeps_missing():
    s = pd.Series(["b", "a", "b", None, "c", "b", "a", "d"], name="x")
    codes, labels, note = encode_categories(s)
    assert labels == ["b", "a", "c", "d", "(missing)"]  # by count, ties by name, missing last
    assert [labels[c] for c in codes] == ["b", "a", "b", "(missing)", "c", "b", "a", "d"]
    assert note == "1 row(s) with no value are counted as (missing)."
    codes, labels, note = encode_categories(s, max_categories=3)
    assert labels == ["b", "(other)", "(missing)"]
    assert np.bincount(codes).tolist() == [3, 4, 1] and "merged" in note
    assert codes.dtype == np.int64 and len(codes) == len(s)


def test_encode_categories_numeric_column():
    s = pd.Series([3, 1, 2, 3, 5, np.nan, np.inf], name="score")
    codes, labels, note = encode_categories(s)
    assert labels == ["1", "2", "3", "5", "(missing)"]
    assert [labels[c] for c in codes] == ["3", "1", "2", "3", "5", "(missing)", "(missing)"]
    with pytest.raises(DatasetError, match="no values"):
        encode_categories(pd.Series([np.nan, None], name="x", dtype=object))
    with pytest.raises(ValueError, match="max_categories"):
        encode_categories(s, max_categories=1)


def test_numeric_values_and_bounds():
    s = pd.Series([np.nan, *range(1, 101)], name="v")
    values, dropped = numeric_values(s)
    assert dropped == 1 and values.size == 100 and values.dtype == np.float64
    assert suggest_bounds(s) == (1.0, 99.0)  # min and the 99th percentile (a data value)
    assert suggest_bounds(s, upper_quantile=1.0) == (1.0, 100.0)
    assert suggest_bounds(pd.Series([17.3, 74.4]), upper_quantile=1.0) == (17.0, 75.0)  # rounded outward
    assert suggest_bounds(pd.Series([15024.0, 0.0] + [1.0] * 50)) == (0.0, 16000.0)  # 2 significant digits
    assert suggest_bounds(pd.Series([0.123, 0.456])) == (0.12, 0.46)
    assert suggest_bounds(pd.Series([5, 5, 5])) == (5.0, 6.0)  # constant column still gives lower < upper
    assert suggest_bounds(pd.Series([-2.5, -1.0])) == (-2.5, -1.0)
    with pytest.raises(DatasetError, match="not numeric"):
        numeric_values(pd.Series(["a"], name="t"))
    with pytest.raises(DatasetError, match="no numbers"):
        suggest_bounds(pd.Series([np.nan, np.inf], name="v"))


def test_condition_masks_from_lists_never_evaluate_text():
    text = pd.Series(["Sales", "Tech", None, "Sales", "__import__('os')"], name="occupation")
    assert condition_mask(text, "is", "Sales").tolist() == [True, False, False, True, False]
    assert condition_mask(text, "is not", "Sales").tolist() == [
        False,
        True,
        False,
        False,
        True,
    ]  # missing never matches
    ages = pd.Series([17, 50, np.nan, 90, 49.5], name="age")
    assert condition_mask(ages, "≥", 50).tolist() == [False, True, False, True, False]
    assert condition_mask(ages, "<", 50).tolist() == [True, False, False, False, True]
    assert condition_mask(ages, "≠", 50).tolist() == [True, False, False, True, True]
    with pytest.raises(ValueError, match="condition must be one of"):
        condition_mask(ages, "is", 50)
    with pytest.raises(ValueError, match="condition must be one of"):
        condition_mask(text, "≥", "Sales")


# --------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    "text, month, day",
    [
        (["2024-01-31", "2023-12-01"], [1, 12], [31, 1]),
        (["2024-01-31 08:00:00", "2023-12-01 23:59:59"], [1, 12], [31, 1]),
        (["2024-01-31T08:00:00", "2023-12-01T23:59:59"], [1, 12], [31, 1]),
        (["2024/01/31", "2023/12/01"], [1, 12], [31, 1]),
        (["01/31/2024", "12/01/2023"], [1, 12], [31, 1]),  # month first: 31 cannot be a month
        (["31/01/2024", "01/12/2023"], [1, 12], [31, 1]),  # day first
        (["31.01.2024", "01.12.2023"], [1, 12], [31, 1]),
        (["2024-01", "2023-12"], [1, 12], [1, 1]),
    ],
)
def test_a_column_of_dates_in_a_common_format_reads_as_dates(text, month, day):
    from explorer.columns import parse_dates

    dates = parse_dates(pd.Series([*text, None]))
    assert dates.dt.month.tolist()[:2] == month and dates.dt.day.tolist()[:2] == day
    assert dates.isna().tolist() == [False, False, True]
    kinds = profile(pd.DataFrame({"d": [*text, None], "n": [1, 2, 3]}))
    assert kinds["kind"].tolist() == ["date", "numeric"]
    assert "counts per year or month" in kinds["fits"][0]


def test_text_numbers_and_mostly_other_values_are_not_dates():
    from explorer.columns import date_columns, parse_dates

    assert parse_dates(pd.Series(["Paris", "Lyon"])) is None
    assert parse_dates(pd.Series([2020, 2021])) is None  # a year column stays numeric
    assert parse_dates(pd.Series(["2024-01-01"] * 9 + ["soon"] * 2)) is None  # 82% dates: below the 95% asked
    assert parse_dates(pd.Series([None, None], dtype=object)) is None
    frame = pd.DataFrame({"a": ["x", "y"], "when": ["2024-01-01", "2024-02-01"]})
    assert date_columns(frame) == ["when"]


def test_dates_are_coded_per_period_of_the_declared_years_alone():
    from explorer.columns import period_codes, period_labels

    dates = pd.to_datetime(pd.Series(["2023-02-10", "2023-02-11", "2020-01-01", None, "2024-12-31"]))
    codes, labels = period_codes(dates, "year", 2023, 2024)
    assert labels == ["2023", "2024"] and codes.tolist() == [0, 0, 1]  # 2020 and the missing date left out
    codes, labels = period_codes(dates, "month", 2023, 2024)
    assert len(labels) == 24 and [labels[c] for c in codes] == ["2023-02", "2023-02", "2024-12"]
    assert period_labels("month", 2022, 2022)[-1] == "2022-12"
    with pytest.raises(ValueError, match="last_year must be"):
        period_labels("year", 2024, 2023)
    with pytest.raises(ValueError, match="period must be one of year, month"):
        period_labels("week", 2024, 2024)


def test_a_text_column_stored_by_arrow_is_profiled_as_the_same_column_stored_as_objects():
    """The Arrow path (pandas' ``str`` dtype: one Arrow value_counts a column, issue 23) and the pandas path (object
    dtype) describe the same columns alike: ties in first-appearance order, missing values, dates, identifiers,
    a column of values that start with digits but are not dates, an empty column."""
    rng = np.random.default_rng(5)
    n = 2_000
    columns = {
        "ties": rng.choice(["b", "a", "c", "d"], n).tolist(),  # near-equal counts: the order of ties matters
        "with_missing": [None if i % 7 == 0 else f"v{i % 4}" for i in range(n)],
        "dates": [f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(n)],
        "codes": [f"{i % 60}x" for i in range(n)],  # start with a digit, not dates
        "ids": [f"user{i}" for i in range(n)],
        "empty": [None] * n,
        "padded": [" a ", "b", " a "] * (n // 3) + ["b"] * (n % 3),
    }
    columns["ties"][:4] = ["d", "c", "b", "a"]  # first appearances in another order than the alphabet
    arrow = pd.DataFrame({k: pd.Series(v, dtype="str") for k, v in columns.items()})
    objects = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()})
    assert all(isinstance(t, pd.StringDtype) and t.storage == "pyarrow" for t in arrow.dtypes)
    pd.testing.assert_frame_equal(profile(arrow), profile(objects))
    exact = pd.DataFrame({"x": pd.Series(["q", "p", "p", "q", "r"], dtype="str")})
    assert profile(exact).loc[0, "top_values"] == "q (2), p (2), r (1)"  # ties: first seen first
