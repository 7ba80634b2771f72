"""Tests for dpcore.empirical: the one Monte-Carlo error bound."""

import math

import numpy as np
import pytest

from dpcore import Laplace, dp_mean, empirical_error_bound
from tests.tolerances import Z

AGES = np.random.default_rng(0).integers(17, 91, size=2_000).astype(float)


def test_closed_form_small_samples():
    # |errors| sorted: 0, 1, 1, 2, 3; the linear 0.5-quantile is the middle value, the 0.9-quantile 2.6
    errors = [-3.0, 1.0, -1.0, 2.0, 0.0]
    assert empirical_error_bound(errors, 0.5) == 1.0
    assert empirical_error_bound(errors, 0.9) == pytest.approx(2.6, rel=1e-15)
    assert empirical_error_bound(np.array([[2.0, -4.0]]), 0.5) == 3.0  # any shape


def test_bound_covers_its_confidence_for_laplace_noise():
    # Lap(b): P(|noise| <= t) = 1 − e^{−t/b}, so the 95% bound is b ln 20 (Dwork & Roth 2014, Fact 3.7)
    law, n = Laplace(2.0), 200_000
    errors = law.sample(np.random.default_rng(4), size=n)
    t = empirical_error_bound(errors, 0.95)
    # the sample quantile's standard error: sqrt(q(1−q)/n) / f(t), with f the density of |noise|
    se = math.sqrt(0.95 * 0.05 / n) / (2 * law.pdf(law.error_bound(0.95)))
    assert abs(t - law.error_bound(0.95)) <= Z * se


def test_mean_result_uses_it():
    m = dp_mean(AGES, 0, 100, 1.0, 3)
    errors = m.simulate_errors(10_000, 0)  # the bound's default seed and trials
    assert m.error_bound(0.9) == empirical_error_bound(errors, 0.9)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: empirical_error_bound([1.0], 1.0), ValueError, r"confidence must be in \(0, 1\), got 1.0"),
        (lambda: empirical_error_bound([1.0, math.nan]), ValueError, "errors must not contain NaN"),
        (lambda: empirical_error_bound([]), ValueError, "errors must contain at least one number"),
        (lambda: empirical_error_bound(["a"]), TypeError, "errors must be numeric"),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
