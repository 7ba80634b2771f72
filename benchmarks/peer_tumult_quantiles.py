"""Tumult Analytics' quantile, run in Tumult's own Python environment for :mod:`benchmarks.bench_quantiles`.

Tumult Analytics pins its own PySpark and pandas, so it is installed apart from the project (``python -m venv
/tmp/tmlt && /tmp/tmlt/bin/pip install tmlt.analytics``) and this script is run by that interpreter: it reads the
cases and the values as JSON on standard input and writes the releases and the time per release as JSON on
standard output. It imports nothing from the project.

Each case opens one Tumult ``Session`` over the values (``AddOneRow``: add/remove one record, as dpcore and OpenDP
here) with a pure budget of ``releases × ε``, and evaluates ``QueryBuilder(...).quantile(column, q, low, high)``
``releases`` times at ``PureDPBudget(ε)`` each: independent releases of an ε-DP query (Tumult's quantile is the
exponential mechanism over the intervals between the sorted clamped values, as dpcore's). A Spark job per release
makes each one take seconds, hence few releases.
"""

from __future__ import annotations

import json
import statistics
import sys
import time


def main() -> None:
    import pandas as pd
    from pyspark.sql import SparkSession
    from tmlt.analytics import AddOneRow, PureDPBudget, QueryBuilder, Session

    job = json.load(sys.stdin)
    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    frames = {
        name: spark.createDataFrame(pd.DataFrame({"x": [float(v) for v in values]}))
        for name, values in job["values"].items()
    }
    results = []
    for case in job["cases"]:
        eps, releases = float(case["eps"]), int(job["releases"])
        session = Session.from_dataframe(
            privacy_budget=PureDPBudget(eps * releases),
            source_id="data",
            dataframe=frames[case["data"]],
            protected_change=AddOneRow(),
        )
        query = QueryBuilder("data").quantile("x", float(case["q"]), low=float(job["low"]), high=float(job["high"]))
        released, seconds = [], []
        for _ in range(releases):
            start = time.perf_counter()
            released.append(float(session.evaluate(query, PureDPBudget(eps)).collect()[0][0]))
            seconds.append(time.perf_counter() - start)
        results.append({"released": released, "seconds": statistics.median(seconds)})
    from importlib.metadata import version

    json.dump({"version": version("tmlt.analytics"), "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
