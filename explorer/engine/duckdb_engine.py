"""DuckDB, the embedded engine: a configured connection.

Every connection is in memory and private to its caller (nothing per user at module level); it never downloads an
extension (Parquet and JSON are built into the wheel), uses at most two threads and a bounded amount of memory.
"""

from __future__ import annotations

import duckdb

__all__ = ["MEMORY_LIMIT", "THREADS", "connect"]

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
    return duckdb.connect(
        config={
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "threads": int(threads),
            "memory_limit": memory_limit,
        }
    )
