"""dpcore.bound_tradeoff: every term against the exact expectation over every subset of small tables."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpcore.bound_tradeoff import count_tradeoff, mean_tradeoff, private_bound, sum_tradeoff
from dpcore.families import family, keys
from dpcore.limits import MAX_CURVE_POINTS
from dpcore.quantiles import ExponentialQuantile
from dpcore.queries import MeanResult, QueryResult
from dpcore.randomness import SecureGenerator


def _exact_sum_moments(persons, values, lower, upper, m):
    """Mean and variance of the bounded clipped sum, by enumerating every equally likely kept subset of each person."""
    persons, values = np.asarray(persons), np.clip(np.asarray(values, dtype=float), lower, upper)
    mean = variance = 0.0
    for p in np.unique(persons):
        x = values[persons == p]
        k = min(len(x), m)
        sums = [sum(c) for c in itertools.combinations(x, k)]  # every subset of size k, equally likely
        mean += float(np.mean(sums))
        variance += float(np.var(sums))  # persons independent: variances add
    return mean, variance


def _table(rng, persons, most_rows):
    rows = rng.integers(1, most_rows + 1, size=persons)
    ids = np.repeat(np.arange(persons), rows)
    return rng.permutation(ids), rng.normal(5.0, 4.0, size=ids.size)


@pytest.mark.parametrize("seed", range(6))
def test_the_sum_terms_equal_the_exact_expectation_over_every_subset(seed):
    rng = np.random.default_rng(seed)
    ids, values = _table(rng, persons=int(rng.integers(2, 6)), most_rows=6)
    lower, upper = 0.0, 9.0
    t = sum_tradeoff(ids, values, lower, upper, 0.7)
    for i, m in enumerate(t.bounds):
        mean, variance = _exact_sum_moments(ids, values, lower, upper, int(m))
        assert t.bias[i] == pytest.approx(mean - values.sum(), abs=1e-9)
        assert t.sampling_std[i] ** 2 == pytest.approx(variance, abs=1e-9)
        noise = family("laplace").noise(0.7, m * max(abs(lower), abs(upper))).std
        assert t.noise_std[i] == pytest.approx(noise)
        assert t.rmse[i] == pytest.approx(math.sqrt((mean - values.sum()) ** 2 + variance + noise**2))


@pytest.mark.parametrize("seed", range(6))
def test_the_count_bias_is_the_rows_dropped_and_the_best_bound_is_the_brute_force_minimum(seed):
    rng = np.random.default_rng(100 + seed)
    ids, _ = _table(rng, persons=int(rng.integers(3, 40)), most_rows=60)
    epsilon = float(rng.uniform(0.1, 3.0))
    t = count_tradeoff(ids, epsilon)
    rows = np.bincount(ids)
    errors = []
    for m in range(1, rows.max() + 1):
        kept = np.minimum(rows, m).sum()
        noise = family("laplace").noise(epsilon, float(m)).std
        errors.append(math.hypot(kept - ids.size, noise))
        assert t.bias[m - 1] == kept - ids.size
    assert t.bounds.tolist() == list(range(1, rows.max() + 1))
    assert t.best_bound == 1 + int(np.argmin(errors))
    assert t.sampling_std.tolist() == [0.0] * rows.max()


def test_the_gaussian_noise_uses_its_delta():
    ids = ["a"] * 4 + ["b"]
    t = count_tradeoff(ids, 1.0, bounds=[2], mechanism="gaussian", delta=1e-6)
    assert t.noise_std[0] == pytest.approx(family("gaussian").noise(1.0, 2.0, 1e-6).std)


def test_a_heavy_tail_puts_the_minimum_inside_the_grid():
    rng = np.random.default_rng(7)
    rows = np.minimum(rng.zipf(1.8, size=2_000), 500)
    ids = np.repeat(np.arange(rows.size), rows)
    t = count_tradeoff(ids, 1.0)
    assert 1 < t.best_bound < rows.max()  # neither extreme: bias falls and noise grows


def _one_heavy_person(seed):
    """A heavy tail (Zipf rows per person, capped at 300) and one person of 20,000 rows: more bounds than a curve
    holds (MAX_CURVE_POINTS), so the grid is geometric and the exact minimum must come from the segment search."""
    rng = np.random.default_rng(seed)
    rows = np.concatenate([np.minimum(rng.zipf(1.6, size=1_500), 300), [20_000]])
    ids = rng.permutation(np.repeat(np.arange(rows.size), rows))
    return ids, rows, rng


@pytest.mark.parametrize("epsilon", [1.0, 4.0])  # the minimum at m = 6,667 (off the geometric grid), 17,778
def test_the_marked_count_minimum_is_the_brute_force_one_over_every_bound_past_the_curve_cap(epsilon):
    ids, rows, _ = _one_heavy_person(11)
    assert rows.max() > MAX_CURVE_POINTS
    t = count_tradeoff(ids, epsilon)
    assert t.bounds.size <= MAX_CURVE_POINTS and t.bounds[0] == 1 and t.bounds[-1] == rows.max()
    distinct, persons = np.unique(rows, return_counts=True)
    noise = family("laplace").noise(epsilon, 1.0).std  # std √2/ε per row of a person
    errors = [math.hypot(float(np.clip(distinct - m, 0, None) @ persons), m * noise) for m in range(1, rows.max() + 1)]
    assert t.best_bound == 1 + int(np.argmin(errors))
    assert t.rmse[t.best_index] == pytest.approx(min(errors), rel=1e-12)
    if epsilon > 1:
        assert t.best_bound > MAX_CURVE_POINTS  # where the curve used to stop


@pytest.mark.parametrize("epsilon", [1.0, 8.0])  # the minimum at m = 853, 15,658 (off the geometric grid)
def test_the_marked_sum_minimum_is_the_brute_force_one_over_every_bound_past_the_curve_cap(epsilon):
    ids, rows, rng = _one_heavy_person(12)
    values = rng.exponential(3.0, size=ids.size)
    lower, upper = 0.0, 10.0
    t = sum_tradeoff(ids, values, lower, upper, epsilon)
    clipped = np.clip(values, lower, upper)
    r = np.bincount(ids).astype(float)
    totals = np.bincount(ids, weights=clipped)
    sigma2 = np.maximum(np.bincount(ids, weights=clipped**2) / r - (totals / r) ** 2, 0.0)
    noise = family("laplace").noise(epsilon, upper).std
    errors = []
    for m in range(1, int(r.max()) + 1):  # Cochran (1977) Thm 2.2 per person, at every whole bound
        k = np.minimum(r, m)
        bias = float((k / r) @ totals) - values.sum()
        sampling = float(np.where(r > 1, k * (r - k) / np.maximum(r - 1, 1), 0.0) @ sigma2)
        errors.append(math.sqrt(bias**2 + sampling + (m * noise) ** 2))
    assert t.best_bound == 1 + int(np.argmin(errors))
    assert t.rmse[t.best_index] == pytest.approx(min(errors), rel=1e-9)
    if epsilon > 1:
        assert t.best_bound > MAX_CURVE_POINTS  # where the curve used to stop


@pytest.mark.parametrize("key", keys("central"))
def test_the_noise_of_m_rows_is_m_times_the_noise_of_one_for_every_central_family(key):
    # the segment search rests on it: the noise std is linear in the bound
    delta = 1e-6 if family(key).takes_delta else None
    ids = ["a"] * 9 + ["b"]
    t = count_tradeoff(ids, 0.8, bounds=[1, 2, 7, 9], mechanism=key, delta=delta)
    for m, std in zip(t.bounds, t.noise_std, strict=True):
        assert std == pytest.approx(family(key).noise(0.8, float(m), delta).std, rel=1e-9)


def _mean_noise(epsilon, split, upper, m, kept_rows, target):
    """The delta-method std of a noisy sum (split·ε, sensitivity m·upper) over a noisy count ((1 − split)·ε, m), by
    dpcore's MeanResult of those two noises at the kept rows and the expected bounded mean."""
    sum_noise = family("laplace").noise(split * epsilon, m * upper)
    count_noise = family("laplace").noise((1 - split) * epsilon, float(m))
    total = target * kept_rows
    result = MeanResult(
        true_value=target, noisy_value=target, sum=QueryResult("sum", total, total, sum_noise, kept_rows),
        count=QueryResult("count", kept_rows, kept_rows, count_noise, kept_rows), lower=0.0, upper=upper,
        split=split, n=kept_rows, dropped_nan=0, unclipped_value=target,
    )  # fmt: skip
    return result.approx_std


@pytest.mark.parametrize("seed", range(4))
def test_the_mean_terms_equal_the_exact_expectation_over_every_subset(seed):
    rng = np.random.default_rng(20 + seed)
    ids, values = _table(rng, persons=int(rng.integers(2, 6)), most_rows=6)
    split = float(rng.uniform(0.2, 0.8))
    t = mean_tradeoff(ids, values, 0.0, 9.0, 0.7, split=split)
    for i, m in enumerate(t.bounds):
        mean, variance = _exact_sum_moments(ids, values, 0.0, 9.0, int(m))
        kept = float(np.minimum(np.bincount(ids), m).sum())  # the rows kept: the same for every sampled subset
        assert t.bias[i] == pytest.approx(mean / kept - values.mean(), abs=1e-9)
        assert t.sampling_std[i] ** 2 == pytest.approx(variance / kept**2, abs=1e-9)
        assert t.noise_std[i] == pytest.approx(_mean_noise(0.7, split, 9.0, int(m), kept, mean / kept), rel=1e-9)


@pytest.mark.parametrize("epsilon", [5.0, 10.0])  # the minimum at m = 4,525 (on the grid), 11,139 (off it)
def test_the_marked_mean_minimum_is_the_brute_force_one_over_every_bound_past_the_curve_cap(epsilon):
    # every bound 1..20,000 by the per-person formulas: Cochran for S, the delta method with Laplace std √2·scale
    ids, rows, rng = _one_heavy_person(13)
    values = rng.exponential(3.0, size=ids.size)
    values[ids == rows.size - 1] += 4.0  # the heavy person's values run higher: dropping their rows biases the mean
    t = mean_tradeoff(ids, values, 0.0, 10.0, epsilon, split=0.6)
    clipped = np.clip(values, 0.0, 10.0)
    r = np.bincount(ids).astype(float)
    totals = np.bincount(ids, weights=clipped)
    sigma2 = np.maximum(np.bincount(ids, weights=clipped**2) / r - (totals / r) ** 2, 0.0)
    errors = []
    for m in range(1, int(r.max()) + 1):
        k = np.minimum(r, m)
        kept = float(k.sum())
        target = float((k / r) @ totals) / kept
        sampling = float(np.where(r > 1, k * (r - k) / np.maximum(r - 1, 1), 0.0) @ sigma2) / kept**2
        sum_std, count_std = math.sqrt(2) * m * 10.0 / (0.6 * epsilon), math.sqrt(2) * m / (0.4 * epsilon)
        noise = math.sqrt(sum_std**2 + target**2 * count_std**2) / kept
        errors.append(math.sqrt((target - values.mean()) ** 2 + sampling + noise**2))
    assert t.best_bound == 1 + int(np.argmin(errors))
    assert t.rmse[t.best_index] == pytest.approx(min(errors), rel=1e-9)
    if epsilon > 5:
        assert t.best_bound > MAX_CURVE_POINTS  # past where the curve used to stop


def test_the_private_bound_follows_the_exponential_quantile_law():
    ids = np.repeat(np.arange(300), np.arange(300) % 12 + 1)
    rows = np.bincount(ids).astype(float)
    law = ExponentialQuantile(0.5, 1.0, 50.0, 0.9).intervals(rows)
    trials = 4_000
    rng = np.random.default_rng(3)
    draws = np.array([private_bound(ids, 0.5, q=0.9, max_bound=50, rng=rng) for _ in range(trials)])
    # P(bound = b) = P(point in (b − 1, b]) under the exact law (ceil of the point, at least 1)
    for b in (11, 12, 13):
        p = float(law.cdf(b) - law.cdf(b - 1))
        sd = math.sqrt(p * (1 - p) / trials)
        assert abs(np.mean(draws == b) - p) < 5 * sd + 1e-12


def test_the_private_bound_of_a_publication_is_fresh_and_in_range():
    ids = np.repeat(np.arange(200), np.arange(200) % 7 + 1)
    draws = {private_bound(ids, 0.2, q=0.9, max_bound=1_000, rng=SecureGenerator()) for _ in range(20)}
    assert all(1 <= d <= 1_000 for d in draws)
    assert len(draws) > 1  # fresh secure noise each time: at ε = 0.2 the point is spread over many rows


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: count_tradeoff(["a", None], 1.0), "persons must name a person on every row"),
        (lambda: count_tradeoff(["a"], 1.0, bounds=[0]), "bounds must be whole numbers in [1,"),
        (lambda: count_tradeoff(["a"], 1.0, bounds=[1.5]), "bounds must be whole numbers"),
        (lambda: count_tradeoff(["a"], 1.0, bounds=[]), "bounds must hold at least one bound"),
        (lambda: count_tradeoff(["a"], -1.0), "epsilon"),
        (lambda: sum_tradeoff(["a"], [1.0, 2.0], 0, 1, 1.0), "values must have one entry per row"),
        (lambda: sum_tradeoff(["a"], [np.nan], 0, 1, 1.0), "values must be finite"),
        (lambda: sum_tradeoff(["a"], [1.0], 1, 0, 1.0), "lower"),
        (lambda: mean_tradeoff([], [], 0, 1, 1.0), "values must hold at least one row"),
        (lambda: mean_tradeoff(["a"], [1.0], 0, 1, 1.0, split=1.5), "split"),
        (lambda: private_bound(["a"], 1.0, q=1.0, max_bound=10, rng=0), "q must be in (0, 1)"),
        (lambda: private_bound(["a"], 1.0, max_bound=1, rng=0), "max_bound"),
    ],
)
def test_bad_input_gets_one_sentence(call, words):
    with pytest.raises((ValueError, TypeError)) as error:
        call()
    assert words in str(error.value)
