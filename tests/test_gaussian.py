"""Tests for dpcore.gaussian: calibrations against their defining equations and published values."""

import dataclasses
import math
import warnings

import numpy as np
import pytest
from scipy.special import ndtr

from dpcore import Gaussian, analytic_gaussian_epsilon, analytic_gaussian_sigma, classic_gaussian_sigma, gaussian_delta
from tests.tolerances import Z, variance_tolerance


def delta_direct(sigma, epsilon, sensitivity=1.0):
    """Balle & Wang (2018), Theorem 8, evaluated naively (fine for moderate ε)."""
    s, t = sensitivity / (2 * sigma), epsilon * sigma / sensitivity
    return ndtr(s - t) - math.exp(epsilon) * ndtr(-s - t)


def delta_mpmath(sigma, epsilon, sensitivity=1.0):
    """The same δ(ε) at 50 digits, an independent check that needs no care about cancellation."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(50):
        s = mpmath.mpf(sensitivity) / (2 * mpmath.mpf(sigma))
        t = mpmath.mpf(epsilon) * mpmath.mpf(sigma) / sensitivity
        return float(mpmath.ncdf(s - t) - mpmath.exp(epsilon) * mpmath.ncdf(-s - t))


CASES = [(1.0, 1e-5), (0.1, 1e-5), (0.5, 1e-8), (0.01, 1e-10), (2.0, 1e-6), (10.0, 1e-5), (50.0, 1e-5), (3.0, 0.3)]


@pytest.mark.parametrize("epsilon, delta", CASES)
@pytest.mark.parametrize("sensitivity", [1.0, 7.5])
def test_analytic_sigma_satisfies_its_delta_equation(epsilon, delta, sensitivity):
    sigma = analytic_gaussian_sigma(epsilon, delta, sensitivity)
    # δ(σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) = δ, to 1e-9 relative
    assert delta_mpmath(sigma, epsilon, sensitivity) == pytest.approx(delta, rel=1e-9)
    assert gaussian_delta(sigma, epsilon, sensitivity) == pytest.approx(delta, rel=1e-9)
    if epsilon <= 10:
        assert delta_direct(sigma, epsilon, sensitivity) == pytest.approx(delta, rel=1e-9)
    # smallest such σ: 0.1% less noise already violates δ
    assert gaussian_delta(sigma * 0.999, epsilon, sensitivity) > delta


def test_analytic_sigma_scales_with_sensitivity():
    assert analytic_gaussian_sigma(0.7, 1e-6, 4.0) == pytest.approx(
        4.0 * analytic_gaussian_sigma(0.7, 1e-6, 1.0), rel=1e-12
    )


def test_published_values_balle_wang_2018():
    # Balle & Wang (2018): ε = 1, δ = 1e-5, Δ = 1 gives analytic σ ≈ 3.73 vs classic σ ≈ 4.84.
    assert analytic_gaussian_sigma(1.0, 1e-5) == pytest.approx(3.73, abs=0.005)
    assert classic_gaussian_sigma(1.0, 1e-5) == pytest.approx(4.84, abs=0.005)


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 0.3, 0.5, 0.9, 0.999])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-10])
def test_analytic_below_classic_for_epsilon_below_one(epsilon, delta):
    assert analytic_gaussian_sigma(epsilon, delta) < classic_gaussian_sigma(epsilon, delta)


def test_classic_formula_exact():
    # σ = Δ sqrt(2 ln(1.25/δ)) / ε
    g = Gaussian.from_epsilon_delta(0.5, 1e-5, 2.0, calibration="classic")
    assert g.sigma == 2.0 * math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    assert g.calibration.method == "classic" and g.calibration.proven  # no caveat (was: no note)
    assert (g.epsilon, g.delta, g.sensitivity) == (0.5, 1e-5, 2.0)


def test_classic_is_private_below_one():
    # the classic σ meets δ for ε < 1 (Dwork & Roth 2014, Theorem A.1)
    for eps in (0.05, 0.5, 0.95):
        assert gaussian_delta(classic_gaussian_sigma(eps, 1e-5), eps) <= 1e-5


def test_classic_outside_its_range_warns_and_records():
    with pytest.warns(UserWarning, match="only for epsilon < 1") as caught:
        g = Gaussian.from_epsilon_delta(10.0, 1e-5, 1.0, calibration="classic")
    note = str(caught[0].message)  # the caveat is worded in the warning; the calibration records it as data
    assert not g.calibration.proven and "epsilon=10.0" in note
    # and rightly so: at ε = 10 the classic σ does not achieve δ = 1e-5 (Balle & Wang 2018, Section 2)
    assert gaussian_delta(g.sigma, 10.0) > 1e-5
    assert "above the requested" in note
    assert g.calibration.guaranteed_delta == gaussian_delta(g.sigma, 10.0) > g.calibration.delta


def test_no_warning_for_analytic_or_classic_below_one():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Gaussian.from_epsilon_delta(0.5, 1e-5, calibration="classic")
        Gaussian.from_epsilon_delta(10.0, 1e-5)


def test_default_calibration_is_analytic():
    g = Gaussian.from_epsilon_delta(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert g.calibration.method == "analytic"
    assert g.sigma == analytic_gaussian_sigma(1.0, 1e-5, 1.0)


def test_large_epsilon_does_not_overflow():
    for eps in (50.0, 700.0, 1000.0):
        sigma = analytic_gaussian_sigma(eps, 1e-12)
        assert np.isfinite(sigma) and sigma > 0
        assert gaussian_delta(sigma, eps) == pytest.approx(1e-12, rel=1e-9)


def test_sigma_decreases_in_epsilon_and_delta():
    eps = np.array([0.05, 0.2, 1.0, 4.0, 20.0])
    sig = [analytic_gaussian_sigma(e, 1e-6) for e in eps]
    assert np.all(np.diff(sig) < 0)
    sig_d = [analytic_gaussian_sigma(1.0, d) for d in (1e-12, 1e-8, 1e-4, 1e-1)]
    assert np.all(np.diff(sig_d) < 0)


def test_zcdp_and_rdp_calibrations():
    g = Gaussian.from_zcdp(rho=0.2, sensitivity=1.0)
    assert g.sigma**2 == pytest.approx(1.0 / (2 * 0.2), rel=1e-15)  # σ² = Δ²/(2ρ)
    assert g.zcdp_rho == pytest.approx(0.2, rel=1e-15)
    assert g.calibration.method == "zcdp"
    r = Gaussian.from_rdp(alpha=10.0, epsilon_bar=0.5, sensitivity=2.0)
    assert r.sigma**2 == pytest.approx(4.0 * 10.0 / (2 * 0.5), rel=1e-15)  # σ² = Δ² α / (2 ε̄)
    assert r.rdp_epsilon(10.0) == pytest.approx(0.5, rel=1e-15)
    assert r.rdp_epsilon(20.0) == pytest.approx(1.0, rel=1e-15)  # linear in α
    assert r.calibration.method == "rdp" and r.calibration.alpha == 10.0


def test_direct_construction_and_frozen():
    g = Gaussian(sigma=5.0, sensitivity=1.0)
    assert g.sigma == 5.0 and g.epsilon is None and g.calibration is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.sigma = 1.0


def test_moments_and_error_bound_closed_forms():
    g = Gaussian(sigma=2.0)
    assert g.variance == 4.0 and g.std == 2.0
    # P(|N(0,σ²)| <= 1.959963984540054 σ) = 0.95
    assert g.error_bound(0.95) == pytest.approx(2.0 * 1.959963984540054, rel=1e-12)
    for c in (0.5, 0.99, 1 - 1e-12):
        t = g.error_bound(c)
        assert g.cdf(t) - g.cdf(-t) == pytest.approx(c, abs=1e-13)


def test_pdf_integrates_to_one():
    g = Gaussian(sigma=0.7)
    x = np.linspace(-10, 10, 200_001)
    assert np.sum(g.pdf(x)) * (x[1] - x[0]) == pytest.approx(1.0, abs=1e-9)
    assert g.pdf(0.0) == pytest.approx(1 / (0.7 * math.sqrt(2 * math.pi)), rel=1e-15)


def test_error_bound_coverage_and_variance_by_simulation(rng):
    g = Gaussian.from_epsilon_delta(0.8, 1e-6, 2.0)
    n = 200_000
    noise = g.simulate(np.zeros(n), rng)
    for c in (0.5, 0.9, 0.99):
        se = math.sqrt(c * (1 - c) / n)  # binomial standard error
        assert abs(np.mean(np.abs(noise) <= g.error_bound(c)) - c) <= Z * se
    assert abs(noise.var() / g.variance - 1) <= variance_tolerance(n)


def test_release_shapes(rng):
    g = Gaussian(sigma=1.0)
    assert isinstance(g.simulate(1.0, rng), float)
    assert g.simulate([1.0, 2.0], rng).shape == (2,)
    assert g.simulate([[1.0, 2.0]], rng, trials=3).shape == (3, 1, 2)


@pytest.mark.parametrize("accuracy, confidence, delta", [(5.0, 0.95, 1e-5), (0.5, 0.9, 1e-8), (50.0, 0.99, 1e-3)])
@pytest.mark.parametrize("sensitivity", [1.0, 3.0])
def test_accuracy_round_trips(accuracy, confidence, delta, sensitivity):
    sigma = Gaussian.sigma_for_accuracy(accuracy, confidence)
    assert Gaussian(sigma).error_bound(confidence) == pytest.approx(accuracy, rel=1e-12)
    eps = Gaussian.epsilon_for_accuracy(accuracy, confidence, delta=delta, sensitivity=sensitivity)
    g = Gaussian.from_epsilon_delta(eps, delta, sensitivity)
    assert g.error_bound(confidence) == pytest.approx(accuracy, rel=1e-9)
    # classic inverse round-trips through the classic formula
    eps_c = Gaussian.epsilon_for_accuracy(
        accuracy, confidence, delta=delta, sensitivity=sensitivity, calibration="classic"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gc = Gaussian.from_epsilon_delta(eps_c, delta, sensitivity, calibration="classic")
    assert gc.error_bound(confidence) == pytest.approx(accuracy, rel=1e-12)
    if eps_c < 1:
        assert eps <= eps_c  # where the classic formula is valid, the analytic one never needs more ε
    else:
        # outside it the classic ε may be smaller, but then it is not a valid guarantee at this δ
        assert eps <= eps_c or gaussian_delta(gc.sigma, eps_c, sensitivity) > delta


@pytest.mark.parametrize("epsilon, delta", CASES)
def test_epsilon_sigma_round_trip(epsilon, delta):
    sigma = analytic_gaussian_sigma(epsilon, delta)
    assert analytic_gaussian_epsilon(sigma, delta) == pytest.approx(epsilon, rel=1e-9)
    assert Gaussian(sigma).epsilon_for_delta(delta) == pytest.approx(epsilon, rel=1e-9)
    assert Gaussian(sigma).delta_for_epsilon(epsilon) == pytest.approx(delta, rel=1e-9)


def test_epsilon_is_zero_when_delta_alone_suffices():
    # δ(0) = 2Φ(Δ/(2σ)) − 1; with σ = 100 that is ≈ 0.004, so δ = 0.1 needs no ε
    assert analytic_gaussian_epsilon(100.0, 0.1) == 0.0
    assert analytic_gaussian_epsilon(100.0, 0.001) > 0.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: Gaussian.from_epsilon_delta(0.0, 1e-5), r"epsilon must be in \(0, inf\), got 0.0"),
        (lambda: Gaussian.from_epsilon_delta(math.inf, 1e-5), "epsilon must be"),
        (lambda: Gaussian.from_epsilon_delta(1.0, 0.0), r"delta must be in \(0, 1\), got 0.0"),
        (lambda: Gaussian.from_epsilon_delta(1.0, 1.0), r"delta must be in \(0, 1\), got 1.0"),
        (lambda: Gaussian.from_epsilon_delta(1.0, 1e-5, -1.0), "sensitivity must be"),
        (lambda: Gaussian.from_epsilon_delta(1.0, 1e-5, calibration="exact"), "calibration must be one of"),
        (lambda: Gaussian(sigma=-1.0), r"sigma must be in \(0, inf\), got -1.0"),
        (lambda: Gaussian.from_zcdp(0.0), "rho must be"),
        (lambda: Gaussian.from_rdp(1.0, 0.5), r"alpha must be in \(1, inf\), got 1.0"),
        (lambda: Gaussian.from_rdp(2.0, -0.5), "epsilon_bar must be"),
        (lambda: Gaussian(1.0).error_bound(1.5), "confidence must be"),
        (lambda: Gaussian.epsilon_for_accuracy(1.0, 0.9, delta=2.0), "delta must be"),
        (lambda: Gaussian(1.0).simulate(np.nan, 0), "values must not contain NaN"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_equal_noise_compares_equal_whatever_its_calibration():
    # σ² = Δ²/(2ρ) = 1 at ρ = 0.5; σ² = Δ² α / (2 ε̄) = 1 at α = 2, ε̄ = 1
    plain, zcdp, rdp = Gaussian(sigma=1.0), Gaussian.from_zcdp(0.5), Gaussian.from_rdp(2.0, 1.0)
    assert plain == zcdp == rdp and hash(plain) == hash(zcdp) == hash(rdp)
    assert zcdp.calibration.rho == 0.5 and rdp.calibration.epsilon_bar == 1.0 and plain.calibration is None
    assert Gaussian(1.0) != Gaussian(1.0, sensitivity=2.0)
    g = Gaussian.from_epsilon_delta(1.0, 1e-5)
    assert g == Gaussian(g.sigma) and (g.epsilon, g.delta) == (1.0, 1e-5)
    assert g.calibration.proven and g.calibration.guaranteed_delta == pytest.approx(1e-5, rel=1e-9)
    assert g.mu == 1.0 / g.sigma


def test_calibration_record_checks_its_fields():
    from dpcore import GaussianCalibration

    with pytest.raises(ValueError, match="method must be one of"):
        GaussianCalibration("exact")
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, inf\), got 0.0"):
        GaussianCalibration("analytic", epsilon=0.0)
    with pytest.raises(ValueError, match=r"alpha must be in \(1, inf\), got 1.0"):
        GaussianCalibration("rdp", alpha=1.0)
    with pytest.raises(TypeError, match="calibration must be a GaussianCalibration or None, got str"):
        Gaussian(1.0, calibration="analytic")
