"""Tests for dpcore.exponential."""

import math

import numpy as np
import pytest

from dpcore import (
    exponential_epsilon_for_accuracy,
    exponential_error_bound,
    exponential_mechanism,
    exponential_probabilities,
)
from tests.tolerances import Z


def test_probabilities_closed_form():
    scores = np.array([0.0, 1.0, 3.0, -2.0])
    eps, sens = 1.5, 0.5
    w = np.exp(eps * scores / (2 * sens))  # p ∝ exp(ε s / (2Δ))
    np.testing.assert_allclose(exponential_probabilities(scores, eps, sens), w / w.sum(), rtol=1e-14)


def test_probabilities_are_shift_invariant_and_sum_to_one():
    scores = np.array([2.0, 5.0, 5.0, -1.0])
    p = exponential_probabilities(scores, 2.0)
    np.testing.assert_allclose(exponential_probabilities(scores + 1e6, 2.0), p, rtol=1e-9)
    assert p.sum() == pytest.approx(1.0, abs=1e-15)
    assert p[1] == p[2]


def test_huge_scores_do_not_overflow():
    p = exponential_probabilities([1e308, -1e308, 0.0, 1e308], 5.0, 1e-300)
    assert np.all(np.isfinite(p))
    np.testing.assert_array_equal(p, [0.5, 0.0, 0.0, 0.5])
    # ratio of neighbours 1 apart is exactly e^{ε/(2Δ)} even at 1e12
    p = exponential_probabilities([1e12, 1e12 + 1], 2.0, 1.0)
    assert p[1] / p[0] == pytest.approx(math.e, rel=1e-9)


def test_neighbouring_scores_change_probabilities_by_at_most_e_epsilon():
    # Dwork & Roth (2014), Theorem 3.10: scores moving by at most Δ change each probability by ≤ e^ε
    rng = np.random.default_rng(5)
    eps, sens = 0.8, 2.0
    for _ in range(200):
        s = rng.normal(0, 5, size=6)
        s2 = s + rng.uniform(-sens, sens, size=6)
        ratio = np.log(exponential_probabilities(s, eps, sens) / exponential_probabilities(s2, eps, sens))
        assert np.max(np.abs(ratio)) <= eps + 1e-12
    # and it is not loose by more than a factor 2 in the exponent: one score up by Δ, the others down by Δ
    s = np.array([0.0, 0.0, 0.0])
    s2 = np.array([sens, -sens, -sens])
    r = exponential_probabilities(s2, eps, sens)[0] / exponential_probabilities(s, eps, sens)[0]
    assert r > math.exp(eps / 2)


def test_frequencies_match_probabilities(rng):
    scores = np.array([1.0, 4.0, 2.0, 0.0, 3.5])
    eps, sens = 1.0, 1.0
    p = exponential_probabilities(scores, eps, sens)
    n = 200_000
    draws = exponential_mechanism(scores, eps, sens, rng, trials=n)
    freq = np.bincount(draws, minlength=scores.size) / n
    se = np.sqrt(p * (1 - p) / n)  # binomial standard error of each frequency
    assert np.all(np.abs(freq - p) <= Z * se)


def test_single_draw_is_an_int_and_reproducible():
    scores = [0.0, 1.0, 2.0]
    a = exponential_mechanism(scores, 1.0, 1.0, 7)
    assert isinstance(a, int) and 0 <= a < 3
    assert a == exponential_mechanism(scores, 1.0, 1.0, 7)


def test_single_draws_follow_probabilities():
    scores = np.array([0.0, 2.0, 1.0])
    p = exponential_probabilities(scores, 2.0, 1.0)
    rng = np.random.default_rng(11)
    n = 5_000
    freq = np.bincount([exponential_mechanism(scores, 2.0, 1.0, rng) for _ in range(n)], minlength=3) / n
    assert np.all(np.abs(freq - p) <= Z * np.sqrt(p * (1 - p) / n))


def test_zero_probability_candidates_are_never_drawn(rng):
    draws = exponential_mechanism([0.0, 1e6, -1e6], 1.0, 1.0, rng, trials=10_000)
    assert np.all(draws == 1)


def test_utility_bound_coverage(rng):
    # Dwork & Roth (2014), Theorem 3.11: OPT − u(chosen) <= 2Δ/ε (ln n + ln 1/(1−c)) with probability >= c
    scores = rng.normal(0, 3, size=50)
    eps, sens, c = 0.5, 1.0, 0.9
    t = exponential_error_bound(scores.size, eps, sens, c)
    assert t == pytest.approx(2 * sens / eps * (math.log(50) + math.log(10)), rel=1e-12)
    n = 50_000
    gap = scores.max() - scores[exponential_mechanism(scores, eps, sens, rng, trials=n)]
    assert np.mean(gap <= t) >= c - Z * math.sqrt(c * (1 - c) / n)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: exponential_probabilities([1.0, np.nan], 1.0), "scores must not contain NaN"),
        (lambda: exponential_probabilities([], 1.0), "scores must contain at least one number"),
        (lambda: exponential_probabilities([1.0, np.inf], 1.0), "scores must be finite"),
        (lambda: exponential_mechanism([1.0], 0.0, 1.0, 0), r"epsilon must be in \(0, inf\), got 0.0"),
        (lambda: exponential_mechanism([1.0], 1.0, -1.0, 0), r"sensitivity must be in \(0, inf\), got -1.0"),
        (lambda: exponential_mechanism([1.0], 1.0, 1.0, 0, trials=0), "trials must be"),
        (lambda: exponential_error_bound(0, 1.0), "n_candidates must be"),
        (lambda: exponential_error_bound(3, 1.0, confidence=1.0), "confidence must be"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_non_numeric_scores():
    with pytest.raises(TypeError, match="scores must be numeric"):
        exponential_probabilities(["a", "b"], 1.0)


@pytest.mark.parametrize("n_candidates", [1, 2, 15, 10**6])
@pytest.mark.parametrize("sensitivity", [0.5, 1.0, 40.0])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.9999])
def test_epsilon_for_accuracy_inverts_the_error_bound(n_candidates, sensitivity, confidence):
    for accuracy in (1e-3, 2.0, 500.0):
        eps = exponential_epsilon_for_accuracy(accuracy, n_candidates, sensitivity, confidence)
        # ε = 2Δ (ln n − ln(1 − c)) / t (Dwork & Roth 2014, Theorem 3.11 solved for ε)
        expected = 2 * sensitivity * (math.log(n_candidates) - math.log1p(-confidence)) / accuracy
        assert eps == pytest.approx(expected, rel=1e-14)
        assert exponential_error_bound(n_candidates, eps, sensitivity, confidence) == pytest.approx(accuracy, rel=1e-12)


def test_epsilon_for_accuracy_is_monotone():
    eps = [exponential_epsilon_for_accuracy(t, 20) for t in np.geomspace(0.1, 1e4, 30)]
    assert np.all(np.diff(eps) < 0)
    # more candidates need more ε for the same shortfall
    assert exponential_epsilon_for_accuracy(5.0, 100) > exponential_epsilon_for_accuracy(5.0, 10)


@pytest.mark.parametrize(
    "args, message",
    [
        ((0.0, 5), r"accuracy must be in \(0, inf\), got 0.0"),
        ((1.0, 0), r"n_candidates must be an integer in \[1, inf\], got 0"),
        ((1.0, 5, -1.0), r"sensitivity must be in \(0, inf\), got -1.0"),
        ((1.0, 5, 1.0, 1.0), r"confidence must be in \(0, 1\), got 1.0"),
    ],
)
def test_epsilon_for_accuracy_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        exponential_epsilon_for_accuracy(*args)
