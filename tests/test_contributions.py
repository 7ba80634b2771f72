"""dpcore.contributions: the unit of privacy, contribution bounding, and the sensitivities under add/remove one person.

The sensitivities are checked by brute force: for small tables every outcome of the bounding (each person keeping
any allowed subset of their rows) and every person removed, the query moves by at most the stated ℓ1, ℓ2 and per-entry
sensitivity, and by exactly that much somewhere (the bound is tight). The bounding is checked to keep only allowed
subsets, each with the same probability, and a person with 1,000 rows to move a count by at most the bound.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest
from scipy import stats

from dpcore.accounting import BudgetLedger
from dpcore.contributions import (
    ROW_PER_PERSON,
    BoundedTable,
    ContributionBounds,
    PrivacyUnit,
    Sensitivity,
    bound_contributions,
    rows_per_person,
)
from dpcore.laplace import Laplace
from dpcore.neighbours import ADD_REMOVE, UNIT_PERSON, UNIT_RECORD, UNITS
from dpcore.randomness import SecureGenerator

# ---------------------------------------------------------------------------------------------- brute force

#: A small table: (person, group, value). Person 0 reaches every bound (many rows, several groups, extreme values).
TABLE = [
    (0, "a", 10.0),
    (0, "a", 12.0),
    (0, "a", -4.0),
    (0, "b", 10.0),
    (0, "b", 20.0),
    (0, "b", 3.0),
    (0, "c", 15.0),
    (0, "c", 11.0),
    (1, "a", 2.0),
    (1, "b", 12.0),
    (1, "b", -7.0),
    (2, "c", 5.0),
]
GROUPS = ("a", "b", "c")
LOWER, UPPER = -5.0, 10.0


def _row_outcomes(table, m):
    """Every bounded table of an ungrouped bound m: each person keeps any min(rows, m) of their rows."""
    by_person = {}
    for i, (p, _, _) in enumerate(table):
        by_person.setdefault(p, []).append(i)
    choices = [list(itertools.combinations(rows, min(len(rows), m))) for rows in by_person.values()]
    for pick in itertools.product(*choices):
        yield [i for part in pick for i in part]


def _group_outcomes(table, l0, linf):
    """Every bounded table of a group-by: each person keeps any min(groups, L₀) groups, any min(rows, L∞) rows in each."""
    by_person = {}
    for i, (p, g, _) in enumerate(table):
        by_person.setdefault(p, {}).setdefault(g, []).append(i)
    per_person = []
    for groups in by_person.values():
        options = []
        for chosen in itertools.combinations(sorted(groups), min(len(groups), l0)):
            row_choices = [list(itertools.combinations(groups[g], min(len(groups[g]), linf))) for g in chosen]
            for rows in itertools.product(*row_choices):
                options.append([i for part in rows for i in part])
        per_person.append(options)
    for pick in itertools.product(*per_person):
        yield [i for part in pick for i in part]


def _count(table, rows):
    return np.array([float(len(rows))])


def _sum(table, rows):
    return np.array([sum(min(max(table[i][2], LOWER), UPPER) for i in rows)])


def _group_counts(table, rows):
    return np.array([sum(1.0 for i in rows if table[i][1] == g) for g in GROUPS])


def _group_sums(table, rows):
    return np.array([sum(min(max(table[i][2], LOWER), UPPER) for i in rows if table[i][1] == g) for g in GROUPS])


def _distinct(table, rows):
    return np.array([float(len({table[i][0] for i in rows if table[i][1] == g})) for g in GROUPS])


def _largest_moves(table, outcomes, query):
    """The largest ℓ1, ℓ2 and ℓ∞ change of ``query`` when one whole person leaves a bounded table, over all of them."""
    worst = np.zeros(3)
    for rows in outcomes:
        full = query(table, rows)
        for person in {p for p, _, _ in table}:
            without = [i for i in rows if table[i][0] != person]  # a bounded table of the neighbour without them
            d = np.abs(full - query(table, without))
            worst = np.maximum(worst, [d.sum(), math.sqrt((d * d).sum()), d.max()])
    return worst


def _check(worst, s: Sensitivity):
    assert worst[0] <= s.l1 + 1e-9 and worst[1] <= s.l2 + 1e-9 and worst[2] <= s.linf + 1e-9, (worst, s)
    # tight: person 0 reaches every bound of this table, so the stated sensitivity is what a neighbour can move
    np.testing.assert_allclose(worst, [s.l1, s.l2, s.linf], rtol=1e-12)


@pytest.mark.parametrize("m", [1, 2, 3])
def test_count_and_sum_sensitivities_match_every_neighbouring_pair(m):
    b = ContributionBounds(max_rows=m)
    outcomes = list(_row_outcomes(TABLE, m))
    _check(_largest_moves(TABLE, outcomes, _count), b.count_sensitivity())
    _check(_largest_moves(TABLE, outcomes, _sum), b.sum_sensitivity(LOWER, UPPER))
    total, count = b.mean_sensitivities(LOWER, UPPER)
    assert total == b.sum_sensitivity(LOWER, UPPER) and count == b.count_sensitivity()


@pytest.mark.parametrize("l0, linf", [(1, 1), (2, 1), (1, 2), (2, 2), (3, 2)])
def test_group_sensitivities_match_every_neighbouring_pair(l0, linf):
    b = ContributionBounds(max_groups=l0, max_rows_per_group=linf)
    outcomes = list(_group_outcomes(TABLE, l0, linf))
    _check(_largest_moves(TABLE, outcomes, _group_counts), b.histogram_sensitivity())
    _check(_largest_moves(TABLE, outcomes, _group_sums), b.group_sum_sensitivity(LOWER, UPPER))
    _check(_largest_moves(TABLE, outcomes, _distinct), b.distinct_sensitivity())
    sums, counts = b.group_mean_sensitivities(LOWER, UPPER)
    assert sums == b.group_sum_sensitivity(LOWER, UPPER) and counts == b.histogram_sensitivity()


@pytest.mark.parametrize("m", [1, 2, 3])
def test_a_histogram_of_at_most_m_rows_per_person_in_any_bins_matches_every_neighbouring_pair(m):
    # ungrouped bounding (m rows in total, in whatever bins), counted per bin: person 0 has 3 rows in "a", so m rows
    # in one bin reach every stated norm
    b = ContributionBounds(max_rows=m)
    _check(_largest_moves(TABLE, list(_row_outcomes(TABLE, m)), _group_counts), b.rows_histogram_sensitivity())


def _random_table(rng, persons: int, rows: int):
    """A small random table: each row a random person of ``persons`` and a random group of GROUPS."""
    return [(int(rng.integers(persons)), GROUPS[int(rng.integers(len(GROUPS)))], 0.0) for _ in range(rows)]


@pytest.mark.parametrize("m", [1, 2, 3])
def test_the_rows_histogram_bound_holds_on_random_tables_and_is_reached_when_a_person_fills_one_bin(m):
    rng = np.random.default_rng(20 + m)  # fixed: which small tables are enumerated
    s = ContributionBounds(max_rows=m).rows_histogram_sensitivity()
    reached = {"l1": 0, "l2": 0}
    for _ in range(40):
        table = _random_table(rng, int(rng.integers(1, 4)), int(rng.integers(1, 8)))
        worst = _largest_moves(table, list(_row_outcomes(table, m)), _group_counts)
        assert worst[0] <= s.l1 + 1e-9 and worst[1] <= s.l2 + 1e-9 and worst[2] <= s.linf + 1e-9, (table, worst)
        per_person, per_cell = {}, {}
        for p, g, _ in table:
            per_person[p] = per_person.get(p, 0) + 1
            per_cell[p, g] = per_cell.get((p, g), 0) + 1
        # attained: ℓ1 = m once a person has m rows; ℓ2 = ℓ∞ = m once a person has m rows in one bin
        if max(per_person.values()) >= m:
            assert worst[0] == pytest.approx(s.l1)
            reached["l1"] += 1
        if max(per_cell.values()) >= m:
            assert worst[1] == pytest.approx(s.l2) and worst[2] == pytest.approx(s.linf)
            reached["l2"] += 1
    assert reached["l1"] and reached["l2"], reached  # both cases were among the tables


def test_without_bounds_a_person_moves_a_count_by_all_their_rows():
    # negative control: the brute force sees the sensitivity of the unbounded table (person 0 has 8 rows)
    worst = _largest_moves(TABLE, [list(range(len(TABLE)))], _count)
    assert worst[0] == 8.0 > ContributionBounds(max_rows=5).count_sensitivity().l1


def _as_arrays(table):
    persons = np.array([p for p, _, _ in table])
    groups = np.array([g for _, g, _ in table])
    return persons, groups


@pytest.mark.parametrize("rng", [0, 1, 2, SecureGenerator()], ids=["seed0", "seed1", "seed2", "secure"])
def test_the_bounding_keeps_an_allowed_outcome(rng):
    persons, groups = _as_arrays(TABLE)
    rows = bound_contributions(persons, rng, bounds=ContributionBounds(max_rows=2))
    assert sorted(np.flatnonzero(rows.kept).tolist()) in [sorted(o) for o in _row_outcomes(TABLE, 2)]
    b = ContributionBounds(max_groups=2, max_rows_per_group=2)
    grouped = bound_contributions(persons, rng, bounds=b, groups=groups)
    assert sorted(np.flatnonzero(grouped.kept).tolist()) in [sorted(o) for o in _group_outcomes(TABLE, 2, 2)]
    kept = [i for i in np.flatnonzero(grouped.kept)]
    np.testing.assert_array_equal(
        grouped.distinct[[list(grouped.group_labels).index(g) for g in GROUPS]], _distinct(TABLE, kept)
    )


def test_a_person_with_1000_rows_moves_a_bounded_count_by_at_most_the_bound():
    persons = np.array([0] * 1_000 + list(range(1, 51)))
    without = persons[persons != 0]
    for m in (1, 5, 37):
        b = ContributionBounds(max_rows=m)
        for seed in range(5):
            moved = (
                bound_contributions(persons, seed, bounds=b).rows_kept
                - bound_contributions(without, seed, bounds=b).rows_kept
            )
            assert moved == min(1_000, m) == b.count_sensitivity().l1
    groups = np.array([f"g{i % 40}" for i in range(1_000)] + ["g0"] * 50)
    b = ContributionBounds(max_groups=3, max_rows_per_group=4)
    table = bound_contributions(persons, 7, bounds=b, groups=groups)
    heavy = table.kept[:1_000]
    assert heavy.sum() == 12  # 3 groups × 4 rows of the heavy person
    assert len({groups[i] for i in np.flatnonzero(heavy)}) == 3
    assert table.kept[1_000:].all()


# ---------------------------------------------------------------------------------------------- uniform sampling


def test_each_person_keeps_a_uniformly_random_subset_of_their_rows():
    # 30,000 persons with 4 rows each, bound 2: each of the C(4, 2) = 6 subsets equally likely (chi-square)
    persons = np.repeat(np.arange(30_000), 4)
    kept = bound_contributions(persons, 11, bounds=ContributionBounds(max_rows=2)).kept.reshape(-1, 4)
    assert (kept.sum(axis=1) == 2).all()
    patterns = kept @ np.array([8, 4, 2, 1])
    counts = np.array([np.count_nonzero(patterns == p) for p in (12, 10, 9, 6, 5, 3)])
    assert counts.sum() == 30_000
    assert stats.chisquare(counts).pvalue > 1e-6, counts


def test_each_person_keeps_uniformly_random_groups_then_rows():
    # each person: 3 rows in group x, 1 in y, 2 in z; L₀ = 1, L∞ = 1: each group chosen 1/3, each row of x 1/9
    n = 30_000
    persons = np.repeat(np.arange(n), 6)
    groups = np.tile(np.array(["x", "x", "x", "y", "z", "z"]), n)
    kept = bound_contributions(persons, 3, bounds=ContributionBounds(max_groups=1), groups=groups).kept.reshape(-1, 6)
    assert (kept.sum(axis=1) == 1).all()
    counts = kept.sum(axis=0)
    expected = n * np.array([1 / 9, 1 / 9, 1 / 9, 1 / 3, 1 / 6, 1 / 6])
    assert stats.chisquare(counts, expected).pvalue > 1e-6, counts
    secure = bound_contributions(persons, SecureGenerator(), bounds=ContributionBounds(max_groups=1), groups=groups)
    counts = secure.kept.reshape(-1, 6).sum(axis=0)
    assert stats.chisquare(counts, expected).pvalue > 1e-6, counts


def test_the_bounding_is_reproducible_from_a_seed_and_fresh_when_secure():
    persons = np.repeat(np.arange(500), 7)
    b = ContributionBounds(max_rows=3)
    a, c = bound_contributions(persons, 5, bounds=b), bound_contributions(persons, 5, bounds=b)
    np.testing.assert_array_equal(a.kept, c.kept)
    s1 = bound_contributions(persons, SecureGenerator(), bounds=b).kept
    s2 = bound_contributions(persons, SecureGenerator(), bounds=b).kept
    assert s1.sum() == s2.sum() == 1_500 and not np.array_equal(s1, s2)  # 500 × C(7, 3) outcomes: never equal


def test_identifiers_of_any_kind_and_missing_groups():
    strings = bound_contributions(["ann", "bob", "ann", "ann"], 0, bounds=ContributionBounds(max_rows=2))
    assert strings.rows_kept == 3 and strings.persons == 2 and strings.rows_dropped == 1
    t = bound_contributions([1, 1, 2], 0, bounds=ContributionBounds(max_groups=2), groups=["a", None, "a"])
    assert t.kept.tolist() == [True, False, True] and t.distinct.tolist() == [2]
    empty = bound_contributions(np.array([], dtype=np.int64), 0, bounds=ContributionBounds())
    assert isinstance(empty, BoundedTable) and empty.rows == 0
    assert rows_per_person(["a", "b", "a"]).tolist() == [2, 1]


# ---------------------------------------------------------------------------------------------- the unit


def test_one_row_per_person_is_todays_record_level_default():
    b = ROW_PER_PERSON.bounds
    assert ROW_PER_PERSON.unit == UNIT_RECORD and ROW_PER_PERSON.relation is ADD_REMOVE
    assert b.count_sensitivity().l1 == ADD_REMOVE.counting_query_sensitivity
    assert b.sum_sensitivity(-5.0, 3.0).l1 == ADD_REMOVE.clipped_sum_sensitivity(-5.0, 3.0)
    assert b.histogram_sensitivity().l1 == ADD_REMOVE.histogram_l1_sensitivity
    assert b.histogram_sensitivity().l2 == ADD_REMOVE.histogram_l2_sensitivity
    unit = PrivacyUnit("patient", ContributionBounds(max_groups=4, max_rows_per_group=3, max_rows=7))
    assert unit.unit == UNIT_PERSON and "patient" in unit.words()
    s = unit.bounds.histogram_sensitivity()
    assert (s.l1, s.l2, s.linf, s.entries) == (12.0, 6.0, 3.0, 4)
    assert s.norm("L1") == 12.0 and s.norm("L2") == 6.0


@pytest.mark.parametrize("m", [1, 3, 7])
def test_a_person_ledger_charges_a_bounded_count_as_the_person_level_count_it_is(m):
    # two routes to one fact: a count on a table bounded to m rows per person, calibrated per person (sensitivity m,
    # dpcore.contributions), and the same noise recorded per record with the bound m declared (group privacy,
    # dpcore.neighbours.conversion), cost a person-level ledger the same ε
    assert UNIT_PERSON in UNITS
    unit = PrivacyUnit("patient", ContributionBounds(max_rows=m))
    sensitivity = unit.bounds.count_sensitivity().l1
    person_level = BudgetLedger(10.0, 1e-6, unit=unit.unit).spend(Laplace(5.0, sensitivity), unit=unit.unit)
    record_level = BudgetLedger(10.0, 1e-6, unit=unit.unit).spend(Laplace(5.0), rows_per_person=m)
    assert person_level.spent() == record_level.spent() == (m / 5.0, 0.0)
    # a person-level count in a record-level ledger: two records' worth (remove the person, add them back changed)
    assert BudgetLedger(10.0, 1e-6).spend(Laplace(5.0, sensitivity), unit=unit.unit).spent().epsilon == 2 * m / 5.0
    # a record-level count in a person-level ledger without a declared bound: refused in one sentence
    ledger = BudgetLedger(10.0, 1e-6, unit=UNIT_PERSON)
    with pytest.raises(ValueError) as info:
        ledger.spend(Laplace(5.0))
    assert "person with many rows" in str(info.value) and "\n" not in str(info.value)
    assert ledger.spent().epsilon == 0.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ContributionBounds(max_rows=0), "max_rows must be an integer in [1, 5000000], got 0"),
        (lambda: ContributionBounds(max_groups=0), "max_groups must be an integer in [1, 100000], got 0"),
        (lambda: ContributionBounds(max_rows_per_group=-1), "max_rows_per_group must be an integer in [1, "),
        (lambda: ContributionBounds(max_rows=2.5), "max_rows must be an integer, got 2.5"),
        (lambda: PrivacyUnit(None, ContributionBounds(max_rows=3)), "bounds must all be 1 when every row"),
        (lambda: PrivacyUnit(""), "identifier must be a non-empty column name or None"),
        (
            lambda: bound_contributions([1, None, 2, np.nan], 0, bounds=ContributionBounds()),
            "persons must name a person on every row, got 2 missing value(s)",
        ),
        (
            lambda: bound_contributions([1, 2], 0, bounds=ContributionBounds(), groups=["a"]),
            "groups must give one group per row (2 rows), got 1",
        ),
        (lambda: bound_contributions([1], 0, bounds=3), "bounds must be a ContributionBounds, got int"),
        (lambda: Sensitivity(1.0, 1.0, 1.0).norm("L3"), "norm must be one of 'L1', 'L2', got 'L3'"),
    ],
)
def test_bad_input_gets_one_sentence(call, message):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert str(info.value).startswith(message), str(info.value)
    assert "\n" not in str(info.value)


def test_a_group_column_with_a_million_distinct_keys_is_refused_at_once():
    n = 1_000_000
    started = time.perf_counter()
    with pytest.raises(ValueError) as info:
        bound_contributions(np.arange(n) % 1_000, 0, bounds=ContributionBounds(), groups=np.arange(n))
    assert str(info.value) == ("groups (distinct values of the group column) must be at most 100000, got 1000000")
    assert time.perf_counter() - started < 10.0  # refused after one hash pass over the column, before any sort
