"""Tests for dpcore.queries: count, clipped sum, mean and histogram over a column."""

import math

import numpy as np
import pytest

from dpcore import (
    Gaussian,
    Laplace,
    MeanResult,
    QueryResult,
    dp_category_counts,
    dp_count,
    dp_count_matching,
    dp_histogram,
    dp_mean,
    dp_sum,
    mean_epsilon_for_accuracy,
)
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
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\) for the Gaussian mechanism, got None"):
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
    sums = m.sum.mechanism.simulate(m.sum.true_value, rng, trials=50_000)
    counts = m.count.mechanism.simulate(m.count.true_value, rng, trials=50_000)
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
        (lambda: dp_histogram(AGES, 0, 1.0, 0, lower=0, upper=1), r"bins must be an integer in \[1, 100000\], got 0"),
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


# ---------------------------------------------------------------- clipping shown, counts of conditions and categories


def test_histogram_and_sum_record_how_many_values_were_clipped(rng):
    # AGES: 120 lies above 100, nothing below 0; with edges [20, 50]: 19 below, 52 67 88 120 above
    r = dp_histogram(AGES, 5, 1.0, rng, lower=0, upper=100)
    assert (r.clipped_below, r.clipped_above) == (0, 1)
    r2 = dp_histogram(AGES, [20, 35, 50], 1.0, rng)
    assert (r2.clipped_below, r2.clipped_above) == (1, 4)
    # the end bins hold exactly the clipped values plus those inside them
    inside_last = np.count_nonzero((AGES >= 35) & (AGES <= 50))
    assert r2.true_value[-1] == inside_last + r2.clipped_above
    # a value on an edge is not clipped (np.histogram closes the last bin)
    on_edges = dp_histogram([20.0, 50.0], [20, 35, 50], 1.0, rng)
    assert (on_edges.clipped_below, on_edges.clipped_above) == (0, 0)
    s = dp_sum(AGES, 20, 60, 1.0, rng)
    assert (s.clipped_below, s.clipped_above) == (int(np.sum(AGES < 20)), int(np.sum(AGES > 60))) == (1, 3)
    assert dp_count(AGES, 1.0, rng).clipped_below is None  # nothing is clipped by a count


def test_count_matching_is_a_counting_query(rng):
    mask = AGES >= 50
    r = dp_count_matching(mask, 0.5, rng)
    assert r.query == "count_matching" and r.n == AGES.size
    assert r.true_value == 4.0  # 67, 88, 52, 120
    assert r.mechanism == Laplace(scale=2.0, sensitivity=1.0)  # b = 1/ε: sensitivity 1 under add/remove
    g = dp_count_matching(mask, 1.0, rng, mechanism="gaussian", delta=1e-6)
    assert g.mechanism == Gaussian.from_epsilon_delta(1.0, 1e-6, 1.0)
    # adding or removing one row moves the count by at most 1 (the sensitivity the noise uses)
    assert abs(np.count_nonzero(np.append(mask, True)) - np.count_nonzero(mask)) == 1
    assert dp_count_matching(np.zeros(3, dtype=bool), 1.0, rng).true_value == 0.0


def test_count_matching_simulation_follows_the_laplace_law(rng):
    r = dp_count_matching(AGES < 40, 0.25, rng)
    trials = 100_000
    err = r.simulate_errors(trials, rng)
    c = 0.95
    assert abs(np.mean(np.abs(err) <= r.error_bound(c)) - c) <= Z * math.sqrt(c * (1 - c) / trials)


@pytest.mark.parametrize(
    "mask, exc, message",
    [
        ([1, 0, 1], TypeError, "mask must be a boolean array"),
        (np.array([], dtype=bool), ValueError, "mask must contain at least one row, got none"),
    ],
)
def test_count_matching_refuses_bad_masks(mask, exc, message):
    with pytest.raises(exc, match=message):
        dp_count_matching(mask, 1.0, 0)


def test_category_counts_are_a_histogram_of_codes(rng):
    codes = np.array([0, 2, 2, 1, 2, 4, 0])
    r = dp_category_counts(codes, 5, 1.0, rng)
    assert r.query == "category_counts" and r.n == 7
    np.testing.assert_array_equal(r.true_value, [2, 1, 3, 0, 1])  # a category with no row still gets a count
    assert r.mechanism == Laplace(scale=1.0, sensitivity=1.0)  # L1 sensitivity 1: parallel composition
    g = dp_category_counts(codes, 5, 1.0, rng, mechanism="gaussian", delta=1e-6)
    assert g.mechanism.sensitivity == 1.0  # L2 sensitivity 1 under add/remove one record
    assert g.mechanism == Gaussian.from_epsilon_delta(1.0, 1e-6, 1.0)
    # the same answer as a histogram of the codes with one bin per category
    h = dp_histogram(codes.astype(float), np.arange(6) - 0.5, 1.0, rng)
    np.testing.assert_array_equal(h.true_value, r.true_value)
    assert h.mechanism == r.mechanism


def test_category_counts_compare_with_a_local_oracle_on_the_same_codes(rng):
    from dpcore import GRR

    codes = np.random.default_rng(5).integers(0, 6, size=5_000)
    central = dp_category_counts(codes, 6, 1.0, rng)
    local = GRR(1.0, 6)
    trials = 20_000
    sims = central.simulate(trials, rng)
    assert sims.shape == (trials, 6)
    # every category's noise is Lap(1/ε): variance 2/ε²
    err = sims - central.true_value
    assert abs(err.var() / 2.0 - 1) <= Z * math.sqrt(5.0 / err.size)
    # the local oracle on the same counts has a variance orders of magnitude larger
    assert np.all(local.variance(central.true_value.astype(int)) > 100 * central.mechanism.variance)


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (lambda: dp_category_counts([0, 3], 3, 1.0, 0), ValueError, r"codes must hold integers in \[0, 3\), got 3"),
        (lambda: dp_category_counts([0, 1], 0, 1.0, 0), ValueError, r"k must be an integer in \[1, 100000\], got 0"),
        (lambda: dp_category_counts([0.5], 2, 1.0, 0), ValueError, "codes must hold integers"),
        (lambda: dp_category_counts([0], 2, 1.0, 0, mechanism="gaussian"), ValueError, "delta must be in"),
    ],
)
def test_category_counts_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


# ---------------------------------------------------------------- bounds too far apart for a float


@pytest.mark.parametrize(
    "call",
    [
        lambda: dp_sum(AGES, -1e308, 1e308, 1.0, 0),
        lambda: dp_mean(AGES, -1e308, 1e308, 1.0, 0),
        lambda: dp_histogram(AGES, 4, 1.0, 0, lower=-1e308, upper=1e308),
        lambda: clipped_sum_sensitivity(-1e308, 1e308),
    ],
)
def test_bounds_whose_width_overflows_are_refused(call):
    with pytest.raises(ValueError, match=r"upper - lower must be finite, got lower=-1e\+308 and upper=1e\+308"):
        call()


def test_histogram_edges_whose_range_overflows_are_refused():
    # each gap is finite, the range is not
    with pytest.raises(ValueError, match=r"bins\[-1\] - bins\[0\] must be finite"):
        dp_histogram(AGES, [-1e308, 0.0, 1e308], 1.0, 0)


def test_sum_whose_clipped_total_overflows_is_refused():
    # the width 1e308 is finite, but three values clipped to it sum past the largest float
    with pytest.raises(ValueError, match="lower and upper must keep the sum of the clipped values finite"):
        dp_sum([1e308, 1e308, 1e308], 0.0, 1e308, 1e300, 0)


# ---------------------------------------------------------------- ε of a mean from the accuracy wanted

BIG = np.random.default_rng(11).integers(17, 91, size=5_000).astype(float)


@pytest.mark.parametrize(
    "mechanism, delta, split", [("laplace", None, 0.5), ("laplace", None, 0.3), ("gaussian", 1e-6, 0.5)]
)
@pytest.mark.parametrize("accuracy", [0.1, 1.0, 10.0])
def test_mean_epsilon_for_accuracy_round_trip(mechanism, delta, split, accuracy):
    eps = mean_epsilon_for_accuracy(
        accuracy, BIG, 0, 100, 0.9, split=split, mechanism=mechanism, delta=delta, seed=3, trials=4_000
    )
    m = dp_mean(BIG, 0, 100, eps, 0, split=split, mechanism=mechanism, delta=delta)
    assert m.error_bound(0.9, 3, 4_000) == pytest.approx(accuracy, rel=1e-9)


@pytest.mark.parametrize("mechanism, delta", [("laplace", None), ("gaussian", 1e-6)])
def test_mean_error_bound_is_monotone_in_epsilon_with_common_random_numbers(mechanism, delta):
    grid = np.geomspace(1e-3, 10.0, 60)
    bounds = [dp_mean(BIG, 0, 100, e, 0, mechanism=mechanism, delta=delta).error_bound(0.95, 7, 2_000) for e in grid]
    assert np.all(np.diff(bounds) <= 0)
    # negative control: fresh random numbers at each ε make the curve jagged
    fresh = [dp_mean(BIG, 0, 100, e, 0).error_bound(0.95, i, 2_000) for i, e in enumerate(np.linspace(1.0, 1.05, 30))]
    assert np.any(np.diff(fresh) > 0)


def test_mean_epsilon_for_accuracy_is_monotone_and_scales_like_one_over_accuracy():
    targets = [0.05, 0.2, 1.0, 5.0]
    eps = [mean_epsilon_for_accuracy(t, BIG, 0, 100, trials=2_000) for t in targets]
    assert np.all(np.diff(eps) < 0)
    # with Laplace noise and n large the error is ~ (Z_S − m Z_C)/n ∝ 1/ε: ε·accuracy nearly constant
    products = np.array(eps) * np.array(targets)
    assert np.ptp(products) / products.mean() < 0.05


def test_mean_epsilon_for_accuracy_refusals():
    m = np.clip(BIG, 0, 100).mean()
    ceiling = max(100 - m, m)
    with pytest.raises(ValueError, match=rf"accuracy must be in \(0, {ceiling:.6g}\)"):
        mean_epsilon_for_accuracy(ceiling, BIG, 0, 100)
    with pytest.raises(ValueError, match=r"accuracy must be in \(0, inf\), got 0.0"):
        mean_epsilon_for_accuracy(0.0, BIG, 0, 100)
    with pytest.raises(ValueError, match="delta must be in"):
        mean_epsilon_for_accuracy(1.0, BIG, 0, 100, mechanism="gaussian")
    with pytest.raises(ValueError, match=r"seed must be an integer in \[0, inf\]"):
        mean_epsilon_for_accuracy(1.0, BIG, 0, 100, seed=-1)
    # the answer depends on the seed only through the sampling error of a quantile (a few percent at 10^4 trials)
    a, b = (mean_epsilon_for_accuracy(1.0, BIG, 0, 100, seed=s) for s in (0, 1))
    assert a != b and abs(a / b - 1) < 0.1


def test_published_answers_lie_on_the_lattice_with_the_guarantee_and_law_of_the_mechanism():
    from dpcore.lattice import lattice_mechanism

    values = np.arange(1000.0)
    result = dp_sum(values, 0.0, 100.0, 0.5, 3)
    lattice = lattice_mechanism(result.mechanism)
    published = [result.on_lattice(seed).noisy_value for seed in range(400)]
    assert all(v == round(v / lattice.grid) * lattice.grid for v in published)  # exact grid points
    assert lattice.epsilon <= result.epsilon  # the claim is kept
    errors = np.array(published) - result.true_value
    # the lattice noise has the Laplace law up to the grid: mean 0 and std within the sampling error
    assert abs(errors.mean()) < Z * result.mechanism.std / np.sqrt(errors.size)
    assert errors.std(ddof=1) == pytest.approx(result.mechanism.std, rel=Z * np.sqrt(2.5 / errors.size))
    assert result.on_lattice(7).true_value == result.true_value and result.on_lattice(7).mechanism == result.mechanism


def test_a_published_mean_is_the_ratio_of_its_published_sum_and_count():
    result = dp_mean(np.arange(50.0), 0.0, 40.0, 1.0, 0, mechanism="gaussian", delta=1e-6)
    out = result.on_lattice(5)
    assert out.noisy_value == np.clip(out.sum.noisy_value / max(out.count.noisy_value, 1.0), 0.0, 40.0)
    assert out.sum.noisy_value != result.sum.noisy_value and out.true_value == result.true_value


def test_category_counts_of_no_row_are_zeros_not_a_refusal():
    """A refusal when nobody holds a declared category would itself tell that nobody does."""
    assert dp_category_counts([], 3, 1.0, 0).true_value.tolist() == [0.0, 0.0, 0.0]


# --------------------------------------------------------------------------- two conditions, two-way tables


def test_count_matching_all_is_one_counting_query_of_the_rows_meeting_every_condition(rng):
    from dpcore.queries import dp_count_matching_all

    young, low = AGES < 40, AGES < 30
    r = dp_count_matching_all([young, AGES > 20], 0.5, rng)
    assert r.query == "count_matching" and r.true_value == np.sum(young & (AGES > 20)) == 3
    assert r.mechanism == Laplace(scale=2.0, sensitivity=1.0)  # b = 1/ε: sensitivity 1, however many conditions
    # brute force over the neighbours of a small table: removing or adding any one row moves the count by ≤ 1
    masks = np.stack([young, low])
    count = np.sum(np.logical_and.reduce(masks))
    for i in range(AGES.size):
        kept = np.delete(masks, i, axis=1)
        assert abs(np.sum(np.logical_and.reduce(kept)) - count) <= r.mechanism.sensitivity
    with pytest.raises(ValueError, match="one entry per row"):
        dp_count_matching_all([young, young[:3]], 1.0, rng)
    with pytest.raises(ValueError, match="at least one condition"):
        dp_count_matching_all([], 1.0, rng)


def test_two_way_table_is_a_histogram_over_the_product_of_the_domains(rng):
    from dpcore.neighbours import REPLACE_ONE
    from dpcore.queries import dp_two_way_table, two_way_table_sensitivity

    rows, cols = np.array([0, 1, 1, 2, 2, 2]), np.array([0, 0, 1, 1, 1, 0])
    r = dp_two_way_table(rows, cols, (3, 2), 1.0, rng)
    assert r.query == "two_way_table" and r.true_value.shape == (6,)
    assert r.true_value.reshape(3, 2).tolist() == [[1, 0], [1, 1], [1, 2]]  # an empty cell is a count of 0
    assert r.mechanism == Laplace(scale=1.0, sensitivity=1.0)  # each cell the noise of one count

    # the sensitivities, checked by brute force over every neighbour of the table in a 3 × 2 product domain
    def table(rr, cc):
        return np.bincount(rr * 2 + cc, minlength=6)

    base = table(rows, cols)
    removed = [np.abs(table(np.delete(rows, i), np.delete(cols, i)) - base) for i in range(rows.size)]
    added = [np.abs(table(np.append(rows, a), np.append(cols, b)) - base) for a in range(3) for b in range(2)]
    replaced = [
        np.abs(table(np.where(np.arange(6) == i, a, rows), np.where(np.arange(6) == i, b, cols)) - base)
        for i in range(rows.size)
        for a in range(3)
        for b in range(2)
    ]
    assert max(d.sum() for d in removed + added) == two_way_table_sensitivity("l1") == 1.0
    assert max(np.sqrt((d**2).sum()) for d in removed + added) == two_way_table_sensitivity("l2") == 1.0
    assert max(d.sum() for d in replaced) == two_way_table_sensitivity("l1", REPLACE_ONE) == 2.0
    assert max(np.sqrt((d**2).sum()) for d in replaced) == two_way_table_sensitivity("l2", REPLACE_ONE)
    g = dp_two_way_table(rows, cols, (3, 2), 1.0, rng, mechanism="gaussian", delta=1e-6)
    assert g.mechanism.sigma == Gaussian.from_epsilon_delta(1.0, 1e-6, 1.0).sigma  # L2 sensitivity 1


def test_two_way_table_simulation_follows_one_counts_law_in_every_cell(rng):
    from dpcore.queries import dp_two_way_table

    r = dp_two_way_table([0, 1], [1, 1], (2, 3), 0.5, rng)
    trials, c = 20_000, 0.9
    err = r.simulate_errors(trials, rng)
    assert err.shape == (trials, 6)
    inside = np.mean(np.abs(err) <= r.error_bound(c), axis=0)
    assert np.all(np.abs(inside - c) <= Z * math.sqrt(c * (1 - c) / trials))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda q: q([0], [0], (1,), 1.0, 0), "shape must be"),
        (lambda q: q([0, 1], [0], (2, 1), 1.0, 0), "one entry per row each"),
        (lambda q: q([2], [0], (2, 1), 1.0, 0), "row_codes"),
        (lambda q: q([0], [0], (1000, 1000), 1.0, 0), "rows × columns must be"),
    ],
)
def test_two_way_table_bad_input(call, message):
    from dpcore.queries import dp_two_way_table

    with pytest.raises(ValueError, match=message):
        call(dp_two_way_table)
