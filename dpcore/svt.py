"""The sparse vector technique (SVT): which queries are above a threshold, paying only for those.

``answers`` are the already-computed answers ``f_i(x)`` of queries of
sensitivity Δ each (neighbouring data sets move every answer by at most Δ).

* :func:`above_threshold`: Dwork & Roth (2014), *The Algorithmic Foundations of
  Differential Privacy*, Algorithm 1 (AboveThreshold), Theorem 3.23: noisy
  threshold ``T + Lap(2Δ/ε)``, every answer ``+ Lap(4Δ/ε)``, report the first
  index at or above; ε-DP however many queries there are.
* :func:`sparse`: Dwork & Roth (2014), Algorithm 2 (Sparse, δ = 0), Theorem
  3.25: ``c`` rounds of AboveThreshold at ε/c each, a fresh noisy threshold
  after each positive.
* :func:`range_query_svt`: half the budget finds at most ``c`` queries with
  Sparse, the other half answers them with fresh Laplace noise at ε/(2c)
  each: the shape of NumericSparse (Dwork & Roth 2014, Algorithm 3), with the
  budget split half and half as the issue asks.
* :func:`naive_range_query`: the baseline without SVT, every query answered
  with ``Lap(nΔ/ε)`` (ε/n each): what SVT saves.

Pitfalls (Lyu, Su & Li 2017, "Understanding the Sparse Vector Technique for
Differential Privacy", PVLDB 10(6), Sections 3-4): variants that add no noise
to the answers, whose answer noise does not grow with ``c``, that never
refresh the threshold, or that release the *same* noisy answer used in the
comparison are not ε-DP (some not for any finite ε). The functions here use
only the private versions; ``tests/test_svt.py`` shows that an empirical
check catches the no-answer-noise variant.

Choosing a clipping bound with SVT (Near & Abuah, *Programming Differential
Privacy*, chapter "The Sparse Vector Technique"): the query
``q_b = Σ clip(x, 0, b) − Σ clip(x, 0, b + 1)`` has sensitivity 1 and equals
``−#{x ≥ b + 1}`` on integer data (in general ``−Σ min(max(x − b, 0), 1)``):
it is 0 exactly when clipping at ``b`` loses nothing. With threshold 0 the
first candidate that passes is a bound above nearly all the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcore.laplace import sample_laplace
from dpcore.validation import (
    as_generator,
    check_epsilon,
    check_finite_real,
    check_int,
    check_numeric_array,
    check_positive,
)

__all__ = [
    "above_threshold",
    "above_threshold_trials",
    "sparse",
    "sparse_trials",
    "range_query_svt",
    "naive_range_query",
    "SVTScales",
    "svt_noise_scales",
    "clipping_queries",
    "choose_clipping_bound",
    "naive_clipping_bound",
    "AutoMeanResult",
    "auto_mean",
]

# Largest number of (trial, query) noise draws held in memory at once by the trial-vectorised
# functions (2**22 float64 = 32 MiB); trials are processed in blocks of that size.
_BLOCK_ELEMENTS = 1 << 22


def _check_common(answers, threshold, epsilon, sensitivity):
    answers, _ = check_numeric_array(answers, "answers")
    threshold = check_finite_real(threshold, "threshold")
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return answers, threshold, epsilon, sensitivity


def _trial_blocks(trials: int, n: int):
    """Yield ``(start, stop)`` blocks of trials with at most ``_BLOCK_ELEMENTS`` draws each."""
    block = max(1, _BLOCK_ELEMENTS // max(n, 1))
    for start in range(0, trials, block):
        yield start, min(start + block, trials)


def above_threshold(answers, threshold: float, epsilon: float, rng, sensitivity: float = 1.0) -> int | None:
    """AboveThreshold: the first index whose noisy answer is at or above the noisy threshold.

    ``T̂ = T + Lap(2Δ/ε)``; ``ν_i ~ Lap(4Δ/ε)``; return the first ``i`` with
    ``a_i + ν_i >= T̂`` (Dwork & Roth 2014, Algorithm 1, Theorem 3.23: ε-DP).
    All the noise is drawn at once; the first passing index is the argmax of
    the boolean mask.

    Parameters
    ----------
    answers : array_like
        Answers of the queries, each of sensitivity Δ; finite, 1-D, non-empty.
    threshold : float
        Public threshold ``T``, finite.
    epsilon : float
        Privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    sensitivity : float, default 1.0
        Sensitivity Δ of every query, in (0, inf).

    Returns
    -------
    int or None
        The index, or None when no query passed.
    """
    answers, threshold, epsilon, sensitivity = _check_common(answers, threshold, epsilon, sensitivity)
    rng = as_generator(rng)
    t_hat = threshold + sample_laplace(rng, 2.0 * sensitivity / epsilon)
    mask = answers + sample_laplace(rng, 4.0 * sensitivity / epsilon, size=answers.size) >= t_hat
    i = int(np.argmax(mask))
    return i if mask[i] else None


def above_threshold_trials(
    answers, threshold: float, epsilon: float, rng, trials: int, sensitivity: float = 1.0
) -> np.ndarray:
    """``trials`` independent runs of :func:`above_threshold`, vectorised; ``-1`` where nothing passed.

    Same parameters as :func:`above_threshold`, plus ``trials`` (int >= 1).
    Returns an int64 array of shape ``(trials,)``.
    """
    answers, threshold, epsilon, sensitivity = _check_common(answers, threshold, epsilon, sensitivity)
    trials = check_int(trials, "trials", minimum=1)
    rng = as_generator(rng)
    out = np.empty(trials, dtype=np.int64)
    for start, stop in _trial_blocks(trials, answers.size):
        m = stop - start
        t_hat = threshold + sample_laplace(rng, 2.0 * sensitivity / epsilon, size=(m, 1))
        mask = answers + sample_laplace(rng, 4.0 * sensitivity / epsilon, size=(m, answers.size)) >= t_hat
        idx = mask.argmax(axis=1)
        out[start:stop] = np.where(mask[np.arange(m), idx], idx, -1)
    return out


def sparse(answers, threshold: float, c: int, epsilon: float, rng, sensitivity: float = 1.0) -> list[int]:
    """Sparse: at most ``c`` indices of queries above the threshold, increasing.

    ``c`` rounds of AboveThreshold at ``ε/c`` each: threshold noise
    ``Lap(2cΔ/ε)``, answer noise ``Lap(4cΔ/ε)``, a fresh noisy threshold after
    each positive, stop after ``c`` positives or when the queries run out
    (Dwork & Roth 2014, Algorithm 2 with δ = 0, Theorem 3.25: ε-DP). Each round is
    vectorised over the remaining queries.

    Parameters
    ----------
    answers : array_like
        Answers of the queries, each of sensitivity Δ; finite, 1-D, non-empty.
    threshold : float
        Public threshold ``T``, finite.
    c : int
        Largest number of positives, at least 1.
    epsilon : float
        Total privacy parameter ε, in (0, inf).
    rng : numpy.random.Generator or int
    sensitivity : float, default 1.0
        Sensitivity Δ of every query, in (0, inf).
    """
    answers, threshold, epsilon, sensitivity = _check_common(answers, threshold, epsilon, sensitivity)
    c = check_int(c, "c", minimum=1)
    rng = as_generator(rng)
    round_eps = epsilon / c
    found: list[int] = []
    start = 0
    for _ in range(c):
        if start >= answers.size:
            break
        t_hat = threshold + sample_laplace(rng, 2.0 * sensitivity / round_eps)
        rest = answers[start:]
        mask = rest + sample_laplace(rng, 4.0 * sensitivity / round_eps, size=rest.size) >= t_hat
        i = int(np.argmax(mask))
        if not mask[i]:
            break
        found.append(start + i)
        start += i + 1
    return found


def sparse_trials(
    answers, threshold: float, c: int, epsilon: float, rng, trials: int, sensitivity: float = 1.0
) -> np.ndarray:
    """``trials`` independent runs of :func:`sparse`, vectorised over trials and queries.

    Returns an int64 array of shape ``(trials, c)``: the indices found in each
    run, increasing, padded with ``-1``. The only Python loop is over the ``c``
    rounds (and over memory blocks of trials).
    """
    answers, threshold, epsilon, sensitivity = _check_common(answers, threshold, epsilon, sensitivity)
    c = check_int(c, "c", minimum=1)
    trials = check_int(trials, "trials", minimum=1)
    rng = as_generator(rng)
    round_eps = epsilon / c
    n = answers.size
    positions = np.arange(n)
    out = np.full((trials, c), -1, dtype=np.int64)
    for start, stop in _trial_blocks(trials, n):
        m = stop - start
        rows = np.arange(m)
        nxt = np.zeros(m, dtype=np.int64)  # first query not yet examined, per trial
        active = np.ones(m, dtype=bool)
        for r in range(c):
            active &= nxt < n
            if not active.any():
                break
            t_hat = threshold + sample_laplace(rng, 2.0 * sensitivity / round_eps, size=(m, 1))
            mask = answers + sample_laplace(rng, 4.0 * sensitivity / round_eps, size=(m, n)) >= t_hat
            mask &= positions >= nxt[:, None]
            idx = mask.argmax(axis=1)
            passed = mask[rows, idx] & active
            out[start + rows[passed], r] = idx[passed]
            nxt = np.where(passed, idx + 1, nxt)
            active &= passed
    return out


def range_query_svt(
    answers, threshold: float, c: int, epsilon: float, rng, sensitivity: float = 1.0
) -> list[tuple[int, float]]:
    """Find at most ``c`` queries above the threshold and answer them: ε/2 to find, ε/2 to answer.

    Sparse at ε/2 picks the indices; each is then answered with fresh noise
    ``Lap(2cΔ/ε)`` (ε/(2c) each, so at most ε/2 for the ``c`` answers;
    sequential composition). The noise used in the comparison is never
    released (releasing it is one of the broken variants in Lyu, Su & Li 2017).

    Parameters
    ----------
    answers, threshold, c, epsilon, rng, sensitivity
        As in :func:`sparse`; ε is the total budget.

    Returns
    -------
    list of (int, float)
        ``(index, noisy answer)`` for each query found, by increasing index.
    """
    epsilon = check_epsilon(epsilon)
    rng = as_generator(rng)
    found = sparse(answers, threshold, c, epsilon / 2.0, rng, sensitivity)
    answers = np.asarray(answers, dtype=np.float64).reshape(-1)
    noisy = answers[found] + sample_laplace(rng, 2.0 * c * sensitivity / epsilon, size=len(found))
    return [(i, float(v)) for i, v in zip(found, noisy)]


def naive_range_query(
    answers, threshold: float, epsilon: float, rng, c: int | None = None, sensitivity: float = 1.0
) -> list[tuple[int, float]]:
    """The baseline without SVT: answer all ``n`` queries with ``Lap(nΔ/ε)`` and keep those above the threshold.

    Each query costs ε/n, so the ``n`` releases are ε-DP by sequential
    composition (Dwork & Roth 2014, Theorem 3.16) and the selection is
    post-processing. Compare the answer noise ``nΔ/ε`` with the
    ``2cΔ/ε`` of :func:`range_query_svt`: SVT pays off when ``2c < n``.

    Parameters
    ----------
    answers, threshold, epsilon, rng, sensitivity
        As in :func:`above_threshold`.
    c : int, optional
        Keep only the first ``c`` queries above the threshold (all when None).

    Returns
    -------
    list of (int, float)
        ``(index, noisy answer)`` of the noisy answers at or above the threshold.
    """
    answers, threshold, epsilon, sensitivity = _check_common(answers, threshold, epsilon, sensitivity)
    if c is not None:
        c = check_int(c, "c", minimum=1)
    rng = as_generator(rng)
    noisy = answers + sample_laplace(rng, answers.size * sensitivity / epsilon, size=answers.size)
    above = np.flatnonzero(noisy >= threshold)[:c]
    return [(int(i), float(noisy[i])) for i in above]


@dataclass(frozen=True)
class SVTScales:
    """Laplace scales used by :func:`range_query_svt` and :func:`naive_range_query`.

    Attributes
    ----------
    threshold : float
        Threshold noise of each Sparse round: ``4cΔ/ε`` (Sparse runs at ε/2).
    query : float
        Comparison noise: ``8cΔ/ε``.
    answer : float
        Noise on each released answer: ``2cΔ/ε``.
    naive : float
        Noise on each answer without SVT: ``nΔ/ε``.
    """

    threshold: float
    query: float
    answer: float
    naive: float


def svt_noise_scales(n: int, c: int, epsilon: float, sensitivity: float = 1.0) -> SVTScales:
    """The noise scales of range-query SVT and of the naive baseline for ``n`` queries (see :class:`SVTScales`)."""
    n = check_int(n, "n", minimum=1)
    c = check_int(c, "c", minimum=1)
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    unit = c * sensitivity / epsilon
    return SVTScales(threshold=4.0 * unit, query=8.0 * unit, answer=2.0 * unit, naive=n * sensitivity / epsilon)


# ---------------------------------------------------------------------- clipping bound


def _check_candidates(candidates) -> np.ndarray:
    cand, _ = check_numeric_array(candidates, "candidates")
    if cand.min() <= 0:
        raise ValueError(f"candidates must be in (0, inf), got {cand.min()}")
    if cand.size > 1 and not np.all(np.diff(cand) > 0):
        raise ValueError("candidates must be strictly increasing, got an unsorted or repeated sequence")
    return cand


def _clipped_sums(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """``Σ clip(x, 0, b)`` for every ``b`` in ``bounds`` (``b >= 0``), from one sort of the data.

    With ``x⁺ = max(x, 0)`` sorted and ``k = #{x⁺ <= b}``:
    ``Σ clip(x, 0, b) = Σ_{x⁺ <= b} x⁺ + b (n − k)``.
    """
    xs = np.sort(np.maximum(values, 0.0))
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
    return _clipped_sums(values, cand) - _clipped_sums(values, cand + 1.0)


def choose_clipping_bound(values, candidates, epsilon: float, rng, trials: int | None = None, *, nan: str = "raise"):
    """Choose a clipping bound with AboveThreshold on :func:`clipping_queries`, threshold 0 (ε-DP).

    The first candidate whose noisy ``q_b`` passes is the bound; when none
    passes, the largest candidate is returned (a data-independent fallback,
    so still ε-DP).

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

    Returns
    -------
    float or numpy.ndarray
    """
    cand = _check_candidates(candidates)
    answers = clipping_queries(values, cand, nan=nan)
    idx = above_threshold_trials(answers, 0.0, epsilon, rng, 1 if trials is None else trials)
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
        third_n = self.epsilon / 3.0 * self.n
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
        ``c = 3μ_b/(εn)`` (see :meth:`approx_error_std`); the density of the sum
        of independent ``Lap(a)`` and ``Lap(c)`` is
        ``(a e^{−|z|/a} − c e^{−|z|/c}) / (2(a² − c²))`` for ``a ≠ c`` and
        ``(a + |z|) e^{−|z|/a} / (4a²)`` for ``a = c`` (convolution of the two
        densities; e.g. Kotz, Kozubowski & Podgórski 2001, *The Laplace
        Distribution and Generalizations*, Section 2.3). Runs that chose the
        same bound are grouped, so the cost is ``len(x) ×`` distinct bounds.
        """
        s_sum, s_count = self._error_scales()
        pairs, counts = np.unique(np.stack([s_sum, s_count], axis=1), axis=0, return_counts=True)
        z = np.abs(np.asarray(x, dtype=np.float64))[..., None]
        a, c = pairs[:, 0], pairs[:, 1]  # a >= c >= 0, as 0 <= μ_b <= b
        r = c / a
        same = np.isclose(r, 1.0, rtol=1e-6, atol=0.0)
        # divided through by a²: (e^{−z/a} − r e^{−z/c}) / (2a(1 − r²)), and (1 + z/a) e^{−z/a} / (4a) when r = 1
        with np.errstate(divide="ignore", invalid="ignore"):
            tail_c = np.where(c > 0, r * np.exp(-z / np.where(c > 0, c, 1.0)), 0.0)
            dens = np.where(
                same,
                (1.0 + z / a) * np.exp(-z / a) / (4.0 * a),
                (np.exp(-z / a) - tail_c) / (2.0 * a * np.where(same, 1.0, 1.0 - r**2)),
            )
        out = dens @ (counts / counts.sum())
        return float(out) if out.ndim == 0 else out


def auto_mean(
    values, candidates, epsilon: float, rng, trials: int | None = None, *, nan: str = "raise"
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
    """
    arr, dropped = check_numeric_array(values, "values", nan=nan)
    cand = _check_candidates(candidates)
    epsilon = check_epsilon(epsilon)
    rng = as_generator(rng)
    size = 1 if trials is None else check_int(trials, "trials", minimum=1)
    third = epsilon / 3.0

    sums_at = _clipped_sums(arr, cand)
    answers = sums_at - _clipped_sums(arr, cand + 1.0)
    idx = above_threshold_trials(answers, 0.0, third, rng, size)
    found = idx >= 0
    pick = np.where(found, idx, cand.size - 1)
    bound = cand[pick]
    true_sum = sums_at[pick]
    n = arr.size
    noisy_sum = true_sum + sample_laplace(rng, bound / third, size=size)  # sensitivity b, scale b / (ε/3)
    noisy_count = n + sample_laplace(rng, 1.0 / third, size=size)  # sensitivity 1
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
    size = 1 if trials is None else check_int(trials, "trials", minimum=1)
    k = cand.size
    bounds = np.empty(size)
    for start, stop in _trial_blocks(size, k):
        m = stop - start
        mask = answers + sample_laplace(rng, k / epsilon, size=(m, k)) >= 0.0  # ε/k per query, Δ = 1
        idx = mask.argmax(axis=1)
        bounds[start:stop] = cand[np.where(mask[np.arange(m), idx], idx, k - 1)]
    return float(bounds[0]) if trials is None else bounds
