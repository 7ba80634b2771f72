import math
import warnings

import numpy as np
import pytest
from scipy.integrate import quad

from dpcore import GRR
from dpcore.accounting import (
    DEFAULT_ORDERS,
    OrderGridEdgeWarning,
    gaussian_rdp,
    laplace_rdp,
    randomized_response_rdp,
    rdp_epsilons,
    rdp_to_dp,
)


def test_default_orders_grid():
    # 1.1, 1.2, ..., 10.9 (99), 11, ..., 63 (53), 128, 256, 512, 1024 (4)
    assert DEFAULT_ORDERS.size == 156
    np.testing.assert_allclose(DEFAULT_ORDERS[:99], np.round(np.arange(1.1, 10.95, 0.1), 10), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(DEFAULT_ORDERS[99:152], np.arange(11, 64))
    np.testing.assert_array_equal(DEFAULT_ORDERS[152:], [128, 256, 512, 1024])
    assert np.all(np.diff(DEFAULT_ORDERS) > 0)
    with pytest.raises(ValueError):
        DEFAULT_ORDERS[0] = 2.0  # read-only: nobody can change the grid for everybody


def test_gaussian_rdp_formula():
    # alpha D^2 / (2 sigma^2)
    np.testing.assert_allclose(gaussian_rdp(2.0, [1.5, 10.0], sensitivity=3.0), [1.5 * 9 / 8, 10 * 9 / 8], rtol=1e-15)


def _laplace_renyi_by_quadrature(b, sens, alpha):
    # D_alpha(Lap(0,b) || Lap(sens,b)) = 1/(alpha-1) ln \int p^alpha q^(1-alpha)
    def integrand(x):
        return math.exp(-(alpha * abs(x) + (1 - alpha) * abs(x - sens)) / b) / (2 * b)

    total = sum(
        quad(integrand, lo, hi, epsabs=0, epsrel=1e-12)[0] for lo, hi in [(-np.inf, 0), (0, sens), (sens, np.inf)]
    )
    return math.log(total) / (alpha - 1)


@pytest.mark.parametrize("scale, sens", [(1.0, 1.0), (4.0, 1.0), (0.7, 2.0)])
def test_laplace_rdp_matches_renyi_divergence_by_quadrature(scale, sens):
    orders = np.array([1.1, 1.5, 2.0, 5.0, 12.0])
    direct = [_laplace_renyi_by_quadrature(scale, sens, a) for a in orders]
    np.testing.assert_allclose(laplace_rdp(scale, orders, sens), direct, rtol=1e-9)


def test_laplace_rdp_limits_and_monotone():
    eps0 = 0.8
    curve = laplace_rdp(1 / eps0, DEFAULT_ORDERS)
    assert np.all(np.diff(curve) > 0)  # Renyi divergence increases with the order
    # alpha -> 1: KL = eps0 + e^-eps0 - 1; alpha -> inf: eps0
    assert laplace_rdp(1 / eps0, [1 + 1e-7])[0] == pytest.approx(eps0 + math.exp(-eps0) - 1, rel=1e-5)
    assert curve[-1] < eps0
    assert laplace_rdp(1 / eps0, [1e7])[0] == pytest.approx(eps0, rel=1e-6)
    # large epsilon and orders must not overflow
    assert np.all(np.isfinite(laplace_rdp(0.01, DEFAULT_ORDERS)))


@pytest.mark.parametrize("eps, k", [(0.5, 2), (1.0, 3), (2.0, 10), (8.0, 100)])
def test_randomized_response_rdp_matches_direct_renyi_divergence(eps, k):
    m = GRR(eps, k)
    # neighbours x=0 -> x'=1: P = (p, q, q, ...), Q = (q, p, q, ...)
    P = np.full(k, m.q)
    P[0] = m.p
    Q = np.full(k, m.q)
    Q[1] = m.p
    orders = np.array([1.1, 2.0, 7.5, 40.0])
    direct = [math.log(np.sum(P**a * Q ** (1 - a))) / (a - 1) for a in orders]
    np.testing.assert_allclose(randomized_response_rdp(eps, k, orders), direct, rtol=1e-11)


def test_binary_randomized_response_is_mironov_proposition_5():
    # D_alpha = 1/(alpha-1) ln(p^alpha (1-p)^(1-alpha) + (1-p)^alpha p^(1-alpha))
    p = math.exp(1.2) / (1 + math.exp(1.2))
    for a in (1.5, 3.0, 30.0):
        expected = math.log(p**a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)) / (a - 1)
        assert randomized_response_rdp(1.2, 2, [a])[0] == pytest.approx(expected, rel=1e-12)


def test_randomized_response_rdp_no_overflow_for_large_epsilon():
    curve = randomized_response_rdp(50.0, 1000, DEFAULT_ORDERS)
    assert np.all(np.isfinite(curve)) and np.all(curve <= 50.0 + 1e-9)


def test_rdp_to_dp_reference_gaussian():
    # published: sigma = 5, k = 10, delta = 1e-5, Balle conversion -> 2.8137
    eps, order = rdp_to_dp(DEFAULT_ORDERS, 10 * gaussian_rdp(5.0), 1e-5)
    assert round(eps, 4) == 2.8137
    assert order == pytest.approx(7.9)


def test_rdp_to_dp_formulas_by_brute_force():
    rdp = 10 * gaussian_rdp(5.0)
    a, d = DEFAULT_ORDERS, 1e-5
    balle = rdp + np.log((a - 1) / a) - (np.log(d) + np.log(a)) / (a - 1)
    mironov = rdp + np.log(1 / d) / (a - 1)
    assert rdp_to_dp(a, rdp, d)[0] == pytest.approx(balle.min(), rel=1e-14)
    assert rdp_to_dp(a, rdp, d, conversion="mironov")[0] == pytest.approx(mironov.min(), rel=1e-14)
    assert rdp_to_dp(a, rdp, d, conversion="mironov")[1] == a[mironov.argmin()]


def test_balle_conversion_never_worse_than_mironov():
    # the difference ln((a-1)/a) - ln(a)/(a-1) is negative for every a > 1
    rng = np.random.default_rng(3)
    for _ in range(20):
        rdp = rng.uniform(0.01, 3) * laplace_rdp(rng.uniform(0.2, 5), DEFAULT_ORDERS) * rng.integers(1, 500)
        for d in (1e-9, 1e-5, 0.1):
            assert (
                rdp_to_dp(DEFAULT_ORDERS, rdp, d, warn=False)[0]
                <= rdp_to_dp(DEFAULT_ORDERS, rdp, d, "mironov", warn=False)[0]
            )


def test_rdp_to_dp_batches_rows_like_single_calls():
    ks = np.array([1, 10, 100, 1000])
    rdp = ks[:, None] * laplace_rdp(3.0, DEFAULT_ORDERS)[None, :]
    eps, orders = rdp_to_dp(DEFAULT_ORDERS, rdp, 1e-6, warn=False)
    for i in range(ks.size):
        e, o = rdp_to_dp(DEFAULT_ORDERS, rdp[i], 1e-6, warn=False)
        assert eps[i] == e and orders[i] == o


def test_rdp_to_dp_is_clipped_at_zero():
    assert rdp_to_dp(DEFAULT_ORDERS, 1e-8 * DEFAULT_ORDERS, 0.5, warn=False)[0] == 0.0


def test_grid_edge_is_reported():
    # large sigma, one release: the optimum wants orders beyond 1024
    with pytest.warns(OrderGridEdgeWarning, match="largest order 1024"):
        rdp_to_dp(DEFAULT_ORDERS, gaussian_rdp(500.0), 1e-5)
    # tiny sigma, many releases: the optimum is below 1.1
    with pytest.warns(OrderGridEdgeWarning, match="smallest order 1.1"):
        rdp_to_dp(DEFAULT_ORDERS, 10**4 * gaussian_rdp(0.5), 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rdp_to_dp(DEFAULT_ORDERS, 10 * gaussian_rdp(5.0), 1e-5)


def test_rdp_bad_input():
    with pytest.raises(ValueError, match=r"orders must be in \(1, inf\), got 1.0"):
        gaussian_rdp(1.0, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"orders must be in \(1, inf\), got 0.5"):
        rdp_to_dp([0.5, 2.0], [1.0, 1.0], 1e-5)
    with pytest.raises(ValueError, match=r"sigma must be in \(0, inf\), got 0.0"):
        gaussian_rdp(0.0, [2.0])
    with pytest.raises(ValueError, match=r"scale must be in \(0, inf\), got -1.0"):
        laplace_rdp(-1.0, [2.0])
    with pytest.raises(ValueError, match=r"conversion must be one of 'balle', 'mironov', got 'renyi'"):
        rdp_to_dp(DEFAULT_ORDERS, gaussian_rdp(1.0), 1e-5, conversion="renyi")
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 1.0"):
        rdp_to_dp(DEFAULT_ORDERS, gaussian_rdp(1.0), 1.0)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 0.0"):
        rdp_to_dp(DEFAULT_ORDERS, gaussian_rdp(1.0), 0.0)
    with pytest.raises(ValueError, match="one value per order"):
        rdp_to_dp(DEFAULT_ORDERS, [1.0, 2.0], 1e-5)
    with pytest.raises(ValueError, match=r"rdp must be in \[0, inf\], got -1.0"):
        rdp_to_dp([2.0, 3.0], [1.0, -1.0], 1e-5)
    with pytest.raises(ValueError, match=r"k must be an integer in \[2, 10000000\], got 1"):
        randomized_response_rdp(1.0, 1)


def test_rdp_epsilons_per_order_are_what_rdp_to_dp_minimises():
    rdp = 10 * gaussian_rdp(5.0)
    a, d = DEFAULT_ORDERS, 1e-5
    # Mironov (2017) Prop. 3 at each order: r(a) + ln(1/d)/(a-1)
    np.testing.assert_allclose(rdp_epsilons(a, rdp, d, "mironov"), rdp + np.log(1 / d) / (a - 1), rtol=1e-14)
    for conversion in ("balle", "mironov"):
        per_order = rdp_epsilons(a, rdp, d, conversion)
        eps, order = rdp_to_dp(a, rdp, d, conversion)
        assert per_order.min() == eps and a[per_order.argmin()] == order
    # rows of a batch are converted independently; not clipped at 0 (rdp_to_dp is)
    batch = rdp_epsilons(a, np.stack([rdp, 1e-8 * a]), 0.5)
    assert batch.shape == (2, a.size) and batch[1].min() < 0
    with pytest.raises(ValueError, match="one value per order"):
        rdp_epsilons(a, [1.0, 2.0], d)
