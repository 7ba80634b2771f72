import itertools

import numpy as np
import pytest

from dpcore import GRR, OUE, Gaussian, Laplace, dp_category_counts, dp_count
from dpcore.accounting import (
    DEFAULT_ORDERS,
    LEDGER_ACCOUNTINGS,
    LEDGER_METHODS,
    ApproxDP,
    Budget,
    BudgetError,
    BudgetLedger,
    Charge,
    LedgerEntry,
    PoissonSampledGaussian,
    PureDP,
    epsilon_curve,
    gaussian_epsilon,
    gaussian_rdp,
    laplace_rdp,
    rdp_to_dp,
    zcdp_to_dp,
)
from dpcore.accounting.ledger import LedgerFullError, UnitTotal
from dpcore.accounting.per_release import (
    accountable,
    accounting_for,
    relation_of,
    release_epsilon,
    release_rdp,
    release_rho,
)
from dpcore.gdp import gdp_epsilon
from dpcore.neighbours import ADD_REMOVE, REPLACE_ONE, UNIT_CLIENT, UNIT_PERSON, UNIT_RECORD, RelationError, convert


def test_basic_ledger_adds_pure_releases():
    ledger = BudgetLedger(1.0, 1e-6)
    ledger.spend(Laplace(scale=10.0), count=3, label="three counts").spend(PureDP(0.2))
    # 3 * 0.1 + 0.2
    assert ledger.spent() == Budget(pytest.approx(0.5, rel=1e-14), 0.0)
    assert ledger.remaining().epsilon == pytest.approx(0.5, rel=1e-14)
    assert ledger.remaining().delta == 1e-6
    assert [e.label for e in ledger.entries] == ["three counts", ""]
    assert ledger.entries[0] == LedgerEntry(Laplace(scale=10.0), 3, "three counts", None)


def test_spending_exactly_the_budget_is_allowed():
    ledger = BudgetLedger(1.0, 1e-6)
    for _ in range(10):
        ledger.spend(Laplace(scale=10.0))  # ten times 0.1: sums to 0.9999999999999999 or 1.0000000000000002
    assert not ledger.can_spend(Laplace(scale=1e6))


def test_overspending_is_refused_before_anything_is_recorded():
    ledger = BudgetLedger(1.0, 1e-6)
    ledger.spend(Laplace(scale=2.0), label="first")
    before = (ledger.entries, ledger.spent())
    with pytest.raises(ValueError) as info:
        ledger.spend(Laplace(scale=1.0), label="too much")
    message = str(info.value)
    # states spent, asked, and budget
    assert "budget is epsilon=1" in message and "spent so far epsilon=0.5" in message and "asked epsilon=1" in message
    assert "too much" in message and "total to epsilon=1.5" in message
    assert (ledger.entries, ledger.spent()) == before


def test_gaussian_under_basic_is_charged_its_exact_epsilon_at_a_release_delta():
    ledger = BudgetLedger(5.0, 1e-4)
    calibrated = Gaussian.from_epsilon_delta(1.0, 1e-6)
    ledger.spend(calibrated)  # charged at its own delta
    ledger.spend(Gaussian(4.0), count=2, release_delta=1e-5)
    eps = gaussian_epsilon(calibrated.sigma, 1, 1e-6) + 2 * gaussian_epsilon(4.0, 1, 1e-5)
    assert ledger.spent().epsilon == pytest.approx(eps, rel=1e-12)
    assert ledger.spent().delta == pytest.approx(1e-6 + 2e-5, rel=1e-12)
    assert gaussian_epsilon(calibrated.sigma, 1, 1e-6) == pytest.approx(1.0, rel=1e-9)
    with pytest.raises(ValueError, match="release_delta must be given"):
        ledger.spend(Gaussian(4.0))
    with pytest.raises(ValueError, match=r"release_delta must be in \(0, 1\), got 0.0"):
        ledger.spend(Gaussian(4.0), release_delta=0.0)


def test_basic_ledger_refuses_delta_overspend():
    ledger = BudgetLedger(100.0, 1e-5)
    ledger.spend(Gaussian(1.0), count=9, release_delta=1e-6)
    with pytest.raises(ValueError, match="spend refused"):
        ledger.spend(Gaussian(1.0), count=2, release_delta=1e-6)
    assert ledger.can_spend(Gaussian(1.0), release_delta=1e-6)


def test_rdp_ledger_sums_curves_and_converts_at_the_budget_delta():
    ledger = BudgetLedger(3.0, 1e-5, method="rdp")
    ledger.spend(Gaussian(5.0), count=4).spend(Laplace(scale=8.0), count=3)
    rdp = 4 * gaussian_rdp(5.0) + 3 * laplace_rdp(8.0)
    assert ledger.spent() == Budget(pytest.approx(rdp_to_dp(DEFAULT_ORDERS, rdp, 1e-5, warn=False)[0], rel=1e-14), 1e-5)
    # k releases of one mechanism: the same as the rdp curve at k
    one = BudgetLedger(10.0, 1e-5, method="rdp").spend(Gaussian(5.0), count=10)
    assert one.spent().epsilon == pytest.approx(2.8137, abs=5e-5)
    curve = epsilon_curve(Gaussian(5.0), [10], 1e-5, methods=["rdp"])["epsilon"][0]
    assert one.spent().epsilon == pytest.approx(curve, rel=1e-14)


def test_zcdp_ledger_sums_rho():
    ledger = BudgetLedger(10.0, 1e-6, method="zcdp")
    ledger.spend(Gaussian(2.0), count=3).spend(Laplace(scale=4.0)).spend(PureDP(0.5), count=2)
    # Gaussian 1/(2 sigma^2); Laplace and PureDP eps0^2 / 2
    rho = 3 / 8 + 0.25**2 / 2 + 2 * 0.5**2 / 2
    assert ledger.spent().epsilon == pytest.approx(zcdp_to_dp(rho, 1e-6), rel=1e-14)


def test_rdp_ledger_lets_more_releases_through_than_basic():
    basic = BudgetLedger(2.0, 1e-5, method="basic")
    rdp = BudgetLedger(2.0, 1e-5, method="rdp")
    m = Laplace(scale=20.0)  # 0.05 per release
    assert basic.max_count(m) == 40
    assert rdp.max_count(m) > 80  # about sqrt growth: twice as many releases fit


def test_max_count_agrees_with_can_spend():
    ledger = BudgetLedger(1.0, 1e-6, method="zcdp")
    ledger.spend(Gaussian(30.0), count=5)
    n = ledger.max_count(Gaussian(30.0))
    assert ledger.can_spend(Gaussian(30.0), n) and not ledger.can_spend(Gaussian(30.0), n + 1)
    assert BudgetLedger(0.1, 1e-6).max_count(Laplace(scale=1.0)) == 0


def test_can_spend_does_not_record():
    ledger = BudgetLedger(1.0, 1e-6)
    assert ledger.can_spend(Laplace(scale=2.0), count=2)
    assert ledger.entries == () and ledger.spent() == Budget(0.0, 0.0)


def test_two_ledgers_never_interfere():
    a = BudgetLedger(1.0, 1e-6, method="rdp")
    b = BudgetLedger(1.0, 1e-6, method="rdp")
    a.spend(Gaussian(20.0), count=5)
    assert b.entries == () and b.spent() == Budget(0.0, 0.0)
    b.spend(Laplace(scale=5.0))
    assert len(a.entries) == 1 and a.entries[0].mechanism == Gaussian(20.0)
    assert a.spent().epsilon == BudgetLedger(1.0, 1e-6, method="rdp").spend(Gaussian(20.0), count=5).spent().epsilon
    entries = a.entries
    with pytest.raises(AttributeError):
        entries.append(None)  # a tuple: the ledger cannot be changed through it


def test_reset_and_read_only_configuration():
    ledger = BudgetLedger(1.0, 1e-6, method="zcdp")
    ledger.spend(Laplace(scale=5.0))
    ledger.reset()
    assert ledger.entries == () and ledger.spent() == Budget(0.0, 0.0)
    assert ledger.budget == Budget(1.0, 1e-6) and ledger.method == "zcdp"
    with pytest.raises(AttributeError):
        ledger.epsilon = 2.0
    assert "method='zcdp'" in repr(ledger)


def test_ledger_bad_input():
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, inf\), got 0.0"):
        BudgetLedger(0.0, 1e-6)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 1.0"):
        BudgetLedger(1.0, 1.0)
    with pytest.raises(ValueError, match=r"method must be one of 'best', 'basic', 'rdp', 'zcdp', got 'pld'"):
        BudgetLedger(1.0, 1e-6, method="pld")
    ledger = BudgetLedger(1.0, 1e-6)
    with pytest.raises(ValueError, match=r"count must be an integer in \[1, inf\], got 0"):
        ledger.spend(Laplace(1.0), count=0)
    with pytest.raises(
        TypeError, match="mechanism must be a dpcore Laplace, Gaussian, GRR, SUE, OUE, LDPMean or Staircase, got float"
    ):
        ledger.spend(0.5)
    with pytest.raises(TypeError, match="label must be a str"):
        ledger.spend(Laplace(10.0), label=3)
    assert ledger.entries == ()


def test_overspending_is_a_budget_error_with_its_numbers():
    from dpcore.accounting import BudgetError

    ledger = BudgetLedger(1.0, 1e-6)
    ledger.spend(Laplace(scale=2.0), label="first")
    with pytest.raises(BudgetError) as info:
        ledger.spend(Laplace(scale=1.0), count=2, label="too much")
    err = info.value
    assert isinstance(err, ValueError)  # code that catches ValueError still catches it
    assert err.method == "basic" and err.budget == Budget(1.0, 1e-6)
    assert (
        err.spent == Budget(0.5, 0.0) and err.asked.budget == Budget(2.0, 0.0) and err.total.budget == Budget(2.5, 0.0)
    )
    assert err.releases == 2 and err.label == "too much"


def test_a_bad_argument_is_not_a_budget_error():
    from dpcore.accounting import BudgetError

    ledger = BudgetLedger(1.0, 1e-6)
    for call in (lambda: ledger.spend(Laplace(1.0), count=0), lambda: ledger.spend(Gaussian(4.0))):
        with pytest.raises(ValueError) as info:
            call()
        assert not isinstance(info.value, BudgetError)


def test_spend_all_is_all_or_nothing():
    from dpcore.accounting import BudgetError

    ledger = BudgetLedger(1.0, 1e-6, method="rdp")
    ledger.spend(Gaussian(8.0))
    parts = [Gaussian(7.0), Gaussian(7.0)]
    # each part fits on its own, the two together do not: nothing is recorded
    assert all(ledger.can_spend(m) for m in parts) and not ledger.can_spend_all(parts)
    before = ledger.entries
    with pytest.raises(BudgetError) as info:
        ledger.spend_all(parts, label="a mean")
    assert ledger.entries == before and info.value.releases == 2
    # a negative control: spending them one by one would have recorded the first
    one_by_one = BudgetLedger(1.0, 1e-6, method="rdp").spend(Gaussian(8.0)).spend(parts[0])
    with pytest.raises(BudgetError):
        one_by_one.spend(parts[1])
    assert len(one_by_one.entries) == 2


def test_spend_all_that_fits_equals_separate_spends():
    together = BudgetLedger(2.0, 1e-6).spend_all([Laplace(4.0), PureDP(0.5)], label="both", count=2)
    apart = BudgetLedger(2.0, 1e-6).spend(Laplace(4.0), 2, "both").spend(PureDP(0.5), 2, "both")
    assert together.entries == apart.entries and together.spent() == apart.spent()
    calibrated = [Gaussian.from_epsilon_delta(0.5, 1e-7), Gaussian.from_epsilon_delta(0.5, 2e-7)]
    led = BudgetLedger(5.0, 1e-5).spend_all(calibrated)
    assert [e.release_delta for e in led.entries] == [1e-7, 2e-7]  # each charged at its own calibrated δ


def test_spend_all_bad_input():
    ledger = BudgetLedger(1.0, 1e-6)
    with pytest.raises(ValueError, match="mechanisms must contain at least one release, got none"):
        ledger.spend_all([])
    with pytest.raises(TypeError, match="mechanisms must be a sequence of releases, got Laplace"):
        ledger.spend_all(Laplace(1.0))
    with pytest.raises(TypeError, match="got str"):
        ledger.spend_all(["laplace"])
    assert ledger.entries == ()


def test_entries_keep_what_was_spent():
    from dpcore import SUE

    ledger = BudgetLedger(1.0, 1e-6, relation=REPLACE_ONE).spend(SUE(0.3, 5))  # a local release: replace-one
    assert ledger.entries[0].mechanism == SUE(0.3, 5)
    assert ledger.spent().epsilon == pytest.approx(0.3)


# ---------------------------------------------------------------------- the tightest valid charge


@pytest.mark.parametrize("method", LEDGER_METHODS)
@pytest.mark.parametrize("pure", [Laplace.from_epsilon(1.0), PureDP(1.0), GRR(1.0, 2), OUE(1.0, 5)])
def test_a_budget_of_five_takes_exactly_five_pure_releases_of_one_and_no_delta(method, pure):
    ledger = BudgetLedger(5.0, 1e-5, method, relation=relation_of(pure)[0])  # each under its own relation
    for _ in range(5):
        ledger.spend(pure)
    assert ledger.spent() == Budget(5.0, 0.0)  # basic composition: k ε₀ and no δ, never more
    assert ledger.charge().accounting == "basic"
    assert not ledger.can_spend(pure)


def test_k_ary_randomized_response_may_be_charged_below_its_sum_by_rdp():
    # k-ary RR is tighter than the worst ε-DP mechanism: five GRR(1, 7) reports are (4.997, 1e-5)-DP by RDP,
    # below their basic (5, 0); the ledger charges the smaller ε, and a sixth still does not fit
    ledger = BudgetLedger(5.0, 1e-5, "best", relation=REPLACE_ONE)
    for _ in range(5):
        ledger.spend(GRR(1.0, 7))
    assert ledger.charge().accounting == "rdp" and ledger.spent().epsilon < 5.0
    assert not ledger.can_spend(GRR(1.0, 7))


@pytest.mark.parametrize("method", ["best", "rdp", "zcdp"])
def test_tighter_accountings_still_take_more_gaussian_releases_than_basic(method):
    g = Gaussian.from_epsilon_delta(1.0, 1e-6)  # each (1, 1e-6)-DP: basic fits 5 in (5, 1e-5)
    basic, tight = BudgetLedger(5.0, 1e-5, "basic"), BudgetLedger(5.0, 1e-5, method)
    assert basic.max_count(g) == 5
    assert tight.max_count(g) > 5
    tight.spend(g, count=tight.max_count(g))
    assert tight.charge().accounting in ("rdp", "zcdp", "exact") and tight.spent().delta == 1e-5


def test_best_charges_the_exact_gdp_composition_of_gaussians():
    # k Gaussian releases of μ_i are exactly sqrt(Σ μ_i²)-GDP (Dong, Roth, Su 2019, Cor. 3.3)
    a, b = Gaussian(2.0), Gaussian(4.0, sensitivity=2.0)
    charge = BudgetLedger(50.0, 1e-6, "best").spend(a, count=3).spend(b, count=2).charge()
    mu = np.sqrt(3 * 0.5**2 + 2 * 0.5**2)
    assert charge.accounting == "exact" and charge.epsilon == pytest.approx(gdp_epsilon(mu, 1e-6), rel=1e-12)
    assert charge.epsilon <= min(c.epsilon for name, c in charge.candidates)  # the minimum of the candidates


def test_each_entry_shows_its_own_cost_and_can_be_removed():
    ledger = BudgetLedger(5.0, 1e-5, "best").spend(Laplace.from_epsilon(0.5), count=2, label="a")
    ledger.spend(PureDP(1.0), label="b")
    assert ledger.entry_cost(0).budget == Budget(1.0, 0.0) and ledger.entry_cost(1).budget == Budget(1.0, 0.0)
    assert ledger.spent() == Budget(2.0, 0.0)
    removed = ledger.remove(0)
    assert removed.label == "a" and [e.label for e in ledger.entries] == ["b"] and ledger.spent() == Budget(1.0, 0.0)
    with pytest.raises(ValueError, match=r"index must be an integer in \[0, 0\], got 3"):
        ledger.remove(3)


def test_a_dpsgd_run_is_charged_as_one_event():
    run = PoissonSampledGaussian(noise_multiplier=1.1, sampling_rate=0.01, steps=300)
    charge = BudgetLedger(5.0, 1e-5, "best").spend(run, label="DP-SGD").charge()
    rdp = rdp_to_dp(DEFAULT_ORDERS, release_rdp(run, DEFAULT_ORDERS), 1e-5, warn=False)[0]
    assert charge.accounting == "rdp" and charge.epsilon == pytest.approx(rdp)  # no per-run δ: basic does not apply
    with_delta = BudgetLedger(5.0, 1e-5, "best").spend(run, release_delta=1e-5).charge()
    assert with_delta.accounting == "basic" and with_delta.epsilon == pytest.approx(
        float(release_epsilon(run, 1e-5))
    )  # its PLD ε
    assert with_delta.epsilon < charge.epsilon


def test_the_refusal_names_the_accounting_that_gave_the_total():
    ledger = BudgetLedger(1.0, 1e-5, "best").spend(PureDP(0.8))
    with pytest.raises(BudgetError, match=r"best accounting, basic composition being the tightest") as info:
        ledger.spend(PureDP(0.5))
    assert info.value.total.accounting == "basic" and info.value.total.epsilon == pytest.approx(1.3)


# ---------------------------------------------------------------------------------------------------------------
# The running totals against a from-scratch reference: the ledger's accountings as they were computed before the
# totals existed, every accounting summed over every entry on each call, and its conversion between relations written
# out mechanism by mechanism.


def _terms(entry, relation):
    """What one release of ``entry`` adds to each accounting in a ledger under ``relation`` (unit: record).

    ``(basic, rdp, rho, mu)``, each None when that accounting does not apply. Under replace-one, an add/remove release
    covers a replacement in two steps: a Laplace or Gaussian is the same noise at twice the sensitivity, a pure ε-DP
    release is 2ε-DP, and a DP-SGD run is (2ε, (1 + e^ε)δ)-DP at its δ and 4ρ-zCDP (the RDP curve 4ρα). An ApproxDP
    event has basic composition only: (ε, δ) at its δ, (2ε, (1 + e^ε)δ) under replace-one.
    """
    m = accountable(entry.mechanism)
    if isinstance(m, ApproxDP):
        eps, delta = m.epsilon, entry.release_delta
        if entry.relation is ADD_REMOVE and relation is REPLACE_ONE:
            eps, delta = 2 * eps, (1 + np.exp(eps)) * delta
        return (eps, delta), None, None, None
    if entry.relation is ADD_REMOVE and relation is REPLACE_ONE:
        if isinstance(m, Laplace):
            m = Laplace(m.scale, 2 * m.sensitivity)
        elif isinstance(m, Gaussian):
            m = Gaussian(m.sigma, 2 * m.sensitivity)
        elif isinstance(m, PoissonSampledGaussian):
            basic = None
            if entry.release_delta is not None:
                eps = float(release_epsilon(m, entry.release_delta)[()])
                basic = (2 * eps, (1 + np.exp(eps)) * entry.release_delta)
            return basic, 4 * release_rho(m) * DEFAULT_ORDERS, 4 * release_rho(m), None
        else:
            m = accountable(PureDP(2 * accounting_for(m).pure_epsilon(m)))
    pure = accounting_for(m).pure_epsilon(m)
    if pure is not None:
        basic = (pure, 0.0)
    elif entry.release_delta is None:
        basic = None
    else:
        basic = (float(release_epsilon(m, entry.release_delta)[()]), entry.release_delta)
    return basic, release_rdp(m, DEFAULT_ORDERS), release_rho(m), accounting_for(m).gdp_mu(m)


def _reference(method: str, budget: Budget, entries, relation=ADD_REMOVE) -> Charge:
    """What ``entries`` cost together under ``method`` and ``relation``, summed from scratch (the rules written out)."""
    if not entries:
        return Charge(0.0, 0.0, "")
    terms = [(_terms(e, relation), e.count) for e in entries]
    bounds = {}
    if all(basic is not None for (basic, _, _, _), _ in terms):  # basic: the (ε_i, δ_i) add up
        eps = sum(n * basic[0] for (basic, _, _, _), n in terms)
        delta = sum(n * basic[1] for (basic, _, _, _), n in terms)
        bounds["basic"] = Budget(eps, delta)
    if all(rho is not None for (_, _, rho, _), _ in terms):  # RDP and zCDP: not for a total holding an ApproxDP
        rdp = sum(n * rdp for (_, rdp, _, _), n in terms)
        bounds["rdp"] = Budget(rdp_to_dp(DEFAULT_ORDERS, rdp, budget.delta, warn=False)[0], budget.delta)
        rho = sum(n * rho for (_, _, rho, _), n in terms)
        bounds["zcdp"] = Budget(float(zcdp_to_dp(rho, budget.delta)), budget.delta)
    if all(mu is not None for (_, _, _, mu), _ in terms):
        mu = np.sqrt(sum(n * mu * mu for (_, _, _, mu), n in terms))
        bounds["exact"] = Budget(float(gdp_epsilon(mu, budget.delta)), budget.delta)
    candidates = tuple((a, bounds[a]) for a in LEDGER_ACCOUNTINGS[method] if a in bounds)
    if not candidates:  # a Gaussian without a per-release δ beside an ApproxDP: nothing bounds them
        return Charge(np.inf, 0.0, "")
    fitting = [(b.epsilon, b.delta, a) for a, b in candidates if b.delta <= budget.delta * (1 + 1e-9)]
    if not fitting:
        return Charge(np.inf, min(b.delta for _, b in candidates), candidates[0][0], candidates)
    eps, delta, accounting = min(fitting)
    return Charge(eps, delta, accounting, candidates)


def _assert_same_charge(got: Charge, want: Charge):
    # the running totals add the same terms as the reference: equal up to rounding
    assert got.accounting == want.accounting
    assert [a for a, _ in got.candidates] == [a for a, _ in want.candidates]
    assert got.budget == pytest.approx(want.budget, rel=1e-12, abs=0.0)
    for (_, g), (_, w) in zip(got.candidates, want.candidates):
        assert g == pytest.approx(w, rel=1e-12, abs=0.0)


def _random_releases(rng, approx: bool = False) -> tuple[list, float | None]:
    """One or two releases of mixed kinds (with or without a per-release δ) and the release_delta to spend them at."""
    pool = [
        lambda: Laplace.from_epsilon(float(rng.choice([0.05, 0.2, 1.0]))),
        lambda: Gaussian.from_epsilon_delta(float(rng.choice([0.1, 0.5])), 1e-7),  # its own δ
        lambda: Gaussian(float(rng.choice([4.0, 10.0]))),  # a per-release δ only if release_delta is given
        lambda: GRR(float(rng.choice([0.1, 0.3])), int(rng.choice([2, 5]))),
        lambda: OUE(0.2, 8),
        lambda: PureDP(float(rng.choice([0.05, 0.4]))),
        lambda: PoissonSampledGaussian(noise_multiplier=2.0, sampling_rate=0.05, steps=20),
    ]
    if approx:
        pool.append(lambda: ApproxDP(float(rng.choice([0.1, 0.4])), 1e-7))  # basic composition only
    n = 2 if rng.random() < 0.25 else 1
    releases = [pool[int(rng.integers(len(pool)))]() for _ in range(n)]
    return releases, (1e-7 if rng.random() < 0.5 else None)


@pytest.mark.parametrize("relation", [ADD_REMOVE, REPLACE_ONE], ids=["add-remove", "replace-one"])
@pytest.mark.parametrize("method", LEDGER_METHODS)
@pytest.mark.parametrize("seed", range(4))
def test_running_totals_equal_the_cost_from_scratch_after_any_spends_removes_and_refusals(method, seed, relation):
    # under add/remove the local releases (GRR, OUE) are refused; under replace-one the others are converted
    refused, removed, full, wrong_relation, cap, _ = _spend_at_random(method, seed, relation)
    assert refused and removed and (full or cap is None)  # the sequence went through every path
    assert (wrong_relation > 0) == (relation is ADD_REMOVE)


@pytest.mark.parametrize("relation", [ADD_REMOVE, REPLACE_ONE], ids=["add-remove", "replace-one"])
@pytest.mark.parametrize("method", LEDGER_METHODS)
def test_running_totals_hold_with_approx_dp_events_among_the_releases(method, relation):
    # an ApproxDP event has basic composition only: while one is recorded, RDP, zCDP and exact do not apply
    refused, removed, _, _, _, approx = _spend_at_random(method, 5, relation, approx=True)
    assert refused and removed and approx


def _spend_at_random(method, seed, relation, approx=False):
    """Forty spends, removals and resets at random, each followed by the running totals checked from scratch."""
    rng = np.random.default_rng(seed)
    cap = int(rng.choice([4, 6])) if seed % 2 else None
    budget = Budget(5.0, 1e-5)
    ledger = BudgetLedger(*budget, method=method, max_entries=cap, relation=relation)
    refused = full = removed = wrong_relation = with_approx = 0
    for _ in range(40):
        before = ledger.entries
        if before and rng.random() < 0.15:
            ledger.remove(int(rng.integers(len(before))))
            removed += 1
        elif before and rng.random() < 0.03:
            ledger.reset()
        else:
            releases, release_delta = _random_releases(rng, approx)
            count = int(rng.choice([1, 1, 2, 5, 60, 2000]))  # 60 or 2000 of a release: often over the budget
            kwargs = {"count": count, "release_delta": release_delta}
            try:
                ledger.spend_all(releases, label="x", **kwargs) if len(releases) > 1 else ledger.spend(
                    releases[0], label="x", **kwargs
                )
            except BudgetError:
                refused += 1
                assert ledger.entries == before
                new = tuple(ledger._entry(m, count, "x", release_delta) for m in releases)
                fits = _reference(method, budget, before + new, relation)
                assert fits.epsilon > budget.epsilon * (1 + 1e-9) or fits.delta > budget.delta * (1 + 1e-9)
            except LedgerFullError as exc:
                full += 1
                assert ledger.entries == before and len(before) + len(releases) > cap == exc.max_entries
                assert str(exc) == f"ledger entries must be at most {cap}, got {len(before) + len(releases)}"
            except RelationError:
                wrong_relation += 1
                assert ledger.entries == before
                assert relation is ADD_REMOVE and any(relation_of(m)[0] is REPLACE_ONE for m in releases)
            except ValueError as exc:  # a Gaussian without a δ under basic accounting alone
                assert method == "basic" and "release_delta must be given" in str(exc)
                assert ledger.entries == before
            else:
                assert ledger.entries[: len(before)] == before and len(ledger.entries) == len(before) + len(releases)
        entries = ledger.entries
        want = _reference(method, budget, entries, relation)
        _assert_same_charge(ledger.charge(), want)
        _assert_same_charge(ledger.cost(entries), want)  # the ledger's own from-scratch path
        assert ledger.spent() == ledger.charge().budget
        for i, entry in enumerate(entries):
            _assert_same_charge(ledger.entry_cost(i), _reference(method, budget, [entry], relation))
            assert entry.cost == ledger.entry_cost(i) and entry.relation is relation_of(entry.mechanism)[0]
        probe = Laplace.from_epsilon(0.3)
        after = _reference(method, budget, entries + (LedgerEntry(probe, 2),), relation)
        room = cap is None or len(entries) < cap
        fits = room and after.epsilon <= budget.epsilon * (1 + 1e-9) and after.delta <= budget.delta * (1 + 1e-9)
        assert ledger.can_spend(probe, 2) == fits
        with_approx += any(isinstance(e.mechanism, ApproxDP) for e in ledger.entries)
    return refused, removed, full, wrong_relation, cap, with_approx


def test_a_ledger_refuses_a_spend_past_max_entries_and_stays_unchanged():
    ledger = BudgetLedger(5.0, 1e-5, "basic", max_entries=3)
    assert ledger.max_entries == 3 and BudgetLedger(5.0, 1e-5).max_entries is None
    ledger.spend(PureDP(0.1), label="a").spend_all([PureDP(0.1), PureDP(0.1)], label="b")
    before = (ledger.entries, ledger.charge())
    with pytest.raises(ValueError, match=r"^ledger entries must be at most 3, got 4$") as info:
        ledger.spend(PureDP(0.1))
    assert isinstance(info.value, LedgerFullError) and not isinstance(info.value, BudgetError)
    assert (info.value.max_entries, info.value.entries) == (3, 4)
    assert (ledger.entries, ledger.charge()) == before
    assert not ledger.can_spend(PureDP(0.1)) and ledger.max_count(PureDP(0.1)) == 0
    ledger.remove(0)
    assert ledger.can_spend(PureDP(0.1), count=10) and ledger.max_count(PureDP(0.1)) == 48  # (5 - 0.2) / 0.1
    with pytest.raises(LedgerFullError, match="got 4"):
        ledger.spend_all([PureDP(0.1), PureDP(0.1)])
    assert "max_entries=3" in repr(ledger)
    with pytest.raises(ValueError, match=r"max_entries must be an integer in \[1, inf\], got 0"):
        BudgetLedger(5.0, 1e-5, max_entries=0)
    with pytest.raises(TypeError, match="max_entries must be an integer, got '3'"):
        BudgetLedger(5.0, 1e-5, max_entries="3")


# ---------------------------------------------------------------------------------------------------------------
# Neighbouring relations: a ledger composes under one relation and unit, converting by group privacy or refusing.


def _category_counts(epsilon):
    """The issue's central release: Laplace counts of every category, add/remove sensitivity 1."""
    return dp_category_counts([0, 1, 1, 2, 3], 4, epsilon, 0).mechanism


@pytest.mark.parametrize("method", LEDGER_METHODS)
def test_local_plus_central_under_replace_one_counts_the_central_release_twice(method):
    # the issue: GRR at 2.5 (replace-one) plus central category counts at 2.5 (add/remove) were accepted against a
    # budget of 5. Under replace-one the central release alone is 5-DP (an audit shows ε ≥ 4.34): now refused
    ledger = BudgetLedger(5.0, 1e-5, method, relation=REPLACE_ONE)
    ledger.spend(GRR(2.5, 4), label="local")
    assert ledger.spent() == Budget(2.5, 0.0)
    before = (ledger.entries, ledger.charge())
    with pytest.raises(BudgetError) as info:
        ledger.spend(_category_counts(2.5), label="central")
    assert info.value.asked.epsilon == 5.0 and info.value.total.epsilon == 7.5
    assert "budget is epsilon=5, delta=1e-05 under replace one record" in str(info.value)
    assert (info.value.relation, info.value.unit) == (REPLACE_ONE, UNIT_RECORD)
    assert (ledger.entries, ledger.charge()) == before
    # alone it fits exactly: 2 × 2.5
    alone = BudgetLedger(5.0, 1e-5, method, relation=REPLACE_ONE).spend(_category_counts(2.5))
    assert alone.spent() == Budget(5.0, 0.0) and alone.entries[0].relation is ADD_REMOVE
    # a histogram calibrated to replace-one sensitivity 2 (the Compare page's) says so, and costs its own 2.5
    replace_one_histogram = Laplace.from_epsilon(2.5, sensitivity=REPLACE_ONE.histogram_l1_sensitivity)
    ledger.spend(replace_one_histogram, relation=REPLACE_ONE, label="central, replace-one")
    assert ledger.spent() == Budget(5.0, 0.0) and ledger.entries[1].relation is REPLACE_ONE


@pytest.mark.parametrize("method", LEDGER_METHODS)
def test_local_release_under_an_add_remove_ledger_is_refused_with_a_sentence(method):
    ledger = BudgetLedger(5.0, 1e-5, method).spend(_category_counts(2.5), label="central")
    before = (ledger.entries, ledger.charge())
    for local in (GRR(2.5, 4), OUE(2.5, 4)):
        with pytest.raises(RelationError) as info:
            ledger.spend(local, label="local")
        assert not isinstance(info.value, BudgetError) and isinstance(info.value, ValueError)
        assert str(info.value) == (
            "a guarantee under replace one record gives none under add/remove one record, because a replace-one "
            "release may reveal the number of records: release it under add/remove one record, or keep a ledger "
            "under replace one record"
        )
        with pytest.raises(RelationError):
            ledger.spend_all([PureDP(0.1), local])  # all or nothing: the pure one is not recorded either
        assert not ledger.can_spend(local) and not ledger.can_spend_all([PureDP(0.1), local])
        assert ledger.max_count(local) == 0
    assert (ledger.entries, ledger.charge()) == before and ledger.spent() == Budget(2.5, 0.0)


@pytest.mark.parametrize("method", LEDGER_METHODS)
def test_central_plus_learning_under_add_remove_compose_as_before(method):
    # a Laplace count and a DP-SGD run both hold under add/remove one record: no conversion, the same numbers as
    # the accountings composed by hand
    count, run, delta = dp_count([1.0, 2.0, 3.0], 0.5, 0).mechanism, PoissonSampledGaussian(1.1, 0.01, 300), 1e-5
    ledger = BudgetLedger(10.0, delta, method).spend(count).spend(run, release_delta=1e-6)
    assert [(e.relation, e.unit) for e in ledger.entries] == [(ADD_REMOVE, UNIT_RECORD)] * 2
    candidates = dict(ledger.charge().candidates)
    assert candidates["basic"] == pytest.approx(Budget(0.5 + float(release_epsilon(run, 1e-6)), 1e-6), rel=1e-12)
    if "rdp" in candidates:
        rdp = laplace_rdp(2.0) + release_rdp(run, DEFAULT_ORDERS)
        assert candidates["rdp"].epsilon == pytest.approx(rdp_to_dp(DEFAULT_ORDERS, rdp, delta, warn=False)[0])
    if "zcdp" in candidates:
        assert candidates["zcdp"].epsilon == pytest.approx(zcdp_to_dp(0.5**2 / 2 + run.zcdp_rho, delta))
    assert ledger.entry_cost(0).budget == Budget(0.5, 0.0)


def test_central_plus_learning_under_replace_one_are_both_converted():
    count, run = Laplace.from_epsilon(0.5), PoissonSampledGaussian(1.1, 0.01, 300)
    eps_run = float(release_epsilon(run, 1e-7))
    basic = BudgetLedger(10.0, 1e-5, "basic", relation=REPLACE_ONE).spend(count).spend(run, release_delta=1e-7)
    # Laplace: the same noise at sensitivity 2, 2ε; the run: (2ε, (1 + e^ε)δ) at its δ (group privacy, k = 2)
    assert basic.entry_cost(0).budget == Budget(1.0, 0.0)
    assert basic.entry_cost(1).budget == pytest.approx(Budget(2 * eps_run, (1 + np.exp(eps_run)) * 1e-7), rel=1e-12)
    assert basic.spent() == pytest.approx(Budget(1.0 + 2 * eps_run, (1 + np.exp(eps_run)) * 1e-7), rel=1e-12)
    # without a δ for the run: its zCDP ρ times 4, as a ρ (zcdp) and as the RDP curve 4ρα (rdp); no amplification by
    # sampling is left, so the bound is large (ε ≈ 644 here: give the run's δ)
    best = BudgetLedger(1e4, 1e-5, "best", relation=REPLACE_ONE).spend(count).spend(run)
    candidates = dict(best.charge().candidates)
    assert set(candidates) == {"rdp", "zcdp"}
    rho = 1.0**2 / 2 + 4 * run.zcdp_rho
    assert candidates["zcdp"].epsilon == pytest.approx(zcdp_to_dp(rho, 1e-5), rel=1e-12)
    rdp = laplace_rdp(1.0) + 4 * run.zcdp_rho * DEFAULT_ORDERS
    assert candidates["rdp"].epsilon == pytest.approx(rdp_to_dp(DEFAULT_ORDERS, rdp, 1e-5, warn=False)[0])


@pytest.mark.parametrize("relation", [ADD_REMOVE, REPLACE_ONE])
def test_client_level_fedavg_into_a_record_level_ledger_counts_two_clients(relation):
    # client-level DP-FedAvg (add/remove one client's data). One record added, removed or replaced changes one
    # client's data: remove that client and add it back changed, two client steps, under either record relation
    run, delta0 = PoissonSampledGaussian(1.0, 0.05, 20), 1e-7
    eps0 = float(release_epsilon(run, delta0))
    ledger = BudgetLedger(20.0, 1e-5, "basic", relation=relation).spend(run, unit=UNIT_CLIENT, release_delta=delta0)
    entry = ledger.entries[0]
    assert (entry.relation, entry.unit) == (ADD_REMOVE, UNIT_CLIENT)
    assert entry.cost.budget == pytest.approx(Budget(2 * eps0, (1 + np.exp(eps0)) * delta0), rel=1e-12)
    # under best, without a δ: 4ρ (zCDP) and its curve 4ρα (RDP), never the run's own amplified RDP curve
    best = BudgetLedger(1e3, 1e-5, "best", relation=relation).spend(run, unit=UNIT_CLIENT).charge()
    assert dict(best.candidates)["zcdp"].epsilon == pytest.approx(zcdp_to_dp(4 * run.zcdp_rho, 1e-5), rel=1e-12)
    # in a client-level ledger it is what it is
    client = BudgetLedger(20.0, 1e-5, "basic", unit=UNIT_CLIENT).spend(run, unit=UNIT_CLIENT, release_delta=delta0)
    assert client.spent() == pytest.approx(Budget(eps0, delta0), rel=1e-12)
    # a client-level replace-one guarantee covers a replaced record in one step; an added record it does not cover
    replaced = BudgetLedger(20.0, 1e-5, relation=REPLACE_ONE).spend(PureDP(1.0, REPLACE_ONE, UNIT_CLIENT))
    assert replaced.spent() == Budget(1.0, 0.0)
    with pytest.raises(RelationError, match="gives none under add/remove one record"):
        BudgetLedger(20.0, 1e-5).spend(PureDP(1.0, REPLACE_ONE, UNIT_CLIENT))


@pytest.mark.parametrize(
    "release", [Laplace.from_epsilon(0.5), GRR(0.5, 3), PureDP(0.5), PoissonSampledGaussian(1, 0.1)]
)
def test_a_record_level_release_into_a_client_level_ledger_is_refused(release):
    ledger = BudgetLedger(5.0, 1e-5, "best", unit=UNIT_CLIENT)
    with pytest.raises(RelationError) as info:
        ledger.spend(release, release_delta=1e-7)
    assert str(info.value).startswith("a guarantee for one record says nothing about one client's whole data: ")
    assert ledger.entries == () and not ledger.can_spend(release) and ledger.max_count(release) == 0


def test_the_ledger_states_its_relation_and_checks_the_arguments():
    ledger = BudgetLedger(5.0, 1e-5)
    assert (ledger.relation, ledger.unit) == (ADD_REMOVE, UNIT_RECORD)
    assert "relation=ADD_REMOVE, unit='record'" in repr(ledger)
    other = BudgetLedger(5.0, 1e-5, relation=REPLACE_ONE, unit=UNIT_CLIENT)
    assert (other.relation, other.unit) == (REPLACE_ONE, UNIT_CLIENT)
    with pytest.raises(TypeError, match="relation must be a NeighbouringRelation"):
        BudgetLedger(5.0, 1e-5, relation="replace one record")
    with pytest.raises(ValueError, match="unit must be one of 'record', 'client', 'person', got 'row'"):
        BudgetLedger(5.0, 1e-5, unit="row")
    assert BudgetLedger(5.0, 1e-5, unit=UNIT_PERSON).unit == UNIT_PERSON
    with pytest.raises(ValueError) as info:
        ledger.spend(Laplace(1.0), rows_per_person=0)
    assert str(info.value).startswith("rows_per_person must be an integer in [1, ") and "got 0" in str(info.value)
    with pytest.raises(TypeError, match="relation must be a NeighbouringRelation"):
        ledger.spend(Laplace(1.0), relation="add/remove")
    with pytest.raises(ValueError, match="unit must be one of"):
        ledger.can_spend(Laplace(1.0), unit="row")  # a bad argument is raised, not answered False
    assert ledger.entries == ()


def test_entries_keep_their_own_relation_and_their_converted_cost():
    ledger = BudgetLedger(5.0, 1e-5, "best", relation=REPLACE_ONE)
    ledger.spend_all([Laplace.from_epsilon(0.5), GRR(0.5, 3)], label="both")
    laplace, grr = ledger.entries
    assert (laplace.relation, grr.relation) == (ADD_REMOVE, REPLACE_ONE)
    assert laplace.cost.budget == Budget(1.0, 0.0) and grr.cost.budget == Budget(0.5, 0.0)
    assert ledger.entry_costs() == (laplace.cost, grr.cost)
    assert laplace == LedgerEntry(Laplace.from_epsilon(0.5), 1, "both")  # the cost is not compared
    assert ledger.remove(0).cost.budget == Budget(1.0, 0.0) and ledger.spent() == Budget(0.5, 0.0)


# ---------------------------------------------------------------------------------------------- one person


def _person_count_loss(m: int, scale: float) -> float:
    """Brute force: the largest privacy loss of a Laplace(scale) count between tables differing in one whole person
    (three persons, each with 0..m rows), over a grid of outputs."""
    tables = list(itertools.product(range(m + 1), repeat=3))  # rows of each person
    shifts = set()
    for rows in tables:
        for p in range(3):  # remove person p (when present): the neighbour lacks all their rows
            if rows[p]:
                shifts.add(rows[p])
    z = np.linspace(-50.0, 50.0, 20_001)
    log_density = lambda c: -np.abs(z - c) / scale  # noqa: E731 (the normalising constant cancels)
    return max(float(np.max(np.abs(log_density(0.0) - log_density(float(s))))) for s in shifts)


def test_person_level_releases_compose_as_they_are_in_a_person_ledger():
    ledger = BudgetLedger(5.0, 1e-6, unit=UNIT_PERSON)
    ledger.spend(Laplace.from_epsilon(0.5), unit=UNIT_PERSON).spend(PureDP(0.25, ADD_REMOVE, UNIT_PERSON), count=2)
    assert ledger.spent() == Budget(1.0, 0.0)
    assert [e.conversion.group for e in ledger.entries] == [1, 1] and not any(e.converted for e in ledger.entries)
    assert ledger.entries[0].conversion.reason == "the release holds under add/remove one person"


@pytest.mark.parametrize("m", [1, 2, 3, 5])
@pytest.mark.parametrize("release", [Laplace.from_epsilon(0.4), PureDP(0.4)], ids=["laplace", "pure"])
def test_a_record_level_release_per_person_costs_m_copies_of_it(release, m):
    # group privacy with a declared bound of m rows per person: a person is a group of m records, so one release
    # costs what m copies of it cost per record (basic composition of pure releases: m·ε₀)
    person = BudgetLedger(10.0, 1e-6, "basic", unit=UNIT_PERSON).spend(release, rows_per_person=m)
    copies = BudgetLedger(10.0, 1e-6, "basic").spend(release, count=m)
    assert person.spent() == pytest.approx(copies.spent(), rel=1e-14)
    assert person.entries[0].conversion.group == m and person.entries[0].rows_per_person == m
    assert person.entries[0].converted is (m > 1)


@pytest.mark.parametrize("m", [1, 2, 4])
def test_a_record_level_count_per_person_is_charged_its_brute_force_privacy_loss(m):
    # the count moves by at most m between tables differing in one person of at most m rows; the Laplace's loss on
    # such pairs is m/b, found here by enumerating the tables and the outputs
    scale = 2.5
    ledger = BudgetLedger(10.0, 1e-6, "best", unit=UNIT_PERSON).spend(Laplace(scale), rows_per_person=m)
    assert ledger.spent().epsilon == pytest.approx(_person_count_loss(m, scale), rel=1e-9)
    assert ledger.spent().epsilon == pytest.approx(m / scale, rel=1e-12)


def test_an_approximate_release_per_person_is_converted_by_group_privacy_within_vadhans_form():
    run, delta0, m = PoissonSampledGaussian(1.1, 0.01, 300), 1e-8, 3
    eps0 = float(release_epsilon(run, delta0))
    ledger = BudgetLedger(50.0, 1e-5, "basic", unit=UNIT_PERSON).spend(run, release_delta=delta0, rows_per_person=m)
    eps, delta = ledger.spent()
    # chaining the definition m times: (mε, δ Σ_{i<m} e^{iε}) (dpcore.neighbours.convert, the one home of the rule)
    assert (eps, delta) == pytest.approx((m * eps0, delta0 * sum(np.exp(i * eps0) for i in range(m))), rel=1e-12)
    assert (eps, delta) == convert((eps0, delta0), from_relation=ADD_REMOVE, to_relation=ADD_REMOVE,
                                   to_unit=UNIT_PERSON, rows_per_person=m)  # fmt: skip
    assert delta <= m * np.exp((m - 1) * eps0) * delta0 * (1 + 1e-12)  # Vadhan 2017, Lemma 2.2's form
    # a Gaussian is the same noise at m times its sensitivity (tighter than group privacy): μ = mΔ/σ
    g = Gaussian(4.0, 1.0)
    person = BudgetLedger(50.0, 1e-5, "best", unit=UNIT_PERSON).spend(g, rows_per_person=m)
    record = BudgetLedger(50.0, 1e-5, "best").spend(Gaussian(4.0, float(m)))
    assert person.spent() == record.spent()
    # zCDP's group privacy m²ρ is what the converted ρ is, more than m copies' mρ
    assert dict(person.charge().candidates)["zcdp"].epsilon == pytest.approx(zcdp_to_dp(m * m / 32, 1e-5), rel=1e-12)


def test_a_person_release_in_a_record_ledger_counts_two_records_under_add_remove_and_four_under_replace():
    release = Laplace.from_epsilon(0.5)
    add_remove = BudgetLedger(10.0, 1e-6).spend(release, unit=UNIT_PERSON)
    replace = BudgetLedger(10.0, 1e-6, relation=REPLACE_ONE).spend(release, unit=UNIT_PERSON)
    assert add_remove.spent().epsilon == pytest.approx(1.0) and replace.spent().epsilon == pytest.approx(2.0)
    assert add_remove.entries[0].conversion.group == 2 and replace.entries[0].conversion.group == 4
    assert "remove that person and add them back changed" in add_remove.entries[0].conversion.reason


@pytest.mark.parametrize(
    ("ledger_unit", "kwargs", "words"),
    [
        (UNIT_PERSON, {}, "a guarantee for one record says nothing about a person with many rows: declare the most"),
        (UNIT_PERSON, {"unit": UNIT_CLIENT}, "a guarantee for one client says nothing about one person"),
        (UNIT_CLIENT, {"unit": UNIT_PERSON}, "a guarantee for one person says nothing about one client"),
    ],
)
def test_a_release_about_another_unit_without_a_rule_is_refused_in_one_sentence(ledger_unit, kwargs, words):
    ledger = BudgetLedger(10.0, 1e-6, unit=ledger_unit)
    release = Laplace.from_epsilon(0.5)
    with pytest.raises(RelationError) as info:
        ledger.spend(release, **kwargs)
    assert str(info.value).startswith(words) and "\n" not in str(info.value)
    assert ledger.entries == () and ledger.spent() == Budget(0.0, 0.0)
    assert not ledger.can_spend(release, **kwargs) and ledger.max_count(release, **kwargs) == 0
    assert not ledger.can_spend_all([release], **kwargs)


def test_the_bound_travels_with_every_entry_point():
    ledger = BudgetLedger(5.0, 1e-6, unit=UNIT_PERSON)
    release = Laplace.from_epsilon(0.5)
    assert ledger.can_spend(release, rows_per_person=2) and ledger.max_count(release, rows_per_person=2) == 5
    assert ledger.can_spend_all([release, release], count=2, rows_per_person=2)
    ledger.spend_all([release, release], label=["sum", "count"], rows_per_person=2)
    assert ledger.spent().epsilon == pytest.approx(2.0) and ledger.max_count(release, rows_per_person=2) == 3
    assert ledger.cost(ledger.entries) == ledger.charge()  # from scratch, the entries' bound included
    assert ledger.entries[0] != LedgerEntry(release, 1, "sum")  # the declared bound is part of the entry


def test_totals_per_unit_say_what_each_unit_cost_and_how_it_was_converted():
    ledger = BudgetLedger(10.0, 1e-6)
    ledger.spend(Laplace.from_epsilon(0.5), count=2, label="record counts")
    ledger.spend(Laplace.from_epsilon(0.25), unit=UNIT_PERSON, label="person count")
    ledger.spend(PureDP(0.25, ADD_REMOVE, UNIT_PERSON), label="person choice")
    ledger.spend(PureDP(0.5, ADD_REMOVE, UNIT_CLIENT), label="client run")
    totals = ledger.by_unit()
    assert [t.unit for t in totals] == [UNIT_RECORD, UNIT_PERSON, UNIT_CLIENT]
    record, person, client = totals
    assert isinstance(record, UnitTotal) and (record.entries, record.releases) == (1, 2)
    assert record.charge.budget == Budget(1.0, 0.0) and record.conversions == ()
    assert (person.entries, person.releases) == (2, 2) and person.charge.budget == Budget(1.0, 0.0)
    assert [c.group for c in person.conversions] == [2]  # one rule, named once
    assert client.charge.budget == Budget(1.0, 0.0) and client.conversions[0].group == 2
    # under basic composition the totals per unit add up to the ledger's
    assert sum(t.charge.epsilon for t in totals) == pytest.approx(ledger.spent().epsilon, rel=1e-15)
    assert ledger.remove(0) and [t.unit for t in ledger.by_unit()] == [UNIT_PERSON, UNIT_CLIENT]
    assert BudgetLedger(1.0, 1e-6).by_unit() == ()
