"""Tests for dpcore.accounting.events: a pure ε-DP release is accounted as binary randomized response."""

import dataclasses
import math
import warnings

import numpy as np
import pytest

from dpcore import GRR, Laplace
from dpcore.accounting import (
    DEFAULT_ORDERS,
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
    for method in ("basic", "rdp", "zcdp"):
        a = BudgetLedger(10.0, 1e-6, method).spend(event, count=4)
        b = BudgetLedger(10.0, 1e-6, method).spend(binary, count=4)
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
