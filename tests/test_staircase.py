"""The staircase mechanism (dpcore.staircase) against its closed forms (Geng & Viswanath 2016)."""

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from dpcore.laplace import Laplace
from dpcore.staircase import Staircase, optimal_gamma

EPSILONS = [0.05, 0.5, 1.0, 3.0, 8.0]


def integral(s: Staircase, f) -> float:
    """∫ f(x) pdf(x) dx over the line, step by step (the density is constant on each half-step)."""
    steps = int(40 / s.epsilon) + 40
    total = 0.0
    for k in range(steps):
        for a, b in ((k, k + s.gamma), (k + s.gamma, k + 1)):
            lo, hi = a * s.sensitivity, b * s.sensitivity
            if hi > lo:
                total += integrate.quad(lambda x: f(x) * s.pdf(x), lo, hi)[0]
    return 2 * total


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_the_density_integrates_to_one_and_its_variance_is_the_closed_form(epsilon):
    s = Staircase(epsilon, 2.5)
    assert integral(s, lambda x: 1.0) == pytest.approx(1.0, rel=1e-9)
    assert s.variance == pytest.approx(integral(s, lambda x: x * x), rel=1e-9)
    assert s.std == pytest.approx(math.sqrt(s.variance))


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_the_closed_form_gamma_minimises_the_variance(epsilon):
    numeric = optimize.minimize_scalar(
        lambda g: Staircase(epsilon, gamma=g).variance, bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-10}
    ).x
    assert optimal_gamma(epsilon) == pytest.approx(numeric, abs=1e-6)
    assert Staircase(epsilon).variance <= Staircase(epsilon, gamma=0.5).variance * (1 + 1e-12)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_it_never_does_worse_than_laplace_and_much_better_at_large_epsilon(epsilon):
    ratio = Staircase(epsilon).variance / Laplace.from_epsilon(epsilon).variance
    assert ratio <= 1.0
    if epsilon >= 8:  # Section V: e^{-2ε/3} against 2/ε²
        assert ratio < 0.15


@pytest.mark.parametrize("epsilon", [0.5, 2.0, 6.0])
def test_neighbouring_outputs_are_within_e_to_the_epsilon(epsilon):
    s = Staircase(epsilon, 1.5)
    x = np.linspace(-30, 30, 200_001)
    for shift in (1.5, 0.7, 0.01):
        ratio = s.pdf(x) / s.pdf(x + shift)
        assert ratio.max() <= math.exp(epsilon) * (1 + 1e-12)
    assert (s.pdf(x) / s.pdf(x + 1.5)).max() == pytest.approx(math.exp(epsilon))  # tight at a full step


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_samples_follow_the_law(epsilon):
    s = Staircase(epsilon, 2.0)
    x = s.sample(np.random.default_rng(5), 200_000)
    grid = np.array([0.1, 0.5, 1.0, 2.0, 3.3, 5.0, 10.0])
    inside = np.array([np.mean(np.abs(x) <= t) for t in grid])
    expected = s.cdf_abs(grid)
    assert np.all(np.abs(inside - expected) <= 5 * np.sqrt(expected * (1 - expected) / x.size) + 1e-12)
    assert abs(np.mean(x > 0) - 0.5) <= 5 * math.sqrt(0.25 / x.size)
    # the whole law of |x|: Kolmogorov–Smirnov against cdf_abs
    assert stats.kstest(np.abs(x), s.cdf_abs).pvalue > 1e-4


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.99])
def test_the_error_bound_inverts_the_distribution_of_the_error(epsilon, confidence):
    s = Staircase(epsilon, 3.0)
    assert s.cdf_abs(s.error_bound(confidence)) == pytest.approx(confidence, abs=1e-12)
    eps = Staircase.epsilon_for_accuracy(s.error_bound(confidence), confidence, 3.0)
    assert eps == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: Staircase(0.0), ValueError, r"^epsilon must be in \(0, inf\), got 0.0"),
        (lambda: Staircase(1.0, -1.0), ValueError, r"^sensitivity must be in \(0, inf\), got -1.0"),
        (lambda: Staircase(1.0, gamma=1.5), ValueError, r"^gamma must be in \[0, 1\], got 1.5"),
        (lambda: Staircase(1.0).error_bound(1.0), ValueError, r"^confidence must be in \(0, 1\)"),
        (lambda: Staircase.epsilon_for_accuracy(0.0), ValueError, r"^accuracy must be in \(0, inf\)"),
    ],
)
def test_bad_parameters_get_the_house_sentence(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------------- its privacy loss, against the densities


def loss_law(s: Staircase, shift: float) -> dict[int, float]:
    """The privacy loss of the pair (noise, noise + shift) by integrating its density ratio piece by piece.

    ``L(o) = ln(pdf(o) / pdf(o − shift))`` is constant between the points where either density steps; each piece's
    P-mass is integrated (quad) and filed under ``L / ε`` (−1, 0 or 1, as a loss of another value would be too).
    Returns ``{L/ε: mass}`` over ``|o|`` up to where less than 1e-15 of the mass lies beyond.
    """
    d, g = s.sensitivity, s.gamma
    m = math.ceil(36 / s.epsilon) + 2
    steps = np.arange(-m, m + 1) * d
    points = np.concatenate([steps, steps + g * d, steps - g * d])
    points = np.unique(np.concatenate([points, points + shift]))
    law: dict[int, float] = {}
    for lo, hi in zip(points[:-1], points[1:]):
        if hi - lo < 1e-12:
            continue
        mid = (lo + hi) / 2
        level = math.log(s.pdf(mid) / s.pdf(mid - shift)) / s.epsilon
        assert abs(level - round(level)) < 1e-9, level
        law[round(level)] = law.get(round(level), 0.0) + integrate.quad(s.pdf, lo, hi)[0]
    return law


STAIRCASES = [
    Staircase(0.3),
    Staircase(1.0, 2.0),
    Staircase(4.0, 0.5),
    Staircase(1.0, gamma=0.8),
    Staircase(2.0, gamma=0),
]


@pytest.mark.parametrize("s", STAIRCASES, ids=repr)
def test_its_privacy_loss_is_the_integrated_density_ratio(s):
    from dpcore.accounting.privacy_loss import staircase_loss_masses

    law = loss_law(s, s.sensitivity)
    assert set(law) <= {-1, 0, 1} and sum(law.values()) == pytest.approx(1.0, abs=1e-12)
    plus, zero, minus = staircase_loss_masses(s.epsilon, s.gamma)
    np.testing.assert_allclose([law.get(1, 0.0), law.get(0, 0.0), law.get(-1, 0.0)], [plus, zero, minus], atol=1e-12)
    # a move of less than Δ leaks less: its loss is a mixture of the same form with a smaller P(L = ε)
    for fraction in (0.1, 0.5, 0.9):
        smaller = loss_law(s, fraction * s.sensitivity)
        assert set(smaller) <= {-1, 0, 1}
        assert smaller.get(1, 0.0) <= plus + 1e-12
        assert smaller.get(-1, 0.0) == pytest.approx(math.exp(-s.epsilon) * smaller.get(1, 0.0), abs=1e-12)


@pytest.mark.parametrize("s", STAIRCASES, ids=repr)
def test_its_pld_and_rdp_match_the_integrated_law_for_k_releases(s):
    from scipy.stats import multinomial

    from dpcore.accounting import pld_delta, pld_epsilon
    from dpcore.accounting.per_release import release_rdp

    law = loss_law(s, s.sensitivity)
    p = [law.get(1, 0.0), law.get(0, 0.0), law.get(-1, 0.0)]
    orders = np.array([1.5, 2.0, 8.0, 64.0])
    # RDP: D_α = ln E_P[e^{(α−1) L}] / (α − 1), from the integrated law
    direct = np.log(p[0] * np.exp((orders - 1) * s.epsilon) + p[1] + p[2] * np.exp(-(orders - 1) * s.epsilon))
    np.testing.assert_allclose(release_rdp(s, orders), direct / (orders - 1), rtol=1e-10)
    for k in (1, 3, 12):
        # the k-fold loss: ε (N₊ − N₋), (N₊, N₀, N₋) ~ Multinomial(k; p₊, p₀, p₋)
        losses, masses = [], []
        for a in range(k + 1):
            for b in range(k + 1 - a):
                losses.append(s.epsilon * (a - (k - a - b)))
                masses.append(multinomial.pmf([a, b, k - a - b], k, p))
        losses, masses = np.array(losses), np.array(masses)

        def delta(e, losses=losses, masses=masses):
            above = losses > e
            return float(np.sum(masses[above] * -np.expm1(e - losses[above])))

        for e in (0.0, 0.5 * s.epsilon, s.epsilon * math.sqrt(k)):
            assert pld_delta(s, k, e) == pytest.approx(delta(e), rel=1e-8, abs=1e-13)
        got = pld_epsilon(s, k, 1e-3)
        assert delta(got) == pytest.approx(1e-3, rel=1e-7) or (got == 0.0 and delta(0.0) <= 1e-3)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_k_staircase_releases_cost_less_than_binary_rr_and_the_same_at_an_even_split(epsilon):
    from dpcore import GRR, accounting
    from dpcore.accounting.per_release import accounting_for

    assert accounting_for(Staircase(epsilon)).kind == "staircase"  # its own loss, not binary RR's bound
    ks = [1, 10, 100]
    own = accounting.pld_epsilon(Staircase(epsilon), ks, 1e-6)
    binary = accounting.pld_epsilon(GRR(epsilon, 2), ks, 1e-6)
    assert np.all(own[1:] < binary[1:]) and np.all(own <= binary)
    # at γ = ½ the middle piece is empty: the loss is exactly binary randomized response's
    np.testing.assert_allclose(accounting.pld_epsilon(Staircase(epsilon, gamma=0.5), ks, 1e-6), binary, rtol=1e-9)
    # basic composition is k ε, and so is the ledger's basic charge
    led = accounting.BudgetLedger(1e3, 1e-6, "basic").spend(Staircase(epsilon), count=10)
    assert led.spent().epsilon == pytest.approx(10 * epsilon)
