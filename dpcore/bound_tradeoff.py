"""The bias of a contribution bound against the noise it needs: choosing m, rows kept per person.

A count or a clipped sum under add/remove one *person* (:mod:`dpcore.contributions`) keeps at most ``m`` rows of each
person, chosen uniformly at random, and adds noise calibrated to ``m`` rows' worth. A small ``m`` drops many rows of
the heavy contributors (bias); a large one needs noise proportional to it. Amin, Kulesza, Muñoz Medina &
Vassilvitskii (2019), Sections 2–3, state the trade-off and its optimum for a sum of k-bounded contributions; this
module computes it exactly for the table at hand, for every bound on a grid, so the explorer can draw it:

* **count of rows**: the bounded count is ``Σ_p min(r_p, m)``, so its bias is ``−Σ_p (r_p − m)⁺`` (exact, no
  randomness: which rows are kept does not change how many);
* **sum of values clipped to [L, U]**: person ``p`` keeps a uniform random subset of size ``k = min(r_p, m)`` of their
  ``r_p`` clipped values ``x_{p,1..r}``. Its sum has mean ``(k / r)·S_p`` and, for a sample drawn without
  replacement, variance ``k (r − k) / (r − 1) · σ²_p`` (``σ²_p`` the population variance of the person's clipped
  values; Cochran 1977, "Sampling Techniques", Theorem 2.2 for the mean, times k² for the sum), independent across
  persons. The bias against the *unclipped* true sum adds the clipping bias ``Σ (clip(x) − x)``, which the declared
  bounds fix whatever ``m`` is;
* **noise**: the family's noise (:meth:`dpcore.families.Family.noise`) at the sensitivity of
  :class:`dpcore.contributions.ContributionBounds` with ``max_rows = m`` (``m`` for a count, ``m·max(|L|, |U|)`` for a
  sum), independent of the sampling;
* **mean** (a noisy sum over a noisy count, the budget split as :func:`dpcore.queries.split_mean_budget`): the rows
  kept ``C = Σ min(r_p, m)`` do not depend on the sampling, so the bias ``E[S]/C − mean`` and the sampling spread
  ``√Var[S]/C`` are exact; the noise is the ratio's first-order (delta-method) std (Casella & Berger 2002,
  Section 5.5.4), see :func:`mean_tradeoff`.

The root-mean-square error is ``√(bias² + sampling variance + noise variance)``, exact for every ``m``; its minimum
over every whole bound is marked. Past ``MAX_CURVE_POINTS`` bounds the curve is drawn on a geometric grid, and the
exact minimum is found segment by segment: between two consecutive distinct rows per person the squared error is a
quadratic in ``m`` (:func:`_best_candidates`), so each segment's best whole bound is an end or next to the vertex. ``tests/test_bound_tradeoff.py`` checks every term against the exact expectation over every
subset of small tables.

Choosing ``m`` by looking at this curve is **not private**: the curve is computed from the rows per person and the
values. :func:`private_bound` chooses it privately, as a DP quantile of the rows per person (one value per person, so
add/remove one person is add/remove one record of that table; Smith 2011's exponential mechanism,
:class:`dpcore.quantiles.ExponentialQuantile`), to be charged like any release.

References
----------
- Amin, Kulesza, Muñoz Medina & Vassilvitskii (2019), "Bounding User Contributions: A Bias-Variance Trade-off in
  Differential Privacy", ICML, Sections 2–3. https://proceedings.mlr.press/v97/amin19a.html
- Cochran (1977), "Sampling Techniques", 3rd ed., Wiley, Theorem 2.2 (variance of the mean of a simple random sample
  drawn without replacement: ``(σ²/k)·(r − k)/(r − 1)`` with σ² the population variance, divisor r). ISBN 0-471-16240-X
- Casella & Berger (2002), "Statistical Inference", 2nd ed., Duxbury, ISBN 0-534-24312-6, Section 5.5.4 (the delta method: the
  first-order variance of a ratio of two independent noisy releases, as :attr:`dpcore.queries.MeanResult.approx_std`).
- Smith (2011), "Privacy-preserving statistical estimation with optimal convergence rates", STOC (the exponential
  mechanism for quantiles). https://doi.org/10.1145/1993636.1993743
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from dpcore.contributions import ContributionBounds, person_codes
from dpcore.families import family as _family
from dpcore.limits import MAX_CURVE_POINTS, MAX_TABLE_ROWS
from dpcore.neighbours import UNIT_PERSON
from dpcore.publish import publish_quantile
from dpcore.quantiles import ExponentialQuantile
from dpcore.queries import split_mean_budget
from dpcore.randomness import SecureGenerator
from dpcore.release import PublicFact, Release
from dpcore.validation import as_generator, check_bounds, check_elements, check_int, check_probability

__all__ = [
    "BoundTradeoff",
    "count_tradeoff",
    "sum_tradeoff",
    "mean_tradeoff",
    "private_bound",
    "publish_private_bound",
]


@dataclass(frozen=True)
class BoundTradeoff:
    """Bias, sampling and noise of a contribution bound, for every bound on a grid.

    Attributes
    ----------
    bounds : numpy.ndarray of int
        The bounds m (rows kept per person), increasing.
    bias : numpy.ndarray
        The expected bounded answer minus the true answer (≤ 0 for a count).
    sampling_std : numpy.ndarray
        The standard deviation from which rows are kept (0 for a count).
    noise_std : numpy.ndarray
        The standard deviation of the noise calibrated to each bound.
    query : str
        ``"count"``, ``"sum"`` or ``"mean"``.
    """

    bounds: np.ndarray
    bias: np.ndarray
    sampling_std: np.ndarray
    noise_std: np.ndarray
    query: str

    @property
    def rmse(self) -> np.ndarray:
        """``√(bias² + sampling variance + noise variance)`` for each bound."""
        return np.sqrt(np.square(self.bias) + np.square(self.sampling_std) + np.square(self.noise_std))

    @property
    def best_index(self) -> int:
        """The index of the smallest error (the first one if tied)."""
        return int(np.argmin(self.rmse))

    @property
    def best_bound(self) -> int:
        """The bound of smallest error on the grid, which holds the exact minimum over every whole bound when the
        bounds were not given (not private: it was read from the data)."""
        return int(self.bounds[self.best_index])


def _grid(bounds, largest: int) -> np.ndarray:
    if bounds is None:
        largest = max(1, int(largest))
        if largest <= MAX_CURVE_POINTS:
            return np.arange(1, largest + 1, dtype=np.int64)
        # more bounds than a curve holds: a geometric grid, as dense at the small bounds as on a log axis; the exact
        # minimum over every whole number is added to it by _best_candidates
        return np.unique(np.rint(np.geomspace(1, largest, MAX_CURVE_POINTS - _CANDIDATES)).astype(np.int64))
    grid = np.asarray(bounds)
    check_elements(int(grid.size), "bounds", MAX_CURVE_POINTS)
    if grid.size == 0:
        raise ValueError("bounds must hold at least one bound, got none")
    if grid.dtype.kind not in "iu" and not (grid.dtype.kind == "f" and np.all(np.isfinite(grid))):
        raise TypeError(f"bounds must be whole numbers in [1, {MAX_TABLE_ROWS:,}], got {grid.dtype} values")
    if np.any(grid != np.floor(grid)) or grid.min() < 1 or grid.max() > MAX_TABLE_ROWS:
        raise ValueError(
            f"bounds must be whole numbers in [1, {MAX_TABLE_ROWS:,}], got values from {grid.min()} to {grid.max()}"
        )
    return np.unique(grid.astype(np.int64))


#: Whole bounds added to a geometric grid: the few best of the exact search (rounding decides among near ties).
_CANDIDATES = 3


def _unit_noise_std(key: str, epsilon: float, delta, per_row: float) -> float:
    """The noise std for one row of a person (m = 1). Every central family is a scale family in its sensitivity
    (Laplace: b = Δ/ε; the analytic Gaussian: σ = Δ·σ(ε, δ) for Δ = 1, Balle & Wang 2018 Thm 8 depends on Δ/σ only;
    the staircase: Geng & Viswanath 2014 scale the unit staircase by Δ), so m rows' worth is m times this: the
    noise std is linear in m (``tests/test_bound_tradeoff.py`` checks it for every central family)."""
    sensitivity = ContributionBounds(max_rows=1).count_sensitivity().l1 * per_row
    return float(_family(key).noise(epsilon, sensitivity, delta).std)


def _suffix(values: np.ndarray) -> np.ndarray:
    """``out[j] = Σ_{i ≥ j} values[i]``, with ``out[len] = 0``."""
    return np.concatenate([np.cumsum(values[::-1])[::-1], np.zeros(1, dtype=values.dtype)])


def _best_candidates(distinct: np.ndarray, alpha, beta, gamma) -> np.ndarray:
    """The whole bounds of smallest error over *every* whole number in [1, largest rows per person].

    Between two consecutive distinct rows per person ``r_{j−1} ≤ m ≤ r_j`` the persons who lose rows are the same
    (those with at least ``r_j`` rows), so the bias is linear in m, the sampling variance ``Σ m(r − m)/(r − 1)·σ²``
    quadratic, and the noise std ``m·c`` linear: the squared error is ``α_j + β_j m + γ_j m²`` on the segment.
    Its smallest value over the whole numbers of the segment is at an end or at a whole number next to the vertex
    ``−β_j / 2γ_j`` (when γ_j > 0); every segment's candidates are ranked and the best few returned, to be evaluated
    on the grid by the same formulas as every other bound (so the marked minimum is the exact one).
    """
    lows = np.concatenate([[1], distinct[:-1]]).astype(float)
    highs = distinct.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = np.where(gamma > 0, -beta / (2 * np.where(gamma > 0, gamma, 1.0)), lows)
    vertex = np.clip(vertex, lows, highs)
    candidates = np.stack([lows, highs, np.floor(vertex), np.ceil(vertex)])  # (4, segments), all in [low, high]
    squared = alpha + beta * candidates + gamma * candidates**2
    order = np.lexsort((candidates.ravel(), squared.ravel()))  # smallest error first, then the smallest bound
    best = np.unique(candidates.ravel()[order].astype(np.int64), return_index=True)
    return best[0][np.argsort(best[1])][:_CANDIDATES]


def count_tradeoff(persons, epsilon: float, *, bounds=None, mechanism: str = "laplace", delta=None) -> BoundTradeoff:
    """The bias/noise trade-off of a count of rows with at most m rows per person.

    Parameters
    ----------
    persons : array_like, shape (n,)
        Each row's person identifier, no missing value.
    epsilon : float
        The count's ε, in (0, inf).
    bounds : array_like of int, optional
        The bounds m to evaluate; default every whole number 1, 2, …, the largest rows per person, or when that is
        more than ``MAX_CURVE_POINTS`` a geometric grid from 1 to it with the exact best bound over every whole
        number added (:attr:`BoundTradeoff.best_bound` is then the exact minimum over 1 … the largest).
    mechanism : str, default "laplace"
        A central family of :mod:`dpcore.families` (its key or name).
    delta : float, optional
        For a family that takes δ (the Gaussian).

    Examples
    --------
    >>> t = count_tradeoff(["a"] * 5 + ["b", "c", "d"], 1.0, bounds=[1, 2, 5])
    >>> t.bias.tolist()  # a's 5 rows kept to 1, 2, 5
    [-4.0, -3.0, 0.0]
    >>> t.noise_std.round(3).tolist()  # Laplace at scale m/ε: std √2·m
    [1.414, 2.828, 7.071]
    """
    check_elements(int(np.size(persons)), "rows", MAX_TABLE_ROWS)
    codes, labels = person_codes(persons)
    rows = np.bincount(codes, minlength=labels.size)
    largest = int(rows.max(initial=1))
    grid = _grid(bounds, largest)
    unit_noise = _unit_noise_std(mechanism, epsilon, delta, 1.0)
    distinct, how_many = np.unique(rows, return_counts=True)
    # persons with more than m rows (those with at least distinct[j], j the first distinct value > m): they lose
    # r − m rows each, so the bias is −(R − m·N) with R their rows and N their number (whole numbers: exact)
    rows_above, persons_above = _suffix(distinct * how_many), _suffix(how_many)
    if bounds is None and largest > MAX_CURVE_POINTS:
        r_rows, n_persons = rows_above[:-1].astype(float), persons_above[:-1].astype(float)
        squared = (r_rows**2, -2.0 * r_rows * n_persons, n_persons**2 + unit_noise**2)
        grid = np.union1d(grid, _best_candidates(distinct, *squared))
    j = np.searchsorted(distinct, grid, side="right")
    bias = 0.0 - (rows_above[j] - grid * persons_above[j]).astype(float)
    return BoundTradeoff(grid, bias, np.zeros(grid.size), grid * unit_noise, "count")


@dataclass(frozen=True)
class _ClippedSums:
    """Per distinct number of rows per person r (increasing), the sums that give the bounded sum's moments and the
    rows kept at any bound m by a suffix over the persons with more than m rows (module notes)."""

    distinct: np.ndarray
    kept_whole: np.ndarray  # Σ S_p over the persons with r ≤ distinct[j − 1] (index j), S_p their clipped sum
    share: np.ndarray  # Σ S_p / r_p over the persons with r ≥ distinct[j]
    spread: np.ndarray  # Σ r σ²_p / (r − 1) over them (r > 1)
    shrink: np.ndarray  # Σ σ²_p / (r − 1) over them (r > 1)
    rows_above: np.ndarray  # Σ r over them
    persons_above: np.ndarray  # their number
    rows: int
    truth: float  # the sum of the unclipped values

    @classmethod
    def of(cls, persons, values, lower: float, upper: float) -> tuple[_ClippedSums, float, float]:
        """The table's sums, and the checked bounds."""
        check_elements(int(np.size(persons)), "rows", MAX_TABLE_ROWS)
        lower, upper = check_bounds(lower, upper)
        x = np.asarray(values, dtype=float).ravel()
        if x.size != np.size(persons):
            raise ValueError(f"values must have one entry per row ({np.size(persons):,}), got {x.size:,}")
        if not np.all(np.isfinite(x)):
            raise ValueError("values must be finite numbers, got a missing or infinite value")
        codes, labels = person_codes(persons)
        clipped = np.clip(x, lower, upper)
        rows = np.bincount(codes, minlength=labels.size)
        totals = np.bincount(codes, weights=clipped, minlength=labels.size)
        squares = np.bincount(codes, weights=clipped**2, minlength=labels.size)
        variances = np.maximum(squares / rows - (totals / rows) ** 2, 0.0)  # population variance, divisor r
        distinct, where, how_many = np.unique(rows, return_inverse=True, return_counts=True)
        r = distinct.astype(float)
        total_by_r = np.bincount(where, weights=totals)
        variance_by_r = np.bincount(where, weights=variances)
        above_one = np.maximum(r - 1, 1)
        sums = cls(
            distinct=distinct,
            kept_whole=np.concatenate([[0.0], np.cumsum(total_by_r)]),
            share=_suffix(total_by_r / r),
            spread=_suffix(np.where(r > 1, r * variance_by_r / above_one, 0.0)),
            shrink=_suffix(np.where(r > 1, variance_by_r / above_one, 0.0)),
            rows_above=_suffix(distinct * how_many),
            persons_above=_suffix(how_many),
            rows=int(x.size),
            truth=float(x.sum()),
        )
        return sums, lower, upper

    @property
    def largest(self) -> int:
        return int(self.distinct.max(initial=1))

    def at(self, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """At each bound m of ``grid``: the expected bounded clipped sum, its sampling variance, and the rows kept.

        A person with r > m rows keeps m of them: mean (m/r)·S, variance m(r − m)/(r − 1)·σ² (Cochran 1977,
        Thm 2.2), so over those persons (a suffix of the distinct r) m·share and m·spread − m²·shrink; the rows kept,
        Σ min(r, m), are all the rows but the r − m of each of them.
        """
        j = np.searchsorted(self.distinct, grid, side="right")
        m = grid.astype(float)
        expected = self.kept_whole[j] + m * self.share[j]
        variance = np.maximum(m * self.spread[j] - m**2 * self.shrink[j], 0.0)
        kept = self.rows - (self.rows_above[j] - grid * self.persons_above[j])
        return expected, variance, kept.astype(float)


def sum_tradeoff(
    persons, values, lower: float, upper: float, epsilon: float, *, bounds=None, mechanism: str = "laplace", delta=None
) -> BoundTradeoff:
    """The bias/noise trade-off of a sum of values clipped to ``[lower, upper]`` with at most m rows per person.

    The bias is against the true sum of the *unclipped* values (it includes the clipping bias, the same for every
    bound); the sampling term is the spread of which rows a person keeps (Cochran 1977, Thm 2.2).

    Parameters
    ----------
    persons : array_like, shape (n,)
        Each row's person identifier, no missing value.
    values : array_like, shape (n,)
        Finite numbers.
    lower, upper : float
        The declared clipping bounds, ``lower < upper``.
    epsilon, bounds, mechanism, delta
        As in :func:`count_tradeoff`.

    Examples
    --------
    >>> t = sum_tradeoff(["a", "a", "b"], [1.0, 3.0, 2.0], 0.0, 10.0, 1.0, bounds=[1, 2])
    >>> t.bias.tolist(), t.sampling_std.tolist()  # m = 1: a keeps 1 or 3 (mean 2, sd 1), so E = 4 against 6
    ([-2.0, 0.0], [1.0, 0.0])
    """
    sums, lower, upper = _ClippedSums.of(persons, values, lower, upper)
    grid = _grid(bounds, sums.largest)
    per_row = ContributionBounds().sum_sensitivity(lower, upper).l1
    unit_noise = _unit_noise_std(mechanism, epsilon, delta, per_row)
    if bounds is None and sums.largest > MAX_CURVE_POINTS:
        a, b = sums.kept_whole[:-1] - sums.truth, sums.share[:-1]
        squared = (a**2, 2 * a * b + sums.spread[:-1], b**2 - sums.shrink[:-1] + unit_noise**2)
        grid = np.union1d(grid, _best_candidates(sums.distinct, *squared))
    expected, sampling_variance, _ = sums.at(grid)
    return BoundTradeoff(grid, expected - sums.truth, np.sqrt(sampling_variance), grid * unit_noise, "sum")


#: Bounds evaluated at once by the exhaustive search of a mean's best bound (8 MB a float array).
_CHUNK = 1_000_000


def mean_tradeoff(
    persons,
    values,
    lower: float,
    upper: float,
    epsilon: float,
    *,
    split: float = 0.5,
    bounds=None,
    mechanism: str = "laplace",
    delta=None,
) -> BoundTradeoff:
    """The bias/noise trade-off of a mean (a noisy clipped sum over a noisy count of the same bounded rows, the budget
    split as :func:`dpcore.groupby.dp_person_mean` splits it) with at most m rows per person.

    With ``C = Σ min(r_p, m)`` rows kept (the same whichever are sampled) and ``S`` their clipped sum:

    * **bias**: ``E[S]/C`` minus the true mean of the *unclipped* values (exact: C is not random);
    * **sampling**: ``√Var[S] / C`` (exact, Cochran 1977, Thm 2.2 for S);
    * **noise**: the first-order (delta-method) std of the noisy ratio, ``√(σ_S² + (E[S]/C)²·σ_C²) / C`` (Casella &
      Berger 2002, Section 5.5.4, as :attr:`dpcore.queries.MeanResult.approx_std`), with ``σ_S`` the sum's noise at
      ``split·ε`` and sensitivity ``m·max(|L|, |U|)`` and ``σ_C`` the count's at ``(1 − split)·ε`` and sensitivity m
      (:func:`dpcore.queries.split_mean_budget`); it ignores the floor at a count of 1 and the clip, so it is close
      when the count's noise is small next to C.

    Its error is not a quadratic in m between two distinct rows per person (C divides it), so past
    ``MAX_CURVE_POINTS`` bounds the best one is found by evaluating every whole bound, a million at a time.

    Parameters
    ----------
    persons, values, lower, upper, epsilon, bounds, mechanism, delta
        As in :func:`sum_tradeoff`.
    split : float, default 0.5
        The share of ε (and δ) for the sum, in (0, 1).

    Examples
    --------
    >>> t = mean_tradeoff(["a", "a", "b"], [1.0, 3.0, 2.0], 0.0, 10.0, 1.0, bounds=[1, 2])
    >>> t.bias.tolist(), t.sampling_std.tolist()  # m = 1: (a's 1 or 3, mean 2) + b's 2 over 2 rows, against 2
    ([0.0, 0.0], [0.5, 0.0])
    """
    sums, lower, upper = _ClippedSums.of(persons, values, lower, upper)
    if sums.rows == 0:
        raise ValueError("values must hold at least one row for a mean, got none")
    budget = split_mean_budget(epsilon, split, _family(mechanism).delta(delta))
    per_row = ContributionBounds().sum_sensitivity(lower, upper).l1
    sum_noise = _unit_noise_std(mechanism, budget.sum_epsilon, budget.sum_delta, per_row)
    count_noise = _unit_noise_std(mechanism, budget.count_epsilon, budget.count_delta, 1.0)
    truth = sums.truth / sums.rows

    def terms(grid):
        expected, variance, kept = sums.at(grid)
        target = expected / kept
        m = grid.astype(float)
        noise = np.sqrt(np.square(m * sum_noise) + np.square(target * m * count_noise)) / kept
        return target - truth, np.sqrt(variance) / kept, noise

    grid = _grid(bounds, sums.largest)
    if bounds is None and sums.largest > MAX_CURVE_POINTS:
        best = []
        for start in range(1, sums.largest + 1, _CHUNK):  # every whole bound, a chunk at a time
            chunk = np.arange(start, min(start + _CHUNK, sums.largest + 1), dtype=np.int64)
            error = np.sqrt(np.sum(np.square(terms(chunk)), axis=0))
            best.append((float(error.min()), int(chunk[np.argmin(error)])))
        grid = np.union1d(grid, [min(best)[1]])  # the smallest error, the smallest bound among ties
    bias, sampling, noise = terms(grid)
    return BoundTradeoff(grid, bias, sampling, noise, "mean")


def _rows_per_person(persons, q, max_bound) -> tuple[float, int, np.ndarray]:
    """The checked quantile and declared largest bound, and the table of rows per person (one value per person)."""
    q = check_probability(q, "q")
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must be in (0, 1), got {q}")
    max_bound = check_int(max_bound, "max_bound", minimum=2, maximum=MAX_TABLE_ROWS)
    check_elements(int(np.size(persons)), "rows", MAX_TABLE_ROWS)
    codes, labels = person_codes(persons)
    return q, max_bound, np.bincount(codes, minlength=labels.size).astype(float)


def _whole_bound(point: float, max_bound: int) -> int:
    """The released point rounded up to a whole number of rows in [1, max_bound] (post-processing)."""
    return int(min(max_bound, max(1, math.ceil(point))))


def private_bound(persons, epsilon: float, *, q: float = 0.9, max_bound: int, rng) -> int:
    """Choose the bound m privately: the ``q``-quantile of the rows per person, by the exponential mechanism.

    Each person is one value of the table of rows per person, so its neighbours under add/remove one person differ by
    one record, and :class:`~dpcore.quantiles.ExponentialQuantile` over the declared range ``[1, max_bound]`` is ε-DP
    for persons (Smith 2011). The released point is rounded up to a whole number of rows (post-processing). It costs
    ``epsilon``, which the caller charges; ``rng`` is seeded in a simulation, a
    :class:`~dpcore.randomness.SecureGenerator` in a publication.

    Parameters
    ----------
    persons : array_like, shape (n,)
        Each row's person identifier, no missing value.
    epsilon : float
        In (0, inf).
    q : float, default 0.9
        The quantile of rows per person to keep whole, in (0, 1).
    max_bound : int
        The declared largest bound, in [2, MAX_TABLE_ROWS] (public: not read from the data).
    rng : numpy.random.Generator, SecureGenerator or int

    Examples
    --------
    >>> persons = np.repeat(np.arange(1_000), np.arange(1_000) % 10 + 1)  # 1 to 10 rows each: median 5.5
    >>> private_bound(persons, 1.0, q=0.5, max_bound=1_000, rng=0) in (5, 6, 7)
    True
    """
    if isinstance(rng, SecureGenerator):  # a publication: one secure draw, as publish_private_bound makes it
        return int(publish_private_bound(persons, epsilon, q=q, max_bound=max_bound).value)
    q, max_bound, rows = _rows_per_person(persons, q, max_bound)
    point = ExponentialQuantile(epsilon, 1.0, float(max_bound), q).intervals(rows).simulate(as_generator(rng))
    return _whole_bound(point, max_bound)


def publish_private_bound(persons, epsilon: float, *, q: float = 0.9, max_bound: int, identifier: str = "") -> Release:
    """:func:`private_bound` as a publication: one secure draw, a :class:`~dpcore.release.Release` under add/remove one
    person, to be charged before it is shown.

    The q-quantile of the rows per person by :func:`dpcore.publish.publish_quantile` over ``[1, max_bound]`` on a grid
    of one row (one value per person: add/remove one person is add/remove one record of that table, so the
    exponential mechanism's ε holds for persons), rounded up to a whole number of rows (post-processing).

    Parameters
    ----------
    persons : array_like, shape (n,)
        Each row's person identifier, no missing value.
    epsilon : float
        In (0, inf).
    q : float, default 0.9
        In (0, 1).
    max_bound : int
        The declared largest bound, in [2, MAX_TABLE_ROWS].
    identifier : str, default ""
        The person column's name, stated in the release's facts.

    Returns
    -------
    Release
        One value, the bound m, ε-DP (δ = 0) under add/remove one person.
    """
    q, max_bound, rows = _rows_per_person(persons, q, max_bound)
    drawn = publish_quantile(rows, q, 1.0, float(max_bound), epsilon, grid=1.0)
    bound = _whole_bound(float(drawn.value), max_bound)
    return replace(
        drawn,
        query="contribution bound",
        value=float(bound),
        labels=(f"m, rows kept per person (the {q:g}-quantile of rows per person)",),
        unit=UNIT_PERSON,
        public=(
            PublicFact("person identifier", identifier or "(declared column)", "declared"),
            *drawn.public,
            PublicFact("rounding", "up to a whole number of rows (post-processing)", "fixed"),
        ),
    )
