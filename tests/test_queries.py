"""Tests for dpcore.queries: count, clipped sum, mean and histogram over a column."""

import math

import numpy as np
import pytest

from dpcore import Gaussian, Laplace, MeanResult, QueryResult, dp_count, dp_histogram, dp_mean, dp_sum
from dpcore.queries import clipped_sum_sensitivity
from tests.tolerances import Z

AGES = np.array([23.0, 35.0, 41.0, 19.0, 67.0, 88.0, 52.0, 30.0, 45.0, 120.0])


def test_count_true_noisy_and_law(rng):
    r = dp_count(AGES, 0.5, rng)
    assert isinstance(r, QueryResult) and r.query == "count"
    assert r.true_value == 10.0 and r.n == 10 and r.dropped_nan == 0
    assert r.mechanism == Laplace(scale=2.0, sensitivity=1.0)  # b = 1/ε, sensitivity 1 under add/remove
    assert r.epsilon == 0.5 and r.delta is None
    assert r.error == r.noisy_value - r.true_value
    assert r.error_bound(0.95) == r.mechanism.error_bound(0.95)


def test_count_gaussian_needs_delta(rng):
    r = dp_count(AGES, 1.0, rng, mechanism="gaussian", delta=1e-5)
    assert isinstance(r.mechanism, Gaussian)
    assert r.mechanism.sigma == Gaussian.from_epsilon_delta(1.0, 1e-5, 1.0).sigma
    assert (r.epsilon, r.delta) == (1.0, 1e-5)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\) for the gaussian mechanism, got None"):
        dp_count(AGES, 1.0, rng, mechanism="gaussian")
    with pytest.raises(ValueError, match="mechanism must be one of"):
        dp_count(AGES, 1.0, rng, mechanism="cauchy")


def test_sum_clips_and_uses_bound_sensitivity(rng):
    r = dp_sum(AGES, 0, 100, 1.0, rng)
    assert r.true_value == np.clip(AGES, 0, 100).sum()
    assert r.unclipped_value == AGES.sum()
    assert r.mechanism.sensitivity == 100.0 and r.mechanism.scale == 100.0  # b = max(|l|,|u|)/ε
    assert (r.lower, r.upper) == (0.0, 100.0)
    # sensitivity under add/remove one record: max(|lower|, |upper|)
    assert clipped_sum_sensitivity(-5.0, 3.0) == 5.0
    assert dp_sum(AGES, -50, 10, 2.0, rng).mechanism.sensitivity == 50.0


def test_sum_sensitivity_holds_for_neighbours():
    # adding one record moves the clipped sum by at most max(|lower|, |upper|)
    rng = np.random.default_rng(3)
    lower, upper = -7.0, 4.0
    for _ in range(100):
        x = rng.normal(0, 10, size=20)
        extra = rng.normal(0, 30)
        moved = abs(np.clip(np.append(x, extra), lower, upper).sum() - np.clip(x, lower, upper).sum())
        assert moved <= clipped_sum_sensitivity(lower, upper) + 1e-12  # up to float rounding of the sums


def test_simulate_is_vectorised_and_matches_the_law(rng):
    r = dp_sum(AGES, 0, 100, 0.5, rng)
    trials = 100_000
    sims = r.simulate(trials, rng)
    assert sims.shape == (trials,)
    err = r.simulate_errors(trials, rng)
    assert abs(err.mean()) <= Z * math.sqrt(r.mechanism.variance / trials)
    c = 0.9
    assert abs(np.mean(np.abs(err) <= r.error_bound(c)) - c) <= Z * math.sqrt(c * (1 - c) / trials)


def test_mean_budget_split(rng):
    m = dp_mean(AGES, 0, 100, 1.0, rng, split=0.25)
    assert isinstance(m, MeanResult) and m.query == "mean"
    assert m.sum.epsilon == pytest.approx(0.25, rel=1e-15)
    assert m.count.epsilon == pytest.approx(0.75, rel=1e-15)
    assert m.epsilon == pytest.approx(1.0, rel=1e-15)
    assert m.true_value == pytest.approx(np.clip(AGES, 0, 100).mean(), rel=1e-15)
    assert m.unclipped_value == pytest.approx(AGES.mean(), rel=1e-15)
    assert m.mechanisms == (m.sum.mechanism, m.count.mechanism)
    g = dp_mean(AGES, 0, 100, 1.0, rng, mechanism="gaussian", delta=1e-6)
    assert g.sum.delta == pytest.approx(0.5e-6) and g.count.delta == pytest.approx(0.5e-6)
    assert g.delta == pytest.approx(1e-6, rel=1e-12) and g.epsilon == pytest.approx(1.0, rel=1e-15)


def test_mean_is_postprocessed_ratio(rng):
    m = dp_mean(AGES, 0, 100, 1.0, rng)
    expected = np.clip(m.sum.noisy_value / max(m.count.noisy_value, 1.0), 0, 100)
    assert m.noisy_value == expected


def test_mean_simulation_matches_its_definition():
    big = np.random.default_rng(1).uniform(0, 100, size=5000)
    m = dp_mean(big, 0, 100, 0.2, 9)
    sims = m.simulate(50_000, 4)
    rng = np.random.default_rng(4)
    sums = m.sum.mechanism.release(m.sum.true_value, rng, trials=50_000)
    counts = m.count.mechanism.release(m.count.true_value, rng, trials=50_000)
    np.testing.assert_array_equal(sims, np.clip(sums / np.maximum(counts, 1), 0, 100))
    assert np.all((sims >= 0) & (sims <= 100))
    # delta method: Var(S/C) ≈ (Var S + m² Var C) / n² for a large count
    n, mu = 5000, m.true_value
    approx_var = (m.sum.mechanism.variance + mu**2 * m.count.mechanism.variance) / n**2
    err = m.simulate_errors(50_000, 5)
    assert abs(err.var() / approx_var - 1) < 0.05  # first-order approximation, not a sampling tolerance
    assert m.approx_std == pytest.approx(math.sqrt(approx_var), rel=1e-12)
    t = m.error_bound(0.9)
    assert t == m.error_bound(0.9)  # seeded by default
    assert abs(np.mean(np.abs(err) <= t) - 0.9) <= Z * math.sqrt(0.9 * 0.1 / 50_000) + Z * math.sqrt(0.9 * 0.1 / 10_000)


def test_mean_with_tiny_count_stays_in_bounds(rng):
    m = dp_mean([5.0], 0, 10, 0.01, rng)
    sims = m.simulate(10_000, rng)
    assert np.all(np.isfinite(sims)) and np.all((sims >= 0) & (sims <= 10))


def test_histogram_counts_and_noise(rng):
    r = dp_histogram(AGES, 5, 1.0, rng, lower=0, upper=100)
    np.testing.assert_array_equal(r.bin_edges, [0, 20, 40, 60, 80, 100])
    # 120 is clipped into the last bin: every record counted once
    np.testing.assert_array_equal(r.true_value, [1, 3, 3, 1, 2])
    assert r.true_value.sum() == AGES.size
    assert r.mechanism == Laplace(scale=1.0, sensitivity=1.0)  # parallel composition: full ε per bin
    assert r.noisy_value.shape == (5,)
    r2 = dp_histogram(AGES, [0, 30, 50, 200], 1.0, rng)
    np.testing.assert_array_equal(r2.true_value, [2, 4, 4])


def test_histogram_simulation_variance_per_bin(rng):
    values = np.random.default_rng(0).integers(0, 100, size=1000).astype(float)
    r = dp_histogram(values, 100, 0.5, rng, lower=0, upper=100)
    trials = 10_000
    sims = r.simulate(trials, rng)
    assert sims.shape == (trials, 100)
    err = sims - r.true_value
    # pooled over 100 bins × 10^4 trials; Laplace: Var(s²)/σ⁴ ≈ 5/N
    n = err.size
    assert abs(err.var() / r.mechanism.variance - 1) <= Z * math.sqrt(5.0 / n)


def test_nan_refused_or_dropped_with_count(rng):
    with_nan = np.append(AGES, [np.nan, np.nan])
    with pytest.raises(ValueError, match=r"values must not contain NaN, got 2 NaN value\(s\)"):
        dp_count(with_nan, 1.0, rng)
    r = dp_sum(with_nan, 0, 100, 1.0, rng, nan="drop")
    assert r.dropped_nan == 2 and r.n == 10 and np.isfinite(r.noisy_value)
    m = dp_mean(with_nan, 0, 100, 1.0, rng, nan="drop")
    assert m.dropped_nan == 2 and m.true_value == pytest.approx(np.clip(AGES, 0, 100).mean())
    h = dp_histogram(with_nan, 4, 1.0, rng, lower=0, upper=100, nan="drop")
    assert h.dropped_nan == 2 and h.true_value.sum() == 10


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: dp_count([], 1.0, 0), "values must contain at least one number"),
        (lambda: dp_count(AGES, -1.0, 0), r"epsilon must be in \(0, inf\), got -1.0"),
        (lambda: dp_count(AGES, math.nan, 0), "epsilon must be"),
        (lambda: dp_sum(AGES, 10, 10, 1.0, 0), "lower must be below upper, got lower=10.0 and upper=10.0"),
        (lambda: dp_sum(AGES, 0, math.inf, 1.0, 0), "upper must be finite"),
        (lambda: dp_mean(AGES, 0, 100, 1.0, 0, split=1.0), r"split must be in \(0, 1\), got 1.0"),
        (lambda: dp_mean(AGES, 0, 100, 1.0, 0, mechanism="gaussian", delta=0.0), "delta must be"),
        (lambda: dp_histogram(AGES, 0, 1.0, 0, lower=0, upper=1), r"bins must be an integer in \[1, inf\], got 0"),
        (lambda: dp_histogram(AGES, 5, 1.0, 0), "lower and upper must be given"),
        (lambda: dp_histogram(AGES, [0, 5, 5], 1.0, 0), "strictly increasing"),
        (lambda: dp_histogram(AGES, [0, 5], 1.0, 0, lower=0), "lower and upper must be None"),
        (lambda: dp_sum(AGES, 0, 100, 1.0, 0, nan="ignore"), "nan must be one of"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_non_numeric_column_is_a_type_error():
    with pytest.raises(TypeError, match="values must be numeric"):
        dp_count(["a", "b"], 1.0, 0)


def test_pandas_column_accepted(rng):
    pd = pytest.importorskip("pandas")
    col = pd.Series([1.0, 2.0, None, 4.0])
    r = dp_sum(col, 0, 5, 1.0, rng, nan="drop")
    assert r.true_value == 7.0 and r.dropped_nan == 1


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_mean_approx_error_pdf_is_a_density_with_the_delta_method_variance(mechanism):
    m = dp_mean(AGES, 0, 100, 1.0, 3, mechanism=mechanism, delta=1e-6)
    x = np.linspace(-40 * m.approx_std, 40 * m.approx_std, 400_001)
    f = m.approx_error_pdf(x)
    assert np.all(f >= 0)
    assert np.trapezoid(f, x) == pytest.approx(1.0, abs=1e-6)
    # the variance of (Z_S − m Z_C)/n is the delta-method variance approx_std²
    assert np.trapezoid(x**2 * f, x) == pytest.approx(m.approx_std**2, rel=1e-5)


def test_mean_approx_error_pdf_laplace_closed_form_and_equal_scales():
    m = dp_mean(AGES, 0, 100, 1.0, 3)
    n = m.count.true_value
    a, c = m.sum.mechanism.scale / n, m.true_value * m.count.mechanism.scale / n
    # at 0: (a − c) / (2(a² − c²)) = 1 / (2(a + c))
    assert m.approx_error_pdf(0.0) == pytest.approx(1 / (2 * (a + c)), rel=1e-12)
    # the sum of two equal Lap(a) has density (a + |x|) e^{−|x|/a} / (4a²); a split that makes a = c hits it
    equal = dp_mean(np.full(10, 4.0), 0, 4, 1.0, 3, split=0.5)  # a = (4/0.5)/10 = c = 4 (1/0.5)/10
    assert equal.approx_error_pdf(0.8) == pytest.approx((0.8 + 0.8) * math.exp(-1) / (4 * 0.8**2), rel=1e-9)


def test_mean_approx_error_pdf_matches_simulated_errors():
    big = np.random.default_rng(2).uniform(0, 100, size=20_000)
    m = dp_mean(big, 0, 100, 0.5, 1)
    err = m.simulate_errors(200_000, 2)
    edges = np.linspace(-4 * m.approx_std, 4 * m.approx_std, 41)
    observed = np.histogram(err, bins=edges)[0] / err.size
    mids = (edges[:-1] + edges[1:]) / 2
    expected = m.approx_error_pdf(mids) * np.diff(edges)  # midpoint rule, fine for 40 bins over ±4 std
    tolerance = Z * np.sqrt(expected / err.size) + 0.02 * expected  # sampling error + first-order/midpoint error
    assert np.all(np.abs(observed - expected) <= tolerance)


def test_split_mean_budget_and_dp_mean_spend_the_same():
    from dpcore import MeanBudget, split_mean_budget

    # split · ε and (1 − split) · ε, likewise δ (Dwork & Roth 2014, Thm 3.16)
    assert split_mean_budget(2.0, 0.25) == MeanBudget(0.5, 1.5, None, None)
    b = split_mean_budget(2.0, 0.25, 1e-6)
    assert (b.sum_delta, b.count_delta) == (0.25 * 1e-6, 0.75 * 1e-6)
    m = dp_mean(AGES, 0, 100, 2.0, 0, split=0.25, mechanism="gaussian", delta=1e-6)
    assert (m.sum.epsilon, m.count.epsilon, m.sum.delta, m.count.delta) == (
        b.sum_epsilon,
        b.count_epsilon,
        b.sum_delta,
        b.count_delta,
    )
    lap = dp_mean(AGES, 0, 100, 2.0, 0, split=0.25, delta=1e-6)  # Laplace: δ given but unused
    assert lap.sum.epsilon == b.sum_epsilon and lap.delta is None
    with pytest.raises(ValueError, match=r"split must be in \(0, 1\), got 0.0"):
        split_mean_budget(1.0, 0.0)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 2.0"):
        split_mean_budget(1.0, 0.5, 2.0)
