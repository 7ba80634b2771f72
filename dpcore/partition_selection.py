"""Private partition selection: which groups of a group-by to release when the groups are not known in advance.

A group-by whose keys come from the data (the device models, the words, the towns people visited) cannot release
every key it sees, however noisy the aggregates: a key held by one person reveals that person by its presence. A
partition-selection mechanism releases a group only with a probability ``p(n)`` that depends on ``n``, the number of
distinct persons in the group after contribution bounding (each person in at most L₀ groups,
:mod:`dpcore.contributions`), with ``p(0) = 0`` (a key absent from the data is never seen). Three are offered, each a
frozen dataclass with the same protocol (:attr:`~PartitionSelection.delta_spent`, :meth:`~PartitionSelection.keep_probability`,
:meth:`~PartitionSelection.select`, :meth:`~PartitionSelection.simulate`):

* :class:`LaplaceThresholding` (Korolova et al. 2009; Wilson et al. 2020): keep a group when
  ``n + Lap(L₀/ε) > τ``. Its keep probability is ``½ e^{−(τ−n)ε/L₀}`` for ``n ≤ τ`` and ``1 − ½ e^{−(n−τ)ε/L₀}``
  above; a group of one person is kept with probability ``δ₀ = ½ e^{−(τ−1)ε/L₀}``, so
  ``τ = 1 + (L₀/ε) ln(1/(2δ₀))`` (``1 + (L₀/ε) ln(2(1 − δ₀))`` when ``δ₀ > ½``).
* :class:`GaussianThresholding` (Wilson et al. 2020; Google's differential-privacy library): keep a group when
  ``n + N(0, σ²) > τ``, σ the analytic Gaussian's for (ε, δ_noise) at ℓ2 sensitivity √L₀ (Balle & Wang 2018) and
  ``τ = 1 + σ Φ̄⁻¹(δ₀)`` for the threshold's share δ_threshold; ``δ = δ_noise + δ_threshold``.
* :class:`OptimalSelection` (Desfontaines, Voss, Gipson & Mandayam 2022): keep a group with probability
  ``π(n)``, the largest an (ε, δ)-DP mechanism may give every n when each person is in one group (L₀ = 1):
  ``π(0) = 0`` and ``π(n) = min(e^ε π(n−1) + δ, 1 − e^{−ε}(1 − π(n−1) − δ), 1)``, whose closed form
  :meth:`OptimalSelection.keep_probability` evaluates: ``π(n) = δ (e^{nε} − 1)/(e^ε − 1)`` up to
  ``n₁ = 1 + ⌊ln(1 + tanh(ε/2)(1/δ − 1))/ε⌋`` (while ``π(n−1) ≤ (1 − δ)/(e^ε + 1)`` the first term is the
  smaller), then ``1 − π(n₁+m) = e^{−mε}(1 − π(n₁) + c) − c`` with ``c = δ/(e^ε − 1)`` (the second recursion's
  fixed point is ``1 + c``), and 1 from ``n₂`` on. It keeps every group at least as often as any other
  (ε, δ)-DP mechanism, Laplace and Gaussian thresholding included (``tests/test_partition_selection.py``).

Each person in at most L₀ groups
--------------------------------
Every mechanism here gives each group the guarantee (ε/L₀, δ₀) with ``δ₀ = 1 − (1 − δ)^{1/L₀}``
(:func:`per_group_delta`): a person changes at most L₀ groups, and L₀ releases that are each (ε/L₀, δ₀)-DP are
together ``(ε, 1 − (1 − δ₀)^{L₀}) = (ε, δ)``-DP (Kairouz, Oh & Viswanath 2015, Theorem 3.3 with i = 0; the same
adjusted δ as Google's implementation). For Laplace thresholding the noise ``Lap(L₀/ε)`` is that per-group
guarantee (the vector of distinct counts has ℓ1 sensitivity L₀); for the Gaussian the noise is calibrated on the
whole vector (ℓ2 sensitivity √L₀) and only the threshold's δ is split. The optimal mechanism is optimal for L₀ = 1
only; with L₀ > 1 it is the per-group split of Desfontaines et al. (2022, Section 5), valid and not optimal.

The δ, exactly
--------------
Why δ is what it costs: the groups a person creates (present only with them, at most L₀, each kept with
probability ``p(1) = δ₀``) are all dropped with probability ``(1 − δ₀)^{L₀}``, so whatever is released about them
differs between the neighbours by a total variation of ``1 − (1 − δ₀)^{L₀} = δ``: (0, δ)-DP. The groups present in
both neighbours see the person's +1 in their distinct counts: ε-DP (Laplace, or the optimal mechanism's ratio
constraints) or (ε, δ_noise)-DP (Gaussian). The two parts are independent; composed, (ε, δ) and
(ε, δ_noise + δ_threshold). For Laplace thresholding and the optimal mechanism the δ is tight: a one-person group
is kept with probability exactly δ (L₀ = 1). :attr:`PartitionSelection.delta_spent` computes it from the
mechanism's own threshold or recursion, not from the δ asked for.

How a decision is drawn
-----------------------
A noisy count is compared with the threshold and then forgotten (only the decision is released), so each decision is
drawn as a Bernoulli of its exact probability ``p(n)``: the same law as adding the noise and comparing, and one code
for the three mechanisms. The draw compares a uniform on the 2⁻⁵³ grid (``rng.random``: a seeded generator in a
simulation, :class:`~dpcore.randomness.SecureGenerator` in a publication) with ``p(n)``: a decision is kept with
probability ``⌊p(n) 2⁵³⌋ / 2⁵³``, never above ``p(n)`` (a one-person group is never kept more often than δ₀) and
below it by less than 2⁻⁵³.

References
----------
- Korolova, Kenthapadi, Mishra & Ntoulas (2009), "Releasing Search Queries and Clicks Privately", WWW, Section 4
  (a query is released only when its noisy count passes a threshold). https://doi.org/10.1145/1526709.1526733
- Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson (2020), "Differentially Private SQL with Bounded User
  Contribution", Proceedings on Privacy Enhancing Technologies 2020(2), Section 3 (thresholding the noisy count of
  distinct users of each partition). https://arxiv.org/abs/1909.01917
- Desfontaines, Voss, Gipson & Mandayam (2022), "Differentially private partition selection", Proceedings on
  Privacy Enhancing Technologies 2022(1), Sections 3–5 (the optimal keep probabilities π(n), their closed form,
  the comparison with thresholding, several partitions per user). https://arxiv.org/abs/2006.03684
- Kairouz, Oh & Viswanath (2015), "The Composition Theorem for Differential Privacy", ICML, Theorem 3.3
  (k mechanisms each (ε, δ)-DP compose to (kε, 1 − (1 − δ)^k)). https://arxiv.org/abs/1311.0776
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy: Analytical Calibration and
  Optimal Denoising", ICML, Theorem 8. https://arxiv.org/abs/1805.06530
- Google differential-privacy, ``cc/algorithms/partition-selection.h`` (Laplace and Gaussian thresholding and the
  near-truncated-geometric selection, with the same adjusted δ for several partitions per user).
  https://github.com/google/differential-privacy
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np
from scipy.special import ndtr, ndtri

from dpcore.gaussian import analytic_gaussian_sigma, gaussian_delta
from dpcore.limits import MAX_CATEGORIES, MAX_ELEMENTS
from dpcore.validation import (
    as_generator,
    check_choice,
    check_delta,
    check_elements,
    check_epsilon,
    check_finite_real,
    check_int,
    check_probability,
    check_trials,
)

__all__ = [
    "per_group_delta",
    "total_delta",
    "PartitionSelection",
    "LaplaceThresholding",
    "GaussianThresholding",
    "OptimalSelection",
    "SELECTIONS",
    "selection",
]

#: One step of the 2⁻⁵³ grid of ``rng.random``.
_ULP = 2.0**-53


def per_group_delta(delta: float, max_groups: int) -> float:
    """``δ₀ = 1 − (1 − δ)^{1/L₀}``: the δ of each group when one person's L₀ groups must together cost δ.

    Inverse of :func:`total_delta` (Kairouz, Oh & Viswanath 2015, Theorem 3.3 with i = 0), computed as
    ``−expm1(log1p(−δ)/L₀)`` (no cancellation for a small δ).

    Parameters
    ----------
    delta : float
        The total δ, in (0, 1).
    max_groups : int
        L₀, in [1, MAX_CATEGORIES].

    Examples
    --------
    >>> per_group_delta(1e-5, 1) == 1e-5, round(per_group_delta(1e-5, 4) / 2.5e-6, 6)
    (True, 1.000004)
    """
    delta = check_delta(delta)
    max_groups = check_int(max_groups, "max_groups", minimum=1, maximum=MAX_CATEGORIES)
    return delta if max_groups == 1 else -math.expm1(math.log1p(-delta) / max_groups)


def total_delta(group_delta: float, max_groups: int) -> float:
    """``δ = 1 − (1 − δ₀)^{L₀}``: what L₀ groups of one person cost together when each costs δ₀.

    Parameters
    ----------
    group_delta : float
        δ₀, in [0, 1].
    max_groups : int
        L₀, in [1, MAX_CATEGORIES].

    Examples
    --------
    >>> round(total_delta(per_group_delta(1e-5, 4), 4) / 1e-5, 12)
    1.0
    """
    group_delta = check_probability(group_delta, "group_delta", low_open=False, high_open=False)
    max_groups = check_int(max_groups, "max_groups", minimum=1, maximum=MAX_CATEGORIES)
    if group_delta == 1.0:
        return 1.0
    return group_delta if max_groups == 1 else -math.expm1(max_groups * math.log1p(-group_delta))


def _check_counts(distinct, name: str = "distinct") -> np.ndarray:
    """Distinct-person counts: whole numbers in [0, inf), at most MAX_ELEMENTS of them, as float64."""
    arr = np.asarray(distinct)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold whole numbers of persons in [0, inf), got dtype {arr.dtype}")
    check_elements(arr.size, name, MAX_ELEMENTS)
    out = arr.astype(np.float64)
    bad = ~(np.isfinite(out) & (out >= 0) & (out == np.floor(np.where(np.isfinite(out), out, 0.0))))
    if np.any(bad):
        raise ValueError(f"{name} must hold whole numbers of persons in [0, inf), got {out[bad].reshape(-1)[0]}")
    return out


@dataclass(frozen=True)
class PartitionSelection:
    """What every partition-selection mechanism offers (see the module notes); build one of its subclasses.

    Attributes
    ----------
    epsilon : float
        ε of the whole selection, in (0, inf).
    delta : float
        δ asked for, in (0, 1).
    max_groups : int
        L₀, the most groups one person is in after contribution bounding, in [1, MAX_CATEGORIES].
    """

    epsilon: float
    delta: float
    max_groups: int = 1

    #: The key a caller may choose the mechanism by (:func:`selection`), and its name on screen.
    key: ClassVar[str] = ""
    name: ClassVar[str] = ""
    #: Its source, in one line.
    source: ClassVar[str] = ""

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
        object.__setattr__(
            self, "max_groups", check_int(self.max_groups, "max_groups", minimum=1, maximum=MAX_CATEGORIES)
        )

    # ------------------------------------------------------------------ the mechanism
    def _keep(self, n: np.ndarray) -> np.ndarray:
        """``p(n)`` for checked counts ``n ≥ 1`` (float64)."""
        raise NotImplementedError

    def keep_probability(self, distinct):
        """``p(n)``: the probability that a group of ``n`` distinct persons is released (0 for ``n = 0``).

        Parameters
        ----------
        distinct : int or array_like of int
            Distinct persons per group, whole numbers in [0, inf).

        Returns
        -------
        float or numpy.ndarray
        """
        n = _check_counts(distinct)
        out = np.zeros(n.shape)
        present = n >= 1
        if np.any(present):
            out[present] = np.clip(self._keep(n[present]), 0.0, 1.0)
        return float(out) if out.ndim == 0 else out

    @property
    def group_delta(self) -> float:
        """δ₀: the probability that a group of one person is released (:func:`per_group_delta` of δ and L₀)."""
        return float(self.keep_probability(1))

    @property
    def delta_spent(self) -> float:
        """The δ this selection costs, from its own threshold or recursion: ``1 − (1 − p(1))^{L₀}`` (+ the noise's)."""
        return total_delta(self.group_delta, self.max_groups)

    @property
    def threshold(self) -> float | None:
        """τ, the threshold a noisy count of distinct persons must pass (None for a mechanism with no threshold)."""
        return None

    @property
    def certain_from(self) -> int | None:
        """The fewest distinct persons a group needs to be released with certainty (None when no size is enough)."""
        return None

    @property
    def half_size(self) -> int:
        """The fewest distinct persons a group needs to be released with probability at least ½."""
        hi = 1
        while self.keep_probability(hi) < 0.5:  # p grows to 1: doubling finds a size above one half
            hi *= 2
        lo = hi // 2  # p(lo) < ½ (or lo = 0)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if self.keep_probability(mid) >= 0.5 else (mid, hi)
        return hi

    def expected_kept(self, distinct) -> float:
        """The expected number of groups released: ``Σ p(n_g)`` over the groups' distinct counts."""
        return float(np.sum(self.keep_probability(np.asarray(distinct))))

    def select(self, distinct, rng) -> np.ndarray:
        """Which groups are released: one independent decision per group, True with probability ``p(n)``.

        Parameters
        ----------
        distinct : array_like of int
            Distinct persons per group (after contribution bounding), whole numbers in [0, inf).
        rng : numpy.random.Generator, int or SecureGenerator
            Seeded in a simulation; a :class:`~dpcore.randomness.SecureGenerator` in a publication.

        Returns
        -------
        numpy.ndarray of bool
            One decision per group, in the order given.
        """
        p = np.asarray(self.keep_probability(np.asarray(distinct)), dtype=np.float64)
        u = np.asarray(as_generator(rng).random(p.shape if p.ndim else 1), dtype=np.float64).reshape(p.shape)
        return u + _ULP <= p  # P = ⌊p·2⁵³⌋/2⁵³ ≤ p for u on the 2⁻⁵³ grid

    def simulate(self, distinct: int, rng, trials: int) -> np.ndarray:
        """``trials`` independent decisions about one group of ``distinct`` persons (True: released)."""
        n = check_int(distinct, "distinct", minimum=0)
        trials = check_trials(trials)
        return self.select(np.full(trials, float(n)), rng)

    def words(self) -> str:
        """The mechanism and its parameters in one line."""
        return f"{self.name} (ε = {self.epsilon:g}, δ = {self.delta_spent:.3g}, L₀ = {self.max_groups})"


@dataclass(frozen=True)
class LaplaceThresholding(PartitionSelection):
    """Keep a group when its distinct-person count plus ``Lap(L₀/ε)`` passes τ (Korolova et al. 2009; Wilson et al. 2020).

    ``τ = 1 + (L₀/ε) ln(1/(2δ₀))`` with ``δ₀ = 1 − (1 − δ)^{1/L₀}`` (``1 + (L₀/ε) ln(2(1 − δ₀))`` when δ₀ > ½):
    a group of one person is kept with probability exactly δ₀. See the module notes for the guarantee.

    Parameters
    ----------
    epsilon : float
        ε, in (0, inf).
    delta : float
        δ, in (0, 1).
    max_groups : int, default 1
        L₀, in [1, MAX_CATEGORIES].

    Examples
    --------
    >>> s = LaplaceThresholding(1.0, 1e-5)
    >>> round(s.threshold, 4), round(s.keep_probability(1) / 1e-5, 12)  # τ = 1 + ln(1/(2·10⁻⁵)); p(1) = δ
    (11.8198, 1.0)
    """

    key: ClassVar[str] = "laplace_thresholding"
    name: ClassVar[str] = "Laplace thresholding"
    source: ClassVar[str] = "Korolova et al. (2009); Wilson et al. (2020)"

    @cached_property
    def scale(self) -> float:
        """b = L₀/ε, the Laplace noise on each distinct-person count (ℓ1 sensitivity L₀)."""
        return self.max_groups / self.epsilon

    @cached_property
    def threshold(self) -> float:
        d0 = per_group_delta(self.delta, self.max_groups)
        # P[1 + Lap(b) > τ] = δ₀: ½ e^{−(τ−1)/b} for τ ≥ 1, 1 − ½ e^{(τ−1)/b} below
        return 1.0 - self.scale * math.log(2.0 * d0) if d0 <= 0.5 else 1.0 + self.scale * math.log(2.0 * (1.0 - d0))

    def _keep(self, n):
        tau, b = self.threshold, self.scale
        below = n <= tau
        gap = np.abs(n - tau) / b
        return np.where(below, 0.5 * np.exp(-gap), 1.0 - 0.5 * np.exp(-gap))

    @classmethod
    def from_threshold(cls, epsilon: float, threshold: float, max_groups: int = 1) -> LaplaceThresholding:
        """The Laplace thresholding whose threshold is ``threshold``: δ from τ (the inverse of :attr:`threshold`).

        ``δ₀ = P[1 + Lap(L₀/ε) > τ]`` and ``δ = 1 − (1 − δ₀)^{L₀}``.

        Parameters
        ----------
        epsilon : float
            ε, in (0, inf).
        threshold : float
            τ, finite.
        max_groups : int, default 1
            L₀, in [1, MAX_CATEGORIES].
        """
        epsilon = check_epsilon(epsilon)
        threshold = check_finite_real(threshold, "threshold")
        max_groups = check_int(max_groups, "max_groups", minimum=1, maximum=MAX_CATEGORIES)
        gap = (threshold - 1.0) * epsilon / max_groups
        d0 = 0.5 * math.exp(-gap) if gap >= 0 else -0.5 * math.expm1(gap) + 0.5
        return cls(epsilon, check_delta(total_delta(d0, max_groups), "delta (from the threshold)"), max_groups)


@dataclass(frozen=True)
class GaussianThresholding(PartitionSelection):
    """Keep a group when its distinct-person count plus ``N(0, σ²)`` passes τ (Wilson et al. 2020; Google's library).

    δ is split: ``δ_threshold = threshold_share · δ`` pays for the groups a person creates (each kept with probability
    ``δ₀ = 1 − (1 − δ_threshold)^{1/L₀}``, so ``τ = 1 + σ Φ̄⁻¹(δ₀)``), ``δ_noise = δ − δ_threshold`` for the noise on
    the groups present in both neighbours: σ is the analytic Gaussian's for (ε, δ_noise) at ℓ2 sensitivity √L₀
    (:func:`~dpcore.gaussian.analytic_gaussian_sigma`, Balle & Wang 2018).

    Parameters
    ----------
    epsilon : float
        ε, in (0, inf).
    delta : float
        δ, in (0, 1).
    max_groups : int, default 1
        L₀, in [1, MAX_CATEGORIES].
    threshold_share : float, default 0.5
        The share of δ for the threshold, in (0, 1) (Google's library takes one half).

    Examples
    --------
    >>> s = GaussianThresholding(1.0, 1e-5)
    >>> round(s.sigma, 3), round(s.threshold, 3), round(s.delta_spent / 1e-5, 9)
    (3.884, 18.157, 1.0)
    """

    threshold_share: float = 0.5

    key: ClassVar[str] = "gaussian_thresholding"
    name: ClassVar[str] = "Gaussian thresholding"
    source: ClassVar[str] = "Wilson et al. (2020); Balle & Wang (2018)"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "threshold_share", check_probability(self.threshold_share, "threshold_share"))

    @property
    def delta_threshold(self) -> float:
        """The share of δ paid for the groups one person creates."""
        return self.threshold_share * self.delta

    @property
    def delta_noise(self) -> float:
        """The share of δ paid by the Gaussian noise on the groups present in both neighbours."""
        return self.delta - self.delta_threshold

    @cached_property
    def sigma(self) -> float:
        """σ of the noise on each distinct-person count: (ε, δ_noise)-DP at ℓ2 sensitivity √L₀."""
        return analytic_gaussian_sigma(self.epsilon, self.delta_noise, math.sqrt(self.max_groups))

    @cached_property
    def threshold(self) -> float:
        d0 = per_group_delta(self.delta_threshold, self.max_groups)
        return 1.0 - self.sigma * float(ndtri(d0))  # P[1 + N(0, σ²) > τ] = Φ(−(τ − 1)/σ) = δ₀

    def _keep(self, n):
        return ndtr((n - self.threshold) / self.sigma)

    @property
    def delta_spent(self) -> float:
        """``δ(ε)`` of the noise, exactly (Balle & Wang 2018, Theorem 8), plus ``1 − (1 − p(1))^{L₀}``."""
        noise = gaussian_delta(self.sigma, self.epsilon, math.sqrt(self.max_groups))
        return noise + total_delta(self.group_delta, self.max_groups)


@dataclass(frozen=True)
class OptimalSelection(PartitionSelection):
    """Keep a group of n persons with probability π(n), the most any (ε, δ)-DP mechanism allows (Desfontaines et al. 2022).

    For L₀ = 1 the keep probabilities are the largest possible for every n at once; for L₀ > 1 each group gets
    (ε/L₀, δ₀) (the module notes). The closed form: with ``ε₀ = ε/L₀``, ``c = δ₀/(e^{ε₀} − 1)``,

    * ``π(n) = δ₀ (e^{nε₀} − 1)/(e^{ε₀} − 1)`` for ``1 ≤ n ≤ n₁``, ``n₁ = 1 + ⌊ln(1 + tanh(ε₀/2)(1/δ₀ − 1))/ε₀⌋``;
    * ``π(n₁ + m) = min(1, 1 + c − e^{−mε₀}(1 − π(n₁) + c))`` beyond.

    Parameters
    ----------
    epsilon : float
        ε, in (0, inf).
    delta : float
        δ, in (0, 1).
    max_groups : int, default 1
        L₀, in [1, MAX_CATEGORIES].

    Examples
    --------
    >>> s = OptimalSelection(1.0, 1e-5)
    >>> s.keep_probability(1) == 1e-5, s.first_crossover, s.certain_from
    (True, 11, 23)
    """

    key: ClassVar[str] = "optimal"
    name: ClassVar[str] = "optimal partition selection"
    source: ClassVar[str] = "Desfontaines, Voss, Gipson & Mandayam (2022)"

    @property
    def _eps0(self) -> float:
        return self.epsilon / self.max_groups

    @property
    def _d0(self) -> float:
        return per_group_delta(self.delta, self.max_groups)

    def _first_regime(self, n):
        """``δ₀ (e^{nε₀} − 1)/(e^{ε₀} − 1)`` written ``δ₀ e^{(n−1)ε₀} (1 − e^{−nε₀})/(1 − e^{−ε₀})`` (no overflow)."""
        e0 = self._eps0
        n = np.asarray(n, dtype=np.float64)
        return self._d0 * np.exp((n - 1.0) * e0) * np.expm1(-n * e0) / math.expm1(-e0)

    @cached_property
    def first_crossover(self) -> int:
        """n₁: the largest n at which ``π(n) = e^{ε₀} π(n−1) + δ₀`` (the first term of the recursion is the smaller)."""
        e0, d0 = self._eps0, self._d0
        # ln(1 + tanh(ε₀/2)(1/δ₀ − 1)) = ln(δ₀ + tanh(ε₀/2)(1 − δ₀)) − ln δ₀, finite for every δ₀ > 0
        log_ratio = math.log(d0 + math.tanh(e0 / 2.0) * (1.0 - d0)) - math.log(d0)
        n1 = 1 + math.floor(log_ratio / e0)
        # the rule is π(n−1) ≤ (1 − δ₀)/(e^{ε₀} + 1): correct a floor that rounding put one step off
        limit = (1.0 - d0) / (math.exp(e0) + 1.0) if e0 < 700 else 0.0
        while n1 > 1 and float(self._first_regime(n1 - 1)) > limit:
            n1 -= 1
        while float(self._first_regime(n1)) <= limit:
            n1 += 1
        return n1

    def _second_regime_gap(self, m, n1: int):
        """``1 − π(n₁ + m) = e^{−mε₀}(1 − π(n₁) + c) − c``: the second recursion from π(n₁), towards its fixed point 1 + c."""
        e0 = self._eps0
        c = self._d0 / math.expm1(e0) if e0 < 700 else 0.0
        return np.exp(-np.asarray(m, dtype=np.float64) * e0) * (1.0 - float(self._first_regime(n1)) + c) - c

    def _keep(self, n):
        n1 = self.first_crossover
        first = n <= n1
        out = np.empty(n.shape)
        out[first] = self._first_regime(n[first])
        out[~first] = 1.0 - np.maximum(self._second_regime_gap(n[~first] - n1, n1), 0.0)
        return out

    @cached_property
    def certain_from(self) -> int:
        """n₂: the fewest distinct persons for which π = 1."""
        n1 = self.first_crossover
        e0 = self._eps0
        c = self._d0 / math.expm1(e0) if e0 < 700 else 0.0
        if c == 0.0:
            m = 1
        else:  # e^{−mε₀}(1 − π(n₁) + c) ≤ c
            m = max(1, math.ceil(math.log1p((1.0 - float(self._first_regime(n1))) / c) / e0))
        while m > 1 and self._second_regime_gap(m - 1, n1) <= 0.0:
            m -= 1
        while self._second_regime_gap(m, n1) > 0.0:
            m += 1
        return n1 + m


#: The partition-selection mechanisms, in the order a page offers them.
SELECTIONS: tuple[type[PartitionSelection], ...] = (OptimalSelection, LaplaceThresholding, GaussianThresholding)


def selection(key: str, epsilon: float, delta: float, max_groups: int = 1) -> PartitionSelection:
    """The mechanism of :data:`SELECTIONS` named ``key`` (its ``key`` attribute), at (ε, δ) and L₀.

    Parameters
    ----------
    key : {"optimal", "laplace_thresholding", "gaussian_thresholding"}
    epsilon : float
        ε, in (0, inf).
    delta : float
        δ, in (0, 1).
    max_groups : int, default 1
        L₀, in [1, MAX_CATEGORIES].

    Examples
    --------
    >>> selection("optimal", 1.0, 1e-6).name
    'optimal partition selection'
    """
    epsilon = check_epsilon(epsilon)
    check_choice(key, "key", tuple(cls.key for cls in SELECTIONS))
    chosen = next(cls for cls in SELECTIONS if cls.key == key)
    return chosen(epsilon, delta, max_groups)
