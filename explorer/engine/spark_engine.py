"""Spark, where the data lives: the aggregates of :mod:`explorer.engine.aggregates` on a Spark DataFrame.

The same SQL text as DuckDB's (Spark's dialect of it: backquoted names, ``sha2(…, 256)``), so that a plan designed on
a sample in the explorer computes the same exact aggregates on the full table in a cluster (``spark-submit``), and
on one seed the same contribution bounding. PySpark is imported here only: the explorer runs without it.
"""

from __future__ import annotations

import uuid

import pandas as pd

from explorer.engine.aggregates import SPARK, Aggregate, finish

__all__ = ["aggregate", "local_session"]


def local_session(app_name: str = "dp-explorer", cores: int = 2):
    """A local-mode SparkSession (for tests and a laptop): no UI, few shuffle partitions, UTC."""
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master(f"local[{int(cores)}]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(2 * int(cores)))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )


def aggregate(query: Aggregate, source, spark=None) -> pd.DataFrame:
    """The exact aggregate of ``query`` over ``source`` (a Spark DataFrame, a pandas frame, or a Parquet path).

    Raises
    ------
    ValueError
        A row without a person identifier (one sentence).
    """
    from pyspark.sql import DataFrame

    if isinstance(source, DataFrame):
        frame = source
        spark = frame.sparkSession
    else:
        spark = spark or local_session()
        frame = spark.createDataFrame(source) if isinstance(source, pd.DataFrame) else spark.read.parquet(str(source))
    view = f"dpx_source_{uuid.uuid4().hex}"
    frame.createOrReplaceTempView(view)
    try:
        check = query.missing_persons_sql(view, SPARK)
        if check is not None:
            missing = spark.sql(check).collect()[0][0]
            if missing:
                raise ValueError(
                    f"person must name a person on every row, got {missing:,} row(s) without one "
                    "(drop those rows, or give each its own identifier, before bounding)"
                )
        rows = spark.sql(query.sql(view, SPARK)).collect()
    finally:
        spark.catalog.dropTempView(view)
    found = pd.DataFrame([r.asDict() for r in rows], columns=["key", "rows", "total", "persons"])
    return finish(query, found)
