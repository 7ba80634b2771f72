"""DP quantiles and the median: the exponential mechanism over a declared range (Smith 2011).

The values are clipped to the declared range ``[lower, upper]`` and sorted; the distinct clipped values
``lower = e_0 < e_1 < … < e_m = upper`` (the bounds included) cut the range into ``m`` intervals
``I_k = [e_k, e_{k+1})``. Every output ``y`` inside ``I_k`` has the same rank ``r_k = #{x_j ≤ e_k} = #{x_j < y}``,
so the same utility

    u_k = −|r_k − q·n|

(``n`` values, the target rank of the ``q``-quantile is ``q·n``). The mechanism picks an interval with
probability ∝ ``|I_k| · exp(ε u_k / (2Δu))`` and outputs a point uniform in it. That is the exponential mechanism
over the continuous range with the uniform base measure (McSherry & Talwar 2007): the output's density is
``f(y) ∝ exp(ε u(y) / (2Δu))`` on ``[lower, upper]``, so it is ε-DP whenever ``Δu`` bounds the change of ``u(y)``
between neighbours, for every ``y`` (McSherry & Talwar 2007, Theorem 6; Dwork & Roth 2014, Theorem 3.10). Tied
values leave intervals of length 0, which are never chosen and are dropped; values outside the range are clipped to
it (they count at the bound). This is the form of Smith (2011), diffprivlib's ``quantile`` and OpenDP's and Tumult's
quantiles (OpenDP and Tumult score a finite set of candidates instead of the intervals).

The score's sensitivity, by relation (:func:`quantile_score_sensitivity`):

* **add/remove one record** (:data:`dpcore.neighbours.ADD_REMOVE`, the relation of every central query here):
  adding a record ``x*`` moves ``r(y)`` by ``[y > x*] ∈ {0, 1}`` and the target ``q·n`` by ``q``, so
  ``r(y) − q·n`` moves by ``−q`` or ``1 − q`` and ``|u(y) − u′(y)| ≤ max(q, 1 − q)`` (removing: the same with the
  signs flipped). ``Δu = max(q, 1 − q)``: ½ for the median. This is at most 1, the sensitivity diffprivlib uses
  for every q; OpenDP's candidate score has the same ``max(α, 1 − α)`` over unknown-size data.
* **replace one record** (:data:`dpcore.neighbours.REPLACE_ONE`): ``n`` is fixed and one record moves, so
  ``r(y)`` moves by at most 1: ``Δu = 1``.

Error. The chance of a shortfall from the best utility ``OPT`` follows the exponential mechanism's utility
guarantee with each interval's prior mass ``|I_k| / W`` (``W = upper − lower``) in place of ``1/|R|``
(McSherry & Talwar 2007, Lemma 7; Dwork & Roth 2014, Theorem 3.11 is the uniform case): with ``L*`` the total
length of the intervals of utility ``OPT``,

    P[ OPT − u ≥ (2Δu/ε) (ln(W / L*) + t) ] ≤ e^{−t}.

So the rank error ``|r − q·n|`` is at most ``−OPT + (2Δu/ε)(ln(W/L*) + t)`` with probability ``1 − e^{−t}``
(:meth:`QuantileIntervals.rank_error_bound`, which caps it at the largest rank error of any output, at most
``max(q, 1 − q)·n`` as every rank lies in ``[0, n]``: the minimum of two bounds holding with these probabilities is
one; at a small ε the formula alone exceeded ``n``). ``−OPT`` is the rank error no output can avoid (½ at most when the
values are distinct; up to half a block of tied values otherwise). The often-quoted ``(2Δu/ε)(ln(n + 1) + t)`` is
the special case ``L* ≥ W/(n + 1)`` (equal intervals): it fails when the best interval is short, for instance when
the values crowd around the quantile in a wide range (``tests/test_quantiles.py`` shows one). When the values lie
on a grid of step γ that holds the bounds (whole years of age: γ = 1), ``L* ≥ γ`` and the shortfall bound
``(2Δu/ε)(ln(W/γ) + t)`` reads no data (:meth:`ExponentialQuantile.shortfall_bound`,
:func:`quantile_epsilon_for_accuracy`). In value terms the rank bound gives the order statistics the output lies
between (:meth:`QuantileIntervals.value_error_bound`); no bound in value terms holds without reading the data, as a
gap in the data at the quantile as wide as the range is allowed.

References
----------
- Smith (2011), "Privacy-preserving statistical estimation with optimal convergence rates", STOC, Section 3
  (the exponential mechanism over the intervals between order statistics). https://doi.org/10.1145/1993636.1993743
- McSherry & Talwar (2007), "Mechanism Design via Differential Privacy", FOCS, Theorem 6 (privacy) and Lemma 7
  (utility with a base measure). https://doi.org/10.1109/FOCS.2007.66
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and Trends in Theoretical
  Computer Science 9(3–4), Theorems 3.10 and 3.11. https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Holohan et al. (2019), "Diffprivlib: The IBM Differential Privacy Library", arXiv:1907.02444 (``tools.quantile``:
  the same intervals, Δu = 1). https://arxiv.org/abs/1907.02444
- OpenDP, ``make_quantile_score_candidates`` and ``make_private_quantile`` (the candidate form).
  https://docs.opendp.org
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.special import logsumexp, softmax

from dpcore.limits import MAX_ELEMENTS
from dpcore.neighbours import ADD_REMOVE, NeighbouringRelation, check_relation
from dpcore.validation import (
    as_generator,
    check_bounds,
    check_choice,
    check_elements,
    check_epsilon,
    check_numeric_array,
    check_positive,
    check_probability,
    check_trials,
)

__all__ = [
    "RELATION",
    "quantile_score_sensitivity",
    "ExponentialQuantile",
    "QuantileIntervals",
    "QuantileResult",
    "dp_quantile",
    "dp_median",
    "quantile_epsilon_for_accuracy",
]

#: The relation of a quantile released by this module unless another is given: add or remove one record.
RELATION = ADD_REMOVE


def _check_q(q) -> float:
    return check_probability(q, "q", low_open=False, high_open=False)


def quantile_score_sensitivity(q: float, relation: NeighbouringRelation = RELATION) -> float:
    """Δu of the quantile score ``u(y) = −|#{x < y} − q·n|`` under ``relation``.

    ``max(q, 1 − q)`` under add/remove one record (one record moves the rank by 0 or 1 and the target ``q·n`` by
    ``q``); 1 under replace one record (``n`` is fixed, the rank moves by at most 1). See the module notes.

    >>> from dpcore.neighbours import REPLACE_ONE
    >>> quantile_score_sensitivity(0.5), quantile_score_sensitivity(0.9), quantile_score_sensitivity(0.5, REPLACE_ONE)
    (0.5, 0.9, 1.0)
    """
    q = _check_q(q)
    relation = check_relation(relation)
    return max(q, 1.0 - q) if relation is ADD_REMOVE else 1.0


def _column(values, nan: str) -> tuple[np.ndarray, int]:
    """Finite float64 values (NaN refused or dropped and counted, infinities refused); an empty column is allowed."""
    check_choice(nan, "nan", ("raise", "drop"))
    try:
        arr = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError("values must be numeric, got values that cannot be read as numbers") from None
    check_elements(arr.size, "values", MAX_ELEMENTS)
    missing = np.isnan(arr)
    if missing.all():  # no number at all: the mechanism is still defined (uniform over the range)
        if arr.size and nan == "raise":
            raise ValueError(f"values must not contain NaN, got {arr.size} NaN value(s)")
        return np.empty(0), int(arr.size)
    return check_numeric_array(arr, "values", nan=nan)


@dataclass(frozen=True)
class ExponentialQuantile:
    """The ``q``-quantile over the declared range ``[lower, upper]`` by the exponential mechanism (ε-DP).

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in (0, inf).
    lower, upper : float
        The declared range, finite, ``lower < upper``; values outside are clipped to it.
    q : float, default 0.5
        The quantile, in [0, 1] (0.5: the median).
    relation : NeighbouringRelation, default ADD_REMOVE
        The neighbours ε holds between; sets Δu (:func:`quantile_score_sensitivity`).

    Attributes
    ----------
    sensitivity : float
        Δu, ``max(q, 1 − q)`` under add/remove one record, 1 under replace one.
    scale : float
        ``ε / (2Δu)``, the factor of the utility in the log-weights.

    Examples
    --------
    >>> m = ExponentialQuantile(1.0, 0.0, 100.0)
    >>> law = m.intervals([20.0, 30.0, 40.0])
    >>> law.ranks.tolist(), law.true_value
    ([0, 1, 2, 3], 30.0)
    >>> round(float(law.probabilities()[1:3].sum()), 6)  # one of the two intervals next to the median
    0.40461
    """

    epsilon: float
    lower: float
    upper: float
    q: float = 0.5
    relation: NeighbouringRelation = RELATION
    sensitivity: float = field(init=False, repr=False)
    scale: float = field(init=False, repr=False)

    def __post_init__(self):
        epsilon = check_epsilon(self.epsilon)
        lower, upper = check_bounds(self.lower, self.upper)
        q = _check_q(self.q)
        relation = check_relation(self.relation)
        sensitivity = quantile_score_sensitivity(q, relation)
        for name, value in (
            ("epsilon", epsilon),
            ("lower", lower),
            ("upper", upper),
            ("q", q),
            ("relation", relation),
            ("sensitivity", sensitivity),
            ("scale", epsilon / (2.0 * sensitivity)),
        ):
            object.__setattr__(self, name, value)

    @property
    def width(self) -> float:
        """``W = upper − lower``."""
        return self.upper - self.lower

    def intervals(self, values, nan: str = "raise") -> QuantileIntervals:
        """The exact law of the release on ``values``: the intervals, their ranks, utilities and log-weights.

        Parameters
        ----------
        values : array_like
            The column (clipped to ``[lower, upper]``); NaN refused (``nan="raise"``) or dropped and counted
            (``nan="drop"``); infinite values are refused. At most :data:`~dpcore.limits.MAX_ELEMENTS` values.
        nan : {"raise", "drop"}, default "raise"
        """
        arr, dropped = _column(values, nan)
        clipped = np.sort(np.clip(arr, self.lower, self.upper))
        edges = np.unique(np.concatenate(([self.lower], clipped, [self.upper])))  # distinct: no interval of length 0
        left, right = edges[:-1], edges[1:]
        ranks = np.searchsorted(clipped, left, side="right")  # #{x ≤ e_k}, the rank of every y inside (e_k, e_k+1)
        n = clipped.size
        utility = -np.abs(ranks - self.q * n)
        return QuantileIntervals(
            mechanism=self,
            left=left,
            right=right,
            ranks=ranks,
            utility=utility,
            log_weights=self._log_weights(left, right, utility),
            sorted_values=clipped,
            n=n,
            dropped_nan=dropped,
            clipped_below=int(np.count_nonzero(arr < self.lower)),
            clipped_above=int(np.count_nonzero(arr > self.upper)),
        )

    def _log_weights(self, left: np.ndarray, right: np.ndarray, utility: np.ndarray) -> np.ndarray:
        """``ln|I_k| + ε (u_k − OPT)/(2Δu)``, each interval's unnormalised log-probability."""
        best = utility.max()
        with np.errstate(over="ignore", invalid="ignore"):  # (u − OPT)·scale may be −inf for a huge ε: weight 0
            shifted = (utility - best) * self.scale
        shifted[utility == best] = 0.0  # guards 0·inf
        return np.log(right - left) + shifted  # right > left: distinct floats differ (gradual underflow)

    def simulate(self, values, rng, trials: int | None = None, nan: str = "raise"):
        """Draw the release on ``values`` ``trials`` times (vectorised; one float when ``trials`` is None).

        Seeded floating-point sampling, for simulations: :func:`dpcore.publish.publish_quantile` publishes.
        """
        return self.intervals(values, nan).simulate(rng, trials)

    def shortfall_bound(self, confidence: float = 0.95, *, resolution: float) -> float:
        """A rank shortfall ``s`` with ``P(OPT − u ≤ s) ≥ confidence`` for any data on a grid of step ``resolution``.

        ``s = (2Δu/ε) (ln(W/γ) + ln(1/(1 − confidence)))`` (module notes): every interval between distinct values of
        a grid of step γ holding the bounds is at least γ long, so ``L* ≥ γ``. A declared fact, read from no data.

        Parameters
        ----------
        confidence : float
            In (0, 1).
        resolution : float
            γ, in (0, upper − lower]: the step of the grid the values lie on (1 for whole years).
        """
        confidence = check_probability(confidence, "confidence")
        resolution = _check_resolution(resolution, self.width)
        return 2.0 * self.sensitivity / self.epsilon * (math.log(self.width / resolution) - math.log1p(-confidence))


def _check_resolution(resolution, width: float) -> float:
    resolution = check_positive(resolution, "resolution")
    if resolution > width:
        raise ValueError(f"resolution must be in (0, {width:g}] (upper - lower), got {resolution:g}")
    return resolution


def quantile_epsilon_for_accuracy(
    accuracy: float,
    lower: float,
    upper: float,
    resolution: float,
    q: float = 0.5,
    confidence: float = 0.95,
    relation: NeighbouringRelation = RELATION,
) -> float:
    """The ε whose :meth:`ExponentialQuantile.shortfall_bound` is ``accuracy`` ranks: the exact inverse.

    ``ε = 2Δu (ln(W/γ) + ln(1/(1 − confidence))) / accuracy``: proportional to ``1/accuracy``. From declared facts
    alone (the range, the grid step γ of the values, q); the accuracy is the rank shortfall from the best interval,
    which ties at the quantile add to (:meth:`QuantileIntervals.rank_error_bound` reads them).

    Examples
    --------
    >>> eps = quantile_epsilon_for_accuracy(50.0, 0.0, 100.0, 1.0)
    >>> round(ExponentialQuantile(eps, 0.0, 100.0).shortfall_bound(0.95, resolution=1.0), 9)
    50.0
    """
    accuracy = check_positive(accuracy, "accuracy")
    return ExponentialQuantile(1.0, lower, upper, q, relation).shortfall_bound(confidence, resolution=resolution) / (
        accuracy
    )


@dataclass(frozen=True, eq=False)
class QuantileIntervals:
    """The exact law of a quantile release on one data set (what :meth:`ExponentialQuantile.intervals` returns).

    Attributes
    ----------
    mechanism : ExponentialQuantile
    left, right : numpy.ndarray
        The intervals ``[left_k, right_k)`` between consecutive distinct clipped values and the bounds, each of
        positive length.
    ranks : numpy.ndarray of int
        ``r_k``: how many values lie below every point inside interval k.
    utility : numpy.ndarray
        ``u_k = −|r_k − q·n|``.
    log_weights : numpy.ndarray
        ``ln|I_k| + ε (u_k − OPT)/(2Δu)``: the log of each interval's unnormalised probability.
    sorted_values : numpy.ndarray
        The clipped values, sorted (not private: for the truth and the error).
    n, dropped_nan, clipped_below, clipped_above : int
        Values used, NaN dropped, values raised to ``lower`` and lowered to ``upper``.
    """

    mechanism: ExponentialQuantile
    left: np.ndarray = field(repr=False)
    right: np.ndarray = field(repr=False)
    ranks: np.ndarray = field(repr=False)
    utility: np.ndarray = field(repr=False)
    log_weights: np.ndarray = field(repr=False)
    sorted_values: np.ndarray = field(repr=False)
    n: int
    dropped_nan: int = 0
    clipped_below: int = 0
    clipped_above: int = 0

    def at_epsilon(self, epsilon: float) -> QuantileIntervals:
        """The law on the same data of the same mechanism at another ``epsilon``: the intervals and ranks are kept
        (no sort), only the log-weights change.

        >>> m = ExponentialQuantile(1.0, 0.0, 100.0)
        >>> law = m.intervals([20.0, 30.0, 40.0])
        >>> bool(np.allclose(law.at_epsilon(0.3).log_weights, replace(m, epsilon=0.3).intervals([20.0, 30.0, 40.0]).log_weights))
        True
        """
        mechanism = replace(self.mechanism, epsilon=epsilon)
        return replace(
            self, mechanism=mechanism, log_weights=mechanism._log_weights(self.left, self.right, self.utility)
        )

    @property
    def target(self) -> float:
        """The target rank ``q·n``."""
        return self.mechanism.q * self.n

    @property
    def true_value(self) -> float:
        """The ``q``-quantile of the clipped values; nan for no value.

        ``numpy.quantile(..., method="averaged_inverted_cdf")`` (Hyndman & Fan 1996, definition 2): the usual median
        (the middle value, or the mean of the two middle ones), and for every q a point of a best interval's closure,
        so an output of rank error ``−OPT`` can lie at it."""
        if not self.n:
            return math.nan
        return float(np.quantile(self.sorted_values, self.mechanism.q, method="averaged_inverted_cdf"))

    def probabilities(self) -> np.ndarray:
        """Each interval's probability, ``softmax(log_weights)`` (log-sum-exp: no overflow, no underflow to 0/0)."""
        return softmax(self.log_weights)

    def pdf(self, y) -> np.ndarray:
        """The output's density at ``y``: ``P(I_k)/|I_k|`` inside interval k, 0 outside ``[lower, upper]``."""
        y = np.asarray(y, dtype=np.float64)
        k = np.clip(np.searchsorted(self.right, y, side="right"), 0, self.left.size - 1)
        log_density = self.log_weights[k] - np.log(self.right[k] - self.left[k]) - logsumexp(self.log_weights)
        inside = (y >= self.mechanism.lower) & (y <= self.mechanism.upper)
        return np.where(inside, np.exp(log_density), 0.0)

    def cdf(self, y) -> np.ndarray:
        """``P(output ≤ y)``: the probabilities of the intervals left of ``y`` plus the share of the one holding it."""
        y = np.asarray(y, dtype=np.float64)
        p = self.probabilities()
        below = np.concatenate(([0.0], np.cumsum(p)))
        k = np.clip(np.searchsorted(self.right, y, side="right"), 0, p.size - 1)
        share = np.clip((y - self.left[k]) / (self.right[k] - self.left[k]), 0.0, 1.0)
        return np.clip(below[k] + p[k] * share, 0.0, 1.0)

    def sample_index(self, rng, trials: int | None = None):
        """The chosen interval(s), by inverse CDF on float uniforms (a simulation; see ``publish_quantile``)."""
        rng = as_generator(rng)
        size = None if trials is None else check_trials(trials, per_trial=2)
        p = self.probabilities()
        cdf = np.cumsum(p)
        # u in [cdf[k-1], cdf[k]) picks k; an interval of probability 0 has an empty such range
        k = np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right")
        k = np.minimum(k, np.flatnonzero(p > 0)[-1])  # u·total may round up to total
        return int(k) if trials is None else k.astype(np.int64)

    def simulate(self, rng, trials: int | None = None):
        """``trials`` releases (floats, vectorised; one float when ``trials`` is None): an interval by its
        probability, then a point uniform in it."""
        rng = as_generator(rng)
        k = self.sample_index(rng, trials)
        u = rng.random(None if trials is None else np.shape(k))
        out = self.left[k] + u * (self.right[k] - self.left[k])
        return float(out) if trials is None else out

    def simulate_errors(self, rng, trials: int) -> tuple[np.ndarray, np.ndarray]:
        """``trials`` releases' errors: in value (``output − true_value``) and in rank (``r − q·n``, signed)."""
        rng = as_generator(rng)
        k = self.sample_index(rng, trials)
        out = self.left[k] + rng.random(k.shape) * (self.right[k] - self.left[k])
        return out - self.true_value, self.ranks[k] - self.target

    def rank_of(self, y) -> np.ndarray:
        """``#{x < y}``, the rank of an output ``y``."""
        return np.searchsorted(self.sorted_values, np.asarray(y, dtype=np.float64), side="left")

    @property
    def best_rank_error(self) -> float:
        """``−OPT``: the smallest rank error of any output (ties at the quantile make it large)."""
        return float(-self.utility.max())

    @property
    def worst_rank_error(self) -> float:
        """The largest rank error of any output, ``−min u_k``: at most ``max(q, 1 − q)·n`` (every rank is in
        ``[0, n]``), so no release is further from ``q·n`` than this, with probability 1."""
        return float(-self.utility.min())

    def uncapped_rank_error_bound(self, confidence: float = 0.95) -> float:
        """``−OPT + (2Δu/ε)(ln(W/L*) + ln(1/(1 − confidence)))`` (McSherry & Talwar 2007, Lemma 7; module notes),
        before :meth:`rank_error_bound` caps it at :attr:`worst_rank_error` (at a small ε it exceeds ``n``)."""
        confidence = check_probability(confidence, "confidence")
        m = self.mechanism
        return self.best_rank_error + 2.0 * m.sensitivity / m.epsilon * (
            self._log_range_share() - math.log1p(-confidence)
        )

    def rank_error_bound(self, confidence: float = 0.95) -> float:
        """``k`` with ``P(|r − q·n| ≤ k) ≥ confidence``: ``min(−OPT + (2Δu/ε)(ln(W/L*) + ln(1/(1 − confidence))),
        worst)`` with ``worst`` the :attr:`worst_rank_error` (a bound with probability 1, so the minimum is one too).

        ``L*`` is the total length of the best intervals (module notes; McSherry & Talwar 2007, Lemma 7). Reads the
        data (``L*``, ``OPT`` and the worst error): a teaching bound, shown beside the truth, not a publication's.
        :meth:`rank_error_capped` says whether the cap is the smaller.
        """
        return min(self.uncapped_rank_error_bound(confidence), self.worst_rank_error)

    def rank_error_capped(self, confidence: float = 0.95) -> bool:
        """Whether :meth:`rank_error_bound` is the cap :attr:`worst_rank_error` (the formula reaches beyond it)."""
        return self.uncapped_rank_error_bound(confidence) >= self.worst_rank_error

    def _log_range_share(self) -> float:
        """``ln(W / L*)``."""
        best = self.utility == self.utility.max()
        return math.log(self.mechanism.width) - math.log(float(np.sum(self.right[best] - self.left[best])))

    def value_error_bound(self, confidence: float = 0.95) -> float:
        """``v`` with ``P(|output − true_value| ≤ v) ≥ confidence``, from :meth:`rank_error_bound`.

        With that probability the output lies in an interval of rank within the bound of ``q·n``: between the
        left end of the first and the right end of the last of them (order statistics of the data).
        """
        bound = self.rank_error_bound(confidence)
        within = np.flatnonzero(-self.utility <= bound)  # contiguous: the ranks increase along the intervals
        return float(max(self.true_value - self.left[within[0]], self.right[within[-1]] - self.true_value))

    def epsilon_for_accuracy(self, accuracy: float, confidence: float = 0.95) -> float:
        """The ε at which :meth:`rank_error_bound` is ``accuracy`` ranks on this data (reads the data).

        ``ε = 2Δu (ln(W/L*) + ln(1/(1 − confidence))) / (accuracy + OPT)``; refused when ``accuracy`` is not above
        ``−OPT``, the rank error no ε avoids, and when it is not below :attr:`worst_rank_error`, which every ε meets
        (the cap of :meth:`rank_error_bound`). Δu, W and q are this law's mechanism's (its own ε is not used).
        """
        accuracy = check_positive(accuracy, "accuracy")
        confidence = check_probability(confidence, "confidence")
        if accuracy <= self.best_rank_error:
            raise ValueError(
                f"accuracy must be above {self.best_rank_error:g} ranks (the rank error of the best output, from "
                f"ties at the quantile), got {accuracy:g}"
            )
        if accuracy >= self.worst_rank_error:
            raise ValueError(
                f"accuracy must be below {self.worst_rank_error:g} ranks (no output's rank error is larger, so every "
                f"ε meets it), got {accuracy:g}"
            )
        room = accuracy - self.best_rank_error
        return 2.0 * self.mechanism.sensitivity * (self._log_range_share() - math.log1p(-confidence)) / room


@dataclass(frozen=True, eq=False)
class QuantileResult:
    """One quantile release with its exact law (what :func:`dp_quantile` returns).

    Attributes
    ----------
    law : QuantileIntervals
    noisy_value : float
        The released value (seeded: a simulation).
    """

    law: QuantileIntervals
    noisy_value: float

    query = "quantile"

    @property
    def mechanism(self) -> ExponentialQuantile:
        return self.law.mechanism

    @property
    def epsilon(self) -> float:
        return self.law.mechanism.epsilon

    @property
    def true_value(self) -> float:
        return self.law.true_value

    @property
    def error(self) -> float:
        """``noisy_value − true_value``."""
        return self.noisy_value - self.true_value

    @property
    def n(self) -> int:
        return self.law.n

    @property
    def dropped_nan(self) -> int:
        return self.law.dropped_nan

    def simulate(self, trials: int, rng) -> np.ndarray:
        """``trials`` fresh releases on the same data."""
        return self.law.simulate(rng, trials)


def dp_quantile(
    values,
    q: float,
    lower: float,
    upper: float,
    epsilon: float,
    rng,
    *,
    nan: str = "raise",
    relation: NeighbouringRelation = RELATION,
) -> QuantileResult:
    """The ``q``-quantile of ``values`` over the declared ``[lower, upper]``, ε-DP (seeded: a simulation).

    Parameters
    ----------
    values : array_like
        The column; clipped to the range; NaN handled by ``nan``.
    q : float
        In [0, 1].
    lower, upper : float
        The declared range.
    epsilon : float
        In (0, inf).
    rng : numpy.random.Generator or int
    nan : {"raise", "drop"}, default "raise"
    relation : NeighbouringRelation, default ADD_REMOVE

    Examples
    --------
    >>> r = dp_quantile([20.0, 30.0, 40.0, 50.0], 0.5, 0.0, 100.0, 1.0, 0)
    >>> r.true_value, 0.0 <= r.noisy_value <= 100.0
    (35.0, True)
    """
    mechanism = ExponentialQuantile(epsilon, lower, upper, q, relation)
    law = mechanism.intervals(values, nan)
    return QuantileResult(law, law.simulate(as_generator(rng)))


def dp_median(
    values, lower: float, upper: float, epsilon: float, rng, *, nan: str = "raise", relation=RELATION
) -> QuantileResult:
    """The median (:func:`dp_quantile` at q = 0.5; Δu = ½ under add/remove one record)."""
    return dp_quantile(values, 0.5, lower, upper, epsilon, rng, nan=nan, relation=relation)
