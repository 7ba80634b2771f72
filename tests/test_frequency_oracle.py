"""Contract every frequency oracle (GRR, SUE, OUE) must satisfy."""

import math

import numpy as np
import pytest

from dpcore import GRR, OUE, SUE
from tests.tolerances import Z, variance_tolerance

ORACLES = [GRR, SUE, OUE]
COUNTS = np.array([400, 250, 150, 100, 60, 30, 10, 0])  # n = 1000, k = 8


@pytest.mark.parametrize("cls", ORACLES)
def test_estimate_inverts_expected_support(cls):
    m = cls(1.3, 8)
    n = COUNTS.sum()
    # E[support_v] = c_v p + (n - c_v) q, and the estimator is affine in support
    expected_support = COUNTS * m.p + (n - COUNTS) * m.q
    np.testing.assert_allclose(m.estimate(expected_support, n), COUNTS, rtol=0, atol=1e-9)


@pytest.mark.parametrize("cls", ORACLES)
def test_variance_matches_direct_binomial_sum(cls):
    m = cls(0.7, 8)
    n = COUNTS.sum()
    direct = (COUNTS * m.p * (1 - m.p) + (n - COUNTS) * m.q * (1 - m.q)) / (m.p - m.q) ** 2
    np.testing.assert_allclose(m.variance(COUNTS), direct, rtol=1e-12)


@pytest.mark.parametrize("cls", ORACLES)
def test_simulate_is_unbiased_with_stated_variance(cls):
    m = cls(1.0, 8)
    trials = 20_000
    sims = m.simulate(COUNTS, np.random.default_rng(1), trials=trials)
    assert sims.shape == (trials, 8)
    var = m.variance(COUNTS)
    assert np.all(np.abs(sims.mean(axis=0) - COUNTS) < Z * np.sqrt(var / trials))
    np.testing.assert_allclose(sims.var(axis=0, ddof=1), var, rtol=variance_tolerance(trials))


@pytest.mark.parametrize("cls", ORACLES)
def test_per_user_path_is_unbiased_with_stated_variance(cls):
    m = cls(1.0, 8)
    values = np.repeat(np.arange(8), COUNTS)
    rng = np.random.default_rng(2)
    trials = 3_000
    est = np.array([m.estimate(m.support(m.perturb(values, rng)), values.size) for _ in range(trials)])
    var = m.variance(COUNTS)
    assert np.all(np.abs(est.mean(axis=0) - COUNTS) < Z * np.sqrt(var / trials))
    np.testing.assert_allclose(est.var(axis=0, ddof=1), var, rtol=variance_tolerance(trials))


@pytest.mark.parametrize("cls", ORACLES)
def test_simulate_and_per_user_path_agree(cls):
    m = cls(2.0, 8)
    values = np.repeat(np.arange(8), COUNTS)
    rng = np.random.default_rng(3)
    t1, t2 = 3_000, 20_000
    per_user = np.array([m.estimate(m.support(m.perturb(values, rng)), values.size) for _ in range(t1)])
    sims = m.simulate(COUNTS, rng, trials=t2)
    var = m.variance(COUNTS)
    assert np.all(np.abs(per_user.mean(axis=0) - sims.mean(axis=0)) < Z * np.sqrt(var / t1 + var / t2))
    ratio = per_user.var(axis=0, ddof=1) / sims.var(axis=0, ddof=1)
    assert np.all(np.abs(ratio - 1) < Z * np.sqrt(2 / (t1 - 1) + 2 / (t2 - 1)))


@pytest.mark.parametrize("cls", ORACLES)
def test_error_bound_is_normal_quantile_of_std(cls):
    m = cls(1.0, 8)
    # 1.959963984540054 = Phi^-1(0.975)
    np.testing.assert_allclose(m.error_bound(COUNTS, 0.95), 1.959963984540054 * np.sqrt(m.variance(COUNTS)))


@pytest.mark.parametrize("cls", ORACLES)
@pytest.mark.parametrize("eps,k", [(60.0, 10_000), (1e-6, 10_000), (60.0, 2), (700.0, 16)])
def test_extreme_parameters_stay_finite(cls, eps, k):
    m = cls(eps, k)
    assert 0 <= m.q < m.p <= 1 and m.p_minus_q > 0
    counts = np.zeros(k, dtype=int)
    counts[0] = 1000
    assert np.all(np.isfinite(m.variance(counts)))
    assert np.all(np.isfinite(m.simulate(counts, 0, trials=3)))


@pytest.mark.parametrize("cls", ORACLES)
def test_seed_and_generator_give_the_same_draws(cls):
    m = cls(1.0, 8)
    a = m.simulate(COUNTS, 42, trials=5)
    b = m.simulate(COUNTS, np.random.default_rng(42), trials=5)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("cls", ORACLES)
@pytest.mark.parametrize(
    "kwargs,exc,words",
    [
        ({"epsilon": 0.0, "k": 4}, ValueError, ["epsilon", "(0, inf)", "0.0"]),
        ({"epsilon": -1.0, "k": 4}, ValueError, ["epsilon", "-1.0"]),
        ({"epsilon": math.nan, "k": 4}, ValueError, ["epsilon", "nan"]),
        ({"epsilon": math.inf, "k": 4}, ValueError, ["epsilon", "inf"]),
        ({"epsilon": "1", "k": 4}, TypeError, ["epsilon"]),
        ({"epsilon": 1.0, "k": 1}, ValueError, ["k", "[2, inf]", "1"]),
        ({"epsilon": 1.0, "k": 2.5}, ValueError, ["k", "integer", "2.5"]),
        ({"epsilon": 1.0, "k": True}, TypeError, ["k"]),
    ],
)
def test_invalid_parameters_are_refused_with_a_clear_sentence(cls, kwargs, exc, words):
    with pytest.raises(exc) as info:
        cls(**kwargs)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("cls", ORACLES)
@pytest.mark.parametrize(
    "values,words", [([0, 4], ["values", "[0, 4)", "4"]), ([-1, 0], ["-1"]), ([0.5], ["0.5"]), ([np.nan], ["nan"])]
)
def test_values_outside_the_domain_are_refused(cls, values, words):
    with pytest.raises(ValueError) as info:
        cls(1.0, 4).perturb(np.array(values), 0)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("cls", ORACLES)
def test_bad_trials_and_counts_are_refused(cls):
    m = cls(1.0, 3)
    with pytest.raises(ValueError, match="trials"):
        m.simulate([1, 2, 3], 0, trials=0)
    with pytest.raises(ValueError, match="true_counts"):
        m.simulate([1, 2], 0)
    with pytest.raises(ValueError, match="true_counts"):
        m.variance([1, -2, 3])
    with pytest.raises(TypeError, match="rng"):
        m.simulate([1, 2, 3], "seed")


@pytest.mark.parametrize("k", [6, 14, 100])
def test_grr_crossover_matches_the_variances(k):
    eps_star = GRR.grr_crossover_epsilon(k)
    # just below the crossover OUE is better for a value with count 0, just above GRR is
    counts = np.zeros(k, dtype=int)
    counts[0] = 10_000
    below, above = eps_star * 0.98, eps_star * 1.02
    assert GRR(below, k).variance(counts)[1] > OUE(below, k).variance(counts)[1]
    assert GRR(above, k).variance(counts)[1] < OUE(above, k).variance(counts)[1]
    assert GRR.grr_crossover_epsilon(5) == 0.0


def test_error_pdf_is_the_normal_density_with_the_exact_variance():
    m = OUE(1.0, 8)
    x = np.array([0.0, 10.0])
    sd = np.sqrt(m.variance(COUNTS))
    expected = np.exp(-0.5 * (x[:, None] / sd) ** 2) / (sd * np.sqrt(2 * np.pi))
    np.testing.assert_allclose(m.error_pdf(x, COUNTS), expected, rtol=1e-12)
