"""Noisy gradient descent that can be published: every release on a grid, with exact discrete Gaussian noise.

:mod:`dpcore.learning.noisy_gd` teaches with floating-point Gaussian noise from a seeded generator. This module
is the same algorithm (full batch, logistic regression, add/remove one example, T + 1 releases: one noisy
count, then T noisy sums of clipped gradients) made floating-point safe, so that
:func:`dpcore.publish.publish_logistic_regression` can release a model with secure noise:

1. **The count.** ``n̂ = n + Z₀``, with ``Z₀`` an exact discrete Gaussian on the integers
   (:func:`~dpcore.discrete.sample_discrete_gaussian`, CKS 2020, Algorithm 3). n is never released
   otherwise: every step divides by ``max(n̂, 1)`` (post-processing).
2. **Each gradient sum.** At the current weights ``w``, each example's clipped gradient ``ĝᵢ`` (norm at
   most C) is rounded to the grid γ coordinate by coordinate, ``mᵢ = rint(ĝᵢ/γ)`` (an integer vector;
   γ is a power of two, so ``ĝᵢ/γ`` and the rounding to the nearest integer are exact on doubles), and the
   integers are summed exactly: ``m = Σᵢ mᵢ``. The release is ``γ (m + Z)``, with ``Z`` a vector of ``p`` independent exact
   discrete Gaussians of variance parameter ``N`` (an integer). The weights step
   ``w ← w − η [γ (m + Z) / max(n̂, 1) + λ w_coef]`` is post-processing of the releases.

Every output is a deterministic function of integers whose law is exactly the stated one: no
floating-point hole (Mironov 2012) and no dependence of the sum on the order of floating-point additions.

The sensitivity of a rounded sum
--------------------------------
**Claim.** For data sets ``x`` and ``x'`` differing by one example z (add/remove one), the rounded sums
at the same weights satisfy ``‖m(x) − m(x')‖₂ ≤ C/γ + √p``, that is ``‖γ m(x) − γ m(x')‖₂ ≤ C + γ√p``.

**Proof.** The sums are exact integer sums over the examples, so ``m(x') − m(x) = ±m_z``, the rounded
clipped gradient of z alone. Rounding to the nearest grid point moves each of the ``p`` coordinates by
at most γ/2, so ``‖γ m_z − ĝ_z‖₂ ≤ γ√p / 2``, and by the triangle inequality
``‖γ m_z‖₂ ≤ ‖ĝ_z‖₂ + γ√p/2``. Clipping in floating point gives ``‖ĝ_z‖₂ ≤ C (1 + 2⁻⁴⁵)`` (a handful of
roundings, each of relative size 2⁻⁵³), and ``C·2⁻⁴⁵ < γ√p/2`` because ``γ√p > C/200`` (the grid below),
so ``‖γ m_z‖₂ ≤ C + γ√p``. ∎ (Rounding the floating-point sum itself instead would add the summation
error, which grows with n: a private number, so not a usable bound.)

The grid
--------
``γ = 2^⌊log₂(C / (100 √p))⌋``: the largest power of two with ``γ√p ≤ C/100``. The rounding inflates the
sensitivity from C to at most ``1.01 C``, so the noise by at most 1 %; and ``γ > C/(200 √p)``, so the
integers stay small (each ``|mᵢⱼ| ≤ 200√p``; a sum of a million rows is far inside int64).

Calibration and accounting
--------------------------
The discrete Gaussian is what zCDP describes exactly: adding independent ``N_ℤ(0, N)`` to each coordinate
of an integer vector query whose L2 sensitivity is at most ``Δ_g`` is ``Δ_g²/(2N)``-zCDP (CKS 2020,
Theorem 14, multivariate). With ``Δ_g = C/γ + √p`` (rounded up to the next double), the count gets
``N₀ = N / Δ_g²`` (sensitivity 1, so the same ρ), and the T + 1 releases compose to
``ρ = (T + 1) Δ_g² / (2N)`` (Bun & Steinke 2016, Lemma 2.3: adaptive composition adds ρ). σ is
:func:`dpcore.accounting.plan_noise` with method ``"zcdp"``, ``k = T + 1`` and the inflated sensitivity
``Δ = γ Δ_g``: the smallest σ whose ρ converts to the requested (ε, δ) by
:func:`dpcore.accounting.zcdp_to_dp` (CKS 2020, Corollary 13); ``N = ⌈(σ/γ)²⌉``, so ρ can only fall. The
(ε, δ) stated is the conversion of that ρ, at most the one requested.

References
----------
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS,
  Algorithm 3, Theorem 14 and Corollary 13. https://arxiv.org/abs/2004.00010
- Bun & Steinke (2016), "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds", TCC, Lemma 2.3 (composition) and Proposition 1.6. https://arxiv.org/abs/1605.02065
- Mironov (2012), "On Significance of the Least Significant Bits for Differential Privacy", CCS.
  https://doi.org/10.1145/2382196.2382264
- Near & Abuah (2021), *Programming Differential Privacy*, chapter 12 (noisy gradient descent).
  https://programming-dp.com/ch12.html
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpcore.accounting import plan_noise, zcdp_to_dp
from dpcore.discrete import sample_discrete_gaussian
from dpcore.gaussian import Gaussian
from dpcore.learning._arrays import check_features, check_labels
from dpcore.learning._training import check_steps, check_training_work
from dpcore.learning.logistic import LogisticDesign, clipped_sum_sensitivity, sigmoid
from dpcore.limits import MAX_ELEMENTS
from dpcore.validation import (
    as_generator,
    check_delta,
    check_elements,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_positive,
)

__all__ = [
    "GRID_INFLATION",
    "LatticeGDNoise",
    "lattice_grid_for",
    "lattice_gd_noise",
    "rounded_gradient_sum",
    "LatticeGDRun",
    "lattice_gradient_descent",
]

#: γ√p is at most this share of C: the rounding inflates the sensitivity (and the noise) by at most 1 %.
GRID_INFLATION = 0.01
#: Rows rounded at once (bounds the memory of one step: this many rows × p doubles).
_CHUNK_ROWS = 1 << 15
#: Rows with at most this share of non-zero entries (one-hot columns) are summed over their non-zeros only.
_SPARSE_SHARE = 0.3


def lattice_grid_for(clip: float, dimension: int) -> float:
    """The grid ``γ = 2^⌊log₂(C·0.01/√p)⌋``: the largest power of two with ``γ√p ≤ C/100`` (module notes).

    Parameters
    ----------
    clip : float
        The clipping norm C, in (0, inf).
    dimension : int
        p, the number of coordinates of each released gradient sum (features and intercept), in [1, inf).

    Examples
    --------
    >>> lattice_grid_for(1.0, 1)  # 2⁻⁷: 1/128 ≤ 1/100
    0.0078125
    >>> g = lattice_grid_for(2.0, 21)
    >>> g, g * 21**0.5 <= 2.0 / 100 < 2 * g * 21**0.5
    (0.00390625, True)
    """
    clip = check_positive(clip, "clip")
    dimension = check_int(dimension, "dimension", minimum=1, maximum=MAX_ELEMENTS)
    exponent = math.floor(math.log2(clip * GRID_INFLATION / math.sqrt(dimension)))
    grid = math.ldexp(1.0, exponent)
    if grid * math.sqrt(dimension) > clip * GRID_INFLATION:  # log2 rounded up at an exact power: one step down
        grid /= 2.0
    return grid


@dataclass(frozen=True)
class LatticeGDNoise:
    """The noise of a floating-point-safe noisy gradient descent, from declared facts only (module notes).

    Attributes
    ----------
    epsilon, delta : float
        What was requested for the whole run.
    iterations : int
        T.
    clip : float
        C.
    dimension : int
        p, coordinates of each gradient sum (features and intercept).
    grid : float
        γ, a power of two.
    sensitivity_units : float
        ``Δ_g ≥ C/γ + √p``: the L2 sensitivity of a rounded sum, in grid steps.
    sigma2_units : int
        N, the discrete Gaussian's variance parameter on each coordinate of each sum, in grid steps².
    count_sigma2 : fractions.Fraction
        ``N₀ = N / Δ_g²``, the count's variance parameter (integers).
    rho : float
        ρ-zCDP of the whole run, ``(T + 1) Δ_g² / (2N)``.
    epsilon_spent : float
        ε of that ρ at ``delta`` (CKS conversion), at most ``epsilon``.
    """

    epsilon: float
    delta: float
    iterations: int
    clip: float
    dimension: int
    grid: float
    sensitivity_units: float
    sigma2_units: int
    count_sigma2: Fraction
    rho: float
    epsilon_spent: float

    @property
    def releases(self) -> int:
        """T + 1: the count and the T gradient sums."""
        return self.iterations + 1

    @property
    def sensitivity(self) -> float:
        """``Δ = γ Δ_g ≥ C + γ√p``, the L2 sensitivity of a rounded sum in the gradient's units."""
        return self.grid * self.sensitivity_units

    @property
    def sigma(self) -> float:
        """``σ = γ √N``: the noise parameter of each gradient coordinate, in the gradient's units (its standard
        deviation is at most σ; CKS 2020, Proposition 19)."""
        return self.grid * math.sqrt(self.sigma2_units)

    @property
    def count_sigma(self) -> float:
        """``√N₀ = σ/Δ``: the count's noise parameter (rows)."""
        return math.sqrt(self.count_sigma2)

    @property
    def mechanism(self) -> Gaussian:
        """One release as the accountants see it: ``Gaussian(σ, Δ)`` has ``ρ = Δ²/(2σ²)``, the discrete one's."""
        return Gaussian(sigma=self.sigma, sensitivity=self.sensitivity)


def lattice_gd_noise(epsilon: float, delta: float, iterations: int, clip: float, dimension: int) -> LatticeGDNoise:
    """Calibrate a floating-point-safe noisy gradient descent to a total (ε, δ) by zCDP over T + 1 releases.

    ``σ = plan_noise("gaussian", ε, δ, T + 1, method="zcdp", sensitivity=γ Δ_g).sigma``, then
    ``N = ⌈(σ/γ)²⌉`` (module notes). Nothing here reads data.

    Parameters
    ----------
    epsilon : float
        Total ε, in (0, inf).
    delta : float
        Total δ, in (0, 1).
    iterations : int
        T, in [1, MAX_TRAINING_STEPS].
    clip : float
        C, in (0, inf).
    dimension : int
        p, in [1, inf): features plus the intercept.

    Returns
    -------
    LatticeGDNoise

    Examples
    --------
    >>> noise = lattice_gd_noise(1.0, 1e-5, 20, 2.0, 21)
    >>> noise.grid, noise.releases, noise.epsilon_spent <= 1.0
    (0.00390625, 21, True)
    >>> round(noise.sensitivity / 2.0, 4)  # (C + γ√p) / C
    1.009
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    iterations = check_steps(iterations, "iterations")
    clip = check_positive(clip, "clip")
    grid = lattice_grid_for(clip, dimension)
    dimension = int(dimension)
    # Δ_g ≥ C/γ + √p: C/γ is exact (a power-of-two scaling); sqrt and the sum each round by at most half an
    # ulp of the result, so one step up covers both
    units = math.nextafter(clipped_sum_sensitivity(clip) / grid + math.sqrt(dimension), math.inf)
    sigma = plan_noise("gaussian", epsilon, delta, iterations + 1, method="zcdp", sensitivity=grid * units).sigma
    sigma2_units = math.ceil(Fraction(sigma / grid) ** 2)  # σ/γ is exact; the ceiling can only lower ρ
    units_sq = Fraction(units) ** 2
    rho = (iterations + 1) * units_sq / (2 * sigma2_units)
    return LatticeGDNoise(
        epsilon=epsilon,
        delta=delta,
        iterations=iterations,
        clip=clip,
        dimension=dimension,
        grid=grid,
        sensitivity_units=units,
        sigma2_units=sigma2_units,
        count_sigma2=Fraction(sigma2_units) / units_sq,  # sensitivity 1: the same ρ as one gradient release
        rho=float(rho),
        epsilon_spent=float(zcdp_to_dp(float(rho), delta)),
    )


class _RoundedSums:
    """The rounded gradient sums of one design at any weights: its non-zero entries, kept once when the rows are
    sparse (one-hot columns), so that each step reads only them."""

    def __init__(self, design: LogisticDesign, grid: float):
        if design.clip is None:
            raise ValueError("design must have a clipping norm for a rounded gradient sum, got clip=None")
        self.design, self.grid = design, grid
        rows = design.rows
        nonzero = np.count_nonzero(rows)
        if nonzero <= _SPARSE_SHARE * rows.size:
            self.entries = np.nonzero(rows)  # (row, column) of each non-zero, in row order
            self.values = rows[self.entries]
        else:
            self.entries = None

    def at(self, weights: np.ndarray) -> np.ndarray:
        design, p = self.design, self.design.p
        w = np.asarray(weights, dtype=np.float64).reshape(p)
        if self.entries is None:
            # one weight vector: a plain loop (einsum) is as fast as BLAS here and waits for no BLAS thread
            scores = np.einsum("ij,j->i", design.rows, w)
        else:
            row, column = self.entries
            scores = np.bincount(row, weights=self.values * w[column], minlength=design.n)
        residuals = sigmoid(scores)[None, :]
        residuals -= design.y
        residuals *= design.clip_factors(residuals)  # each ĝᵢ = rᵢ x̃ᵢ, of norm at most C
        scaled = residuals[0] / self.grid  # exact: a power-of-two scaling
        if self.entries is not None:
            row, column = self.entries
            steps = np.rint(self.values * scaled[row])  # a zero entry rounds to zero: only the others are summed
            return np.bincount(column, weights=steps, minlength=p).astype(np.int64)
        total = np.zeros(p)
        buffer = np.empty((min(_CHUNK_ROWS, design.n), p))
        for start in range(0, design.n, _CHUNK_ROWS):
            stop = min(start + _CHUNK_ROWS, design.n)
            out = buffer[: stop - start]
            np.multiply(design.rows[start:stop], scaled[start:stop, None], out=out)
            np.rint(out, out=out)
            total += out.sum(axis=0)
        return total.astype(np.int64)


def rounded_gradient_sum(design: LogisticDesign, weights: np.ndarray, grid: float) -> np.ndarray:
    """``Σᵢ rint(ĝᵢ/γ)``: every example's clipped gradient rounded to the grid, the integers summed exactly.

    ``ĝᵢ = rᵢ x̃ᵢ`` (the residual ``rᵢ = expit(w·x̃ᵢ) − yᵢ`` times the clipping factor, times the row); it is
    formed as ``(rᵢ/γ) x̃ᵢ``, which equals ``ĝᵢ/γ`` exactly (γ is a power of two), and rounded to the nearest
    integer by ``numpy.rint`` (ties to even; exact on doubles). Each entry is at most ``C/γ + 1`` in magnitude and
    the training work limit keeps ``n (C/γ + 1)`` far below 2⁵³, so every partial sum is an integer that doubles
    hold exactly: the sum does not depend on the order of the additions (sparse rows sum their non-zero entries
    only; a zero entry rounds to zero).

    Parameters
    ----------
    design : LogisticDesign
        The training rows, with a clipping norm.
    weights : numpy.ndarray, shape (p,)
    grid : float
        γ, a power of two.

    Returns
    -------
    numpy.ndarray of int64, shape (p,)
        In grid steps; adding or removing one example moves it by at most ``C/γ + √p`` in L2 (module notes).
    """
    return _RoundedSums(design, grid).at(weights)


@dataclass(frozen=True, eq=False)
class LatticeGDRun:
    """What a floating-point-safe run gives: the weights and the noisy count (both released), and its noise.

    Attributes
    ----------
    weights : numpy.ndarray, shape (p,)
        The coefficients, then the intercept (last).
    noisy_count : int
        ``n + Z₀``, the released number of rows.
    noise : LatticeGDNoise
    """

    weights: np.ndarray
    noisy_count: int
    noise: LatticeGDNoise


def lattice_gradient_descent(
    X,
    y,
    *,
    epsilon: float,
    delta: float,
    iterations: int,
    clip: float,
    rng,
    learning_rate: float = 1.0,
    l2: float = 0.0,
    clipping: str = "gradient",
) -> LatticeGDRun:
    """Train a logistic regression by noisy gradient descent with every release on a grid (module notes).

    (ε, δ)-DP in total under add/remove one example, with the guarantee of :func:`lattice_gd_noise`. The noise
    comes from ``rng``: a seeded generator makes this a simulation of a publication;
    :func:`dpcore.publish.publish_logistic_regression` calls it with a
    :class:`~dpcore.randomness.SecureGenerator`. Unlike :func:`~dpcore.learning.noisy_gd.noisy_gradient_descent`
    it refuses nothing the data decides (a single class is trained on like any other labels), and nothing it
    returns depends on the data except through the noisy count and the noisy sums.

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features built from declared facts (e.g. each in [−1, 1]); finite. An intercept is added.
    y : array_like of {0, 1}, shape (n,)
    epsilon : float
        Total ε, in (0, inf).
    delta : float
        Total δ, in (0, 1).
    iterations : int
        T, in [1, MAX_TRAINING_STEPS].
    clip : float
        C, in (0, inf).
    rng : numpy.random.Generator, int or SecureGenerator
    learning_rate : float, default 1.0
        η, in (0, inf).
    l2 : float, default 0.0
        λ, in [0, inf) (not on the intercept).
    clipping : {"gradient", "example"}, default "gradient"

    Returns
    -------
    LatticeGDRun

    Examples
    --------
    >>> gen = np.random.default_rng(0)
    >>> X = gen.uniform(-1, 1, size=(3000, 2))
    >>> y = (X @ [2.0, -2.0] + gen.logistic(size=3000) > 0).astype(int)
    >>> run = lattice_gradient_descent(X, y, epsilon=1.0, delta=1e-5, iterations=10, clip=1.0, rng=1)
    >>> run.weights.shape, bool(run.weights[0] > 0 > run.weights[1]), abs(run.noisy_count - 3000) < 300
    ((3,), True, True)
    """
    X = check_features(X)
    y = check_labels(y, X.shape[0])
    learning_rate = check_positive(learning_rate, "learning_rate")
    l2 = check_nonnegative(l2, "l2")
    design = LogisticDesign(X, y, fit_intercept=True, clip=check_positive(clip, "clip"), clipping=clipping)
    noise = lattice_gd_noise(epsilon, delta, iterations, clip, design.p)
    check_training_work(noise.iterations, 1, design.n, design.p)
    check_elements(noise.iterations * design.p, "iterations × coefficients", MAX_ELEMENTS)
    rng = as_generator(rng)
    # the noise does not depend on the data: drawn at once, then used release by release
    count_noise = sample_discrete_gaussian(rng, noise.count_sigma2)
    sum_noise = sample_discrete_gaussian(rng, noise.sigma2_units, size=(noise.iterations, design.p))
    noisy_count = design.n + int(count_noise)
    divisor = float(max(noisy_count, 1))  # post-processing of the released count
    sums = _RoundedSums(design, noise.grid)
    w = np.zeros(design.p)
    for t in range(noise.iterations):
        released = (sums.at(w) + sum_noise[t]).astype(np.float64) * noise.grid
        step = released / divisor
        if l2:
            step += l2 * w * design.penalised
        w = w - learning_rate * step
    return LatticeGDRun(weights=w, noisy_count=noisy_count, noise=noise)
