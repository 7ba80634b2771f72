"""Central-model queries: count, clipped sum, mean and histogram of a numeric column; counts of categories.

Neighbouring relation: **add/remove one record** (unbounded DP) throughout,
:data:`RELATION`; the sensitivities come from it (:mod:`dpcore.neighbours`):

* count, and count of the rows satisfying a condition decided by each row
  alone (:func:`dp_count_matching`), or several conditions at once
  (:func:`dp_count_matching_all`: a conjunction of per-row conditions is one): 1;
* sum of values clipped to ``[lower, upper]``: ``max(|lower|, |upper|)``;
* histogram: one record changes one bin by one, so the vector of counts has L1
  and L2 sensitivity 1 and each bin gets the noise of a single count (parallel
  composition: the bins are disjoint); the counts of the categories of a
  categorical column (:func:`dp_category_counts`) are such a histogram, and so
  is a two-way table (:func:`dp_two_way_table`), a histogram over the product
  of two declared domains: L1 sensitivity 1 under add/remove one record, 2
  under replace-one (:func:`two_way_table_sensitivity`);
* mean: not released directly, but as noisy clipped sum over noisy count, the
  budget split between the two (:func:`split_mean_budget`; sequential
  composition) and the ratio being post-processing.

Each query returns the true answer, the noisy answer and the noise law, and
can re-draw the noisy answer many times at once (``simulate``) so the app can
show the error distribution without recomputing anything.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorem 3.6 (Laplace mechanism), Theorem 3.16
  (sequential composition), Section 3.3 (histogram queries), Proposition 2.1 (post-processing).
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Near & Abuah (2021), *Programming Differential Privacy*, chapter "Sensitivity" (clipping and
  averages as noisy sum over noisy count). https://programming-dp.com/
- Casella & Berger (2002), *Statistical Inference*, 2nd ed., Duxbury, Section 5.5.4 (the delta method).
  ISBN 0-534-24312-6
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.signal import fftconvolve

from dpcore import families
from dpcore._roots import root_on_log
from dpcore.empirical import empirical_error_bound
from dpcore.gaussian import Gaussian
from dpcore.laplace import Laplace, laplace_sum_pdf
from dpcore.lattice import lattice_draw
from dpcore.limits import MAX_CATEGORIES
from dpcore.neighbours import ADD_REMOVE
from dpcore.validation import (
    as_generator,
    check_bounds,
    check_category_values,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_numeric_array,
    check_positive,
    check_probability,
    check_trials,
)

__all__ = [
    "RELATION",
    "MECHANISMS",
    "QueryResult",
    "MeanResult",
    "MeanBudget",
    "dp_count",
    "dp_sum",
    "dp_mean",
    "dp_histogram",
    "dp_count_matching",
    "dp_category_counts",
    "dp_count_matching_all",
    "dp_two_way_table",
    "two_way_table_sensitivity",
    "noise_mechanism",
    "clipped_sum_sensitivity",
    "split_mean_budget",
    "mean_epsilon_for_accuracy",
]

#: The neighbouring relation of every query in this module: add or remove one record.
RELATION = ADD_REMOVE
#: The noise families a query accepts.
MECHANISMS = families.keys(families.CENTRAL)


def noise_mechanism(epsilon: float, sensitivity: float, mechanism: str = "laplace", delta: float | None = None):
    """The noise for one query, from the registry of families (:func:`dpcore.families.family`).

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in (0, inf).
    sensitivity : float
        Sensitivity of the query in the family's norm (L1 for Laplace and the staircase, L2 for the Gaussian),
        in (0, inf).
    mechanism : str
        A central family's key (:data:`MECHANISMS`).
    delta : float, optional
        Privacy parameter δ in (0, 1); required by an (ε, δ) family (the Gaussian), ignored by a pure one.
    """
    check_choice(mechanism, "mechanism", MECHANISMS)
    return families.family(mechanism).noise(epsilon, sensitivity, delta)


def _mechanism_delta(mechanism) -> float | None:
    return getattr(mechanism, "delta", None)


@dataclass(frozen=True, eq=False)
class QueryResult:
    """One noisy answer with its true answer and its noise law.

    Attributes
    ----------
    query : {"count", "sum", "histogram", "count_matching", "category_counts"}
    true_value : float or numpy.ndarray
        The exact answer of the query as released (for a sum: of the clipped values).
    noisy_value : float or numpy.ndarray
        ``true_value`` plus one draw of the noise.
    mechanism : Laplace or Gaussian
        The noise law, per entry for a histogram or the counts of categories.
    n : int
        Number of values used (after NaN were dropped).
    dropped_nan : int
        Number of NaN removed from the column (``nan="drop"``), else 0.
    unclipped_value : float, optional
        For a sum, the exact sum of the unclipped values: the gap to
        ``true_value`` is the bias clipping introduces.
    lower, upper : float, optional
        The clipping bounds of a sum.
    bin_edges : numpy.ndarray, optional
        The edges of a histogram's bins.
    clipped_below, clipped_above : int, optional
        For a sum or a histogram, how many values lay below the lower bound
        (the first edge) or above the upper bound (the last edge) and were
        clipped to it: a histogram counts them in its end bins, so those bins
        read "≤ first inner edge" and "≥ last inner edge". Exact and not
        private, like ``unclipped_value``: for teaching what clipping hides.
    """

    query: str
    true_value: float | np.ndarray
    noisy_value: float | np.ndarray
    mechanism: Laplace | Gaussian
    n: int
    dropped_nan: int = 0
    unclipped_value: float | None = None
    lower: float | None = None
    upper: float | None = None
    bin_edges: np.ndarray | None = None
    clipped_below: int | None = None
    clipped_above: int | None = None

    @property
    def epsilon(self) -> float:
        """The ε spent by this query."""
        return self.mechanism.epsilon

    @property
    def delta(self) -> float | None:
        """The δ spent by this query (None for Laplace noise)."""
        return _mechanism_delta(self.mechanism)

    @property
    def error(self):
        """``noisy_value − true_value``."""
        return self.noisy_value - self.true_value

    def error_bound(self, confidence: float = 0.95) -> float:
        """``t`` with ``P(|noise| <= t) = confidence``, per entry (per bin for a histogram)."""
        return self.mechanism.error_bound(confidence)

    def simulate(self, trials: int, rng):
        """``trials`` fresh noisy answers on the same data, vectorised: shape ``(trials,) + shape(true_value)``."""
        return self.mechanism.simulate(self.true_value, rng, trials=trials)

    def simulate_errors(self, trials: int, rng):
        """``trials`` fresh draws of ``noisy − true`` (the noise itself)."""
        return self.simulate(trials, rng) - self.true_value

    def on_lattice(self, rng) -> QueryResult:
        """The same query answered on a lattice with exact noise drawn from ``rng``.

        :func:`dpcore.lattice.lattice_draw` keeps the mechanism's guarantee and
        closes the floating-point holes of the textbook sampler (Mironov 2012);
        :meth:`simulate` keeps the fast floating-point noise for error
        distributions, whose law is the same up to the grid. With a seeded ``rng``
        this is a simulation of a publication (anyone with the seed redraws it);
        :func:`dpcore.publish.publish` draws the one to publish from a secure generator.
        """
        return replace(self, noisy_value=lattice_draw(self.mechanism, self.true_value, rng).value)


@dataclass(frozen=True, eq=False)
class MeanResult:
    """A noisy mean released as noisy clipped sum over noisy count.

    ``noisy mean = clip(noisy_sum / max(noisy_count, 1), lower, upper)``; the
    floor at 1 and the clip are post-processing (free of privacy cost) that
    keep the ratio finite and inside the range the true clipped mean lies in.
    The error of a ratio of noisy numbers has no closed-form law: use
    :meth:`simulate_errors` or :meth:`error_bound` (Monte Carlo).

    Attributes
    ----------
    true_value : float
        Mean of the clipped values.
    noisy_value : float
    sum, count : QueryResult
        The two releases it was computed from (their own ε, δ and noise).
    lower, upper : float
    split : float
        Fraction of ε (and δ) given to the sum.
    n, dropped_nan : int
    unclipped_value : float
        Mean of the unclipped values (the gap to ``true_value`` is the clipping bias).
    """

    true_value: float
    noisy_value: float
    sum: QueryResult
    count: QueryResult
    lower: float
    upper: float
    split: float
    n: int
    dropped_nan: int
    unclipped_value: float

    query = "mean"

    @property
    def mechanisms(self) -> tuple:
        """``(sum noise, count noise)``."""
        return (self.sum.mechanism, self.count.mechanism)

    @property
    def epsilon(self) -> float:
        """Total ε (sequential composition: sum ε + count ε)."""
        return self.sum.epsilon + self.count.epsilon

    @property
    def delta(self) -> float | None:
        """Total δ (sum δ + count δ) for Gaussian noise, None for Laplace."""
        if self.sum.delta is None:
            return None
        return self.sum.delta + self.count.delta

    @property
    def error(self) -> float:
        return self.noisy_value - self.true_value

    @property
    def approx_std(self) -> float:
        """First-order (delta-method) std of the noisy mean: ``sqrt(Var S + m² Var C) / n``.

        For independent noisy sum ``S`` and count ``C`` with true count ``n`` and
        true clipped mean ``m``, ``Var(S/C) ≈ (Var S + m² Var C) / n²`` (the delta
        method, Casella & Berger 2002, *Statistical Inference*, Section 5.5.4).
        It ignores the floor at 1 and the clip, so it is close only when the
        count noise is small next to ``n``; the exact law is Monte Carlo
        (:meth:`simulate_errors`).
        """
        n = max(float(self.count.true_value), 1.0)
        var = self.sum.mechanism.variance + self.true_value * self.true_value * self.count.mechanism.variance
        return float(np.sqrt(var) / n)

    def approx_error_pdf(self, x):
        """First-order density of ``noisy − true`` at ``x``: the law of ``(Z_S − m Z_C) / n``.

        Linearising ``(S + Z_S)/(n + Z_C) − S/n ≈ (Z_S − m Z_C)/n`` (the delta
        method of :attr:`approx_std`). With Gaussian noise that is
        ``N(0, approx_std²)``. With Laplace noise it is the sum of two
        independent ``Lap(a)``, ``Lap(c)`` with ``a = b_S/n``, ``c = m b_C/n``,
        whose density is :func:`dpcore.laplace.laplace_sum_pdf`. Like
        :attr:`approx_std` it ignores the floor at 1 and the clip.
        """
        sum_noise, count_noise = self.mechanisms
        n = max(float(self.count.true_value), 1.0)
        if isinstance(sum_noise, Gaussian):
            out = Gaussian(self.approx_std).pdf(np.abs(np.asarray(x, dtype=np.float64)))
        elif isinstance(sum_noise, Laplace):
            out = laplace_sum_pdf(x, sum_noise.scale / n, abs(self.true_value) * count_noise.scale / n)
        else:  # another additive family: the convolution of the two scaled densities, on a grid
            out = _convolved_pdf(x, sum_noise, count_noise, n, abs(self.true_value))
        out = np.asarray(out, dtype=np.float64)
        return float(out) if out.ndim == 0 else out

    def simulate(self, trials: int, rng) -> np.ndarray:
        """``trials`` fresh noisy means on the same data, vectorised."""
        rng = as_generator(rng)
        sums = self.sum.simulate(trials, rng)
        counts = self.count.simulate(trials, rng)
        return _ratio(sums, counts, self.lower, self.upper)

    def simulate_errors(self, trials: int, rng) -> np.ndarray:
        """``trials`` fresh draws of ``noisy mean − true clipped mean``."""
        return self.simulate(trials, rng) - self.true_value

    def on_lattice(self, rng) -> MeanResult:
        """The mean with its sum and count answered on a lattice with exact noise (:meth:`QueryResult.on_lattice`)."""
        rng = as_generator(rng)
        total, count = self.sum.on_lattice(rng), self.count.on_lattice(rng)
        noisy = _ratio(total.noisy_value, count.noisy_value, self.lower, self.upper)
        return replace(self, sum=total, count=count, noisy_value=noisy)

    def error_bound(self, confidence: float = 0.95, rng=0, trials: int = 10_000) -> float:
        """Monte-Carlo ``t`` with ``P(|noisy − true| <= t) ≈ confidence``.

        The empirical ``confidence`` quantile of ``|error|`` over ``trials``
        simulated releases (:func:`dpcore.empirical.empirical_error_bound`;
        seeded by ``rng``, 0 by default, so the answer is reproducible).
        """
        confidence = check_probability(confidence, "confidence")
        return empirical_error_bound(self.simulate_errors(trials, rng), confidence)


def _convolved_pdf(x, sum_noise, count_noise, n: float, m: float, points: int = 2**16 + 1):
    """Density at ``x`` of ``(Z_S − m Z_C)/n`` for independent additive noises, by numerical convolution.

    Both densities are tabulated on one grid of step ``h`` covering their central
    ``1 − 10⁻⁹`` mass (:meth:`error_bound`), convolved (a Riemann sum, exact as
    ``h → 0``) and interpolated; 0 outside the grid.
    """
    a_half = sum_noise.error_bound(1 - 1e-9) / n
    c_half = m * count_noise.error_bound(1 - 1e-9) / n
    half = a_half + c_half
    grid = np.linspace(-half, half, points)
    h = grid[1] - grid[0]
    f_sum = sum_noise.pdf(grid * n) * n
    if c_half <= h:  # m Z_C/n narrower than one step: the sum's noise alone
        dens = f_sum
    else:
        dens = fftconvolve(f_sum, count_noise.pdf(grid * n / m) * n / m, mode="same") * h
    return np.interp(np.asarray(x, dtype=np.float64), grid, dens, left=0.0, right=0.0)


def _ratio(sums, counts, lower, upper):
    """``clip(sums / max(counts, 1), lower, upper)``: post-processing of the two releases."""
    out = np.clip(np.asarray(sums) / np.maximum(counts, 1.0), lower, upper)
    return float(out) if out.ndim == 0 else out


def _column(values, nan):
    arr, dropped = check_numeric_array(values, "values", nan=nan)
    return arr, dropped


def clipped_sum_sensitivity(lower: float, upper: float) -> float:
    """Sensitivity of ``Σ clip(x, lower, upper)`` under add/remove one record: ``max(|lower|, |upper|)``.

    :meth:`dpcore.neighbours.NeighbouringRelation.clipped_sum_sensitivity` of :data:`RELATION`.
    """
    return RELATION.clipped_sum_sensitivity(lower, upper)


@dataclass(frozen=True)
class MeanBudget:
    """The (ε, δ) of each half of a mean released as noisy sum over noisy count.

    Attributes
    ----------
    sum_epsilon, count_epsilon : float
        ``split · ε`` and ``(1 − split) · ε``.
    sum_delta, count_delta : float or None
        ``split · δ`` and ``(1 − split) · δ``; None for pure (Laplace) noise.
    """

    sum_epsilon: float
    count_epsilon: float
    sum_delta: float | None = None
    count_delta: float | None = None


def split_mean_budget(epsilon: float, split: float = 0.5, delta: float | None = None) -> MeanBudget:
    """Split a mean's (ε, δ) between its noisy sum and its noisy count.

    The sum gets ``split · ε`` (and ``split · δ``), the count the rest; by
    sequential composition (Dwork & Roth 2014, Theorem 3.16) the two releases
    together are (ε, δ)-DP. :func:`dp_mean` spends its budget this way.

    Parameters
    ----------
    epsilon : float
        Total ε of the mean, in (0, inf).
    split : float, default 0.5
        Fraction of the budget given to the sum, in (0, 1).
    delta : float, optional
        Total δ of the mean, in (0, 1); None for pure ε-DP noise.

    Examples
    --------
    >>> split_mean_budget(1.0, 0.25, 1e-6)
    MeanBudget(sum_epsilon=0.25, count_epsilon=0.75, sum_delta=2.5e-07, count_delta=7.5e-07)
    """
    epsilon = check_epsilon(epsilon)
    split = check_probability(split, "split")
    if delta is None:
        return MeanBudget(split * epsilon, (1.0 - split) * epsilon)
    delta = check_delta(delta)
    return MeanBudget(split * epsilon, (1.0 - split) * epsilon, split * delta, (1.0 - split) * delta)


def dp_count(
    values, epsilon: float, rng, *, mechanism: str = "laplace", delta: float | None = None, nan: str = "raise"
) -> QueryResult:
    """Noisy number of values in the column (sensitivity 1 under add/remove one record).

    Parameters
    ----------
    values : array_like
        The column; numbers (NaN handled by ``nan``).
    epsilon : float
        Privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    mechanism : str, default "laplace"
        A central family's key (:data:`MECHANISMS`).
    delta : float, optional
        δ in (0, 1), required by an (ε, δ) family (``"gaussian"``).
    nan : {"raise", "drop"}, default "raise"
        ``"drop"`` removes NaN (a per-record filter, so the sensitivity is
        unchanged) and reports how many in ``dropped_nan``.
    """
    arr, dropped = _column(values, nan)
    noise = noise_mechanism(epsilon, RELATION.counting_query_sensitivity, mechanism, delta)
    true = float(arr.size)
    return QueryResult("count", true, noise.simulate(true, rng), noise, arr.size, dropped)


def dp_sum(
    values,
    lower: float,
    upper: float,
    epsilon: float,
    rng,
    *,
    mechanism: str = "laplace",
    delta: float | None = None,
    nan: str = "raise",
) -> QueryResult:
    """Noisy sum of the values clipped to ``[lower, upper]``.

    Sensitivity :func:`clipped_sum_sensitivity`, ``max(|lower|, |upper|)`` under add/remove one record.

    Parameters
    ----------
    values : array_like
        The column; numbers (NaN handled by ``nan``).
    lower, upper : float
        Clipping bounds, finite, ``lower < upper``. They must not be derived
        from the data (that would leak it).
    epsilon : float
        Privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    mechanism : str, default "laplace"
        A central family's key (:data:`MECHANISMS`).
    delta : float, optional
        δ in (0, 1), required by an (ε, δ) family (``"gaussian"``).
    nan : {"raise", "drop"}, default "raise"
    """
    arr, dropped = _column(values, nan)
    lower, upper = check_bounds(lower, upper)
    noise = noise_mechanism(epsilon, clipped_sum_sensitivity(lower, upper), mechanism, delta)
    with np.errstate(over="ignore"):  # an overflowing sum is refused below, not warned about
        true = float(np.clip(arr, lower, upper).sum())
        unclipped = float(arr.sum())
    if not np.isfinite(true):
        raise ValueError(
            f"lower and upper must keep the sum of the clipped values finite, got lower={lower} and upper={upper}, "
            f"whose clipped sum over {arr.size} values overflows"
        )
    below, above = _clipped_counts(arr, lower, upper)
    return QueryResult(
        "sum",
        true,
        noise.simulate(true, rng),
        noise,
        arr.size,
        dropped,
        unclipped_value=unclipped,
        lower=lower,
        upper=upper,
        clipped_below=below,
        clipped_above=above,
    )


def dp_mean(
    values,
    lower: float,
    upper: float,
    epsilon: float,
    rng,
    *,
    split: float = 0.5,
    mechanism: str = "laplace",
    delta: float | None = None,
    nan: str = "raise",
) -> MeanResult:
    """Noisy mean as noisy clipped sum over noisy count, with an explicit budget split.

    The sum gets ``split · ε`` (and ``split · δ``), the count the rest
    (:func:`split_mean_budget`); the pair is (ε, δ)-DP and the ratio
    ``clip(sum / max(count, 1), lower, upper)`` is post-processing. The error law is not a closed form: see
    :meth:`MeanResult.simulate_errors`.

    Parameters
    ----------
    values : array_like
        The column; numbers (NaN handled by ``nan``).
    lower, upper : float
        Clipping bounds, finite, ``lower < upper``.
    epsilon : float
        Total privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    split : float, default 0.5
        Fraction of the budget given to the sum, in (0, 1).
    mechanism : str, default "laplace"
        A central family's key (:data:`MECHANISMS`).
    delta : float, optional
        Total δ in (0, 1), required by an (ε, δ) family (``"gaussian"``).
    nan : {"raise", "drop"}, default "raise"
    """
    mechanism = check_choice(mechanism, "mechanism", MECHANISMS)
    budget = split_mean_budget(epsilon, split, families.family(mechanism).delta(delta))
    rng = as_generator(rng)
    s = dp_sum(values, lower, upper, budget.sum_epsilon, rng, mechanism=mechanism, delta=budget.sum_delta, nan=nan)
    c = dp_count(values, budget.count_epsilon, rng, mechanism=mechanism, delta=budget.count_delta, nan=nan)
    return MeanResult(
        true_value=s.true_value / c.true_value,
        noisy_value=_ratio(s.noisy_value, c.noisy_value, s.lower, s.upper),
        sum=s,
        count=c,
        lower=s.lower,
        upper=s.upper,
        split=split,
        n=s.n,
        dropped_nan=s.dropped_nan,
        unclipped_value=s.unclipped_value / c.true_value,
    )


def _clipped_counts(values: np.ndarray, lower: float, upper: float) -> tuple[int, int]:
    """How many values lie strictly below ``lower`` and strictly above ``upper`` (exact, not private)."""
    return int(np.count_nonzero(values < lower)), int(np.count_nonzero(values > upper))


def mean_epsilon_for_accuracy(
    accuracy: float,
    values,
    lower: float,
    upper: float,
    confidence: float = 0.95,
    *,
    split: float = 0.5,
    mechanism: str = "laplace",
    delta: float | None = None,
    nan: str = "raise",
    seed: int = 0,
    trials: int = 10_000,
) -> float:
    """The ε at which :func:`dp_mean`'s Monte-Carlo error bound equals ``accuracy``: ``±accuracy`` at ``confidence``.

    The noisy mean (noisy clipped sum over noisy count) has no closed-form
    error law, so this solves
    ``dp_mean(values, lower, upper, ε, ...).error_bound(confidence, seed, trials) = accuracy``
    for ε: :meth:`MeanResult.error_bound`, the empirical ``confidence``
    quantile of ``|error|`` over ``trials`` simulated releases
    (:func:`dpcore.empirical.empirical_error_bound`), with **common random
    numbers**: every ε reuses the draws of ``seed``, only their scale changes.
    With Laplace noise both scales are proportional to 1/ε, so each simulated
    error ``(S + sN₁)/(n + s'N₂) − S/n`` grows in magnitude with ``1/ε`` as long
    as the noisy count stays above 1 (``d/ds [s/(n + βs)] = n/(n + βs)² > 0``), and
    so does their quantile: the bound is a continuous, decreasing function of ε,
    and ``brentq`` (:func:`dpcore._roots.root_on_log`) finds where it crosses
    ``accuracy``. With Gaussian noise the two σ scale together when
    ``split = 0.5``; with another split they do not quite, and the bound is
    monotone only up to that difference. Where a noisy count below 1 is
    likely (ε of order 1/n and below) the floor at 1 can break the
    monotonicity; the ε returned is then one where the bound equals ``accuracy``.

    It is a Monte-Carlo answer: another ``seed`` gives another ε, within the
    sampling error of a quantile (about ``sqrt(c(1 − c)/trials)/f(t)``,
    :mod:`dpcore.empirical`); with the default 10⁴ trials, a few percent.

    Parameters
    ----------
    accuracy : float
        Target error ``t`` of the mean, in (0, m*), where
        ``m* = max(upper − m, m − lower)`` for the clipped mean ``m``: the final
        clip keeps every error within ``m*``, so every ε meets a larger target.
    values : array_like
        The column; numbers (NaN handled by ``nan``).
    lower, upper : float
        Clipping bounds, finite, ``lower < upper``.
    confidence : float, default 0.95
        Probability in (0, 1).
    split, mechanism, delta, nan
        As in :func:`dp_mean`; ``delta`` (total δ in (0, 1)) is required by an (ε, δ) family (``"gaussian"``).
    seed : int, default 0
        Seed of the simulated releases, in [0, inf), the same at every ε.
    trials : int, default 10_000
        Number of simulated releases per evaluation, in [1, inf). Each
        evaluation costs ``O(trials + n)``; the search takes a few tens.

    Returns
    -------
    float
        ε, with ``dp_mean(values, lower, upper, ε, ...).error_bound(confidence, seed, trials)``
        equal to ``accuracy`` up to a relative 1e-9.

    Examples
    --------
    >>> ages = [23.0, 35.0, 41.0, 19.0, 67.0, 88.0, 52.0, 30.0, 45.0, 61.0] * 100
    >>> eps = mean_epsilon_for_accuracy(2.0, ages, 0.0, 100.0)
    >>> round(dp_mean(ages, 0.0, 100.0, eps, 0).error_bound(0.95, 0, 10_000), 9)
    2.0
    """
    accuracy = check_positive(accuracy, "accuracy")
    confidence = check_probability(confidence, "confidence")
    seed = check_int(seed, "seed", minimum=0)
    trials = check_trials(trials)
    mechanism = check_choice(mechanism, "mechanism", MECHANISMS)
    split = check_probability(split, "split")
    arr, _ = _column(values, nan)
    lower, upper = check_bounds(lower, upper)

    def release(epsilon: float) -> MeanResult:
        return dp_mean(arr, lower, upper, epsilon, seed, split=split, mechanism=mechanism, delta=delta)

    start = release(1.0)  # also checks delta
    ceiling = max(upper - start.true_value, start.true_value - lower)
    if accuracy >= ceiling:
        raise ValueError(
            f"accuracy must be in (0, {ceiling:.6g}) for these values and bounds (the clip to [lower, upper] keeps "
            f"every error within it, so every epsilon meets a larger target), got {accuracy}"
        )
    # starting guess from the delta method: the bound is about 2 approx_std, and approx_std ~ 1/epsilon
    guess = min(max(2.0 * start.approx_std / accuracy, 1e-6), 1e6)
    return root_on_log(
        lambda e: release(e).error_bound(confidence, seed, trials) - accuracy,
        guess,
        increasing=False,
        unreachable=(
            f"accuracy must be below the error bound of the mean as epsilon goes to 0, got {accuracy}: "
            "every epsilon meets it"
        ),
    )


def _bin_edges(bins, lower, upper) -> np.ndarray:
    if np.ndim(bins) == 0:
        k = check_int(bins, "bins", minimum=1, maximum=MAX_CATEGORIES)
        if lower is None or upper is None:
            raise ValueError(
                "lower and upper must be given with a number of bins (edges must not depend on the data), got None"
            )
        lower, upper = check_bounds(lower, upper)
        return np.linspace(lower, upper, k + 1)
    if lower is not None or upper is not None:
        raise ValueError("lower and upper must be None when bins are given as edges, got both")
    edges = np.asarray(bins, dtype=np.float64).reshape(-1)
    if edges.size < 2 or not np.all(np.isfinite(edges)) or not np.all(np.diff(edges) > 0):
        raise ValueError(
            f"bins must be an int >= 1 or at least 2 finite, strictly increasing edges, got {edges.tolist()}"
        )
    check_bounds(edges[0], edges[-1], "bins[0]", "bins[-1]")  # the range of the edges must have a finite width
    return edges


def _histogram_noise(epsilon: float, mechanism: str, delta: float | None):
    """The noise of every count of a histogram: L1 sensitivity for Laplace, L2 for Gaussian, both from :data:`RELATION`."""
    mechanism = check_choice(mechanism, "mechanism", MECHANISMS)
    # the count vector's sensitivity in the family's norm (L1 for Laplace, L2 for the Gaussian)
    return noise_mechanism(epsilon, families.family(mechanism).histogram_sensitivity(RELATION), mechanism, delta)


def dp_histogram(
    values,
    bins,
    epsilon: float,
    rng,
    *,
    lower: float | None = None,
    upper: float | None = None,
    mechanism: str = "laplace",
    delta: float | None = None,
    nan: str = "raise",
) -> QueryResult:
    """Noisy count in each bin, every bin with the full ε (parallel composition).

    One record falls in exactly one bin, so under add/remove one record the
    count vector has L1 and L2 sensitivity 1 and each bin gets the noise of a
    single count (Dwork & Roth 2014, Section 3.3, "histogram queries").

    Parameters
    ----------
    values : array_like
        The column; numbers (NaN handled by ``nan``).
    bins : int or array_like
        Number of equal-width bins on ``[lower, upper]`` (then both are
        required), or the bin edges (strictly increasing, then leave
        ``lower`` and ``upper`` as None). Edges must be fixed without looking at
        the data. Values outside the edges are clipped into the end bins, so
        every record is counted once; how many were is in ``clipped_below``
        and ``clipped_above`` of the result.
    epsilon : float
        Privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    lower, upper : float, optional
        Range of the equal-width bins.
    mechanism : str, default "laplace"
        A central family's key (:data:`MECHANISMS`).
    delta : float, optional
        δ in (0, 1), required by an (ε, δ) family (``"gaussian"``).
    nan : {"raise", "drop"}, default "raise"
    """
    arr, dropped = _column(values, nan)
    edges = _bin_edges(bins, lower, upper)
    noise = _histogram_noise(epsilon, mechanism, delta)
    true = np.histogram(np.clip(arr, edges[0], edges[-1]), bins=edges)[0].astype(np.float64)
    below, above = _clipped_counts(arr, edges[0], edges[-1])
    return QueryResult(
        "histogram",
        true,
        noise.simulate(true, rng),
        noise,
        arr.size,
        dropped,
        bin_edges=edges,
        clipped_below=below,
        clipped_above=above,
    )


def _check_mask(mask) -> np.ndarray:
    arr = np.asarray(mask)
    if arr.dtype != bool:
        raise TypeError(
            f"mask must be a boolean array (True for the rows that satisfy the condition), got dtype {arr.dtype}"
        )
    arr = arr.reshape(-1)
    if arr.size == 0:
        raise ValueError("mask must contain at least one row, got none")
    return arr


def dp_count_matching(
    mask, epsilon: float, rng, *, mechanism: str = "laplace", delta: float | None = None
) -> QueryResult:
    """Noisy number of rows satisfying a condition ("occupation = Sales", "age ≥ 50"): a counting query.

    ``mask[i]`` says whether row ``i`` satisfies the condition. A counting
    query has sensitivity 1 under add/remove one record
    (:attr:`~dpcore.neighbours.NeighbouringRelation.counting_query_sensitivity`
    of :data:`RELATION`; Dwork & Roth 2014, Definition 3.1 and Section 3.3):
    one record more or fewer moves the count by at most 1. That holds only when
    the condition is decided by each row alone, from constants fixed without
    looking at the data ("age ≥ 50", not "age above the median").

    Parameters
    ----------
    mask : array_like of bool, shape (n,)
        True for the rows that satisfy the condition; at least one row. A row
        with a missing value is simply False (it does not satisfy the condition).
    epsilon : float
        Privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    mechanism : str, default "laplace"
        A central family's key (:data:`MECHANISMS`).
    delta : float, optional
        δ in (0, 1), required by an (ε, δ) family (``"gaussian"``).

    Returns
    -------
    QueryResult
        ``query == "count_matching"``; ``n`` is the number of rows.

    Examples
    --------
    >>> r = dp_count_matching([True, False, True], 1.0, 0)
    >>> r.true_value, r.mechanism.scale  # Laplace scale 1/ε
    (2.0, 1.0)
    """
    arr = _check_mask(mask)
    noise = noise_mechanism(epsilon, RELATION.counting_query_sensitivity, mechanism, delta)
    true = float(np.count_nonzero(arr))
    return QueryResult("count_matching", true, noise.simulate(true, rng), noise, arr.size)


def dp_category_counts(
    codes, k: int, epsilon: float, rng, *, mechanism: str = "laplace", delta: float | None = None
) -> QueryResult:
    """Noisy count of every category of a categorical column, each with the full ε (parallel composition).

    The counts of the ``k`` categories are a histogram over disjoint bins:
    one record falls in one category, so under add/remove one record the count
    vector has L1 and L2 sensitivity 1 (:data:`RELATION`) and every category gets
    the noise of a single count (Dwork & Roth 2014, Section 3.3, "histogram
    queries"). This is the central counterpart of the local frequency
    oracles (:class:`~dpcore.randomized_response.GRR`, :class:`~dpcore.unary_encoding.OUE`),
    which answer the same counts from the same codes; note that the local
    oracles are ε-LDP under replace-one, the central release ε-DP under add/remove one.

    Parameters
    ----------
    codes : array_like of int, shape (n,)
        The category of each row, integers in [0, k); none at all gives k zero counts (a publication over a
        declared domain must not be refused because nobody holds one of its values).
    k : int
        Number of categories, in [1, inf). Fixed without looking at the
        data (the list of possible values), or the categories seen would leak.
    epsilon : float
        Privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    mechanism : str, default "laplace"
        A central family's key (:data:`MECHANISMS`).
    delta : float, optional
        δ in (0, 1), required by an (ε, δ) family (``"gaussian"``).

    Returns
    -------
    QueryResult
        ``query == "category_counts"``; ``true_value`` and ``noisy_value`` of shape (k,).

    Examples
    --------
    >>> dp_category_counts([0, 2, 2, 1, 2], 3, 1.0, 0).true_value.tolist()
    [1.0, 1.0, 3.0]
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_CATEGORIES)
    arr = check_category_values(codes, k, "codes")  # no row at all is a valid answer: every count is 0
    noise = _histogram_noise(epsilon, mechanism, delta)
    true = np.bincount(arr, minlength=k).astype(np.float64)
    return QueryResult("category_counts", true, noise.simulate(true, rng), noise, arr.size)


def dp_count_matching_all(
    masks, epsilon: float, rng, *, mechanism: str = "laplace", delta: float | None = None
) -> QueryResult:
    """Noisy number of rows satisfying every one of several conditions ("age ≥ 50 and sex is Female").

    The conjunction of conditions each decided by the row alone is itself decided by the row alone, so the
    count is a counting query: sensitivity 1 under add/remove one record (and under replace-one)
    (:attr:`~dpcore.neighbours.NeighbouringRelation.counting_query_sensitivity`; Dwork & Roth 2014,
    Definition 3.1 and Section 3.3). It is :func:`dp_count_matching` of the rows' logical AND: one release, one
    noise, one charge, whatever the number of conditions.

    Parameters
    ----------
    masks : sequence of array_like of bool, each of shape (n,)
        One mask per condition, all of the same length, at least one.
    epsilon, rng, mechanism, delta
        As in :func:`dp_count_matching`.

    Examples
    --------
    >>> dp_count_matching_all([[True, True, False], [True, False, False]], 1.0, 0).true_value
    1.0
    """
    if isinstance(masks, np.ndarray) and masks.ndim == 1:
        masks = [masks]
    arrays = [_check_mask(m) for m in masks]
    if not arrays:
        raise ValueError("masks must hold at least one condition, got none")
    if len({a.size for a in arrays}) != 1:
        raise ValueError(f"masks must all have one entry per row, got lengths {sorted({a.size for a in arrays})}")
    return dp_count_matching(np.logical_and.reduce(arrays), epsilon, rng, mechanism=mechanism, delta=delta)


def two_way_table_sensitivity(norm: str = "l1", relation=RELATION) -> float:
    """Sensitivity of a two-way table (the counts of every pair of two declared domains) in ``norm``.

    The cells of the product domain are disjoint: one record falls in exactly one cell (or in none, when a value
    lies outside its declared domain). Adding or removing it moves one cell by 1 (L1 = L2 = 1); replacing it moves
    at most two cells by 1 (L1 = 2, L2 = √2). It is the histogram's sensitivity
    (:attr:`~dpcore.neighbours.NeighbouringRelation.histogram_l1_sensitivity`; Dwork & Roth 2014, Section 3.3,
    "histogram queries"; Definition 2.4 for histograms at ℓ1 distance 1).

    Parameters
    ----------
    norm : {"l1", "l2"}
    relation : NeighbouringRelation, default :data:`RELATION`

    >>> from dpcore.neighbours import REPLACE_ONE
    >>> two_way_table_sensitivity(), two_way_table_sensitivity("l1", REPLACE_ONE)
    (1.0, 2.0)
    """
    norm = check_choice(norm, "norm", ("l1", "l2"))
    return relation.histogram_l1_sensitivity if norm == "l1" else relation.histogram_l2_sensitivity


def dp_two_way_table(
    row_codes,
    column_codes,
    shape: tuple[int, int],
    epsilon: float,
    rng,
    *,
    mechanism: str = "laplace",
    delta: float | None = None,
) -> QueryResult:
    """Noisy count of every pair of two categorical columns (a cross-tab), each cell with the full ε.

    A histogram over the product of the two domains (:func:`two_way_table_sensitivity`: L1 and L2 sensitivity 1
    under add/remove one record), so every cell gets the noise of a single count (parallel composition over
    disjoint cells; Dwork & Roth 2014, Section 3.3). Both domains must be fixed without looking at the data:
    a cell nobody holds is released as a noisy zero, and no cell is ever dropped for being empty.

    Parameters
    ----------
    row_codes, column_codes : array_like of int, shape (n,)
        Each row's index in the first and in the second domain (``[0, rows)``, ``[0, columns)``), aligned.
    shape : (int, int)
        ``(rows, columns)``: the sizes of the two domains, each at least 1, their product at most the limit of
        categories.
    epsilon, rng, mechanism, delta
        As in :func:`dp_category_counts`.

    Returns
    -------
    QueryResult
        ``query == "two_way_table"``; ``true_value`` and ``noisy_value`` of shape ``(rows · columns,)``, row-major:
        cell ``(i, j)`` at ``i · columns + j``.

    Examples
    --------
    >>> dp_two_way_table([0, 1, 1], [1, 0, 0], (2, 2), 1.0, 0).true_value.tolist()
    [0.0, 1.0, 2.0, 0.0]
    """
    if len(shape) != 2:
        raise ValueError(f"shape must be (rows, columns), got {shape!r}")
    rows = check_int(shape[0], "shape[0]", minimum=1, maximum=MAX_CATEGORIES)
    columns = check_int(shape[1], "shape[1]", minimum=1, maximum=MAX_CATEGORIES)
    cells = check_int(rows * columns, "rows × columns", minimum=1, maximum=MAX_CATEGORIES)
    r = check_category_values(row_codes, rows, "row_codes")
    c = check_category_values(column_codes, columns, "column_codes")
    if r.size != c.size:
        raise ValueError(f"row_codes and column_codes must have one entry per row each, got {r.size} and {c.size}")
    noise = _histogram_noise(epsilon, mechanism, delta)
    true = np.bincount(r * columns + c, minlength=cells).astype(np.float64)
    return QueryResult("two_way_table", true, noise.simulate(true, rng), noise, r.size)
