"""Tests for dpcore.data: CSV loading, profiles, column encoders, safe download and demo data.

Every malformed input is built here as bytes, so the tests need nothing outside
the repository.
"""

from __future__ import annotations

import codecs
import dataclasses
import importlib.util
import io
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpcore.data import (
    DEMO_DATASETS,
    MAX_CELLS,
    MAX_COLUMNS,
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    Dataset,
    DatasetError,
    categorical_columns,
    encode_categories,
    load_csv,
    load_demo,
    numeric_columns,
    numeric_values,
    profile,
    suggest_bounds,
    to_safe_csv,
)

REPO = Path(__file__).resolve().parent.parent
PROFILE_COLUMNS = ["column", "kind", "missing", "distinct", "min", "max", "top_values", "fits", "note"]


def _make_datasets_module():
    spec = importlib.util.spec_from_file_location("make_datasets", REPO / "data" / "make_datasets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _refusal(raw: bytes, **kwargs) -> str:
    with pytest.raises(DatasetError) as info:
        load_csv(raw, "test.csv", **kwargs)
    message = str(info.value)
    # One sentence for a user: capitalised, ends with a full stop, no traceback-like content.
    assert message[0].isupper() and message.endswith(".") and "\n" not in message, message
    return message


def _profile_row(dataset: Dataset, column: str) -> pd.Series:
    p = dataset.profile()
    assert list(p.columns) == PROFILE_COLUMNS
    return p.set_index("column").loc[column]


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("raw", [b"", b"\n\n", b"  \r\n\t\r\n", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, b"sep=;\n"])
def test_empty_file_is_refused(raw):
    assert "empty" in _refusal(raw)


@pytest.mark.parametrize("raw", [b"a,b,c\n", b"a,b,c", b"a;b;c\r\n\r\n", codecs.BOM_UTF8 + b"x\n"])
def test_header_only_is_refused(raw):
    assert "no data rows" in _refusal(raw)


def test_random_binary_is_refused():
    raw = np.random.default_rng(5).bytes(20_000)
    assert "binary" in _refusal(raw)


@pytest.mark.parametrize(
    "magic, word",
    [(b"PK\x03\x04", "Excel"), (b"\xd0\xcf\x11\xe0", "Excel"), (b"\x1f\x8b\x08", "gzip"), (b"%PDF-1.4", "PDF")],
)
def test_known_binary_formats_get_a_specific_sentence(magic, word):
    assert word in _refusal(magic + np.random.default_rng(1).bytes(500))


def test_file_over_the_size_limit_is_refused_before_reading():
    raw = b"a,b\n" + b"1,2\n" * (MAX_UPLOAD_BYTES // 4)  # one byte over the limit
    assert len(raw) > MAX_UPLOAD_BYTES
    message = _refusal(raw)
    assert "limit is 25 MB" in message and "MB" in message.split(";")[0]
    assert "limit is 0.001 MB" in _refusal(b"a\n" + b"1\n" * 600, max_bytes=1000)


def test_too_many_rows_or_cells_is_refused_before_using_memory():
    assert "more than 1,000,000 rows" in _refusal(b"a\n" + b"1\n" * (MAX_ROWS + 1))
    assert load_csv(b"a\n" + b"1\n" * 1000 + b"\n" * 5000, "blank.csv").n_rows == 1000  # blank lines do not count
    header = ",".join(f"c{i}" for i in range(MAX_COLUMNS)).encode()
    assert "million cells" in _refusal(header + b"\n" + b"1\n" * (MAX_CELLS // MAX_COLUMNS + 1))


def test_giant_cell_is_refused():
    assert "longer than" in _refusal(b"a,b\n1,2\n" + b"x" * 200_000 + b"\n")


def test_only_unnamed_empty_columns_is_refused():
    # An all-empty first line is skipped like a blank line, so only literal "Unnamed: N" names get here.
    assert "no columns" in _refusal(b"Unnamed: 0,Unnamed: 1\n?,NA\n-,\n")


def test_non_bytes_is_a_type_error():
    with pytest.raises(TypeError, match="raw must be bytes"):
        load_csv("a,b\n1,2\n", "x.csv")


def test_mutated_files_load_or_raise_dataset_error_only():
    """Byte flips, truncations and insertions of a valid file: never an exception other than DatasetError."""
    rng = np.random.default_rng(2024)
    base = (
        'name;city;amount;date\n"Müller, A";Köln;1.234,5;2020-01-01\nB;"Paris";-3,5;?\n'
        'C;Zürich;7;2021-02-03\n"D ""q""";x;;\n'
    ).encode()
    specials = [b'"', b";", b",", b"\t", b"\n", b"\r", b"\x00", b"\xff", b"\xc3", b"=", b" "]
    for _ in range(300):
        raw = bytearray(base)
        for _ in range(int(rng.integers(1, 6))):
            i = int(rng.integers(0, len(raw) + 1))
            action = rng.integers(0, 3)
            if action == 0:
                raw[i : i + 1] = specials[int(rng.integers(len(specials)))]
            elif action == 1:
                raw[i:i] = specials[int(rng.integers(len(specials)))]
            else:
                raw = raw[:i]
        try:
            dataset = load_csv(bytes(raw), "fuzz.csv")
        except DatasetError:
            continue
        assert dataset.n_rows >= 1 and dataset.frame.shape[1] >= 1
        dataset.profile()


# --------------------------------------------------------------------------- encodings and delimiters


def test_latin1_and_cp1252_text_is_decoded():
    d = load_csv("name;città\nJosé;Köln\nZoë;€5\n".encode("cp1252"), "w.csv")
    assert list(d.frame.columns) == ["name", "città"]
    assert d.frame["name"].tolist() == ["José", "Zoë"] and d.frame["città"].tolist() == ["Köln", "€5"]
    assert any("Windows-1252" in n for n in d.notes)
    # 0x81 is undefined in Windows-1252: Latin-1 takes over and never fails.
    d = load_csv(b"name,v\nJos\xe9,1\n\x81x,2\n", "l.csv")
    assert d.frame["name"].iloc[0] == "José" and d.frame["v"].tolist() == [1, 2]
    assert any("Latin-1" in n for n in d.notes)


def test_utf8_bom_and_crlf():
    d = load_csv(codecs.BOM_UTF8 + "a,é\r\n1,2\r\n3,4\r\n".encode(), "bom.csv")
    assert list(d.frame.columns) == ["a", "é"]  # no BOM left in the first name
    assert d.frame["a"].tolist() == [1, 3] and d.notes == ()


def test_utf16_excel_unicode_text_with_and_without_bom():
    text = "name\tscore\nÅsa\t1,5\nBo\t2\n"
    for raw in (text.encode("utf-16"), text.encode("utf-16-be"), text.encode("utf-16-le"), text.encode("utf-32")):
        d = load_csv(raw, "unicode.txt")
        assert d.frame["name"].tolist() == ["Åsa", "Bo"]
        assert d.frame["score"].tolist() == [1.5, 2.0]  # a tab file with a decimal comma
    assert "UTF-16" in _refusal(codecs.BOM_UTF16_LE + b"a\x00,\x00b\x00\n\x00\x00\xdc")


def test_invalid_utf8_after_a_utf8_bom_falls_back_to_cp1252():
    d = load_csv(codecs.BOM_UTF8 + b"a\nb\xe9\n", "x.csv")
    assert d.frame["a"].tolist() == ["bé"]


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_delimiters_are_detected(delimiter):
    rows = [["id", "city", "n"], ["1", "Oslo", "3"], ["2", "Rome", "4"]]
    raw = "\n".join(delimiter.join(r) for r in rows).encode()
    d = load_csv(raw, "d.csv")
    assert list(d.frame.columns) == ["id", "city", "n"]
    assert d.frame["n"].tolist() == [3, 4]


def test_comma_inside_quotes_does_not_fool_the_sniffer():
    d = load_csv(b'a;b\n"x, y, z";1\n"p, q";2\n', "q.csv")
    assert d.frame["a"].tolist() == ["x, y, z", "p, q"]


def test_excel_sep_line():
    d = load_csv(b"sep=;\r\nx;y\r\n1,5;a\r\n2;b\r\n", "excel.csv")
    assert list(d.frame.columns) == ["x", "y"] and d.frame["x"].tolist() == [1.5, 2.0]
    d = load_csv(b'"sep=|"\nx|y\n1|2\n', "excel.csv")
    assert d.frame["y"].tolist() == [2]


# --------------------------------------------------------------------------- structure


def test_ragged_rows_padded_dropped_or_trimmed():
    raw = b"a,b,c\n1,2\n3,4,5,6\n7,8,9,\n10,11,12,,\n13,14,15\n"
    d = load_csv(raw, "ragged.csv")
    assert d.frame["a"].tolist() == [1, 7, 10, 13]  # 3,4,5,6 dropped; trailing empty fields trimmed
    assert np.isnan(d.frame["c"].iloc[0])
    assert any("more fields" in n and "dropped" in n for n in d.notes)
    assert any("fewer fields" in n and "padded" in n for n in d.notes)


def test_rows_all_longer_than_header_widen_it():
    d = load_csv(b"a,b\n1,2,3\n4,5,6\n", "wide.csv")
    assert list(d.frame.columns) == ["a", "b", "Unnamed: 2"] and d.frame["Unnamed: 2"].tolist() == [3, 6]


def test_unbalanced_quote_is_read_with_quotes_as_text():
    d = load_csv(b'a,b\n1,"abc\n2,def\n3,ghi\n', "quote.csv")
    assert d.frame["a"].tolist() == [1, 2, 3] and d.frame["b"].tolist() == ["abc", "def", "ghi"]
    assert any("never closed" in n for n in d.notes)
    # A large file with an early unclosed quote hits the csv field limit first: same recovery.
    raw = b'a,b\n1,"x\n' + b"2,yyyyyyyyyy\n" * 15_000
    assert load_csv(raw, "big.csv").n_rows == 15_001


def test_quote_in_mid_field_is_lenient():
    d = load_csv(b'a,b\n1,"abc"def\n2,5" screen\n', "x.csv")
    assert d.frame["b"].tolist() == ["abcdef", '5" screen']


def test_duplicate_column_names_are_made_unique():
    d = load_csv(b"a,a,b,a,b\n1,2,3,4,5\n", "dup.csv")
    assert list(d.frame.columns) == ["a", "a.1", "b", "a.2", "b.1"]
    assert d.frame.columns.is_unique
    d = load_csv(b"a,a,a.1\n1,2,3\n", "dup.csv")  # a generated name never collides with a real one
    assert list(d.frame.columns) == ["a", "a.2", "a.1"]
    assert any("Duplicate" in n for n in d.notes)


def test_many_duplicate_names_stay_fast():
    raw = (",".join(["x"] * 1_200) + "\n" + ",".join(["1"] * 1_200) + "\n").encode()
    d = load_csv(raw, "x.csv")  # its speed is measured in benchmarks/, not asserted here
    assert d.frame.columns.is_unique and d.frame.shape[1] == MAX_COLUMNS


def test_all_missing_and_unnamed_columns():
    raw = b"a,empty,,Unnamed: 4,\n1,,,,\n2,NA,,,\n"
    d = load_csv(raw, "e.csv")
    assert list(d.frame.columns) == ["a", "empty"]  # unnamed empty ones dropped, named empty one kept
    assert any("unnamed" in n for n in d.notes)
    row = _profile_row(d, "empty")
    assert row["kind"] == "empty" and row["missing"] == 2 and row["fits"] == "none"
    assert "empty" not in categorical_columns(d.frame) and "empty" not in numeric_columns(d.frame)


def test_unnamed_column_with_values_is_kept():
    d = load_csv(b",v\n0,a\n1,b\n", "index.csv")  # a pandas export with its index
    assert list(d.frame.columns) == ["Unnamed: 0", "v"]


def test_header_with_trailing_delimiter():
    d = load_csv(b"a,b,\n1,2\n3,4\n", "t.csv")
    assert list(d.frame.columns) == ["a", "b"] and d.notes == ()


def test_headerless_numeric_file():
    d = load_csv(b"1,2,3\n4,5,6\n", "n.csv")
    assert list(d.frame.columns) == ["column_1", "column_2", "column_3"] and d.n_rows == 2


def test_1500_columns_keeps_the_first_1000():
    n_cols, n_rows = 1_500, 20
    header = ",".join(f"c{i}" for i in range(n_cols))
    body = "\n".join(",".join(str(r * n_cols + i) for i in range(n_cols)) for r in range(n_rows))
    d = load_csv(f"{header}\n{body}\n".encode(), "wide.csv")
    p = d.profile()
    assert d.frame.shape == (n_rows, MAX_COLUMNS) and d.frame.columns[-1] == f"c{MAX_COLUMNS - 1}"
    assert any("1,500 columns" in n and "1,000" in n for n in d.notes)
    assert len(p) == MAX_COLUMNS and (p["kind"] == "numeric").all()


# --------------------------------------------------------------------------- cells


def test_whitespace_and_na_spellings_like_uci_adult():
    raw = b" age , workclass , income\n39, State-gov, <=50K\n50, ?, >50K\n 38 , Private ,<=50K\n"
    d = load_csv(raw, "adult.csv")
    assert list(d.frame.columns) == ["age", "workclass", "income"]
    assert d.frame["age"].tolist() == [39, 50, 38] and d.frame["age"].dtype == np.int64
    assert d.frame["workclass"].isna().tolist() == [False, True, False]
    assert d.frame["income"].tolist() == ["<=50K", ">50K", "<=50K"]


def test_na_spellings():
    spellings = ["?", "NA", "N/A", "n/a", "", "null", "NULL", "None", "NaN", "#N/A", "-", "  "]
    raw = ("x,y\n" + "\n".join(f"{s},{i}" for i, s in enumerate(spellings)) + "\n1.5,99\n").encode()
    d = load_csv(raw, "na.csv")
    assert d.frame["x"].isna().sum() == len(spellings) and d.frame["x"].dtype == np.float64
    row = _profile_row(d, "x")
    assert row["kind"] == "numeric" and row["missing"] == len(spellings) and row["distinct"] == 1


def test_quoted_numbers_are_numbers():
    d = load_csv(b'a,b\n"42","-3.5"\n" 7 ","1e3"\n', "q.csv")
    assert d.frame["a"].tolist() == [42, 7] and d.frame["b"].tolist() == [-3.5, 1000.0]


def test_decimal_comma_with_semicolons():
    d = load_csv(b"x;y;z\n1,5;2;1.234,5\n-0,25;3;2.000.000\n", "de.csv")
    assert d.frame["x"].tolist() == [1.5, -0.25]
    assert d.frame["z"].tolist() == [1234.5, 2_000_000.0]
    assert d.frame["y"].tolist() == [2, 3]
    assert any("decimal comma" in n for n in d.notes)


def test_thousands_separators_in_a_comma_file():
    d = load_csv(b'x,y\n"1,234",1\n"2,000,000.5",2\n17,3\n', "us.csv")
    assert d.frame["x"].tolist() == [1234.0, 2_000_000.5, 17.0]
    assert any("Thousands" in n for n in d.notes)


def test_text_that_only_looks_numeric_stays_text():
    d = load_csv(b"zip,v,code\n02139,1.2.3,12a\n10001,4,7\n", "t.csv")
    assert d.frame["zip"].tolist() == ["02139", "10001"]  # leading zeros: codes
    assert d.frame["v"].tolist() == ["1.2.3", "4"] and d.frame["code"].tolist() == ["12a", "7"]
    assert d.frame["zip"].dtype != np.float64


def test_inf_and_huge_values():
    raw = b"a,b\n1,inf\n2,-Infinity\n3,1e308\n4,-1e308\n5,1e400\n6,2\n"
    d = load_csv(raw, "inf.csv")
    b = d.frame["b"]
    assert not np.isinf(b).any() and b.isna().sum() == 3
    assert any("infinite" in n for n in d.notes)
    row = _profile_row(d, "b")
    assert row["kind"] == "numeric" and row["missing"] == 3 and row["max"] == 1e308 and row["min"] == -1e308
    values, dropped = numeric_values(b)
    assert dropped == 3 and np.all(np.isfinite(values))
    lower, upper = suggest_bounds(b)
    assert np.isfinite(lower) and np.isfinite(upper) and lower < upper
    # A frame built elsewhere may still hold infinities: they count as missing everywhere.
    frame = pd.DataFrame({"v": [1.0, np.inf, -np.inf, 2.0]})
    assert profile(frame).loc[0, "missing"] == 2 and numeric_values(frame["v"])[1] == 2
    assert suggest_bounds(pd.Series([1.7e308, 1.79e308])) == (1.7e308, 1.79e308)


def test_html_passes_through_as_data():
    cells = ["<script>alert(1)</script>", "<b>bold</b> &amp;"]
    raw = ("a,b\n" + ",".join(f'"{c}"' for c in cells) + "\n").encode()
    d = load_csv(raw, "h.csv")
    assert d.frame.iloc[0].tolist() == cells
    assert load_csv(to_safe_csv(d.frame), "back.csv").frame.iloc[0].tolist() == cells


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


# --------------------------------------------------------------------------- safe download


def test_to_safe_csv_neutralises_formulas_but_not_numbers():
    frame = pd.DataFrame(
        {
            "text": ["=cmd|' /C calc'!A0", "+1", "-2+3", "@SUM(A1)", "\t=1", "plain", "a=b", None],
            "number": [-3.5, 1.0, -2.0, 0.0, 5.0, 6.0, 7.0, 8.0],
            "=HYPERLINK(1)": range(8),
        }
    )
    out = to_safe_csv(frame)
    assert out.startswith(codecs.BOM_UTF8)
    back = pd.read_csv(io.BytesIO(out), encoding="utf-8-sig", keep_default_na=False)
    assert back["text"].tolist()[:7] == ["'=cmd|' /C calc'!A0", "'+1", "'-2+3", "'@SUM(A1)", "'\t=1", "plain", "a=b"]
    assert back["number"].tolist() == frame["number"].tolist()
    assert list(back.columns)[2] == "'=HYPERLINK(1)"
    assert frame["text"].iloc[0] == "=cmd|' /C calc'!A0"  # the input frame is untouched
    # Loads back through our own reader: numbers stay numbers.
    d = load_csv(out, "download.csv")
    assert d.frame["number"].tolist() == frame["number"].tolist()


# --------------------------------------------------------------------------- Dataset and demo data


def test_dataset_is_frozen_and_counts_rows():
    d = load_csv(b"a\n1\n2\n", "x.csv")
    assert isinstance(d, Dataset) and d.n_rows == 2 and d.name == "x.csv"
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.name = "y"
    assert {d: 1}[d] == 1  # identity-hashable, usable as a dict key
    # st.cache_data pickles what it returns: a Dataset must survive the round trip.
    back = pickle.loads(pickle.dumps(load_demo("survey")))
    assert back.notes == load_demo("survey").notes
    pd.testing.assert_frame_equal(back.frame, load_demo("survey").frame)


@pytest.mark.parametrize("name", sorted(DEMO_DATASETS))
def test_demo_files_load_and_profile(name):
    d = load_demo(name)
    p = d.profile()
    assert "SYNTHETIC" in d.notes[0] and len(d.notes) == 1  # nothing else needed fixing
    assert not (p["kind"] == "identifier-like").any() and not (p["kind"] == "empty").any()
    assert len(categorical_columns(d.frame)) >= 3 and len(numeric_columns(d.frame)) >= 2


def test_census_demo_marginals():
    f = load_demo("census").frame
    assert f.shape == (32_561, 13)
    assert f["occupation"].nunique() == 14
    assert 37.5 < f["age"].mean() < 39.5 and f["age"].min() == 17 and f["age"].max() <= 90
    assert 0.64 < (f["sex"] == "Male").mean() < 0.70
    assert 0.83 < (f["race"] == "White").mean() < 0.88
    assert 0.22 < (f["income"] == ">50K").mean() < 0.26
    assert 0.06 < (f["capital-gain"] > 0).mean() < 0.10 and f["capital-gain"].max() == 99_999
    assert f["hours-per-week"].mode().iloc[0] == 40
    assert 0.66 < (f["workclass"] == "Private").mean() < 0.73
    assert set(categorical_columns(f)) >= {"workclass", "education", "occupation", "sex", "race", "income"}
    assert set(numeric_columns(f)) >= {"age", "capital-gain", "hours-per-week"}


def test_survey_demo_has_the_sensitive_question():
    f = load_demo("survey").frame
    assert len(f) == 2_000 and set(f["cheated_on_exam"]) == {"yes", "no"}
    assert 0.1 < (f["cheated_on_exam"] == "yes").mean() < 0.35
    assert f["satisfaction"].between(1, 5).all()


def test_generator_is_deterministic_and_reproduces_the_committed_files():
    mk = _make_datasets_module()
    census = mk.make_census(mk.SEED)
    pd.testing.assert_frame_equal(census, mk.make_census(mk.SEED))
    pd.testing.assert_frame_equal(mk.make_survey(mk.SEED), mk.make_survey(mk.SEED))
    assert not census.equals(mk.make_census(mk.SEED + 1))
    for frame, file_name in ((census, "census.csv"), (mk.make_survey(), "survey.csv")):
        written = frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
        assert written == (REPO / "data" / file_name).read_bytes(), f"run python data/make_datasets.py ({file_name})"


def test_dpcore_data_does_not_import_streamlit():
    code = "import sys, dpcore.data; assert 'streamlit' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
