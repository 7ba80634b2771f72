"""Tests for explorer.csv_reader (through explorer.dataset.load_csv): decoding, splitting, cleaning, refusing.

Every malformed input is built here as bytes, so the tests need nothing outside
the repository.
"""

from __future__ import annotations

import codecs
import csv
import io
import pathlib
import tomllib

import numpy as np
import pandas as pd
import pytest

from explorer.columns import categorical_columns, numeric_columns, numeric_values, profile, suggest_bounds
from explorer.csv_reader import MAX_CELLS, MAX_COLUMNS, MAX_ROWS, MAX_UPLOAD_BYTES, DatasetError, read_csv
from explorer.dataset import Dataset, load_csv
from explorer.export import to_safe_csv

ROOT = pathlib.Path(__file__).resolve().parents[1]
PROFILE_COLUMNS = ["column", "kind", "missing", "distinct", "min", "max", "top_values", "fits", "note"]


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


def test_upload_limit_is_what_streamlit_enforces_from_config_toml():
    # Streamlit reads server.maxUploadSize as an integer number of MiB and refuses a file over
    # maxUploadSize * 1024 * 1024 bytes (the upload route and the uploader widget both)
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert isinstance(config["server"]["maxUploadSize"], int)
    assert config["server"]["maxUploadSize"] * 1024 * 1024 == MAX_UPLOAD_BYTES == 26_214_400


def test_file_over_the_size_limit_is_refused_before_reading():
    raw = b"a,b\n" + b"1,2\n" * (MAX_UPLOAD_BYTES // 4)  # 4 bytes over the limit
    assert len(raw) == MAX_UPLOAD_BYTES + 4
    assert _refusal(raw) == "The file is 25.1 MiB; the limit is 25 MiB."  # rounded up, never "25.0"
    assert load_csv(b"a\n1\n", "at_the_limit.csv", max_bytes=4).n_rows == 1  # the limit itself is allowed
    assert _refusal(b"a\n1\n", max_bytes=3) == "The file is 4 bytes; the limit is 3 bytes."
    assert _refusal(b"a\n" + b"1\n" * 600, max_bytes=1000) == "The file is 1,202 bytes; the limit is 1,000 bytes."


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


def test_read_csv_returns_the_frame_and_notes_load_csv_wraps():
    frame, notes = read_csv(b"a;b\n1;x\n")
    assert frame.columns.tolist() == ["a", "b"] and notes == ()
    assert load_csv(b"a;b\n1;x\n", "f.csv").frame.equals(frame)


# --------------------------------------------------------------------------- the fast path reads what the careful one does

_CELLS = (
    "1",
    "-2.5",
    "+3",
    ".5",
    "7.",
    "1e5",
    "2E-3",
    "inf",
    "-Infinity",
    "1e400",
    "007",
    "-01",
    "0",
    "0.0",
    "1,234",
    "12,345.5",
    "1.234,5",
    "3,5",
    "1 234",
    "NA",
    "n/a",
    "?",
    "-",
    "--",
    "None",
    "",
    "x",
    "Zoë",
    "a b",
    "  padded ",
    "\tlead",
    "trail\t",
    "1_000",
    "0x1A",
    "١٢",
    "<b>",
    "=1+1",
)


def _random_file(rng: np.random.Generator) -> str:
    delimiter = str(rng.choice([",", ";", "\t", "|"]))
    width, rows = int(rng.integers(1, 6)), int(rng.integers(1, 40))
    quoting = rng.random() < 0.3
    kinds = rng.integers(0, 4, width)  # per column: a narrow pool of cells, so columns are often numeric
    pools = [rng.choice(_CELLS, size=int(rng.integers(1, 6))) for _ in range(width)]
    header = [str(rng.choice(["a", "b", " c ", "", "a", "1", "2.5"])) for _ in range(width)]
    lines = [delimiter.join(header)]
    for _ in range(rows):
        cells = [str(rng.choice(pools[j])) if kinds[j] else str(rng.choice(_CELLS)) for j in range(width)]
        cells = [c.replace(delimiter, "") for c in cells]
        if quoting:  # a field quoted whole, holding the delimiter, a doubled quote or a line break: DuckDB splits it
            j = int(rng.integers(width))
            inner = cells[j] + str(rng.choice(["", delimiter, '""', "\n", " x"]))
            cells[j] = '"' + inner + '"'
        lines.append(delimiter.join(cells))
    mutation = int(rng.integers(0, 10))  # most files plain; some with what sends them to the careful reader
    if mutation == 1:
        lines.insert(int(rng.integers(1, len(lines) + 1)), "")
    elif mutation == 2:
        lines.insert(int(rng.integers(1, len(lines) + 1)), delimiter * (width - 1))
    elif mutation == 3:
        lines[-1] += delimiter + "extra"
    elif mutation == 4:
        lines[-1] = lines[-1].rsplit(delimiter, 1)[0] if width > 1 else lines[-1]
    elif mutation == 5:
        lines[1] = '"' + lines[1]
    end = str(rng.choice(["\n", "\r\n"]))
    return end.join(lines) + str(rng.choice(["", end, end * 2]))


def test_tables_split_by_pandas_or_duckdb_equal_the_careful_reader(monkeypatch):
    # pandas' C parser or DuckDB reads plain tables, DuckDB regular quoted ones; on 600 random files (two thirds neither)
    # the frame and the notes must be what the careful reader gives; the counts of files each fast path took show
    # the test exercises both
    from explorer import csv_reader

    rng, fast, quoted = np.random.default_rng(20261123), 0, 0
    plain_reader, quoted_reader = csv_reader._read_plain, csv_reader._read_quoted
    for i in range(600):
        # every other file's plain table split by DuckDB (as a file of 8 MiB or more is), the others by pandas
        monkeypatch.setattr(csv_reader, "_DUCKDB_PLAIN_CHARS", 0 if i % 2 else 8 * 1024 * 1024)
        text = _random_file(rng)
        raw = text.encode()
        took = plain_reader(text.lstrip("\ufeff"), _sniffed(text)) is not None
        fast += took
        quoted += not took and quoted_reader(text.lstrip("\ufeff"), _sniffed(text)) is not None
        try:
            got = read_csv(raw)
        except DatasetError as error:
            got = str(error)
        monkeypatch.setattr(csv_reader, "_read_plain", lambda *_: None)
        monkeypatch.setattr(csv_reader, "_read_quoted", lambda *_: None)
        try:
            want = read_csv(raw)
        except DatasetError as error:
            want = str(error)
        monkeypatch.setattr(csv_reader, "_read_plain", plain_reader)
        monkeypatch.setattr(csv_reader, "_read_quoted", quoted_reader)
        if isinstance(want, str) or isinstance(got, str):
            assert got == want, text
            continue
        pd.testing.assert_frame_equal(got[0], want[0], check_exact=True, obj=repr(text))
        assert got[1] == want[1], text
    assert 80 < fast < 400, fast  # about a fifth are plain: half not mutated and not quoted, most of those end cleanly
    assert 40 < quoted < 200, quoted  # a third are quoted; the unmutated ones that end cleanly go to DuckDB


def _sniffed(text: str) -> str:
    from explorer import csv_reader

    return csv_reader._sniff_delimiter(text)


@pytest.mark.parametrize(
    "cells",
    [
        ["1", "2.5", "-inf", "1e400"],
        ["1,234", "5", "12,345.5"],
        ["1.234,5", "7"],
        ["1", "x"],
        ["1\n2", "3"],
        ["007", "1"],
        ["1 234", "5,5"],
    ],
)
@pytest.mark.parametrize("delimiter", [",", ";"])
def test_numbers_are_read_as_one_cell_at_a_time_would(cells, delimiter):
    # the newline-joined pattern against the rule it replaces: every cell fully matches the format's pattern
    from explorer import csv_reader as cr

    formats = [
        ("", cr.PLAIN, None),
        ("thousands", cr.THOUSANDS, {ord(","): None}),
        ("decimal comma", cr.DECIMAL_COMMA, cr._EU_GROUPING),
    ]
    if delimiter == ";" and any("," in c for c in cells):
        formats = [formats[2], formats[1]]
    want = (None, "")
    for label, pattern, table in formats:
        if all(pattern.fullmatch(c) or (label == "thousands" and cr.PLAIN.fullmatch(c)) for c in cells):
            want = ([float(c.translate(table) if table else c) for c in cells], label)
            break
    numbers, label = cr._parse_numbers(cells, "\n".join(cells), delimiter)
    assert (None if numbers is None else numbers.tolist(), label) == want


# --------------------------------------------------------------------------- other formats (read by DuckDB, cleaned as CSV cells)


def _plain_frame(text: str) -> pd.DataFrame:
    return read_csv(text.encode())[0]


TABLE = 'age,city,income\n39,Köln,"1,234"\n50,?,2\n38,Oslo,NA\n'


def test_gzip_compressed_csv_reads_as_the_file_inside():
    import gzip

    frame, notes = read_csv(gzip.compress(TABLE.encode()))
    pd.testing.assert_frame_equal(frame, _plain_frame(TABLE))
    assert notes[0].startswith("The file was gzip-compressed")


def test_gzip_bombs_and_damage_are_refused_in_one_sentence():
    import gzip

    from explorer.csv_reader import MAX_DECOMPRESSED_BYTES

    bomb = gzip.compress(b"a\n" + b"0" * (MAX_DECOMPRESSED_BYTES + 10))  # 100 MiB of zeros in about 100 KB
    assert len(bomb) < MAX_UPLOAD_BYTES and "holds more than 100 MiB" in _refusal(bomb)
    assert "truncated" in _refusal(gzip.compress(TABLE.encode())[:-12])
    assert "damaged" in _refusal(b"\x1f\x8b\x08" + bytes(40))
    assert "twice" in _refusal(gzip.compress(gzip.compress(TABLE.encode())))


def _parquet(tmp_path, select: str) -> bytes:
    import duckdb

    path = tmp_path / "t.parquet"
    duckdb.sql(f"COPY ({select}) TO '{path}' (FORMAT parquet)")
    return path.read_bytes()


def test_parquet_columns_are_typed_like_csv_columns(tmp_path):
    raw = _parquet(
        tmp_path,
        "SELECT * FROM (VALUES (1, 2.5, 'x', '007', 'NA', true), (2, NULL, 'y', '010', '3', false)) "
        "t(id, score, tag, zip, half, flag)",
    )
    frame, notes = read_csv(raw)
    assert frame["id"].dtype == np.int64 and frame["id"].tolist() == [1, 2]
    assert frame["score"].iloc[0] == 2.5 and np.isnan(frame["score"].iloc[1])
    assert frame["tag"].tolist() == ["x", "y"] and frame["zip"].tolist() == ["007", "010"]  # codes stay text
    assert frame["half"].isna().tolist() == [True, False] and frame["half"].iloc[1] == 3  # "NA" is missing
    assert frame["flag"].tolist() == ["true", "false"]
    assert any("Parquet" in n for n in notes)


def test_parquet_over_the_row_limit_is_refused(tmp_path):
    raw = _parquet(tmp_path, f"SELECT range % 7 AS a FROM range({MAX_ROWS + 1})")
    assert len(raw) < MAX_UPLOAD_BYTES and "more than 1,000,000 rows" in _refusal(raw)
    assert "could not be read" in _refusal(b"PAR1" + bytes(64) + b"PAR1")


@pytest.mark.parametrize(
    "raw",
    [
        b'[{"age": 39, "city": "K\\u00f6ln", "income": "1,234"}, {"age": 50, "city": "?", "income": 2},'
        b' {"age": 38, "city": "Oslo", "income": null}]',
        b'{"age": [39, 50, 38], "city": ["K\\u00f6ln", null, "Oslo"], "income": ["1,234", "2", "NA"]}',
        b'{"age": 39, "city": "K\\u00f6ln", "income": "1,234"}\n{"age": 50, "income": 2}\n'
        b'{"age": 38, "city": "Oslo"}\n',
    ],
    ids=["records", "columns", "lines"],
)
def test_json_records_columns_and_lines_read_as_the_same_table(raw):
    frame, notes = read_csv(raw)
    want = _plain_frame(TABLE)
    assert frame.columns.tolist() == want.columns.tolist()
    for column in want.columns:
        assert frame[column].tolist() == pytest.approx(want[column].tolist(), nan_ok=True) or (
            frame[column].isna().tolist() == want[column].isna().tolist()
            and frame[column].dropna().tolist() == want[column].dropna().tolist()
        )
    assert any("JSON" in n for n in notes)


def test_json_that_is_no_table_is_refused_in_one_sentence():
    assert "list of values" in _refusal(b"[1, 2, 3]")
    assert "nested values" in _refusal(b'[{"a": {"b": 1}}, {"a": {"b": 2}}]')
    assert "different lengths" in _refusal(b'{"a": [1, 2], "b": [1]}')
    # text that only starts like JSON is a CSV file
    assert load_csv(b"[id],name\n1,x\n", "brackets.csv").frame.columns.tolist() == ["[id]", "name"]


def test_excel_is_read_when_openpyxl_is_installed_and_refused_in_one_sentence_otherwise():
    try:
        import openpyxl
    except ImportError:
        assert "cannot read Excel files" in _refusal(b"PK\x03\x04" + bytes(300))
        return
    book = openpyxl.Workbook()
    book.active.append(["age", "city"])
    book.active.append([39, "Köln"])
    out = io.BytesIO()
    book.save(out)
    frame, _ = read_csv(out.getvalue())
    assert frame["age"].tolist() == [39] and frame["city"].tolist() == ["Köln"]
    assert "could not be read" in _refusal(b"PK\x03\x04" + bytes(300))


def test_quoted_fields_split_by_duckdb():
    # delimiters, doubled quotes and line breaks inside quotes; the file is regular, so DuckDB splits it
    from explorer import csv_reader

    text = 'name,note,n\n"Smith, J","said ""hi""",1\n"Lee","two\nlines",2\n'
    assert csv_reader._read_quoted(text, ",") is not None
    frame, _ = read_csv(text.encode())
    assert frame["name"].tolist() == ["Smith, J", "Lee"] and frame["note"].tolist() == ['said "hi"', "two\nlines"]
    assert frame["n"].tolist() == [1, 2]
    assert csv_reader._read_quoted('a,b\n1,"x\n2,y\n', ",") is None  # a quote never closed: the careful reader
    assert csv_reader._read_quoted('a,b\n"1",2,3\n', ",") is None  # a longer row


def test_large_plain_tables_split_by_duckdb(monkeypatch):
    # a plain table of 8 MiB or more goes to DuckDB (here the threshold is lowered to every table): the same cells,
    # and what the careful reader treats specially (a row of delimiters only, a cell over the csv limit) is sent back
    from explorer import csv_reader

    monkeypatch.setattr(csv_reader, "_DUCKDB_PLAIN_CHARS", 0)
    codes, uniques = zip(*csv_reader._read_plain("a,b\n1, x\n2,\n1,y\n", ","))
    assert [[u[c] for c in cs] for cs, u in zip(codes, uniques)] == [["a", "1", "2", "1"], ["b", " x", "", "y"]]
    assert csv_reader._read_plain("a,b\n1,2\n,\n3,4\n", ",") is None
    assert csv_reader._read_plain("a,b\n1," + "x" * (csv.field_size_limit() + 1) + "\n", ",") is None
    frame, notes = read_csv(b"id;amount\n007;1.234,5\n8;NA\n")
    assert frame["id"].tolist() == ["007", "8"] and frame["amount"].tolist()[0] == 1234.5
    assert np.isnan(frame["amount"].tolist()[1]) and any("decimal comma" in n for n in notes)
