"""One contract every accountant passes, for every kind of release dpcore accounts (dp_accounting's
``PrivacyAccountantTest`` is the idea).

The kinds and the methods are read from dpcore's tables, not listed here: every class of
:data:`~dpcore.accounting.per_release.ACCOUNTINGS` (a new kind must give :data:`RELEASES` one release, or the first
test fails), each with the methods its entry names (:func:`~dpcore.accounting.methods_for`), and every method of the
ledger (:data:`~dpcore.accounting.LEDGER_METHODS`). For each:

- ε is non-negative and non-decreasing in the number of releases k;
- a ledger holding k separate entries charges, under each accounting it computes, what ``epsilon_curve`` says at k;
- ``count=2`` charges what two spends do;
- k = 0 charges nothing (an empty ledger), and a count of 0 is refused, not charged;
- a release of no kind dpcore knows is refused with the house ``TypeError`` naming its class, and a method a kind
  has not with the house ``ValueError`` naming the method and the kind's own.

About 5 s on a loaded 2-core machine (the PLD of a DP-SGD run is the slowest case).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpcore import GRR, OUE, SUE, Gaussian, Laplace, LDPMean, accounting
from dpcore.accounting import LEDGER_METHODS, ApproxDP, PoissonSampledGaussian, PureDP
from dpcore.accounting.ledger import LEDGER_ACCOUNTINGS
from dpcore.accounting.per_release import ACCOUNTINGS, METHODS, accountable, relation_of
from dpcore.staircase import Staircase

DELTA = 1e-6
KS = [1, 2, 3, 5, 8]

#: Releases of every class the accounting table names (a class of a new kind must be given one here).
RELEASES = (
    Laplace.from_epsilon(0.7),
    Gaussian.from_epsilon_delta(0.7, 1e-7),
    GRR(0.7, 4),
    SUE(0.7, 5),
    OUE(0.7, 5),
    LDPMean(0.7, 0.0, 1.0),
    Staircase(0.7),
    PureDP(0.7),
    PoissonSampledGaussian(1.5, 0.05, 20),
    ApproxDP(0.7, 1e-8),  # its δ below DELTA / max(KS): each per-release δ of basic composition covers it
)
TYPES = [t for entry in ACCOUNTINGS for t in entry.types]
KNOWN = [r for r in RELEASES if isinstance(r, tuple(TYPES))]
KIND_METHODS = [(r, m) for r in KNOWN for m in accounting.methods_for(r)]
LEDGER_CASES = [(r, m) for r in KNOWN for m in LEDGER_METHODS]


def _name(value) -> str:
    return type(value).__name__ if not isinstance(value, str) else value


def _curve(mechanism, ks, method) -> np.ndarray:
    with warnings.catch_warnings():  # an RDP optimum on the edge of the order grid is valid (pure DP at small k)
        warnings.simplefilter("ignore", accounting.OrderGridEdgeWarning)
        df = accounting.epsilon_curve(mechanism, ks, DELTA, [method])
    return df["epsilon"].to_numpy()


def _ledger(mechanism, method: str) -> accounting.BudgetLedger:
    """A ledger roomy enough for every case, under the relation the release's guarantee holds under."""
    return accounting.BudgetLedger(1e3, DELTA, method, relation=relation_of(mechanism)[0])


def _release_delta(mechanism, k: int) -> float | None:
    """The per-release δ epsilon_curve's basic composition gives a release without a pure ε: δ/k."""
    release = accountable(mechanism)
    return None if accounting.per_release.pure_epsilon(release) is not None else DELTA / k


def test_every_class_of_the_table_has_a_release_here():
    missing = [t.__name__ for t in TYPES if not any(isinstance(r, t) for r in RELEASES)]
    assert not missing, missing
    assert {m for _, m in KIND_METHODS} <= set(METHODS)


@pytest.mark.parametrize("mechanism, method", KIND_METHODS, ids=_name)
def test_epsilon_is_non_negative_and_non_decreasing_in_k(mechanism, method):
    eps = _curve(mechanism, KS, method)
    assert np.all(np.isfinite(eps)) and np.all(eps >= 0), eps
    assert np.all(np.diff(eps) >= -1e-12 * eps[1:]), eps


@pytest.mark.parametrize(
    "mechanism, method", [(r, m) for r, m in KIND_METHODS if m in LEDGER_ACCOUNTINGS["best"]], ids=_name
)
def test_a_ledger_of_k_entries_charges_what_the_curve_says_at_k(mechanism, method):
    k = 5
    led = _ledger(mechanism, "best")
    for _ in range(k):
        led.spend(mechanism, release_delta=_release_delta(mechanism, k))
    candidates = dict(led.charge().candidates)
    assert method in candidates, (method, candidates)
    assert candidates[method].epsilon == pytest.approx(_curve(mechanism, [k], method)[0], rel=1e-9)
    assert led.spent().epsilon == min(b.epsilon for b in candidates.values())  # all fit: the best is charged


@pytest.mark.parametrize("mechanism, method", LEDGER_CASES, ids=_name)
def test_count_two_charges_what_two_spends_do(mechanism, method):
    release_delta = _release_delta(mechanism, 2)
    once = _ledger(mechanism, method).spend(mechanism, count=2, release_delta=release_delta).charge()
    twice = _ledger(mechanism, method).spend(mechanism, release_delta=release_delta)
    twice = twice.spend(mechanism, release_delta=release_delta).charge()
    assert once.accounting == twice.accounting
    assert once.epsilon == pytest.approx(twice.epsilon, rel=1e-12)
    assert once.delta == pytest.approx(twice.delta, rel=1e-12)
    one = _ledger(mechanism, method).spend(mechanism, release_delta=release_delta).charge()
    assert once.epsilon >= one.epsilon  # and two releases never cost less than one


@pytest.mark.parametrize("mechanism, method", LEDGER_CASES, ids=_name)
def test_no_release_charges_nothing_and_a_count_of_zero_is_refused(mechanism, method):
    led = _ledger(mechanism, method)
    assert tuple(led.charge()[:3]) == (0.0, 0.0, "") and led.cost([]).epsilon == 0.0
    with pytest.raises(ValueError, match=r"^count must be an integer in \[1, "):
        led.spend(mechanism, count=0)
    assert led.entries == () and tuple(led.spent()) == (0.0, 0.0)


class Unknown:
    """A release of no kind dpcore accounts (it has an ε, as many things do)."""

    epsilon = 1.0


REFUSERS = {
    "epsilon_curve": lambda m: accounting.epsilon_curve(m, [1], DELTA),
    "pld_epsilon": lambda m: accounting.pld_epsilon(m, 1, DELTA),
    "methods_for": accounting.methods_for,
    "release_rdp": lambda m: accounting.per_release.release_rdp(m, accounting.DEFAULT_ORDERS),
    "release_rho": accounting.per_release.release_rho,
    "release_epsilon": lambda m: accounting.per_release.release_epsilon(m, DELTA),
    "relation_of": relation_of,
    "ledger.spend": lambda m: accounting.BudgetLedger(1.0, DELTA).spend(m),
}


@pytest.mark.parametrize("call", REFUSERS.values(), ids=list(REFUSERS))
def test_a_release_of_no_known_kind_is_refused_with_the_house_type_error_naming_it(call):
    with pytest.raises(TypeError, match=r"^mechanism must be a .*, got Unknown\b"):
        call(Unknown())


@pytest.mark.parametrize("mechanism", KNOWN, ids=_name)
def test_a_method_a_kind_has_not_is_refused_naming_it_and_the_kinds_own(mechanism):
    own = accounting.methods_for(mechanism)
    for method in [m for m in METHODS if m not in own] + ["moments"]:
        with pytest.raises(ValueError, match=rf"^methods must be one of {', '.join(map(repr, own))}, got '{method}'"):
            accounting.epsilon_curve(mechanism, [1], DELTA, [method])
    with pytest.raises(ValueError, match=r"^method must be one of 'best', .*, got 'pld'"):
        accounting.BudgetLedger(1.0, DELTA, "pld")


class Leaky:
    """A toy (ε, δ) release whose per-release ε shrinks faster than δ: k releases would cost less than one."""

    def __init__(self, scale):
        self.scale = scale


def test_negative_control_a_kind_whose_epsilon_falls_with_k_fails_the_contract(monkeypatch):
    from dpcore.accounting import per_release
    from dpcore.neighbours import ADD_REMOVE

    class LeakyAccounting(per_release.ReleaseAccounting):
        types, names, kind, relation = (Leaky,), ("Leaky",), "leaky", ADD_REMOVE
        methods = default_methods = ("basic",)

        def epsilon(self, m, release_delta):
            return m.scale * (release_delta / DELTA) ** 2  # basic composition: k (δ/k)² falls with k

    monkeypatch.setattr(per_release, "ACCOUNTINGS", per_release.ACCOUNTINGS + (LeakyAccounting(),))
    assert accounting.methods_for(Leaky(1.0)) == ("basic",)  # accepted by the curves: the contract is what fails it
    with pytest.raises(AssertionError):
        test_epsilon_is_non_negative_and_non_decreasing_in_k(Leaky(1.0), "basic")
