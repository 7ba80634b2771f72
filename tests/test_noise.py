"""The contract every additive noise mechanism (Laplace, Gaussian) shares through AdditiveNoise."""

import math

import numpy as np
import pytest

from dpcore import Gaussian, Laplace
from tests.tolerances import Z, variance_tolerance

MECHANISMS = [Laplace(scale=2.0), Gaussian(sigma=3.0)]


@pytest.mark.parametrize("m", MECHANISMS, ids=["laplace", "gaussian"])
def test_release_shapes_and_types(m):
    assert isinstance(m.simulate(1.0, 0), float) and isinstance(m.sample(0), float)
    assert m.simulate([1.0, 2.0], 0).shape == (2,)
    assert m.simulate(np.zeros((2, 3)), 0, trials=4).shape == (4, 2, 3)
    assert m.sample(0, size=(5,)).shape == (5,)


@pytest.mark.parametrize("m", MECHANISMS, ids=["laplace", "gaussian"])
def test_release_adds_centred_noise_with_the_stated_variance(m):
    trials = 40_000
    errors = m.simulate(np.array([10.0, -3.0]), np.random.default_rng(4), trials=trials) - np.array([10.0, -3.0])
    assert np.all(np.abs(errors.mean(axis=0)) < Z * math.sqrt(m.variance / trials))
    # Laplace has kurtosis 6: the sample variance's relative se is sqrt((kurtosis - 1)/n), not sqrt(2/n)
    rel = variance_tolerance(trials) * (math.sqrt(5 / 2) if isinstance(m, Laplace) else 1.0)
    np.testing.assert_allclose(errors.var(axis=0, ddof=1), m.variance, rtol=rel)


@pytest.mark.parametrize("m", MECHANISMS, ids=["laplace", "gaussian"])
def test_release_refuses_nan_and_bad_trials(m):
    with pytest.raises(ValueError, match="NaN"):
        m.simulate([1.0, math.nan], 0)
    with pytest.raises(ValueError, match="trials"):
        m.simulate(1.0, 0, trials=0)


@pytest.mark.parametrize("m", MECHANISMS, ids=["laplace", "gaussian"])
def test_same_seed_same_release(m):
    np.testing.assert_array_equal(
        m.simulate([1.0, 2.0], 9, trials=3), m.simulate([1.0, 2.0], np.random.default_rng(9), trials=3)
    )
