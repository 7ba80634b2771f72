"""Tests for dpcore.laplace: closed forms exactly, sampling by seeded Monte Carlo."""

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats
from scipy.integrate import trapezoid

from dpcore import Laplace
from dpcore.laplace import sample_laplace
from tests.tolerances import Z


def test_from_epsilon_scale_is_sensitivity_over_epsilon():
    lap = Laplace.from_epsilon(epsilon=0.5, sensitivity=2.0)
    assert lap.scale == 4.0  # b = Δ/ε = 2/0.5
    assert lap.sensitivity == 2.0
    assert lap.epsilon == 0.5  # ε = Δ/b


def test_direct_construction_and_defaults():
    lap = Laplace(scale=3.0)
    assert lap.sensitivity == 1.0
    assert lap.epsilon == pytest.approx(1 / 3, rel=1e-15)
    assert Laplace(scale=2, sensitivity=4).epsilon == 2.0


def test_is_frozen():
    lap = Laplace(scale=1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        lap.scale = 2.0


def test_variance_std_closed_forms():
    lap = Laplace(scale=1.5)
    assert lap.variance == 2 * 1.5**2  # Var Lap(b) = 2 b²
    assert lap.std == pytest.approx(math.sqrt(2) * 1.5, rel=1e-15)


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.999999])
def test_error_bound_closed_form_and_cdf(confidence):
    lap = Laplace(scale=2.0)
    t = lap.error_bound(confidence)
    assert t == pytest.approx(2.0 * math.log(1 / (1 - confidence)), rel=1e-12)  # t = b ln(1/(1-c))
    # P(|X| <= t) = F(t) - F(-t)
    assert lap.cdf(t) - lap.cdf(-t) == pytest.approx(confidence, abs=1e-12)


def test_error_bound_coverage_by_simulation(rng):
    lap = Laplace.from_epsilon(0.7, 3.0)
    n = 200_000
    noise = lap.simulate(np.zeros(n), rng)
    for confidence in (0.5, 0.9, 0.99):
        covered = np.mean(np.abs(noise) <= lap.error_bound(confidence))
        se = math.sqrt(confidence * (1 - confidence) / n)  # binomial standard error
        assert abs(covered - confidence) <= Z * se


def test_pdf_integrates_to_one_and_matches_cdf():
    lap = Laplace(scale=0.8)
    x = np.linspace(-40, 40, 400_001)
    assert trapezoid(lap.pdf(x), x) == pytest.approx(1.0, abs=1e-6)
    assert lap.pdf(0.0) == 1 / (2 * 0.8)  # peak 1/(2b)
    # dF/dx = f away from the kink at 0
    h = 1e-6
    for x0 in (-2.0, 0.3, 5.0):
        assert (lap.cdf(x0 + h) - lap.cdf(x0 - h)) / (2 * h) == pytest.approx(lap.pdf(x0), rel=1e-6)
    assert lap.cdf(-1e6) == 0.0 and lap.cdf(1e6) == 1.0


def test_release_shapes_and_types(rng):
    lap = Laplace(scale=1.0)
    assert isinstance(lap.simulate(3.0, rng), float)
    assert lap.simulate([1.0, 2.0, 3.0], rng).shape == (3,)
    assert lap.simulate(np.ones((2, 3)), rng).shape == (2, 3)
    assert lap.simulate(5.0, rng, trials=7).shape == (7,)
    assert lap.simulate([1.0, 2.0], rng, trials=4).shape == (4, 2)
    assert isinstance(lap.sample(rng), float)
    assert lap.sample(rng, size=(2, 2)).shape == (2, 2)


def test_release_is_reproducible_from_a_seed():
    lap = Laplace(scale=1.0)
    assert np.array_equal(lap.simulate([1.0, 2.0], 42, trials=3), lap.simulate([1.0, 2.0], 42, trials=3))


def test_release_noise_is_centred_with_the_right_variance(rng):
    lap = Laplace.from_epsilon(0.25, 1.0)
    trials = 100_000
    out = lap.simulate(np.array([10.0, -5.0]), rng, trials=trials)
    noise = out - np.array([10.0, -5.0])
    # mean: standard error sqrt(Var/N)
    assert np.all(np.abs(noise.mean(axis=0)) <= Z * math.sqrt(lap.variance / trials))
    # variance: Laplace has excess kurtosis 3, so Var(s²)/σ⁴ ≈ (2 + 3)/N
    rel = Z * math.sqrt(5.0 / trials)
    assert np.all(np.abs(noise.var(axis=0) / lap.variance - 1) <= rel)


def test_trials_are_independent(rng):
    out = Laplace(scale=1.0).simulate(0.0, rng, trials=50_000)
    corr = np.corrcoef(out[:-1], out[1:])[0, 1]
    assert abs(corr) <= Z / math.sqrt(out.size)


@pytest.mark.parametrize("accuracy, confidence, sensitivity", [(10.0, 0.95, 1.0), (0.5, 0.5, 3.0), (2.0, 0.999, 0.1)])
def test_accuracy_epsilon_round_trip(accuracy, confidence, sensitivity):
    eps = Laplace.epsilon_for_accuracy(accuracy, confidence, sensitivity)
    # ε = Δ ln(1/(1-c)) / t
    assert eps == pytest.approx(sensitivity * math.log(1 / (1 - confidence)) / accuracy, rel=1e-12)
    lap = Laplace.from_epsilon(eps, sensitivity)
    assert lap.error_bound(confidence) == pytest.approx(accuracy, rel=1e-12)
    scale = Laplace.scale_for_accuracy(accuracy, confidence)
    assert Laplace(scale).error_bound(confidence) == pytest.approx(accuracy, rel=1e-12)
    # and from ε back to ε
    back = Laplace.epsilon_for_accuracy(lap.error_bound(confidence), confidence, sensitivity)
    assert back == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_bad_epsilon(bad):
    with pytest.raises(ValueError, match="epsilon must be"):
        Laplace.from_epsilon(bad)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: Laplace(scale=0.0), r"scale must be in \(0, inf\), got 0.0"),
        (lambda: Laplace(scale=1.0, sensitivity=-2.0), r"sensitivity must be in \(0, inf\), got -2.0"),
        (lambda: Laplace.from_epsilon(1.0, sensitivity=0.0), "sensitivity must be"),
        (lambda: Laplace(1.0).error_bound(1.0), r"confidence must be in \(0, 1\), got 1.0"),
        (lambda: Laplace(1.0).error_bound(0.0), "confidence must be"),
        (lambda: Laplace.epsilon_for_accuracy(0.0, 0.9), "accuracy must be"),
        (lambda: Laplace(1.0).simulate([1.0, np.nan], 0), "values must not contain NaN"),
        (lambda: Laplace(1.0).simulate([1.0, np.inf], 0), "values must be finite"),
        (lambda: Laplace(1.0).simulate([], 0), "values must contain at least one number"),
        (lambda: Laplace(1.0).simulate(1.0, 0, trials=0), r"trials must be an integer in \[1, 10000000\], got 0"),
    ],
)
def test_bad_input_names_parameter_range_and_value(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_wrong_types():
    with pytest.raises(TypeError):
        Laplace(scale="1")
    with pytest.raises(TypeError):
        Laplace(1.0).simulate(["a", "b"], 0)


def test_sample_laplace_has_the_laplace_law(rng):
    # scale · (E1 − E2) is exactly Lap(scale); a Kolmogorov-Smirnov test at level 1e-6 would catch a wrong law
    draws = sample_laplace(rng, 2.5, 200_000)
    assert stats.kstest(draws, stats.laplace(scale=2.5).cdf).pvalue > 1e-6
    assert stats.kstest(draws, stats.laplace(scale=2.7).cdf).pvalue < 1e-6  # the check has power
    assert isinstance(sample_laplace(rng, 1.0), float)


def test_sample_laplace_with_array_scale_draws_independently(rng):
    scales = np.array([1.0, 10.0, 100.0])
    out = sample_laplace(rng, scales, (100_000, 3))
    rel = Z * math.sqrt(5.0 / 100_000)  # Laplace: Var(s²)/σ⁴ ≈ 5/N
    np.testing.assert_array_less(np.abs(out.var(axis=0) / (2 * scales**2) - 1), rel)
    one = sample_laplace(rng, scales)  # size taken from the scales
    assert one.shape == (3,) and len(set(one / scales)) == 3


@pytest.mark.parametrize(
    "a, c", [(1.0, 0.3), (0.3, 1.0), (2.0, 2.0), (2.0, 2.0 * (1 - 1e-7)), (1.5, 0.0), (1.0, 0.999)]
)
def test_laplace_sum_pdf_is_the_convolution_of_the_two_densities(a, c):
    from dpcore.laplace import laplace_sum_pdf

    x = np.linspace(-40.0, 40.0, 160_001)
    f = laplace_sum_pdf(x, a, c)
    assert trapezoid(f, x) == pytest.approx(1.0, abs=1e-6)
    assert trapezoid(f * x * x, x) == pytest.approx(2 * a * a + 2 * c * c, rel=1e-5)  # Var Lap(a) + Var Lap(c)
    # numerical convolution of the two densities at a few points (c = 0: the Laplace density itself)
    h = x[1] - x[0]
    for z in (0.0, 0.7, 3.0):
        conv = Laplace(a).pdf(x) @ Laplace(c).pdf(z - x) * h if c > 0 else Laplace(a).pdf(z)
        assert laplace_sum_pdf(z, a, c) == pytest.approx(conv, rel=2e-4)
    assert laplace_sum_pdf(0.7, a, c) == laplace_sum_pdf(-0.7, a, c)  # even in x
    if c > 0:
        assert laplace_sum_pdf(0.7, a, c) == laplace_sum_pdf(0.7, c, a)  # symmetric in the two scales


def test_laplace_sum_pdf_closed_forms_and_broadcasting():
    from dpcore.laplace import laplace_sum_pdf

    # a ≠ c: (a e^{−|x|/a} − c e^{−|x|/c}) / (2(a² − c²)); a = c: (a + |x|) e^{−|x|/a} / (4a²)
    assert laplace_sum_pdf(1.0, 2.0, 1.0) == pytest.approx((2 * math.exp(-0.5) - math.exp(-1)) / 6, rel=1e-14)
    assert laplace_sum_pdf(1.0, 2.0, 2.0) == pytest.approx(3 * math.exp(-0.5) / 16, rel=1e-14)
    out = laplace_sum_pdf(np.array([[0.0], [1.0]]), np.array([2.0, 2.0]), np.array([1.0, 2.0]))
    assert out.shape == (2, 2) and out[1, 0] == laplace_sum_pdf(1.0, 2.0, 1.0)
    with pytest.raises(ValueError, match=r"a must be in \(0, inf\), got 0.0"):
        laplace_sum_pdf(0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"c must be in \[0, inf\), got -1.0"):
        laplace_sum_pdf(0.0, 1.0, -1.0)
