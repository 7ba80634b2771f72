"""Tests for dpcore.svt: AboveThreshold, Sparse, range queries and their noise scales."""

import math

import numpy as np
import pytest
from scipy.stats import beta

from dpcore import (
    Laplace,
    above_threshold,
    above_threshold_trials,
    naive_range_query,
    range_query_svt,
    sparse,
    sparse_trials,
    svt_epsilon_for_accuracy,
    svt_noise_scales,
)
from tests.svt_law import above_threshold_probabilities, event_counts
from tests.tolerances import Z


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
        (lambda: svt_noise_scales(0, 1, 1.0), "n must be"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_named_scales_closed_forms():
    from dpcore import above_threshold_scales, naive_scale, sparse_scales

    s = above_threshold_scales(0.5, sensitivity=3.0)
    assert (s.threshold, s.query) == (2 * 3.0 / 0.5, 4 * 3.0 / 0.5)  # 2Δ/ε and 4Δ/ε
    r = sparse_scales(0.5, 4, sensitivity=3.0)
    assert (r.threshold, r.query) == (2 * 3.0 / (0.5 / 4), 4 * 3.0 / (0.5 / 4))  # AboveThreshold at ε/c
    assert naive_scale(0.5, 100) == 100 / 0.5 and naive_scale(0.5, 100, 3.0) == 100 * 3.0 / 0.5  # kΔ/ε
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, inf\], got 0"):
        naive_scale(1.0, 0)
    with pytest.raises(ValueError, match=r"c must be an integer in \[1, inf\], got 0"):
        sparse_scales(1.0, 0)


def test_the_functions_draw_with_the_named_scales(monkeypatch):
    # one home: the SVT functions take their noise from above_threshold_scales and naive_scale, nowhere else
    import dpcore.svt as svt

    calls = []
    original_naive = svt.naive_scale

    def spy_at(epsilon, sensitivity=1.0):
        calls.append(("above_threshold_scales", epsilon, sensitivity))
        return svt.AboveThresholdScales(1e-12, 1e-12)  # (almost) no noise: the first answer at or above T wins

    def spy_naive(epsilon, k, sensitivity=1.0):
        calls.append(("naive_scale", epsilon, k, sensitivity))
        return 2.0 * original_naive(epsilon, k, sensitivity)

    answers = np.array([-1.0, 0.5, 2.0, 3.0])
    before = [v for _, v in svt.naive_range_query(answers, -1e9, 0.8, 14, sensitivity=2.0)]
    monkeypatch.setattr(svt, "above_threshold_scales", spy_at)
    monkeypatch.setattr(svt, "naive_scale", spy_naive)
    assert svt.above_threshold(answers, 0.0, 0.01, 0, sensitivity=2.0) == 1  # random at ε = 0.01 otherwise
    assert svt.above_threshold_trials(answers, 0.0, 0.01, 0, 50).tolist() == [1] * 50
    assert svt.sparse(answers, 0.0, 2, 0.01, 0) == [1, 2]
    assert svt.sparse_trials(answers, 0.0, 2, 0.01, 0, 5).tolist() == [[1, 2]] * 5
    assert [i for i, _ in svt.range_query_svt(answers, 0.0, 2, 0.01, 0, sensitivity=2.0)] == [1, 2]
    after = [v for _, v in svt.naive_range_query(answers, -1e9, 0.8, 14, sensitivity=2.0)]
    np.testing.assert_allclose(np.subtract(after, answers), 2.0 * np.subtract(before, answers), rtol=1e-12)
    assert calls == [
        ("above_threshold_scales", 0.01, 2.0),
        ("above_threshold_scales", 0.01, 1.0),
        ("above_threshold_scales", 0.01 / 2, 1.0),  # Sparse: each round at ε/c
        ("above_threshold_scales", 0.01 / 2, 1.0),
        ("above_threshold_scales", 0.01 / 2 / 2, 2.0),  # range queries: Sparse at ε/2, rounds at ε/(2c)
        ("naive_scale", 0.01 / 2, 2, 2.0),  # the c answers share ε/2
        ("naive_scale", 0.8, 4, 2.0),  # the naive release: n queries share ε
    ]


@pytest.mark.parametrize("n, c", [(1, 1), (20, 3), (1000, 10)])
@pytest.mark.parametrize("sensitivity", [1.0, 2.5])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.999])
def test_svt_epsilon_for_accuracy_inverts_the_answer_error(n, c, sensitivity, confidence):
    for accuracy in (0.5, 10.0, 1e4):
        eps = svt_epsilon_for_accuracy(accuracy, n, c, confidence, sensitivity)
        # ε = 2cΔ ln(1/(1 − conf)) / t: the answers carry Lap(2cΔ/ε)
        assert eps == pytest.approx(2 * c * sensitivity * -math.log1p(-confidence) / accuracy, rel=1e-14)
        scales = svt_noise_scales(n, c, eps, sensitivity)
        assert Laplace(scales.answer).error_bound(confidence) == pytest.approx(accuracy, rel=1e-12)
        naive = svt_epsilon_for_accuracy(accuracy, n, c, confidence, sensitivity, release="naive")
        naive_scales = svt_noise_scales(n, c, naive, sensitivity)
        assert Laplace(naive_scales.naive).error_bound(confidence) == pytest.approx(accuracy, rel=1e-12)
        # SVT needs less ε than the naive release exactly when 2c < n
        assert (eps < naive) == (2 * c < n)


def test_svt_epsilon_for_accuracy_is_monotone_and_checks_its_input():
    eps = [svt_epsilon_for_accuracy(t, 20, 3) for t in np.geomspace(0.1, 100, 20)]
    assert np.all(np.diff(eps) < 0)
    with pytest.raises(ValueError, match=r"accuracy must be in \(0, inf\), got -2.0"):
        svt_epsilon_for_accuracy(-2.0, 20, 3)
    with pytest.raises(ValueError, match="release must be one of 'svt', 'naive', got 'sparse'"):
        svt_epsilon_for_accuracy(1.0, 20, 3, release="sparse")
    with pytest.raises(ValueError, match=r"c must be an integer in \[1, inf\], got 0"):
        svt_epsilon_for_accuracy(1.0, 20, 0)


def test_range_query_answers_to_publish_lie_on_a_lattice_with_the_same_indices():
    from dpcore.lattice import lattice_mechanism
    from dpcore.svt import naive_scale

    answers = np.array([5.0, 50.0, 80.0, 12.0, 99.0])
    safe = range_query_svt(answers, 40.0, 2, 1.0, 11, lattice=True)
    plain = range_query_svt(answers, 40.0, 2, 1.0, 11)
    assert [i for i, _ in safe] == [i for i, _ in plain]  # the same sparse run picks the queries
    grid = lattice_mechanism(Laplace(naive_scale(0.5, 2))).grid
    assert all(v == round(v / grid) * grid for _, v in safe)
    naive = naive_range_query(answers, 40.0, 1.0, 11, lattice=True)
    assert all(
        v
        == round(v / lattice_mechanism(Laplace(naive_scale(1.0, 5))).grid)
        * lattice_mechanism(Laplace(naive_scale(1.0, 5))).grid
        for _, v in naive
    )


# ---------------------------------------------------------------------- exact comparisons (to publish)


def _exact_law(answers, threshold, epsilon, c=1):
    from dpcore.svt import exact_above_threshold_scales
    from tests.svt_exact_law import exact_above_threshold_probabilities

    b_t, b_q = exact_above_threshold_scales(epsilon, 1, c)
    return exact_above_threshold_probabilities(answers, threshold, b_t, b_q)


def _chi2(counts, probs) -> float:
    from tests.test_randomness import chi2_pvalue

    return chi2_pvalue(counts, probs / probs.sum())


def test_exact_scales_are_rounded_up_and_never_spend_more_than_epsilon():
    from fractions import Fraction

    from dpcore.svt import exact_above_threshold_scales

    gen = np.random.default_rng(5)
    for eps in [*gen.uniform(0.01, 5.0, 200), 1e-9, 0.1, 1 / 3, 700.0]:
        for c in (1, 3, 7):
            for delta in (1, 2):
                b_t, b_q = exact_above_threshold_scales(eps, delta, c)
                want_t, want_q = Fraction(2 * delta * c) / Fraction(eps), Fraction(4 * delta * c) / Fraction(eps)
                assert want_t <= b_t and want_q <= b_q
                assert Fraction(delta) / b_t + Fraction(2 * delta) / b_q <= Fraction(eps) / c  # exactly, no float
                for got, want in ((b_t, want_t), (b_q, want_q)):  # the ceiling on 2^-32, or 54 bits for huge scales
                    assert got - want < Fraction(1, 2**32) or (got - want) / want < Fraction(1, 2**53)
    third = Fraction(0.9) / 3  # a Fraction is taken as is: exactly a third, where the float 0.9/3 may round up
    assert exact_above_threshold_scales(third) == tuple(exact_above_threshold_scales(0.9, 1, 3)[i] for i in (0, 1))


@pytest.mark.parametrize(
    "answers, threshold, epsilon", [([0, 1, -1, 2], 1.0, 1.0), ([5, 0, 0], 2.5, 0.5), ([0, 0, 0, 0, 0], 0.0, 2.0)]
)
def test_exact_above_threshold_follows_its_exact_discrete_law(answers, threshold, epsilon, rng):
    p = _exact_law(answers, threshold, epsilon)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    n = 100_000
    out = above_threshold_trials(answers, threshold, epsilon, rng, n, exact=True)
    assert _chi2(event_counts(out, len(answers)), p) > 1e-6
    single = [above_threshold(answers, threshold, epsilon, rng, exact=True) for _ in range(400)]
    counts = event_counts([-1 if o is None else o for o in single], len(answers))
    assert _chi2(counts, p) > 1e-6


def test_a_fractional_threshold_is_compared_as_its_ceiling():
    # with integer answers and noises, a + ν ≥ T + ρ is a + ν ≥ ⌈T⌉ + ρ: the same law, exactly
    np.testing.assert_allclose(_exact_law([0, 1, 3], 0.25, 1.0), _exact_law([0, 1, 3], 1.0, 1.0), rtol=0, atol=0)
    assert not np.allclose(_exact_law([0, 1, 3], 0.0, 1.0), _exact_law([0, 1, 3], 1.0, 1.0))
    a = above_threshold_trials([0, 1, 3], 0.25, 1.0, np.random.default_rng(3), 1_000, exact=True)
    b = above_threshold_trials([0, 1, 3], 1.0, 1.0, np.random.default_rng(3), 1_000, exact=True)
    assert np.array_equal(a, b)  # the same bits give the same decisions


# neighbouring integer answer vectors: every answer moves by at most Δ = 1, some up and some down
EXACT_NEIGHBOURS = [
    ([0, 1], [1, 0], 0.0),
    ([0, 0, 0, 0, 0], [1, 1, 1, 1, 1], 0.5),
    ([-1, 0, 1, 0], [0, -1, 0, 1], 0.0),
    ([2, 0, 0, 3], [1, 1, 1, 2], 2.0),
]


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("a, b, threshold", EXACT_NEIGHBOURS)
def test_exact_above_threshold_is_epsilon_dp_by_enumeration(a, b, threshold, epsilon):
    """Dwork & Roth's Theorem 3.23 carried to discrete Laplace: the exact output law on neighbours stays within e^ε."""
    from tests.svt_exact_law import worst_log_ratio

    worst = worst_log_ratio(_exact_law(a, threshold, epsilon), _exact_law(b, threshold, epsilon))
    assert worst <= epsilon + 1e-9
    assert worst > epsilon / 4  # the pairs are not trivially close: they use a good part of ε


def test_the_enumeration_catches_answers_with_too_little_noise():
    # negative control: the same enumeration with the answers' noise 100 times too small (Lyu, Su & Li's broken
    # variants add none) exceeds e^ε by far on the first pair
    from dpcore.svt import exact_above_threshold_scales
    from tests.svt_exact_law import discrete_laplace_cdf, exact_above_threshold_probabilities, worst_log_ratio

    b_t, b_q = exact_above_threshold_scales(1.0)
    small = float(b_q) / 100

    def law(x):
        return exact_above_threshold_probabilities(x, 0.0, b_t, b_q, query_cdf=lambda y: discrete_laplace_cdf(y, small))

    assert worst_log_ratio(law([0, 1]), law([1, 0])) > 5.0


def test_exact_sparse_rounds_run_at_epsilon_over_c(rng):
    answers, threshold, epsilon, c = [0, 3, 1, 4, 0], 2.0, 1.5, 3
    n = 60_000
    out = sparse_trials(answers, threshold, c, epsilon, rng, n, exact=True)
    first = out[:, 0]  # the first round alone is exact AboveThreshold at ε/c
    assert _chi2(event_counts(first, len(answers)), _exact_law(answers, threshold, epsilon, c)) > 1e-6
    assert np.all((out[:, 1:] == -1) | (out[:, 1:] > out[:, :-1]))  # increasing, padded
    single = [sparse(answers, threshold, c, epsilon, rng, exact=True) for _ in range(300)]
    firsts = [s[0] if s else -1 for s in single]
    assert _chi2(event_counts(firsts, len(answers)), _exact_law(answers, threshold, epsilon, c)) > 1e-6
    assert sparse([0, 9, 1, 9, 9, 2, 9], 4.5, 3, 1e9, 0, exact=True) == [1, 3, 4]  # noise ≤ a few units at huge ε


def test_exact_range_queries_use_integer_comparisons_and_secure_bits():
    from dpcore.randomness import SecureGenerator

    counts = np.array([5.0, 500.0, 800.0, 12.0, 990.0])
    found = range_query_svt(counts, 100.0, 2, 1.0, SecureGenerator(), lattice=True, exact=True)
    assert [i for i, _ in found] == [1, 2]  # the counts are hundreds of noise scales from the threshold
    assert all(abs(v - counts[i]) < 200 for i, v in found)  # answers Lap(4): beyond 200 has probability e^-50


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: above_threshold([0.5, 1.0], 0.0, 1.0, 0, exact=True), r"answers must be whole numbers .*got 0.5"),
        (lambda: sparse([1.0, 2.0], 0.0, 1, 1.0, 0, 1.5, exact=True), "sensitivity must be a whole number"),
        (lambda: above_threshold([1.0], 1e300, 1.0, 0, exact=True), "threshold must be at most 2"),
        (lambda: above_threshold([1.0], 0.0, 1e-16, 0, exact=True), "epsilon must be at least"),
        (lambda: range_query_svt([0.5], 0.0, 1, 1.0, 0, exact=True), "answers must be whole numbers"),
    ],
)
def test_exact_comparisons_refuse_what_they_cannot_compare_exactly(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_float_path_is_unchanged_by_the_exact_keyword(rng):
    # the seeded simulations draw exactly what they drew before: exact=False is the default and the old code
    from dpcore.laplace import sample_laplace
    from dpcore.svt import above_threshold_scales

    answers = np.array([0.0, 1.0, -1.0, 2.0])
    s = above_threshold_scales(1.0)
    g = np.random.default_rng(11)
    t_hat = 1.0 + sample_laplace(g, s.threshold, size=(50, 1))
    mask = answers + sample_laplace(g, s.query, size=(50, 4)) >= t_hat
    idx = mask.argmax(axis=1)
    old = np.where(mask[np.arange(50), idx], idx, -1)
    assert np.array_equal(above_threshold_trials(answers, 1.0, 1.0, np.random.default_rng(11), 50), old)
