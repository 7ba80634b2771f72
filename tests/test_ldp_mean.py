import math

import numpy as np
import pytest
from scipy import stats

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


# ---------------------------------------------------------------- ε from the accuracy wanted


@pytest.mark.parametrize("lower, upper", [(0.0, 100.0), (20.0, 60.0), (-1e6, 1e6)])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.999])
def test_epsilon_for_accuracy_inverts_error_bound(lower, upper, confidence):
    floor = LDPMean(60.0, lower, upper).error_bound(AGES, confidence)  # ε -> ∞: only the rounding is left
    for factor in (1.001, 1.5, 10.0, 1e4):
        accuracy = floor * factor
        eps = LDPMean.epsilon_for_accuracy(accuracy, AGES, lower, upper, confidence)
        assert LDPMean(eps, lower, upper).error_bound(AGES, confidence) == pytest.approx(accuracy, rel=1e-9)


def test_epsilon_for_accuracy_is_monotone_and_the_variance_splits_as_stated():
    m = LDPMean(0.8, 0.0, 100.0)
    t = np.clip(AGES, 0, 100) / 100
    n, rounding = t.size, np.sum(t * (1 - t))
    # Var = (width/n)² (R + n / (4 sinh²(ε/2))), R = Σ t(1 − t)
    assert m.variance(AGES) == pytest.approx((100 / n) ** 2 * (rounding + n / (4 * math.sinh(0.4) ** 2)), rel=1e-12)
    targets = np.geomspace(m.error_bound(AGES) / 50, 100.0, 30)
    targets = targets[targets > LDPMean(60.0, 0, 100).error_bound(AGES)]
    eps = [LDPMean.epsilon_for_accuracy(a, AGES, 0.0, 100.0) for a in targets]
    assert np.all(np.diff(eps) < 0)


def test_epsilon_for_accuracy_names_the_rounding_floor():
    # z (width/n) sqrt(Σ t(1 − t)): the error the one-bit rounding leaves at any ε
    t = np.clip(AGES, 0, 100) / 100
    floor = 1.959963984540054 * 100 / t.size * math.sqrt(np.sum(t * (1 - t)))
    with pytest.raises(ValueError, match=rf"accuracy must be in \({floor:.6g}, inf\) for these values and bounds"):
        LDPMean.epsilon_for_accuracy(floor, AGES, 0.0, 100.0)
    # values on the bounds are not rounded: no floor, any accuracy is reachable
    assert LDPMean.epsilon_for_accuracy(1e-3, [0.0, 100.0] * 50, 0.0, 100.0) > 10
    with pytest.raises(ValueError, match=r"accuracy must be in \(0, inf\), got -1.0"):
        LDPMean.epsilon_for_accuracy(-1.0, AGES, 0, 100)
    with pytest.raises(ValueError, match="lower must be below upper"):
        LDPMean.epsilon_for_accuracy(1.0, AGES, 100, 0)


# ---------------------------------------------------------------- bounds too far apart for a float


def test_bounds_whose_width_overflows_are_refused():
    with pytest.raises(ValueError, match=r"upper - lower must be finite, got lower=-1e\+308 and upper=1e\+308"):
        LDPMean(1.0, -1e308, 1e308)


def test_a_finite_but_huge_width_does_not_overflow_its_error():
    # 100 − (−1e308) is finite, its square is not: the variance is inf, the std and the error bound are not
    m = LDPMean(1.0, -1e308, 100.0)
    assert math.isinf(m.variance([1.0, 2.0]))
    assert math.isfinite(m.std([1.0, 2.0])) and math.isfinite(m.error_bound([1.0, 2.0]))
    assert m.std([1.0, 2.0]) == pytest.approx(1e308 * LDPMean(1.0, -1.0, 1e-306).std([1e-308, 2e-308]), rel=1e-9)


# ---------------------------------------------------------------- bounded work: exact below the budget, normal above


def old_simulate(m, values, rng, trials):
    """The sampler as it was before the work was bounded: one (trials, distinct values) binomial draw."""
    t = (np.clip(np.asarray(values, dtype=float), m.lower, m.upper) - m.lower) / m.width
    levels, counts = np.unique(t, return_counts=True)
    rounded_up = rng.binomial(counts, levels, size=(trials, levels.size)).sum(axis=1)
    ones = rng.binomial(rounded_up, m.rr.p) + rng.binomial(t.size - rounded_up, m.rr.q)
    return m._estimate_from_sum(ones, t.size)


@pytest.mark.parametrize(
    "values, trials",
    [
        (AGES, 1_000),
        (np.random.default_rng(4).uniform(0, 100, size=600), 10_000),  # 6·10⁶ draws: two blocks of 2²²
    ],
)
def test_exact_path_draws_what_it_drew_before(values, trials):
    m = LDPMean(1.3, 0.0, 100.0)
    assert m.simulation_error(values, trials) == 0.0
    np.testing.assert_array_equal(
        m.simulate(values, 8, trials), old_simulate(m, values, np.random.default_rng(8), trials)
    )


def test_the_budget_decides_the_path():
    from dpcore.ldp_mean import SIMULATION_BUDGET

    values = np.arange(2_000.0)  # 2,000 distinct values
    m = LDPMean(1.0, 0.0, 2_000.0)
    assert SIMULATION_BUDGET == 2 * 10**7
    assert m.simulation_error(values, SIMULATION_BUDGET // 2_000) == 0.0
    assert 0.0 < m.simulation_error(values, SIMULATION_BUDGET // 2_000 + 1) < 0.02


def poisson_binomial_cdf(probs):
    """Exact distribution function of a sum of independent Bernoulli(probs) at 0..n (O(n²) recursion)."""
    pmf = np.zeros(probs.size + 1)
    pmf[0] = 1.0
    for i, p in enumerate(probs):
        pmf[1 : i + 2] = pmf[1 : i + 2] * (1 - p) + pmf[: i + 1] * p
        pmf[0] *= 1 - p
    return np.cumsum(pmf)


MEDIUM = np.random.default_rng(6).uniform(0, 100, size=3_000)  # 3,000 distinct values
DRAWS = 1_000_000  # 3·10⁹ > budget: the normal path
# DKW (Massart 1990): P(sup |F_m − F| > t) <= 2 exp(−2 m t²); t at the 5-sigma two-sided level 5.7e-7
DKW = math.sqrt(math.log(2 / 5.733e-7) / (2 * DRAWS))


def counts_of(m, estimates, n):
    """Invert the affine estimator: the number of "upper" reports behind each estimate."""
    ones = ((estimates - m.lower) / m.width * m.rr.p_minus_q + m.rr.q) * n
    assert np.allclose(ones, np.round(ones), atol=1e-6)
    return np.round(ones).astype(np.int64)


def ecdf(sample, n):
    return np.searchsorted(np.sort(sample), np.arange(n + 1), side="right") / sample.size


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_normal_path_is_within_its_stated_kolmogorov_distance(epsilon):
    m = LDPMean(epsilon, 0.0, 100.0)
    n = MEDIUM.size
    pi = m.rr.q + m.rr.p_minus_q * MEDIUM / 100
    exact = poisson_binomial_cdf(pi)
    bound = m.simulation_error(MEDIUM, DRAWS)
    assert 0 < bound < 0.05
    # the law sampled, round(N(μ, σ²)) clipped to [0, n], against the exact law: within the bound, computed exactly
    mu, sigma = pi.sum(), math.sqrt(np.sum(pi * (1 - pi)))
    stated = np.append(stats.norm.cdf((np.arange(n) + 0.5 - mu) / sigma), 1.0)
    distance = np.max(np.abs(stated - exact))
    assert distance <= bound
    # the sampler draws that law (DKW), and so lands within bound + sampling error of the exact one
    sample = counts_of(m, m.simulate(MEDIUM, 12, DRAWS), n)
    assert np.max(np.abs(ecdf(sample, n) - stated)) <= DKW
    assert np.max(np.abs(ecdf(sample, n) - exact)) <= bound + DKW


def test_the_kolmogorov_check_catches_a_wrong_normal():
    # negative controls: the same statistic sees a missing half-step of rounding, or the binomial variance
    # n π̄(1 − π̄) used in place of Σ π_i(1 − π_i), each well past the sampling allowance
    m = LDPMean(1.0, 0.0, 100.0)
    n = MEDIUM.size
    pi = m.rr.q + m.rr.p_minus_q * MEDIUM / 100
    mu, sigma = pi.sum(), math.sqrt(np.sum(pi * (1 - pi)))
    stated = np.append(stats.norm.cdf((np.arange(n) + 0.5 - mu) / sigma), 1.0)
    z = np.random.default_rng(13).standard_normal(DRAWS)
    no_half = np.clip(np.floor(mu + sigma * z), 0, n)
    binomial_sigma = math.sqrt(n * pi.mean() * (1 - pi.mean()))
    wrong_variance = np.clip(np.floor(mu + binomial_sigma * z + 0.5), 0, n)
    for wrong in (no_half, wrong_variance):
        assert np.max(np.abs(ecdf(wrong, n) - stated)) > 2 * DKW


def test_normal_path_mean_and_variance_match_the_exact_law():
    values = np.random.default_rng(9).uniform(-10, 110, size=10_000)  # some clipped, 10⁴ distinct
    m = LDPMean(1.5, 0.0, 100.0)
    trials = 50_000  # 5·10⁸ > budget
    assert m.simulation_error(values, trials) > 0
    sims = m.simulate(values, 10, trials)
    var = m.variance(values)
    assert abs(sims.mean() - m.clipped_mean(values)) < Z * math.sqrt(var / trials)
    # rounding adds ~1/12 to the count's variance (Sheppard): a relative 1/(12 σ²) ~ 4e-5, far inside the tolerance
    assert sims.var(ddof=1) == pytest.approx(var, rel=variance_tolerance(trials))


def test_a_million_distinct_values_at_ten_thousand_trials_is_cheap_in_memory():
    import tracemalloc

    values = np.random.default_rng(0).uniform(0, 100, size=1_000_000)
    m = LDPMean(1.0, 0.0, 100.0)
    tracemalloc.start()
    sims = m.simulate(values, 0, 10_000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert sims.shape == (10_000,)
    assert peak < 256 * 2**20  # the exact sampler would need 10¹⁰ int64 = 75 GiB
    assert 0 < m.simulation_error(values, 10_000) < 0.001


@pytest.mark.parametrize("trials", [10, 100_000])  # the exact path and the normal path
def test_sorted_values_take_the_one_pass_levels_and_give_the_same_draws(trials):
    # a caller may pass sorted values to skip the sort: the levels, counts and draws are those of the shuffled values
    from dpcore.ldp_mean import _levels

    values = np.random.default_rng(3).integers(0, 50, 5_000) / 2.0
    mech = LDPMean(1.0, 0.0, 25.0)
    shuffled = mech.simulate(values, np.random.default_rng(9), trials=trials)
    ordered = mech.simulate(np.sort(values), np.random.default_rng(9), trials=trials)
    np.testing.assert_array_equal(shuffled, ordered)
    for t in (np.sort(values), values, np.array([0.5]), np.array([-0.0, 0.0, 1.0])):
        got, want = _levels(t), np.unique(t, return_counts=True)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
