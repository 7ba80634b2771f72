"""Tests for dpcore.svt: AboveThreshold, Sparse, range queries and the SVT clipping bound."""

import math

import numpy as np
import pytest
from scipy.integrate import trapezoid
from scipy.stats import beta

from dpcore import (
    Laplace,
    above_threshold,
    above_threshold_trials,
    auto_mean,
    choose_clipping_bound,
    clipping_queries,
    naive_clipping_bound,
    naive_range_query,
    range_query_svt,
    sparse,
    sparse_trials,
    svt_noise_scales,
)
from tests.tolerances import Z

# ---------------------------------------------------------------------- exact law of AboveThreshold


def above_threshold_probabilities(answers, threshold, epsilon, sensitivity=1.0, points=400_001):
    """Exact ``P(output = i)`` for i = 0..n-1, then ``P(None)``, by numerical integration.

    ``P(i) = ∫ f_T̂(t) Π_{j<i} P(a_j + ν_j < t) P(a_i + ν_i >= t) dt`` with
    ``T̂ ~ T + Lap(2Δ/ε)``, ``ν ~ Lap(4Δ/ε)`` (Dwork & Roth 2014, Algorithm 1).
    """
    answers = np.asarray(answers, dtype=float)
    thr, nu = Laplace(2 * sensitivity / epsilon), Laplace(4 * sensitivity / epsilon)
    t = np.linspace(threshold - 60 * thr.scale, threshold + 60 * thr.scale, points)
    below = nu.cdf(t[None, :] - answers[:, None])  # P(a_j + ν_j < t)
    all_below_before = np.vstack([np.ones_like(t), np.cumprod(below, axis=0)])
    dens = thr.pdf(t - threshold)
    p = [trapezoid(dens * all_below_before[i] * (1 - below[i]), t) for i in range(answers.size)]
    p.append(trapezoid(dens * all_below_before[-1], t))
    return np.array(p)


def event_counts(outputs, n):
    """Counts of outputs 0..n-1 and of "nothing passed" (-1) in the last slot."""
    outputs = np.where(np.asarray(outputs) < 0, n, outputs)
    return np.bincount(outputs, minlength=n + 1)


def test_exact_probabilities_sum_to_one():
    p = above_threshold_probabilities([0.0, 3.0, -2.0, 1.0], 1.0, 0.7)
    assert p.sum() == pytest.approx(1.0, abs=1e-7)  # trapezoid rule over the kinks of the Laplace densities


@pytest.mark.parametrize(
    "answers, threshold, epsilon", [([0.0, 1.0, -1.0, 2.0], 1.0, 1.0), ([5.0, 0.0, 0.0], 3.0, 0.5)]
)
def test_trial_frequencies_match_exact_law(answers, threshold, epsilon, rng):
    p = above_threshold_probabilities(answers, threshold, epsilon)
    n = 100_000
    freq = event_counts(above_threshold_trials(answers, threshold, epsilon, rng, n), len(answers)) / n
    assert np.all(np.abs(freq - p) <= Z * np.sqrt(p * (1 - p) / n) + 1e-6)


def test_single_calls_match_exact_law():
    answers, threshold, epsilon = [0.0, 1.0, -1.0, 2.0], 1.0, 1.0
    p = above_threshold_probabilities(answers, threshold, epsilon)
    rng = np.random.default_rng(8)
    n = 5_000
    outs = [above_threshold(answers, threshold, epsilon, rng) for _ in range(n)]
    assert all(o is None or isinstance(o, int) for o in outs)
    freq = event_counts([-1 if o is None else o for o in outs], len(answers)) / n
    assert np.all(np.abs(freq - p) <= Z * np.sqrt(p * (1 - p) / n) + 1e-6)


def test_sensitivity_scales_the_noise():
    # answers and threshold scaled by Δ with sensitivity Δ: the same law
    p1 = above_threshold_probabilities([0.0, 1.0, 2.0], 1.5, 0.8)
    p3 = above_threshold_probabilities([0.0, 3.0, 6.0], 4.5, 0.8, sensitivity=3.0)
    np.testing.assert_allclose(p1, p3, atol=1e-9)
    n = 50_000
    out = above_threshold_trials([0.0, 3.0, 6.0], 4.5, 0.8, 3, n, sensitivity=3.0)
    freq = event_counts(out, 3) / n
    assert np.all(np.abs(freq - p3) <= Z * np.sqrt(p3 * (1 - p3) / n) + 1e-6)


def test_obvious_cases():
    assert above_threshold([-1e9, -1e9], 0.0, 1.0, 0) is None
    assert above_threshold([1e9, -1e9], 0.0, 1.0, 0) == 0
    assert above_threshold([-1e9, -1e9, 1e9, 1e9], 0.0, 1.0, 0) == 2
    out = above_threshold_trials([-1e9, 1e9], 0.0, 1.0, 0, 100)
    assert out.dtype == np.int64 and np.all(out == 1)
    assert np.all(above_threshold_trials([-1e9], 0.0, 1.0, 0, 10) == -1)
    # with a huge ε the noise vanishes: the first answer at or above the threshold
    assert above_threshold([0.0, 0.5, 1.0, 3.0], 0.9, 1e9, 0) == 2


def test_trials_memory_blocks_are_seamless(monkeypatch):
    import dpcore.svt as svt

    monkeypatch.setattr(svt, "_BLOCK_ELEMENTS", 7)  # forces one block per trial or so
    out = svt.above_threshold_trials([0.0, 1.0, 2.0], 1.0, 1.0, 0, 1000)
    assert out.shape == (1000,) and set(np.unique(out)) <= {-1, 0, 1, 2}
    s = svt.sparse_trials([0.0, 1.0, 2.0], 1.0, 2, 1.0, 0, 500)
    assert s.shape == (500, 2)


# ---------------------------------------------------------------------- empirical privacy check


def significant_violation(out_a, out_b, n_answers, epsilon, alpha=1e-6):
    """Largest ``ln(P_a(e)_lower / P_b(e)_upper) − ε`` over output events e and both directions.

    ``P_lower`` and ``P_upper`` are one-sided Clopper-Pearson bounds at level
    ``alpha / (2 · events)`` each (Bonferroni over events and directions), so for
    an ε-DP mechanism the result is <= 0 except with probability below ``alpha``;
    a positive value is a statistically significant violation of ε-DP.
    """
    ca, cb = event_counts(out_a, n_answers), event_counts(out_b, n_answers)
    na, nb = ca.sum(), cb.sum()
    level = alpha / (2 * 2 * ca.size)

    def lower(k, n):
        return np.where(k > 0, beta.ppf(level, np.maximum(k, 1), n - k + 1), 0.0)

    def upper(k, n):
        return np.where(k < n, beta.ppf(1 - level, k + 1, np.maximum(n - k, 1)), 1.0)

    with np.errstate(divide="ignore"):
        ab = np.log(lower(ca, na)) - np.log(upper(cb, nb))
        ba = np.log(lower(cb, nb)) - np.log(upper(ca, na))
    return float(np.max(np.concatenate([ab, ba]))) - epsilon


def broken_above_threshold_trials(answers, threshold, epsilon, rng, trials, sensitivity=1.0):
    """A known broken variant: noisy threshold but NO noise on the answers.

    Not ε-DP for any finite ε (Lyu, Su & Li 2017, the variant of Stoddard et al.):
    with answers (0, 1) output 1 means 0 < T̂ <= 1, which cannot happen with (1, 0).
    """
    answers = np.asarray(answers, dtype=float)
    t_hat = threshold + rng.laplace(0.0, 2 * sensitivity / epsilon, size=(trials, 1))
    mask = answers >= t_hat
    idx = mask.argmax(axis=1)
    return np.where(mask[np.arange(trials), idx], idx, -1)


# neighbouring answer vectors: every answer moves by at most Δ = 1
NEIGHBOURS = [
    ([0.0, 1.0], [1.0, 0.0], 0.0),
    ([0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0], 0.5),
    ([-1.0, 0.0, 1.0, 0.0], [0.0, -1.0, 0.0, 1.0], 0.0),
]
EPSILON = 1.0
N_PRIVACY = 200_000


@pytest.mark.parametrize("a, b, threshold", NEIGHBOURS)
def test_above_threshold_passes_empirical_privacy_check(a, b, threshold):
    out_a = above_threshold_trials(a, threshold, EPSILON, np.random.default_rng(1), N_PRIVACY)
    out_b = above_threshold_trials(b, threshold, EPSILON, np.random.default_rng(2), N_PRIVACY)
    assert significant_violation(out_a, out_b, len(a), EPSILON) <= 0
    # the exact law agrees, and the pairs are not trivially close: the worst ratio uses a good part of ε
    pa = above_threshold_probabilities(a, threshold, EPSILON)
    pb = above_threshold_probabilities(b, threshold, EPSILON)
    worst = np.max(np.abs(np.log(pa / pb)))
    assert EPSILON / 4 < worst <= EPSILON + 1e-6


@pytest.mark.parametrize("a, b, threshold", NEIGHBOURS[:1])
def test_empirical_privacy_check_rejects_broken_variant(a, b, threshold):
    out_a = broken_above_threshold_trials(a, threshold, EPSILON, np.random.default_rng(1), N_PRIVACY)
    out_b = broken_above_threshold_trials(b, threshold, EPSILON, np.random.default_rng(2), N_PRIVACY)
    assert significant_violation(out_a, out_b, len(a), EPSILON) > 0
    # it fails even for a much larger ε: the event "output 1" has probability 0 under b (the largest
    # ratio 200k samples can show is about ln(0.2 · 200000 / 16) ≈ 7.8)
    assert significant_violation(out_a, out_b, len(a), 5 * EPSILON) > 0


# ---------------------------------------------------------------------- Sparse


def test_sparse_without_noise_returns_first_c_above():
    answers = [0.0, 5.0, 1.0, 7.0, 9.0, 2.0, 8.0]
    assert sparse(answers, 4.0, 3, 1e9, 0) == [1, 3, 4]
    assert sparse(answers, 4.0, 10, 1e9, 0) == [1, 3, 4, 6]
    assert sparse(answers, 100.0, 2, 1e9, 0) == []
    t = sparse_trials(answers, 4.0, 5, 1e9, 0, 3)
    np.testing.assert_array_equal(t, [[1, 3, 4, 6, -1]] * 3)


def test_sparse_output_is_increasing_and_at_most_c(rng):
    answers = rng.normal(0, 2, size=200)
    for _ in range(50):
        out = sparse(answers, 1.0, 4, 2.0, rng)
        assert len(out) <= 4 and out == sorted(set(out))
    t = sparse_trials(answers, 1.0, 4, 2.0, rng, 2000)
    for row in t:
        found = row[row >= 0]
        assert np.all(np.diff(found) > 0)
        assert np.all(row[found.size :] == -1)  # padding only at the end


def test_sparse_with_c_one_is_above_threshold(rng):
    answers, threshold, epsilon = [0.0, 1.0, -1.0, 2.0], 1.0, 1.0
    p = above_threshold_probabilities(answers, threshold, epsilon)
    n = 100_000
    freq = event_counts(sparse_trials(answers, threshold, 1, epsilon, rng, n)[:, 0], 4) / n
    assert np.all(np.abs(freq - p) <= Z * np.sqrt(p * (1 - p) / n) + 1e-6)


def test_sparse_rounds_run_at_epsilon_over_c(rng):
    # the first positive of Sparse(c, ε) has the law of AboveThreshold at ε/c
    answers, threshold, epsilon, c = [0.0, 1.0, -1.0, 2.0, 0.5], 1.0, 3.0, 3
    p = above_threshold_probabilities(answers, threshold, epsilon / c)
    n = 100_000
    freq = event_counts(sparse_trials(answers, threshold, c, epsilon, rng, n)[:, 0], 5) / n
    assert np.all(np.abs(freq - p) <= Z * np.sqrt(p * (1 - p) / n) + 1e-6)


def test_sparse_trials_agree_with_single_calls():
    answers, threshold, c, epsilon = [0.0, 2.0, 1.0, 3.0, 0.0, 2.5], 1.5, 2, 2.0
    n1, n2 = 40_000, 4_000
    vec = sparse_trials(answers, threshold, c, epsilon, np.random.default_rng(3), n1)
    rng = np.random.default_rng(4)
    single = np.full((n2, c), -1)
    for k in range(n2):
        found = sparse(answers, threshold, c, epsilon, rng)
        single[k, : len(found)] = found
    for r in range(c):
        f1 = event_counts(vec[:, r], 6) / n1
        f2 = event_counts(single[:, r], 6) / n2
        p = (f1 * n1 + f2 * n2) / (n1 + n2)
        # two-sample binomial standard error
        assert np.all(np.abs(f1 - f2) <= Z * np.sqrt(p * (1 - p) * (1 / n1 + 1 / n2)) + 1e-9)


# ---------------------------------------------------------------------- range queries


def test_range_query_svt_answers_with_fresh_laplace():
    answers = np.array([1000.0, -1000.0, 1000.0, -1000.0, 1000.0])
    c, epsilon = 2, 1.0
    rng = np.random.default_rng(6)
    noise = []
    for _ in range(3000):
        out = range_query_svt(answers, 0.0, c, epsilon, rng)
        assert [i for i, _ in out] == [0, 2]  # far from the threshold: the selection is certain
        assert all(isinstance(i, int) and isinstance(v, float) for i, v in out)
        noise += [v - answers[i] for i, v in out]
    noise = np.array(noise)
    law = Laplace(2 * c * 1.0 / epsilon)  # ε/(2c) per answer: Lap(2cΔ/ε)
    assert abs(noise.var() / law.variance - 1) <= Z * math.sqrt(5.0 / noise.size)  # Laplace: Var(s²)/σ⁴ ≈ 5/N


def test_naive_range_query_noise_is_n_over_epsilon(rng):
    n, epsilon = 20_000, 100.0
    answers = np.full(n, 1e9)
    out = naive_range_query(answers, 0.0, epsilon, rng)
    assert [i for i, _ in out] == list(range(n))
    noise = np.array([v for _, v in out]) - 1e9
    law = Laplace(n / epsilon)  # ε/n per query
    assert abs(noise.var() / law.variance - 1) <= Z * math.sqrt(5.0 / n)
    assert [i for i, _ in naive_range_query(answers, 0.0, epsilon, rng, c=3)] == [0, 1, 2]
    assert naive_range_query([-1e12, -1e12], 0.0, 1.0, rng) == []


def test_noise_scales():
    s = svt_noise_scales(n=1000, c=5, epsilon=0.5, sensitivity=2.0)
    assert s.answer == 2 * 5 * 2.0 / 0.5  # 2cΔ/ε
    assert s.threshold == 4 * 5 * 2.0 / 0.5  # Sparse at ε/2, round at ε/(2c): 2Δ/(ε/2c)
    assert s.query == 8 * 5 * 2.0 / 0.5
    assert s.naive == 1000 * 2.0 / 0.5  # nΔ/ε
    assert s.answer < s.naive


# ---------------------------------------------------------------------- clipping bound


def brute_force_clipping_queries(values, candidates):
    return np.array([np.clip(values, 0, b).sum() - np.clip(values, 0, b + 1).sum() for b in candidates])


def test_clipping_queries_match_definition(rng):
    values = rng.normal(30, 25, size=2000)  # includes negatives and non-integers
    cand = np.array([0.5, 1.0, 7.0, 20.0, 33.3, 60.0, 200.0])
    np.testing.assert_allclose(clipping_queries(values, cand), brute_force_clipping_queries(values, cand), atol=1e-7)
    ints = rng.integers(0, 100, size=3000).astype(float)
    b = np.arange(1, 150, 5)
    # on integers q_b = −#{x > b}
    np.testing.assert_allclose(clipping_queries(ints, b), [-(ints > v).sum() for v in b], atol=1e-8)


def test_clipping_queries_have_sensitivity_one(rng):
    values = rng.uniform(0, 100, size=500)
    cand = np.arange(1.0, 120.0, 3.0)
    base = clipping_queries(values, cand)
    for extra in rng.uniform(-10, 150, size=50):
        assert np.max(np.abs(clipping_queries(np.append(values, extra), cand) - base)) <= 1 + 1e-9


def synthetic_adult_ages(seed=0, n=32_561):
    """Ages shaped like UCI Adult's (made here, no file read): 17 to 90, mean ≈ 38, most in 20-50.

    The body is 17 + Gamma(2.52, 8.56) floored, kept at or below 80; the top is a
    fixed tail like Adult's (few people above 80, a top-coded lump of 43 at 90),
    which is what decides the SVT choice.
    """
    rng = np.random.default_rng(seed)
    tail = {81: 20, 82: 12, 83: 6, 84: 10, 85: 3, 86: 1, 87: 1, 88: 3, 90: 43}
    body = np.floor(17 + rng.gamma(2.52, 8.56, size=2 * n))
    body = body[body <= 80][: n - sum(tail.values())]
    return np.concatenate([body, np.repeat(list(tail), list(tail.values()))]).astype(float)


def test_issue_claim_chosen_bound_lands_around_90():
    # Issue 3: on Adult ages with candidates range(1, 150, 5) and ε = 0.1 the chosen b lands around 90.
    ages = synthetic_adult_ages()
    assert ages.size == 32_561 and ages.min() >= 17 and ages.max() == 90 and 35 < ages.mean() < 42
    cand = np.arange(1, 150, 5)
    # exact law of the choice (nothing passing falls back to the last candidate, 146)
    p = above_threshold_probabilities(clipping_queries(ages, cand), 0.0, 0.1, points=100_001)
    law = p[:-1].copy()
    law[-1] += p[-1]
    assert cand[np.argmax(law)] == 91  # the most likely choice: the first candidate above all the data
    assert cand[np.searchsorted(np.cumsum(law), 0.5)] == 91  # and the median
    assert law[(cand >= 81) & (cand <= 101)].sum() > 0.8
    # the implementation follows that law
    trials = 20_000
    bounds = choose_clipping_bound(ages, range(1, 150, 5), 0.1, np.random.default_rng(7), trials=trials)
    freq = np.bincount(np.searchsorted(cand, bounds), minlength=cand.size) / trials
    assert np.all(np.abs(freq - law) <= Z * np.sqrt(law * (1 - law) / trials) + 1e-6)
    # a single call returns a candidate
    assert choose_clipping_bound(ages, range(1, 150, 5), 0.1, 1) in set(range(1, 150, 5))


def test_choose_clipping_bound_falls_back_to_largest_candidate():
    # every candidate far below the data: nothing passes, the largest candidate is used
    assert choose_clipping_bound(np.full(10_000, 1e6), [1.0, 2.0, 3.0], 10.0, 0) == 3.0


def test_auto_mean_budget_and_shapes():
    ages = synthetic_adult_ages(seed=1)
    cand = np.arange(1, 150, 5)
    r = auto_mean(ages, cand, 0.3, 5)
    assert isinstance(r.bound, float) and isinstance(r.found, bool) and isinstance(r.noisy_value, float)
    assert 0 <= r.noisy_value <= r.bound
    assert r.epsilon == 0.3 and r.n == ages.size
    assert r.unclipped_value == pytest.approx(ages.mean())
    np.testing.assert_allclose(r.answers, clipping_queries(ages, cand))
    t = auto_mean(ages, cand, 0.3, 5, trials=2000)
    for field in (t.bound, t.found, t.true_value, t.noisy_value):
        assert field.shape == (2000,)
    np.testing.assert_allclose(t.true_value, [np.clip(ages, 0, b).mean() for b in t.bound], rtol=1e-12)


def test_auto_mean_spends_a_third_on_each_part():
    ages = synthetic_adult_ages(seed=2)
    cand = np.arange(1, 150, 5)
    epsilon, trials = 0.3, 40_000
    t = auto_mean(ages, cand, epsilon, np.random.default_rng(10), trials=trials)
    # the bound: AboveThreshold at ε/3
    p = above_threshold_probabilities(clipping_queries(ages, cand), 0.0, epsilon / 3, points=100_001)
    freq = event_counts(np.where(t.found, np.searchsorted(cand, t.bound), -1), cand.size) / trials
    assert np.all(np.abs(freq - p) <= Z * np.sqrt(p * (1 - p) / trials) + 1e-6)
    # given the bound b, the mean's error has the delta-method variance of Lap(3b/ε) / (n + Lap(3/ε))
    n = ages.size
    for b in (91.0, 96.0):
        sel = t.bound == b
        err = t.error[sel]
        mu = np.clip(ages, 0, b).mean()
        approx = (2 * (3 * b / epsilon) ** 2 + mu**2 * 2 * (3 / epsilon) ** 2) / n**2
        assert abs(err.var() / approx - 1) <= Z * math.sqrt(5.0 / sel.sum()) + 0.02


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: above_threshold([], 0.0, 1.0, 0), "answers must contain at least one number"),
        (lambda: above_threshold([1.0, np.nan], 0.0, 1.0, 0), "answers must not contain NaN"),
        (lambda: above_threshold([1.0], np.nan, 1.0, 0), "threshold must be finite"),
        (lambda: above_threshold([1.0], 0.0, 0.0, 0), r"epsilon must be in \(0, inf\), got 0.0"),
        (lambda: above_threshold([1.0], 0.0, 1.0, 0, sensitivity=0.0), "sensitivity must be"),
        (lambda: above_threshold_trials([1.0], 0.0, 1.0, 0, 0), "trials must be"),
        (lambda: sparse([1.0], 0.0, 0, 1.0, 0), r"c must be an integer in \[1, inf\], got 0"),
        (lambda: sparse_trials([1.0], 0.0, 0, 1.0, 0, 5), "c must be"),
        (lambda: range_query_svt([1.0], 0.0, 0, 1.0, 0), "c must be"),
        (lambda: range_query_svt([1.0], 0.0, 1, -1.0, 0), "epsilon must be"),
        (lambda: naive_range_query([1.0], 0.0, 1.0, 0, c=0), "c must be"),
        (lambda: clipping_queries([1.0], [5.0, 5.0]), "candidates must be strictly increasing"),
        (lambda: clipping_queries([1.0], [0.0, 5.0]), r"candidates must be in \(0, inf\), got 0.0"),
        (lambda: clipping_queries([np.nan], [1.0]), "values must not contain NaN"),
        (lambda: auto_mean([1.0, 2.0], [1.0], math.inf, 0), "epsilon must be"),
        (lambda: svt_noise_scales(0, 1, 1.0), "n must be"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_nan_dropped_with_count():
    r = auto_mean([1.0, 2.0, np.nan, 3.0], [1.0, 5.0], 1.0, 0, nan="drop")
    assert r.dropped_nan == 1 and r.n == 3


def test_naive_clipping_bound_follows_its_exact_law(rng):
    # every q_b gets Lap(k/ε); P(first pass at i) = Π_{j<i} P(a_j + ν < 0) · P(a_i + ν >= 0),
    # with P(a + ν >= 0) = 1 − F(−a); nothing passing falls back to the last candidate
    ages = synthetic_adult_ages()
    cand = np.arange(1, 150, 5)
    eps = 0.5
    answers = clipping_queries(ages, cand)
    below = Laplace(cand.size / eps).cdf(-answers)
    law = np.concatenate(([1.0], np.cumprod(below)[:-1])) * (1 - below)
    law[-1] += np.prod(below)
    assert law.sum() == pytest.approx(1.0)
    trials = 50_000
    bounds = naive_clipping_bound(ages, cand, eps, rng, trials=trials)
    freq = np.bincount(np.searchsorted(cand, bounds), minlength=cand.size) / trials
    assert np.all(np.abs(freq - law) <= Z * np.sqrt(law * (1 - law) / trials) + 1e-6)
    # the noise k/ε = 60 makes the naive choice stop below the data's top (90) far more often than SVT's 4/ε (14% vs ~0)
    svt = choose_clipping_bound(ages, cand, eps, rng, trials=trials)
    assert np.mean(bounds < 86) > np.mean(svt < 86) + 0.05
    assert naive_clipping_bound(ages, cand, eps, 3) in set(cand.tolist())
    assert naive_clipping_bound(np.full(100, 1e6), [1.0, 2.0], 10.0, 0) == 2.0


@pytest.mark.parametrize("epsilon, trials, message", [(0.0, None, "epsilon must be"), (1.0, 0, "trials must be")])
def test_naive_clipping_bound_bad_input(epsilon, trials, message):
    with pytest.raises(ValueError, match=message):
        naive_clipping_bound([1.0, 2.0], [1.0, 2.0], epsilon, 0, trials=trials)


def test_auto_mean_approx_error_law_matches_simulation(rng):
    # delta method: given b, error ≈ Lap(3b/(εn)) + Lap(3μ_b/(εn)); its density integrates to 1,
    # its second moment is approx_error_std², and the simulated errors have that variance
    ages = synthetic_adult_ages()
    trials = 100_000
    r = auto_mean(ages, np.arange(1, 150, 5), 0.3, rng, trials=trials)
    x = np.linspace(-3.0, 3.0, 60_001)
    f = r.approx_error_pdf(x)
    assert trapezoid(f, x) == pytest.approx(1.0, abs=1e-6)
    assert math.sqrt(trapezoid(f * x * x, x)) == pytest.approx(r.approx_error_std(), rel=1e-4)
    # Laplace-like tails: the variance's standard error is about sqrt(5/trials) relative
    assert abs(r.error.var() / r.approx_error_std() ** 2 - 1) <= Z * math.sqrt(5.0 / trials) + 0.01
    # the share of simulated errors within ±std agrees with the density's mass there
    s = r.approx_error_std()
    inside = np.abs(x) <= s
    assert np.mean(np.abs(r.error) <= s) == pytest.approx(trapezoid(f[inside], x[inside]), abs=0.01)


def test_auto_mean_approx_error_pdf_degenerate_scales():
    x = np.linspace(-50.0, 50.0, 200_001)
    # all data above the bounds: μ_b = b, the two scales are equal (the a = c form)
    same = auto_mean(np.full(1_000, 50.0), [10.0, 20.0], 1.0, 0, trials=5)
    assert np.all(same.true_value == same.bound)
    assert trapezoid(same.approx_error_pdf(x), x) == pytest.approx(1.0, abs=1e-6)
    # all data at 0: μ_b = 0, the error is the sum's Laplace noise alone, Lap(3b/(εn))
    zero = auto_mean(np.zeros(1_000), [10.0], 1.0, 0)
    lap = Laplace(3 * 10.0 / 1_000)
    assert zero.approx_error_pdf(0.01) == pytest.approx(lap.pdf(0.01))
    assert zero.approx_error_std() == pytest.approx(lap.std)
