"""Tests for dpcore.gdp: the one home of the Gaussian's δ(ε), its inverses, ρ and RDP."""

import math

import numpy as np
import pytest
from scipy.special import ndtr

from dpcore import Gaussian, analytic_gaussian_epsilon, analytic_gaussian_sigma, gaussian_delta
from dpcore.accounting import gaussian_epsilon, gaussian_rdp, gaussian_sigma_for_epsilon
from dpcore.gdp import gdp_delta, gdp_epsilon, gdp_epsilon_array, gdp_mu_for_epsilon, gdp_rdp, gdp_rho


def delta_mpmath(mu, epsilon):
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) at 50 digits (Dong, Roth, Su 2019, Cor. 2.13)."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(50):
        m, e = mpmath.mpf(mu), mpmath.mpf(epsilon)
        return float(mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2))


GRID = [(0.05, 0.0), (0.05, 0.01), (0.5, 0.3), (1.0, 1.0), (2.0, 4.0), (5.0, 10.0), (30.0, 400.0)]


@pytest.mark.parametrize("mu, epsilon", GRID)
def test_delta_against_fifty_digits(mu, epsilon):
    assert gdp_delta(mu, epsilon) == pytest.approx(delta_mpmath(mu, epsilon), rel=1e-11)


def test_a_wrong_formula_would_be_caught():
    # negative control: dropping e^ε from the second term (a classic slip) is far outside the tolerance above
    mu, eps = 1.0, 1.0
    wrong = ndtr(-eps / mu + mu / 2) - ndtr(-eps / mu - mu / 2)
    assert abs(wrong / delta_mpmath(mu, eps) - 1) > 0.5


def test_delta_agrees_with_google_dp_accounting():
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_mechanism")
    for sigma, sens, eps in [(3.0, 2.0, 0.5), (1.0, 1.0, 2.0), (10.0, 1.0, 0.05)]:
        reference = pld.GaussianPrivacyLoss(sigma, sensitivity=sens).get_delta_for_epsilon(eps)
        assert gdp_delta(sens / sigma, eps) == pytest.approx(reference, rel=1e-9)


def test_sigma_agrees_with_google_dp_accounting():
    dp_accounting = pytest.importorskip("dp_accounting")
    for eps, delta in [(1.0, 1e-5), (0.1, 1e-8), (8.0, 1e-6)]:
        assert 1.0 / gdp_mu_for_epsilon(eps, delta) == pytest.approx(
            dp_accounting.get_sigma_gaussian(eps, delta), rel=1e-9
        )


def test_delta_at_zero_is_the_total_variation_distance():
    # δ_μ(0) = Φ(μ/2) − Φ(−μ/2) = 2Φ(μ/2) − 1
    for mu in (0.1, 1.0, 4.0):
        assert gdp_delta(mu, 0.0) == pytest.approx(2 * ndtr(mu / 2) - 1, rel=1e-13)


def test_delta_is_vectorised_and_finite_for_huge_epsilon():
    mu = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(gdp_delta(mu, 1.0), [gdp_delta(m, 1.0) for m in mu], rtol=1e-15)
    assert gdp_delta(40.0, 1000.0) == pytest.approx(delta_mpmath(40.0, 1000.0), rel=1e-9)
    assert isinstance(gdp_delta(1.0, 1.0), float)


@pytest.mark.parametrize("mu", [0.01, 0.3, 1.0, 3.0, 20.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.1])
def test_epsilon_round_trip(mu, delta):
    eps = gdp_epsilon(mu, delta)
    if eps == 0.0:
        assert delta >= gdp_delta(mu, 0.0)  # ε = 0 only when δ alone suffices
    else:
        assert gdp_delta(mu, eps) == pytest.approx(delta, rel=1e-9)
        assert gdp_delta(mu, eps * (1 - 1e-6)) > delta  # smallest such ε


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 1.0, 5.0, 50.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.3])
def test_mu_round_trip(epsilon, delta):
    mu = gdp_mu_for_epsilon(epsilon, delta)
    assert gdp_delta(mu, epsilon) == pytest.approx(delta, rel=1e-9)
    assert gdp_delta(mu * (1 + 1e-6), epsilon) > delta  # largest such μ
    assert gdp_epsilon(mu, delta) == pytest.approx(epsilon, rel=1e-9)


def test_scalar_and_vectorised_solvers_agree():
    # one equation goes to root_on_log, several to the vectorised Newton–bisection: same ε to 1e-13
    mu = np.geomspace(0.01, 30.0, 40)
    log_delta = math.log(1e-6)
    many = gdp_epsilon_array(mu, log_delta)
    one_by_one = np.array([gdp_epsilon_array(np.array(m), log_delta)[()] for m in mu])
    np.testing.assert_allclose(many, one_by_one, rtol=1e-13)


def test_single_release_and_k_fold_functions_share_one_formula():
    # k releases of σ are one release of σ/sqrt(k) (Dong, Roth, Su 2019, Cor. 3.3)
    for sigma, k, delta in [(5.0, 10, 1e-5), (2.0, 400, 1e-7)]:
        assert analytic_gaussian_epsilon(sigma / math.sqrt(k), delta) == pytest.approx(
            gaussian_epsilon(sigma, k, delta), rel=1e-12
        )
    assert analytic_gaussian_sigma(0.8, 1e-6, 3.0) == pytest.approx(gaussian_sigma_for_epsilon(0.8, 1, 1e-6, 3.0))
    assert gaussian_delta(3.0, 0.5, 2.0) == gdp_delta(2.0 / 3.0, 0.5)


def test_rho_and_rdp_closed_forms():
    # ρ = μ²/2 and r(α) = α μ²/2 with μ = Δ/σ (Bun & Steinke 2016, Prop. 1.6; Mironov 2017, Prop. 7)
    assert gdp_rho(0.5) == 0.125
    np.testing.assert_array_equal(gdp_rho(np.array([1.0, 2.0])), [0.5, 2.0])
    assert gdp_rdp(0.5, 4.0) == 0.5
    np.testing.assert_array_equal(gdp_rdp(0.5, [2.0, 10.0]), [0.25, 1.25])
    g = Gaussian(sigma=4.0, sensitivity=2.0)
    assert g.zcdp_rho == gdp_rho(0.5) and g.rdp_epsilon(3.0) == gdp_rdp(0.5, 3.0)
    np.testing.assert_array_equal(gaussian_rdp(4.0, [2.0, 10.0], 2.0), gdp_rdp(0.5, [2.0, 10.0]))


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: gdp_delta(0.0, 1.0), ValueError, r"mu must be in \(0, inf\), got 0.0"),
        (lambda: gdp_delta([1.0, -1.0], 1.0), ValueError, r"mu must be in \(0, inf\), got -1.0"),
        (lambda: gdp_delta(1.0, -0.5), ValueError, r"epsilon must be in \[0, inf\), got -0.5"),
        (lambda: gdp_delta(1.0, math.nan), ValueError, r"epsilon must be in \[0, inf\), got nan"),
        (lambda: gdp_delta(1.0, True), TypeError, "epsilon must be a real number"),
        (lambda: gdp_epsilon(1.0, 0.0), ValueError, r"delta must be in \(0, 1\), got 0.0"),
        (lambda: gdp_mu_for_epsilon(0.0, 1e-5), ValueError, r"epsilon must be in \(0, inf\), got 0.0"),
        (lambda: gdp_rdp(1.0, [2.0, 1.0]), ValueError, r"orders must be in \(1, inf\), got 1.0"),
        (lambda: gdp_rdp(1.0, True), TypeError, "orders must be real numbers"),
        (lambda: gdp_rho(-2.0), ValueError, r"mu must be in \(0, inf\), got -2.0"),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
