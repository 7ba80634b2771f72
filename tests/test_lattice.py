"""dpcore.lattice: the grid, the rounding's sensitivity, the guarantee kept, and the release's law."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpcore import Gaussian, Laplace, dp_count, families, gaussian_delta
from dpcore.discrete import DiscreteGaussian
from dpcore.lattice import GRID_BITS, SAMPLERS, _round_to_grid, lattice_draw, lattice_grid, lattice_mechanism
from tests.tolerances import Z


def test_grid_closed_form():
    # g = 2^(⌊log₂ min(Δ, s)⌋ − 10)
    assert lattice_grid(1.0, 1.0) == 2.0**-10
    assert lattice_grid(10.0, 100.0) == 2.0 ** (3 - GRID_BITS)
    assert lattice_grid(1.0, 0.3) == 2.0 ** (-2 - GRID_BITS)
    # Gaussian: coarsened so that σ/g < 2^14
    g = lattice_grid(1.0, 400.0, gaussian=True)
    assert 400.0 / g < 2**14 and g == 2.0 ** (8 - 13)


def test_rounding_is_exact_and_sensitivity_is_ceil():
    # |⌊a/g + ½⌋ − ⌊b/g + ½⌋| ≤ ⌈|a − b|/g⌉, also at the half-way points where float rounding would bite
    rng = np.random.default_rng(0)
    g = 2.0**-10
    sens = 0.1  # not a multiple of g: Δ_g = ⌈0.1·1024⌉ = 103
    units = math.ceil(Fraction(sens) / Fraction(g))
    a = rng.uniform(-1e6, 1e6, size=200_000)
    a[:1000] = (np.round(a[:1000] / g) + 0.5) * g  # exactly half-way
    b = a + rng.uniform(-sens, sens, size=a.size)
    b[:500] = a[:500] + sens
    gap = np.abs(_round_to_grid(a, g) - _round_to_grid(b, g))
    assert gap.max() <= units
    n = _round_to_grid(a[:1000], g)
    assert np.all(n == np.floor(a[:1000] / g) + 1)  # half-way rounds up


def test_laplace_lattice_keeps_epsilon_and_costs_little():
    for eps, sens in [(1.0, 1.0), (0.1, 10.0), (0.37, 0.1), (3.0, 2.5)]:
        mech = Laplace.from_epsilon(eps, sens)
        lat = lattice_mechanism(mech)
        assert lat.epsilon <= eps
        assert lat.epsilon == lat.sensitivity_units / lat.noise.scale  # ε' = Δ_g/t
        bound = (1 + lat.grid / sens) * (1 + 1 / lat.noise.scale)
        # Var = 1/(2 sinh²(1/(2t))) = 2t² − 1/6 + O(t⁻²): a hair below the continuous 2t² at the same scale
        assert 1.0 - 1.0 / lat.noise.scale**2 <= lat.noise_inflation <= bound
    exact = lattice_mechanism(Laplace.from_epsilon(1.0, 1.0))  # Δ a multiple of g: nothing lost
    assert exact.epsilon == 1.0 and exact.sensitivity_units == 1024 and "unchanged" in exact.cost


@pytest.mark.parametrize("eps,delta,sens", [(1.0, 1e-5, 1.0), (0.1, 1e-6, 10.0), (2.0, 1e-3, 0.1), (1.0, 1e-5, 3.0)])
def test_gaussian_lattice_keeps_epsilon_delta_and_rho(eps, delta, sens):
    mech = Gaussian.from_epsilon_delta(eps, delta, sens)
    lat = lattice_mechanism(mech)
    n = lat.noise.sigma2
    assert lat.epsilon == eps and lat.delta <= delta
    assert lat.delta == lat.noise.delta_for_epsilon(eps, lat.sensitivity_units)
    assert lat.rho <= mech.zcdp_rho * (1 + 1e-12)
    if n > math.ceil((Fraction(mech.sigma) * lat.sensitivity_units / Fraction(sens)) ** 2):
        # raised above the ρ-preserving start: then it is the smallest that fits
        assert DiscreteGaussian(n - 1).delta_for_epsilon(eps, lat.sensitivity_units) > delta
    assert 1.0 <= lat.noise_inflation <= 1.0 + 2 * lat.grid / sens + 1e-4


def test_gaussian_lattice_from_sigma_keeps_rho():
    mech = Gaussian.from_zcdp(0.5, sensitivity=2.0)
    lat = lattice_mechanism(mech)
    assert lat.epsilon is None and lat.delta is None
    assert lat.rho <= 0.5 and lat.rho == pytest.approx(0.5, rel=1e-6)


def test_classic_calibration_is_released_with_its_true_delta():
    # the classic σ at ε ≥ 1 may miss δ; the lattice searches σ_g for the δ asked for
    with pytest.warns(UserWarning):
        mech = Gaussian.from_epsilon_delta(3.0, 1e-5, calibration="classic")
    lat = lattice_mechanism(mech)
    assert lat.delta <= 1e-5


def test_release_values_lie_on_the_grid_and_follow_the_law():
    mech = Laplace.from_epsilon(1.0)
    lat = lattice_mechanism(mech)
    value = 41.37
    out = lat.simulate(value, np.random.default_rng(1), 200_000)
    steps = out / lat.grid
    assert np.all(steps == np.floor(steps))
    z = (steps - _round_to_grid(np.array(value), lat.grid)).astype(np.int64)
    # the integer noise is discrete Laplace of scale t: |Z| is geometric, P[|Z| ≥ k] = 2r^k/(1 + r)
    r = math.exp(-1 / lat.noise.scale)
    for k in (0, 512, 1024, 3072):
        p = 1.0 if k == 0 else 2 * r**k / (1 + r)
        assert abs(np.mean(np.abs(z) >= k) - p) <= Z * math.sqrt(p * (1 - p) / z.size) + 1e-12
    assert stats.kstest(z / lat.noise.scale, "laplace").pvalue > 1e-6  # and its shape is Laplace's


def test_lattice_draw_api():
    q = dp_count(np.zeros(100), 1.0, 0)
    r = lattice_draw(q.mechanism, q.true_value, rng=3)
    assert isinstance(r.value, float) and r.value / r.grid == round(r.value / r.grid)
    assert r.epsilon == 1.0 and r.delta == 0.0
    v = lattice_draw(Gaussian.from_epsilon_delta(1.0, 1e-5), [1.0, 2.0, 3.0], rng=3)
    assert v.value.shape == (3,) and v.delta <= 1e-5
    assert lattice_draw(mechanism=Laplace.from_epsilon(1.0), values=5.0, rng=7).value == (
        lattice_draw(Laplace.from_epsilon(1.0), 5.0, rng=7).value
    )


def test_lattice_draw_refuses_bad_input():
    with pytest.raises(TypeError, match="mechanism must be a Laplace or Gaussian mechanism, got str"):
        lattice_draw("laplace", 1.0, rng=0)
    with pytest.raises(ValueError, match="values must not contain NaN"):
        lattice_draw(Laplace.from_epsilon(1.0), [1.0, float("nan")], rng=0)
    with pytest.raises(ValueError, match="values must be below"):
        lattice_draw(Laplace.from_epsilon(1.0), 1e300, rng=0)


def test_lattice_epsilon_matches_the_float_one_on_the_audit():
    # cross-check with the continuous law: the discrete δ at the lattice's σ_g agrees with the analytic one
    lat = lattice_mechanism(Gaussian.from_epsilon_delta(1.0, 1e-5))
    sigma_units = math.sqrt(lat.noise.sigma2)
    assert gaussian_delta(sigma_units, 1.0, lat.sensitivity_units) == pytest.approx(1e-5, rel=1e-2)


# ---------------------------------------------------------------------- the publication hook (dpcore.families)


def _a_release_of(f):
    """One mechanism of family ``f`` (an oracle answers 3 values)."""
    return f.counts(1.0, 3, delta=1e-5).mechanism


@pytest.mark.parametrize("f", list(families.FAMILIES.values()), ids=list(families.FAMILIES))
def test_each_family_publishes_with_the_sampler_it_registered_or_is_refused(f):
    mech = _a_release_of(f)
    if f.lattice is None:  # simulated here, not published: the house TypeError naming those that publish
        published = " or ".join(g.name for g in families.FAMILIES.values() if g.lattice is not None)
        with pytest.raises(TypeError, match=f"^mechanism must be a {published} mechanism, got {type(mech).__name__}$"):
            lattice_mechanism(mech)
        return
    lat = lattice_mechanism(mech)
    # the exact noise it names is the law it gets ("discrete Laplace" -> DiscreteLaplace), and the claim is kept
    assert type(lat.noise).__name__ == f.lattice.title().replace(" ", "")
    assert lat.source is mech and lat.epsilon <= mech.epsilon * (1 + 1e-12)
    assert (lat.delta or 0.0) <= (f.delta(1e-5) or 0.0)


def test_every_sampler_is_some_familys_and_every_hook_has_a_sampler():
    hooks = {f.lattice for f in families.FAMILIES.values() if f.lattice is not None}
    assert hooks == set(SAMPLERS)


def test_the_lattice_path_asks_the_registry_not_the_mechanism_classes():
    # lattice_mechanism found the noise with isinstance(Laplace/Gaussian); the family's hook says it now
    import ast
    import inspect

    import dpcore.lattice

    tree = ast.parse(inspect.getsource(dpcore.lattice))
    calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert "isinstance" not in calls and "hasattr" not in calls
