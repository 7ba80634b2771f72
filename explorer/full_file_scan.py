"""The SQL part of :mod:`explorer.full_file`: one engine aggregate over a file opened by path, with no Streamlit.

It runs in the rerun, or in a worker of the server's pool (:mod:`explorer.jobs`, which lists this module among the
ones a job may call) when the scan is estimated above what a rerun may spend: the same function, the same SQL and
the same seed either way, so the numbers do not depend on where they were computed.
"""

from __future__ import annotations

import pandas as pd

from explorer.engine import aggregates

__all__ = ["reader", "scan", "aggregate"]

PARQUET_MAGIC, _GZIP = b"PAR1", b"\x1f\x8b"


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def reader(path: str) -> str | None:
    """DuckDB's FROM item for the file, read as the loader reads it (None for a kind left to the sample: JSON)."""
    with open(path, "rb") as file:
        head = file.read(4)
    if head.startswith(PARQUET_MAGIC):
        return f"read_parquet({_literal(path)})"
    if head.lstrip()[:1] in (b"[", b"{"):
        return None
    compression = "gzip" if head.startswith(_GZIP) else "none"
    return (
        f"read_csv({_literal(path)}, header = true, all_varchar = true, quote = '\"', escape = '\"', "
        f"null_padding = true, compression = '{compression}')"
    )


def connect():
    """A DuckDB connection of the engine (DuckDB loads only for a file that needs it)."""
    from explorer.engine.duckdb_engine import connect as engine_connect

    return engine_connect()


def scan(path: str, select: str, queries: list) -> list[pd.DataFrame]:
    """The engine's aggregates of ``queries`` over ``select`` (one SQL SELECT over the file): one statement each."""
    from explorer.engine.duckdb_engine import INTEGER_TYPES

    con = connect()
    try:
        con.execute(f"CREATE TEMP VIEW dpx_whole AS {select}")
        columns, check = aggregates.missing_persons_sql(queries, "dpx_whole", aggregates.DUCKDB)
        if check is not None:
            aggregates.refuse_missing(columns, con.execute(check).fetchone())
        types = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE dpx_whole)").fetchall())
        integral = {c for c in columns if types.get(c) in INTEGER_TYPES}
        found = pd.concat(
            [
                con.execute(aggregates.plan_sql([q], "dpx_whole", aggregates.DUCKDB, integral)).df().assign(q=i)
                for i, q in enumerate(queries)
            ],
            ignore_index=True,
        )
        return aggregates.split(queries, found)
    finally:
        con.close()


def aggregate(path: str, select: str, query: aggregates.Aggregate, run=scan) -> pd.DataFrame | str:
    """One aggregate over the file, or why not in one sentence (a row without a person: the engine's sentence; a
    cell DuckDB cannot read). ``run`` is :func:`scan` (a caller that counts scans passes its own)."""
    import duckdb

    try:
        return run(path, select, [query])[0]
    except ValueError as exc:  # the engine's one sentence
        return str(exc)
    except duckdb.Error:
        return "DuckDB could not compute it over the file"
