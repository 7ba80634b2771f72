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


# --------------------------------------------------------------------------- rounding to what the noise allows


def test_release_step_is_whole_units_for_a_count_and_a_decade_below_a_tenth_of_the_std_otherwise():
    from dpcore.postprocess import release_step

    assert release_step(1e-3, whole=True) == release_step(1e6, whole=True) == 1.0
    for std in (0.0532, 1.0, 9.99, 10.0, 1234.5):
        step = release_step(std)
        assert step <= std / 10 < 10 * step  # the largest power of ten at most std/10
        assert np.log10(step) == round(np.log10(step))
    assert release_step(float("nan")) is None and release_step(0.0) is None


def test_error_step_follows_the_smallest_stated_error():
    """A number stated with several errors (a mean at its planned n and at its released count) is rounded for the
    smallest: the Adult mean stated ±1.48 at the page's planned 1,000 and ±0.0455 at 32,561 is rounded to 0.001
    (at most 1.1% of the smaller error), not to the 0.1 the planned one alone gives (more than its whole noise)."""
    from dpcore.postprocess import error_step, round_release

    for errors in ((1.48, 0.0455), (0.0455, 1.48), (5.99,), (0.1, 0.1), (1e-7, None, float("nan")), (3e5, 2e4)):
        step = error_step(*errors)
        smallest = min(e for e in errors if e is not None and np.isfinite(e))
        assert step <= smallest / 10 < 10 * step  # the largest power of ten at most a tenth of the smallest
        assert np.log10(step) == round(np.log10(step))
        assert abs(round_release(38.56156208201108, step) - 38.56156208201108) <= step / 2 <= smallest / 20
    assert error_step(1.48, 0.0455) == 0.001 and error_step(1.48) == 0.1
    assert error_step() is None and error_step(None, 0.0, float("nan"), -1.0) is None


def test_rounding_costs_at_most_a_small_share_of_the_noise_variance():
    from dpcore import Laplace
    from dpcore.postprocess import release_step, round_release

    rng = np.random.default_rng(3)
    noise = Laplace.from_epsilon(0.7, sensitivity=3.3)
    true = 1234.56789
    draws = noise.simulate(true, rng, trials=200_000)
    step = release_step(noise.std)
    rounded = np.asarray(round_release(draws, step))
    assert np.all(np.abs(rounded - draws) <= step / 2 + 1e-9)
    assert np.allclose(rounded / step, np.round(rounded / step))
    # a rounding error of at most step/2 ≤ std/20 adds at most (std/20)² to the variance: 0.25%
    assert np.var(rounded - true) <= np.var(draws - true) * (1 + 0.0025) + (step / 2) ** 2


def test_round_up_writes_epsilon_with_four_significant_digits_never_below_the_exact_value():
    from dpcore.postprocess import round_up

    for exact in (2.9999999945214664, 0.123449, 0.12345678, 1e-6, 7.0, 1234567.0, 3.0000000001):
        written = round_up(exact)
        assert written >= exact * (1 - 1e-12)
        assert len(f"{written:.10g}".replace(".", "").replace("-", "").lstrip("0").split("e")[0].rstrip("0")) <= 4
    assert round_up(2.9999999945214664) == 3.0 and round_up(0.12345678) == 0.1235 and round_up(1e-6) == 1e-6
