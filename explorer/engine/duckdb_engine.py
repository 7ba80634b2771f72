"""DuckDB, the embedded engine: a configured connection, and the aggregates of :mod:`explorer.engine.aggregates` in SQL.

Every connection is in memory and private to its caller (nothing per user at module level); it never downloads an
extension (Parquet and JSON are built into the wheel), uses at most two threads and a bounded amount of memory.
"""

from __future__ import annotations

import os
import tempfile

import duckdb
import pandas as pd

from explorer.engine.aggregates import (
    DUCKDB,
    Aggregate,
    each_once,
    missing_persons_sql,
    plan_sql,
    refuse_missing,
    split,
)

__all__ = ["INTEGER_TYPES", "MEMORY_LIMIT", "THREADS", "aggregate", "aggregate_plan", "connect"]

#: DuckDB's integer types that fit a BIGINT: person identifiers of these types are used as they are (others hashed).
INTEGER_TYPES = frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER"})
#: Threads one connection may use (the shared server has two cores).
THREADS = 2
#: Memory one connection may hold before DuckDB spills or refuses (its own accounting, not the process's).
MEMORY_LIMIT = "1GB"


def connect(*, threads: int = THREADS, memory_limit: str = MEMORY_LIMIT) -> duckdb.DuckDBPyConnection:
    """A new in-memory DuckDB connection that installs and loads no extension by itself.

    Parameters
    ----------
    threads : int
        Worker threads, at least 1.
    memory_limit : str
        DuckDB's memory limit, e.g. ``"1GB"``.
    """
    con = duckdb.connect(
        config={
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "threads": int(threads),
            "memory_limit": memory_limit,
            # what does not fit spills to the system's temporary folder (never the working directory), removed after
            "temp_directory": os.path.join(tempfile.gettempdir(), "dpx-duckdb"),
        }
    )
    con.execute("SET enable_progress_bar = false")  # DuckDB draws one on the server's standard output otherwise
    return con


def _source_sql(source) -> str:
    """A FROM item for a Parquet or CSV path (DuckDB reads it where it lies, streaming)."""
    path = str(source)
    literal = "'" + path.replace("'", "''") + "'"
    if path.endswith((".parquet", ".pq")):
        return f"read_parquet({literal})"
    return f"read_csv({literal})"


def aggregate(query: Aggregate, source, *, con: duckdb.DuckDBPyConnection | None = None) -> pd.DataFrame:
    """The exact aggregate of ``query`` over ``source`` on its declared domain (see :func:`aggregate_plan`)."""
    return aggregate_plan([query], source, con=con)[0]


def aggregate_plan(queries, source, *, con: duckdb.DuckDBPyConnection | None = None) -> list[pd.DataFrame]:
    """The exact aggregates of a plan's ``queries`` over ``source``, each on its declared domain (one statement each).

    Parameters
    ----------
    queries : sequence of Aggregate
    source : pandas.DataFrame, duckdb relation, str or os.PathLike
        A frame, a relation of ``con`` (:mod:`dpx_publish.source`), or the path of a Parquet file (``.parquet``) or
        a CSV file read by DuckDB's sniffer (files opened by path on a local install; uploads go through
        :mod:`explorer.csv_reader`).
    con : duckdb connection, optional
        A connection to use (a new one by default, closed after).

    Returns
    -------
    list of pandas.DataFrame
        One per query (:func:`explorer.engine.aggregates.finish`).

    Raises
    ------
    ValueError
        A row without a person identifier (one sentence).
    """
    own = con is None
    con = connect() if own else con
    try:
        if isinstance(source, pd.DataFrame):
            con.register("dpx_source", source)
        elif isinstance(source, duckdb.DuckDBPyRelation):  # a relation of ``con`` (a view its caller built)
            source.create_view("dpx_source", replace=True)
        else:
            con.execute(f"CREATE OR REPLACE TEMP VIEW dpx_source AS SELECT * FROM {_source_sql(source)}")
        return each_once(queries, lambda unique: _run(con, unique))
    finally:
        if own:
            con.close()


def _run(con, queries: list[Aggregate]) -> list[pd.DataFrame]:
    columns, check = missing_persons_sql(queries, "dpx_source", DUCKDB)
    if check is not None:
        refuse_missing(columns, con.execute(check).fetchone())
    types = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE dpx_source)").fetchall())
    integral = {c for c in columns if types.get(c) in INTEGER_TYPES}
    # one statement per aggregate: DuckDB runs the parts of one statement at once, so their window sorts would
    # share the memory limit (a plan of five on 10⁷ rows ran out of 1 GB); one after another each has all of it
    found = pd.concat(
        [
            con.execute(plan_sql([query], "dpx_source", DUCKDB, integral)).df().assign(q=i)
            for i, query in enumerate(queries)
        ],
        ignore_index=True,
    )
    return split(queries, found)
