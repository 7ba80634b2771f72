import math

import numpy as np
import pytest

from dpcore.accounting import advanced_composition, basic_composition
from dpcore.accounting.composition import advanced_composition_curve


def test_basic_composition_reference_pure():
    # published: eps0 = 0.1, k = 100 -> basic 10
    eps, delta = basic_composition([0.1] * 100)
    assert eps == pytest.approx(10.0, rel=1e-12)
    assert delta == 0.0


def test_basic_composition_adds_epsilons_and_deltas():
    eps, delta = basic_composition([0.5, 1.0, 0.25], [1e-6, 0.0, 2e-6])
    assert eps == pytest.approx(1.75, rel=1e-15)
    assert delta == pytest.approx(3e-6, rel=1e-12)


def test_basic_composition_caps_delta_at_one():
    assert basic_composition([1.0, 1.0], [0.7, 0.6])[1] == 1.0


def test_advanced_composition_reference_drv():
    # published: eps0 = 0.1, k = 100, delta' = 1e-5 -> 5.850 (DRV 2010, Thm III.3)
    eps, delta = advanced_composition(0.1, 0.0, 100, 1e-5)
    assert round(eps, 3) == 5.850
    # sqrt(2 k ln(1/delta')) eps0 + k eps0 (e^eps0 - 1)
    assert eps == pytest.approx(math.sqrt(200 * math.log(1e5)) * 0.1 + 10 * math.expm1(0.1), rel=1e-14)
    assert delta == pytest.approx(1e-5, rel=1e-15)


def test_advanced_composition_delta_is_k_delta_plus_slack():
    assert advanced_composition(0.5, 1e-7, 30, 1e-6)[1] == pytest.approx(30 * 1e-7 + 1e-6, rel=1e-12)


def test_advanced_beats_basic_only_for_many_releases():
    # sqrt(2 k ln(1/d')) eps + k eps (e^eps - 1) < k eps  <=>  k > 2 ln(1/d') / (1 - (e^eps - 1))^2
    eps0, slack = 0.1, 1e-5
    k_cross = 2 * math.log(1 / slack) / (1 - math.expm1(eps0)) ** 2
    below, above = math.floor(k_cross), math.ceil(k_cross)
    assert advanced_composition(eps0, 0.0, below, slack)[0] > below * eps0
    assert advanced_composition(eps0, 0.0, above, slack)[0] < above * eps0


def test_advanced_curve_matches_scalar_and_is_increasing():
    ks = np.arange(1, 2001)
    curve = advanced_composition_curve(0.2, ks, 1e-6)
    for k in (1, 7, 500, 2000):
        assert curve[k - 1] == pytest.approx(advanced_composition(0.2, 0.0, k, 1e-6)[0], rel=1e-15)
    assert np.all(np.diff(curve) > 0)


@pytest.mark.parametrize(
    "args, message",
    [
        ((-1.0, 0.0, 10, 1e-5), r"epsilon must be in \(0, inf\), got -1.0"),
        ((0.1, 1.0, 10, 1e-5), r"delta must be in \[0, 1\), got 1.0"),
        ((0.1, 0.0, 0, 1e-5), r"k must be an integer in \[1, 10000000\], got 0"),
        ((0.1, 0.0, 2.5, 1e-5), r"k must be an integer, got 2.5"),
        ((0.1, 0.0, 10, 0.0), r"delta_slack must be in \(0, 1\), got 0.0"),
        ((0.1, 0.0, 10, 1.0), r"delta_slack must be in \(0, 1\), got 1.0"),
    ],
)
def test_advanced_composition_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        advanced_composition(*args)


def test_basic_composition_bad_input():
    with pytest.raises(ValueError, match=r"epsilons must be in \[0, inf\), got -0.5"):
        basic_composition([1.0, -0.5])
    with pytest.raises(ValueError, match=r"deltas must have one entry per epsilon \(2\), got 1"):
        basic_composition([1.0, 0.5], [1e-6])
    with pytest.raises(ValueError, match=r"deltas must be in \[0, 1\), got 1.5"):
        basic_composition([1.0], [1.5])
    with pytest.raises(ValueError, match="at least one"):
        basic_composition([])
    with pytest.raises(TypeError):
        basic_composition(["a"])
