import math

import numpy as np
import pytest

from dpcore.accounting._numerics import as_ks, as_orders, log1mexp, solve_bracketed


def test_solve_bracketed_many_equations_at_once():
    c = np.geomspace(1e-6, 1e6, 1000)
    # x^3 = c, increasing in x
    x = solve_bracketed(lambda x: (x**3 - c, 3 * x**2), np.zeros_like(c), np.maximum(c, 1.0), increasing=True)
    np.testing.assert_allclose(x, np.cbrt(c), rtol=1e-12)
    # exp(-x) = c, decreasing, for c < 1
    c = np.geomspace(1e-300, 0.9, 500)
    x = solve_bracketed(
        lambda x: (np.exp(-x) - c, -np.exp(-x)), np.zeros_like(c), np.full_like(c, 800.0), increasing=False
    )
    np.testing.assert_allclose(x, -np.log(c), rtol=1e-12)


def test_solve_bracketed_falls_back_to_bisection_with_a_useless_derivative():
    c = np.array([0.3, 2.0, 7.0])
    x = solve_bracketed(lambda x: (x - c, np.zeros_like(x)), np.zeros(3), np.full(3, 10.0), increasing=True)
    np.testing.assert_allclose(x, c, rtol=1e-12)


def test_log1mexp():
    x = np.array([-1e-20, -1e-8, -0.5, -math.log(2), -5.0, -800.0])
    expected = [
        math.log(1e-20),
        math.log(-math.expm1(-1e-8)),
        math.log(1 - math.exp(-0.5)),
        math.log(0.5),
        math.log1p(-math.exp(-5)),
        0.0,
    ]
    np.testing.assert_allclose(log1mexp(x), expected, rtol=1e-14, atol=1e-300)


def test_as_ks():
    np.testing.assert_array_equal(as_ks([3, 1.0, 2]), [3, 1, 2])
    np.testing.assert_array_equal(as_ks(5), [5])
    with pytest.raises(ValueError, match=r"ks must be an integer in \[1, inf\], got -2"):
        as_ks(np.array([1, -2]), "ks")
    with pytest.raises(ValueError, match=r"k must be an integer, got 1.5"):
        as_ks([1.5])
    with pytest.raises(ValueError, match="at least one"):
        as_ks([])
    with pytest.raises(TypeError, match="k must be an integer, got True"):
        as_ks([True])


def test_as_orders():
    np.testing.assert_array_equal(as_orders([1.5, 2]), [1.5, 2.0])
    with pytest.raises(ValueError, match=r"orders must be in \(1, inf\), got nan"):
        as_orders([2.0, float("nan")])
    with pytest.raises(ValueError, match="at least one"):
        as_orders([])
