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
        ({"epsilon": 1.0, "k": 1}, ValueError, ["k", "[2, 100000]", "1"]),
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


# ---------------------------------------------------------------- ε from the accuracy wanted


@pytest.mark.parametrize("cls", ORACLES)
@pytest.mark.parametrize("value", [None, 0, 3, 7])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.999])
def test_epsilon_for_accuracy_inverts_error_bound(cls, value, confidence):
    for accuracy in (80.0, 150.0, 1_000.0, 1e5):  # above OUE's floor z sqrt(400) <= 66 for these confidences
        eps = cls.epsilon_for_accuracy(accuracy, COUNTS, confidence, value)
        bounds = cls(eps, 8).error_bound(COUNTS, confidence)
        got = bounds.max() if value is None else bounds[value]
        assert got == pytest.approx(accuracy, rel=1e-9)


@pytest.mark.parametrize("cls", ORACLES)
def test_epsilon_for_accuracy_decreases_with_the_accuracy_asked(cls):
    targets = np.geomspace(60.0, 1e6, 40)
    eps = [cls.epsilon_for_accuracy(t, COUNTS) for t in targets]
    assert np.all(np.diff(eps) < 0)
    # and error_bound decreases in ε: the inverse is of a monotone function
    bounds = [cls(e, 8).error_bound(COUNTS).max() for e in np.geomspace(0.01, 20.0, 40)]
    assert np.all(np.diff(bounds) < 0)


def test_epsilon_for_accuracy_closed_forms():
    n, z = 1000, 1.959963984540054  # Φ⁻¹(0.975)
    # SUE: Var = n / (4 sinh²(ε/4)), so ε = 4 asinh(z sqrt(n) / (2t))
    assert SUE.epsilon_for_accuracy(100.0, COUNTS) == pytest.approx(4 * math.asinh(z * math.sqrt(n) / 200), rel=1e-12)
    # OUE: Var = n / sinh²(ε/2) + c, so ε = 2 asinh(sqrt(n / ((t/z)² − c)))
    c = 400
    assert OUE.epsilon_for_accuracy(100.0, COUNTS, value=0) == pytest.approx(
        2 * math.asinh(math.sqrt(n / ((100 / z) ** 2 - c))), rel=1e-12
    )
    # GRR: Var = n (e^ε + k − 2)/(e^ε − 1)² + c (k − 2)/(e^ε − 1) (Wang et al. 2017, Sec. 4.1 with the count term)
    eps = GRR.epsilon_for_accuracy(100.0, COUNTS, value=0)
    e = math.exp(eps)
    var = n * (e + 8 - 2) / (e - 1) ** 2 + c * (8 - 2) / (e - 1)
    assert z * math.sqrt(var) == pytest.approx(100.0, rel=1e-12)


def test_epsilon_for_accuracy_takes_the_largest_error_by_default():
    # the error grows with the count (1 − p − q >= 0), so the default is the largest count's ε
    for cls in (GRR, OUE):
        assert cls.epsilon_for_accuracy(200.0, COUNTS) == cls.epsilon_for_accuracy(200.0, COUNTS, value=0)
        assert cls.epsilon_for_accuracy(200.0, COUNTS, value=7) < cls.epsilon_for_accuracy(200.0, COUNTS, value=0)
    # SUE's error is the same for every value
    assert SUE.epsilon_for_accuracy(200.0, COUNTS, value=7) == pytest.approx(SUE.epsilon_for_accuracy(200.0, COUNTS))


def test_oue_accuracy_has_a_floor():
    # OUE keeps a holder's bit with probability 1/2 at any ε: Var -> c, the error never falls below z sqrt(c)
    z = 1.959963984540054
    floor = z * math.sqrt(400)
    with pytest.raises(ValueError, match=rf"accuracy must be in \({floor:.6g}, inf\) for OUE on a count of 400"):
        OUE.epsilon_for_accuracy(floor, COUNTS)
    assert OUE(60.0, 8).error_bound(COUNTS)[0] == pytest.approx(floor, rel=1e-12)  # the limit as ε -> ∞
    # just above it, a large but finite ε; GRR and SUE have no floor
    assert 10 < OUE.epsilon_for_accuracy(floor * 1.0001, COUNTS) < 60
    assert GRR.epsilon_for_accuracy(1.0, COUNTS) > 0 and SUE.epsilon_for_accuracy(1.0, COUNTS) > 0


@pytest.mark.parametrize(
    "args, exc, message",
    [
        ((0.0, COUNTS), ValueError, r"accuracy must be in \(0, inf\), got 0.0"),
        ((10.0, [5]), ValueError, r"true_counts must be a 1-D array of at least 2 counts, got shape \(1,\)"),
        ((10.0, [0, 0, 0]), ValueError, "true_counts must sum to at least 1, got 0"),
        ((10.0, [1, -1]), ValueError, "true_counts must hold non-negative integers"),
        ((10.0, COUNTS, 0.95, 8), ValueError, r"value must be an integer in \[0, 7\], got 8"),
        ((10.0, COUNTS, 1.0), ValueError, r"confidence must be in \(0, 1\), got 1.0"),
    ],
)
@pytest.mark.parametrize("cls", ORACLES)
def test_epsilon_for_accuracy_bad_input(cls, args, exc, message):
    with pytest.raises(exc, match=message):
        cls.epsilon_for_accuracy(*args)
