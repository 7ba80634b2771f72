"""Tabular data for the explorer: CSV upload parsing, column profiles and demo datasets.

Everything a page needs to turn an uploaded file into inputs for a mechanism:

* :func:`load_csv` reads the bytes of an upload into a :class:`Dataset`, or
  refuses it with a :class:`DatasetError` whose message is one plain sentence
  for the user. It never evaluates anything from the file.
* :func:`profile` describes every column (kind, missing, distinct, range, top
  values, which mechanisms it fits); :func:`categorical_columns` and
  :func:`numeric_columns` feed the column pickers.
* :func:`encode_categories`, :func:`numeric_values` and :func:`suggest_bounds`
  turn one column into the arrays the local-model frequency oracles and the
  central-model sums and means take.
* :func:`to_safe_csv` writes a frame for download with spreadsheet formula
  injection neutralised.
* :func:`load_demo` reads the synthetic demo tables in the repository's
  ``data/`` folder (made by ``data/make_datasets.py``).

Loading decisions (documented here once, reported per file in
:attr:`Dataset.notes`):

* Size: files over :data:`MAX_UPLOAD_BYTES` (25 MB), with more than
  :data:`MAX_ROWS` data rows or more than :data:`MAX_CELLS` cells are refused
  (the last two bound memory: a 25 MB file of one-byte rows would otherwise
  take gigabytes as Python lists).
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
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dpcore.validation import check_int, check_probability

__all__ = [
    "DatasetError",
    "Dataset",
    "MAX_UPLOAD_BYTES",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MAX_CELLS",
    "MAX_CATEGORIES_FOR_ORACLES",
    "NA_SPELLINGS",
    "DEMO_DATASETS",
    "load_csv",
    "load_demo",
    "profile",
    "categorical_columns",
    "numeric_columns",
    "encode_categories",
    "numeric_values",
    "suggest_bounds",
    "to_safe_csv",
]

#: Largest upload accepted, in bytes (25 MB, with 1 MB = 1,000,000 bytes).
MAX_UPLOAD_BYTES = 25_000_000
#: Columns kept from a wider file (the first ones; a note says so).
MAX_COLUMNS = 1_000
#: Data rows accepted.
MAX_ROWS = 1_000_000
#: Cells (rows x kept columns, short rows padded) accepted.
MAX_CELLS = 10_000_000
#: Categories a frequency oracle is offered; more are top-k'd with an "(other)" bucket.
MAX_CATEGORIES_FOR_ORACLES = 50
#: Cell spellings read as missing, compared after stripping and lower-casing.
NA_SPELLINGS = frozenset({"", "?", "na", "n/a", "#n/a", "nan", "<na>", "null", "none", "-", "--"})

OTHER_LABEL = "(other)"
MISSING_LABEL = "(missing)"

_DATA_DIR = Path(__file__).resolve().parent.parent / "data"

#: Demo datasets shipped in ``data/``: name -> (file name, one-line description).
DEMO_DATASETS = {
    "census": ("census.csv", "Census-like table, 32,561 synthetic people shaped on the 1994 US census extract"),
    "survey": ("survey.csv", "Student survey, 2,000 synthetic respondents with a sensitive yes/no question"),
}

_DELIMITERS = (",", ";", "\t", "|")
_SNIFF_CHARS = 65_536
_SNIFF_RECORDS = 50
_MAX_LISTED = 5  # column names listed in a note before "and N more"

_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)
_MAGIC = (
    (
        b"PK\x03\x04",
        "The file is a ZIP archive or an Excel workbook (.xlsx), not a CSV file; save it as CSV and upload that.",
    ),
    (b"\xd0\xcf\x11\xe0", "The file is an old Excel workbook (.xls), not a CSV file; save it as CSV and upload that."),
    (b"\x1f\x8b", "The file is gzip-compressed; decompress it and upload the CSV file inside."),
    (b"%PDF", "The file is a PDF document, not a CSV file."),
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SEP_LINE = re.compile(r'\A"?sep=(.)"?[ \t]*(?:\r\n|\r|\n|\Z)', re.IGNORECASE)

# Number spellings, ASCII digits only (re.ASCII keeps Arabic-Indic digits etc. as text).
_PLAIN = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?inf(?:inity)?", re.ASCII | re.IGNORECASE
)
_THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?", re.ASCII)
_DECIMAL_COMMA = re.compile(r"[+-]?(?:[0-9]{1,3}(?:[. \u00a0\u202f][0-9]{3})+|[0-9]+)(?:,[0-9]+)?", re.ASCII)
_LEADING_ZERO = re.compile(r"[+-]?0[0-9]", re.ASCII)
_EU_GROUPING = str.maketrans({".": None, " ": None, "\u00a0": None, "\u202f": None, ",": "."})


class DatasetError(ValueError):
    """A file or column that cannot be used; the message is one sentence for the user."""


@dataclass(frozen=True, eq=False)
class Dataset:
    """A loaded table and what was done to it while loading.

    Frozen so that it can be kept in ``st.session_state`` and passed around
    without being rebound by accident; treat ``frame`` as read-only too.
    Equality is identity (``eq=False``): two DataFrames have no single truth
    value, and identity hashing keeps the object usable as a dict key.

    Attributes
    ----------
    name : str
        The file name (or demo name) shown to the user.
    frame : pandas.DataFrame
        Cleaned table: unique string column names, numeric columns as
        ``int64``/``float64`` with finite values or NaN, other columns as
        strings with missing values as NaN.
    notes : tuple of str
        One sentence per thing done while loading (rows dropped, columns
        renamed, encoding used, ...), for display under the upload.
    """

    name: str
    frame: pd.DataFrame
    notes: tuple[str, ...] = ()

    @property
    def n_rows(self) -> int:
        """Number of data rows."""
        return int(len(self.frame))

    def profile(self, max_categories: int = MAX_CATEGORIES_FOR_ORACLES) -> pd.DataFrame:
        """Column profile of :attr:`frame`; see :func:`profile`."""
        return profile(self.frame, max_categories=max_categories)


# --------------------------------------------------------------------------- loading


def load_csv(raw: bytes, name: str = "upload.csv", *, max_bytes: int = MAX_UPLOAD_BYTES) -> Dataset:
    """Read the bytes of a CSV upload into a :class:`Dataset`.

    Parameters
    ----------
    raw : bytes
        File contents (``bytes``, ``bytearray`` or ``memoryview``).
    name : str
        File name, kept as :attr:`Dataset.name`.
    max_bytes : int
        Size limit in bytes, must be in [1, inf); default :data:`MAX_UPLOAD_BYTES`.

    Returns
    -------
    Dataset
        The cleaned table, with a note for everything done beyond plain
        reading. The module docstring lists the loading rules.

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
    if len(raw) > max_bytes:
        size = math.ceil(len(raw) / 1e5) / 10  # round up so it never reads as equal to the limit
        raise DatasetError(f"The file is {size:.1f} MB; the limit is {max_bytes / 1e6:g} MB.")
    if not raw.strip():
        raise DatasetError("The file is empty.")

    notes: list[str] = []
    text = _decode(raw, notes)
    text = text.lstrip("\ufeff").rstrip("\x1a")  # stray marks: a second BOM, a DOS end-of-file byte
    if not text.strip():
        raise DatasetError("The file is empty.")

    sep_line = _SEP_LINE.match(text)
    if sep_line and (sep_line.group(1).isprintable() or sep_line.group(1) == "\t") and sep_line.group(1) != '"':
        delimiter = sep_line.group(1)
        text = text[sep_line.end() :]
    else:
        delimiter = _sniff_delimiter(text)

    rows = _parse(text, delimiter, notes)
    if not rows:
        raise DatasetError("The file is empty.")

    header, body = _split_header(rows, notes)
    if not body:
        raise DatasetError("The file has a header row but no data rows.")
    header, body = _fix_ragged(header, body, notes)

    names = _clean_names(header, notes)
    frame = _build_frame(names, body, delimiter, notes)
    if frame.shape[1] == 0:
        raise DatasetError("The file has no columns with a name or a value.")
    return Dataset(name=str(name), frame=frame, notes=tuple(notes))


def load_demo(name: str) -> Dataset:
    """Load a synthetic demo table from the repository's ``data/`` folder.

    Parameters
    ----------
    name : str
        One of the keys of :data:`DEMO_DATASETS` (``"census"``, ``"survey"``).

    Returns
    -------
    Dataset
        The table, with a first note saying that it is synthetic.
    """
    if name not in DEMO_DATASETS:
        raise ValueError(f"name must be one of {', '.join(map(repr, DEMO_DATASETS))}, got {name!r}")
    file_name, description = DEMO_DATASETS[name]
    dataset = load_csv((_DATA_DIR / file_name).read_bytes(), file_name)
    note = f"{description}. SYNTHETIC demo data made by data/make_datasets.py: no real person is in it."
    return Dataset(name=file_name, frame=dataset.frame, notes=(note, *dataset.notes))


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
    sample = text[:_SNIFF_CHARS]
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
    sample = text[:_SNIFF_CHARS]
    if len(text) > _SNIFF_CHARS:  # do not judge a record cut in half
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
            raise DatasetError(f"The file has more than {MAX_ROWS:,} rows; the limit is {MAX_ROWS:,}.")
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
    first = [cell.strip() for cell in rows[0]]
    if len(rows) > 1 and all(_PLAIN.fullmatch(cell) for cell in first):
        width = max(len(r) for r in rows)
        notes.append(
            "The first row holds only numbers, so it was read as data "
            "and the columns were named column_1, column_2, ..."
        )
        return [f"column_{i + 1}" for i in range(width)], rows
    return rows[0], rows[1:]


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
        raise DatasetError(
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


def _clean_names(header: list[str], notes: list[str]) -> list[str]:
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


def _build_frame(names: list[str], body: list[list[str]], delimiter: str, notes: list[str]) -> pd.DataFrame:
    """Clean every column, convert numeric ones and assemble the frame."""
    columns: dict[str, object] = {}
    dropped_unnamed, formats, infinite, coded = [], {}, {}, []
    for name, cells in zip(names, zip(*body)):
        codes, uniques = pd.factorize(np.array(cells, dtype=object))
        cleaned = [u.strip() for u in uniques]
        present = [c for c in cleaned if c.lower() not in NA_SPELLINGS]
        if not present:
            if re.fullmatch(r"Unnamed: \d+(?:\.\d+)*", name):
                dropped_unnamed.append(name)
            else:
                columns[name] = pd.Series(np.full(len(codes), np.nan, dtype=object))
            continue
        numbers, fmt = _parse_numbers(present, delimiter)
        if numbers is not None and any(_LEADING_ZERO.match(p) for p in present):
            coded.append(name)
            numbers = None
        if numbers is None:
            lookup = np.array([np.nan if c.lower() in NA_SPELLINGS else c for c in cleaned], dtype=object)
            # Let pandas pick its string dtype on the few uniques, then take: fast on 30k rows.
            columns[name] = pd.Series(pd.Series(lookup).array.take(codes))
            continue
        by_text = dict(zip(present, numbers))
        lookup = np.array([by_text.get(c, np.nan) for c in cleaned], dtype=np.float64)
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
    return pd.DataFrame(columns, index=pd.RangeIndex(len(body))) if columns else pd.DataFrame()


def _parse_numbers(present: list[str], delimiter: str) -> tuple[list[float] | None, str]:
    """Floats for ``present`` (distinct non-missing cells) if all are numbers in one format."""
    formats = [
        ("", _PLAIN, None),
        ("thousands", _THOUSANDS, {ord(","): None}),
        ("decimal comma", _DECIMAL_COMMA, _EU_GROUPING),
    ]
    if delimiter == ";" and any("," in p for p in present):
        formats = [formats[2], formats[1]]  # a ';' file with commas in numbers: European locale first
    for label, pattern, table in formats:
        if all(pattern.fullmatch(p) or (label == "thousands" and _PLAIN.fullmatch(p)) for p in present):
            return [float(p.translate(table) if table else p) for p in present], label
    return None, ""


def _listing(names: list[str]) -> str:
    """``'a', 'b' and 3 more`` for notes."""
    shown = ", ".join(f"'{n}'" for n in names[:_MAX_LISTED])
    more = len(names) - _MAX_LISTED
    return f"{shown} and {more} more" if more > 0 else shown


# --------------------------------------------------------------------------- profiles


def _summary(series: pd.Series, max_categories: int) -> dict:
    """Profile of one column; the single source of truth for kinds and fits."""
    n = len(series)
    if _is_numeric(series):
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
    counts = series.value_counts(dropna=True)
    counts = counts[counts > 0]  # a categorical dtype lists unused categories too
    present = int(counts.sum())
    distinct = int(counts.size)
    top = ", ".join(f"{label} ({count:,})" for label, count in counts.iloc[:3].items())
    note = ""
    if present == 0:
        kind = "empty"
    elif distinct > max_categories and counts.iloc[:max_categories].sum() < 0.5 * present:
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


def _is_numeric(series: pd.Series) -> bool:
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
        Columns ``column``, ``kind`` (``"numeric"``, ``"categorical"``,
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
        if _is_numeric(frame[name]) and np.isfinite(frame[name].to_numpy(dtype=np.float64, na_value=np.nan)).any()
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
    numeric = _is_numeric(series)
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
    if not _is_numeric(series):
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


# --------------------------------------------------------------------------- download


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
        if not _is_numeric(safe[name]):
            safe[name] = safe[name].astype(object).map(_neutralise, na_action="ignore")
    safe.columns = [_neutralise(str(name)) for name in safe.columns]
    return safe.to_csv(index=False, lineterminator="\n").encode("utf-8-sig")
