"""Tests for dpcore._roots: the scalar log-scale solver and the vectorised Newton–bisection."""

import math

import numpy as np
import pytest

from dpcore._roots import root_on_log, solve_bracketed


def test_root_on_log_increasing_and_decreasing():
    # x^2 = 2 from either side of the root, and a decreasing 1/x = 1e-7 far from the start
    assert root_on_log(lambda x: x * x - 2.0, 1e-6) == pytest.approx(math.sqrt(2.0), rel=1e-13)
    assert root_on_log(lambda x: x * x - 2.0, 1e6) == pytest.approx(math.sqrt(2.0), rel=1e-13)
    assert root_on_log(lambda x: 1.0 / x - 1e-7, 1.0, increasing=False) == pytest.approx(1e7, rel=1e-13)


def test_root_on_log_exact_start_and_unreachable_target():
    assert root_on_log(lambda x: x - 4.0, 4.0) == 4.0
    with pytest.raises(ValueError, match="no sign change here"):
        root_on_log(lambda x: 1.0, 1.0, unreachable="no sign change here")


def test_root_on_log_counts_its_steps():
    # one doubling-wide bracket: from x0 = 1 to a root at 1000 takes ceil(log2(1000)) = 10 steps plus brentq
    calls = []

    def f(x):
        calls.append(x)
        return x - 1000.0

    root_on_log(f, 1.0)
    assert sum(1 for x in calls if x <= 1024.0 * (1 + 1e-12) and math.log2(x).is_integer()) == 11  # 1, 2, ..., 1024


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
