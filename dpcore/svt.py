"""The sparse vector technique (SVT): which queries are above a threshold, paying only for those.

``answers`` are the already-computed answers ``f_i(x)`` of queries of
sensitivity Δ each (neighbouring data sets move every answer by at most Δ).

* :func:`above_threshold`: AboveThreshold (Dwork & Roth, Algorithm 1,
  Theorem 3.23): noisy threshold ``T + Lap(2Δ/ε)``, every answer
  ``+ Lap(4Δ/ε)``, report the first index at or above; ε-DP however many
  queries there are.
* :func:`sparse`: Sparse (Dwork & Roth, Algorithm 2 with δ = 0, Theorem 3.25):
  ``c`` rounds of AboveThreshold at ε/c each, a fresh noisy threshold after
  each positive.
* :func:`range_query_svt`: half the budget finds at most ``c`` queries with
  Sparse, the other half answers them with fresh Laplace noise at ε/(2c)
  each: the shape of NumericSparse (Dwork & Roth, Algorithm 3), with the
  budget split half and half.
* :func:`naive_range_query`: the baseline without SVT, every query answered
  with ``Lap(nΔ/ε)`` (ε/n each): what SVT saves.

Every noise scale is named once, here, and the functions draw with it:
:func:`above_threshold_scales` (``2Δ/ε`` and ``4Δ/ε``), :func:`sparse_scales`
(the same at ε/c), :func:`naive_scale` (``kΔ/ε``, k releases at ε/k each) and
:func:`svt_noise_scales` (range queries against the naive release);
:func:`svt_epsilon_for_accuracy` inverts the error of the answers.

Pitfalls (Lyu, Su & Li, Sections 3-4): variants that add no noise to the
answers, whose answer noise does not grow with ``c``, that never refresh the
threshold, or that release the *same* noisy answer used in the comparison are
not ε-DP (some not for any finite ε). The functions here use only the private
versions; ``tests/test_svt.py`` shows that an empirical check catches the
no-answer-noise variant.

Choosing a clipping bound with AboveThreshold is in :mod:`dpcore.clipping`.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Section 3.6: Algorithms 1–3, Theorems 3.16,
  3.23 and 3.25. https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Lyu, Su & Li (2017), "Understanding the Sparse Vector Technique for Differential Privacy",
  PVLDB 10(6), Sections 3–4. https://arxiv.org/abs/1603.01699
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcore.laplace import Laplace, sample_laplace
from dpcore.lattice import lattice_mechanism
from dpcore.validation import (
    as_generator,
    check_choice,
    check_epsilon,
    check_finite_real,
    check_int,
    check_numeric_array,
    check_positive,
    check_trials,
)

__all__ = [
    "AboveThresholdScales",
    "above_threshold_scales",
    "sparse_scales",
    "naive_scale",
    "above_threshold",
    "above_threshold_trials",
    "sparse",
    "sparse_trials",
    "range_query_svt",
    "naive_range_query",
    "SVTScales",
    "svt_noise_scales",
    "svt_epsilon_for_accuracy",
]

# Largest number of (trial, query) noise draws held in memory at once by the trial-vectorised
# functions (2**22 float64 = 32 MiB); trials are processed in blocks of that size.
_BLOCK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class AboveThresholdScales:
    """The two Laplace scales of one AboveThreshold run (Dwork & Roth 2014, Algorithm 1).

    Attributes
    ----------
    threshold : float
        Noise on the threshold: ``2Δ/ε``.
    query : float
        Noise on each answer compared with it: ``4Δ/ε``.
    """

    threshold: float
    query: float


def above_threshold_scales(epsilon: float, sensitivity: float = 1.0) -> AboveThresholdScales:
    """The noise of AboveThreshold at ε: threshold ``Lap(2Δ/ε)``, answers ``Lap(4Δ/ε)``.

    With these scales the first index at or above the noisy threshold is
    ε-DP however many queries are read (Dwork & Roth 2014, Algorithm 1,
    Theorem 3.23).

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in (0, inf).
    sensitivity : float, default 1.0
        Sensitivity Δ of every query, in (0, inf).

    Examples
    --------
    >>> above_threshold_scales(0.5)
    AboveThresholdScales(threshold=4.0, query=8.0)
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return AboveThresholdScales(threshold=2.0 * sensitivity / epsilon, query=4.0 * sensitivity / epsilon)


def sparse_scales(epsilon: float, c: int, sensitivity: float = 1.0) -> AboveThresholdScales:
    """The noise of each round of Sparse with at most ``c`` positives: AboveThreshold at ε/c.

    Threshold ``Lap(2cΔ/ε)``, answers ``Lap(4cΔ/ε)`` (Dwork & Roth 2014,
    Algorithm 2 with δ = 0, Theorem 3.25: the c rounds compose to ε).

    Parameters
    ----------
    epsilon : float
        Total privacy parameter ε, in (0, inf).
    c : int
        Largest number of positives, at least 1.
    sensitivity : float, default 1.0
        Sensitivity Δ of every query, in (0, inf).
    """
    epsilon = check_epsilon(epsilon)
    c = check_int(c, "c", minimum=1)
    return above_threshold_scales(epsilon / c, sensitivity)


def naive_scale(epsilon: float, k: int, sensitivity: float = 1.0) -> float:
    """The Laplace scale ``kΔ/ε`` of answering ``k`` queries at ε/k each: the baseline without SVT.

    Each answer is ``ε/k``-DP (Laplace scale ``Δ/(ε/k)``, Dwork & Roth 2014,
    Theorem 3.6), so the k answers are ε-DP by sequential composition
    (Theorem 3.16). The scale grows with k, where AboveThreshold's ``4Δ/ε`` does not.

    Parameters
    ----------
    epsilon : float
        Total privacy parameter ε, in (0, inf).
    k : int
        Number of queries sharing ε, at least 1.
    sensitivity : float, default 1.0
        Sensitivity Δ of every query, in (0, inf).

    Examples
    --------
    >>> naive_scale(0.5, 100)
    200.0
    """
    epsilon = check_epsilon(epsilon)
    k = check_int(k, "k", minimum=1)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return k * sensitivity / epsilon


def _check_common(answers, threshold, epsilon, sensitivity):
    answers, _ = check_numeric_array(answers, "answers")
    threshold = check_finite_real(threshold, "threshold")
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return answers, threshold, epsilon, sensitivity


def trial_blocks(trials: int, n: int):
    """Yield ``(start, stop)`` blocks of trials with at most ``_BLOCK_ELEMENTS`` draws each."""
    block = max(1, _BLOCK_ELEMENTS // max(n, 1))
    for start in range(0, trials, block):
        yield start, min(start + block, trials)


def above_threshold(answers, threshold: float, epsilon: float, rng, sensitivity: float = 1.0) -> int | None:
    """AboveThreshold: the first index whose noisy answer is at or above the noisy threshold.

    ``T̂ = T + Lap(2Δ/ε)``; ``ν_i ~ Lap(4Δ/ε)`` (:func:`above_threshold_scales`); return the first ``i`` with
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
    scales = above_threshold_scales(epsilon, sensitivity)
    t_hat = threshold + sample_laplace(rng, scales.threshold)
    mask = answers + sample_laplace(rng, scales.query, size=answers.size) >= t_hat
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
    trials = check_trials(trials, per_trial=answers.size)
    rng = as_generator(rng)
    scales = above_threshold_scales(epsilon, sensitivity)
    out = np.empty(trials, dtype=np.int64)
    for start, stop in trial_blocks(trials, answers.size):
        m = stop - start
        t_hat = threshold + sample_laplace(rng, scales.threshold, size=(m, 1))
        mask = answers + sample_laplace(rng, scales.query, size=(m, answers.size)) >= t_hat
        idx = mask.argmax(axis=1)
        out[start:stop] = np.where(mask[np.arange(m), idx], idx, -1)
    return out


def sparse(answers, threshold: float, c: int, epsilon: float, rng, sensitivity: float = 1.0) -> list[int]:
    """Sparse: at most ``c`` indices of queries above the threshold, increasing.

    ``c`` rounds of AboveThreshold at ``ε/c`` each: threshold noise
    ``Lap(2cΔ/ε)``, answer noise ``Lap(4cΔ/ε)`` (:func:`sparse_scales`), a fresh noisy threshold after
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
    scales = sparse_scales(epsilon, c, sensitivity)
    found: list[int] = []
    start = 0
    for _ in range(c):
        if start >= answers.size:
            break
        t_hat = threshold + sample_laplace(rng, scales.threshold)
        rest = answers[start:]
        mask = rest + sample_laplace(rng, scales.query, size=rest.size) >= t_hat
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
    trials = check_trials(trials, per_trial=answers.size)
    rng = as_generator(rng)
    scales = sparse_scales(epsilon, c, sensitivity)
    n = answers.size
    positions = np.arange(n)
    out = np.full((trials, c), -1, dtype=np.int64)
    for start, stop in trial_blocks(trials, n):
        m = stop - start
        rows = np.arange(m)
        nxt = np.zeros(m, dtype=np.int64)  # first query not yet examined, per trial
        active = np.ones(m, dtype=bool)
        for r in range(c):
            active &= nxt < n
            if not active.any():
                break
            t_hat = threshold + sample_laplace(rng, scales.threshold, size=(m, 1))
            mask = answers + sample_laplace(rng, scales.query, size=(m, n)) >= t_hat
            mask &= positions >= nxt[:, None]
            idx = mask.argmax(axis=1)
            passed = mask[rows, idx] & active
            out[start + rows[passed], r] = idx[passed]
            nxt = np.where(passed, idx + 1, nxt)
            active &= passed
    return out


def _answer(answers, scale: float, sensitivity: float, rng, lattice: bool) -> np.ndarray:
    """``answers`` + Laplace noise of ``scale``: floating-point, or on a lattice with exact noise (to publish)."""
    if not lattice:
        return answers + sample_laplace(rng, scale, size=answers.size)
    if answers.size == 0:  # nothing passed: nothing to answer (a refusal here would depend on the data)
        return np.zeros(0)
    return lattice_mechanism(Laplace(scale, sensitivity)).draw(answers, rng)


def range_query_svt(
    answers, threshold: float, c: int, epsilon: float, rng, sensitivity: float = 1.0, *, lattice: bool = False
) -> list[tuple[int, float]]:
    """Find at most ``c`` queries above the threshold and answer them: ε/2 to find, ε/2 to answer.

    Sparse at ε/2 picks the indices; each is then answered with fresh noise
    ``Lap(2cΔ/ε)``: the ``c`` answers share ε/2, ε/(2c) each, the split of
    :func:`naive_scale` (sequential composition). The noise used in the comparison is never
    released (releasing it is one of the broken variants in Lyu, Su & Li 2017).

    Parameters
    ----------
    answers, threshold, c, epsilon, rng, sensitivity
        As in :func:`sparse`; ε is the total budget.
    lattice : bool, default False
        Answer on a lattice with exact noise (:func:`dpcore.lattice.lattice_mechanism`,
        the same ε): for answers to publish; False keeps the fast floating-point noise.

    Returns
    -------
    list of (int, float)
        ``(index, noisy answer)`` for each query found, by increasing index.
    """
    epsilon = check_epsilon(epsilon)
    rng = as_generator(rng)
    found = sparse(answers, threshold, c, epsilon / 2.0, rng, sensitivity)
    answers = np.asarray(answers, dtype=np.float64).reshape(-1)
    noisy = _answer(answers[found], naive_scale(epsilon / 2.0, c, sensitivity), sensitivity, rng, lattice)
    return [(i, float(v)) for i, v in zip(found, noisy)]


def naive_range_query(
    answers, threshold: float, epsilon: float, rng, c: int | None = None, sensitivity: float = 1.0, *, lattice=False
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
    lattice : bool, default False
        As in :func:`range_query_svt`.

    Returns
    -------
    list of (int, float)
        ``(index, noisy answer)`` of the noisy answers at or above the threshold.
    """
    answers, threshold, epsilon, sensitivity = _check_common(answers, threshold, epsilon, sensitivity)
    if c is not None:
        c = check_int(c, "c", minimum=1)
    rng = as_generator(rng)
    noisy = _answer(answers, naive_scale(epsilon, answers.size, sensitivity), sensitivity, rng, lattice)
    above = np.flatnonzero(noisy >= threshold)[:c]
    return [(int(i), float(noisy[i])) for i in above]


@dataclass(frozen=True)
class SVTScales:
    """Laplace scales used by :func:`range_query_svt` and :func:`naive_range_query` (see :func:`svt_noise_scales`).

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
    """The noise scales of range-query SVT and of the naive baseline for ``n`` queries (see :class:`SVTScales`).

    Sparse runs at ε/2 (:func:`sparse_scales`), the ``c`` answers share the
    other ε/2 and the naive release shares ε among all ``n`` (:func:`naive_scale`).

    Parameters
    ----------
    n : int
        Number of queries, at least 1.
    c : int
        Largest number of positives, at least 1.
    epsilon : float
        Total privacy parameter ε, in (0, inf).
    sensitivity : float, default 1.0
        Sensitivity Δ of every query, in (0, inf).

    Examples
    --------
    >>> svt_noise_scales(20, 3, 0.5)
    SVTScales(threshold=24.0, query=48.0, answer=12.0, naive=40.0)
    """
    n = check_int(n, "n", minimum=1)
    c = check_int(c, "c", minimum=1)
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    rounds = sparse_scales(epsilon / 2.0, c, sensitivity)
    return SVTScales(
        threshold=rounds.threshold,
        query=rounds.query,
        answer=naive_scale(epsilon / 2.0, c, sensitivity),
        naive=naive_scale(epsilon, n, sensitivity),
    )


def svt_epsilon_for_accuracy(
    accuracy: float,
    n: int,
    c: int,
    confidence: float = 0.95,
    sensitivity: float = 1.0,
    *,
    release: str = "svt",
) -> float:
    """The smallest total ε at which each answer of a range-query release is within ``accuracy`` at ``confidence``.

    The answers carry Laplace noise of scale ``svt_noise_scales(n, c, ε).answer = 2cΔ/ε``
    (``release="svt"``: :func:`range_query_svt`) or ``.naive = nΔ/ε``
    (``release="naive"``: :func:`naive_range_query`); its error bound is
    :meth:`dpcore.laplace.Laplace.error_bound`. Both scales are proportional to
    ``1/ε``, so this is :meth:`~dpcore.laplace.Laplace.epsilon_for_accuracy` with the scale
    at ε = 1 as its sensitivity: ``ε = (2cΔ or nΔ) · ln(1/(1 − confidence)) / accuracy``,
    the exact inverse of the page's ``Laplace(svt_noise_scales(n, c, ε).answer).error_bound(confidence)``.
    It covers only the answers' noise: which queries SVT finds is another
    matter (Dwork & Roth 2014, Theorem 3.24, bounds that part).

    Parameters
    ----------
    accuracy : float
        Target error of each released answer, in (0, inf).
    n : int
        Number of queries, at least 1 (used by ``"naive"``).
    c : int
        Largest number of positives, at least 1 (used by ``"svt"``).
    confidence : float, default 0.95
        Probability in (0, 1).
    sensitivity : float, default 1.0
        Sensitivity Δ of every query, in (0, inf).
    release : {"svt", "naive"}, default "svt"

    Examples
    --------
    >>> eps = svt_epsilon_for_accuracy(10.0, 20, 3)
    >>> round(Laplace(svt_noise_scales(20, 3, eps).answer).error_bound(0.95), 12)
    10.0
    """
    release = check_choice(release, "release", ("svt", "naive"))
    scales_at_one = svt_noise_scales(n, c, 1.0, sensitivity)
    scale_at_one = scales_at_one.answer if release == "svt" else scales_at_one.naive
    return Laplace.epsilon_for_accuracy(accuracy, confidence, sensitivity=scale_at_one)
