"""Privacy loss distributions on a grid: discretisation, composition by FFT, read-out. The numerics of the PLD.

This module knows no kind of release: it holds the distributions and what is
done with them, the Gaussian's privacy loss (which the Poisson-subsampled
Gaussian, :mod:`dpcore.accounting.subsampled_gaussian`, reduces to at q = 1),
and the three masses of the staircase's (:func:`staircase_loss_masses`, which
both its PLD and its RDP curve read).
The accountant that takes a release, :func:`dpcore.accounting.pld.pld_epsilon`,
sits above the dispatch table of :mod:`dpcore.accounting.per_release`; the
modules that build a kind's distribution sit below it and import this one.

For a mechanism with output laws ``P`` and ``Q`` on neighbouring data sets, the
privacy loss is ``L = ln(P(o) / Q(o))`` with ``o ~ P``. Its law, the PLD,
determines the whole privacy profile (Meiser & Mohammadi 2018; Sommer, Meiser,
Mohammadi 2019):

``δ(ε) = E[(1 − e^{ε − L})₊] + P(L = +∞)``,

and the PLD of a k-fold composition is the k-fold convolution of the PLDs.

How it is computed (the design of Koskela, Jälkö, Honkela 2020 and of Google's
``dp_accounting``, described in its supplementary "Privacy Loss Distributions"
notes; no code taken from either):

1. **Pessimistic discretisation.** Each cell of the grid ``{i · h}`` gives
   its mass to its two ends so that both P and Q keep their mass
   ("connect the dots", Doroshenko et al. 2022; :func:`connect_the_dots`):
   the discrete pair then dominates the true one, so δ(ε) can only grow, for
   one release and after composition, and the loss drifts by ``O(h²)`` per
   release instead of ``O(h)``. Rounding every loss *up* to the grid
   (:func:`round_to_grid`) is also an upper bound: since ``(1 − e^{ε − ℓ})₊``
   increases in ℓ, a stochastically larger loss can only increase δ(ε).
   Mass with ``L = +∞`` (or beyond a truncation point) goes to an
   infinity-mass term.
2. **Composition by FFT** (:func:`compose`). The k-fold convolution is
   ``irfft(rfft(p)^k)``: one forward transform, then one power and one
   inverse transform per k.
3. **Truncation with the tail mass accounted for.** The transform length only
   covers a window ``[L_k, U_k]`` chosen with Chernoff bounds
   ``P(S ≥ u) ≤ M(t)^k e^{−tu}``, ``M(t) = Σ p_i e^{t ℓ_i}``, so that at most
   ``τ`` (``tail_mass_truncation``) of the composed mass lies outside. Mass
   outside the window wraps around onto it (circular convolution): it is only
   ever *added*, and the bound ``τ`` is added to the infinity mass, so the δ
   read off stays an upper bound.
4. **Read-out** (:meth:`PrivacyLossPMF.delta`, :meth:`PrivacyLossPMF.epsilon`).
   ``δ(ε)`` is exact for the discrete distribution; ``ε(δ)`` is the smallest ε
   with ``δ(ε) ≤ δ``, found on the grid and then in closed form between two
   grid points.

The answers are upper bounds on the true ε (and δ), up to floating-point
rounding in the FFT (about 1e-12 in δ: use δ ≥ 1e-10). Their excess over the
true value comes from the grid: about ``k h²/8`` in the mean after k
releases with connect-the-dots (at most ``h`` per release when rounding up),
so the grid step is chosen for the number of releases
(:func:`connect_the_dots_step`) and keeps the excess near 0.2 % of ε up to
k = 10⁵ and beyond.

The Gaussian, ``μ = Δ/σ``: ``L ~ N(μ²/2, μ²)`` under P (Balle & Wang 2018).
The staircase: ``L ∈ {ε, 0, −ε}`` (:func:`staircase_loss_masses`, derived from
the density of Geng & Viswanath 2016, Definition 2).

References
----------
- Meiser & Mohammadi (2018), "Tight on Budget? Tight Bounds for r-Fold Approximate Differential
  Privacy", CCS. https://doi.org/10.1145/3243734.3243765
- Koskela, Jälkö & Honkela (2020), "Computing Tight Differential Privacy Guarantees Using FFT",
  AISTATS. https://arxiv.org/abs/1906.03049
- Sommer, Meiser & Mohammadi (2019), "Privacy Loss Classes: The Central Limit Theorem in
  Differential Privacy", PoPETs 2019(2). https://doi.org/10.2478/popets-2019-0029
- Doroshenko, Ghazi, Kamath, Kumar & Manurangsi (2022), "Connect the Dots: Tighter Discrete
  Approximations of Privacy Loss Distributions", PoPETs 2022(4). https://arxiv.org/abs/2207.04380
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising", ICML (the Gaussian's privacy loss). https://arxiv.org/abs/1805.06530
- Dong, Roth & Su (2019), "Gaussian Differential Privacy", J. R. Stat. Soc. B 84(1) 2022,
  Corollary 2.13 (the Gaussian's ε at δ, which sizes its grid). https://arxiv.org/abs/1905.02383
- Geng & Viswanath (2016), "The Optimal Noise-Adding Mechanism in Differential Privacy", IEEE
  Transactions on Information Theory 62(2), Definition 2 (the staircase density whose loss is derived
  in :func:`staircase_loss_masses`). https://arxiv.org/abs/1212.1186
- Google dp_accounting, ``pld`` package and its supplementary "Privacy Loss Distributions" notes.
  https://github.com/google/differential-privacy
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.fft
from scipy.signal import lfilter
from scipy.special import ndtr

from dpcore.accounting._numerics import as_ks
from dpcore.gdp import gdp_epsilon
from dpcore.limits import MAX_COMPOSITIONS, MAX_PLD_CURVE_POINTS, MAX_PLD_POINTS
from dpcore.validation import (
    check_delta,
    check_elements,
    check_epsilon,
    check_int,
    check_positive,
    check_probability,
    check_real_in,
)

__all__ = [
    "TAIL_MASS_TRUNCATION",
    "AUTO_RELATIVE_EXCESS",
    "MAX_FFT_POINTS",
    "GAUSSIAN_Z",
    "PrivacyLossPMF",
    "check_grid_points",
    "grid_for_atom",
    "connect_the_dots",
    "round_to_grid",
    "normal_cells",
    "gaussian_privacy_loss",
    "staircase_loss_masses",
    "compose",
    "connect_the_dots_step",
    "fft_capped",
    "gaussian_interval",
]

#: Default bound on the composed mass dropped by truncation (added to δ).
TAIL_MASS_TRUNCATION = 1e-15
#: The default grids aim at a discretisation excess of at most this fraction of ε.
AUTO_RELATIVE_EXCESS = 0.002
#: Largest FFT length a default grid may need; beyond it the grid is coarsened.
MAX_FFT_POINTS = 2**22
#: A Gaussian loss is kept on ``mean ± GAUSSIAN_Z · sd``; the mass above (< 1e-30) goes to infinity.
GAUSSIAN_Z = 11.5


@dataclass(frozen=True, eq=False)
class PrivacyLossPMF:
    """A privacy loss distribution on the grid ``{i · interval}``.

    Mass ``probs[j]`` sits at loss ``(lower_index + j) · interval``; the rest of
    the mass is ``infinity_mass`` (loss ``+∞``). ``truncated_mass`` bounds the
    mass that truncation left out: a pessimistic PMF adds it to δ, an optimistic
    one (a lower bound, used in tests) subtracts it.

    Parameters
    ----------
    interval : float
        Grid step ``h``, in (0, inf).
    lower_index : int
        Grid index of ``probs[0]``.
    probs : numpy.ndarray
        Non-negative masses.
    infinity_mass : float
        Mass at ``+∞``, in [0, 1].
    truncated_mass : float, default 0
        Bound on the mass dropped by truncation, in [0, 1].
    pessimistic : bool, default True
        Whether the losses were rounded up (δ read off is an upper bound) or down.
    """

    interval: float
    lower_index: int
    probs: np.ndarray
    infinity_mass: float
    truncated_mass: float = 0.0
    pessimistic: bool = True

    def __post_init__(self):
        probs = np.array(self.probs, dtype=np.float64)
        probs.setflags(write=False)
        object.__setattr__(self, "probs", probs)
        object.__setattr__(self, "interval", check_positive(self.interval, "interval"))

    @property
    def losses(self) -> np.ndarray:
        """Loss values of ``probs``: ``(lower_index + j) · interval``."""
        return (self.lower_index + np.arange(self.probs.size)) * self.interval

    @property
    def _delta_offset(self) -> float:
        return self.infinity_mass + (self.truncated_mass if self.pessimistic else -self.truncated_mass)

    def _tails(self):
        """Tail sums over the grid cells ``i = lower_index − 1, ..., upper``.

        ``S_i = Σ_{j > i} p_j`` and ``E_i = Σ_{j > i} p_j e^{−(ℓ_j − ℓ_i)}``, so that
        for ε in ``[ℓ_i, ℓ_{i+1})``: ``δ(ε) = S_i − e^{ε − ℓ_i} E_i + offset``.
        ``E`` follows ``E_i = e^{−h} (p_{i+1} + E_{i+1})``, a stable linear
        recursion run backwards by ``lfilter`` (no overflow for any loss range).
        """
        p = self.probs
        rev = p[::-1]
        s = np.concatenate([np.cumsum(rev)[::-1], [0.0]])  # S for i = lower−1 .. upper
        decay = math.exp(-self.interval)
        y = lfilter([1.0], [1.0, -decay], rev)  # y_m = p_{U−m} + E_{U−m}
        e = np.concatenate([decay * y[::-1], [0.0]])  # E for i = lower−1 .. upper
        return s, e

    def delta(self, epsilon):
        """``δ(ε) = Σ_{ℓ > ε} p(ℓ) (1 − e^{ε − ℓ}) + infinity mass`` (± truncated mass).

        Parameters
        ----------
        epsilon : float or array_like
            ε values (any real).
        """
        eps = np.asarray(epsilon, dtype=np.float64)
        s, e = self._tails()
        h, lo = self.interval, self.lower_index
        upper = lo + self.probs.size - 1
        i = np.clip(np.floor(eps / h), lo - 1, upper).astype(np.int64)
        cell = i - (lo - 1)
        with np.errstate(over="ignore", invalid="ignore"):
            d = s[cell] - np.exp(eps - i * h) * e[cell]
        d = np.where(eps >= upper * h, 0.0, np.maximum(d, 0.0)) + self._delta_offset
        d = np.clip(d, 0.0, 1.0)
        return float(d) if d.ndim == 0 else d

    def epsilon(self, delta: float) -> float:
        """The smallest ε ≥ 0 with ``δ(ε) ≤ δ``; ``inf`` when the infinity mass alone exceeds δ.

        Parameters
        ----------
        delta : float
            δ, in (0, 1).
        """
        delta = check_delta(delta)
        target = delta - self._delta_offset
        if target <= 0:
            return math.inf
        s, e = self._tails()
        h, lo = self.interval, self.lower_index
        d = s - e  # δ(ℓ_i) − offset, non-increasing in i
        below = np.nonzero(d <= target)[0]
        first = int(below[0])  # exists: the last entry is 0
        c = max(first - 1, 0)  # cell whose interval [ℓ_c, ℓ_{c+1}) holds the answer
        i = lo - 1 + c
        if s[c] <= target:  # the whole mass above ℓ_c already fits: no lower bound from it
            return 0.0 if first == 0 else max(0.0, i * h)
        # S_c − e^{ε − ℓ_c} E_c = target  ⇒  ε = ℓ_c + ln((S_c − target) / E_c)
        eps = i * h + math.log((s[c] - target) / e[c]) if e[c] > 0 else (i + 1) * h
        if first > 0:
            eps = min(max(eps, i * h), (i + 1) * h)
        return max(0.0, eps)


# ---------------------------------------------------------------- grids and discretisations


def check_grid_points(points: float, interval: float, name: str = "interval") -> int:
    """Refuse a grid of more than MAX_PLD_POINTS points (:mod:`dpcore.limits`) before allocating it."""
    if not points <= MAX_PLD_POINTS:  # NaN refused too
        raise ValueError(
            f"{name} must be at least {interval * points / MAX_PLD_POINTS:.3g} (a grid of at most {MAX_PLD_POINTS} "
            f"points), got {interval:g}"
        )
    return int(points)


def grid_for_atom(atom: float, interval: float) -> tuple[int, float]:
    """``(n, atom / n)``: the largest step not above ``interval`` that puts ``atom`` on the grid."""
    n = max(1, check_grid_points(math.ceil(atom / interval * (1 - 1e-12)), interval))
    return n, atom / n


def connect_the_dots(
    interval: float,
    lower_index: int,
    p_cells: np.ndarray,
    q_cells: np.ndarray,
    p_below: float = 0.0,
    p_above: float = 0.0,
) -> PrivacyLossPMF:
    """Connect-the-dots discretisation: split each cell's mass between its two ends, keeping both measures.

    The grid points are ``ℓ_i = i · h`` for ``i = lower_index, ..., lower_index + n``;
    cell ``j`` is ``(ℓ_{lower+j}, ℓ_{lower+j+1}]`` and carries ``p_cells[j]``
    of ``P`` and ``q_cells[j]`` of ``Q`` (for a privacy loss ``L = ln(P/Q)``
    with ``o ~ P``, ``Q(cell) = E_P[e^{−L}; cell]``). The cell's P-mass goes
    to its ends ``a < b = a + h`` as ``p_a + p_b = p`` and
    ``p_a e^{−a} + p_b e^{−b} = q``, so that both P and Q keep their mass:

    ``p_b = (p − e^{a} q) / (1 − e^{−h})``.

    Merging the two grid atoms back gives the original pair, so the original
    pair is a post-processing of the discrete one, which therefore dominates
    it: every δ(ε) read off it, alone or after composition, is an upper
    bound (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022, "Connect the
    Dots: Tighter Discrete Approximations of Privacy Loss Distributions",
    PoPETs, whose pessimistic estimate this is; https://arxiv.org/abs/2207.04380).
    Unlike rounding every loss up to the grid, which shifts each release's
    loss by up to ``h``, the split keeps ``E[1]`` and ``E[e^{−L}]``: a loss
    ``u`` above ``a`` gains ``h(1 − e^{−u})/(1 − e^{−h}) − u ≈ u(h − u)/2 ≤ h²/8``
    in mean and at most ``h²/4`` in variance, so k compositions drift by
    ``O(k h²)`` instead of ``O(k h)`` (see :func:`connect_the_dots_interval`).

    Where rounding makes ``p_b`` fall outside ``[0, p]`` it is clipped into
    it, and where ``q`` underflows the whole cell goes to ``b``: both move mass
    up, which keeps the bound (δ(ε) grows with the loss). ``p_below`` (mass at
    or below ``ℓ_lower``) is put at ``ℓ_lower`` (rounded up) and ``p_above``
    (mass above the top point) at ``+∞``.

    Parameters
    ----------
    interval : float
        Grid step ``h``, in (0, inf).
    lower_index : int
        Grid index of the first point.
    p_cells, q_cells : numpy.ndarray
        P- and Q-mass of each of the ``n`` cells, each in [0, 1].
    p_below, p_above : float, default 0
        P-mass below the first point and above the last, in [0, 1].
    """
    h = check_positive(interval, "interval")
    p_cells = np.asarray(p_cells, dtype=np.float64)
    q_cells = np.asarray(q_cells, dtype=np.float64)
    a = (lower_index + np.arange(p_cells.size)) * h
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # ln r with r = e^{a} q / p = E[e^{a − L} | cell], in [e^{−h}, 1) in exact arithmetic
        log_ratio = a + np.log(q_cells) - np.log(p_cells)
        top = p_cells * -np.expm1(log_ratio) / -math.expm1(-h)
    top = np.where(p_cells > 0, np.clip(np.nan_to_num(top, nan=np.inf), 0.0, p_cells), 0.0)
    probs = np.zeros(p_cells.size + 1)
    probs[1:] += top
    probs[:-1] += p_cells - top
    probs[0] += p_below
    return PrivacyLossPMF(h, lower_index, probs, float(p_above), pessimistic=True)


def round_to_grid(
    interval: float, lower_index: int, p_cells: np.ndarray, p_below: float = 0.0, p_above: float = 0.0, *, up: bool
) -> PrivacyLossPMF:
    """Put each cell's mass on one of its ends: the top (``up``, an upper bound) or the bottom (a lower bound).

    Cells and masses as in :func:`connect_the_dots`. Rounding up puts
    ``p_below`` on the first point and ``p_above`` at ``+∞``; rounding down
    drops ``p_below`` and puts ``p_above`` on the last point.
    """
    h = check_positive(interval, "interval")
    p_cells = np.asarray(p_cells, dtype=np.float64)
    probs = np.zeros(p_cells.size + 1)
    if up:
        probs[1:] += p_cells
        probs[0] += p_below
        return PrivacyLossPMF(h, lower_index, probs, float(p_above), pessimistic=True)
    probs[:-1] += p_cells
    probs[-1] += p_above
    return PrivacyLossPMF(h, lower_index, probs, 0.0, pessimistic=False)


def normal_cells(z: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Standard normal mass of the cells between increasing points ``z``, and below ``z[0]``, above ``z[-1]``.

    Each difference of ``Φ`` is taken on the side of 0 where it does not cancel:
    ``Φ(z_{i+1}) − Φ(z_i)`` when ``z_{i+1} ≤ 0``, ``Φ(−z_i) − Φ(−z_{i+1})``
    otherwise; each tail is evaluated only where it is used.
    """
    z = np.asarray(z, dtype=np.float64)
    m = int(np.searchsorted(z, 0.0, side="right"))  # z[:m] <= 0 < z[m:]
    cdf = ndtr(z[:m])  # Φ(z) at the points at or below 0
    sf = ndtr(-z[max(m - 1, 0) :])  # Φ(−z) from the last point at or below 0
    cells = np.empty(z.size - 1)
    cells[: max(m - 1, 0)] = np.diff(cdf)  # cells whose top is at or below 0
    cells[max(m - 1, 0) :] = -np.diff(sf)
    below = float(cdf[0]) if m > 0 else float(ndtr(z[0]))
    return np.maximum(cells, 0.0), below, float(sf[-1])


def gaussian_privacy_loss(
    mu: float, interval: float, *, pessimistic: bool = True, connect_dots: bool = True
) -> PrivacyLossPMF:
    """Discretised PLD of one Gaussian release with ``μ = Δ / σ``: ``L ~ N(μ²/2, μ²)`` under P.

    Under Q the same loss is ``N(−μ²/2, μ²)``. The loss is kept on
    ``μ²/2 ± 11.5 μ``; the P-mass above (below 1e-30) goes to the infinity
    mass (pessimistic) or to the top point, the mass below to the bottom
    point (pessimistic) or nowhere. Cell masses are differences of ``Φ``
    computed on the side of the mean where they do not cancel. Inside, each
    cell's mass is split between its ends by :func:`connect_the_dots`
    (default), put at its top (``connect_dots=False``: rounded up) or at its
    bottom (``pessimistic=False``: rounded down, a lower bound).

    Parameters
    ----------
    mu : float
        ``Δ / σ``, in (0, inf).
    interval : float
        Grid step, in (0, inf).
    pessimistic : bool, default True
    connect_dots : bool, default True
        Only used when ``pessimistic``.
    """
    mu = check_positive(mu, "mu")
    h = check_positive(interval, "interval")
    mean = mu * mu / 2.0
    i_lo = math.floor((mean - GAUSSIAN_Z * mu) / h)
    i_hi = math.ceil((mean + GAUSSIAN_Z * mu) / h)
    check_grid_points(i_hi - i_lo + 1, h)
    ell = np.arange(i_lo, i_hi + 1) * h
    cells, below, above = normal_cells((ell - mean) / mu)  # P(ℓ_{i−1} < L ≤ ℓ_i) under P
    if pessimistic and connect_dots:
        q_cells = normal_cells((ell + mean) / mu)[0]  # the same cells under Q
        return connect_the_dots(h, i_lo, cells, q_cells, below, above)
    return round_to_grid(h, i_lo, cells, below, above, up=pessimistic)


def staircase_loss_masses(epsilon: float, gamma: float) -> tuple[float, float, float]:
    """The law of one staircase release's privacy loss: ``(P(L = ε), P(L = 0), P(L = −ε))`` under P.

    The staircase noise of Geng & Viswanath (2016, Definition 2), in units of
    its step Δ, has density ``a bᵏ`` on ``[k, k + γ)`` and ``a bᵏ⁺¹`` on
    ``[k + γ, k + 1)`` for ``|x|`` in step k, with ``b = e^{−ε}`` and
    ``a = (1 − b) / (2(γ + (1 − γ) b))``: ``f(x) = a b^{λ(x)}`` with the level
    ``λ(x) = ⌊|x|⌋ + [|x| − ⌊|x|⌋ ≥ γ]``. Take ``P = f`` and ``Q = f(· − Δ)``
    (the answer moved by its sensitivity); the loss is
    ``L(o) = ln f(o)/f(o − 1) = ε (λ(o − 1) − λ(o))``:

    * ``o ≤ 0``: ``o − 1`` lies one step further out at the same place within
      its step, so ``L = ε``; ``o ≥ 1``: one step further in, ``L = −ε``;
    * ``0 < o < 1``: ``L = ε [1 − o ≥ γ] − ε [o ≥ γ]``, which is ``ε`` on
      ``(0, c)``, ``0`` on a middle piece of length ``|1 − 2γ|`` and ``−ε``
      on ``(1 − c, 1)``, with ``c = min(γ, 1 − γ)``.

    Integrating ``f`` over those pieces: ``P(L = ε) = ½ + a c``,
    ``P(L = −ε) = b (½ + a c)`` (half of ``P(|x| ≥ 1) = b``, and ``c`` at
    density ``a b``), and ``P(L = 0) = a b (1 − 2γ)`` if ``γ ≤ ½``, else
    ``a (2γ − 1)``. (``P(L = −ε) = e^{−ε} P(L = ε)`` is forced: both laws have
    mass 1.) So one release is a mixture: with probability
    ``w = (1 + e^{−ε}) P(L = ε)`` binary randomized response at ε (whose
    ``w = 1``), otherwise nothing is learnt; at ``γ = ½`` it is exactly binary RR.

    This pair is the worst over every move ``|d| ≤ Δ`` of the answer: for any
    such d the levels differ by at most one, so the loss again takes the values
    ``{ε, 0, −ε}`` with ``P(L = −ε) = e^{−ε} P(L = ε)``, a mixture of the same
    form with ``w = TV(f, f(· − d)) (1 + e^{−ε})/(1 − e^{−ε})``; a larger w
    dominates a smaller one (keep the randomized response's outcome with
    probability w'/w, else output "nothing": a post-processing), and the total
    variation between a symmetric density non-increasing in ``|x|`` and its
    shift by d is the mass of ``[−d/2, d/2]``, increasing in d. Every
    accountant that composes this law is therefore exact for the staircase.

    Parameters
    ----------
    epsilon : float
        The staircase's ε, in (0, inf).
    gamma : float
        Where each step drops, in [0, 1].

    Examples
    --------
    >>> [round(m, 4) for m in staircase_loss_masses(1.0, 0.5)]  # γ = ½: binary RR, 1/(1 + e^{−1}) = 0.7311
    [0.7311, 0.0, 0.2689]
    """
    epsilon = check_epsilon(epsilon)
    gamma = check_real_in(gamma, "gamma", 0.0, 1.0)
    b = math.exp(-epsilon)
    a = -math.expm1(-epsilon) / (2.0 * (gamma + (1.0 - gamma) * b))
    plus = 0.5 + a * min(gamma, 1.0 - gamma)
    zero = a * b * (1.0 - 2.0 * gamma) if gamma <= 0.5 else a * (2.0 * gamma - 1.0)
    return plus, zero, b * plus


# ---------------------------------------------------------------- composition


#: A distribution of more points than four times this finds each k's Chernoff parameter on a copy of at most this
#: many blocks of consecutive points, then evaluates the bound at that parameter on the whole distribution.
_COARSE_BLOCKS = 2048


def _log_sum_exp_rows(logp: np.ndarray, ell: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """``ln Σ_i e^{logp_i + t ℓ_i}`` for each t, a block of t's at a time."""
    out = np.empty(len(ts))
    block = max(1, 2**22 // max(1, ell.size))  # at most 4M terms (32 MB) at once
    for start in range(0, len(ts), block):
        terms = logp + np.asarray(ts[start : start + block])[:, None] * ell
        top = terms.max(axis=1)
        out[start : start + block] = top + np.log(np.exp(terms - top[:, None]).sum(axis=1))
    return out


def _log_mgf(pmf: PrivacyLossPMF, ts: np.ndarray) -> np.ndarray:
    """``ln Σ p_i e^{t ℓ_i}`` for each t (finite part only)."""
    positive = pmf.probs > 0
    return _log_sum_exp_rows(np.log(pmf.probs[positive]), pmf.losses[positive], ts)


def _blocks(pmf: PrivacyLossPMF) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At most :data:`_COARSE_BLOCKS` blocks of consecutive grid points: ln of their mass, lowest and highest loss."""
    p = pmf.probs
    width = -(-p.size // _COARSE_BLOCKS)
    mass = np.concatenate([p, np.zeros((-p.size) % width)]).reshape(-1, width).sum(axis=1)
    first = pmf.lower_index + width * np.arange(mass.size)
    last = np.minimum(first + width - 1, pmf.lower_index + p.size - 1)
    keep = mass > 0
    return np.log(mass[keep]), first[keep] * pmf.interval, last[keep] * pmf.interval


def _windows(pmf: PrivacyLossPMF, ks: np.ndarray, tail: float):
    """Grid windows ``[L_k, U_k]`` holding all but ``tail`` of the k-fold mass, and the mass bound left out."""
    h = pmf.interval
    i_min, i_max = pmf.lower_index, pmf.lower_index + pmf.probs.size - 1
    # moments by elementwise sums, not np.dot: a threaded BLAS call costs more than it saves here
    mass = pmf.probs.sum()
    ell = pmf.losses
    mean = float(np.sum(pmf.probs * ell) / mass)
    sd = float(np.sqrt(max(np.sum(pmf.probs * (ell - mean) ** 2) / mass, (h / 2) ** 2)))
    # Chernoff: for a light-tailed loss the optimal t of a k-fold sum is about sqrt(2 ln(2/τ)) / (sqrt(k) sd);
    # a heavy tail (subsampled mechanisms: rare large losses) moves it far below. The bound is unimodal in t
    # ((k ln M(t) + c)/t with ln M convex), so a log grid of 6 points per decade, reaching three decades below,
    # finds it to within a factor 1.5 in t: a window less than 10 % wider than the optimum.
    t_mid = math.sqrt(2 * math.log(2 / tail)) / sd
    t_lo, t_hi = t_mid / np.sqrt(ks.max()) * 1e-3, t_mid / np.sqrt(ks.min()) * 16
    ts = np.geomspace(t_lo, t_hi, max(2, math.ceil(6 * math.log10(t_hi / t_lo))))
    log_half_tail = math.log(tail / 2)
    kk = ks[:, None].astype(np.float64)
    if pmf.probs.size > 4 * _COARSE_BLOCKS:
        # The grid search on blocks (each at its highest loss for t > 0, its lowest for t < 0): their M(t) is
        # within e^{±t · block width} of the distribution's, which shifts the objective by about k times the
        # block width whatever t, so its minimiser is the distribution's to within a grid point or so. The
        # bound itself is then evaluated exactly at each k's t (any t > 0 gives a valid Chernoff bound), on
        # every point once per distinct t instead of once per t of the grid.
        log_mass, low, high = _blocks(pmf)
        t_up = ts[np.argmin((kk * _log_sum_exp_rows(log_mass, high, ts) - log_half_tail) / ts, axis=1)]
        t_down = ts[np.argmax(-(kk * _log_sum_exp_rows(log_mass, low, -ts) - log_half_tail) / ts, axis=1)]
        up, up_index = np.unique(t_up, return_inverse=True)
        down, down_index = np.unique(t_down, return_inverse=True)
        kf = ks.astype(np.float64)
        upper = (kf * _log_mgf(pmf, up)[up_index] - log_half_tail) / t_up
        lower = -(kf * _log_mgf(pmf, -down)[down_index] - log_half_tail) / t_down
    else:
        upper = np.min((kk * _log_mgf(pmf, ts) - log_half_tail) / ts, axis=1)
        lower = np.max(-(kk * _log_mgf(pmf, -ts) - log_half_tail) / ts, axis=1)
    hi = np.minimum(np.ceil(upper / h), ks * i_max).astype(np.int64)
    lo = np.maximum(np.floor(lower / h), ks * i_min).astype(np.int64)
    left_out = np.where(hi < ks * i_max, tail / 2, 0.0) + np.where(lo > ks * i_min, tail / 2, 0.0)
    return lo, hi, left_out


def compose(pmf: PrivacyLossPMF, ks, tail_mass_truncation: float = TAIL_MASS_TRUNCATION):
    """Yield the k-fold self-composition of ``pmf`` for each k in ``ks`` (in the order given).

    One forward FFT of length ``N`` (the widest window), then for each k one
    complex power (``e^{k ln ŝ}``, with the logarithm taken once) and one
    inverse FFT: ``p^{*k} = irfft(rfft(p)^k)``. The
    window ``[L_k, U_k]`` of each k is chosen by Chernoff bounds so that at
    most ``tail_mass_truncation`` of the composed mass falls outside; that
    bound is carried in ``truncated_mass``. The infinity mass composes as
    ``1 − (1 − q)^k``.

    Parameters
    ----------
    pmf : PrivacyLossPMF
    ks : int or array_like of int
        Numbers of releases, each in [1, inf).
    tail_mass_truncation : float, default 1e-15
        In (0, 1); keep it well below the δ of interest.
    """
    ks = as_ks(ks)
    check_elements(ks.size, "the number of ks of a PLD curve", MAX_PLD_CURVE_POINTS)
    tail = check_probability(tail_mass_truncation, "tail_mass_truncation")
    lo, hi, left_out = _windows(pmf, ks, tail)
    width = int(np.max(hi - lo + 1))
    if width > MAX_PLD_POINTS:
        raise ValueError(
            f"the composed grid must have at most {MAX_PLD_POINTS} points, got {width} (use a coarser interval or "
            "fewer compositions)"
        )
    n_fft = scipy.fft.next_fast_len(width, real=True)
    p = pmf.probs
    if p.size > n_fft:  # fold onto the circle: circular convolution of the fold = fold of the convolution
        p = np.bincount(np.arange(p.size) % n_fft, weights=p, minlength=n_fft)
    spectrum = scipy.fft.rfft(p, n_fft)
    with np.errstate(divide="ignore"):
        log_modulus = np.log(np.abs(spectrum))  # spectrum^k = |spectrum|^k e^{i k arg}: one log, no repeated squaring
    argument = np.angle(spectrum)
    q = pmf.infinity_mass
    for k, l_k, u_k, out_k in zip(ks.tolist(), lo.tolist(), hi.tolist(), left_out.tolist()):
        if k == 1 and l_k <= pmf.lower_index and u_k >= pmf.lower_index + pmf.probs.size - 1:
            yield pmf
            continue
        # modulus and phase apart: a spectral zero (log −inf) must give 0, not −inf · 0 = NaN in a complex product
        composed = scipy.fft.irfft(np.exp(k * log_modulus) * np.exp(1j * (k * argument)), n_fft)
        positions = (np.arange(l_k, u_k + 1) - k * pmf.lower_index) % n_fft
        probs = np.maximum(composed[positions], 0.0)
        infinity = -math.expm1(k * math.log1p(-q)) if q < 1 else 1.0
        yield PrivacyLossPMF(
            pmf.interval,
            l_k,
            probs,
            infinity,
            truncated_mass=pmf.truncated_mass * k + out_k,
            pessimistic=pmf.pessimistic,
        )


# ---------------------------------------------------------------- grid steps


def connect_the_dots_step(
    k: int, reference: float, variance: float, relative_excess: float = AUTO_RELATIVE_EXCESS
) -> float:
    """Grid step for k compositions of a connect-the-dots PLD: ``h = sqrt(8 r / (k/ε_ref + 1/v))``.

    Splitting each cell's mass between its ends (:func:`connect_the_dots`)
    raises one release's mean loss by at most ``h²/8`` and its variance by at
    most ``h²/4`` (the split of a loss ``u`` above ``a`` has mean
    ``a + h(1 − e^{−u})/(1 − e^{−h}) ≈ a + u + u(h − u)/2`` and variance
    ``≈ u(h − u)``). After k releases the loss has mean ``m`` and sd
    ``s = sqrt(k v)``, and ``ε ≈ m + z s``; so ε moves by about
    ``k h²/8 + z (k h²/4) / (2 s) = k h²/8 + (ε − m) h²/(8 v)``, at most
    ``h² ε (k/ε + 1/v) / 8``. Setting this to ``r ε`` gives the step. It
    shrinks like ``k^{−1/2}`` when the mean dominates and stays at
    ``sqrt(8 r v)`` when the spread does, where rounding every loss up would
    need ``h ≈ r ε / k`` (and an FFT a hundred times longer at k = 10⁴)
    (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, Section 4, for the split).

    The one home of this formula; :func:`dpcore.accounting.pld.connect_the_dots_interval`
    is the same step with its reference checked as an ε.

    Parameters
    ----------
    k : int
        Number of compositions, in [1, inf).
    reference : float
        ε_ref, an estimate of the ε sought (an upper bound makes the grid finer), in (0, inf).
    variance : float
        Variance of one release's privacy loss under P, in (0, inf).
    relative_excess : float, default 0.002
        Target excess over the true ε, as a fraction of it, in (0, inf).

    Examples
    --------
    >>> round(connect_the_dots_step(100, 2.0, 0.04), 6)   # sqrt(0.016 / (100/2 + 1/0.04))
    0.014606
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_COMPOSITIONS)
    reference = check_positive(reference, "reference")
    variance = check_positive(variance, "variance")
    relative_excess = check_positive(relative_excess, "relative_excess")
    return math.sqrt(8.0 * relative_excess / (k / reference + 1.0 / variance))


def fft_capped(interval: float, k_max: int, sd1: float, support1: float) -> float:
    """``interval``, coarsened if the FFT for ``k_max`` releases would need more than 2²² points (still a valid bound).

    The composed window is about ``2 · 8.5 sd sqrt(k)`` wide (Chernoff at τ = 1e-15) plus one release's support.

    Parameters
    ----------
    interval : float
        The grid step wanted, in (0, inf).
    k_max : int
        The most compositions, in [1, inf).
    sd1, support1 : float
        Standard deviation and width of the support of one release's privacy loss, each in [0, inf).
    """
    points = (2 * 8.5 * sd1 * math.sqrt(k_max) + support1) / interval
    if points > MAX_FFT_POINTS:
        interval *= points / MAX_FFT_POINTS
    return interval


def gaussian_interval(mu: float, k_max: int, delta: float, *, connect_dots: bool = True) -> float:
    """The default grid step of the Gaussian's PLD (``μ = Δ/σ``): about 0.2 % excess over the true ε at ``k_max``.

    ``ε_ref`` is the exact ε of k_max releases, those of ``sqrt(k_max) μ``-GDP
    (Dong, Roth & Su 2019, Corollary 2.13; :func:`dpcore.gdp.gdp_epsilon`), at
    least ``½ μ sqrt(k_max)``. Connect the dots: :func:`connect_the_dots_step`
    with the loss variance ``μ²``; rounding (``connect_dots=False``, and the
    optimistic lower bound), which adds at most ``h`` per release:
    ``h = 0.002 · ε_ref / k_max``. At most a quarter of one release's sd, and
    coarsened by :func:`fft_capped`.

    Parameters
    ----------
    mu : float
        ``Δ / σ``, in (0, inf).
    k_max : int
        The most releases composed, in [1, inf).
    delta : float
        The δ the ε will be read at, in (0, 1).
    connect_dots : bool, default True
        Whether the distribution is discretised by :func:`connect_the_dots` (else rounded).
    """
    mu = check_positive(mu, "mu")
    k_max = check_int(k_max, "k_max", minimum=1, maximum=MAX_COMPOSITIONS)
    delta = check_delta(delta)
    eps_ref = max(gdp_epsilon(math.sqrt(k_max) * mu, delta), 0.5 * mu * math.sqrt(k_max))
    if connect_dots:
        h = connect_the_dots_step(k_max, eps_ref, mu * mu)
    else:
        h = AUTO_RELATIVE_EXCESS * eps_ref / k_max
    return fft_capped(min(mu / 4, h), k_max, mu, 2 * GAUSSIAN_Z * mu)
