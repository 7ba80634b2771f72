"""dpcore.discrete: exact Bernoulli(exp(−γ)), discrete Laplace and discrete Gaussian samplers and laws."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpcore import gaussian_delta
from dpcore.discrete import (
    DiscreteGaussian,
    DiscreteLaplace,
    _log_gauss_normaliser,
    bernoulli_exp,
    sample_discrete_gaussian,
    sample_discrete_laplace,
)
from tests.tolerances import Z

# A χ² goodness-of-fit p-value below this is a 5-sigma event (the suite's Z): the test fails.
P_FLOOR = 2 * stats.norm.sf(Z)


def _chi2_pvalue(draws, log_pmf, support):
    """χ² test of ``draws`` against the exact law on ``support`` (the rest pooled into one cell)."""
    n = draws.size
    probs = np.exp(log_pmf(support))
    counts = np.array([np.count_nonzero(draws == v) for v in support])
    observed = np.append(counts, n - counts.sum())
    expected = np.append(probs, max(1.0 - probs.sum(), 0.0)) * n
    keep = expected > 0
    return stats.chisquare(observed[keep], expected[keep] * observed[keep].sum() / expected[keep].sum()).pvalue


class _IntegersOnly(np.random.Generator):
    """A generator that refuses every floating-point draw: the exact samplers may only use ``integers``."""

    def _refuse(self, *args, **kwargs):
        raise AssertionError("a floating-point draw was made")

    random = standard_exponential = normal = uniform = exponential = laplace = _refuse


@pytest.mark.parametrize("num,den", [(0, 1), (1, 3), (1, 1), (3, 2), (7, 2), (5, 1)])
def test_bernoulli_exp_frequency(num, den):
    rng = np.random.default_rng(1)
    n = 200_000
    p = math.exp(-num / den)
    freq = bernoulli_exp(np.full(n, num), den, rng).mean()
    assert abs(freq - p) <= Z * math.sqrt(p * (1 - p) / n) + 1e-12


def test_bernoulli_exp_with_huge_integers_is_exact_in_law():
    # γ = 3·2⁷⁰ / 2⁷¹ = 1.5 with numbers beyond int64: the Python-int path
    rng = np.random.default_rng(2)
    n = 20_000
    freq = bernoulli_exp(np.full(n, 3 * 2**70, dtype=object), 2**71, rng).mean()
    assert abs(freq - math.exp(-1.5)) <= Z * math.sqrt(math.exp(-1.5) * (1 - math.exp(-1.5)) / n)
    assert not bernoulli_exp(10**30, 1, rng)


def test_bernoulli_exp_refuses_negative_gamma():
    with pytest.raises(ValueError, match="num must be in"):
        bernoulli_exp(-1, 2, 0)


def test_samplers_use_integer_draws_only():
    rng = _IntegersOnly(np.random.PCG64(3))
    assert sample_discrete_laplace(rng, 5, size=1_000).dtype == np.int64
    assert sample_discrete_gaussian(rng, Fraction(9, 4), size=1_000).dtype == np.int64
    with pytest.raises(AssertionError):  # the guard works: a float draw is caught
        rng.random()


@pytest.mark.parametrize("scale", [1, 3, 10])
def test_discrete_laplace_follows_its_law(scale):
    law = DiscreteLaplace(scale)
    draws = law.sample(np.random.default_rng(4), 200_000)
    support = np.arange(-8 * scale, 8 * scale + 1)
    assert _chi2_pvalue(draws, law.log_pmf, support) > P_FLOOR


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 7.0])
def test_discrete_laplace_on_a_fine_dyadic_scale_follows_its_law(epsilon):
    """The scales exact AboveThreshold draws (dpcore.svt.exact_above_threshold_scales): ``t / 2^32`` with ``t`` near
    2^34..2^37, so the sampler's ``scale_den`` is far from 1; the law ``∝ exp(−|y|/b)`` with the rational ``b``."""
    from dpcore.svt import exact_above_threshold_scales

    for b in exact_above_threshold_scales(epsilon):
        assert b.denominator > 1 or epsilon == 1.0
        draws = sample_discrete_laplace(np.random.default_rng(9), b.numerator, 100_000, scale_den=b.denominator)
        scale = float(b)

        def log_pmf(y, scale=scale):
            return math.log(math.tanh(0.5 / scale)) - np.abs(np.asarray(y, dtype=np.float64)) / scale

        half = int(8 * scale) + 2
        assert _chi2_pvalue(draws, log_pmf, np.arange(-half, half + 1)) > P_FLOOR


def test_discrete_laplace_chi2_catches_a_wrong_scale():
    # negative control: draws of scale 3 tested against the law of scale 3.3 (an integer-free law) fail
    draws = DiscreteLaplace(3).sample(np.random.default_rng(4), 200_000)
    wrong = lambda y: math.log(math.tanh(0.5 / 3.3)) - np.abs(y) / 3.3  # noqa: E731
    assert _chi2_pvalue(draws, wrong, np.arange(-24, 25)) < P_FLOOR


@pytest.mark.parametrize("sigma2", [Fraction(1, 4), Fraction(5, 2), 9, Fraction(121, 3)])
def test_discrete_gaussian_follows_its_law(sigma2):
    law = DiscreteGaussian(sigma2)
    draws = law.sample(np.random.default_rng(5), 200_000)
    half = int(6 * law.sigma) + 2
    assert _chi2_pvalue(draws, law.log_pmf, np.arange(-half, half + 1)) > P_FLOOR


def test_discrete_gaussian_chi2_catches_a_wrong_variance():
    draws = DiscreteGaussian(Fraction(5, 2)).sample(np.random.default_rng(5), 200_000)
    assert _chi2_pvalue(draws, DiscreteGaussian(Fraction(11, 4)).log_pmf, np.arange(-12, 13)) < P_FLOOR


def test_large_scales_sample_with_the_right_variance():
    rng = np.random.default_rng(6)
    n = 200_000
    for law in (DiscreteLaplace(2**20), DiscreteGaussian(3_000**2)):
        v = np.var(law.sample(rng, n).astype(np.float64))
        # sample variance: relative se sqrt((κ − 1)/n) with kurtosis κ = 6 (Laplace) or 3 (Gaussian)
        kappa = 6.0 if isinstance(law, DiscreteLaplace) else 3.0
        assert abs(v / law.variance - 1) <= Z * math.sqrt((kappa - 1) / n)


def test_laws_are_normalised_and_variances_match_closed_forms():
    y = np.arange(-400, 401)
    lap = DiscreteLaplace(7)
    assert np.exp(lap.log_pmf(y)).sum() == pytest.approx(1.0, abs=1e-12)
    # Var = 2r/(1 − r)², r = e^{−1/t}
    r = math.exp(-1 / 7)
    assert lap.variance == pytest.approx(2 * r / (1 - r) ** 2, rel=1e-12)
    for s2 in (0.3, 1.0, 7.5, Fraction(10, 3)):
        g = DiscreteGaussian(s2)
        assert np.exp(g.log_pmf(y)).sum() == pytest.approx(1.0, abs=1e-12)
        direct = math.log(np.sum(np.exp(-(y.astype(float) ** 2) / (2 * float(s2)))))
        assert _log_gauss_normaliser(Fraction(s2)) == pytest.approx(direct, abs=1e-13)
        assert g.variance <= float(s2) + 1e-12  # CKS 2020, Proposition 19


@pytest.mark.parametrize("sigma2,eps,sens", [(2, 0.5, 1), (Fraction(9, 4), 1.0, 2), (30, 2.0, 3)])
def test_discrete_gaussian_delta_matches_cks_theorem_7(sigma2, eps, sens):
    # δ = P[Y > εσ²/Δ − Δ/2] − e^ε P[Y > εσ²/Δ + Δ/2], summed in 50-digit arithmetic over |y| ≤ 200
    mpmath.mp.dps = 50
    s2 = mpmath.mpf(Fraction(sigma2).numerator) / Fraction(sigma2).denominator
    w = {y: mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * s2)) for y in range(-200, 201)}
    norm = sum(w.values())
    a = eps * s2 / sens - mpmath.mpf(sens) / 2
    tail = lambda c: sum(v for y, v in w.items() if y > c) / norm  # noqa: E731
    want = float(tail(a) - mpmath.e**eps * tail(a + sens))
    assert DiscreteGaussian(sigma2).delta_for_epsilon(eps, sens) == pytest.approx(want, rel=1e-9)


def test_discrete_gaussian_delta_approaches_the_continuous_one():
    # on a fine grid (σ, Δ in the thousands) the discrete and continuous δ(ε) agree closely
    sigma, sens = 3_820.0, 1_024
    for eps in (0.5, 1.0, 2.0):
        d = DiscreteGaussian(round(sigma**2)).delta_for_epsilon(eps, sens)
        assert d == pytest.approx(gaussian_delta(sigma, eps, sens), rel=1e-3)


def test_zcdp_and_epsilon_closed_forms():
    assert DiscreteGaussian(8).zcdp_rho(2) == 0.25  # Δ²/(2σ²) = 4/16
    assert DiscreteLaplace(4).epsilon(2) == 0.5  # Δ/t


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: DiscreteLaplace(0), "scale must be an integer in [1, inf], got 0"),
        (lambda: DiscreteGaussian(-1.0), "sigma2 must be in (0, inf), got -1.0"),
        (lambda: DiscreteGaussian(0), "sigma2 must be in (0, inf), got 0.0"),
        (
            lambda: sample_discrete_laplace(0, 3, scale_den=0),
            "scale_den must be an integer in [1, 4611686018427387904], got 0",
        ),
    ],
)
def test_bad_parameters(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message
