"""Tests for explorer.engine (aggregates, duckdb_engine): SQL aggregates against dpcore's numpy/pandas implementations.

Exact where the answer does not depend on the sampling (record-level queries, bounds that bind no one, counts that
every uniform sample gives alike); Monte-Carlo, within sampling error, for the sampling itself (each row kept with
probability m / n, every subset equally likely), beside dpcore's sampler on the same table.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dpcore.contributions import ContributionBounds, bound_contributions
from explorer.engine import aggregates as agg
from explorer.engine import duckdb_engine

KEYS = ["a", "b", "c", "d"]


def _table(seed: int, rows: int = 300, persons: int = 40) -> pd.DataFrame:
    """A small table of hidden shape: persons with 1 to many rows, keys (some undeclared, some missing), values on a
    grid of quarters (some missing), so that sums are exact in any order."""
    rng = np.random.default_rng(seed)
    weights = rng.pareto(1.2, persons) + 0.1
    person = rng.choice(persons, rows, p=weights / weights.sum())
    key = rng.choice([*KEYS, "zz"], rows).astype(object)
    key[rng.random(rows) < 0.05] = None
    value = np.round(rng.normal(2.0, 3.0, rows) * 4) / 4
    value[rng.random(rows) < 0.05] = np.nan
    return pd.DataFrame({"pid": person, "key": key, "value": value})


@pytest.mark.parametrize("seed", range(5))
def test_record_level_aggregates_equal_numpy(seed):
    t = _table(seed)
    assert duckdb_engine.aggregate(agg.count(), t)["rows"].tolist() == [len(t)]
    got = duckdb_engine.aggregate(agg.clipped_sum("value", -1.0, 4.5), t)
    present = t["value"].dropna()
    assert got["rows"].tolist() == [len(present)]
    assert got["total"].iloc[0] == np.clip(present, -1.0, 4.5).sum()  # quarters: exact in any order
    hist = duckdb_engine.aggregate(agg.histogram("key", ["d", "a", "nowhere"]), t)
    assert hist["key"].tolist() == ["d", "a", "nowhere"]  # the declared domain, in its order, zeros included
    assert hist["rows"].tolist() == [int((t["key"] == "d").sum()), int((t["key"] == "a").sum()), 0]
    groups = duckdb_engine.aggregate(agg.group_by("key", KEYS, "value", 0.0, 3.0), t)
    for k, rows, total in zip(KEYS, groups["rows"], groups["total"]):
        rows_k = t[(t["key"] == k) & t["value"].notna()]
        assert rows == len(rows_k) and total == np.clip(rows_k["value"], 0.0, 3.0).sum()


@pytest.mark.parametrize("seed", range(5))
def test_bounds_that_bind_no_one_keep_every_row_as_dpcore_does(seed):
    t = _table(seed).dropna(subset=["key"])
    t = t[t["key"] != "zz"]
    most_rows = int(t.groupby(["pid", "key"]).size().max())
    most_keys = int(t.groupby("pid")["key"].nunique().max())
    bounds = ContributionBounds(max_groups=most_keys, max_rows_per_group=most_rows, max_rows=len(t))
    kept = bound_contributions(t["pid"].to_numpy(), seed, bounds=bounds, groups=t["key"].to_numpy())
    assert kept.rows_dropped == 0
    got = duckdb_engine.aggregate(agg.histogram("key", KEYS, person="pid", bounds=bounds, seed=seed), t)
    assert got["rows"].tolist() == [int((t["key"] == k).sum()) for k in KEYS]
    labels = list(kept.group_labels)
    assert got["persons"].tolist() == [int(kept.distinct[labels.index(k)]) for k in KEYS]


@pytest.mark.parametrize("seed", range(5))
def test_binding_bounds_keep_what_every_uniform_sample_keeps(seed):
    # how many rows survive does not depend on which are drawn: min(n_p, m) per person ungrouped; with L0 at least
    # every person's number of keys, min(n_pk, L∞) per person and key; dpcore's sampler gives the same counts
    t = _table(seed)
    m = 3
    ungrouped = ContributionBounds(max_rows=m)
    got = duckdb_engine.aggregate(agg.count(person="pid", bounds=ungrouped, seed=seed), t)
    want = int(np.minimum(t.groupby("pid").size(), m).sum())
    assert (
        got["rows"].tolist() == [want] == [bound_contributions(t["pid"].to_numpy(), seed, bounds=ungrouped).rows_kept]
    )
    assert got["persons"].tolist() == [t["pid"].nunique()]
    declared = t[t["key"].isin(KEYS)]
    bounds = ContributionBounds(max_groups=len(KEYS), max_rows_per_group=2)
    got = duckdb_engine.aggregate(agg.histogram("key", KEYS, person="pid", bounds=bounds, seed=seed), t)
    per_pair = np.minimum(declared.groupby(["key", "pid"]).size(), 2).groupby(level=0).sum()
    assert got["rows"].tolist() == [int(per_pair.get(k, 0)) for k in KEYS]
    kept = bound_contributions(declared["pid"].to_numpy(), seed, bounds=bounds, groups=declared["key"].to_numpy())
    codes = kept.group_codes[kept.kept]
    assert got["rows"].tolist() == [int((kept.group_labels[codes] == k).sum()) for k in KEYS]


def _bits(total: float, n: int) -> tuple[int, ...]:
    """The rows (values 2^i) whose sum is ``total``."""
    return tuple(i for i in range(n) if int(total) >> i & 1)


def test_row_sampling_is_uniform_like_dpcores():
    # 3,000 persons with the same 5 rows (values 1, 2, 4, 8, 16), m = 2: each person's clipped sum names the rows it
    # kept. Each of the 10 subsets must come up with probability 1/10 within 4.5 standard errors, for the SQL sampler
    # (one seed; the persons' samples are independent) and for dpcore's
    persons, n, m = 3_000, 5, 2
    t = pd.DataFrame({"pid": np.repeat(np.arange(persons), n), "value": np.tile(2.0 ** np.arange(n), persons)})
    t["key"] = t["pid"].astype(str)
    domain = [str(p) for p in range(persons)]
    bounds = ContributionBounds(max_groups=1, max_rows_per_group=m)
    got = duckdb_engine.aggregate(agg.group_by("key", domain, "value", 0, 16, person="pid", bounds=bounds, seed=11), t)
    sql_subsets = pd.Series([_bits(x, n) for x in got["total"]]).value_counts()
    kept = bound_contributions(t["pid"].to_numpy(), np.random.default_rng(11), bounds=ContributionBounds(max_rows=m))
    dp_subsets = pd.Series([_bits(x, n) for x in (t["value"] * kept.kept).groupby(t["pid"]).sum()]).value_counts()
    p = 1 / math.comb(n, m)
    se = math.sqrt(p * (1 - p) / persons)
    for subsets in (sql_subsets, dp_subsets):
        assert len(subsets) == math.comb(n, m) and all(len(s) == m for s in subsets.index)
        assert np.all(np.abs(subsets.to_numpy() / persons - p) < 4.5 * se), subsets


def test_key_sampling_is_uniform_like_dpcores():
    # 2,000 persons with one row in each of 4 keys, L0 = 1: each key keeps a person with probability 1/4
    persons = 2_000
    t = pd.DataFrame({"pid": np.repeat(np.arange(persons), 4), "key": np.tile(KEYS, persons)})
    bounds = ContributionBounds(max_groups=1, max_rows_per_group=1)
    got = duckdb_engine.aggregate(agg.histogram("key", KEYS, person="pid", bounds=bounds, seed=3), t)
    kept = bound_contributions(t["pid"].to_numpy(), np.random.default_rng(3), bounds=bounds, groups=t["key"].to_numpy())
    se = math.sqrt(0.25 * 0.75 / persons)
    assert got["rows"].sum() == persons == kept.rows_kept and got["persons"].tolist() == got["rows"].tolist()
    assert np.all(np.abs(got["rows"].to_numpy() / persons - 0.25) < 4.5 * se), got
    assert np.all(np.abs(kept.distinct / persons - 0.25) < 4.5 * se), kept.distinct


def test_the_seed_decides_the_sample_and_the_same_seed_repeats_it():
    t = _table(1)
    bounds = ContributionBounds(max_groups=1, max_rows_per_group=1)
    runs = [
        duckdb_engine.aggregate(agg.group_by("key", KEYS, "value", -5, 5, person="pid", bounds=bounds, seed=s), t)
        for s in (1, 1, 2)
    ]
    pd.testing.assert_frame_equal(runs[0], runs[1])
    assert not runs[0].equals(runs[2])


def test_files_by_path_give_the_same_aggregates(tmp_path):
    t = _table(2)
    t.to_parquet(tmp_path / "t.parquet")
    t.to_csv(tmp_path / "t.csv", index=False)
    bounds = ContributionBounds(max_groups=2, max_rows_per_group=2)
    query = agg.group_by("key", KEYS, "value", -2, 6, person="pid", bounds=bounds, seed=5)
    want = duckdb_engine.aggregate(query, t)
    pd.testing.assert_frame_equal(duckdb_engine.aggregate(query, tmp_path / "t.parquet"), want)
    pd.testing.assert_frame_equal(duckdb_engine.aggregate(query, str(tmp_path / "t.csv")), want)
    twice = duckdb_engine.aggregate_plan([query, agg.count(), query], t)  # computed once, given back to each
    pd.testing.assert_frame_equal(twice[0], want) and pd.testing.assert_frame_equal(twice[2], want)


def test_bad_queries_get_one_sentence():
    t = pd.DataFrame({"pid": [1.0, None], "value": [1.0, 2.0]})
    with pytest.raises(ValueError, match="person must name a person on every row, got 1 row"):
        duckdb_engine.aggregate(agg.count(person="pid", bounds=ContributionBounds()), t)
    plan = [agg.count(), agg.clipped_sum("value", 0, 1)]  # a plan runs in one query; its results in its order
    assert [r["rows"].iloc[0] for r in duckdb_engine.aggregate_plan(plan, t)] == [2, 2]
    with pytest.raises(ValueError, match="lower and upper must be finite"):
        agg.clipped_sum("value", 2, 1)
    with pytest.raises(ValueError, match="person and bounds must be given together"):
        agg.count(person="pid")
    with pytest.raises(ValueError, match="domain must be non-empty distinct keys"):
        agg.histogram("key", ["a", "a"])


def test_hostile_names_and_keys_are_quoted_not_run():
    t = pd.DataFrame({"we\"ird'; DROP": ["x'); --", "b", "x'); --"], "pid": [1, 2, 3]})
    got = duckdb_engine.aggregate(
        agg.histogram("we\"ird'; DROP", ["x'); --", "b"], person="pid", bounds=ContributionBounds()), t
    )
    assert got["rows"].tolist() == [2, 1]
    assert agg.SPARK.literal("x\\'); --") == "'x\\\\\\'); --'"  # Spark reads backslash escapes in literals


def _plan(bounds: ContributionBounds | None, *, quantile: bool = False):
    """A plan of every kind the engine computes, with a person identifier (without one when ``bounds`` is None):
    count, sum per declared key (with "(other)"), mean, category counts and a histogram of the values."""
    from dpcore.contributions import PrivacyUnit
    from dpcore.plan import Plan, Statistic

    stats = [
        Statistic("n", "count"),
        Statistic("total by key", "sum", column="value", lower=-1.0, upper=4.0, by="key", keys=("a", "b"), other=True),
        Statistic("mean", "mean", column="value", lower=0.0, upper=5.0, planned_n=300),
        Statistic("keys", "counts", column="key", domain=("a", "c", "d")),
        Statistic("spread", "histogram", column="value", lower=-2.0, upper=6.0, bins=4),
        Statistic("rows per key", "count", by="key", keys=KEYS),
    ]
    if quantile:
        stats.append(Statistic("median", "quantile", column="value", lower=-5, upper=10, q=0.5, resolution=0.25))
    unit = PrivacyUnit() if bounds is None else PrivacyUnit("pid", bounds)
    return Plan(tuple(stats), unit=unit, epsilon=2.0)


@pytest.mark.parametrize("seed", range(4))
def test_a_plans_aggregates_are_dpcores_truths_when_the_bounds_bind_no_one(seed):
    # the engine's rows kept and clipped sums per label are the truths dpcore computes on the rows itself
    from dpcore.plan import allocate
    from dpcore.plan_release import simulate_plan

    t = _table(seed)
    most_rows = int(t.groupby("pid").size().max())
    bounds = ContributionBounds(max_groups=len(KEYS) + 1, max_rows_per_group=most_rows, max_rows=most_rows)
    allocation = allocate(_plan(bounds))
    found = duckdb_engine.aggregate_plan(agg.plan_aggregates(allocation.plan, seed=seed), t)
    truths = simulate_plan(allocation, t, seed, trials=1).truths
    for share, got, truth in zip(allocation.shares, found, truths):
        stat = share.statistic
        assert got["key"].tolist() == (list(stat.labels) if stat.grouped else [""]), stat.name
        if stat.kind == "sum":
            np.testing.assert_array_equal(got["total"], truth, err_msg=stat.name)
        elif stat.kind == "mean":
            np.testing.assert_array_equal(np.clip(got["total"] / np.maximum(got["rows"], 1), 0.0, 5.0), truth)
        else:
            np.testing.assert_array_equal(got["rows"], truth, err_msg=stat.name)


def test_a_whole_number_category_in_a_column_with_missing_values_is_counted_as_dpcore_counts_it():
    # a column of whole numbers with a missing value is read as floats (9.0): its text in SQL is "9.0", the declared
    # category "9"; dpcore matches them, so must the engine (it counted zero before)
    from dpcore.plan import Plan, Statistic, allocate
    from dpcore.plan_release import simulate_plan

    rng = np.random.default_rng(5)
    years = rng.choice([9, 10, 11, -3], 200).astype(np.float64)
    years[rng.random(200) < 0.1] = np.nan
    t = pd.DataFrame({"years": years})
    plan = Plan((Statistic("years", "counts", column="years", domain=("9", "10", "-3", "12")),), epsilon=1.0)
    allocation = allocate(plan)
    found = duckdb_engine.aggregate_plan(agg.plan_aggregates(plan, seed=0), t)[0]
    truth = simulate_plan(allocation, t, 0, trials=1).truths[0]
    assert found["rows"].tolist() == list(truth) == [int((years == v).sum()) for v in (9, 10, -3, 12)]
    assert sum(truth) > 0


def test_publishing_from_aggregates_is_secure_simulating_is_seeded_and_both_within_their_expected_errors():
    from dpcore.plan import allocate
    from dpcore.plan_release import publish_from_aggregates, simulate_from_aggregates
    from dpcore.randomness import Randomness

    t = _table(7, rows=2_000, persons=200)
    allocation = allocate(_plan(ContributionBounds(max_groups=2, max_rows_per_group=3, max_rows=8)))
    found = duckdb_engine.aggregate_plan(agg.plan_aggregates(allocation.plan, seed=agg.secret_seed()), t)
    published = [publish_from_aggregates(allocation, found) for _ in range(2)]
    assert all(p.combined.randomness is Randomness.PUBLICATION for p in published)
    assert published[0].combined.values != published[1].combined.values  # fresh noise each time
    assert (published[0].combined.epsilon, published[0].combined.delta) == (allocation.epsilon, allocation.delta)
    assert [r.labels for r in published[0].releases] == [s.statistic.labels for s in allocation.shares]
    runs = [simulate_from_aggregates(allocation, found, s) for s in (5, 5)]
    assert runs[0].combined.randomness is Randomness.SIMULATION and "not private" in runs[0].releases[0].mechanism
    assert runs[0].combined.values == runs[1].combined.values
    # every number within its expected error with probability at least the confidence: 400 seeded releases, the
    # share of numbers within it at least confidence - 4.5 standard errors (means: their expected error is stated
    # at the planned n, which the table's rows exceed, so they are counted as the others)
    trials = 400
    draws = [simulate_from_aggregates(allocation, found, s).releases for s in range(trials)]
    conf = allocation.plan.confidence
    for i, (share, truth) in enumerate(zip(allocation.shares, found)):
        if share.statistic.kind == "mean":
            continue
        true = truth["total"] if share.statistic.kind == "sum" else truth["rows"]
        errors = np.abs(np.array([d[i].values for d in draws]) - true.to_numpy())
        within = np.mean(errors <= share.expected_error)
        assert within >= conf - 4.5 * math.sqrt(conf * (1 - conf) / errors.size), (share.statistic.name, within)


def test_a_quantile_is_refused_from_aggregates_in_one_sentence():
    from dpcore.plan import PlanError, allocate
    from dpcore.plan_release import publish_from_aggregates

    allocation = allocate(_plan(None, quantile=True))
    with pytest.raises(ValueError, match="statistic 'median' is a quantile, which needs the rows"):
        agg.plan_aggregates(allocation.plan, seed=1)
    with pytest.raises(PlanError, match="statistic 'median' is a quantile, which needs the rows"):
        publish_from_aggregates(allocation, [{"rows": [0.0]}] * len(allocation.shares))
    with pytest.raises(PlanError, match="aggregates must give one entry per statistic"):
        publish_from_aggregates(allocation, [])


# ---------------------------------------------------------------------- the explorer's other central queries


def _new_kinds_table(seed: int, rows: int = 400, persons: int = 50) -> pd.DataFrame:
    """:func:`_table` with a second key (some missing), dates as text (some junk, a month 13, some missing, some
    outside the declared years) and infinite values."""
    t = _table(seed, rows, persons)
    rng = np.random.default_rng(seed + 100)
    side = rng.choice(["x", "y", "w"], rows).astype(object)
    side[rng.random(rows) < 0.05] = None
    t["side"] = side
    days = pd.Timestamp("2019-10-01") + pd.to_timedelta(rng.integers(0, 800, rows), unit="D")
    day = pd.Series(days).dt.strftime("%Y-%m-%d").to_numpy(dtype=object)
    odd = rng.random(rows)
    day[odd < 0.04] = "junk"
    day[(odd >= 0.04) & (odd < 0.06)] = "2020-13-02"
    day[(odd >= 0.06) & (odd < 0.09)] = None
    t["day"] = day
    t.loc[rng.random(rows) < 0.03, "value"] = np.inf
    return t


def _new_kinds_plan(bounds: ContributionBounds | None):
    from dpcore.contributions import PrivacyUnit
    from dpcore.plan import Plan, Statistic

    stats = (
        Statistic("where", "count_where", where=(("value", "≥", 1.5), ("key", "is not", "b"))),
        Statistic("where one", "count_where", where=(("side", "is", "x"),)),
        Statistic("table", "two_way", column="key", domain=("a", "b", "c"), by="side", keys=("x", "y")),
        Statistic("table other", "two_way", column="key", domain=("a", "b"), by="side", keys=("x",), other=True),
        Statistic("months", "periods", column="day", period="month", first_year=2020, last_year=2020),
        Statistic("years", "periods", column="day", period="year", first_year=2019, last_year=2021),
        Statistic("top key", "most_common", column="key", domain=("d", "a", "b", "c", "nowhere")),
    )
    unit = PrivacyUnit() if bounds is None else PrivacyUnit("pid", bounds)
    return Plan(stats, unit=unit, epsilon=2.0)


@pytest.mark.parametrize("seed", range(3))
def test_the_new_kinds_aggregates_are_dpcores_truths(seed):
    # one row per person, and a person unit whose bounds bind no one: exact
    from dpcore.plan import allocate
    from dpcore.plan_release import _prepare  # noqa: PLC2701 (the most common value's scores are not released)

    t = _new_kinds_table(seed)
    most = int(t.groupby("pid").size().max())
    for bounds in (None, ContributionBounds(max_groups=15, max_rows_per_group=most, max_rows=most)):
        table = t if bounds is not None else t.drop(columns="pid")
        allocation = allocate(_new_kinds_plan(bounds))
        found = duckdb_engine.aggregate_plan(agg.plan_aggregates(allocation.plan, seed=seed), table)
        prepared = _prepare(allocation, table, np.random.default_rng(seed))
        for share, got, p in zip(allocation.shares, found, prepared):
            stat = share.statistic
            want = p.counts if stat.kind == "most_common" else p.parts[0][0]
            assert got["rows"].tolist() == want.tolist(), stat.name
            labels = stat.domain if stat.kind == "most_common" else stat.labels
            assert got["key"].tolist() == (list(labels) if stat.grouped or stat.domain else [""]), stat.name
        assert found[0]["rows"].iloc[0] > 0 and found[4]["rows"].sum() > 0


@pytest.mark.parametrize("seed", range(3))
def test_the_new_kinds_binding_bounds_keep_what_every_uniform_sample_keeps(seed):
    # min(rows meeting the conditions, m) per person; with L0 at least every person's cells, min(rows, L∞) per cell
    t = _new_kinds_table(seed)
    from dpcore.plan import allocate

    m, per_cell = 2, 1
    allocation = allocate(_new_kinds_plan(ContributionBounds(max_groups=15, max_rows_per_group=per_cell, max_rows=m)))
    found = duckdb_engine.aggregate_plan(agg.plan_aggregates(allocation.plan, seed=seed), t)
    meets = t["value"].between(1.5, np.inf, inclusive="left") & np.isfinite(t["value"]) & t["key"].notna()
    meets &= t["key"] != "b"
    assert found[0]["rows"].tolist() == [int(np.minimum(t[meets].groupby("pid").size(), m).sum())]
    cells = t[t["key"].isin(["a", "b", "c"]) & t["side"].isin(["x", "y"])]
    per = np.minimum(cells.groupby(["key", "side", "pid"]).size(), per_cell).groupby(level=[0, 1]).sum()
    assert found[2]["rows"].tolist() == [int(per.get((k, s), 0)) for k in "abc" for s in "xy"]
    top = t[t["key"].isin(["d", "a", "b", "c"])]
    per = np.minimum(top.groupby(["key", "pid"]).size(), per_cell).groupby(level=0).sum()
    assert found[6]["rows"].tolist() == [int(per.get(k, 0)) for k in ("d", "a", "b", "c")] + [0]


def test_the_new_kinds_publish_from_aggregates_securely_and_simulate_seeded():
    from dpcore.plan import allocate
    from dpcore.plan_release import publish_from_aggregates, simulate_from_aggregates
    from dpcore.randomness import Randomness

    t = _new_kinds_table(4)
    allocation = allocate(_new_kinds_plan(ContributionBounds(max_groups=3, max_rows_per_group=2, max_rows=2)))
    found = duckdb_engine.aggregate_plan(agg.plan_aggregates(allocation.plan, seed=agg.secret_seed()), t)
    one, two = (publish_from_aggregates(allocation, found) for _ in range(2))
    assert one.combined.randomness is Randomness.PUBLICATION
    numbers = [v for v in one.combined.values if not isinstance(v, str)]
    assert numbers != [v for v in two.combined.values if not isinstance(v, str)]
    assert [r.labels for r in one.releases] == [s.statistic.labels for s in allocation.shares]
    assert one.releases[-1].value in ("d", "a", "b", "c", "nowhere") and "secure" in one.releases[-1].mechanism
    runs = [simulate_from_aggregates(allocation, found, 9) for _ in range(2)]
    assert runs[0].combined.values == runs[1].combined.values
    assert runs[0].combined.randomness is Randomness.SIMULATION and "not private" in runs[0].releases[-1].mechanism
