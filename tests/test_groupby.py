"""dpcore.groupby: user-level count, sum and mean; group-bys with declared keys or private partition selection; the
publication. What is released (kept groups, threshold), what never is (the dropped groups), the noise each uses."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from dpcore.audit import audit
from dpcore.contributions import ContributionBounds
from dpcore.gaussian import analytic_gaussian_sigma
from dpcore.groupby import (
    OTHER,
    GroupByResult,
    dp_person_count,
    dp_person_mean,
    dp_person_sum,
    group_by,
    group_by_cost,
    group_by_releases,
    publish_group_by,
)
from dpcore.neighbours import ADD_REMOVE, UNIT_PERSON, UNIT_RECORD
from dpcore.partition_selection import (
    GaussianThresholding,
    LaplaceThresholding,
    OptimalSelection,
    selection,
    total_delta,
)
from dpcore.randomness import Randomness
from dpcore.release import Release
from tests.tolerances import Z

# a small table with one heavy person (0: 1,000 rows over 10 towns) and 60 light ones
HEAVY = 1_000
PERSONS = np.array([0] * HEAVY + list(range(1, 61)))
TOWNS = np.array([f"t{i % 10}" for i in range(HEAVY)] + [f"t{i % 3}" for i in range(60)])
VALUES = np.linspace(-20.0, 120.0, PERSONS.size)


# ---------------------------------------------------------------------------------------------- user-level queries


def test_person_count_sum_and_mean_bound_then_noise_at_the_bounds_sensitivity():
    b = ContributionBounds(max_rows=4)
    count = dp_person_count(PERSONS, 0.5, 0, bounds=b)
    assert count.true_value == 64.0 and count.unclipped_value == PERSONS.size
    assert count.mechanism.scale == 4 / 0.5  # m / ε
    total = dp_person_sum(VALUES, PERSONS, 0.0, 100.0, 1.0, 0, bounds=b)
    assert total.mechanism.sensitivity == 400.0 and total.n == 64  # m · max(|L|, |U|)
    assert total.unclipped_value == pytest.approx(VALUES.sum())
    mean = dp_person_mean(VALUES, PERSONS, 0.0, 100.0, 1.0, 0, bounds=b, split=0.25)
    assert mean.sum.mechanism.epsilon == pytest.approx(0.25) and mean.count.mechanism.epsilon == pytest.approx(0.75)
    assert mean.sum.mechanism.sensitivity == 400.0 and mean.count.mechanism.sensitivity == 4.0
    assert mean.true_value == pytest.approx(mean.sum.true_value / mean.count.true_value)
    g = dp_person_count(PERSONS, 1.0, 0, bounds=b, mechanism="gaussian", delta=1e-6)
    assert g.mechanism.sigma == pytest.approx(analytic_gaussian_sigma(1.0, 1e-6, 4.0))


def test_a_person_with_1000_rows_moves_every_query_by_at_most_the_bound():
    without = PERSONS != 0
    for m in (1, 3, 10):
        b = ContributionBounds(max_rows=m)
        for seed in range(3):
            c1 = dp_person_count(PERSONS, 1.0, seed, bounds=b).true_value
            c0 = dp_person_count(PERSONS[without], 1.0, seed, bounds=b).true_value
            assert c1 - c0 == m
            s1 = dp_person_sum(VALUES, PERSONS, 0.0, 100.0, 1.0, seed, bounds=b).true_value
            s0 = dp_person_sum(VALUES[without], PERSONS[without], 0.0, 100.0, 1.0, seed, bounds=b).true_value
            assert abs(s1 - s0) <= b.sum_sensitivity(0.0, 100.0).l1
    b = ContributionBounds(max_groups=3, max_rows_per_group=2)
    sel = OptimalSelection(1.0, 1e-6, 3)
    for seed in range(3):
        full = group_by(TOWNS, 1.0, seed, persons=PERSONS, bounds=b, keys=[f"t{i}" for i in range(10)])
        less = group_by(TOWNS[without], 1.0, seed, persons=PERSONS[without], bounds=b, keys=full.labels)
        d = np.abs(full.true_values - less.true_values)
        s = b.histogram_sensitivity()
        assert d.sum() == s.l1 and math.sqrt((d * d).sum()) == pytest.approx(s.l2) and d.max() == s.linf
        assert group_by(TOWNS, 1.0, seed, persons=PERSONS, bounds=b, selection=sel).kept >= 0


def test_missing_values_are_left_out_before_bounding():
    values = np.array([1.0, np.nan, 3.0, 4.0])
    r = dp_person_sum(values, [1, 1, 2, 2], 0.0, 10.0, 1.0, 0, bounds=ContributionBounds(max_rows=5))
    assert r.true_value == 8.0 and r.dropped_nan == 1 and r.n == 3


# ---------------------------------------------------------------------------------------------- declared keys


def test_declared_keys_release_every_key_absent_ones_with_a_noisy_zero():
    groups = ["a", "b", "a", "zz", None, "a"]
    r = group_by(groups, 1.0, 0, keys=["a", "b", "c"])
    assert r.labels == ("a", "b", "c") and r.true_values.tolist() == [3.0, 1.0, 0.0]
    assert r.noisy_values.shape == (3,) and r.noisy_values[2] != 0.0  # "c": nobody holds it, a noisy zero
    assert r.unit == UNIT_RECORD and r.relation is ADD_REMOVE and r.selection is None and r.threshold is None
    assert (r.epsilon, r.delta) == (1.0, 0.0)
    other = group_by(groups, 1.0, 0, keys=["a", "b", "c"], other=True)
    assert other.labels == ("a", "b", "c", OTHER) and other.true_values.tolist() == [3.0, 1.0, 0.0, 1.0]
    numbers = group_by([1, 2, 2, 7], 1.0, 0, keys=[1, 2, 3])  # compared as text
    assert numbers.true_values.tolist() == [1.0, 2.0, 0.0]


def test_sum_and_mean_per_group():
    groups = np.array(["x", "x", "y", "y", "y"])
    values = np.array([5.0, 50.0, -3.0, 1.0, np.nan])
    s = group_by(groups, 1.0, 0, keys=["x", "y"], statistic="sum", values=values, lower=0.0, upper=10.0)
    assert s.true_values.tolist() == [15.0, 1.0]  # clipped to [0, 10]; the missing value left out
    assert s.noise_std == pytest.approx(math.sqrt(2) * 10.0)  # Laplace, sensitivity max(|L|, |U|)
    m = group_by(groups, 1.0, 0, keys=["x", "y", "z"], statistic="mean", values=values, lower=0.0, upper=10.0)
    assert m.true_values[:2].tolist() == [7.5, 0.5] and math.isnan(m.true_values[2])
    assert np.all((m.noisy_values >= 0.0) & (m.noisy_values <= 10.0)) and math.isnan(m.noise_std)


def test_the_noise_of_a_vector_over_groups():
    # ℓ1 family: each entry at ε/L₀ and sensitivity L∞ (the Laplace scale L₀·L∞/ε); ℓ2 family: √L₀·L∞ at (ε, δ)
    b = ContributionBounds(max_groups=4, max_rows_per_group=3)
    keys = [f"t{i}" for i in range(10)]
    lap = group_by(TOWNS, 2.0, 0, persons=PERSONS, bounds=b, keys=keys)
    assert lap.noise_std == pytest.approx(math.sqrt(2) * 4 * 3 / 2.0)
    gau = group_by(TOWNS, 2.0, 0, persons=PERSONS, bounds=b, keys=keys, mechanism="gaussian", delta=1e-6)
    assert gau.noise_std == pytest.approx(analytic_gaussian_sigma(2.0, 1e-6, 2 * 3))
    stair = group_by(TOWNS, 2.0, 0, persons=PERSONS, bounds=b, keys=keys, mechanism="staircase")
    assert stair.epsilon == 2.0 and stair.unit == UNIT_PERSON
    # the noise has the stated law: 1,000 draws of one group's error
    errors = np.array(
        [group_by(TOWNS, 2.0, s, persons=PERSONS, bounds=b, keys=keys).noisy_values[0] for s in range(1_000)]
    )
    errors -= lap.true_values[0]
    # a Laplace sample std has standard error σ·√(5/(4n)) (excess kurtosis 3)
    assert abs(errors.std() - lap.noise_std) <= Z * lap.noise_std * math.sqrt(1.25 / 1_000)


# ---------------------------------------------------------------------------------------------- private selection


def test_private_selection_releases_kept_groups_and_the_threshold_never_the_dropped():
    # 30 groups of one person each and 5 groups of 200 persons
    persons = np.arange(30 + 5 * 200)
    groups = np.array([f"rare{i}" for i in range(30)] + [f"big{i // 200}" for i in range(1_000)])
    sel = LaplaceThresholding(1.0, 1e-6)
    r = group_by(groups, 1.0, 0, selection=sel, persons=persons, bounds=ContributionBounds())
    assert r.labels == tuple(f"big{i}" for i in range(5))  # sorted by label
    assert r.threshold == sel.threshold and r.epsilon == 2.0 and r.delta == pytest.approx(1e-6)
    assert isinstance(r, GroupByResult) and r.kept == 5
    fields = {f for f in GroupByResult.__dataclass_fields__}
    assert not any("drop" in f or "candidate" in f for f in fields)  # nothing names the dropped groups
    assert r.table().shape == (5, 2)
    # over many runs a one-person group is released with probability δ: never here
    runs = [group_by(groups, 1.0, s, selection=sel, persons=persons, bounds=ContributionBounds()) for s in range(50)]
    assert not any(label.startswith("rare") for run in runs for label in run.labels)


def test_selection_counts_distinct_persons_after_bounding():
    # one person with 500 rows in one group is one person: never enough for the threshold
    groups = np.array(["solo"] * 500 + ["crowd"] * 100)
    persons = np.array([0] * 500 + list(range(1, 101)))
    sel = OptimalSelection(1.0, 1e-6)
    for seed in range(20):
        r = group_by(groups, 1.0, seed, selection=sel, persons=persons, bounds=ContributionBounds())
        assert r.labels == ("crowd",)


def test_selection_costs_its_own_epsilon_and_delta():
    sel = GaussianThresholding(0.5, 1e-6, 2)
    b = ContributionBounds(max_groups=2, max_rows_per_group=5)
    r = group_by(TOWNS, 1.0, 0, persons=PERSONS, bounds=b, selection=sel, mechanism="gaussian", delta=1e-7)
    assert r.epsilon == 1.5 and r.delta == pytest.approx(sel.delta_spent + 1e-7)
    m = group_by(
        TOWNS, 1.0, 0, persons=PERSONS, bounds=b, selection=sel, statistic="mean", values=VALUES, lower=0, upper=100
    )
    assert m.epsilon == 1.5 and m.delta == pytest.approx(sel.delta_spent)


@pytest.mark.parametrize("key", ["optimal", "laplace_thresholding", "gaussian_thresholding"])
@pytest.mark.parametrize("l0", [1, 3])
def test_an_attacker_sees_a_person_s_own_groups_with_probability_at_most_the_stated_delta(key, l0):
    # The attack: a person alone in each of their L₀ groups is exposed when any of those groups is released (the
    # neighbour without them has no such group). 20,000 such persons in one seeded group-by (the simulation path,
    # whose selection the publication shares): each person is one independent trial of the exposure.
    n, delta = 20_000, 0.02
    persons = np.repeat(np.arange(n), l0)
    groups = np.array([f"g{i}" for i in range(n * l0)])
    sel = selection(key, 1.0, delta, l0)
    r = group_by(groups, 1.0, 2020 + l0, persons=persons, bounds=ContributionBounds(max_groups=l0), selection=sel)
    exposed = np.unique([int(label[1:]) // l0 for label in r.labels]).size / n
    stated = r.delta  # the release's δ (Laplace noise on the counts adds none)
    assert stated == group_by_cost(1.0, selection=sel)[1] == pytest.approx(sel.delta_spent)
    expected = total_delta(sel.group_delta, l0)  # exactly δ for the tight mechanisms, δ_threshold for the Gaussian
    assert expected <= stated * (1 + 1e-12)
    if key != "gaussian_thresholding":
        assert expected == pytest.approx(delta, rel=1e-9)
    sd = math.sqrt(expected * (1 - expected) / n)
    assert abs(exposed - expected) <= Z * sd, (exposed, expected, sd)
    assert exposed <= stated + Z * sd


# ---------------------------------------------------------------------------------------------- for the ledger


@pytest.mark.parametrize("statistic", ["count", "sum", "mean"])
@pytest.mark.parametrize("mechanism, delta", [("laplace", None), ("gaussian", 1e-7), ("staircase", None)])
@pytest.mark.parametrize("key, l0", [("optimal", 1), ("laplace_thresholding", 3), ("gaussian_thresholding", 2)])
def test_a_ledger_charged_the_group_by_s_releases_spends_its_cost(statistic, mechanism, delta, key, l0):
    from dpcore.accounting import ApproxDP, BudgetLedger

    sel = selection(key, 0.5, 1e-7, l0)
    b = ContributionBounds(max_groups=l0, max_rows_per_group=2)
    clip = {} if statistic == "count" else {"lower": 0.0, "upper": 100.0}
    releases = group_by_releases(
        1.0, statistic=statistic, mechanism=mechanism, delta=delta, selection=sel, bounds=b, **clip
    )
    # the selection first, at its ε and the δ it spends exactly, under add/remove one person
    assert releases[0] == ApproxDP(sel.epsilon, sel.delta_spent, ADD_REMOVE, UNIT_PERSON)
    assert len(releases) == 1 + (2 if statistic == "mean" else 1)
    led = BudgetLedger(5.0, 1e-5, "best", unit=UNIT_PERSON).spend_all(releases, unit=UNIT_PERSON)
    eps, dlt = group_by_cost(1.0, statistic=statistic, mechanism=mechanism, delta=delta, selection=sel)
    charge = led.charge()
    assert charge.accounting == "basic" and charge.delta == pytest.approx(dlt, rel=1e-12)
    # a Gaussian's exact ε at its δ (Balle & Wang 2018) is its nominal ε, up to its calibration's rounding
    assert charge.epsilon == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize("mechanism, delta", [("laplace", None), ("gaussian", 1e-7), ("staircase", None)])
def test_the_releases_for_the_ledger_carry_the_noise_the_group_by_draws(mechanism, delta):
    b = ContributionBounds(max_groups=1, max_rows_per_group=3)
    sel = OptimalSelection(0.5, 1e-6)
    result = group_by(TOWNS, 1.0, 0, persons=PERSONS, bounds=b, selection=sel, mechanism=mechanism, delta=delta)
    (_, noise) = group_by_releases(1.0, mechanism=mechanism, delta=delta, selection=sel, bounds=b)
    assert noise.std == pytest.approx(result.noise_std, rel=1e-12)
    # several groups per person: Laplace noise over the vector, at L₀ times one entry's sensitivity, is still ε-DP
    b3 = ContributionBounds(max_groups=3)
    (_, laplace) = group_by_releases(1.0, selection=OptimalSelection(0.5, 1e-6, 3), bounds=b3)
    three = group_by(TOWNS, 1.0, 0, persons=PERSONS, bounds=b3, selection=OptimalSelection(0.5, 1e-6, 3))
    assert laplace.std == pytest.approx(three.noise_std, rel=1e-12) and laplace.epsilon == pytest.approx(1.0)
    # declared keys: the noise alone
    assert group_by_releases(1.0) == (group_by_releases(1.0, selection=sel)[1],)


def test_the_releases_for_the_ledger_refuse_bad_input_in_one_sentence():
    with pytest.raises(ValueError, match=r"^selection must be built for the same max_groups as the bounds"):
        group_by_releases(1.0, selection=OptimalSelection(0.5, 1e-6, 2))
    with pytest.raises(TypeError, match=r"^bounds must be a ContributionBounds, got int"):
        group_by_releases(1.0, bounds=3)
    with pytest.raises(ValueError, match=r"^unit must be one of"):
        group_by_releases(1.0, unit="row")


# ---------------------------------------------------------------------------------------------- the publication


@pytest.mark.parametrize("statistic", ["count", "sum", "mean"])
@pytest.mark.parametrize("mechanism, delta", [("laplace", None), ("gaussian", 1e-7)])
@pytest.mark.parametrize("private", [False, True])
def test_the_cost_stated_before_the_draw_is_the_release_s(statistic, mechanism, delta, private):
    # what the page charges the log before drawing must be exactly what the release says it costs
    sel = OptimalSelection(0.5, 1e-6) if private else None
    keys = None if private else ["t0", "t1", "t2"]
    values = {} if statistic == "count" else {"values": VALUES, "lower": 0.0, "upper": 100.0}
    b = ContributionBounds(max_rows_per_group=3)
    rel = publish_group_by(
        TOWNS, 1.0, statistic=statistic, persons=PERSONS, bounds=b, keys=keys, selection=sel, mechanism=mechanism,
        delta=delta, **values,
    )  # fmt: skip
    cost = group_by_cost(1.0, statistic=statistic, mechanism=mechanism, delta=delta, selection=sel)
    assert (rel.epsilon, rel.delta) == cost
    assert cost == ((1.5 if private else 1.0), (delta or 0.0) + (sel.delta_spent if private else 0.0))


def test_publish_group_by_returns_a_release_under_add_remove_one_person():
    b = ContributionBounds(max_groups=2, max_rows_per_group=3)
    keys = [f"t{i}" for i in range(10)]
    rel = publish_group_by(TOWNS, 1.0, persons=PERSONS, identifier="pid", bounds=b, keys=keys, other=True)
    assert isinstance(rel, Release) and rel.randomness is Randomness.PUBLICATION and rel.is_publication
    assert rel.unit == UNIT_PERSON and rel.relation is ADD_REMOVE and rel.labels == (*keys, OTHER)
    assert rel.epsilon == 1.0 and rel.delta == 0.0 and len(rel.values) == 11
    names = {f.name for f in rel.public}
    assert {"person identifier", "contribution bounds", "group keys", "outside the keys"} <= names
    # the values sit on the lattice: a count's grid is a power of two
    sel = OptimalSelection(1.0, 1e-6, 2)
    rel2 = publish_group_by(
        TOWNS, 1.0, persons=PERSONS, bounds=b, selection=sel, statistic="sum", values=VALUES, lower=0, upper=100
    )
    assert rel2.epsilon == 2.0 and rel2.delta == pytest.approx(1e-6)
    assert "partition selection" in {f.name for f in rel2.public}
    assert list(rel2.labels) == sorted(rel2.labels)
    a = publish_group_by(TOWNS, 1.0, persons=PERSONS, bounds=b, keys=keys)
    c = publish_group_by(TOWNS, 1.0, persons=PERSONS, bounds=b, keys=keys)
    assert a.values != c.values  # fresh secure noise each time


def test_a_publication_draws_the_rows_kept_and_the_groups_kept_securely(monkeypatch):
    # the bounding's row sampling and the selection's decisions are part of the release: never from a seed
    import dpcore.groupby as groupby
    from dpcore.partition_selection import PartitionSelection
    from dpcore.randomness import SecureGenerator

    seen = []
    real_bound, real_select = groupby.bound_contributions, PartitionSelection.select

    def bound(persons, rng, **kwargs):
        seen.append(("bounding", type(rng)))
        return real_bound(persons, rng, **kwargs)

    def select(self, distinct, rng):
        seen.append(("selection", type(rng)))
        return real_select(self, distinct, rng)

    monkeypatch.setattr(groupby, "bound_contributions", bound)
    monkeypatch.setattr(PartitionSelection, "select", select)
    b = ContributionBounds(max_groups=2, max_rows_per_group=3)
    publish_group_by(TOWNS, 1.0, persons=PERSONS, bounds=b, selection=OptimalSelection(1.0, 1e-6, 2))
    assert seen == [("bounding", SecureGenerator), ("selection", SecureGenerator)]


def test_publication_refuses_what_it_cannot_publish_exactly():
    keys = ["t0", "t1"]
    with pytest.raises(ValueError, match="mechanism must be one published on a lattice, got 'staircase'"):
        publish_group_by(TOWNS, 1.0, keys=keys, mechanism="staircase")
    b = ContributionBounds(max_groups=2)
    with pytest.raises(ValueError, match="max_groups must be 1 to publish a group-by with Gaussian noise"):
        publish_group_by(TOWNS, 1.0, persons=PERSONS, bounds=b, keys=keys, mechanism="gaussian", delta=1e-6)
    rel = publish_group_by(TOWNS, 1.0, keys=keys, mechanism="gaussian", delta=1e-6)
    assert rel.delta == pytest.approx(1e-6, rel=1e-3) and rel.unit == UNIT_RECORD


# ---------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: group_by(["a"], 1.0, 0), "keys or selection must be given, not both"),
        (
            lambda: group_by(["a"], 1.0, 0, keys=["a"], selection=OptimalSelection(1.0, 1e-6)),
            "keys or selection must be given, not both",
        ),
        (
            lambda: group_by(
                ["a"], 1.0, 0, persons=[1], bounds=ContributionBounds(), selection=OptimalSelection(1.0, 1e-6, 2)
            ),
            "selection must be built for the same max_groups as the bounds (L₀ = 1), got 2",
        ),
        (lambda: group_by(["a"], 1.0, 0, keys=["a"], persons=[1]), "bounds must be a ContributionBounds when persons"),
        (
            lambda: group_by(["a"], 1.0, 0, keys=["a"], bounds=ContributionBounds(max_groups=2)),
            "bounds must be left out when every row is a different person",
        ),
        (
            lambda: group_by(["a", "b"], 1.0, 0, keys=["a"], persons=[1], bounds=ContributionBounds()),
            "persons must give one identifier per row",
        ),
        (
            lambda: group_by(["a"], 1.0, 0, keys=["a"], persons=[None], bounds=ContributionBounds()),
            "persons must name a person on every row, got 1 missing value(s)",
        ),
        (lambda: group_by(["a"], 1.0, 0, keys=["a"], statistic="sum"), "values must be given for a sum per group"),
        (lambda: group_by(["a"], 1.0, 0, keys=["a"], statistic="median"), "statistic must be one of 'count'"),
        (lambda: group_by(["a"], 1.0, 0, keys="abc"), "keys must be a list of group labels"),
        (lambda: group_by(["a"], 1.0, 0, keys=["a", "a"]), "keys must be distinct"),
        (lambda: group_by(["a"], 1.0, 0, keys=["a"], mechanism="gaussian"), "delta must be in (0, 1) for the Gaussian"),
        (lambda: group_by(["a"], 1.0, 0, keys=["a"], selection=None, mechanism="grr"), "mechanism must be one of"),
        (lambda: dp_person_count([1, None], 1.0, 0, bounds=ContributionBounds()), "persons must name a person"),
        (
            lambda: dp_person_sum([1.0, np.inf], [1, 2], 0, 1, 1.0, 0, bounds=ContributionBounds()),
            "values must be finite, got 1 infinite value(s)",
        ),
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
        group_by(np.arange(n), 1.0, 0, selection=OptimalSelection(1.0, 1e-6))
    assert str(info.value) == "groups (distinct values of the group column) must be at most 100000, got 1000000"
    assert time.perf_counter() - started < 10.0
    # with declared keys the values outside them are simply left out: no refusal, no stall
    r = group_by(np.arange(n), 1.0, 0, keys=["1", "2"])
    assert r.true_values.tolist() == [1.0, 1.0]


# ---------------------------------------------------------------------------------------------- audits


def test_the_user_level_count_audit_stays_below_its_claim_and_without_bounding_is_refuted():
    # neighbours differ in one whole person (1,000 rows, bounded to m = 5): 10⁶ runs reach most of ε, never above
    r = audit("person_count", 1.0, trials=10**6, rng=2)
    assert 0.9 <= r.epsilon_lower <= 1.0, r.summary
    # the same count without contribution bounding: the person's 1,000 rows move it by 1,000, the noise is for 5 rows
    broken = audit("person_count", 1.0, trials=10**6, rng=2, broken="no_bounding")
    assert broken.violated and broken.epsilon_lower > 10.0, broken.summary


def test_the_user_level_group_by_audit_stays_below_its_claim_and_without_bounding_is_refuted():
    # neighbours differ in one whole person with 250 rows in each of 4 declared groups, bounded to L₀ = 2 groups and
    # L∞ = 2 rows in each: the smallest noisy count's threshold reaches most of ε at 10⁶ runs, never above
    started = time.perf_counter()
    r = audit("person_group_by", 1.0, trials=10**6, rng=2)
    assert 0.9 <= r.epsilon_lower <= 1.0, r.summary
    assert r.neighbours.startswith("x: 100 persons in each of 4 declared groups") and "250 rows" in r.neighbours
    # without bounding the person's 1,000 rows all count, 250 in each group, against noise calibrated for 2 × 2 rows
    broken = audit("person_group_by", 1.0, trials=10**6, rng=2, broken="no_bounding")
    assert broken.violated and broken.epsilon_lower > 10.0, broken.summary
    assert time.perf_counter() - started < 30.0  # vectorised: under 2 s unloaded; a loop over runs takes minutes


def test_the_user_level_group_by_audit_with_partition_selection_stays_below_its_epsilon_delta_claim():
    # the groups chosen by Laplace thresholding (half of ε) on each group's distinct persons: an (ε, δ) claim whose
    # cost is group_by_cost's; on groups of n = ⌊τ⌋ − 1 persons one more person multiplies the keep probability by
    # e^(ε_sel/L₀), so "every group released and its count ≥ t" reaches most of ε at 10⁶ runs, never above
    selection = LaplaceThresholding(0.5, 1e-5, max_groups=2)
    r = audit("person_group_by_selection", 1.0, trials=10**6, rng=2)
    assert r.delta == group_by_cost(0.5, selection=selection)[1] == selection.delta_spent
    assert r.params["n"] == math.floor(selection.threshold) - 1
    assert 0.85 <= r.epsilon_lower <= 1.0, r.summary
    broken = audit("person_group_by_selection", 1.0, trials=10**6, rng=2, broken="no_bounding")
    assert broken.violated and broken.epsilon_lower > 5.0, broken.summary


def test_the_group_by_audits_event_is_where_the_likelihood_ratio_is_e_to_the_epsilon():
    from dpcore.audit import CATALOGUE
    from dpcore.audit.catalogue import group_by_keys, person_group_by_pair

    n, g, eps, l0, linf = 100, 4, 1.0, 2, 2
    bounds = ContributionBounds(max_groups=l0, max_rows_per_group=linf)
    (_, _), (persons1, groups1) = person_group_by_pair(n, g)
    # dpcore's bounding keeps L∞ rows in L₀ of the heavy person's 4 groups, a different pair of groups by the seed
    kept = set()
    for seed in range(60):
        extra = group_by(groups1, eps, seed, persons=persons1, bounds=bounds, keys=group_by_keys(g)).true_values - n
        assert sorted(extra.tolist()) == [0.0] * (g - l0) + [float(linf)] * l0
        kept.add(tuple(np.flatnonzero(extra)))
    assert len(kept) == 6  # each of the 6 pairs seen (one missed in 60 draws: probability 6·(5/6)^60 < 10⁻⁴)
    # {smallest ≥ n + L∞}: 2^-G e^(-ε(G-L₀)/L₀) on x′, 2^-G e^(-εG/L₀) on x: a ratio of exactly e^ε
    sampler = CATALOGUE["person_group_by"].build(eps, {"n": n, "groups": g})
    rng, m = np.random.default_rng(3), 10**6
    on_x1 = np.count_nonzero(sampler.draw1(rng, m) >= n + linf) / m
    on_x0 = np.count_nonzero(sampler.draw0(rng, m) >= n + linf) / m
    for got, want in ((on_x1, 2.0**-g * math.exp(-eps * (g - l0) / l0)), (on_x0, 2.0**-g * math.exp(-eps * g / l0))):
        assert abs(got - want) <= Z * math.sqrt(want * (1.0 - want) / m), (got, want)
