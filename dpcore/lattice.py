"""Floating-point-safe release: round the answer to a power-of-two grid, add grid × exact integer noise.

The textbook Laplace sampler ``x + b·ln(u)`` on doubles leaves holes: most
doubles it outputs on input ``x`` cannot be produced on a neighbouring ``x'``,
so a single output can reveal the input (Mironov 2012, "On Significance of the
Least Significant Bits for Differential Privacy", CCS; see
:func:`dpcore.audit.floating_point_attack`). A lattice release has no such
holes: with grid ``g = 2^k``,

    ``release = g · (round(f(x)/g) + Z)``,

where ``Z`` is an exact discrete Laplace or discrete Gaussian draw
(:mod:`dpcore.discrete`). ``f(x)/g`` is exact (a power-of-two scaling) and the
rounding is exact on doubles, so the release is a deterministic function of the
integer ``round(f(x)/g) + Z``, whose law is exactly the stated one. OpenDP
(``make_laplace``/``make_gaussian`` on floats, via ``make_*`` with a ``k``
grid) and Google's differential-privacy libraries (secure noise generation,
https://github.com/google/differential-privacy/blob/main/common_docs/Secure_Noise_Generation.pdf)
release on such a lattice.

**What the grid costs.** Rounding moves each answer by at most ``g/2``, so two
neighbouring answers ``|f(x) − f(x')| ≤ Δ`` round to integers at most
``Δ_g = ⌈Δ/g⌉`` apart (``⌊a + ½⌋ − ⌊b + ½⌋ ≤ ⌈a − b⌉``): the integer query has
sensitivity ``Δ_g`` (OpenDP rounds sensitivities up to the grid the same way).
``Δ_g = Δ/g`` exactly when ``Δ`` is a multiple of ``g`` (every count, and every
bound with a short binary expansion such as 10 or 100); otherwise
``Δ_g/(Δ/g) ≤ 1 + g/Δ ≤ 1 + 2⁻¹⁰``. The privacy claim is kept exactly and the
cost is paid in noise:

* Laplace (ε-DP, scale ``b = Δ/ε``): discrete Laplace of integer scale
  ``t = ⌈Δ_g · b/Δ⌉``, which is ``ε' = Δ_g/t ≤ ε`` DP (CKS 2020, Section 2.2).
  The noise scale grows by ``g·t/b ≤ (1 + g/Δ)(1 + 1/t)``.
* Gaussian: discrete Gaussian with integer ``σ_g²``, at least
  ``(σ Δ_g/Δ)²`` so that ρ-zCDP is kept (``ρ = Δ_g²/(2σ_g²)``, CKS 2020,
  Theorem 4); for an (ε, δ) calibration, the smallest such ``σ_g²`` whose exact
  ``δ(ε)`` (CKS 2020, Theorem 7, summed term by term) is at most the δ asked
  for. The extra noise is again a factor ``1 + O(g/Δ + 1/σ_g²)``.

The grid: ``g = 2^(⌊log₂ min(Δ, s)⌋ − 10)`` with ``s`` the noise scale (b or
σ): at least 1,024 grid steps per unit of sensitivity and of noise, so the
rounding is far below the noise. For the Gaussian the grid is coarsened if
needed so that ``σ/g < 2¹⁴`` (the exact δ is a sum over about ``40σ/g`` terms).

Vector releases treat each entry as its own query of sensitivity Δ on which at
most one entry changes (a count, a sum, the disjoint bins of a histogram), as
:meth:`dpcore.noise.AdditiveNoise.release` does.

References
----------
- Mironov (2012), "On Significance of the Least Significant Bits for Differential Privacy", CCS,
  Section 3. https://www.microsoft.com/en-us/research/wp-content/uploads/2012/10/lsbs.pdf
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS,
  Algorithms 1–3, Section 2.2, Theorems 4 and 7. https://arxiv.org/abs/2004.00010
- Google differential-privacy, "Secure Noise Generation" (design note).
  https://github.com/google/differential-privacy/blob/main/common_docs/Secure_Noise_Generation.pdf
- OpenDP, ``make_laplace`` and ``make_gaussian`` (noise on a lattice of floats). https://docs.opendp.org
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpcore import families
from dpcore.discrete import DiscreteGaussian, DiscreteLaplace
from dpcore.gaussian import Gaussian
from dpcore.laplace import Laplace
from dpcore.validation import as_generator, check_numeric_array, check_trials

__all__ = [
    "GRID_BITS",
    "SAMPLERS",
    "LatticeMechanism",
    "LatticeDraw",
    "lattice_grid",
    "lattice_mechanism",
    "lattice_draw",
]

#: Grid steps per unit of the smaller of sensitivity and noise scale: at least 2^10.
GRID_BITS = 10
#: The Gaussian's σ/g stays below 2^14 (the exact δ sums about 40σ/g terms).
GAUSSIAN_MAX_BITS = 14
#: Rounded answers must stay below 2^62 grid steps in magnitude (int64 with room for the noise).
_MAX_STEPS = 2.0**62


def lattice_grid(sensitivity: float, scale: float, *, gaussian: bool = False) -> float:
    """The grid ``g = 2^(⌊log₂ min(Δ, s)⌋ − 10)`` (coarsened for the Gaussian so that ``s/g < 2¹⁴``).

    Parameters
    ----------
    sensitivity : float
        Δ, in (0, inf).
    scale : float
        The noise scale s (Laplace b or Gaussian σ), in (0, inf).
    gaussian : bool, default False

    Examples
    --------
    >>> lattice_grid(1.0, 1.0)  # 2⁻¹⁰
    0.0009765625
    """
    exponent = math.floor(math.log2(min(sensitivity, scale))) - GRID_BITS
    if gaussian:
        exponent = max(exponent, math.floor(math.log2(scale)) - (GAUSSIAN_MAX_BITS - 1))
    return math.ldexp(1.0, exponent)


def _round_to_grid(values: np.ndarray, grid: float) -> np.ndarray:
    """``⌊v/g + ½⌋`` as int64, exactly: ``v/g`` is a power-of-two scaling and ``v/g − ⌊v/g⌋`` is exact."""
    x = values / grid
    if np.any(np.abs(x) >= _MAX_STEPS):
        big = float(np.max(np.abs(values)))
        raise ValueError(
            f"values must be below {_MAX_STEPS * grid:.3g} in magnitude for a release on this grid, got {big:.6g}"
        )
    floor = np.floor(x)
    return (floor + (x - floor >= 0.5)).astype(np.int64)


def _smallest_sigma2(epsilon: float, delta: float, sens: int, start: int) -> int:
    """The smallest integer ``N ≥ start`` with ``δ(ε) ≤ δ`` for the discrete Gaussian of σ² = N.

    Steps up geometrically from ``start`` until δ(ε) fits, then bisects (δ(ε)
    decreases in σ²; each evaluation is the exact sum of
    :meth:`DiscreteGaussian.delta_for_epsilon`).
    """

    def fits(n: int) -> bool:
        return DiscreteGaussian(n).delta_for_epsilon(epsilon, sens) <= delta

    if fits(start):
        return start
    lo, step = start, max(1, start >> 20)
    hi = start + step
    while not fits(hi):
        lo, step = hi, step * 2
        hi = lo + step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    return hi


@dataclass(frozen=True, eq=False)
class LatticeMechanism:
    """A Laplace or Gaussian mechanism released on a power-of-two grid with exact integer noise.

    Build it with :func:`lattice_mechanism` from a :class:`~dpcore.laplace.Laplace`
    or :class:`~dpcore.gaussian.Gaussian`; see the module docstring for the grid
    and the guarantee.

    Attributes
    ----------
    source : Laplace or Gaussian
        The floating-point mechanism it replaces for a release.
    grid : float
        The grid ``g`` (a power of two).
    sensitivity_units : int
        ``Δ_g = ⌈Δ/g⌉``, the sensitivity of the rounded query in grid steps.
    noise : DiscreteLaplace or DiscreteGaussian
        The integer noise law (grid units).
    epsilon : float or None
        ε of the lattice release (``Δ_g/t ≤`` the source's ε for Laplace; the
        source's calibration ε for an (ε, δ) Gaussian; None for a Gaussian given
        by σ, zCDP or RDP).
    delta : float or None
        The exact δ(ε) of the lattice release (Gaussian with an ε), else None (Laplace: 0).
    rho : float or None
        ρ-zCDP of a Gaussian lattice release.
    """

    source: Laplace | Gaussian
    grid: float
    sensitivity_units: int
    noise: DiscreteLaplace | DiscreteGaussian
    epsilon: float | None
    delta: float | None
    rho: float | None

    @property
    def noise_std(self) -> float:
        """Standard deviation of the released noise, in the answer's units: ``g · √Var[Z]``."""
        return self.grid * math.sqrt(self.noise.variance)

    @property
    def noise_inflation(self) -> float:
        """``noise_std`` over the floating-point mechanism's standard deviation (close to 1; see the module docstring)."""
        return self.noise_std / self.source.std

    @property
    def cost(self) -> str:
        """What the lattice changes, in one sentence."""
        ratio = self.sensitivity_units / (self.source.sensitivity / self.grid)
        sens = "unchanged" if ratio == 1.0 else f"rounded up by a factor {ratio:.6f}"
        if self.rho is None:  # pure ε-DP (discrete Laplace)
            claim = f"ε = {self.epsilon:.6g} (≤ the float mechanism's {self.source.epsilon:.6g}), δ = 0"
        elif self.epsilon is not None:
            claim = f"ε = {self.epsilon:.6g} with exact δ = {self.delta:.4g} (≤ {self.source.delta:.4g}); ρ = {self.rho:.6g}"
        else:
            claim = f"ρ = {self.rho:.6g} zCDP (≤ the float mechanism's {self.source.zcdp_rho:.6g})"
        return (
            f"grid 2^{int(math.log2(self.grid))} = {self.grid:.6g}; sensitivity in grid steps {self.sensitivity_units} "
            f"({sens}); noise standard deviation ×{self.noise_inflation:.6f}; {claim}"
        )

    def can_produce(self, outputs, value: float) -> np.ndarray:
        """Whether each output is a possible release on true answer ``value``: exactly when it lies on the grid.

        The integer noise has every integer in its support, so every grid point
        ``g·m`` is reachable from every answer: no output excludes an input.
        """
        m = np.asarray(outputs, dtype=np.float64) / self.grid
        del value  # every answer reaches every grid point
        return np.isfinite(m) & (m == np.floor(m))

    def _integers(self, values: np.ndarray, rng, shape) -> np.ndarray:
        return _round_to_grid(values, self.grid) + self.noise.sample(rng, shape)

    def draw(self, values, rng):
        """The safe release of ``values``: ``g · (round(values/g) + Z)``, one independent draw per entry.

        Parameters
        ----------
        values : float or array_like
            True answers, finite.
        rng : numpy.random.Generator or int

        Returns
        -------
        float or numpy.ndarray
            On the grid; a float for a scalar ``values``.
        """
        shape = np.shape(values)
        arr, _ = check_numeric_array(values, "values")
        arr = arr.reshape(shape)
        out = self._integers(arr, as_generator(rng), arr.shape or (1,)).astype(np.float64) * self.grid
        return float(out.reshape(-1)[0]) if shape == () else out

    def simulate(self, values, rng, trials: int) -> np.ndarray:
        """``trials`` independent safe releases stacked on a new leading axis (for audits; exact, slower than float noise)."""
        shape = np.shape(values)
        trials = check_trials(trials, per_trial=int(np.prod(shape)))
        arr, _ = check_numeric_array(values, "values")
        arr = arr.reshape(shape)
        return self._integers(arr, as_generator(rng), (trials,) + shape).astype(np.float64) * self.grid


def _laplace_on_lattice(mechanism: Laplace) -> LatticeMechanism:
    """Laplace(b, Δ): discrete Laplace of scale ``t = ⌈Δ_g b/Δ⌉``, ε-DP with ``ε = Δ_g/t ≤ Δ/b`` (CKS 2020, Section 2.2)."""
    b, d = mechanism.scale, mechanism.sensitivity
    grid = lattice_grid(d, b)
    units = math.ceil(Fraction(d) / Fraction(grid))
    t = math.ceil(units * Fraction(b) / Fraction(d))
    return LatticeMechanism(mechanism, grid, units, DiscreteLaplace(t), units / t, 0.0, None)


def _gaussian_on_lattice(mechanism: Gaussian) -> LatticeMechanism:
    """Gaussian(σ, Δ): discrete Gaussian with ``σ_g² ≥ (σ Δ_g/Δ)²`` (ρ kept, CKS 2020, Theorem 4), raised if needed
    until its exact δ at the calibration's ε is at most the calibration's δ (CKS 2020, Theorem 7)."""
    sigma, d = mechanism.sigma, mechanism.sensitivity
    grid = lattice_grid(d, sigma, gaussian=True)
    units = math.ceil(Fraction(d) / Fraction(grid))
    start = math.ceil((Fraction(sigma) * units / Fraction(d)) ** 2)  # ρ kept: Δ_g²/(2N) ≤ Δ²/(2σ²)
    eps, delta = mechanism.epsilon, mechanism.delta
    if eps is not None and delta is not None:
        n = _smallest_sigma2(eps, delta, units, start)
        law = DiscreteGaussian(n)
        return LatticeMechanism(
            mechanism, grid, units, law, eps, law.delta_for_epsilon(eps, units), law.zcdp_rho(units)
        )
    law = DiscreteGaussian(start)
    return LatticeMechanism(mechanism, grid, units, law, None, None, law.zcdp_rho(units))


#: The lattice sampler of each exact noise, by the name a family publishes with (:attr:`dpcore.families.Family.lattice`,
#: its publication hook): a family registers which one it uses, once, in :mod:`dpcore.families`.
SAMPLERS: dict[str, Callable[[object], LatticeMechanism]] = {
    "discrete Laplace": _laplace_on_lattice,
    "discrete Gaussian": _gaussian_on_lattice,
}


def lattice_mechanism(mechanism: Laplace | Gaussian) -> LatticeMechanism:
    """The lattice version of a mechanism of a family that publishes (:attr:`~dpcore.families.Family.lattice`).

    The mechanism's family (:func:`dpcore.families.family_of`) names its sampler in :data:`SAMPLERS`:
    Laplace(b, Δ): discrete Laplace of scale ``t = ⌈Δ_g b/Δ⌉`` on grid
    :func:`lattice_grid`, ε-DP with ``ε = Δ_g/t ≤ Δ/b``. Gaussian(σ, Δ): discrete
    Gaussian with ``σ_g² ≥ (σ Δ_g/Δ)²`` (ρ kept), raised if needed until its
    exact δ at the calibration's ε is at most the calibration's δ.

    Parameters
    ----------
    mechanism : Laplace or Gaussian
        A mechanism of a family whose ``lattice`` is not None.

    Raises
    ------
    TypeError
        For any other object (a staircase, an oracle), naming the families that publish.

    Examples
    --------
    >>> lat = lattice_mechanism(Laplace.from_epsilon(1.0, sensitivity=1.0))
    >>> lat.grid, lat.sensitivity_units, lat.noise.scale, lat.epsilon
    (0.0009765625, 1024, 1024, 1.0)
    """
    family = families.family_of(mechanism)
    if family is None or family.lattice is None:
        published = [f.name for f in families.FAMILIES.values() if f.lattice is not None]
        raise TypeError(f"mechanism must be a {' or '.join(published)} mechanism, got {type(mechanism).__name__}")
    return SAMPLERS[family.lattice](mechanism)


@dataclass(frozen=True, eq=False)
class LatticeDraw:
    """One safe release: the published value and the lattice mechanism that produced it.

    Attributes
    ----------
    value : float or numpy.ndarray
        The released answer(s), on the grid.
    mechanism : LatticeMechanism
        Grid, noise law and guarantee (``mechanism.cost`` says what the lattice changed).
    """

    value: float | np.ndarray
    mechanism: LatticeMechanism

    @property
    def grid(self) -> float:
        return self.mechanism.grid

    @property
    def epsilon(self) -> float | None:
        return self.mechanism.epsilon

    @property
    def delta(self) -> float | None:
        return self.mechanism.delta


def lattice_draw(mechanism: Laplace | Gaussian, values, rng) -> LatticeDraw:
    """Draw ``values`` with ``mechanism``'s guarantee, on a lattice with exact noise (no floating-point holes).

    The noise comes from ``rng``: a seeded generator makes this a simulation of a
    publication; :func:`dpcore.publish.publish` calls it with a
    :class:`~dpcore.randomness.SecureGenerator` for the answer a user publishes.
    Simulations of many trials keep the fast floating-point ``mechanism.simulate``.

    Parameters
    ----------
    mechanism : Laplace or Gaussian
        The calibrated mechanism, e.g. ``dp_count(...).mechanism``.
    values : float or array_like
        The true answer(s), finite.
    rng : numpy.random.Generator, int or SecureGenerator

    Returns
    -------
    LatticeDraw

    Examples
    --------
    >>> r = lattice_draw(Laplace.from_epsilon(1.0), 42.0, rng=0)
    >>> r.value == round(r.value / r.grid) * r.grid, r.epsilon
    (True, 1.0)
    """
    lattice = lattice_mechanism(mechanism)
    return LatticeDraw(lattice.draw(values, rng), lattice)
