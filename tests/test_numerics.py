"""Tests for dpcore._numerics."""

import math

import numpy as np

from dpcore._numerics import log1mexp


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
