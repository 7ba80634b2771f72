"""Tests for explorer.engine.spark_engine: Spark (local mode) and DuckDB compute identical aggregates.

One SparkSession for the module (starting one takes seconds); a few hidden-shape tables and every kind of aggregate,
contribution bounding included, on the same sampling seed: equal to the last bit (values on a grid of quarters, so
sums are exact in any order). With them, a release plan's aggregates (``plan_aggregates``: counts, sums and means
per declared key with "(other)", category counts, a histogram of a number), so that a plan designed in the explorer
gives the same truths where the data lives.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.contributions import ContributionBounds
from explorer.engine import aggregates as agg
from explorer.engine import duckdb_engine, spark_engine

KEYS = ["a", "b", "c", "d", "e"]


@pytest.fixture(scope="module")
def spark():
    session = spark_engine.local_session("dpx-tests")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _hidden_shape(seed: int) -> pd.DataFrame:
    """Persons with heavy-tailed row counts and string or integer identifiers, keys partly undeclared or missing,
    values on a grid of quarters partly missing; the shape (sizes, skew, identifier type) drawn from the seed."""
    rng = np.random.default_rng(seed)
    rows, persons = int(rng.integers(200, 3_000)), int(rng.integers(5, 300))
    weights = rng.pareto(float(rng.uniform(0.8, 3.0)), persons) + 0.05
    person = rng.choice(persons, rows, p=weights / weights.sum())
    key = rng.choice([*KEYS, "undeclared"], rows, p=rng.dirichlet(np.ones(len(KEYS) + 1))).astype(object)
    key[rng.random(rows) < 0.03] = None
    value = np.round(rng.standard_t(3, rows) * 8) / 4
    value[rng.random(rows) < 0.03] = np.nan
    pid = person if seed % 2 else np.array([f"user-{p:04d}" for p in person], dtype=object)
    return pd.DataFrame({"pid": pid, "key": key, "value": value})


def _plan_queries(seed: int) -> list[agg.Aggregate]:
    """A plan's aggregates (what counts, sums and means alone do not cover already: keys with "(other)", a histogram
    of a number), each person bounded (L₀ = 2, L∞ = 2)."""
    from dpcore.contributions import PrivacyUnit
    from dpcore.plan import Plan, Statistic

    plan = Plan(
        (
            Statistic(
                "s",
                "mean",
                column="value",
                lower=-1.5,
                upper=2.0,
                by="key",
                keys=tuple(KEYS[:3]),
                other=True,
                planned_n=50,
            ),
            Statistic("c", "counts", column="key", domain=tuple(KEYS[1:4]), other=True),
            Statistic("h", "histogram", column="value", lower=-2.0, upper=6.0, bins=4),
        ),
        unit=PrivacyUnit("pid", ContributionBounds(max_groups=2, max_rows_per_group=2, max_rows=3)),
        epsilon=1.0,
    )
    return agg.plan_aggregates(plan, seed)


def _queries(seed: int) -> list[agg.Aggregate]:
    tight = ContributionBounds(max_groups=2, max_rows_per_group=1, max_rows=2)
    loose = ContributionBounds(max_groups=4, max_rows_per_group=3, max_rows=5)
    return [
        agg.count(),
        agg.clipped_sum("value", -1.5, 2.0),
        agg.histogram("key", KEYS),
        agg.count(person="pid", bounds=tight, seed=seed),
        agg.clipped_sum("value", -1.5, 2.0, person="pid", bounds=loose, seed=seed),
        agg.histogram("key", KEYS, person="pid", bounds=tight, seed=seed),
        agg.group_by("key", KEYS, "value", -3.0, 3.0, person="pid", bounds=tight, seed=seed),
        agg.group_by("key", KEYS, "value", 0.0, 1.25, person="pid", bounds=loose, seed=seed),
        *_plan_queries(seed),
    ]


@pytest.mark.parametrize("seed, via", [(101, "frame"), (202, "parquet")])
def test_spark_and_duckdb_give_identical_aggregates(spark, tmp_path, seed, via):
    # the whole plan in one job in each engine; the table given as frames, or as one Parquet file both read
    table = _hidden_shape(seed)
    queries = _queries(seed)
    if via == "parquet":
        table.to_parquet(tmp_path / "t.parquet")
        wants = duckdb_engine.aggregate_plan(queries, tmp_path / "t.parquet")
        gots = spark_engine.aggregate_plan(queries, str(tmp_path / "t.parquet"), spark)
    else:
        wants = duckdb_engine.aggregate_plan(queries, table)
        gots = spark_engine.aggregate_plan(queries, spark.createDataFrame(table))
    for query, got, want in zip(queries, gots, wants):
        pd.testing.assert_frame_equal(got, want, check_exact=True, obj=repr(query))
    # the bounds bind: the tightly bounded group-by kept fewer rows than the table has in the declared keys, the
    # plan's histogram fewer than the table's values, and its "(other)" rows were counted
    assert wants[6]["rows"].sum() < table["key"].isin(KEYS).sum()
    assert 0 < wants[-1]["rows"].sum() < table["value"].notna().sum()
    assert wants[-2]["key"].iloc[-1] == "(other)" and wants[-2]["rows"].iloc[-1] > 0


def test_spark_refuses_a_missing_person_in_one_sentence(spark):
    frame = spark.createDataFrame([("a", 1.0), (None, 2.0)], "pid string, value double")
    with pytest.raises(ValueError, match="person must name a person on every row, got 1 row"):
        spark_engine.aggregate(agg.count(person="pid", bounds=ContributionBounds()), frame)


def test_the_new_kinds_give_identical_aggregates_in_spark_and_duckdb(spark):
    # the explorer's count where, two-way table, counts per period and most common value: the same SQL in both
    from tests.test_engine_duckdb import _new_kinds_plan, _new_kinds_table

    table = _new_kinds_table(7)
    for bounds in (None, ContributionBounds(max_groups=2, max_rows_per_group=2, max_rows=3)):
        frame = table.drop(columns="pid") if bounds is None else table
        queries = agg.plan_aggregates(_new_kinds_plan(bounds), "a seed")
        wants = duckdb_engine.aggregate_plan(queries, frame)
        gots = spark_engine.aggregate_plan(queries, spark.createDataFrame(frame))
        for query, got, want in zip(queries, gots, wants):
            pd.testing.assert_frame_equal(got, want, check_exact=True, obj=repr(query)[:200])
        assert all(w["rows"].sum() > 0 for w in wants)
