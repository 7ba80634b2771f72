"""Reading the bytes of an upload (CSV, gzip-compressed CSV, Parquet, JSON, Excel if openpyxl is installed) into a
clean pandas table, or refusing it in one sentence.

:func:`read_csv` decodes, splits and cleans; :mod:`explorer.dataset` wraps the result in a
:class:`~explorer.dataset.Dataset`. Nothing from the file is ever evaluated.

Loading decisions (documented here once, reported per file in
:attr:`Dataset.notes`):

* Size: files over :data:`MAX_UPLOAD_BYTES` (25 MiB), with more than
  :data:`MAX_ROWS` data rows or more than :data:`MAX_CELLS` cells are refused
  (the last two bound memory: a 25 MiB file of one-byte rows would otherwise
  take gigabytes as Python lists).
* Format, from the content (never the file name): a gzip stream is
  decompressed (at most :data:`MAX_DECOMPRESSED_BYTES`, so a gzip bomb is
  refused) and the file inside read; ``PAR1`` at both ends is Parquet; text
  whose first character is ``[`` or ``{`` and that parses as JSON is JSON (an
  array of records, one record per line, or one object of equally long
  columns; nested values refused); a ZIP archive is an Excel workbook, read
  (first sheet) when ``openpyxl`` is installed and refused in one sentence
  otherwise. DuckDB reads Parquet and JSON; their values, cast to text, go
  through the same cell rules as a CSV file's (so ``"NA"`` in a Parquet
  string column is missing, ``"007"`` stays a code).
* Encoding: a byte-order mark decides (UTF-8, UTF-16, UTF-32); otherwise
  UTF-16 without a mark is recognised by its zero bytes, then strict UTF-8,
  then Windows-1252 (the superset of Latin-1 that Excel writes), then Latin-1,
  which accepts any byte. Text with zero bytes or many control characters is
  refused as binary.
* Delimiter: an Excel ``sep=;`` first line wins; otherwise each of
  ``, ; TAB |`` is tried on the first 50 records and the one giving the most
  consistent field count above one is chosen (ties in that order); if none
  splits the rows, the one splitting the header into most fields. This is
  csv.Sniffer's idea made predictable: Sniffer guesses odd delimiters and
  fails on single-column files.
* Header: the first row, unless every cell of it is a number, in which case
  the columns are named ``column_1``, ``column_2``, ...
* Ragged rows: short rows are padded with missing values; extra fields that
  are all empty (trailing delimiters) are trimmed; rows with extra non-empty
  fields are dropped and counted, unless most rows have them, in which case
  the header is widened with ``Unnamed: N`` columns.
* Quotes: a quote mark that is never closed makes the whole file be re-read
  with quote marks as ordinary characters (noted).
* Names: stripped; empty names become ``Unnamed: N`` (N counts from 0, as
  pandas does); duplicates become ``a.1``, ``a.2``; unnamed columns with no
  values are dropped; at most :data:`MAX_COLUMNS` columns are kept (the
  first ones, noted).
* Cells: stripped of surrounding whitespace; the spellings in
  :data:`NA_SPELLINGS` (case-insensitive) are missing. A column is numeric
  when every non-missing cell is a number: plain (``-3.5``, ``1e308``),
  with thousands separators (``1,234,567``) or with a decimal comma
  (``1.234,5``; preferred when the delimiter is ``;``). Numbers with leading
  zeros (``02139``) keep the column as text, since they are codes.
* Infinities (``inf``, ``1e400``) are treated as missing and counted in the
  notes: no clipping bound makes them meaningful.
* Speed: a plain table (no quote mark, no blank or empty row, every row as
  wide as the header) and a regular table with quoted fields are split by
  DuckDB's parser with the dialect pinned (the delimiter above, ``"`` doubled
  inside quotes, as many columns as the first record, strict; DuckDB's sniffer
  is not asked, since it skips leading rows of a file it finds irregular), the
  cells coming back as Arrow strings, dictionary-encoded in Arrow (a Python
  string per distinct cell of a column, not per cell); a plain table under
  8 MiB by pandas' C parser (DuckDB is no faster there and takes 0.5 s to
  import); anything else by :mod:`csv`. Every rule above applies the same,
  and a test checks that the readers give the same table on random files.
  Number formats are checked with one regular expression over a column's
  distinct cells, not one call per cell.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import json
import math
import re
import zlib

import numpy as np
import pandas as pd

from dpcore.validation import check_int

__all__ = [
    "DatasetError",
    "MAX_UPLOAD_BYTES",
    "MAX_DECOMPRESSED_BYTES",
    "uncompressed_head",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MAX_CELLS",
    "NA_SPELLINGS",
    "NA_LONGEST",
    "SNIFF_CHARS",
    "PARQUET_MAGIC",
    "PLAIN",
    "THOUSANDS",
    "DECIMAL_COMMA",
    "OverLimit",
    "clean_names",
    "path_dialect",
    "read_csv",
    "read_path",
]

_MIB = 1024 * 1024
#: Largest upload accepted, in bytes: 25 MiB = 26,214,400 bytes, what Streamlit's file uploader lets through
#: (``server.maxUploadSize = 25`` in ``.streamlit/config.toml``, an integer number of MiB; a test checks they agree).
MAX_UPLOAD_BYTES = 25 * _MIB
#: Largest content of a gzip-compressed upload, in bytes (four times the upload limit; the row and cell limits still
#: apply, so this bounds only the text held while it is split).
MAX_DECOMPRESSED_BYTES = 4 * MAX_UPLOAD_BYTES
#: Columns kept from a wider file (the first ones; a note says so).
MAX_COLUMNS = 1_000
#: Data rows accepted.
MAX_ROWS = 1_000_000
#: Cells (rows x kept columns, short rows padded) accepted.
MAX_CELLS = 10_000_000
#: Cell spellings read as missing, compared after stripping and lower-casing.
NA_SPELLINGS = frozenset({"", "?", "na", "n/a", "#n/a", "nan", "<na>", "null", "none", "-", "--"})
#: The longest of :data:`NA_SPELLINGS` (a longer cell is never missing: dpx_publish.source skips the lookup for it).
NA_LONGEST = max(map(len, NA_SPELLINGS))

_DELIMITERS = (",", ";", "\t", "|")
#: Plain tables of at least this many characters are split by DuckDB, smaller ones by pandas' C parser (DuckDB takes
#: 0.5 s to import and is no faster on a few megabytes: benchmarks/results/data.md).
_DUCKDB_PLAIN_CHARS = 8 * 1024 * 1024
#: Characters of a file's start read to find its dialect (delimiter, quoting, header).
SNIFF_CHARS = 65_536
_SNIFF_RECORDS = 50
_MAX_LISTED = 5  # column names listed in a note before "and N more"

_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)
_ZIP, _GZIP = b"PK\x03\x04", b"\x1f\x8b"
#: The bytes a Parquet file starts and ends with.
PARQUET_MAGIC = b"PAR1"
_NO_EXCEL = (
    "The file is a ZIP archive or an Excel workbook (.xlsx), and this server cannot read Excel files "
    "(openpyxl is not installed); save it as CSV and upload that."
)
_BAD_EXCEL = (
    "The file is a ZIP archive or an Excel workbook (.xlsx) that could not be read; save it as CSV and upload that."
)
_MAGIC = (
    (b"\xd0\xcf\x11\xe0", "The file is an old Excel workbook (.xls), not a CSV file; save it as CSV and upload that."),
    (b"%PDF", "The file is a PDF document, not a CSV file."),
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SEP_LINE = re.compile(r'\A"?sep=(.)"?[ \t]*(?:\r\n|\r|\n|\Z)', re.IGNORECASE)

# Number spellings, ASCII digits only (re.ASCII keeps Arabic-Indic digits etc. as text).
#: A plain number (``-1.5e3``, ``.5``, ``inf``).
PLAIN = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?inf(?:inity)?", re.ASCII | re.IGNORECASE
)
#: A number with comma thousands separators (``1,234.5``).
THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?", re.ASCII)
#: A number with a decimal comma, optionally grouped by dots or spaces (``1.234,5``).
DECIMAL_COMMA = re.compile(r"[+-]?(?:[0-9]{1,3}(?:[. \u00a0\u202f][0-9]{3})+|[0-9]+)(?:,[0-9]+)?", re.ASCII)
_LEADING_ZERO = re.compile(r"^[+-]?0[0-9]", re.ASCII | re.MULTILINE)
_EU_GROUPING = str.maketrans({".": None, " ": None, "\u00a0": None, "\u202f": None, ",": "."})


def _every_line(*patterns: re.Pattern) -> re.Pattern:
    """A pattern that fully matches newline-joined cells when each cell fully matches one of ``patterns``.

    Each alternative must end at the end of its line (the lookahead), so the atomic group that commits to
    the first match found loses no match: no pattern here can match a newline. The atomic groups keep the
    regular-expression engine from stacking a backtracking point per cell.
    """
    one = "|".join(rf"(?{'i' if p.flags & re.IGNORECASE else ''}:{p.pattern})(?=\n|\Z)" for p in patterns)
    return re.compile(rf"(?>{one})(?:\n(?>{one}))*+", re.ASCII)


_ALL_PLAIN = _every_line(PLAIN)
_ALL_THOUSANDS = _every_line(THOUSANDS, PLAIN)
_ALL_DECIMAL_COMMA = _every_line(DECIMAL_COMMA)


class DatasetError(ValueError):
    """A file or column that cannot be used; the message is one sentence for the user."""


class OverLimit(DatasetError):
    """An upload over the row, cell or decompressed-size limits (a file opened by path is then read by DuckDB)."""


#: A column as its codes (one per cell, an index into the uniques) and its distinct cells in order of appearance.
_Factorized = tuple[np.ndarray, list]


def read_csv(raw: bytes, *, max_bytes: int = MAX_UPLOAD_BYTES) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Read the bytes of a CSV file into a clean frame and the notes of what was done.

    Parameters
    ----------
    raw : bytes
        File contents (``bytes``, ``bytearray`` or ``memoryview``).
    max_bytes : int
        Size limit in bytes, must be in [1, inf); default :data:`MAX_UPLOAD_BYTES`.

    Returns
    -------
    frame : pandas.DataFrame
        Unique string column names, numeric columns as ``int64``/``float64``
        with finite values or NaN, other columns as strings with NaN missing.
    notes : tuple of str
        One sentence for everything done beyond plain reading (the module
        docstring lists the rules).

    Raises
    ------
    DatasetError
        When the file cannot be used, with one sentence saying why (too large,
        empty, binary, no data rows, no columns). No other exception escapes
        for any content of ``raw``.
    TypeError
        When ``raw`` is not bytes-like (a programming error, not a bad file).
    """
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        raise TypeError(f"raw must be bytes, got {type(raw).__name__}")
    max_bytes = check_int(max_bytes, "max_bytes", minimum=1)
    raw = bytes(raw)
    _check_size(len(raw), max_bytes, "The file is")
    if not raw.strip():
        raise DatasetError("The file is empty.")

    notes: list[str] = []
    if raw.startswith(_GZIP):
        raw = _gunzip(raw)
        notes.append("The file was gzip-compressed; the file inside was read.")
        if raw.startswith(_GZIP):
            raise DatasetError("The file is compressed twice with gzip; upload it compressed once.")
        if not raw.strip():
            raise DatasetError("The file is empty.")
    if raw.startswith(PARQUET_MAGIC) and raw.endswith(PARQUET_MAGIC):
        header, columns, n_rows = _read_typed("parquet", raw, notes)
        return _finish(header, columns, n_rows, ",", notes)
    if raw.startswith(_ZIP):
        header, columns, n_rows = _read_excel(raw, notes)
        return _finish(header, columns, n_rows, ",", notes)
    text = _decode(raw, notes)
    text = text.lstrip("\ufeff").rstrip("\x1a")  # stray marks: a second BOM, a DOS end-of-file byte
    if not text.strip():
        raise DatasetError("The file is empty.")
    if text.lstrip()[:1] in ("[", "{") and _is_json(text):
        header, columns, n_rows = _read_typed("json", text.encode("utf-8"), notes)
        return _finish(header, columns, n_rows, ",", notes)

    sep_line = _SEP_LINE.match(text)
    if sep_line and (sep_line.group(1).isprintable() or sep_line.group(1) == "\t") and sep_line.group(1) != '"':
        delimiter = sep_line.group(1)
        text = text[sep_line.end() :]
    else:
        delimiter = _sniff_delimiter(text)

    plain = _read_plain(text, delimiter)
    if plain is None:
        plain = _read_quoted(text, delimiter)
    if plain is not None:  # the same table the careful reader below would give, split by DuckDB
        first = [uniques[codes[0]] for codes, uniques in plain]
        if _header_is_data(first, len(plain[0][0]), notes):
            header, columns = [f"column_{i + 1}" for i in range(len(first))], plain
        else:
            header, columns = first, [_without_first(codes, uniques) for codes, uniques in plain]
        n_rows = len(columns[0][0])
    else:
        rows = _parse(text, delimiter, notes)
        if not rows:
            raise DatasetError("The file is empty.")
        header, body = _split_header(rows, notes)
        header, body = _fix_ragged(header, body, notes) if body else (header, body)
        columns, n_rows = (np.array(cells, dtype=object) for cells in zip(*body)), len(body)
    if not n_rows:
        raise DatasetError("The file has a header row but no data rows.")

    return _finish(header, columns, n_rows, delimiter, notes)


def uncompressed_head(path, head: bytes) -> tuple[bytes, str]:
    """The first bytes of the file at ``path`` as its reader sees them, and its compression (``"gzip"`` or
    ``"none"``): ``head``, its first bytes, unless they open a gzip stream, whose first decompressed bytes are read.

    Raises
    ------
    DatasetError
        A gzip stream that cannot be decompressed, in one sentence.
    """
    if not head.startswith(_GZIP):
        return head, "none"
    import gzip

    try:
        with gzip.open(path, "rb") as file:
            return file.read(SNIFF_CHARS), "gzip"
    except (OSError, EOFError, zlib.error):
        raise DatasetError("The file is gzip-compressed but could not be decompressed (it is damaged).") from None


def read_path(path, *, sample_rows: int, seed: int) -> tuple[pd.DataFrame, tuple[str, ...], int]:
    """Read a file on this machine by its path (a local install's data folder), with no upload size limit.

    A file of at most :data:`MAX_UPLOAD_BYTES` that is not Parquet is read exactly as an upload of the same bytes
    (unless it is over an upload's row, cell or decompressed-size limits).
    A larger file, or any Parquet file, is read by DuckDB where it lies (CSV in its pinned dialect: the delimiter
    sniffed as for an upload, ``"`` doubled inside quotes, the first row the header, short rows padded; gzip by its
    content; UTF-8 only: another encoding is refused in one sentence), streaming, so memory follows the rows kept, not the file:
    when the table has more than ``sample_rows`` rows (or more than :data:`MAX_CELLS` cells), a seeded sample of that
    many is kept (DuckDB's reservoir sample, in the file's order), and its cells go through every cell rule above.

    Parameters
    ----------
    path : str or os.PathLike
        The file (the caller has checked that it lies in the data folder).
    sample_rows : int
        Most rows kept, must be in [1, inf).
    seed : int
        Seed of the sample, must be in [0, 2**31).

    Returns
    -------
    frame, notes
        As :func:`read_csv`.
    total_rows : int
        Rows in the file (``len(frame)`` when nothing was left out).
    """
    import os

    sample_rows = check_int(sample_rows, "sample_rows", minimum=1)
    seed = check_int(seed, "seed", minimum=0, maximum=2**31 - 1)
    path = os.fspath(path)
    with open(path, "rb") as file:
        head = file.read(SNIFF_CHARS)
        size = file.seek(0, os.SEEK_END)
    if not head.strip():
        raise DatasetError("The file is empty.")
    parquet = head.startswith(PARQUET_MAGIC)
    if size <= MAX_UPLOAD_BYTES and not parquet:
        with open(path, "rb") as file:
            raw = file.read()
        try:
            frame, notes = read_csv(raw)
            return frame, notes, len(frame)
        except OverLimit:  # more rows or cells than an upload may have: DuckDB reads it below
            del raw
    notes: list[str] = []
    head, compression = uncompressed_head(path, head)
    if compression == "gzip":
        notes.append("The file was gzip-compressed; the file inside was read.")
    if parquet:
        kind, dialect = "parquet", None
    elif head.lstrip()[:1] in (b"[", b"{"):
        kind, dialect = "json", None
    else:
        kind, dialect = "csv", path_dialect(head, compression)
    header, columns, n_rows, total = _typed_table(kind, path, notes, sample=(sample_rows, seed), dialect=dialect)
    frame, notes_out = _finish(header, columns, n_rows, (dialect or {}).get("delimiter", ","), notes)
    return frame, notes_out, total


def path_dialect(head: bytes, compression: str) -> dict:
    """DuckDB's ``read_csv`` options for a large CSV file whose first bytes (decompressed) are ``head``."""
    try:
        text = head[: max(len(head) - 4, 1)].decode("utf-8-sig")  # a character cut at the end is not an error
    except UnicodeDecodeError:  # DuckDB reads UTF-8 only
        raise DatasetError(
            "The file is larger than an upload and not UTF-8 text; save it as UTF-8 CSV or as Parquet to open it."
        ) from None
    if "\x00" in text:
        raise DatasetError("The file does not look like text (it contains binary data); upload a CSV file.")
    return {
        "header": True,
        "all_varchar": True,
        "delimiter": _sniff_delimiter(text),
        "quotechar": '"',
        "escapechar": '"',
        "null_padding": True,
        "compression": compression,
    }


def _finish(header, columns, n_rows: int, delimiter: str, notes: list[str]) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Names cleaned, cells cleaned and typed, the frame assembled (or refused when nothing is left)."""
    names = clean_names(header, notes)
    frame = _build_frame(names, columns, n_rows, delimiter, notes)
    if frame.shape[1] == 0:
        raise DatasetError("The file has no columns with a name or a value.")
    return frame, tuple(notes)


def _check_size(size: int, limit: int, what: str) -> None:
    """Refuse ``size`` bytes over ``limit`` in one sentence starting with ``what``."""
    if size <= limit:
        return
    if limit < _MIB:
        raise DatasetError(f"{what} {size:,} bytes; the limit is {limit:,} bytes.")
    rounded = math.ceil(size / _MIB * 10) / 10  # round up so it never reads as equal to the limit
    raise DatasetError(f"{what} {rounded:.1f} MiB; the limit is {limit / _MIB:g} MiB.")


def _gunzip(raw: bytes) -> bytes:
    """The content of a gzip stream, at most :data:`MAX_DECOMPRESSED_BYTES` (a gzip bomb is refused, never inflated)."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        content = inflater.decompress(raw, MAX_DECOMPRESSED_BYTES + 1)
    except zlib.error:
        raise DatasetError("The file is gzip-compressed but could not be decompressed (it is damaged).") from None
    limit = MAX_DECOMPRESSED_BYTES / _MIB
    if len(content) > MAX_DECOMPRESSED_BYTES:
        raise OverLimit(f"The file is gzip-compressed and holds more than {limit:g} MiB; the limit is {limit:g} MiB.")
    if not inflater.eof:
        raise DatasetError("The file is gzip-compressed but ends before its content does (it is truncated).")
    return content


def _without_first(codes: np.ndarray, uniques: list) -> _Factorized:
    """A factorized column without its first cell (the header), and without that cell's value if no other cell has
    it (a first cell is the first distinct value: code 0)."""
    rest = codes[1:]
    if (rest == 0).any():
        return rest, uniques
    return rest - 1, uniques[1:]


def _read_quoted(text: str, delimiter: str) -> list[_Factorized] | None:
    """Every column, header row included, split by DuckDB when the table has quoted fields; None when the careful
    reader must decide.

    For a table with quoted fields (line breaks or delimiters inside quotes) that is otherwise regular: DuckDB's
    parser with the dialect pinned (:func:`_split_by_duckdb`), as many columns as the first record. DuckDB's sniffer
    is not asked: it skips leading rows of a file it finds irregular (it read ``a,b`` / ``1,2,3`` as the one row
    ``1,2,3``), and a table that silently loses rows is worse than a slow one. None for what the careful reader
    treats specially: a row of a different width, a quote never closed or mid-field (DuckDB refuses those), an empty
    row, a cell over the :mod:`csv` field limit, a file over the limits.
    """
    if '"' not in text or "\x00" in text:
        return None
    try:
        reader = csv.reader(io.StringIO(text[:SNIFF_CHARS], newline=""), delimiter=delimiter, skipinitialspace=True)
        first = next((r for r in reader if "".join(r).strip()), None)
    except csv.Error:
        return None
    if not first or len(first) > MAX_COLUMNS:
        return None
    return _split_by_duckdb(text, delimiter, len(first))


def _split_by_duckdb(text: str, delimiter: str, width: int) -> list[_Factorized] | None:
    """``text`` split by DuckDB's CSV parser into ``width`` columns of text, each factorized; None when it cannot be.

    The dialect is pinned: the delimiter, ``"`` doubled inside quotes, no header (the first record is row 0), exactly
    ``width`` fields in every record (strict: a quote never closed, a quote mid-field, a shorter or longer row make
    DuckDB refuse). The cells come back as Arrow strings and are dictionary-encoded in Arrow, so a Python string is
    made once per distinct cell of a column, never per cell. None (the careful reader decides) also for a file over
    the row or cell limits, a record whose cells are all blank, or a cell over the :mod:`csv` field limit.
    """
    import pyarrow.compute as pc

    from explorer.engine.duckdb_engine import connect  # DuckDB loads (0.5 s) only for a file that needs it

    names = [f"c{i}" for i in range(width)]
    con = connect()
    try:
        relation = con.read_csv(
            io.BytesIO(text.encode("utf-8")),
            header=False,
            auto_detect=False,
            columns=dict.fromkeys(names, "VARCHAR"),
            delimiter=delimiter,
            quotechar='"',
            escapechar='"',
            strict_mode=True,
            skiprows=0,
        )
        table = relation.to_arrow_table()
    except Exception:  # noqa: BLE001 - DuckDB's parser refuses in many ways; the careful reader decides then
        return None
    finally:
        con.close()
    records = table.num_rows
    if not records or records > MAX_ROWS + 1 or width * (records - 1) > MAX_CELLS:
        return None
    columns: list[_Factorized] = []
    blank = np.ones(records, dtype=bool)  # records whose every cell is blank: the careful reader skips them
    limit = csv.field_size_limit()
    for chunked in table.columns:
        encoded = pc.dictionary_encode(chunked).combine_chunks()
        dictionary = encoded.dictionary
        if len(dictionary) and pc.max(pc.utf8_length(dictionary)).as_py() > limit:
            return None
        # blank cells found in Arrow, not one Python strip per distinct cell (0.3 s of the largest upload's read)
        is_blank = pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(dictionary)), 0).to_numpy(zero_copy_only=False)
        uniques = dictionary.to_pylist()
        codes = pc.fill_null(encoded.indices, len(uniques)).to_numpy(zero_copy_only=False).astype(np.intp)
        if encoded.indices.null_count:
            uniques.append("")
            is_blank = np.append(is_blank, True)
        blank &= is_blank[codes]
        columns.append((codes, uniques))
    if blank.any():
        return None
    return columns


def _is_json(text: str) -> bool:
    """Whether ``text`` is JSON: one document, or one object per line (only the first line is parsed for those)."""
    try:
        json.loads(text)
        return True
    except (ValueError, RecursionError):
        pass
    try:
        return isinstance(json.loads(text.lstrip().split("\n", 1)[0]), dict)
    except (ValueError, RecursionError):
        return False


def _quoted(name: str) -> str:
    """A SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _read_typed(kind: str, data: bytes, notes: list[str]) -> tuple[list[str], list[np.ndarray], int]:
    """A Parquet or JSON file read by DuckDB: its names and its columns as text, cleaned later like CSV cells.

    JSON: an array of records or one record per line (keys missing from a record are missing values), or one object
    of equally long columns. Nested values and binary columns are refused.
    """
    names, columns, records, _ = _typed_table(kind, io.BytesIO(data), notes)
    return names, columns, records


def _typed_table(kind: str, source, notes: list[str], *, sample: tuple[int, int] | None = None, dialect=None):
    """:func:`_read_typed` of ``source`` (a file-like object or a path; a path may also be a CSV file, read in
    ``dialect``: a dict of DuckDB's ``read_csv`` options), and, with ``sample = (rows, seed)``, a seeded sample of
    at most that many rows when the table has more (:func:`read_path`). Returns the names, the columns, the rows
    read and the rows in the table."""
    from explorer.engine.duckdb_engine import connect  # DuckDB loads (0.5 s) only for a file that needs it

    label = {"parquet": "Parquet", "json": "JSON"}.get(kind, "CSV")
    con = connect()
    try:
        try:
            if kind == "parquet":
                relation = con.read_parquet(source)
            elif kind == "json":
                relation = con.read_json(source, sample_size=-1, maximum_object_size=MAX_DECOMPRESSED_BYTES)
            else:
                relation = con.read_csv(source, **dialect)
            relation.create_view("typed")
            names, types = list(relation.columns), [str(t) for t in relation.types]
            records = con.execute("SELECT count(*) FROM typed").fetchone()[0]
        except Exception:  # noqa: BLE001 - a damaged or unusual file: one sentence, whatever DuckDB said
            raise DatasetError(f"The file looks like {label} but could not be read as a table.") from None
        if kind == "json" and names == ["json"]:
            raise DatasetError("The JSON file is a list of values, not a table of records or columns.")
        source = "typed"
        if kind == "json" and records == 1 and all(t.endswith("[]") for t in types):  # one object of columns
            lengths = con.execute(f"SELECT {', '.join(f'len({_quoted(n)})' for n in names)} FROM typed").fetchone()
            if len(set(lengths)) != 1:
                raise DatasetError("The JSON file's columns have different lengths, so they are not one table.")
            unnested = ", ".join(f"unnest({_quoted(n)}) AS {_quoted(n)}" for n in names)
            con.execute(f"CREATE TEMP VIEW unnested AS SELECT {unnested} FROM typed")
            source, records, types = "unnested", lengths[0], [t[:-2] for t in types]
        mixed = [n for n, t in zip(names, types) if t == "JSON"]  # values of several JSON types
        if mixed:  # nested only if one of them is an object or an array
            deep = con.execute(
                "SELECT "
                + ", ".join(f"bool_or(json_type({_quoted(n)}) IN ('OBJECT', 'ARRAY'))" for n in mixed)
                + f" FROM {source}"
            ).fetchone()
            flat = {n for n, d in zip(mixed, deep) if not d}
            mixed = [n for n in mixed if n in flat]
            types = ["TEXT" if n in flat else t for n, t in zip(names, types)]
        nested = [
            n for n, t in zip(names, types) if t.endswith("]") or t.startswith(("STRUCT", "MAP", "UNION", "JSON"))
        ]
        binary = [n for n, t in zip(names, types) if t in ("BLOB", "BIT")]
        if nested or binary:
            what = "nested values" if nested else "binary values"
            raise DatasetError(f"The {label} file holds {what} in {_listing(nested or binary)}; upload a flat table.")
        if not records:
            raise DatasetError("The file has column names but no data rows.")
        if len(names) > MAX_COLUMNS:
            notes.append(f"The file has {len(names):,} columns; only the first {MAX_COLUMNS:,} were kept.")
            names = names[:MAX_COLUMNS]
        total = records
        if sample is not None:  # at most the rows asked for, and at most MAX_CELLS cells
            rows = min(sample[0], MAX_ROWS, MAX_CELLS // len(names))
            if records > rows:
                source, records = _sampled(con, source, rows, sample[1]), rows
        if records > MAX_ROWS:
            raise OverLimit(f"The file has more than {MAX_ROWS:,} rows; the limit is {MAX_ROWS:,}.")
        if len(names) * records > MAX_CELLS:
            raise OverLimit(
                f"The table has {records:,} rows and {len(names):,} columns; "
                f"the limit is {MAX_CELLS // 1_000_000} million cells."
            )
        cells = ", ".join(
            f"coalesce(json_extract_string({_quoted(n)}, '$'), '')"
            if n in mixed
            else f"coalesce(CAST({_quoted(n)} AS VARCHAR), '')"
            for n in names
        )
        found = con.execute(f"SELECT {cells} FROM {source}").fetchnumpy()
        columns = [np.asarray(column, dtype=object) for column in found.values()]
    finally:
        con.close()
    if kind != "csv":
        notes.append(f"The file was read as {label}; its values were cleaned by the same rules as a CSV file's cells.")
    return names, columns, records, total


def _sampled(con, source: str, rows: int, seed: int) -> str:
    """A view of a seeded sample of ``rows`` rows of the view ``source``, in the file's order: DuckDB's reservoir
    sample (every set of ``rows`` rows equally likely) on one thread, so the same seed draws the same rows."""
    con.execute("SET threads = 1")  # REPEATABLE draws the same sample only on one thread
    con.execute(
        "CREATE TEMP VIEW sampled AS SELECT * EXCLUDE (_dpx_row) FROM ("
        f"SELECT * FROM (SELECT *, row_number() OVER () AS _dpx_row FROM {source}) "
        f"USING SAMPLE reservoir({int(rows)} ROWS) REPEATABLE ({int(seed)})) ORDER BY _dpx_row"
    )
    return "sampled"


def _read_excel(raw: bytes, notes: list[str]) -> tuple[list[str], list[np.ndarray], int]:
    """The first sheet of an Excel workbook when openpyxl is installed (one sentence otherwise)."""
    try:
        import openpyxl  # noqa: F401 - optional: only its presence is asked here, pandas reads with it
    except ImportError:
        raise DatasetError(_NO_EXCEL) from None
    try:
        sheet = pd.read_excel(io.BytesIO(raw), sheet_name=0, header=None, dtype=object, engine="openpyxl")
    except Exception:  # noqa: BLE001 - a damaged workbook or another ZIP archive
        raise DatasetError(_BAD_EXCEL) from None
    rows = [["" if pd.isna(v) else str(v) for v in row] for row in sheet.itertuples(index=False)]
    rows = [r for r in rows if "".join(r).strip()]
    if not rows:
        raise DatasetError("The file is empty.")
    if len(rows) > MAX_ROWS + 1:
        raise OverLimit(f"The file has more than {MAX_ROWS:,} rows; the limit is {MAX_ROWS:,}.")
    notes.append("The file was read as an Excel workbook (its first sheet).")
    header, body = _split_header(rows, notes)
    header, body = _fix_ragged(header, body, notes) if body else (header, body)
    if not body:
        raise DatasetError("The file has a header row but no data rows.")
    return header, [np.array(cells, dtype=object) for cells in zip(*body)], len(body)


def _decode(raw: bytes, notes: list[str]) -> str:
    """Decode ``raw`` as described in the module docstring, refusing binary data."""
    for magic, sentence in _MAGIC:
        if raw.startswith(magic):
            raise DatasetError(sentence)
    text = None
    for bom, codec, label in _BOMS:
        if raw.startswith(bom):
            try:
                text = raw.decode(codec)
            except UnicodeDecodeError:
                if codec != "utf-8-sig":
                    sentence = f"The file starts with a {label} marker but is not valid {label} text."
                    raise DatasetError(sentence) from None
                text = _decode_8bit(raw[len(bom) :], notes)
            if label != "UTF-8":
                notes.append(f"The file was read as {label} text.")
            break
    if text is None:
        head = raw[:4096]
        even, odd = head[0::2].count(0), head[1::2].count(0)
        half = max(len(head) // 2, 1)
        # UTF-16 without a mark: ASCII text has a zero in every other byte.
        codec = (
            "utf-16-le"
            if odd > 0.4 * half and even < 0.05 * half
            else ("utf-16-be" if even > 0.4 * half and odd < 0.05 * half else None)
        )
        if codec is not None:
            try:
                text = raw.decode(codec)
                notes.append("The file was read as UTF-16 text.")
            except UnicodeDecodeError:
                text = None
        if text is None:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = _decode_8bit(raw, notes)
    sample = text[:SNIFF_CHARS]
    if "\x00" in text or len(_CONTROL.findall(sample)) > max(2, 0.01 * len(sample)):
        raise DatasetError("The file does not look like text (it contains binary data); upload a CSV file.")
    return text


def _decode_8bit(raw: bytes, notes: list[str]) -> str:
    """Windows-1252 if every byte is defined in it, else Latin-1 (which never fails)."""
    try:
        text = raw.decode("cp1252")
        notes.append("The file is not UTF-8; it was read as Windows-1252 (Western European) text.")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
        notes.append("The file is not UTF-8; it was read as Latin-1 (ISO-8859-1) text.")
    return text


def _sniff_delimiter(text: str) -> str:
    """The candidate delimiter giving the most consistent field count above one.

    When no candidate splits the rows into more than one field, the header
    decides: the candidate splitting the first record into the most fields.
    """
    sample = text[:SNIFF_CHARS]
    if len(text) > SNIFF_CHARS:  # do not judge a record cut in half
        cut = max(sample.rfind("\n"), sample.rfind("\r"))
        sample = sample[:cut] if cut > 0 else sample
    best, best_score = ",", (False, 0.0, 0)
    header_fields = {}
    for delimiter in _DELIMITERS:
        reader = csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter, skipinitialspace=True)
        try:
            counts = [len(r) for _, r in zip(range(_SNIFF_RECORDS), reader) if r]
        except csv.Error:
            continue
        if not counts:
            continue
        header_fields[delimiter] = counts[0]
        values, freq = np.unique(counts, return_counts=True)
        mode = int(values[np.argmax(freq)])
        score = (mode > 1, float(freq.max()) / len(counts), mode)
        if score > best_score:
            best, best_score = delimiter, score
    if not best_score[0] and header_fields and max(header_fields.values()) > 1:
        best = max(header_fields, key=header_fields.get)  # first of the ties, in _DELIMITERS order
    return best


def _parse(text: str, delimiter: str, notes: list[str]) -> list[list[str]]:
    """Split ``text`` into non-blank records; fall back gracefully on broken quoting."""

    def read(**options) -> list[list[str]]:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, skipinitialspace=True, **options)
        nonblank = (r for r in reader if "".join(r).strip())  # blank lines and all-empty rows carry nothing
        rows = list(itertools.islice(nonblank, MAX_ROWS + 2))  # header, MAX_ROWS rows and one too many
        if len(rows) > MAX_ROWS + 1:
            raise OverLimit(f"The file has more than {MAX_ROWS:,} rows; the limit is {MAX_ROWS:,}.")
        return rows

    try:
        return read(strict=True)
    except csv.Error as error:
        unclosed = "unexpected end of data" in str(error) or "field larger" in str(error)
    if not unclosed:  # e.g. "abc"def: read leniently, as spreadsheets do
        try:
            return read(strict=False)
        except csv.Error:
            pass
    try:
        rows = read(quoting=csv.QUOTE_NONE)
    except csv.Error as error:
        if "field larger" in str(error):
            raise DatasetError(
                f"A cell is longer than {csv.field_size_limit():,} characters, "
                "so the file is not a table this app can use."
            ) from None
        raise DatasetError("The file could not be split into rows and columns.") from None
    notes.append('A quote mark (") is never closed, so quote marks were read as ordinary characters.')
    return [[cell.strip().strip('"') for cell in row] for row in rows]


def _split_header(rows: list[list[str]], notes: list[str]) -> tuple[list[str], list[list[str]]]:
    """First row as header, unless it holds only numbers (then generated names)."""
    if _header_is_data(rows[0], len(rows), notes):
        width = max(len(r) for r in rows)
        return [f"column_{i + 1}" for i in range(width)], rows
    return rows[0], rows[1:]


def _header_is_data(first: list[str], records: int, notes: list[str]) -> bool:
    """Whether the first of ``records`` rows holds only numbers, and so is data (noted)."""
    if records > 1 and all(PLAIN.fullmatch(cell.strip()) for cell in first):
        notes.append(
            "The first row holds only numbers, so it was read as data "
            "and the columns were named column_1, column_2, ..."
        )
        return True
    return False


def _read_plain(text: str, delimiter: str) -> list[_Factorized] | None:
    """Every column, header row included, split by DuckDB when the file is a plain table; None otherwise.

    Plain: no quote mark, no blank row, every row as wide as the first (counted in the text, before DuckDB is asked),
    within the limits. Such a file splits the same under any reader, so DuckDB's parser reads it
    (:func:`_split_by_duckdb`, which also sends rows with nothing in them and overlong cells to the careful reader);
    anything else goes to the careful reader, :func:`_parse` and :func:`_fix_ragged`.
    """
    if '"' in text or "\x00" in text:  # quoting rules differ between readers
        return None
    body = text.replace("\r\n", "\n") if "\r" in text else text
    body = body[:-1] if body.endswith("\n") else body
    if not body or "\r" in body or body.startswith("\n") or "\n\n" in body:
        return None
    records = body.count("\n") + 1
    width = body.split("\n", 1)[0].count(delimiter) + 1
    if records > MAX_ROWS + 1 or width > MAX_COLUMNS or width * (records - 1) > MAX_CELLS:
        return None
    if body.count(delimiter) != (width - 1) * records:  # a longer row would make the parser fail below
        return None
    if len(body) < _DUCKDB_PLAIN_CHARS:
        return _split_by_pandas(body, delimiter, records, width)
    columns = _split_by_duckdb(body, delimiter, width)
    if columns is None or len(columns[0][0]) != records:
        return None
    return columns


def _split_by_pandas(body: str, delimiter: str, records: int, width: int) -> list[_Factorized] | None:
    """A plain table of fewer than :data:`_DUCKDB_PLAIN_CHARS` characters split by pandas' C parser, each column
    factorized; None (the careful reader decides) for a row with nothing in it or a cell over the :mod:`csv` limit."""
    if re.search(rf"^(?:[^\S\n]|{re.escape(delimiter)})*$", body, re.MULTILINE):  # a row with nothing in it
        return None
    if len(body) > csv.field_size_limit() and max(map(len, body.split("\n"))) > csv.field_size_limit():
        return None
    try:
        frame = pd.read_csv(
            io.StringIO(body),
            sep=delimiter,
            header=None,
            dtype=object,
            na_filter=False,
            skipinitialspace=True,
            quoting=csv.QUOTE_NONE,
            skip_blank_lines=False,
            engine="c",
        )
    except (ValueError, pd.errors.ParserError):  # never expected for a plain table; the careful reader decides
        return None
    if frame.shape != (records, width):
        return None
    columns = []
    for column in frame.columns:
        codes, uniques = pd.factorize(frame[column].to_numpy(dtype=object))
        columns.append((codes, list(uniques)))
    return columns


def _fix_ragged(header: list[str], body: list[list[str]], notes: list[str]) -> tuple[list[str], list[list[str]]]:
    """Pad short rows, trim empty extra fields, drop (or make room for) long rows, cap the width."""
    lengths = np.fromiter(map(len, body), dtype=np.int64, count=len(body))
    header = list(header)
    while len(header) > lengths.max() and not header[-1].strip():  # trailing delimiter on the header only
        header.pop()
    width = len(header)
    if np.all(lengths == width) and width <= MAX_COLUMNS and width * len(body) <= MAX_CELLS:
        return header, body
    body = list(body)
    for i in np.flatnonzero(lengths > width):  # trailing delimiters: empty extra fields
        row = body[i]
        if not "".join(row[width:]).strip():
            body[i] = row[:width]
            lengths[i] = width
    long_rows = lengths > width
    if long_rows.sum() * 2 > len(body):
        new_width = int(lengths.max())
        header = header + [""] * (new_width - width)
        notes.append(
            f"Most rows have more fields than the header, so {new_width - width:,} unnamed column(s) were added."
        )
        width = new_width
    elif long_rows.any():
        first = int(np.argmax(long_rows)) + 1
        notes.append(
            f"{int(long_rows.sum()):,} row(s) had more fields than the header and were dropped "
            f"(the first is data row {first:,})."
        )
        body = [row for row, bad in zip(body, long_rows) if not bad]
        lengths = lengths[~long_rows]
    if min(width, MAX_COLUMNS) * len(body) > MAX_CELLS:  # checked before padding allocates anything
        raise OverLimit(
            f"The table has {len(body):,} rows and {width:,} columns; the limit is "
            f"{MAX_CELLS // 1_000_000} million cells."
        )
    if width > MAX_COLUMNS:
        notes.append(f"The file has {width:,} columns; only the first {MAX_COLUMNS:,} were kept.")
        header, width = header[:MAX_COLUMNS], MAX_COLUMNS
        body = [row[:MAX_COLUMNS] if len(row) > MAX_COLUMNS else row for row in body]
        lengths = np.minimum(lengths, MAX_COLUMNS)
    short = lengths < width
    if short.any():
        notes.append(
            f"{int(short.sum()):,} row(s) had fewer fields than the header and were padded with missing values."
        )
        pad = [""] * width
        body = [row if len(row) == width else row + pad[len(row) :] for row in body]
    return header, body


def clean_names(header: list[str], notes: list[str]) -> list[str]:
    """Strip names, name empty ones ``Unnamed: N`` and make duplicates unique."""
    names = [h.strip() or f"Unnamed: {i}" for i, h in enumerate(header)]
    taken, seen = set(names), set()
    suffix: dict[str, int] = {}
    renamed = []
    for i, n in enumerate(names):
        if n in seen:
            k = suffix.get(n, 0) + 1
            while f"{n}.{k}" in taken:
                k += 1
            suffix[n] = k
            names[i] = f"{n}.{k}"
            taken.add(names[i])
            renamed.append(names[i])
        seen.add(names[i])
    if renamed:
        notes.append(f"Duplicate column names were made unique: {_listing(renamed)}.")
    return names


def _build_frame(names: list[str], cells_by_column, n_rows: int, delimiter: str, notes: list[str]) -> pd.DataFrame:
    """Clean every column (an object array of its cells), convert numeric ones and assemble the frame."""
    columns: dict[str, object] = {}
    dropped_unnamed, formats, infinite, coded = [], {}, {}, []
    for name, cells in zip(names, cells_by_column):
        codes, uniques = cells if isinstance(cells, tuple) else pd.factorize(cells)
        cleaned = list(map(str.strip, uniques))
        is_present = np.ones(len(cleaned), dtype=bool)
        short = np.flatnonzero(np.fromiter(map(len, cleaned), dtype=np.int64, count=len(cleaned)) <= NA_LONGEST)
        is_present[short] = [cleaned[i].lower() not in NA_SPELLINGS for i in short]  # only short cells can be NA
        present = list(itertools.compress(cleaned, is_present))
        if not present:
            if re.fullmatch(r"Unnamed: \d+(?:\.\d+)*", name):
                dropped_unnamed.append(name)
            else:
                columns[name] = pd.Series(np.full(len(codes), np.nan, dtype=object))
            continue
        joined = "\n".join(present)  # one regular-expression pass over all distinct cells, in C
        numbers, fmt = _parse_numbers(present, joined, delimiter)
        if numbers is not None and _LEADING_ZERO.search(joined):
            coded.append(name)
            numbers = None
        if numbers is None:
            lookup = np.array(cleaned, dtype=object)
            lookup[~is_present] = np.nan
            columns[name] = _text_column(lookup, codes)
            continue
        lookup = np.full(len(cleaned), np.nan)
        lookup[is_present] = numbers
        values = lookup[codes]
        n_inf = int(np.isinf(values).sum())
        if n_inf:
            infinite[name] = n_inf
            values[np.isinf(values)] = np.nan
        if fmt:
            formats.setdefault(fmt, []).append(name)
        if (
            not np.isnan(values).any()
            and np.all(values == np.round(values))
            and np.abs(values).max(initial=0.0) <= 2.0**53
        ):
            columns[name] = pd.Series(values.astype(np.int64))
        else:
            columns[name] = pd.Series(values)
    if dropped_unnamed:
        notes.append(f"{len(dropped_unnamed)} empty unnamed column(s) were dropped.")
    if "decimal comma" in formats:
        notes.append(f"Numbers with a decimal comma were read in {_listing(formats['decimal comma'])}.")
    if "thousands" in formats:
        notes.append(f"Thousands separators were removed from numbers in {_listing(formats['thousands'])}.")
    if infinite:
        notes.append(
            f"{sum(infinite.values()):,} infinite value(s) were treated as missing, in {_listing(list(infinite))}."
        )
    if coded:
        notes.append(f"Numbers with leading zeros were kept as text codes in {_listing(coded)}.")
    return pd.DataFrame(columns, index=pd.RangeIndex(n_rows)) if columns else pd.DataFrame()


def _text_column(lookup: np.ndarray, codes: np.ndarray):
    """The text column whose cells are ``lookup[codes]`` (NaN missing), in pandas' string dtype for text."""
    dtype = pd.Series(["a", np.nan]).dtype  # pandas' default for text (an option can change it): read each time
    if getattr(dtype, "storage", None) == "pyarrow":  # taken in Arrow: a third of the time of pandas' take
        import pyarrow as pa

        taken = pa.array(lookup, from_pandas=True, type=pa.large_string()).take(pa.array(codes))
        return pd.array(taken, dtype=dtype)
    return pd.Series(lookup).array.take(codes)


def _parse_numbers(present: list[str], joined: str, delimiter: str) -> tuple[np.ndarray | None, str]:
    """Floats for ``present`` (distinct non-missing cells, ``joined`` by newlines) if all are numbers in one format."""
    formats = [
        ("", _ALL_PLAIN, None),
        ("thousands", _ALL_THOUSANDS, {ord(","): None}),
        ("decimal comma", _ALL_DECIMAL_COMMA, _EU_GROUPING),
    ]
    if joined.count("\n") != len(present) - 1:  # a cell with a line break in it is no number
        return None, ""
    if delimiter == ";" and "," in joined:
        formats = [formats[2], formats[1]]  # a ';' file with commas in numbers: European locale first
    for label, every_cell, table in formats:
        if every_cell.fullmatch(joined):
            texts = [p.translate(table) for p in present] if table else present
            return _floats(texts), label
    return None, ""


def _floats(texts: list[str]) -> np.ndarray:
    """``float(text)`` of each of ``texts`` (cells the number patterns matched): by Arrow's cast (correctly rounded,
    as Python's ``float``; 2.6 times numpy's conversion of Python strings on 2·10⁶ cells), by numpy if Arrow
    refuses a spelling."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(pa.array(texts, type=pa.string()), pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return np.array(texts, dtype=object).astype(np.float64)  # float(text), cell by cell, in C


def _listing(names: list[str]) -> str:
    """``'a', 'b' and 3 more`` for notes."""
    shown = ", ".join(f"'{n}'" for n in names[:_MAX_LISTED])
    more = len(names) - _MAX_LISTED
    return f"{shown} and {more} more" if more > 0 else shown
