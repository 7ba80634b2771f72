"""dpcore.partition_selection: thresholds and δ exactly, keep probabilities against the recursion and the DP constraints,
the optimal mechanism against thresholding, the one-person group's δ by simulation, bad input in one sentence."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore.audit import audit
from dpcore.partition_selection import (
    SELECTIONS,
    GaussianThresholding,
    LaplaceThresholding,
    OptimalSelection,
    per_group_delta,
    selection,
    total_delta,
)
from dpcore.randomness import SecureGenerator
from tests.tolerances import Z

GRID = [(eps, delta) for eps in (0.05, 0.3, 1.0, 2.0, 8.0) for delta in (1e-12, 1e-8, 1e-5, 1e-3, 0.05)]


def _recursion(epsilon: float, delta: float, n: int) -> np.ndarray:
    """π(0..n) by the recursion of Desfontaines et al. (2022): π(n) = min(e^ε π(n−1) + δ, 1 − e^{−ε}(1 − π(n−1) − δ), 1)."""
    p = [0.0]
    for _ in range(n):
        a = p[-1]
        p.append(min(math.exp(epsilon) * a + delta, 1.0 - math.exp(-epsilon) * (1.0 - a - delta), 1.0))
    return np.array(p)


# ---------------------------------------------------------------------------------------------- the optimal mechanism


@pytest.mark.parametrize("epsilon, delta", GRID)
def test_the_closed_form_is_the_recursion(epsilon, delta):
    s = OptimalSelection(epsilon, delta)
    n = s.certain_from + 3
    want = _recursion(epsilon, delta, n)
    got = s.keep_probability(np.arange(n + 1))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300)
    assert got[s.certain_from] == 1.0 and got[s.certain_from - 1] < 1.0  # n₂ is the first size kept for sure
    assert int(np.argmax(want >= 1.0)) == s.certain_from
    # n₁: the last step of the first recursion term
    n1 = s.first_crossover
    a = want[n1 - 1]
    assert math.exp(epsilon) * a + delta <= 1.0 - math.exp(-epsilon) * (1.0 - a - delta) + 1e-15
    b = want[n1]
    assert math.exp(epsilon) * b + delta > 1.0 - math.exp(-epsilon) * (1.0 - b - delta)


def test_extreme_epsilons_stay_finite():
    for epsilon in (1e-6, 1e-3, 50.0, 700.0, 5_000.0):
        s = OptimalSelection(epsilon, 1e-7)
        p = s.keep_probability(np.arange(0, 200))
        assert np.all(np.isfinite(p)) and np.all(np.diff(p) >= 0) and p[1] == pytest.approx(1e-7, rel=1e-12)
    assert OptimalSelection(5_000.0, 1e-7).certain_from == 2  # e^ε δ ≥ 1: the second person makes it certain


# ---------------------------------------------------------------------------------------------- δ, exactly


@pytest.mark.parametrize("cls", SELECTIONS, ids=lambda c: c.key)
@pytest.mark.parametrize("epsilon, delta", [(0.5, 1e-6), (1.0, 1e-5), (3.0, 1e-3)])
def test_a_one_person_group_is_kept_with_probability_delta(cls, epsilon, delta):
    s = cls(epsilon, delta)
    one = s.keep_probability(1)
    if cls is GaussianThresholding:  # the threshold's share of δ; the noise pays the rest, δ(ε) of Balle & Wang
        assert one == pytest.approx(s.delta_threshold, rel=1e-12)
    else:
        assert one == pytest.approx(delta, rel=1e-12)
    assert s.delta_spent == pytest.approx(delta, rel=1e-9)
    assert s.keep_probability(0) == 0.0


@pytest.mark.parametrize("cls", SELECTIONS, ids=lambda c: c.key)
def test_several_groups_per_person_split_delta_exactly(cls):
    s = cls(2.0, 1e-4, 5)
    d0 = per_group_delta(s.delta_threshold if cls is GaussianThresholding else 1e-4, 5)
    assert s.keep_probability(1) == pytest.approx(d0, rel=1e-12)
    assert 1.0 - (1.0 - d0) ** 5 == pytest.approx(s.delta_threshold if cls is GaussianThresholding else 1e-4)
    assert s.delta_spent == pytest.approx(1e-4, rel=1e-9)


def test_per_group_and_total_delta_are_inverse():
    for delta in (1e-15, 1e-9, 1e-4, 0.3, 0.99):
        for groups in (1, 2, 7, 1000):
            assert total_delta(per_group_delta(delta, groups), groups) == pytest.approx(delta, rel=1e-10)
    assert per_group_delta(1e-5, 1) == 1e-5 and total_delta(1.0, 3) == 1.0


@pytest.mark.parametrize("cls", SELECTIONS, ids=lambda c: c.key)
def test_the_one_person_delta_by_simulation(cls):
    # 10⁶ independent decisions about a one-person group: kept with probability δ₀, within binomial sampling error
    s = cls(1.0, 2e-3)
    trials = 1_000_000
    kept = int(s.simulate(1, np.random.default_rng(7), trials).sum())
    p = s.keep_probability(1)
    assert abs(kept - trials * p) <= Z * math.sqrt(trials * p * (1 - p)), (kept, trials * p)
    secure = int(s.simulate(1, SecureGenerator(), trials).sum())
    assert abs(secure - trials * p) <= Z * math.sqrt(trials * p * (1 - p)), (secure, trials * p)


@pytest.mark.parametrize("cls", [LaplaceThresholding, GaussianThresholding], ids=lambda c: c.key)
def test_the_threshold_by_adding_the_noise(cls):
    # independent of keep_probability: add the noise to the counts and compare with τ, as the papers state it
    s = cls(1.0, 2e-3, 2)
    rng = np.random.default_rng(3)
    trials = 1_000_000
    if cls is LaplaceThresholding:
        noise = rng.laplace(scale=s.scale, size=trials)
    else:
        noise = rng.normal(scale=s.sigma, size=trials)
    for n in (1, 3, 8):
        hits = int(np.count_nonzero(n + noise > s.threshold))
        p = s.keep_probability(n)
        assert abs(hits - trials * p) <= Z * math.sqrt(trials * p * (1 - p)) + 1, (n, hits, trials * p)


def test_laplace_threshold_and_delta_are_inverse():
    for epsilon, delta, groups in [(1.0, 1e-5, 1), (0.2, 1e-9, 3), (4.0, 0.7, 2), (1.0, 0.4, 1)]:
        s = LaplaceThresholding(epsilon, delta, groups)
        back = LaplaceThresholding.from_threshold(epsilon, s.threshold, groups)
        assert back.delta == pytest.approx(delta, rel=1e-9) and back.threshold == pytest.approx(s.threshold, rel=1e-12)
    # τ = 1 + ln(1/(2δ))/ε for L₀ = 1
    assert LaplaceThresholding(0.5, 1e-6).threshold == pytest.approx(1 + math.log(1 / 2e-6) / 0.5, rel=1e-14)


# ---------------------------------------------------------------------------------------------- privacy of each


@pytest.mark.parametrize("cls", SELECTIONS, ids=lambda c: c.key)
@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-6), (1.0, 1e-5), (1.0, 1e-3), (5.0, 1e-8)])
def test_each_mechanism_is_epsilon_delta_dp_for_one_group(cls, epsilon, delta):
    # one group, sizes n − 1 and n (a person joins it; n − 1 = 0 is a group that does not exist without them): both
    # outputs (kept, dropped) must satisfy P ≤ e^ε P' + δ both ways
    s = cls(epsilon, delta)
    p = s.keep_probability(np.arange(0, 400))
    a, b = p[:-1], p[1:]
    e, d = math.exp(epsilon), s.delta_spent * (1 + 1e-9) + 1e-13  # 1 − p near 0 is known to 1e-16, times e^ε
    for x, y in ((a, b), (b, a)):
        assert np.all(y <= e * x + d), np.max(y - e * x)
        assert np.all(1 - y <= e * (1 - x) + d), np.max((1 - y) - e * (1 - x))


@pytest.mark.parametrize("epsilon, delta", GRID)
def test_the_optimal_mechanism_keeps_every_group_at_least_as_often(epsilon, delta):
    # Desfontaines et al. (2022): π(n) is the largest keep probability of any (ε, δ)-DP selection, at every n at
    # once; Laplace and Gaussian thresholding at the same (ε, δ) are such selections (L₀ = 1)
    n = np.arange(1, 101)
    best = OptimalSelection(epsilon, delta).keep_probability(n)
    for other in (LaplaceThresholding(epsilon, delta), GaussianThresholding(epsilon, delta)):
        assert np.all(other.keep_probability(n) <= best * (1 + 1e-12)), other.name
    laplace = LaplaceThresholding(epsilon, delta).keep_probability(n)
    assert np.any(best > laplace * (1 + 1e-9))  # and strictly more somewhere


def test_the_optimal_mechanism_keeps_more_groups_as_the_paper_reports():
    # the expected number of groups kept over a long-tailed set of group sizes (most groups small): more than Laplace
    sizes = np.random.default_rng(0).zipf(1.6, 20_000)
    for epsilon, delta in [(0.5, 1e-6), (1.0, 1e-5), (2.0, 1e-8)]:
        optimal = OptimalSelection(epsilon, delta).expected_kept(sizes)
        laplace = LaplaceThresholding(epsilon, delta).expected_kept(sizes)
        gaussian = GaussianThresholding(epsilon, delta).expected_kept(sizes)
        assert optimal > laplace and optimal > gaussian, (optimal, laplace, gaussian)
    # with several groups per person the split optimal still dominates Laplace (each group is (ε/L₀, δ₀)-DP)
    n = np.arange(1, 101)
    assert np.all(
        LaplaceThresholding(1.0, 1e-5, 4).keep_probability(n)
        <= OptimalSelection(1.0, 1e-5, 4).keep_probability(n) * (1 + 1e-12)
    )


# ---------------------------------------------------------------------------------------------- the protocol


@pytest.mark.parametrize("cls", SELECTIONS, ids=lambda c: c.key)
def test_the_protocol(cls):
    s = cls(1.0, 1e-5, 2)
    h = s.half_size
    assert s.keep_probability(h) >= 0.5 > s.keep_probability(h - 1)
    distinct = np.array([0, 1, 5, 40, 400, 0])
    kept = s.select(distinct, 1)
    assert kept.dtype == bool and kept.shape == (6,) and not kept[0] and not kept[5] and kept[4]
    np.testing.assert_array_equal(kept, s.select(distinct, 1))  # reproducible from a seed
    assert s.select(distinct, SecureGenerator()).shape == (6,)
    assert s.expected_kept(distinct) == pytest.approx(float(np.sum(s.keep_probability(distinct))))
    assert selection(cls.key, 1.0, 1e-5, 2) == s
    assert "L₀ = 2" in s.words() and s.name and s.source
    if cls is OptimalSelection:
        assert s.threshold is None and s.keep_probability(s.certain_from) == 1.0
    else:
        below, above = s.keep_probability([math.floor(s.threshold), math.ceil(s.threshold)])
        assert s.certain_from is None and below < 0.5 <= above  # the noisy count passes τ with probability ½ at τ


def test_a_draw_never_keeps_above_its_probability():
    # the 2⁻⁵³ grid is rounded down: a probability below one grid step is never kept
    s = OptimalSelection(1.0, 1e-17)
    assert not s.select(np.ones(1_000_000), 0).any()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: OptimalSelection(1.0, 1e-5, 0), "max_groups must be an integer in [1, 100000], got 0"),
        (lambda: LaplaceThresholding(1.0, 0.0), "delta must be in (0, 1), got 0.0"),
        (lambda: GaussianThresholding(1.0, 1.5), "delta must be in (0, 1), got 1.5"),
        (lambda: OptimalSelection(1.0, math.nan), "delta must be in (0, 1), got nan"),
        (lambda: OptimalSelection(-1.0, 1e-5), "epsilon must be in (0, inf), got -1.0"),
        (lambda: GaussianThresholding(1.0, 1e-5, 1, 1.0), "threshold_share must be in (0, 1), got 1.0"),
        (lambda: OptimalSelection(1.0, 1e-5).keep_probability([1, -2]), "distinct must hold whole numbers"),
        (lambda: OptimalSelection(1.0, 1e-5).keep_probability([1.5]), "distinct must hold whole numbers"),
        (lambda: OptimalSelection(1.0, 1e-5).keep_probability(["a"]), "distinct must hold whole numbers"),
        (lambda: selection("exponential", 1.0, 1e-5), "key must be one of 'optimal', "),
        (lambda: LaplaceThresholding.from_threshold(1.0, math.inf), "threshold must be finite, got inf"),
        (lambda: OptimalSelection(1.0, 1e-5).simulate(1, 0, 10**12), "trials must be an integer in [1, 10000000]"),
    ],
)
def test_bad_input_gets_one_sentence(call, message):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert str(info.value).startswith(message), str(info.value)
    assert "\n" not in str(info.value)


def test_keep_probabilities_agree_with_their_survival_functions():
    # Laplace: ½e^{−(τ−n)/b} below τ; Gaussian: Φ((n − τ)/σ) (scipy's laws)
    lap, gau = LaplaceThresholding(0.7, 1e-6, 3), GaussianThresholding(0.7, 1e-6, 3)
    n = np.arange(1, 200)
    np.testing.assert_allclose(lap.keep_probability(n), stats.laplace.sf(lap.threshold - n, scale=lap.scale), rtol=1e-9)
    np.testing.assert_allclose(gau.keep_probability(n), stats.norm.sf(gau.threshold - n, scale=gau.sigma), rtol=1e-9)


@pytest.mark.parametrize("cls", SELECTIONS, ids=lambda c: c.key)
def test_the_audit_of_one_group_stays_below_the_claim(cls):
    # x: a group of n persons, x′: one more (n at the pair nearest the claim): 10⁶ runs per input
    r = audit(f"{cls.key}_selection", 1.0, trials=10**6, rng=5)
    assert 0.75 <= r.epsilon_lower <= 1.0, r.summary
    assert r.delta == pytest.approx(1e-3, rel=1e-9)
