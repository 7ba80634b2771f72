"""Tests for dpcore.neighbours: each sensitivity against a brute-force search over neighbours, and the conversions
between relations and units against their closed forms and against the exact privacy loss of a mechanism."""

import itertools
import math

import numpy as np
import pytest

from dpcore import (
    ADD_REMOVE,
    REPLACE_ONE,
    UNIT_CLIENT,
    UNIT_PERSON,
    UNIT_RECORD,
    Gaussian,
    Laplace,
    NeighbouringRelation,
    RelationError,
    dp_category_counts,
    dp_count,
    dp_histogram,
    dp_sum,
)
from dpcore.accounting import BudgetLedger
from dpcore.gdp import gdp_delta, gdp_epsilon
from dpcore.neighbours import UNITS, Conversion, _group_privacy, conversion, convert, convert_rho
from dpcore.queries import RELATION, clipped_sum_sensitivity

EDGES = np.array([0.0, 1.0, 2.0, 3.0, 4.0])


def neighbours(data: np.ndarray, relation: NeighbouringRelation, domain: np.ndarray):
    """Every neighbour of ``data`` whose new record is in ``domain``: remove or add one, or replace one."""
    if relation is ADD_REMOVE:
        for i in range(data.size):
            yield np.delete(data, i)
        for x in domain:
            yield np.append(data, x)
    else:
        for i in range(data.size):
            for x in domain:
                other = data.copy()
                other[i] = x
                yield other


def largest_change(query, data, relation, domain, norm=1):
    base = np.atleast_1d(query(data))
    return max(
        np.linalg.norm(np.atleast_1d(query(other)) - base, ord=norm) for other in neighbours(data, relation, domain)
    )


def histogram(x):
    return np.histogram(np.clip(x, EDGES[0], EDGES[-1]), bins=EDGES)[0].astype(float)


def test_table_of_sensitivities():
    assert [r.value for r in NeighbouringRelation] == ["add/remove one record", "replace one record"]
    assert ADD_REMOVE.counting_query_sensitivity == REPLACE_ONE.counting_query_sensitivity == 1.0
    assert (ADD_REMOVE.histogram_l1_sensitivity, REPLACE_ONE.histogram_l1_sensitivity) == (1.0, 2.0)
    assert (ADD_REMOVE.histogram_l2_sensitivity, REPLACE_ONE.histogram_l2_sensitivity) == (1.0, math.sqrt(2.0))
    assert ADD_REMOVE.clipped_sum_sensitivity(-5.0, 3.0) == 5.0  # max(|L|, |U|)
    assert REPLACE_ONE.clipped_sum_sensitivity(-5.0, 3.0) == 8.0  # U − L
    assert ADD_REMOVE.clipped_sum_sensitivity(2.0, 7.0) == 7.0 and REPLACE_ONE.clipped_sum_sensitivity(2.0, 7.0) == 5.0


@pytest.mark.parametrize("relation", list(NeighbouringRelation))
def test_sensitivities_are_the_largest_change_between_neighbours(relation):
    rng = np.random.default_rng(3)
    domain = np.array([-7.0, -5.0, -1.0, 0.5, 1.5, 2.5, 3.0, 9.0])
    lower, upper = -5.0, 3.0
    for _ in range(5):
        data = rng.choice(domain, size=6)

        def count_positive(x):  # a counting query #{x: x > 0}
            return float(np.sum(x > 0))

        def clipped_sum(x):
            return float(np.clip(x, lower, upper).sum())

        assert largest_change(count_positive, data, relation, domain) <= relation.counting_query_sensitivity
        assert largest_change(histogram, data, relation, domain, 1) <= relation.histogram_l1_sensitivity
        assert largest_change(histogram, data, relation, domain, 2) <= relation.histogram_l2_sensitivity + 1e-15
        assert largest_change(clipped_sum, data, relation, domain) <= relation.clipped_sum_sensitivity(lower, upper)
    # and each bound is attained: the data above contain −5 and values in different bins, the domain 3 and 9
    data = np.array([-5.0, 0.5, 2.5])
    assert largest_change(histogram, data, relation, domain, 1) == relation.histogram_l1_sensitivity
    assert largest_change(histogram, data, relation, domain, 2) == pytest.approx(relation.histogram_l2_sensitivity)
    assert largest_change(clipped_sum, data, relation, domain) == relation.clipped_sum_sensitivity(lower, upper)


def test_the_relation_matters():
    # negative control: the add/remove sensitivities are too small for replace-one neighbours
    data = np.array([-5.0, 0.5, 2.5])
    domain = np.array([-5.0, 3.0])
    assert largest_change(histogram, data, REPLACE_ONE, domain, 1) > ADD_REMOVE.histogram_l1_sensitivity
    change = largest_change(lambda x: np.clip(x, -5.0, 3.0).sum(), data, REPLACE_ONE, domain)
    assert change > ADD_REMOVE.clipped_sum_sensitivity(-5.0, 3.0)


def test_central_queries_use_add_remove():
    assert RELATION is ADD_REMOVE
    assert clipped_sum_sensitivity(-5.0, 3.0) == ADD_REMOVE.clipped_sum_sensitivity(-5.0, 3.0)
    values = [1.0, 2.0, 5.0]
    assert dp_count(values, 0.5, 0).mechanism.sensitivity == ADD_REMOVE.counting_query_sensitivity
    assert dp_sum(values, -5.0, 3.0, 0.5, 0).mechanism.sensitivity == 5.0
    assert dp_histogram(values, 3, 0.5, 0, lower=0, upper=6).mechanism.sensitivity == 1.0
    g = dp_histogram(values, 3, 0.5, 0, lower=0, upper=6, mechanism="gaussian", delta=1e-6)
    assert g.mechanism.sensitivity == ADD_REMOVE.histogram_l2_sensitivity


def test_bad_bounds():
    with pytest.raises(ValueError, match="lower must be below upper, got lower=3.0 and upper=1.0"):
        REPLACE_ONE.clipped_sum_sensitivity(3.0, 1.0)
    with pytest.raises(ValueError, match="lower must be finite"):
        ADD_REMOVE.clipped_sum_sensitivity(-math.inf, 1.0)


# ---------------------------------------------------------------------------------- units and conversions


def test_units_live_with_the_relations_and_are_still_named_by_release():
    from dpcore import release

    assert (UNIT_RECORD, UNIT_CLIENT, UNIT_PERSON) == UNITS == ("record", "client", "person")
    assert release.UNIT_RECORD is UNIT_RECORD and release.UNIT_CLIENT is UNIT_CLIENT
    assert ADD_REMOVE.words() == "add/remove one record" == ADD_REMOVE.value
    assert REPLACE_ONE.words(UNIT_CLIENT) == "replace one client"


AR, R1, REC, CLI, PER = ADD_REMOVE, REPLACE_ONE, UNIT_RECORD, UNIT_CLIENT, UNIT_PERSON
#: (release's relation, unit) -> (ledger's relation, unit): k, or None for a refusal. One step of the ledger's relation
#: is a path of k steps of the release's: a replacement is a removal then an addition; a record added, removed or
#: replaced changes its client's data (remove the client, add it back changed), and replacing a record replaces its
#: client's data; a replace-one guarantee may reveal n, so gives nothing under add/remove; a record-level guarantee
#: says nothing about a whole client. A person: removing a record's person and adding them back changed covers a
#: record added or removed (2), a replaced record may move between two persons (4), replacing one person per replaced
#: record twice (2); a record-level guarantee per person needs a declared bound on rows (refused here, without one);
#: a person and a client are different units.
GROUPS = {
    ((AR, REC), (AR, REC)): 1,
    ((AR, REC), (R1, REC)): 2,
    ((R1, REC), (AR, REC)): None,
    ((R1, REC), (R1, REC)): 1,
    ((AR, CLI), (AR, CLI)): 1,
    ((AR, CLI), (R1, CLI)): 2,
    ((R1, CLI), (AR, CLI)): None,
    ((R1, CLI), (R1, CLI)): 1,
    ((AR, CLI), (AR, REC)): 2,
    ((AR, CLI), (R1, REC)): 2,
    ((R1, CLI), (R1, REC)): 1,
    ((R1, CLI), (AR, REC)): None,
    ((AR, REC), (AR, CLI)): None,
    ((AR, REC), (R1, CLI)): None,
    ((R1, REC), (AR, CLI)): None,
    ((R1, REC), (R1, CLI)): None,
    ((AR, PER), (AR, PER)): 1,
    ((AR, PER), (R1, PER)): 2,
    ((R1, PER), (AR, PER)): None,
    ((R1, PER), (R1, PER)): 1,
    ((AR, PER), (AR, REC)): 2,
    ((AR, PER), (R1, REC)): 4,
    ((R1, PER), (R1, REC)): 2,
    ((R1, PER), (AR, REC)): None,
    **{((rel, REC), (to, PER)): None for rel in (AR, R1) for to in (AR, R1)},
    **{((rel, a), (to, b)): None for rel in (AR, R1) for to in (AR, R1) for a, b in ((CLI, PER), (PER, CLI))},
}


def test_the_table_covers_every_pair():
    pairs = list(itertools.product(NeighbouringRelation, UNITS))
    assert set(GROUPS) == set(itertools.product(pairs, pairs))


@pytest.mark.parametrize("source, target", list(GROUPS), ids=lambda p: f"{p[0].name}-{p[1]}")
def test_conversion_table(source, target):
    (from_relation, from_unit), (to_relation, to_unit) = source, target
    kwargs = {"from_relation": from_relation, "to_relation": to_relation, "from_unit": from_unit, "to_unit": to_unit}
    k = GROUPS[source, target]
    if k is None:
        with pytest.raises(RelationError) as info:
            conversion(**kwargs)
        err = info.value
        assert isinstance(err, ValueError) and "\n" not in str(err) and ": " in str(err)  # why: what to do
        assert (err.from_relation, err.to_relation, err.from_unit, err.to_unit) == tuple(kwargs.values())
        with pytest.raises(RelationError):
            convert((1.0, 0.0), **kwargs)
        with pytest.raises(RelationError):
            convert_rho(1.0, **kwargs)
        return
    got = conversion(**kwargs)
    assert isinstance(got, Conversion) and got.group == k and got.reason
    # the rules: pure kε (Dwork & Roth 2014, Thm 2.2); (kε, δ Σ_{i<k} e^{iε}), (2ε, (1 + e^ε)δ) at k = 2; zCDP k²ρ
    assert convert((2.5, 0.0), **kwargs) == (k * 2.5, 0.0)
    eps, delta = convert((0.7, 1e-6), **kwargs)
    chained = sum(math.exp(i * 0.7) for i in range(k))  # 1, 1 + e^ε, ...
    assert eps == k * 0.7 and delta == pytest.approx(chained * 1e-6, rel=1e-14)
    assert convert_rho(0.3, **kwargs) == pytest.approx(k * k * 0.3, rel=1e-15)


def test_the_refusals_say_why_and_what_to_do():
    with pytest.raises(RelationError) as info:
        conversion(from_relation=REPLACE_ONE, to_relation=ADD_REMOVE)
    assert str(info.value) == (
        "a guarantee under replace one record gives none under add/remove one record, because a replace-one release "
        "may reveal the number of records: release it under add/remove one record, or keep a ledger under replace "
        "one record"
    )
    with pytest.raises(RelationError) as info:
        conversion(from_relation=ADD_REMOVE, to_relation=ADD_REMOVE, to_unit=UNIT_CLIENT)
    assert str(info.value) == (
        "a guarantee for one record says nothing about one client's whole data: release it with client-level privacy "
        "(noise on each client's whole contribution), or keep a ledger for one record"
    )


def test_group_privacy_chains_the_definition_and_is_below_the_textbook_bound():
    # k steps of (ε, δ): δ (1 + e^ε + … + e^{(k−1)ε}), at most Vadhan's k e^{kε} δ; overflow-free; capped at 1
    for k, eps, delta in [(2, 0.5, 1e-6), (3, 1.0, 1e-8), (5, 0.1, 1e-5)]:
        got = _group_privacy(eps, delta, k)
        assert got[0] == k * eps
        assert got[1] == pytest.approx(delta * sum(math.exp(i * eps) for i in range(k)), rel=1e-13)
        assert got[1] <= k * math.exp(k * eps) * delta
    assert _group_privacy(800.0, 1e-9, 2) == (1600.0, 1.0)
    assert _group_privacy(0.5, 0.0, 3) == (1.5, 0.0) and _group_privacy(0.5, 1e-6, 1) == (0.5, 1e-6)


def test_the_approximate_rule_holds_for_the_gaussian():
    # a Gaussian of add/remove sensitivity Δ moves by at most 2Δ under replace-one: exactly 2μ-GDP there. The generic
    # rule (2ε₀, (1 + e^ε₀) δ₀) from its (ε₀, δ₀) must bound that exact privacy profile: a rule too tight would fail
    for mu in (0.2, 1.0, 3.0):
        for delta0 in (1e-8, 1e-5, 1e-2):
            eps0 = float(gdp_epsilon(mu, delta0))
            eps, delta = convert((eps0, delta0), from_relation=ADD_REMOVE, to_relation=REPLACE_ONE)
            assert float(gdp_delta(2 * mu, eps)) <= delta


def _true_epsilon(mechanism, query, data, relation, domain):
    """The exact ε of ``query`` + Laplace noise over the neighbours of ``data``: the largest privacy loss.

    For Laplace noise of scale b the privacy loss at an output y is ``Σ (|y − a'| − |y − a|) / b`` with a, a' the
    two answers; it is at most ``‖a − a'‖₁ / b`` and equals it at every y beyond both answers, coordinate by coordinate
    (there, ``|y − a'| − |y − a| = |a − a'|``): evaluated at such a y for each neighbour.
    """
    a = query(data)
    worst = 0.0
    for other in neighbours(data, relation, domain):
        b = query(other)
        y = np.where(a >= b, a + 10.0, a - 10.0)  # beyond both answers, on a's side
        loss = np.sum(np.abs(y - b) - np.abs(y - a)) / mechanism.scale
        worst = max(worst, float(loss))
    return worst


def test_the_converted_epsilon_is_the_true_replace_one_epsilon_of_central_category_counts():
    # the release: Laplace counts of every category at ε = 2.5, L1 sensitivity 1 under add/remove. Under
    # replace-one one record leaves a category and enters another, so two counts move: its true ε there is 2ε = 5 (an
    # audit found ε ≥ 4.34). The conversion gives exactly that: not too loose, and not too tight to be wrong.
    k, eps = 4, 2.5
    codes = np.array([0, 1, 1, 3, 2])
    mechanism = dp_category_counts(codes, k, eps, 0).mechanism
    assert mechanism == Laplace.from_epsilon(eps)  # add/remove sensitivity 1

    def counts(x):
        return np.bincount(x, minlength=k).astype(float)

    domain = np.arange(k)
    assert _true_epsilon(mechanism, counts, codes, ADD_REMOVE, domain) == pytest.approx(eps, rel=1e-12)
    true = _true_epsilon(mechanism, counts, codes, REPLACE_ONE, domain)
    assert true == pytest.approx(2 * eps, rel=1e-12)
    assert convert((eps, 0.0), from_relation=ADD_REMOVE, to_relation=REPLACE_ONE) == (pytest.approx(true), 0.0)
    ledger = BudgetLedger(10.0, 1e-6, "best", relation=REPLACE_ONE).spend(mechanism)
    assert ledger.entry_cost(0).epsilon == pytest.approx(true, rel=1e-12)
    # Monte Carlo: the privacy loss of draws from the released law, for the worst replace-one pair, reaches 2ε
    # (it equals 2ε with probability about 1/4 here) and never exceeds it
    rng = np.random.default_rng(7)
    a, b = counts(codes), counts(np.array([0, 1, 1, 3, 3]))  # the last record moves from category 2 to 3
    y = a + rng.laplace(scale=mechanism.scale, size=(100_000, k))
    loss = (np.abs(y - b) - np.abs(y - a)).sum(axis=1) / mechanism.scale
    assert loss.max() == pytest.approx(2 * eps, rel=1e-9) and np.all(loss <= 2 * eps * (1 + 1e-12))
    assert loss.max() > eps * 1.99  # negative control: charging ε under replace-one would be wrong


def test_the_gaussian_converts_by_its_sensitivity():
    # the same noise at twice the sensitivity: 2μ-GDP, exactly, which the ledger's exact accounting charges
    g = Gaussian(2.0)
    ledger = BudgetLedger(10.0, 1e-6, "best", relation=REPLACE_ONE).spend(g)
    assert ledger.charge().accounting == "exact"
    assert ledger.spent().epsilon == pytest.approx(float(gdp_epsilon(2 * g.mu, 1e-6)), rel=1e-12)


def test_conversion_bad_input():
    with pytest.raises(TypeError, match="from_relation must be a NeighbouringRelation"):
        conversion(from_relation="add/remove one record", to_relation=REPLACE_ONE)
    with pytest.raises(ValueError, match="to_unit must be one of 'record', 'client', 'person', got 'user'"):
        conversion(from_relation=ADD_REMOVE, to_relation=REPLACE_ONE, to_unit="user")
    kwargs = {"from_relation": ADD_REMOVE, "to_relation": REPLACE_ONE}
    with pytest.raises(TypeError, match=r"guarantee must be an \(epsilon, delta\) pair, got 2.5"):
        convert(2.5, **kwargs)
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, inf\), got 0.0"):
        convert((0.0, 0.0), **kwargs)
    with pytest.raises(ValueError, match=r"delta must be in \[0, 1\), got 1.0"):
        convert((1.0, 1.0), **kwargs)
    with pytest.raises(ValueError, match=r"rho must be in \[0, inf\), got -1.0"):
        convert_rho(-1.0, **kwargs)
