"""dpcore.bound_tradeoff: every term against the exact expectation over every subset of small tables."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpcore.bound_tradeoff import count_tradeoff, private_bound, sum_tradeoff
from dpcore.families import family
from dpcore.quantiles import ExponentialQuantile
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
        (lambda: private_bound(["a"], 1.0, q=1.0, max_bound=10, rng=0), "q must be in (0, 1)"),
        (lambda: private_bound(["a"], 1.0, max_bound=1, rng=0), "max_bound"),
    ],
)
def test_bad_input_gets_one_sentence(call, words):
    with pytest.raises((ValueError, TypeError)) as error:
        call()
    assert words in str(error.value)
