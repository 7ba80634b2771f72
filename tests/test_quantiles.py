"""dpcore.quantiles: the exponential mechanism over a declared range (Smith 2011), its law, its bounds, its privacy.

The law is checked against probabilities written from the definition (weight ∝ length · exp(ε u / (2Δu))); the
privacy by the exact output density of small data sets and all their neighbours; the error bound by simulation
with a tolerance from the binomial standard error; the publication by the law of the published grid points.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from dpcore import (
    ExponentialQuantile,
    dp_median,
    dp_quantile,
    publish,
    quantile_epsilon_for_accuracy,
    quantile_score_sensitivity,
)
from dpcore.audit import CATALOGUE, audit
from dpcore.limits import MAX_ELEMENTS, MAX_TRIALS
from dpcore.neighbours import ADD_REMOVE, REPLACE_ONE
from dpcore.randomness import Randomness
from tests.tolerances import Z

#: Small data sets with what makes the intervals interesting: ties, values at and beyond the bounds, a cluster.
DATA = {
    "distinct": [0.1, 0.35, 0.4, 0.72, 0.9],
    "ties": [0.3, 0.3, 0.3, 0.6, 0.6, 0.8],
    "clipped": [-2.0, 0.0, 0.5, 1.0, 7.0],
    "cluster": list(0.5 + 5e-8 * np.arange(21)),  # 21 values within 10⁻⁶ in a range of width 1
}


def _by_definition(values, q, lower, upper, epsilon, sensitivity):
    """Each positive-length interval's probability, written from the definition with no shift and no log."""
    z = np.sort(np.clip(values, lower, upper))
    edges = np.unique(np.concatenate(([lower], z, [upper])))
    weights = []
    for a, b in zip(edges[:-1], edges[1:]):
        rank = np.count_nonzero(z <= a)
        weights.append((b - a) * math.exp(epsilon * -abs(rank - q * z.size) / (2 * sensitivity)))
    return np.array(weights) / sum(weights)


# ---------------------------------------------------------------------- the law


@pytest.mark.parametrize("name", DATA)
@pytest.mark.parametrize("q", [0.5, 0.1, 0.9])
def test_interval_probabilities_follow_the_definition(name, q):
    m = ExponentialQuantile(2.0, 0.0, 1.0, q)
    law = m.intervals(DATA[name])
    want = _by_definition(DATA[name], q, 0.0, 1.0, 2.0, max(q, 1 - q))
    np.testing.assert_allclose(law.probabilities(), want, rtol=1e-12)
    assert np.all(law.right > law.left)  # ties leave no interval of length 0


@pytest.mark.parametrize("name", DATA)
def test_chosen_interval_has_the_exact_law_chi_square(name):
    law = ExponentialQuantile(1.5, 0.0, 1.0).intervals(DATA[name])
    p = law.probabilities()
    trials = 200_000
    counts = np.bincount(law.sample_index(np.random.default_rng(7), trials), minlength=p.size)
    keep = p * trials >= 5  # the chi-square approximation: merge the rare cells into one
    observed = np.append(counts[keep], counts[~keep].sum())
    expected = np.append(p[keep], p[~keep].sum()) * trials
    observed, expected = observed[expected > 0], expected[expected > 0]
    assert stats.chisquare(observed, expected).pvalue > 1e-6


def test_the_point_is_uniform_in_its_interval_and_the_density_is_the_law():
    law = ExponentialQuantile(1.0, 0.0, 1.0).intervals(DATA["ties"])
    draws = law.simulate(np.random.default_rng(3), 100_000)
    assert draws.min() >= 0.0 and draws.max() <= 1.0
    # the output's CDF is the law's closed form (Kolmogorov–Smirnov against it)
    assert stats.kstest(draws, law.cdf).pvalue > 1e-6
    # the density integrates to 1 and is the derivative of the CDF
    grid = np.linspace(0.0, 1.0, 200_001)
    dens = law.pdf(grid)
    assert np.trapezoid(dens, grid) == pytest.approx(1.0, abs=1e-3)
    assert law.cdf(1.0) == pytest.approx(1.0) and law.cdf(0.0) == 0.0
    mid = 0.5 * (law.left + law.right)
    h = 1e-7
    np.testing.assert_allclose((law.cdf(mid + h) - law.cdf(mid - h)) / (2 * h), law.pdf(mid), rtol=1e-5)


def test_an_empty_column_is_uniform_over_the_range_and_nan_is_refused_or_dropped_and_counted():
    law = ExponentialQuantile(1.0, 2.0, 5.0).intervals([])
    assert law.n == 0 and law.probabilities().tolist() == [1.0] and math.isnan(law.true_value)
    assert law.pdf(3.0) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match=r"values must not contain NaN, got 2 NaN value\(s\)"):
        ExponentialQuantile(1.0, 0.0, 1.0).intervals([0.5, np.nan, np.nan])
    law = ExponentialQuantile(1.0, 0.0, 1.0).intervals([0.5, np.nan, np.nan], nan="drop")
    assert law.n == 1 and law.dropped_nan == 2
    law = ExponentialQuantile(1.0, 0.0, 1.0).intervals([np.nan], nan="drop")
    assert law.n == 0 and law.dropped_nan == 1


def test_values_outside_the_range_are_clipped_to_it_and_counted():
    law = ExponentialQuantile(1.0, 0.0, 1.0).intervals(DATA["clipped"])
    assert (law.clipped_below, law.clipped_above) == (1, 1)
    assert law.sorted_values.tolist() == [0.0, 0.0, 0.5, 1.0, 1.0]
    assert law.true_value == 0.5


def test_truth_lies_in_the_closure_of_a_best_interval():
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 10, 11):
        for q in (0.0, 0.25, 0.5, 0.9, 1.0):
            law = ExponentialQuantile(1.0, -1.0, 2.0, q).intervals(rng.uniform(0, 1, n))
            best = np.flatnonzero(law.utility == law.utility.max())
            assert any(law.left[k] <= law.true_value <= law.right[k] for k in best), (n, q)


# ---------------------------------------------------------------------- the error and its bounds


def _exceed(law, bound):
    """The exact probability that the rank error is above ``bound``."""
    return float(law.probabilities()[-law.utility > bound].sum())


@pytest.mark.parametrize("name", DATA)
@pytest.mark.parametrize("epsilon", [0.5, 2.0, 8.0])
def test_rank_error_bound_holds_exactly_and_in_simulation(name, epsilon):
    confidence = 0.9
    law = ExponentialQuantile(epsilon, 0.0, 1.0).intervals(DATA[name])
    bound = law.rank_error_bound(confidence)
    assert _exceed(law, bound) <= 1 - confidence  # the exact law
    trials = 100_000
    _, rank_errors = law.simulate_errors(np.random.default_rng(11), trials)
    observed = np.mean(np.abs(rank_errors) > bound)
    # binomial standard error of a frequency of at most 1 − confidence
    assert observed <= (1 - confidence) + Z * math.sqrt(confidence * (1 - confidence) / trials)


def test_rank_error_bound_on_a_real_shaped_column_matches_simulation_within_sampling_error():
    ages = np.random.default_rng(5).integers(17, 91, 3_000).astype(float)  # whole years, many ties
    for epsilon in (0.05, 0.2, 1.0):
        law = ExponentialQuantile(epsilon, 0.0, 100.0).intervals(ages)
        bound = law.rank_error_bound(0.95)
        trials = 50_000
        value_errors, rank_errors = law.simulate_errors(np.random.default_rng(1), trials)
        se = math.sqrt(0.95 * 0.05 / trials)
        assert np.mean(np.abs(rank_errors) > bound) <= 0.05 + Z * se
        assert np.mean(np.abs(value_errors) > law.value_error_bound(0.95)) <= 0.05 + Z * se
        # the bound is not vacuous: it is below the number of values
        assert bound < ages.size / 2


def test_the_textbook_ln_n_plus_1_bound_fails_when_the_best_interval_is_short():
    """(2Δu/ε)(ln(n + 1) + t) assumes equal intervals: values crowded in a wide range break it; ours holds."""
    law = ExponentialQuantile(1.0, 0.0, 1.0).intervals(DATA["cluster"])
    confidence, n = 0.95, law.n
    naive = 2 * law.mechanism.sensitivity / 1.0 * (math.log(n + 1) - math.log1p(-confidence))
    assert _exceed(law, naive) > 1 - confidence  # the naive bound is exceeded far more often than 5%
    assert _exceed(law, law.rank_error_bound(confidence)) <= 1 - confidence


def test_value_error_bound_holds_exactly():
    for name, values in DATA.items():
        law = ExponentialQuantile(2.0, 0.0, 1.0).intervals(values)
        v = law.value_error_bound(0.9)
        # P(|Y − truth| > v) from the closed-form CDF
        outside = law.cdf(law.true_value - v) + 1 - law.cdf(law.true_value + v)
        assert outside <= 0.1 + 1e-12, name


def test_error_falls_as_epsilon_grows_exactly():
    # d/dβ E[u] = Var[u] ≥ 0 for p ∝ L e^{βu}: the expected rank error is non-increasing in ε
    for values in DATA.values():
        expected = []
        for eps in np.geomspace(0.01, 50, 40):
            law = ExponentialQuantile(float(eps), 0.0, 1.0).intervals(values)
            expected.append(float(np.dot(law.probabilities(), -law.utility)))
        assert np.all(np.diff(expected) <= 1e-12), expected
    laws = [ExponentialQuantile(e, 0.0, 1.0).intervals(DATA["ties"]) for e in (0.1, 1, 10)]
    uncapped = [law.uncapped_rank_error_bound() for law in laws]
    assert uncapped[0] > uncapped[1] > uncapped[2]
    bounds = [law.rank_error_bound() for law in laws]  # capped at the worst error, 3 ranks of 6 values: flat there
    assert bounds[0] >= bounds[1] > bounds[2]


def test_rank_error_bound_is_capped_at_the_largest_rank_error_of_any_output():
    """At a small ε the formula exceeds n (850 ranks for 342 penguins); the cap, max over outputs of |r − q·n|,
    holds with probability 1, and the capped bound still holds exactly. ~0.1 s."""
    values = np.random.default_rng(3).normal(44.0, 5.0, 342)
    for q in (0.5, 0.9):
        law = ExponentialQuantile(0.01, 32.0, 56.0, q).intervals(values)
        worst = float(np.max(np.abs(law.ranks - law.target)))  # every interval's rank error, from the ranks
        assert law.worst_rank_error == pytest.approx(worst)
        assert worst <= max(q, 1 - q) * law.n + 1e-9
        assert law.uncapped_rank_error_bound() > law.n  # the formula alone is vacuous here
        assert law.rank_error_bound() == pytest.approx(worst) and law.rank_error_capped()
        assert _exceed(law, law.rank_error_bound()) == 0.0
        with pytest.raises(ValueError, match=r"^accuracy must be below .* ranks \(no output's rank error is larger"):
            law.epsilon_for_accuracy(worst)
        big = law.at_epsilon(5.0)  # a large ε: the formula is below the cap and is the bound
        assert big.rank_error_bound() == big.uncapped_rank_error_bound() < worst and not big.rank_error_capped()


def test_data_free_shortfall_bound_covers_grid_data_and_inverts_exactly():
    ages = np.random.default_rng(2).integers(17, 91, 500).astype(float)  # on the grid of step 1 holding 0 and 100
    for eps in (0.1, 1.0):
        m = ExponentialQuantile(eps, 0.0, 100.0)
        law = m.intervals(ages)
        shortfall = law.rank_error_bound(0.95) - law.best_rank_error
        assert shortfall <= m.shortfall_bound(0.95, resolution=1.0) + 1e-9
    eps = quantile_epsilon_for_accuracy(40.0, 0.0, 100.0, 1.0, q=0.9, confidence=0.9)
    assert ExponentialQuantile(eps, 0.0, 100.0, 0.9).shortfall_bound(0.9, resolution=1.0) == pytest.approx(40.0)
    law = ExponentialQuantile(1.0, 0.0, 100.0).intervals(ages)
    target = law.best_rank_error + 25.0
    eps = law.epsilon_for_accuracy(target)
    assert replace(law.mechanism, epsilon=eps).intervals(ages).rank_error_bound() == pytest.approx(target)


def test_accuracy_below_the_rank_error_of_ties_is_refused_in_one_sentence():
    law = ExponentialQuantile(1.0, 0.0, 1.0).intervals([0.5] * 10)  # every output has rank error 5
    assert law.best_rank_error == 5.0
    with pytest.raises(ValueError, match=r"^accuracy must be above 5 ranks .*, got 3$"):
        law.epsilon_for_accuracy(3.0)


# ---------------------------------------------------------------------- privacy


def _neighbours_add_remove(values):
    yield from (values[:i] + values[i + 1 :] for i in range(len(values)))


def _max_log_ratio(m, x, y, grid):
    a, b = m.intervals(x), m.intervals(y)
    return float(np.max(np.abs(np.log(a.pdf(grid)) - np.log(b.pdf(grid)))))


def _grid(points):
    """Points on both sides of every possible interval end, and between."""
    near = np.concatenate([np.asarray(points) + d for d in (-1e-9, 1e-9)])
    return np.clip(np.concatenate([np.linspace(0.0, 1.0, 401), near]), 0.0, 1.0)


POINTS = [0.0, 0.2, 0.5, 0.9, 1.0, 1.5]  # 1.5 is clipped to the upper bound


@pytest.mark.parametrize("q", [0.5, 0.25, 0.9])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_exact_density_ratio_between_add_remove_neighbours_is_at_most_e_to_the_epsilon(q, epsilon):
    m = ExponentialQuantile(epsilon, 0.0, 1.0, q)
    grid = _grid(POINTS)
    worst = 0.0
    for size in range(1, 4):
        for data in itertools.combinations_with_replacement(POINTS, size):
            for smaller in _neighbours_add_remove(list(data)):
                worst = max(worst, _max_log_ratio(m, list(data), smaller, grid))
    assert worst <= epsilon * (1 + 1e-9)
    assert worst >= 0.4 * epsilon  # the check sees real changes of the law


def test_replace_one_neighbours_need_the_sensitivity_of_one():
    m = ExponentialQuantile(1.0, 0.0, 1.0, 0.5, REPLACE_ONE)
    assert m.sensitivity == 1.0 and quantile_score_sensitivity(0.5, ADD_REMOVE) == 0.5
    grid = _grid(POINTS)
    worst = 0.0
    for data in itertools.combinations_with_replacement(POINTS, 3):
        for i, other in itertools.product(range(3), POINTS):
            changed = list(data)
            changed[i] = other
            worst = max(worst, _max_log_ratio(m, list(data), changed, grid))
    assert 0.5 <= worst <= 1.0 + 1e-9


def test_the_audit_pair_is_near_worst_case_and_a_halved_sensitivity_breaks_privacy():
    m = ExponentialQuantile(1.0, 0.0, 1.0)
    grid = _grid([0.999])
    # x: one record at 0.999 of the range, x′: it and one at the upper bound: the ratio tends to e^ε
    ratio = _max_log_ratio(m, [0.999], [0.999, 1.0], grid)
    assert 0.99 <= ratio <= 1.0 + 1e-12
    expected = 0.5 - math.log(math.exp(-0.5) * 0.999 + math.exp(0.5) * 0.001)  # the closed form of the docstring
    assert ratio == pytest.approx(expected, rel=1e-9)
    broken = ExponentialQuantile(1.0, 0.0, 1.0)
    object.__setattr__(broken, "scale", 2 * broken.scale)  # Δu = ¼: the factor 2 of the exponential mechanism lost
    assert _max_log_ratio(broken, [0.999], [0.999, 1.0], grid) > 1.9


def test_the_catalogue_audit_stays_below_its_claim_and_reaches_most_of_it():
    spec = CATALOGUE["quantile"]
    assert spec.claim == "ε-DP" and "x′" in spec.describe_neighbours(dict(spec.params))
    bounds = [audit("quantile", 1.0, trials=20_000, rng=seed).epsilon_lower for seed in range(10)]
    assert max(bounds) <= 1.0, bounds
    r = audit("quantile", 1.0, trials=400_000, rng=3)
    # the pair's best threshold event has ratio ln(e^{1/2}/(0.95 e^{−1/2} + 0.05 e^{1/2})) = 0.918 ε
    assert 0.75 <= r.epsilon_lower <= 0.92, r.summary


# ---------------------------------------------------------------------- results, publication, house errors


def test_dp_quantile_and_dp_median_are_the_seeded_draw_of_the_law():
    values = np.random.default_rng(4).normal(40, 10, 1_000)
    r = dp_median(values, 0.0, 100.0, 1.0, 9)
    law = ExponentialQuantile(1.0, 0.0, 100.0).intervals(values)
    assert r.noisy_value == law.simulate(np.random.default_rng(9))
    assert r.true_value == pytest.approx(np.median(values)) and r.error == r.noisy_value - r.true_value
    assert r.epsilon == 1.0 and r.n == 1_000 and r.query == "quantile"
    assert dp_quantile(values, 0.5, 0.0, 100.0, 1.0, 9).noisy_value == r.noisy_value
    assert r.simulate(5, 0).shape == (5,)


def _grid_law(law, grid):
    """The exact law of the published grid point: each interval's probability shared by the cells it overlaps."""
    lower, upper = law.mechanism.lower, law.mechanism.upper
    steps = round((upper - lower) / grid)
    centres = lower + grid * np.arange(steps + 1)
    lo = np.maximum(centres - grid / 2, lower)
    hi = np.minimum(centres + grid / 2, upper)
    p = law.probabilities()
    overlap = np.clip(np.minimum(hi[:, None], law.right) - np.maximum(lo[:, None], law.left), 0, None)
    return centres, overlap @ (p / (law.right - law.left))


def test_a_publication_draws_the_grid_points_with_the_exact_law():
    values, grid = [0.3, 0.3, 0.6, 0.7], 0.125
    law = ExponentialQuantile(1.0, 0.0, 1.0).intervals(values)
    centres, p = _grid_law(law, grid)
    draws = [publish.publish_quantile(values, 0.5, 0.0, 1.0, 1.0, grid=grid).value for _ in range(4_000)]
    counts = np.array([np.count_nonzero(np.isclose(draws, c)) for c in centres])
    assert counts.sum() == len(draws)  # every published value is a grid point
    assert stats.chisquare(counts, p * len(draws)).pvalue > 1e-6


def test_a_publication_is_a_release_of_declared_facts_drawn_fresh():
    values = np.append(np.random.default_rng(0).integers(17, 91, 500).astype(float), np.nan)
    a = publish.publish_quantile(values, 0.5, 0.0, 100.0, 1.0, grid=0.5)
    b = publish.publish_quantile(values, 0.5, 0.0, 100.0, 1.0, grid=0.5)
    assert a.randomness is Randomness.PUBLICATION and a.relation is ADD_REMOVE
    assert (a.query, a.labels, a.epsilon, a.delta) == ("quantile", ("median",), 1.0, 0.0)
    assert a.value % 0.5 == 0 and 0.0 <= a.value <= 100.0
    names = {f.name: (f.value, f.source) for f in a.public}
    assert names["grid of the published value"] == ("0.5", "declared")
    assert names["lower bound of the range"] == ("0", "declared")
    draws = {publish.publish_quantile(values, 0.5, 0.0, 100.0, 1.0).value for _ in range(20)}
    assert len(draws) > 1 and b.labels == ("median",)  # fresh secure draws
    fixed = {f.name: f.source for f in publish.publish_quantile(values, 0.9, 0.0, 100.0, 1.0).public}
    assert fixed["grid of the published value"] == "fixed"
    assert publish.publish_quantile(values, 0.9, 0.0, 100.0, 1.0).labels == ("0.9-quantile",)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: ExponentialQuantile(0.0, 0.0, 1.0), ValueError, r"epsilon must be in \(0, inf\), got 0\.0"),
        (lambda: ExponentialQuantile(1.0, 1.0, 0.0), ValueError, r"lower must be below upper, got lower=1\.0"),
        (lambda: ExponentialQuantile(1.0, 0.0, 1.0, 1.5), ValueError, r"q must be in \[0, 1\], got 1\.5"),
        (lambda: ExponentialQuantile(1.0, 0.0, 1.0, True), TypeError, r"q must be a real number in \[0, 1\]"),
        (lambda: ExponentialQuantile(1.0, 0.0, 1.0, 0.5, "x"), TypeError, r"relation must be"),
        (
            lambda: ExponentialQuantile(1.0, 0.0, 1.0).intervals([1.0, np.inf]),
            ValueError,
            r"values must be finite, got 1 infinite value\(s\)",
        ),
        (lambda: ExponentialQuantile(1.0, 0.0, 1.0).intervals(["a"]), TypeError, r"values must be numeric"),
        (lambda: ExponentialQuantile(1.0, 0.0, 1.0).intervals([1.0], nan="skip"), ValueError, r"nan must be one of"),
        (
            lambda: ExponentialQuantile(1.0, 0.0, 1.0).intervals(np.broadcast_to(0.0, (MAX_ELEMENTS + 1,))),
            ValueError,
            rf"values must be at most {MAX_ELEMENTS}",
        ),
        (
            lambda: ExponentialQuantile(1.0, 0.0, 1.0).simulate([0.5], 0, MAX_TRIALS + 1),
            ValueError,
            r"trials must be an integer in \[1, 10000000\]",
        ),
        (
            lambda: ExponentialQuantile(1.0, 0.0, 1.0).shortfall_bound(resolution=2.0),
            ValueError,
            r"resolution must be in \(0, 1\] \(upper - lower\), got 2",
        ),
        (lambda: quantile_epsilon_for_accuracy(0.0, 0.0, 1.0, 0.1), ValueError, r"accuracy must be in \(0, inf\)"),
        (
            lambda: publish.publish_quantile([0.5], 0.5, 0.0, 1.0, 1.0, grid=2.0),
            ValueError,
            r"grid must be in \[2\.22045e-16, 1\] \(the range's width\), got 2",
        ),
        (lambda: publish.publish_quantile([0.5], 0.5, 0.0, 1.0, 1.0, grid=-1.0), ValueError, r"grid must be in"),
    ],
)
def test_house_errors_in_one_sentence(call, error, message):
    with pytest.raises(error, match=message):
        call()
