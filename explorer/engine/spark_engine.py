"""Spark, where the data lives: the aggregates of :mod:`explorer.engine.aggregates` on a Spark DataFrame.

The same SQL text as DuckDB's (Spark's dialect of it: backquoted names, ``sha2(…, 256)``), so that a plan designed on
a sample in the explorer computes the same exact aggregates on the full table in a cluster (``spark-submit``), and
on one seed the same contribution bounding. PySpark is imported here only: the explorer runs without it.
"""

from __future__ import annotations

import uuid

import pandas as pd

from explorer.engine.aggregates import (
    SPARK,
    Aggregate,
    each_once,
    missing_persons_sql,
    plan_sql,
    refuse_missing,
    split,
)

__all__ = ["INTEGER_TYPES", "aggregate", "aggregate_plan", "local_session"]

#: Spark's integer types (as ``DataType.typeName()``): person identifiers of these types are used as they are, as in
#: DuckDB (:data:`explorer.engine.duckdb_engine.INTEGER_TYPES`; Parquet's unsigned 8 to 32-bit integers are read as
#: the next signed type by Spark, so both engines take the same path for a file).
INTEGER_TYPES = frozenset({"byte", "short", "integer", "long"})


def local_session(app_name: str = "dp-explorer", cores: int = 2):
    """A local-mode SparkSession (for tests and a laptop): no UI, few shuffle partitions, UTC."""
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master(f"local[{int(cores)}]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(int(cores)))
        .config("spark.default.parallelism", str(int(cores)))
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )


def aggregate(query: Aggregate, source, spark=None) -> pd.DataFrame:
    """The exact aggregate of ``query`` over ``source`` on its declared domain (see :func:`aggregate_plan`)."""
    return aggregate_plan([query], source, spark)[0]


def aggregate_plan(queries, source, spark=None) -> list[pd.DataFrame]:
    """The exact aggregates of a plan's ``queries`` over ``source`` in one Spark job, each on its declared domain.

    Parameters
    ----------
    queries : sequence of Aggregate
    source : pyspark.sql.DataFrame, pandas.DataFrame or str
        A Spark DataFrame, a pandas frame, or the path of a Parquet file (or folder).
    spark : SparkSession, optional
        For a pandas frame or a path (a local session by default).

    Raises
    ------
    ValueError
        A row without a person identifier (one sentence).
    """
    from pyspark.sql import DataFrame

    if isinstance(source, DataFrame):
        frame, spark = source, source.sparkSession
    else:
        spark = spark or local_session()
        frame = spark.createDataFrame(source) if isinstance(source, pd.DataFrame) else spark.read.parquet(str(source))
    view = f"dpx_source_{uuid.uuid4().hex}"
    frame.createOrReplaceTempView(view)
    try:
        return each_once(queries, lambda unique: _run(spark, frame, view, unique))
    finally:
        spark.catalog.dropTempView(view)


def _run(spark, frame, view: str, queries: list[Aggregate]) -> list[pd.DataFrame]:
    columns, check = missing_persons_sql(queries, view, SPARK)
    if check is not None:
        refuse_missing(columns, spark.sql(check).collect()[0])
    integral = {c for c in columns if frame.schema[c].dataType.typeName() in INTEGER_TYPES}
    rows = spark.sql(plan_sql(queries, view, SPARK, integral)).collect()
    found = pd.DataFrame([r.asDict() for r in rows], columns=["q", "g", "rows", "total", "persons"])
    return split(queries, found)
