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
