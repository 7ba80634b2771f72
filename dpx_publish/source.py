"""A data file opened by path for a publication: the plan's exact aggregates computed in DuckDB over every row.

:func:`open_file` opens a file as the app opens a file of its data folder (:func:`explorer.csv_reader.read_path`): a
file an upload could be (at most :data:`~explorer.csv_reader.MAX_UPLOAD_BYTES`, not Parquet, within an upload's row
and cell limits) is read by the app's careful reader into a table (:attr:`FileSource.frame`); any other file (CSV in
the pinned dialect, gzip CSV, Parquet, JSON) stays where it lies: DuckDB reads it, streaming, and writes the plan's
columns, cleaned and typed, to a temporary Parquet file in the system's temporary folder (removed once the aggregates
are computed, as DuckDB's own spill files are), which each aggregate then reads.
:meth:`FileSource.prepare` then computes, before anything is charged, every aggregate the plan needs
(:func:`explorer.engine.aggregates.plan_aggregates`, each person's rows bounded by a keyed hash with a fresh secret
seed, :func:`~explorer.engine.aggregates.secret_seed`, never shown and never from the user), and returns the draw
that :func:`dpx_publish.package.publish_package` runs inside the publication log's transaction
(:func:`dpcore.plan_release.publish_from_aggregates`: memory follows the number of labels, not of rows).

The same table as the app's
-------------------------
A plan is designed on the table the app shows (for a large file, its seeded sample), so the file is read here by the
same rules, in SQL, for the columns the plan reads: names as the app cleans them (:func:`explorer.csv_reader`'s
rules: stripped, empty ones ``Unnamed: N``, duplicates made unique, the first 1,000 columns); cells stripped of
surrounding whitespace, the spellings of :data:`~explorer.csv_reader.NA_SPELLINGS` missing; a column numeric when
every present cell is a number in one format (plain, thousands separators, or a decimal comma, tried in the app's
order), text when a present cell is not or a number has leading zeros (a code); infinities missing; a numeric column
with no missing value, only whole numbers and none beyond 2⁵³ an integer column. Parquet's and JSON's numbers are
numbers as they are (the app's reader casts them to text and back, to the same values). Whitespace is every
character :meth:`str.strip` strips. So the aggregates over the file equal those the engine computes on the app's
table of the same file, on one seed (``tests/test_dpx_publish_engine.py``, six file forms).

Measured (benchmarks/bench_publish_file.py): see benchmarks/results/publish_file.md.

A quantile needs the rows (the exponential mechanism scores every value): a plan with one is published from the
table of a file an upload could be (:func:`dpcore.plan_release.publish_plan`), and refused, in one sentence, for a
larger file.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dpcore.plan import Allocation, PlanError
from dpcore.plan_release import PlanRelease, check_columns, publish_from_aggregates, publish_plan
from explorer.csv_reader import (
    DECIMAL_COMMA,
    MAX_COLUMNS,
    MAX_DECOMPRESSED_BYTES,
    MAX_UPLOAD_BYTES,
    NA_LONGEST,
    NA_SPELLINGS,
    PARQUET_MAGIC,
    PLAIN,
    SNIFF_CHARS,
    THOUSANDS,
    DatasetError,
    OverLimit,
    clean_names,
    path_dialect,
    read_csv,
    uncompressed_head,
)
from explorer.dataset import file_fingerprint
from explorer.engine import aggregates as engine_aggregates

__all__ = ["FileSource", "open_file", "needs_rows"]

#: Every character Python's ``str.strip()`` removes (what the app strips from a cell), as a SQL expression.
_WHITESPACE = "'" + "".join(chr(c) for c in range(0x110000) if chr(c).isspace()) + "'"
#: DuckDB's numeric types: a Parquet or JSON column of one of these holds numbers as they are.
_NUMERIC_TYPES = (
    "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
    "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL",
)  # fmt: skip


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _re2(pattern) -> str:
    """One of the app's cell patterns as an RE2 literal (the same syntax but for ``\\uXXXX``, RE2's ``\\x{XXXX}``;
    case-insensitive where the app's is)."""
    body = re.sub(r"\\u([0-9a-fA-F]{4})", r"\\x{\1}", pattern.pattern)
    return _literal(f"(?i:{body})" if pattern.flags & re.IGNORECASE else body)


_NA = "(" + ", ".join(_literal(s) for s in sorted(NA_SPELLINGS)) + ")"
#: The number formats of the app, in its order: name, the test of one cell (SQL, ``{}`` the cell: replaced, never
#: ``str.format``, since the patterns hold braces), its number.
_FORMATS = {
    "plain": (f"regexp_full_match({{}}, {_re2(PLAIN)})", "{}"),
    "thousands": (
        f"(regexp_full_match({{}}, {_re2(THOUSANDS)}) OR regexp_full_match({{}}, {_re2(PLAIN)}))",
        "replace({}, ',', '')",
    ),
    "decimal comma": (
        f"regexp_full_match({{}}, {_re2(DECIMAL_COMMA)})",
        "replace(translate({}, '. \u00a0\u202f', ''), ',', '.')",
    ),
}


def _stripped(raw: str) -> str:
    """A cell's text stripped as ``str.strip`` does (raw: a SQL expression)."""
    text = f"CAST({raw} AS VARCHAR)"
    # most cells begin and end with a printable ASCII character: nothing to strip (a tenth of trim's time)
    return (
        f"CASE WHEN ord({text}) BETWEEN 33 AND 126 AND ord(right({text}, 1)) BETWEEN 33 AND 126 THEN {text} "
        f"ELSE trim({text}, {_WHITESPACE}) END"
    )


def _present(t: str) -> str:
    """A stripped cell ``t``, NULL when it spells a missing value."""
    return f"CASE WHEN length({t}) <= {NA_LONGEST} AND lower({t}) IN {_NA} THEN NULL ELSE {t} END"


@dataclass(frozen=True, eq=False)
class FileSource:
    """A data file opened for a publication (:func:`open_file`).

    Attributes
    ----------
    path : str
    name : str
        The file's name (what the log and the report name).
    fingerprint : str
        The first 8 hex digits of the SHA-256 of the file's bytes: the key its budget is kept under, the same as the
        app's for the same file (:attr:`explorer.dataset.Dataset.fingerprint`).
    columns : tuple of str
        The column names as the app names them.
    frame : pandas.DataFrame or None
        The table of a file an upload could be (the app's careful reader); None for a file read by DuckDB where it
        lies.
    kind : str
        ``"table"`` (``frame``), ``"csv"``, ``"parquet"`` or ``"json"``.
    """

    path: str
    name: str
    fingerprint: str
    columns: tuple[str, ...]
    frame: pd.DataFrame | None = None
    kind: str = "table"
    _dialect: tuple = ()  # DuckDB's read_csv options of a CSV file, as (name, value) pairs
    _columns_object: bool = False  # a JSON file that is one object of equally long columns
    _raw: tuple[str, ...] = ()  # DuckDB's names of the raw columns, one per column
    _types: tuple[str, ...] = ()  # DuckDB's types of the raw columns
    _delimiter: str = ","

    @property
    def in_memory(self) -> bool:
        """Whether the file's rows are held as a table (a file an upload could be)."""
        return self.frame is not None

    def check(self, allocation: Allocation) -> None:
        """Refuse, in one sentence, a plan this file cannot give: a column it does not have, a quantile over a file
        read where it lies (reads no row)."""
        check_columns(allocation, self.frame if self.frame is not None else pd.DataFrame(columns=list(self.columns)))
        refused = needs_rows(allocation) if self.frame is None else None
        if refused is not None:
            raise PlanError(refused)

    def aggregates(self, allocation: Allocation, seed: str) -> list[pd.DataFrame]:
        """The exact aggregates of the plan over every row (:func:`explorer.engine.aggregates.plan_aggregates` on
        ``seed``), computed by DuckDB; a numeric statistic of a text column is refused in one sentence first."""
        from explorer.engine import duckdb_engine

        self.check(allocation)
        queries = engine_aggregates.plan_aggregates(allocation.plan, seed)
        numeric = _numeric_columns(allocation)
        if self.frame is not None:
            for stat, column in numeric:
                series = self.frame[column]
                text = not (pd.api.types.is_numeric_dtype(series) or series.isna().all())
                if text or pd.api.types.is_bool_dtype(series):
                    raise _holds_text(stat, column)
            return duckdb_engine.aggregate_plan(queries, self.frame)
        with tempfile.TemporaryDirectory(prefix="dpx-publish-") as folder:
            con = duckdb_engine.connect()
            try:
                self._open(con)
                columns = self._read_columns(con, _plan_columns(allocation), Path(folder) / "columns.parquet")
                for stat, column in numeric:
                    if not columns[column]:
                        raise _holds_text(stat, column)
                return duckdb_engine.aggregate_plan(queries, con.sql("SELECT * FROM dpx_clean"), con=con)
            finally:
                con.close()

    def prepare(self, allocation: Allocation) -> Callable[[], PlanRelease]:
        """Everything read from the file before the charge: returns the draw (no argument) that publishes the plan
        with fresh secure noise, to be run inside the publication log's transaction.

        A plan with a quantile, on a file held as a table: its rows (:func:`dpcore.plan_release.publish_plan`, which
        reads them in the draw). Otherwise the exact aggregates, computed now over every row with a fresh secret
        seed for the bounding (:func:`explorer.engine.aggregates.secret_seed`).

        Raises
        ------
        ValueError
            One sentence: a column the file does not have, a quantile over a large file, a numeric statistic of a
            text column, a row without a person identifier.
        """
        self.check(allocation)
        if any(s.statistic.kind == "quantile" for s in allocation.shares):
            frame = self.frame
            return lambda: publish_plan(allocation, frame)
        found = self.aggregates(allocation, engine_aggregates.secret_seed())
        return lambda: publish_from_aggregates(allocation, found)

    def _open(self, con) -> None:
        _opened(self, con)

    def _read_columns(self, con, wanted: list[str], copy: Path) -> dict[str, bool]:
        """The view ``dpx_clean`` of the wanted columns as the app reads them (module notes), and whether each holds
        numbers.

        One pass over the file decides which text columns hold numbers and in which format; a second writes the
        columns, cleaned and typed, to ``copy`` (a temporary Parquet file: each aggregate then reads a few typed
        columns, not the file's text again; DuckDB writes it streaming, so memory does not follow the rows); a pass
        over it finds the numeric columns of whole numbers with none missing, integers as the app makes them."""
        position = {name: i for i, name in enumerate(self.columns)}
        stripped, cells, typed = [], [], set()
        for i, name in enumerate(wanted):
            raw, kind = _q(self._raw[position[name]]), self._types[position[name]]
            if kind == "JSON":  # values of several JSON types: their text, as the app reads them
                raw = f"json_extract_string({raw}, '$')"
            if kind.startswith(_NUMERIC_TYPES):
                stripped.append(f"CAST({raw} AS DOUBLE) AS t{i}")
                cells.append(f"t{i} AS c{i}")
                typed.add(i)
            else:
                stripped.append(f"{_stripped(raw)} AS t{i}")
                cells.append(f"{_present(f't{i}')} AS c{i}")
        read = f"(SELECT {', '.join(cells)} FROM (SELECT {', '.join(stripped)} FROM dpx_raw))"
        texts = [i for i in range(len(wanted)) if i not in typed]
        numbers: dict[int, str] = {i: f"c{i}" for i in typed}
        if texts:
            parts = []
            for i in texts:
                parts.append(f"count(c{i})")
                for test, _ in _FORMATS.values():
                    parts.append(f"count(*) FILTER (WHERE c{i} IS NOT NULL AND NOT {test.replace('{}', f'c{i}')})")
                parts.append(f"count(*) FILTER (WHERE regexp_matches(c{i}, '^[+-]?0[0-9]'))")
                parts.append(f"count(*) FILTER (WHERE contains(c{i}, ','))")
            found = con.execute(f"SELECT {', '.join(parts)} FROM {read}").fetchall()[0]
            for j, i in enumerate(texts):
                present, plain, thousands, comma, leading, commas = found[6 * j : 6 * j + 6]
                order = [("plain", plain), ("thousands", thousands), ("decimal comma", comma)]
                if self._delimiter == ";" and commas:  # a ';' file with commas in numbers: European locale first
                    order = [order[2], order[1]]
                chosen = next((f for f, bad in order if not bad), None)
                if not present:  # no value at all: missing numbers (a sum of them is 0, a key matches none)
                    numbers[i] = "CAST(NULL AS DOUBLE)"
                elif chosen is not None and not leading:  # numbers in one format (leading zeros: codes, text)
                    numbers[i] = f"TRY_CAST({_FORMATS[chosen][1].replace('{}', f'c{i}')} AS DOUBLE)"
        finite = {i: f"CASE WHEN isfinite({sql}) THEN {sql} END" for i, sql in numbers.items()}
        columns = ", ".join(f"{finite.get(i, f'c{i}')} AS c{i}" for i in range(len(wanted)))
        con.execute("SET preserve_insertion_order = false")  # no row order to keep: streaming, bounded memory
        con.execute(f"COPY (SELECT {columns} FROM {read}) TO {_literal(str(copy))} (FORMAT parquet)")
        integral = set()
        if finite:
            parts = [
                f"count(*) FILTER (WHERE c{i} IS NULL), bool_and(c{i} = round(c{i})), max(abs(c{i}))" for i in finite
            ]
            found = con.execute(f"SELECT {', '.join(parts)} FROM read_parquet({_literal(str(copy))})").fetchall()[0]
            for j, i in enumerate(finite):
                missing, whole, largest = found[3 * j : 3 * j + 3]
                if not missing and whole and largest is not None and largest <= 2.0**53:
                    integral.add(i)  # whole numbers, none missing: an integer column, as the app makes it
        view = ", ".join(
            f"{f'CAST(c{i} AS BIGINT)' if i in integral else f'c{i}'} AS {_q(name)}" for i, name in enumerate(wanted)
        )
        con.execute(f"CREATE OR REPLACE TEMP VIEW dpx_clean AS SELECT {view} FROM read_parquet({_literal(str(copy))})")
        return {name: i in finite for i, name in enumerate(wanted)}


def needs_rows(allocation: Allocation) -> str | None:
    """One sentence when the plan has a quantile (None otherwise): published from a table's rows only, never from a
    file read where it lies (:meth:`FileSource.check`; the Publish page says it before its button)."""
    for share in allocation.shares:
        if share.statistic.kind == "quantile":
            return (
                f"statistic {share.statistic.name!r} is a quantile, which needs every row in memory (the exponential "
                f"mechanism scores each value), so it is not published from a file over "
                f"{MAX_UPLOAD_BYTES / 2**20:g} MiB or in Parquet; publish it from a smaller CSV file, or remove it "
                "from the plan"
            )
    return None


def _plan_columns(allocation: Allocation) -> list[str]:
    """The columns a plan reads (its person identifier first), each once."""
    plan = allocation.plan
    names = [plan.unit.identifier] if plan.unit.identifier is not None else []
    for s in plan.statistics:
        names += list(s.columns)
    return list(dict.fromkeys(names))


def _numeric_columns(allocation: Allocation) -> list[tuple[str, str]]:
    """(statistic name, column) of every column a statistic needs numbers in (a sum's, a mean's, a histogram's, a
    quantile's, a number condition's: :attr:`dpcore.plan.Statistic.numeric_columns`)."""
    return [(s.statistic.name, column) for s in allocation.shares for column in s.statistic.numeric_columns]


def _holds_text(stat: str, column: str) -> PlanError:
    return PlanError(f"statistic {stat!r} needs numbers in the column {column!r}, which holds text")


def open_file(path, name: str | None = None) -> FileSource:
    """Open the data file at ``path`` for a publication, whatever its size (module notes); reads no row of a file
    over the upload limit, and the whole file once for its fingerprint.

    Parameters
    ----------
    path : str or os.PathLike
        A CSV (``,``, ``;``, tab or ``|``), gzip-compressed CSV, Parquet or JSON file; its format is read from its
        content, as the app reads it.
    name : str, optional
        The name the log and the report give it (the file's name by default).

    Raises
    ------
    explorer.dataset.DatasetError
        (A ``ValueError``.) The file cannot be read or used, in one sentence.
    """
    path = Path(os.fspath(path))
    shown = str(path)
    try:
        with open(path, "rb") as file:
            head = file.read(SNIFF_CHARS)
            size = file.seek(0, os.SEEK_END)
        fingerprint = file_fingerprint(path)
    except OSError as exc:
        raise DatasetError(f"The data file {shown!r} cannot be read ({exc.strerror or exc}).") from None
    name = path.name if name is None else str(name)
    if not head.strip():
        raise DatasetError("The file is empty.")
    parquet = head.startswith(PARQUET_MAGIC)
    if size <= MAX_UPLOAD_BYTES and not parquet:
        try:
            frame, _ = read_csv(path.read_bytes())
        except OverLimit:
            pass  # more rows or cells than an upload may have: read where it lies, below
        else:
            return FileSource(str(path), name, fingerprint, tuple(frame.columns), frame=frame)
    dialect = None
    head, compression = uncompressed_head(path, head)
    if parquet:
        kind = "parquet"
    elif head.lstrip()[:1] in (b"[", b"{"):
        kind = "json"
    else:
        kind, dialect = "csv", path_dialect(head, compression)
    source = FileSource(str(path), name, fingerprint, (), kind=kind, _dialect=tuple((dialect or {}).items()))
    return _described(source)


def _opened(source: FileSource, con) -> None:
    """The view ``dpx_raw`` of the file's raw columns on ``con``, read as the app reads the file (DuckDB where it
    lies, streaming: no row is read here)."""
    if source.kind == "parquet":
        relation = con.read_parquet(source.path)
    elif source.kind == "json":
        relation = con.read_json(source.path, sample_size=-1, maximum_object_size=MAX_DECOMPRESSED_BYTES)
    else:
        relation = con.read_csv(source.path, **dict(source._dialect))
    relation.create_view("dpx_file", replace=True)
    if source._columns_object:  # one object of columns: one row per position
        names = [_q(n) for n in relation.columns]
        unnested = ", ".join(f"unnest({n}) AS {n}" for n in names)
        con.execute(f"CREATE OR REPLACE TEMP VIEW dpx_raw AS SELECT {unnested} FROM dpx_file")
    else:
        con.execute("CREATE OR REPLACE TEMP VIEW dpx_raw AS SELECT * FROM dpx_file")


def _described(source: FileSource) -> FileSource:
    """``source`` with its columns' names and types, read from the file's schema (or header) by DuckDB."""
    from explorer.engine.duckdb_engine import connect

    label = {"parquet": "Parquet", "json": "JSON"}.get(source.kind, "CSV")
    con = connect()
    try:
        try:
            _opened(source, con)
            described = con.execute("DESCRIBE dpx_raw").fetchall()
            if source.kind == "json" and described and all(str(r[1]).endswith("[]") for r in described):
                if con.execute("SELECT count(*) FROM dpx_raw").fetchall()[0][0] == 1:  # one object of columns
                    lengths = con.execute(
                        f"SELECT {', '.join(f'len({_q(r[0])})' for r in described)} FROM dpx_raw"
                    ).fetchall()[0]
                    if len(set(lengths)) != 1:
                        raise DatasetError("The JSON file's columns have different lengths, so they are not one table.")
                    source = _replace(source, _columns_object=True)
                    _opened(source, con)
                    described = con.execute("DESCRIBE dpx_raw").fetchall()
        except DatasetError:
            raise
        except Exception:  # noqa: BLE001 - a damaged or unusual file: one sentence, whatever DuckDB said
            raise DatasetError(f"The file looks like {label} but could not be read as a table.") from None
    finally:
        con.close()
    if source.kind == "json" and [r[0] for r in described] == ["json"]:
        raise DatasetError("The JSON file is a list of values, not a table of records or columns.")
    raw = [r[0] for r in described][:MAX_COLUMNS]
    types = [str(r[1]) for r in described][:MAX_COLUMNS]
    nested = [n for n, t in zip(raw, types) if t.endswith("]") or t.startswith(("STRUCT", "MAP", "UNION"))]
    binary = [n for n, t in zip(raw, types) if t in ("BLOB", "BIT")]
    if nested or binary:
        what = "nested values" if nested else "binary values"
        listed = ", ".join(repr(n) for n in (nested or binary)[:5])
        raise DatasetError(f"The {label} file holds {what} in {listed}; publish from a flat table.")
    names = tuple(clean_names(raw, []))
    delimiter = dict(source._dialect).get("delimiter", ",")
    return _replace(source, columns=names, _raw=tuple(raw), _types=tuple(types), _delimiter=delimiter)


def _replace(source: FileSource, **changes) -> FileSource:
    from dataclasses import replace

    return replace(source, **changes)
