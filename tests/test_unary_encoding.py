import math

import numpy as np
import pytest

from dpcore import OUE, SUE
from tests.privacy_check import assert_within_epsilon, worst_log_ratio
from tests.tolerances import Z


def _loss(m):
    # two bits change between neighbouring values: ln(p(1-q)/((1-p)q)) (Wang et al. 2017, Thm. 3)
    return math.log(m.p * (1 - m.q) / ((1 - m.p) * m.q))


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0])
def test_sue_p_q_and_epsilon(eps):
    m = SUE(eps, 14)
    # SUE: p = e^(eps/2)/(e^(eps/2)+1), q = 1/(e^(eps/2)+1): p > 1/2 > q, never inverted
    assert m.p == pytest.approx(math.exp(eps / 2) / (math.exp(eps / 2) + 1), rel=1e-13)
    assert m.q == pytest.approx(1 / (math.exp(eps / 2) + 1), rel=1e-13)
    assert m.p > 0.5 > m.q
    assert _loss(m) == pytest.approx(eps, rel=1e-9)


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0])
def test_oue_p_q_and_epsilon(eps):
    m = OUE(eps, 14)
    # OUE: p = 1/2, q = 1/(e^eps+1)
    assert m.p == 0.5
    assert m.q == pytest.approx(1 / (math.exp(eps) + 1), rel=1e-13)
    assert _loss(m) == pytest.approx(eps, rel=1e-9)
    assert m.p_minus_q == pytest.approx(m.p - m.q, rel=1e-9)


def test_oue_has_lower_variance_than_sue_for_rare_values():
    # Wang et al. 2017, Sec. 4.4: OUE's variance n 4e^eps/(e^eps-1)^2 is optimal among unary encodings
    counts = np.zeros(14, dtype=int)
    counts[0] = 1000
    for eps in [0.5, 1.0, 3.0]:
        assert OUE(eps, 14).variance(counts)[1] < SUE(eps, 14).variance(counts)[1]
        n = 1000
        assert OUE(eps, 14).variance(counts)[1] == pytest.approx(n * 4 * math.exp(eps) / math.expm1(eps) ** 2)


@pytest.mark.parametrize("cls", [SUE, OUE])
def test_bit_frequencies(cls):
    m = cls(1.0, 4)
    n = 100_000
    bits = m.perturb(np.full(n, 1), np.random.default_rng(3))
    assert bits.shape == (n, 4) and bits.dtype == bool
    freq = bits.mean(axis=0)
    expected = np.array([m.q, m.p, m.q, m.q])
    assert np.all(np.abs(freq - expected) < Z * np.sqrt(expected * (1 - expected) / n))
    # bits are independent: joint frequency of two q-bits is q^2
    both = (bits[:, 0] & bits[:, 2]).mean()
    assert abs(both - m.q**2) < Z * np.sqrt(m.q**2 * (1 - m.q**2) / n)


def _pattern(bits):
    # encode each 3-bit report as an integer event in [0, 8)
    return bits[:, 0] * 4 + bits[:, 1] * 2 + bits[:, 2] * 1


@pytest.mark.parametrize("cls", [SUE, OUE])
@pytest.mark.parametrize("eps", [0.5, 1.5])
def test_empirical_privacy_on_neighbouring_values(cls, eps):
    m = cls(eps, 3)
    rng = np.random.default_rng(17)
    n = 400_000
    a = _pattern(m.perturb(np.zeros(n, dtype=int), rng))
    b = _pattern(m.perturb(np.ones(n, dtype=int), rng))
    assert_within_epsilon(a, b, 8, eps)


def test_empirical_privacy_check_catches_a_mechanism_weaker_than_claimed():
    claimed = 0.5
    m = OUE(2 * claimed, 3)
    rng = np.random.default_rng(19)
    a = _pattern(m.perturb(np.zeros(200_000, dtype=int), rng))
    b = _pattern(m.perturb(np.ones(200_000, dtype=int), rng))
    ratio, se = worst_log_ratio(a, b, 8)
    assert ratio > claimed + Z * se


@pytest.mark.parametrize("cls", [SUE, OUE])
def test_reports_must_be_boolean_k_columns(cls):
    m = cls(1.0, 3)
    with pytest.raises(ValueError, match="shape"):
        m.support(np.zeros((4, 2), dtype=bool))
    with pytest.raises(TypeError, match="bool"):
        m.support(np.zeros((4, 3), dtype=int))


def test_threshold_ends_give_exact_one_hot_reports():
    # at eps = 2000, p rounds to 1 and q to 0: thresholds 2^32 and 0 must mean "always" and "never"
    values = np.array([0, 2, 1, 2])
    bits = SUE(2000.0, 3).perturb(values, 0)
    np.testing.assert_array_equal(bits, np.eye(3, dtype=bool)[values])
