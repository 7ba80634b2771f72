"""Choosing a clipping bound privately, and a mean that needs no bounds: AboveThreshold on clipping queries.

A clipped sum needs a bound ``b`` fixed without looking at the data. The
query ``q_b = Σ clip(x, 0, b) − Σ clip(x, 0, b + 1)`` has sensitivity 1 and
equals ``−#{x ≥ b + 1}`` on integer data (in general
``−Σ min(max(x − b, 0), 1)``): it is 0 exactly when clipping at ``b`` loses
nothing. AboveThreshold (:mod:`dpcore.svt`) with threshold 0 over candidate
bounds stops at the first that passes: a bound above nearly all the data, for
ε however many candidates it reads (Near & Abuah, chapter "The Sparse Vector
Technique"). The naive alternative answers every ``q_b`` with ``Lap(k/ε)``.

**Exact comparisons, to publish** (``exact=True``): the compared answers are then the
integer counts ``−#{x > b}`` (sensitivity 1 under add/remove one record; 0 exactly when
``q_b`` is 0, so the same bound passes without noise, and equal to ``q_b`` on integer data),
and AboveThreshold draws exact discrete Laplace noise (:mod:`dpcore.svt`, whose docstring
carries the proof that Dwork & Roth's Theorem 3.23 holds for it on integer queries). The
float path stays for the seeded simulations.

The candidates are a privacy requirement as much as the threshold: they must
not depend on the data. :data:`LADDER_CANDIDATES` (1, 2, 5, 10, …, 5·10⁶) and
:func:`evenly_spaced_candidates` (a grid up to a bound fixed from domain
knowledge) are two such choices.

References
----------
- Near & Abuah (2021), *Programming Differential Privacy*, chapter "The Sparse Vector Technique"
  (choosing a clipping parameter with AboveThreshold). https://programming-dp.com/
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Algorithm 1, Theorems 3.16 and 3.23.
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Casella & Berger (2002), *Statistical Inference*, 2nd ed., Duxbury, Section 5.5.4 (the delta method).
  ISBN 0-534-24312-6
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpcore.laplace import Laplace, laplace_sum_pdf, sample_laplace
from dpcore.lattice import lattice_mechanism
from dpcore.limits import MAX_CANDIDATES
from dpcore.svt import above_threshold_trials, naive_scale, trial_blocks
from dpcore.validation import (
    as_generator,
    check_elements,
    check_epsilon,
    check_int,
    check_numeric_array,
    check_positive,
    check_trials,
)

__all__ = [
    "QUERY_SENSITIVITY",
    "LADDER_CANDIDATES",
    "one_two_five_ladder",
    "evenly_spaced_candidates",
    "clipping_queries",
    "counts_above",
    "choose_clipping_bound",
    "naive_clipping_bound",
    "AutoMeanResult",
    "auto_mean",
]

#: Sensitivity of every clipping query ``q_b``: one record moves it by ``min(max(x − b, 0), 1) <= 1``.
QUERY_SENSITIVITY = 1.0


def _part(epsilon: float) -> float:
    """The ε of each of the three parts of :func:`auto_mean` (bound, sum, count): ε/3, by sequential composition."""
    return epsilon / 3.0


def one_two_five_ladder(first_decade: int = 0, last_decade: int = 6) -> np.ndarray:
    """Candidate bounds 1, 2, 5 times each power of ten from ``10**first_decade`` to ``5 · 10**last_decade``.

    A data-independent ladder: it spans many orders of magnitude with three
    steps per decade, so AboveThreshold overshoots the data by at most a
    factor 2.5 (from 2 to 5).

    Parameters
    ----------
    first_decade, last_decade : int
        Powers of ten, ``first_decade <= last_decade``.

    Examples
    --------
    >>> one_two_five_ladder(0, 1).tolist()
    [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
    """
    first_decade = check_int(first_decade, "first_decade", minimum=-300, maximum=300)  # 10.0**e stays finite
    last_decade = check_int(last_decade, "last_decade", minimum=first_decade, maximum=300)
    return np.array([m * 10.0**e for e in range(first_decade, last_decade + 1) for m in (1, 2, 5)])


#: The 1-2-5 ladder from 1 to 5·10⁶ (21 bounds), fixed before any data is seen. Read-only.
LADDER_CANDIDATES = one_two_five_ladder(0, 6)
LADDER_CANDIDATES.setflags(write=False)


def evenly_spaced_candidates(largest: float, n: int = 100) -> np.ndarray:
    """``n`` evenly spaced candidate bounds ``largest/n, 2·largest/n, …, largest``.

    ``largest`` must come from domain knowledge, not from the data, for the
    choice to stay private; the smallest candidate is ``largest/n > 0``.

    Parameters
    ----------
    largest : float
        The largest candidate, in (0, inf).
    n : int, default 100
        Number of candidates, at least 1.

    Examples
    --------
    >>> evenly_spaced_candidates(10.0, 5).tolist()
    [2.0, 4.0, 6.0, 8.0, 10.0]
    """
    largest = check_positive(largest, "largest")
    n = check_int(n, "n", minimum=1, maximum=MAX_CANDIDATES)
    return np.linspace(largest / n, largest, n)


def _check_candidates(candidates) -> np.ndarray:
    cand, _ = check_numeric_array(candidates, "candidates")
    check_elements(cand.size, "the number of candidates", MAX_CANDIDATES)
    if cand.min() <= 0:
        raise ValueError(f"candidates must be in (0, inf), got {cand.min()}")
    if cand.size > 1 and not np.all(np.diff(cand) > 0):
        raise ValueError("candidates must be strictly increasing, got an unsorted or repeated sequence")
    return cand


def _check_sums_fit(cand: np.ndarray, n: int) -> None:
    """Refuse candidates so large that ``n`` values clipped to ``[0, b + 1]`` could sum past the largest float.

    Every clipped sum is at most ``n (b + 1)``; when that is finite, so is every
    partial sum :func:`_clipped_sums` reads.
    """
    if not math.isfinite(n * (float(cand[-1]) + 1.0)):
        limit = np.finfo(np.float64).max / n - 1.0
        raise ValueError(
            f"candidates must be at most {limit:.6g} for a column of {n} values (a larger bound overflows the "
            f"clipped sum), got {cand[-1]}"
        )


def _clipped_sums(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """``Σ clip(x, 0, b)`` for every ``b`` in ``bounds`` (``b >= 0``), from one sort of the data.

    With ``x⁺ = max(x, 0)`` sorted and ``k = #{x⁺ <= b}``:
    ``Σ clip(x, 0, b) = Σ_{x⁺ <= b} x⁺ + b (n − k)``.
    """
    xs = _sorted_nonnegative(values)  # a caller's sorted copy skips the sort: O(n) instead of O(n log n)
    with np.errstate(over="ignore"):  # partial sums past the largest bound may overflow; they are never read
        csum = np.concatenate(([0.0], np.cumsum(xs)))
    k = np.searchsorted(xs, bounds, side="right")
    return csum[k] + bounds * (xs.size - k)


def clipping_queries(values, candidates, *, nan: str = "raise") -> np.ndarray:
    """The answers ``q_b = Σ clip(x, 0, b) − Σ clip(x, 0, b + 1)`` for every candidate ``b``.

    Each ``q_b`` has sensitivity 1 under add/remove one record (a record changes
    it by ``min(max(x − b, 0), 1) <= 1``); ``q_b <= 0``, and on integer data
    ``q_b = −#{x > b}``. Source: Near & Abuah, *Programming Differential
    Privacy*, chapter "The Sparse Vector Technique".

    Parameters
    ----------
    values : array_like
        The column (numbers; negative values clip to 0).
    candidates : array_like
        Candidate bounds ``b``, in (0, inf), strictly increasing.
    nan : {"raise", "drop"}
    """
    values, _ = check_numeric_array(values, "values", nan=nan)
    cand = _check_candidates(candidates)
    _check_sums_fit(cand, values.size)
    return _clipped_sums(values, cand) - _clipped_sums(values, cand + 1.0)


def _sorted_nonnegative(values: np.ndarray) -> np.ndarray:
    xs = np.maximum(values, 0.0)
    if not bool(np.all(xs[:-1] <= xs[1:])):  # a caller's sorted copy skips the sort
        xs = np.sort(xs)
    return xs


def counts_above(values, candidates, *, nan: str = "raise") -> np.ndarray:
    """``#{x > b}`` for every candidate ``b``, as int64: the integer queries of the exact path.

    ``−#{x > b}`` has sensitivity 1 under add/remove one record and is 0 exactly when
    :func:`clipping_queries`' ``q_b`` is (nobody lost by clipping at ``b``); on integer data the two are equal.

    Parameters
    ----------
    values : array_like
        The column (numbers).
    candidates : array_like
        Candidate bounds ``b``, in (0, inf), strictly increasing.
    nan : {"raise", "drop"}

    Examples
    --------
    >>> counts_above([0.5, 3.0, 7.2, 10.0], [1.0, 5.0, 10.0]).tolist()
    [3, 2, 0]
    """
    values, _ = check_numeric_array(values, "values", nan=nan)
    cand = _check_candidates(candidates)
    xs = _sorted_nonnegative(values)
    return (xs.size - np.searchsorted(xs, cand, side="right")).astype(np.int64)


def choose_clipping_bound(
    values, candidates, epsilon: float, rng, trials: int | None = None, *, nan: str = "raise", exact: bool = False
):
    """Choose a clipping bound with AboveThreshold on :func:`clipping_queries`, threshold 0 (ε-DP).

    The first candidate whose noisy ``q_b`` passes is the bound; when none
    passes, the largest candidate is returned (a data-independent fallback,
    so still ε-DP). With ``exact``, the queries are the counts ``−#{x > b}`` of
    :func:`counts_above` and the comparisons exact (discrete Laplace noise,
    :func:`dpcore.svt.above_threshold_trials` with ``exact=True``; Dwork & Roth 2014,
    Theorem 3.23, carried to integer queries in :mod:`dpcore.svt`): to publish.

    Parameters
    ----------
    values : array_like
        The column (numbers; negative values clip to 0).
    candidates : array_like
        Candidate bounds, in (0, inf), strictly increasing.
    epsilon : float
        Privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    trials : int, optional
        When given, that many independent choices as a float array.
    nan : {"raise", "drop"}
    exact : bool, default False
        Exact comparisons on the integer counts (to publish); False keeps the float path of the simulations.

    Returns
    -------
    float or numpy.ndarray
    """
    cand = _check_candidates(candidates)
    answers = -counts_above(values, cand, nan=nan) if exact else clipping_queries(values, cand, nan=nan)
    size = 1 if trials is None else trials
    idx = above_threshold_trials(answers, 0.0, epsilon, rng, size, QUERY_SENSITIVITY, exact=exact)
    bounds = cand[np.where(idx >= 0, idx, cand.size - 1)]
    return float(bounds[0]) if trials is None else bounds


@dataclass(frozen=True, eq=False)
class AutoMeanResult:
    """A mean whose clipping bound was itself chosen privately (see :func:`auto_mean`).

    Fields are floats for a single run and arrays of shape ``(trials,)`` otherwise.

    Attributes
    ----------
    bound : float or numpy.ndarray
        The chosen clipping bound ``b`` (data clipped to ``[0, b]``).
    found : bool or numpy.ndarray
        Whether AboveThreshold found a bound (False: the largest candidate was used).
    true_value : float or numpy.ndarray
        The exact mean of the data clipped to ``[0, bound]``.
    noisy_value : float or numpy.ndarray
        ``clip(noisy_sum / max(noisy_count, 1), 0, bound)``.
    unclipped_value : float
        The exact mean of the data, for the clipping bias.
    epsilon : float
        Total ε (a third each to the bound, the sum and the count).
    n, dropped_nan : int
    candidates, answers : numpy.ndarray
        The candidate bounds and their exact ``q_b`` (for charts).
    """

    bound: float | np.ndarray
    found: bool | np.ndarray
    true_value: float | np.ndarray
    noisy_value: float | np.ndarray
    unclipped_value: float
    epsilon: float
    n: int
    dropped_nan: int
    candidates: np.ndarray
    answers: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    @property
    def error(self):
        """``noisy_value − true_value`` (error due to noise, at the chosen bound)."""
        return self.noisy_value - self.true_value

    @property
    def total_error(self):
        """``noisy_value − unclipped_value`` (noise plus clipping bias)."""
        return self.noisy_value - self.unclipped_value

    def _error_scales(self) -> tuple[np.ndarray, np.ndarray]:
        # error ≈ (N_sum − μ_b N_count) / n with N_sum ~ Lap(3b/ε), N_count ~ Lap(3/ε): two Laplace scales
        third_n = _part(self.epsilon) * self.n
        bound = np.atleast_1d(np.asarray(self.bound, dtype=np.float64))
        mean = np.atleast_1d(np.asarray(self.true_value, dtype=np.float64))
        return bound / third_n, mean / third_n

    def approx_error_std(self) -> float:
        """First-order (delta-method) std of :attr:`error`, pooled over the chosen bounds.

        Given the bound ``b``, ``sum/count ≈ μ_b + (N_sum − μ_b N_count)/n``
        (Taylor expansion of ``s/c`` around ``(n μ_b, n)``), whose variance is
        ``2 (3b/ε)²/n² + 2 μ_b² (3/ε)²/n²``. Over several runs the variances are
        averaged (law of total variance; the conditional mean error is ≈ 0).
        The final clip to ``[0, b]`` and terms of order ``1/n²`` are ignored.
        """
        s_sum, s_count = self._error_scales()
        top = max(float(s_sum.max()), float(s_count.max()))
        if top == 0.0 or not np.isfinite(top):
            return top
        # scaled by the largest scale so that the squares cannot overflow
        return float(top * np.sqrt(np.mean(2.0 * (s_sum / top) ** 2 + 2.0 * (s_count / top) ** 2)))

    def approx_error_pdf(self, x):
        """First-order density of :attr:`error` at ``x``, mixed over the chosen bounds.

        Given ``b`` the error is ``Lap(a) + Lap(c)`` with ``a = 3b/(εn)`` and
        ``c = 3μ_b/(εn)`` (see :meth:`approx_error_std`), whose density is
        :func:`dpcore.laplace.laplace_sum_pdf`. Runs that chose the same bound
        are grouped, so the cost is ``len(x) ×`` distinct bounds.
        """
        s_sum, s_count = self._error_scales()
        pairs, counts = np.unique(np.stack([s_sum, s_count], axis=1), axis=0, return_counts=True)
        z = np.asarray(x, dtype=np.float64)[..., None]
        dens = np.asarray(laplace_sum_pdf(z, pairs[:, 0], pairs[:, 1]))  # a = 3b/(εn) >= c = 3μ_b/(εn) >= 0
        out = dens @ (counts / counts.sum())
        return float(out) if out.ndim == 0 else out


def auto_mean(
    values,
    candidates,
    epsilon: float,
    rng,
    trials: int | None = None,
    *,
    nan: str = "raise",
    lattice: bool = False,
    exact: bool = False,
) -> AutoMeanResult:
    """A mean with no bounds given: SVT picks the clipping bound, then noisy sum over noisy count.

    A third of ε each (sequential composition, Dwork & Roth 2014, Theorem 3.16):
    :func:`choose_clipping_bound` at ε/3 picks ``b``; the sum of
    ``clip(x, 0, b)`` gets ``Lap(3b/ε)`` (sensitivity ``b`` under add/remove);
    the count gets ``Lap(3/ε)``; the mean is ``clip(sum / max(count, 1), 0, b)``
    (post-processing). Assumes non-negative data (negative values clip to 0).

    Vectorised over trials: the clipped sums for every candidate come from one
    sort of the data, so ``trials`` runs cost ``O(n log n + trials · k)``.

    Parameters
    ----------
    values : array_like
        The column (numbers).
    candidates : array_like
        Candidate bounds, in (0, inf), strictly increasing.
    epsilon : float
        Total privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    trials : int, optional
        When given, every field of the result holds ``trials`` independent runs.
    nan : {"raise", "drop"}
    lattice : bool, default False
        Release the noisy sum and count on a lattice with exact noise of the same ε
        (:func:`dpcore.lattice.lattice_mechanism`): for the one mean to publish
        (a single run only); False keeps the fast floating-point noise.
    exact : bool, default False
        Choose the bound with exact comparisons (:func:`choose_clipping_bound` with ``exact=True``,
        at exactly ε/3: the counts ``−#{x > b}``, discrete Laplace noise); with ``lattice=True`` the
        whole release is free of floating-point error, to publish. :attr:`AutoMeanResult.answers`
        then holds the compared counts.
    """
    arr, dropped = check_numeric_array(values, "values", nan=nan)
    cand = _check_candidates(candidates)
    epsilon = check_epsilon(epsilon)
    rng = as_generator(rng)
    if lattice and trials is not None:
        raise ValueError(
            "lattice must be False when trials are simulated (the lattice is for the one release), got True"
        )
    size = 1 if trials is None else check_trials(trials, per_trial=cand.size)
    third = _part(epsilon)
    _check_sums_fit(cand, arr.size)

    xs = _sorted_nonnegative(arr)  # one sort for the sums and the counts
    sums_at = _clipped_sums(xs, cand)
    if exact:  # the integer counts, at exactly a third of ε (a float ε/3 may round up)
        answers = -(xs.size - np.searchsorted(xs, cand, side="right")).astype(np.int64)
        idx = above_threshold_trials(answers, 0.0, Fraction(epsilon) / 3, rng, size, QUERY_SENSITIVITY, exact=True)
    else:
        answers = sums_at - _clipped_sums(xs, cand + 1.0)
        idx = above_threshold_trials(answers, 0.0, third, rng, size, QUERY_SENSITIVITY)
    found = idx >= 0
    pick = np.where(found, idx, cand.size - 1)
    bound = cand[pick]
    true_sum = sums_at[pick]
    n = arr.size
    # add/remove one record: the sum of clip(x, 0, b) has sensitivity max(|0|, |b|) = b, the count 1
    # (dpcore.neighbours.ADD_REMOVE); Laplace scale sensitivity / (ε/3)
    if lattice:  # sensitivity b: scale b/(ε/3), as below; the count: 1/(ε/3)
        noisy_sum = lattice_mechanism(Laplace(bound[0] / third, bound[0])).draw(true_sum, rng)
        noisy_count = lattice_mechanism(Laplace(1.0 / third, 1.0)).draw(np.array([float(n)]), rng)
    else:
        noisy_sum = true_sum + sample_laplace(rng, bound / third, size=size)
        noisy_count = n + sample_laplace(rng, 1.0 / third, size=size)
    noisy_mean = np.clip(noisy_sum / np.maximum(noisy_count, 1.0), 0.0, bound)
    true_mean = true_sum / n
    if trials is None:
        bound, found = float(bound[0]), bool(found[0])
        true_mean, noisy_mean = float(true_mean[0]), float(noisy_mean[0])
    return AutoMeanResult(
        bound=bound,
        found=found,
        true_value=true_mean,
        noisy_value=noisy_mean,
        unclipped_value=float(arr.mean()),
        epsilon=epsilon,
        n=n,
        dropped_nan=dropped,
        candidates=cand,
        answers=answers,
    )


def naive_clipping_bound(values, candidates, epsilon: float, rng, trials: int | None = None, *, nan: str = "raise"):
    """The baseline without SVT: release every ``q_b`` with ``Lap(k/ε)`` and take the first noisy ``q_b >= 0`` (ε-DP).

    Each of the ``k`` queries of :func:`clipping_queries` (sensitivity 1) gets
    ε/k, so the ``k`` releases are ε-DP by sequential composition (Dwork & Roth
    2014, Theorem 3.16) and picking the first candidate at or above the
    threshold 0 is post-processing. When none passes, the largest candidate is
    returned, as in :func:`choose_clipping_bound`. The noise ``k/ε`` grows with
    the number of candidates, where AboveThreshold's ``4/ε`` does not: the
    comparison Near & Abuah draw in *Programming Differential Privacy*,
    chapter "The Sparse Vector Technique".

    Parameters
    ----------
    values : array_like
        The column (numbers; negative values clip to 0).
    candidates : array_like
        Candidate bounds, in (0, inf), strictly increasing.
    epsilon : float
        Total privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    trials : int, optional
        When given, that many independent choices as a float array.
    nan : {"raise", "drop"}

    Returns
    -------
    float or numpy.ndarray
    """
    cand = _check_candidates(candidates)
    answers = clipping_queries(values, cand, nan=nan)
    epsilon = check_epsilon(epsilon)
    rng = as_generator(rng)
    size = 1 if trials is None else check_trials(trials, per_trial=cand.size)
    k = cand.size
    scale = naive_scale(epsilon, k, QUERY_SENSITIVITY)  # ε/k per query
    bounds = np.empty(size)
    for start, stop in trial_blocks(size, k):
        m = stop - start
        mask = answers + sample_laplace(rng, scale, size=(m, k)) >= 0.0
        idx = mask.argmax(axis=1)
        bounds[start:stop] = cand[np.where(mask[np.arange(m), idx], idx, k - 1)]
    return float(bounds[0]) if trials is None else bounds
