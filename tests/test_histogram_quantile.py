"""The quantile read off a noisy histogram: the post-processing, its noise (the histogram's), its simulation."""

import numpy as np
import pytest
from scipy import stats

from dpcore import families
from dpcore.histogram_quantile import dp_histogram_quantile, quantile_from_counts
from dpcore.queries import RELATION

EDGES = np.array([0.0, 10.0, 20.0, 30.0, 40.0])


def test_the_crossing_bin_and_the_linear_point_inside_it():
    # cumulative 5, 10, 15, 20; q·total = 0.3·20 = 6 lies in bin 1, (6 − 5)/5 of its width: 10 + 2 = 12
    assert quantile_from_counts([5.0, 5.0, 5.0, 5.0], EDGES, 0.3) == pytest.approx(12.0)
    # negative noisy counts count as 0: [0, 4, 0, 4], q·total = 4 is reached at the end of bin 1
    assert quantile_from_counts([-2.0, 4.0, -1.0, 4.0], EDGES, 0.5) == pytest.approx(20.0)
    assert quantile_from_counts([5.0, 5.0, 5.0, 5.0], EDGES, 0.0) == pytest.approx(0.0)
    assert quantile_from_counts([5.0, 5.0, 5.0, 5.0], EDGES, 1.0) == pytest.approx(40.0)


def test_no_positive_count_gives_the_middle_of_the_range_and_rows_are_independent():
    out = quantile_from_counts([[-1.0, -2.0, 0.0, -3.0], [0.0, 0.0, 8.0, 0.0]], EDGES, 0.5)
    assert out.tolist() == [20.0, 25.0]


def test_refuses_counts_that_do_not_match_the_bins():
    with pytest.raises(ValueError, match="one count per bin"):
        quantile_from_counts([1.0, 2.0], EDGES, 0.5)
    with pytest.raises(ValueError, match="q must be"):
        quantile_from_counts([1.0] * 4, EDGES, 1.5)


def test_the_noise_is_the_histograms_under_the_query_relation():
    values = np.random.default_rng(0).uniform(0, 100, 500)
    for f in families.central():
        r = dp_histogram_quantile(values, 0.5, 0.0, 100.0, 20, 0.7, 1, mechanism=f.key, delta=f.delta(1e-6))
        expected = f.noise(0.7, f.histogram_sensitivity(RELATION), f.delta(1e-6))
        assert r.mechanism.std == pytest.approx(expected.std)
        assert r.edges.tolist() == np.linspace(0.0, 100.0, 21).tolist()  # the declared bins, not the data's


def test_with_little_noise_the_error_is_within_one_bin():
    values = np.random.default_rng(1).normal(50, 10, 5_000)
    for q in (0.1, 0.5, 0.9):
        r = dp_histogram_quantile(values, q, 0.0, 100.0, 50, 1e6, 2)
        assert abs(r.noisy_value - np.quantile(values, q)) <= 100.0 / 50  # the bin width


def test_simulate_draws_the_law_of_single_releases():
    # two-sample KS between 2,000 vectorised draws and 2,000 releases each from its own seed; a law with another
    # noise scale (ε doubled, the control) is told apart
    values = np.random.default_rng(3).exponential(20, 400)
    one = dp_histogram_quantile(values, 0.5, 0.0, 100.0, 25, 0.2, 0)
    sims = one.simulate(2_000, np.random.default_rng(4))
    singles = [dp_histogram_quantile(values, 0.5, 0.0, 100.0, 25, 0.2, s).noisy_value for s in range(2_000)]
    assert stats.ks_2samp(sims, singles).pvalue > 1e-3
    other = dp_histogram_quantile(values, 0.5, 0.0, 100.0, 25, 0.05, 0).simulate(2_000, np.random.default_rng(4))
    assert stats.ks_2samp(other, singles).pvalue < 1e-6


def test_at_another_epsilon_is_the_release_at_that_epsilon():
    # the noise recalibrated by dp_histogram itself, the true counts kept: the same law as a release at that ε
    values = np.random.default_rng(5).exponential(20, 400)
    for f in families.central():
        delta = f.delta(1e-6)
        base = dp_histogram_quantile(values, 0.5, 0.0, 100.0, 25, 1.0, 0, mechanism=f.key, delta=delta)
        moved = base.at_epsilon(0.3, np.random.default_rng(6), delta=delta)
        fresh = dp_histogram_quantile(values, 0.5, 0.0, 100.0, 25, 0.3, 0, mechanism=f.key, delta=delta)
        assert moved.mechanism.std == pytest.approx(fresh.mechanism.std) and moved.mechanism.std > base.mechanism.std
        assert moved.histogram.true_value.tolist() == fresh.histogram.true_value.tolist()
        a = moved.simulate(2_000, np.random.default_rng(7))
        b = fresh.simulate(2_000, np.random.default_rng(8))
        assert stats.ks_2samp(a, b).pvalue > 1e-3
