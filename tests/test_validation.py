import math

import numpy as np
import pytest

from dpcore import validation as v


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf])
def test_check_epsilon_refuses(bad):
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, inf\), got"):
        v.check_epsilon(bad)


@pytest.mark.parametrize("bad", ["1", None, True, [1.0]])
def test_check_epsilon_type_errors(bad):
    with pytest.raises(TypeError, match="epsilon"):
        v.check_epsilon(bad)


def test_check_epsilon_accepts_numpy_scalars():
    assert v.check_epsilon(np.float32(0.5)) == 0.5


@pytest.mark.parametrize("bad", [0, 1, -0.1, 1.5, math.nan])
def test_check_delta_refuses(bad):
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        v.check_delta(bad)


def test_check_int():
    assert v.check_int(3.0, "k", minimum=2) == 3
    assert v.check_int(np.int64(7), "k") == 7
    with pytest.raises(ValueError, match=r"k must be an integer in \[2, inf\], got 1"):
        v.check_int(1, "k", minimum=2)
    with pytest.raises(ValueError, match="integer"):
        v.check_int(2.5, "k")
    with pytest.raises(TypeError):
        v.check_int(False, "k")


def test_check_bounds():
    assert v.check_bounds(0, 1) == (0.0, 1.0)
    with pytest.raises(ValueError, match="lower must be below upper, got lower=2.0 and upper=1.0"):
        v.check_bounds(2, 1)


def test_check_bounds_refuses_a_width_that_overflows():
    # two finite bounds whose difference is inf: every (x − lower)/width would be 0 or NaN downstream
    with pytest.raises(ValueError, match=r"upper - lower must be finite, got lower=-1e\+308 and upper=1e\+308"):
        v.check_bounds(-1e308, 1e308)
    with pytest.raises(ValueError, match=r"hi - lo must be finite, got lo=-1\.7e\+308 and hi=1e\+308"):
        v.check_bounds(-1.7e308, 1e308, "lo", "hi")
    # the widest finite width is accepted: 1e308 − (−1e308/2) = 1.5e308 < 1.797e308
    assert v.check_bounds(-0.5e308, 1e308) == (-0.5e308, 1e308)


def test_check_choice_lists_valid_names():
    with pytest.raises(ValueError, match="'a', 'b'"):
        v.check_choice("c", "method", ["a", "b"])


def test_check_numeric_array_nan_modes():
    arr, dropped = v.check_numeric_array([1.0, math.nan, 2.0], nan="drop")
    assert dropped == 1 and arr.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="NaN"):
        v.check_numeric_array([1.0, math.nan])
    with pytest.raises(ValueError, match="infinite"):
        v.check_numeric_array([1.0, math.inf])
    with pytest.raises(ValueError, match="at least one"):
        v.check_numeric_array([])
    with pytest.raises(TypeError, match="numeric"):
        v.check_numeric_array(["a", "b"])


def test_check_category_values():
    assert v.check_category_values(np.array([0.0, 2.0]), 3).dtype == np.int64
    with pytest.raises(TypeError):
        v.check_category_values(np.array(["a"]), 3)
    with pytest.raises(ValueError, match="shape"):
        v.check_category_values(np.zeros((2, 2), dtype=int), 3)


def test_as_generator():
    g = np.random.default_rng(1)
    assert v.as_generator(g) is g
    assert v.as_generator(5).random() == np.random.default_rng(5).random()
    with pytest.raises(ValueError, match="seed"):
        v.as_generator(-1)
    with pytest.raises(TypeError, match="rng"):
        v.as_generator(1.5)


def test_check_positive_array_scalars_and_arrays():
    assert v.check_positive_array(2, "rho") == 2.0 and isinstance(v.check_positive_array(2, "rho"), float)
    assert v.check_positive_array(np.array(0.5), "rho") == 0.5
    np.testing.assert_array_equal(v.check_positive_array([1, 2.5], "rho"), [1.0, 2.5])
    with pytest.raises(ValueError, match=r"rho must be in \(0, inf\), got 0.0"):
        v.check_positive_array([1.0, 0.0], "rho")
    with pytest.raises(ValueError, match=r"rho must be in \(0, inf\), got nan"):
        v.check_positive_array(math.nan, "rho")
    with pytest.raises(TypeError, match="rho must be a real number"):
        v.check_positive_array(True, "rho")
    with pytest.raises(TypeError, match="rho must hold real numbers in \\(0, inf\\), got dtype bool"):
        v.check_positive_array([True, False], "rho")
    with pytest.raises(TypeError, match="dtype <U1"):
        v.check_positive_array(["a"], "rho")


def test_check_nonnegative_array_accepts_zero():
    assert v.check_nonnegative_array(0, "epsilon") == 0.0
    np.testing.assert_array_equal(v.check_nonnegative_array([0, 3], "epsilon"), [0.0, 3.0])
    with pytest.raises(ValueError, match=r"epsilon must be in \[0, inf\), got inf"):
        v.check_nonnegative_array([1.0, math.inf], "epsilon")
    with pytest.raises(ValueError, match=r"epsilon must be in \[0, inf\), got -1.0"):
        v.check_nonnegative_array(-1, "epsilon")
