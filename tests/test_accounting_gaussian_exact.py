import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from dpcore.accounting import gaussian_epsilon, gaussian_sigma_for_epsilon, gdp_delta, gdp_epsilon, gdp_mu
from dpcore.gaussian import analytic_gaussian_epsilon as single_release_epsilon


def _delta_plain(mu, eps):
    # Dong, Roth, Su 2019, Cor. 2.13: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
    return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)


def test_reference_value_sigma5_k10():
    # published: sigma = 5, k = 10, delta = 1e-5 -> exact 2.59438
    assert round(gaussian_epsilon(5.0, 10, 1e-5), 5) == 2.59438


@pytest.mark.parametrize("mu", [0.05, 0.3, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 1e-2])
def test_equals_brentq_on_the_plain_formula(mu, delta):
    eps = gdp_epsilon(mu, delta)
    ref = brentq(
        lambda e: _delta_plain(mu, e) - delta,
        0.0,
        mu * mu / 2 + mu * math.sqrt(2 * math.log(1 / delta)) + 1,
        xtol=1e-15,
        rtol=1e-15,
    )
    assert eps == pytest.approx(ref, rel=1e-10)


def test_inverts_the_delta_formula_over_a_wide_range():
    mu = np.geomspace(1e-3, 200, 300)
    for delta in (1e-12, 1e-6, 0.05):
        eps = gdp_epsilon(mu, delta)
        positive = eps > 0
        np.testing.assert_allclose(gdp_delta(mu[positive], eps[positive]), delta, rtol=1e-9)
        # where eps = 0, delta already covers delta(0) = 2 Phi(mu/2) - 1
        np.testing.assert_array_less(2 * norm.cdf(mu[~positive] / 2) - 1, delta * (1 + 1e-12))


def test_ten_thousand_k_at_once_match_single_solves():
    ks = np.arange(1, 10_001)
    eps = gaussian_epsilon(5.0, ks, 1e-5)
    assert eps.shape == ks.shape
    assert np.all(np.diff(eps) > 0)
    for k in (1, 2, 10, 137, 999, 10_000):
        mu = math.sqrt(k) / 5.0
        ref = brentq(lambda e: _delta_plain(mu, e) - 1e-5, 0.0, mu * mu / 2 + 5 * mu + 1, xtol=1e-14, rtol=1e-15)
        assert eps[k - 1] == pytest.approx(ref, rel=1e-10)


def test_single_release_agrees_with_the_gaussian_module():
    for sigma, sens, delta in [(1.0, 1.0, 1e-5), (5.0, 2.0, 1e-8), (0.3, 1.0, 0.01)]:
        assert gaussian_epsilon(sigma, 1, delta, sens) == pytest.approx(
            single_release_epsilon(sigma, delta, sens), rel=1e-10
        )


def test_composition_is_gdp_with_mu_sqrt_k():
    # k releases at sigma = one release at sigma / sqrt(k); sensitivity D = sigma / D
    assert gaussian_epsilon(4.0, 16, 1e-6) == pytest.approx(gaussian_epsilon(1.0, 1, 1e-6), rel=1e-13)
    assert gaussian_epsilon(6.0, 3, 1e-6, sensitivity=2.0) == pytest.approx(gaussian_epsilon(3.0, 3, 1e-6), rel=1e-13)
    assert gdp_mu(5.0, 10) == pytest.approx(math.sqrt(10) / 5, rel=1e-15)


def test_epsilon_zero_when_delta_covers_delta_at_zero():
    mu = 0.1
    d0 = 2 * norm.cdf(mu / 2) - 1
    assert gdp_epsilon(mu, d0 * 1.001) == 0.0
    assert gdp_epsilon(mu, d0 * 0.999) > 0.0


def test_large_mu_does_not_overflow():
    eps = gdp_epsilon(1000.0, 1e-5)
    assert math.isfinite(eps) and eps > 1000.0**2 / 2
    assert gdp_delta(1000.0, eps) == pytest.approx(1e-5, rel=1e-9)


@pytest.mark.parametrize("eps, k, delta, sens", [(1.0, 1, 1e-5, 1.0), (2.0, 50, 1e-6, 3.0), (0.1, 7, 1e-3, 1.0)])
def test_sigma_for_epsilon_round_trip(eps, k, delta, sens):
    sigma = gaussian_sigma_for_epsilon(eps, k, delta, sens)
    assert gaussian_epsilon(sigma, k, delta, sens) == pytest.approx(eps, rel=1e-10)


def test_gaussian_exact_bad_input():
    with pytest.raises(ValueError, match=r"sigma must be in \(0, inf\), got 0.0"):
        gaussian_epsilon(0.0, 10, 1e-5)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 10000000\], got 0"):
        gaussian_epsilon(1.0, 0, 1e-5)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 10000000\], got 0"):
        gaussian_epsilon(1.0, [3, 0, 2], 1e-5)
    with pytest.raises(ValueError, match=r"k must be an integer, got 1.5"):
        gaussian_epsilon(1.0, [1.5], 1e-5)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 0.0"):
        gaussian_epsilon(1.0, 3, 0.0)
    with pytest.raises(ValueError, match=r"sensitivity must be in \(0, inf\), got -1.0"):
        gaussian_epsilon(1.0, 3, 1e-5, sensitivity=-1.0)
    with pytest.raises(ValueError, match=r"mu must be in \(0, inf\), got -1.0"):
        gdp_epsilon([1.0, -1.0], 1e-5)
    with pytest.raises(ValueError, match=r"epsilon must be in \[0, inf\), got -1.0"):
        gdp_delta(1.0, -1.0)
