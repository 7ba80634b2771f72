import numpy as np
import pytest

from dpcore import OUE, project_to_histogram


def test_projection_is_a_valid_histogram_and_satisfies_kkt():
    rng = np.random.default_rng(0)
    m = OUE(0.5, 20)
    counts = rng.integers(0, 50, size=20)
    est = m.simulate(counts, rng, trials=200)
    proj = project_to_histogram(est, counts.sum())
    assert np.all(proj >= 0)
    np.testing.assert_allclose(proj.sum(axis=1), counts.sum(), rtol=1e-12)
    # KKT of min ||x - est||^2 on the simplex: positive entries shifted by one theta, zeros below it
    for e, x in zip(est, proj):
        theta = (e - x)[x > 0]
        np.testing.assert_allclose(theta, theta[0], atol=1e-9)
        assert np.all(e[x == 0] <= theta[0] + 1e-9)


def test_valid_histogram_is_left_unchanged():
    h = np.array([3.0, 0.0, 7.0])
    np.testing.assert_allclose(project_to_histogram(h, 10), h)


def test_small_example_by_hand():
    # [5, -3, 2, 10] to total 10: theta = 2.5 keeps 5 and 10 -> [2.5, 0, 0, 7.5]
    np.testing.assert_allclose(project_to_histogram([5, -3, 2, 10], 10), [2.5, 0, 0, 7.5])


def test_bad_input():
    with pytest.raises(ValueError, match="n"):
        project_to_histogram([1, 2], -1)
    with pytest.raises(ValueError, match="finite"):
        project_to_histogram([1, np.nan], 1)
