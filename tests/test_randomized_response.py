import math

import numpy as np
import pytest

from dpcore import COIN_FLIP_EPSILON, GRR, coin_flip_response, coin_flip_rr
from tests.privacy_check import assert_within_epsilon, worst_log_ratio
from tests.tolerances import Z


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0])
@pytest.mark.parametrize("k", [2, 3, 14, 100])
def test_p_q_match_wang_et_al_and_recover_epsilon(eps, k):
    m = GRR(eps, k)
    # Wang et al. 2017, Sec. 4.1: p = e^eps/(e^eps+k-1), q = 1/(e^eps+k-1)
    assert m.p == pytest.approx(math.exp(eps) / (math.exp(eps) + k - 1), rel=1e-13)
    assert m.q == pytest.approx(1 / (math.exp(eps) + k - 1), rel=1e-13)
    assert math.log(m.p / m.q) == pytest.approx(eps, rel=1e-12)
    assert m.p + (k - 1) * m.q == pytest.approx(1.0, rel=1e-13)
    assert m.p_minus_q == pytest.approx(m.p - m.q, rel=1e-9)


def test_perturb_report_distribution():
    m = GRR(1.5, 5)
    n = 200_000
    reports = m.perturb(np.full(n, 2), np.random.default_rng(7))
    freq = np.bincount(reports, minlength=5) / n
    expected = np.where(np.arange(5) == 2, m.p, m.q)
    assert np.all(np.abs(freq - expected) < Z * np.sqrt(expected * (1 - expected) / n))


def test_estimates_sum_to_n_on_both_paths():
    # every GRR report supports exactly one value, and (n - k n q)/(p - q) = n
    m = GRR(0.8, 6)
    counts = np.array([5, 50, 500, 0, 7, 38])
    sims = m.simulate(counts, 0, trials=50)
    np.testing.assert_allclose(sims.sum(axis=1), counts.sum(), rtol=1e-12)
    values = np.repeat(np.arange(6), counts)
    est = m.estimate(m.support(m.perturb(values, 1)), values.size)
    assert est.sum() == pytest.approx(counts.sum(), rel=1e-12)


def test_simulate_covariance_matches_per_user_path():
    # GRR supports are dependent (one report per user): check the joint law too.
    m = GRR(1.0, 3)
    counts = np.array([300, 200, 100])
    values = np.repeat(np.arange(3), counts)
    rng = np.random.default_rng(11)
    t = 4_000
    per_user = np.array([m.estimate(m.support(m.perturb(values, rng)), 600) for _ in range(t)])
    sims = m.simulate(counts, rng, trials=40_000)
    c_user, c_sim = np.cov(per_user.T)[0, 1], np.cov(sims.T)[0, 1]
    # sample covariance se ~ sqrt((var0 var1 + cov^2)/t)
    v = m.variance(counts)
    se = np.sqrt((v[0] * v[1] + c_sim**2) * (1 / t + 1 / 40_000))
    assert abs(c_user - c_sim) < Z * se
    assert c_sim < 0


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_empirical_privacy_on_neighbouring_values(eps):
    m = GRR(eps, 4)
    rng = np.random.default_rng(5)
    n = 400_000
    a = m.perturb(np.zeros(n, dtype=int), rng)
    b = m.perturb(np.ones(n, dtype=int), rng)
    assert_within_epsilon(a, b, 4, eps)


def test_empirical_privacy_check_catches_a_mechanism_weaker_than_claimed():
    claimed = 0.5
    m = GRR(2 * claimed, 4)
    rng = np.random.default_rng(6)
    a = m.perturb(np.zeros(200_000, dtype=int), rng)
    b = m.perturb(np.ones(200_000, dtype=int), rng)
    ratio, se = worst_log_ratio(a, b, 4)
    assert ratio > claimed + Z * se


def test_coin_flip_is_grr_with_epsilon_ln3():
    m = coin_flip_rr()
    assert COIN_FLIP_EPSILON == pytest.approx(math.log(3), rel=1e-15)
    assert (m.k, m.p, m.q) == (2, pytest.approx(0.75, rel=1e-14), pytest.approx(0.25, rel=1e-14))


def test_coin_flip_answers_have_the_grr_law():
    n = 200_000
    rng = np.random.default_rng(9)
    yes = coin_flip_response(np.ones(n, dtype=bool), rng).mean()
    no = coin_flip_response(np.zeros(n, dtype=bool), rng).mean()
    m = coin_flip_rr()
    se = np.sqrt(0.75 * 0.25 / n)
    assert abs(yes - m.p) < Z * se and abs(no - m.q) < Z * se
    grr_yes = (m.perturb(np.ones(n, dtype=int), rng) == 1).mean()
    assert abs(yes - grr_yes) < Z * se * np.sqrt(2)


def test_coin_flip_refuses_non_binary_answers():
    with pytest.raises(ValueError, match="truth"):
        coin_flip_response([0, 2], 0)
