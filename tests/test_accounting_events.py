"""Tests for dpcore.accounting.events: a pure ε-DP release is accounted as binary randomized response."""

import dataclasses
import math
import warnings

import numpy as np
import pytest

from dpcore import ADD_REMOVE, GRR, REPLACE_ONE, UNIT_CLIENT, UNIT_RECORD, Laplace, RelationError
from dpcore.accounting import (
    DEFAULT_ORDERS,
    LEDGER_ACCOUNTINGS,
    BudgetLedger,
    OrderGridEdgeWarning,
    PureDP,
    epsilon_curve,
    methods_for,
    pld_delta,
    pld_epsilon,
    randomized_response_rdp,
    rdp_to_dp,
    vectorised_vs_sequential,
    zcdp_to_dp,
)
from dpcore.accounting.per_release import accountable

PURE_METHODS = ["basic", "advanced", "rdp", "zcdp", "pld"]


def curve(mechanism, ks=(1, 10, 100), delta=1e-6):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)  # expected at k = 1 for pure DP
        return epsilon_curve(mechanism, list(ks), delta, PURE_METHODS)["epsilon"].to_numpy()


def test_event_is_a_frozen_checked_value():
    e = PureDP(0.5)
    assert e == PureDP(0.5) and hash(e) == hash(PureDP(0.5)) and e != PureDP(0.6)
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.epsilon = 1.0
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, inf\), got 0.0"):
        PureDP(0.0)
    with pytest.raises(TypeError, match="epsilon must be a real number"):
        PureDP(True)


def test_every_accountant_charges_it_as_binary_randomized_response():
    event, binary = PureDP(0.7), GRR(0.7, 2)
    assert accountable(event) == binary
    np.testing.assert_array_equal(curve(event), curve(binary))
    assert methods_for(event) == tuple(PURE_METHODS)  # no "exact": that is the Gaussian's
    assert pld_epsilon(event, [1, 20], 1e-6).tolist() == pld_epsilon(binary, [1, 20], 1e-6).tolist()
    assert pld_delta(event, 5, 1.0) == pld_delta(binary, 5, 1.0)
    for method in ("basic", "rdp", "zcdp"):  # binary RR is a local mechanism: a ledger under replace-one
        a = BudgetLedger(10.0, 1e-6, method, relation=REPLACE_ONE).spend(event, count=4, relation=REPLACE_ONE)
        b = BudgetLedger(10.0, 1e-6, method, relation=REPLACE_ONE).spend(binary, count=4)
        assert a.spent() == b.spent(), method


def test_closed_forms_of_its_accounting():
    eps, k, delta = 0.3, 25, 1e-6
    event = PureDP(eps)
    # basic: k ε (Dwork & Roth 2014, Thm 3.16)
    assert BudgetLedger(100.0, delta).spend(event, count=k).spent().epsilon == pytest.approx(k * eps, rel=1e-14)
    # RDP: k times binary RR's curve (Mironov 2017, Prop. 5), converted at δ
    rdp = k * randomized_response_rdp(eps, 2, DEFAULT_ORDERS)
    expected = rdp_to_dp(DEFAULT_ORDERS, rdp, delta, warn=False)[0]
    charge = BudgetLedger(100.0, delta, "rdp").spend(event, count=k).charge()
    assert dict(charge.candidates)["rdp"].epsilon == pytest.approx(expected)
    assert charge.epsilon == pytest.approx(min(expected, k * eps))  # the ledger charges the tighter of rdp, basic
    # zCDP: ρ = k ε²/2 (Bun & Steinke 2016, Prop. 1.4)
    charge = BudgetLedger(100.0, delta, "zcdp").spend(event, count=k).charge()
    assert dict(charge.candidates)["zcdp"].epsilon == pytest.approx(zcdp_to_dp(k * eps**2 / 2, delta))
    assert charge.epsilon == pytest.approx(min(zcdp_to_dp(k * eps**2 / 2, delta), k * eps))


@pytest.mark.parametrize("other", [Laplace(scale=2.0), GRR(0.5, 5), GRR(0.5, 40)])
def test_it_is_the_worst_case_of_the_pure_mechanisms_at_the_same_epsilon(other):
    # Kairouz, Oh, Viswanath 2015: every ε-DP mechanism is dominated by binary RR at ε, so its tight (PLD)
    # and RDP curves lie at or below PureDP's
    event = PureDP(0.5)
    mine, theirs = curve(event, ks=(10, 100)), curve(other, ks=(10, 100))
    rdp_pld = [PURE_METHODS.index(m) for m in ("rdp", "pld")]
    idx = np.array([[2 * i, 2 * i + 1] for i in rdp_pld]).ravel()
    assert np.all(theirs[idx] <= mine[idx] * (1 + 1e-9))


def test_a_k_ary_stand_in_would_undercharge():
    # negative control: accounting "some ε-DP release" as GRR(ε, k) with k > 2 reports less than the worst case
    assert curve(GRR(0.5, 40), ks=(100,))[-1] < curve(PureDP(0.5), ks=(100,))[-1] * 0.99


def test_ledger_records_the_event_itself():
    ledger = BudgetLedger(1.0, 1e-6).spend(PureDP(0.25), label="exponential mechanism")
    assert ledger.entries[0].mechanism == PureDP(0.25) and ledger.entries[0].release_delta is None


def test_vectorised_comparison_refuses_it():
    with pytest.raises(ValueError, match="must be a Laplace or a Gaussian for this comparison, got a PureDP"):
        vectorised_vs_sequential(PureDP(1.0), [1, 2], 1e-6)
    assert math.isfinite(curve(PureDP(1.0))[0])


# ---------------------------------------------------------------------------------------------- its relation and unit


def test_it_carries_the_relation_and_unit_its_epsilon_holds_under():
    e = PureDP(0.5)
    assert (e.relation, e.unit) == (ADD_REMOVE, UNIT_RECORD)  # the default: every central query of dpcore
    local = PureDP(0.5, REPLACE_ONE)
    assert local != e and local == PureDP(0.5, relation=REPLACE_ONE, unit=UNIT_RECORD)
    assert PureDP(0.5, unit=UNIT_CLIENT).unit == "client"
    with pytest.raises(TypeError, match="relation must be a NeighbouringRelation"):
        PureDP(0.5, "replace one record")
    with pytest.raises(ValueError, match="unit must be one of 'record', 'client', 'person', got 'user'"):
        PureDP(0.5, unit="user")


def test_the_ledger_charges_it_under_its_own_relation():
    # an add/remove ε counts 2ε under replace-one (group privacy, k = 2); a replace-one ε is refused under add/remove
    assert BudgetLedger(5.0, 1e-6, relation=REPLACE_ONE).spend(PureDP(1.5)).spent().epsilon == 3.0
    assert BudgetLedger(5.0, 1e-6, relation=REPLACE_ONE).spend(PureDP(1.5, REPLACE_ONE)).spent().epsilon == 1.5
    ledger = BudgetLedger(5.0, 1e-6)
    with pytest.raises(RelationError, match="gives none under add/remove one record"):
        ledger.spend(PureDP(1.5, REPLACE_ONE))
    assert ledger.entries == ()
    # the caller's relation= overrides the event's own
    assert BudgetLedger(5.0, 1e-6).spend(PureDP(1.5, REPLACE_ONE), relation=ADD_REMOVE).spent().epsilon == 1.5
    # under RDP a converted event is binary RR at 2ε, as PureDP(2ε) itself
    a = BudgetLedger(50.0, 1e-6, "rdp", relation=REPLACE_ONE).spend(PureDP(0.3), count=20)
    b = BudgetLedger(50.0, 1e-6, "rdp", relation=REPLACE_ONE).spend(PureDP(0.6, REPLACE_ONE), count=20)
    assert a.charge() == b.charge() and a.charge().accounting == "rdp"


# ---------------------------------------------------------------- an (ε, δ) release known by its pair alone


def test_approx_dp_is_a_frozen_checked_value_in_the_house_form():
    from dpcore.accounting import ApproxDP

    e = ApproxDP(0.5, 1e-6)
    assert e == ApproxDP(0.5, 1e-6) and e != ApproxDP(0.5, 2e-6) and (e.relation, e.unit) == (ADD_REMOVE, UNIT_RECORD)
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.delta = 1e-5
    with pytest.raises(ValueError, match=r"^epsilon must be in \(0, inf\), got 0"):
        ApproxDP(0.0, 1e-6)
    with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\), got 0"):
        ApproxDP(0.5, 0.0)  # δ = 0 is a PureDP
    with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\), got 1"):
        ApproxDP(0.5, 1.0)
    with pytest.raises(ValueError, match=r"^unit must be one of"):
        ApproxDP(0.5, 1e-6, unit="row")


def test_approx_dp_has_basic_composition_only_and_the_other_accountants_refuse_it():
    from dpcore.accounting import ApproxDP
    from dpcore.accounting.per_release import release_epsilon, release_rdp, release_rho

    e = ApproxDP(0.5, 1e-7)
    assert methods_for(e) == ("basic",)
    # k releases cost (kε, kδ) by basic composition: at a total δ ≥ kδ each gets δ/k ≥ its δ, and is charged ε
    df = epsilon_curve(e, [1, 4, 10], 1e-6, "basic")
    assert df["epsilon"].tolist() == pytest.approx([0.5, 2.0, 5.0], rel=1e-15)
    # ε at a per-release δ' ≥ δ; below δ the pair states nothing
    assert release_epsilon(e, [1e-7, 1e-3]).tolist() == [0.5, 0.5]
    assert release_epsilon(e, 0.99e-7)[()] == math.inf
    for method in ("advanced", "rdp", "zcdp", "exact", "pld"):
        with pytest.raises(ValueError, match=rf"^methods must be one of 'basic', got '{method}'"):
            epsilon_curve(e, [1], 1e-6, method)
    with pytest.raises(NotImplementedError, match="ApproxDP has no RDP curve"):
        release_rdp(e, DEFAULT_ORDERS)
    with pytest.raises(NotImplementedError, match="ApproxDP has no zCDP guarantee"):
        release_rho(e)
    with pytest.raises(TypeError, match=r"^mechanism must be a release the PLD accountant knows .*got ApproxDP"):
        pld_epsilon(e, 1, 1e-6)


@pytest.mark.parametrize("method", ["best", "basic", "rdp", "zcdp"])
def test_a_ledger_with_a_laplace_and_an_approx_dp_release_adds_their_epsilons_and_deltas(method):
    from dpcore.accounting import ApproxDP

    led = BudgetLedger(3.0, 1e-5, method).spend(Laplace.from_epsilon(1.0)).spend(ApproxDP(0.5, 1e-6), count=2)
    charge = led.charge()
    assert (charge.epsilon, charge.delta, charge.accounting) == (pytest.approx(2.0, rel=1e-15), 1e-6 * 2, "basic")
    assert [name for name, _ in charge.candidates] == ["basic"]  # RDP, zCDP, exact: not for a total holding it
    assert led.entry_cost(1)[:3] == (1.0, 2e-6, "basic")
    led.remove(1)  # without it, the ledger's other accountings apply again
    assert [name for name, _ in led.charge().candidates] == [a for a in LEDGER_ACCOUNTINGS[method] if a != "exact"]
    with pytest.raises(ValueError, match=r"^spend refused"):
        led.spend(ApproxDP(0.5, 1e-5), count=2)  # δ 2e-5 over the budget's 1e-5


def test_approx_dp_is_converted_to_another_unit_by_group_privacy():
    from dpcore.accounting import ApproxDP
    from dpcore.neighbours import UNIT_PERSON

    eps, delta = 0.5, 1e-6
    record = BudgetLedger(5.0, 1e-5, "best").spend(ApproxDP(eps, delta, unit=UNIT_PERSON))
    # one record added or removed is two person steps: (2ε, δ(1 + e^ε)) (Vadhan 2017, Lemma 2.2)
    assert record.spent() == (pytest.approx(2 * eps, rel=1e-15), pytest.approx(delta * (1 + math.exp(eps)), rel=1e-12))
    person = BudgetLedger(5.0, 1e-5, "best", unit=UNIT_PERSON).spend(ApproxDP(eps, delta, unit=UNIT_PERSON))
    assert person.spent() == (eps, delta)
    with pytest.raises(RelationError):
        BudgetLedger(5.0, 1e-5, unit=UNIT_CLIENT).spend(ApproxDP(eps, delta, unit=UNIT_PERSON))
