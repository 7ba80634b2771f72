import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from dpcore.accounting import DEFAULT_ORDERS, pure_dp_to_zcdp, rdp_to_dp, zcdp_rho_for_epsilon, zcdp_to_dp


def test_cks_reference_value():
    # published: rho = 2, delta = 1e-6, CKS conversion -> 11.688596249354896
    assert zcdp_to_dp(2.0, 1e-6) == pytest.approx(11.688596249354896, rel=1e-13)


def test_bun_steinke_reference_value():
    # published: sigma = 5, k = 10 Gaussian releases: rho = k / (2 sigma^2) = 0.2, delta = 1e-5 -> 3.2349
    eps = zcdp_to_dp(0.2, 1e-5, conversion="bun-steinke")
    assert round(eps, 4) == 3.2349
    assert eps == pytest.approx(0.2 + 2 * math.sqrt(0.2 * math.log(1e5)), rel=1e-15)


def _cks_bound(alpha, rho, delta):
    # CKS 2020, Cor. 13 solved for eps: alpha rho + (ln(1/delta) - ln alpha)/(alpha-1) + ln(1 - 1/alpha)
    return alpha * rho + (math.log(1 / delta) - math.log(alpha)) / (alpha - 1) + math.log1p(-1 / alpha)


@pytest.mark.parametrize("rho", [1e-4, 0.01, 0.2, 2.0, 50.0, 1e3])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 0.01])
def test_cks_is_the_minimum_over_real_orders(rho, delta):
    res = minimize_scalar(
        lambda log_x: _cks_bound(1 + math.exp(log_x), rho, delta),
        bounds=(-30, 20),
        method="bounded",
        options={"xatol": 1e-10},
    )
    eps = zcdp_to_dp(rho, delta)
    assert eps <= max(res.fun, 0.0) + 1e-12 * max(1.0, abs(res.fun))
    assert eps == pytest.approx(max(res.fun, 0.0), rel=1e-9, abs=1e-12)


def test_cks_equals_the_improved_rdp_conversion_and_beats_the_grid():
    # rho-zCDP is the RDP curve rho * alpha; CKS optimises over all real alpha, the grid only over 156 orders
    for rho in (0.01, 0.2, 2.0):
        grid = rdp_to_dp(DEFAULT_ORDERS, rho * DEFAULT_ORDERS, 1e-5, warn=False)[0]
        cks = zcdp_to_dp(rho, 1e-5)
        assert cks <= grid + 1e-12
        assert cks == pytest.approx(grid, rel=1e-3)


def test_cks_never_worse_than_bun_steinke():
    rho = np.geomspace(1e-6, 1e4, 200)
    for delta in (1e-12, 1e-5, 0.3):
        assert np.all(zcdp_to_dp(rho, delta) <= zcdp_to_dp(rho, delta, conversion="bun-steinke"))


def test_vectorised_matches_scalar_and_increases_in_rho():
    rho = np.geomspace(1e-5, 1e3, 500)
    eps = zcdp_to_dp(rho, 1e-6)
    assert eps.shape == rho.shape
    for i in (0, 123, 499):
        assert eps[i] == zcdp_to_dp(float(rho[i]), 1e-6)
    assert np.all(np.diff(eps) > 0)


def test_tiny_rho_gives_zero_not_negative():
    assert zcdp_to_dp(1e-9, 0.9) == 0.0


def test_pure_dp_to_zcdp():
    # Bun & Steinke 2016, Prop. 1.4: eps-DP => eps^2/2-zCDP
    assert pure_dp_to_zcdp(0.5) == 0.125
    np.testing.assert_allclose(pure_dp_to_zcdp([0.1, 2.0]), [0.005, 2.0])


@pytest.mark.parametrize("conversion", ["cks", "bun-steinke"])
@pytest.mark.parametrize("eps, delta", [(0.5, 1e-6), (3.0, 1e-5), (40.0, 1e-9)])
def test_rho_for_epsilon_round_trip(conversion, eps, delta):
    rho = zcdp_rho_for_epsilon(eps, delta, conversion)
    assert zcdp_to_dp(rho, delta, conversion) == pytest.approx(eps, rel=1e-12)


def test_zcdp_bad_input():
    with pytest.raises(ValueError, match=r"rho must be in \(0, inf\), got 0.0"):
        zcdp_to_dp(0.0, 1e-5)
    with pytest.raises(ValueError, match=r"rho must be in \(0, inf\), got -1.0"):
        zcdp_to_dp(np.array([1.0, -1.0]), 1e-5)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 1.5"):
        zcdp_to_dp(1.0, 1.5)
    with pytest.raises(ValueError, match=r"conversion must be one of 'cks', 'bun-steinke', got 'mironov'"):
        zcdp_to_dp(1.0, 1e-5, conversion="mironov")
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, inf\), got 0.0"):
        pure_dp_to_zcdp(0.0)
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, inf\), got -2.0"):
        zcdp_rho_for_epsilon(-2.0, 1e-5)
