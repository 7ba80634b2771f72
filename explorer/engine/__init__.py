"""The data engine: DuckDB in the process (uploads, files opened by path), Spark where the data lives.

* :mod:`~explorer.engine.duckdb_engine` opens a configured DuckDB connection (no extension download, bounded threads
  and memory) and computes the aggregates of :mod:`~explorer.engine.aggregates` in SQL over a table, a Parquet or
  CSV file, or a pandas frame.
* :mod:`~explorer.engine.spark_engine` computes the same aggregates on a Spark DataFrame (PySpark, imported only
  there: the explorer runs without it).
* :mod:`~explorer.engine.aggregates` is the common interface: the frozen query specifications (a count, a clipped
  sum, a histogram over a declared domain, a group-by with per-person contribution bounding; a count where, a two-way
  table and counts per period of a column of dates) and the SQL both
  backends run, so that they agree exactly; ``plan_aggregates`` maps a ``dpcore.plan.Plan`` to them, and
  ``dpcore.plan_release.publish_from_aggregates`` publishes the plan from what an engine returns (memory follows the
  number of labels, not of rows).

``dpcore`` never imports this package (``tests/test_imports.py``): it stays numpy, scipy and pandas only. What the
engine computes are exact aggregates (the truth); the noise is added by ``dpcore`` on those numbers.
"""

__all__: list[str] = []
