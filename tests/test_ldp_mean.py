import math

import numpy as np
import pytest

from dpcore import LDPMean
from tests.tolerances import Z, variance_tolerance

AGES = np.random.default_rng(0).integers(17, 91, size=2_000).astype(float)


def test_simulate_is_unbiased_with_exact_variance():
    m = LDPMean(1.0, 0.0, 100.0)
    trials = 20_000
    sims = m.simulate(AGES, np.random.default_rng(1), trials=trials)
    var = m.variance(AGES)
    assert abs(sims.mean() - AGES.mean()) < Z * math.sqrt(var / trials)
    assert sims.var(ddof=1) == pytest.approx(var, rel=variance_tolerance(trials))


def test_per_user_path_agrees_with_simulate():
    m = LDPMean(2.0, 0.0, 100.0)
    rng = np.random.default_rng(2)
    t = 2_000
    per_user = np.array([m.estimate(m.perturb(AGES, rng)) for _ in range(t)])
    var = m.variance(AGES)
    assert abs(per_user.mean() - AGES.mean()) < Z * math.sqrt(var / t)
    assert per_user.var(ddof=1) == pytest.approx(var, rel=variance_tolerance(t))


def test_variance_formula_on_two_point_data():
    # values at the bounds are not rounded: reports are Bernoulli(p) or Bernoulli(q)
    m = LDPMean(1.0, -1.0, 1.0)
    x = np.array([1.0] * 30 + [-1.0] * 70)
    p, q = m.rr.p, m.rr.q
    expected = 2.0**2 * (30 * p * (1 - p) + 70 * q * (1 - q)) / (100**2 * (p - q) ** 2)
    assert m.variance(x) == pytest.approx(expected, rel=1e-12)


def test_values_outside_bounds_are_clipped():
    m = LDPMean(1.0, 0.0, 10.0)
    sims = m.simulate(np.array([-5.0, 20.0]), 0, trials=40_000)
    # clipped values are 0 and 10: mean 5
    assert abs(sims.mean() - 5.0) < Z * math.sqrt(m.variance([0.0, 10.0]) / 40_000)


def test_report_probability_ratio_is_within_epsilon():
    # a report is Bernoulli(q + (p-q) t) with t in [0, 1]: every ratio lies in [e^-eps, e^eps]
    m = LDPMean(0.8, 0.0, 1.0)
    t = np.linspace(0, 1, 11)
    pi = m.rr.q + m.rr.p_minus_q * t
    worst = max(np.log(pi.max() / pi.min()), np.log((1 - pi.min()) / (1 - pi.max())))
    assert worst == pytest.approx(0.8, rel=1e-12)


@pytest.mark.parametrize(
    "args,exc,word",
    [
        ((0.0, 0, 1), ValueError, "epsilon"),
        ((1.0, 5, 1), ValueError, "lower"),
        ((1.0, 0, math.inf), ValueError, "upper"),
    ],
)
def test_bad_parameters(args, exc, word):
    with pytest.raises(exc, match=word):
        LDPMean(*args)


def test_nan_values_are_refused_not_propagated():
    with pytest.raises(ValueError, match="NaN"):
        LDPMean(1.0, 0, 1).simulate([0.5, math.nan], 0)


def test_estimate_is_unbiased_for_the_clipped_mean():
    # values outside [20, 60] are clipped first: the estimate targets the clipped mean, not the raw one
    m = LDPMean(1.0, 20.0, 60.0)
    assert m.clipped_mean(AGES) == float(np.clip(AGES, 20.0, 60.0).mean())
    trials = 20_000
    sims = m.simulate(AGES, np.random.default_rng(3), trials=trials)
    se = math.sqrt(m.variance(AGES) / trials)
    assert abs(sims.mean() - m.clipped_mean(AGES)) < Z * se
    assert abs(sims.mean() - AGES.mean()) > 10 * Z * se  # negative control: the raw mean is far off
    with pytest.raises(ValueError, match="values must not contain NaN"):
        m.clipped_mean([1.0, np.nan])
