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

**Exact comparisons, to publish** (``exact=True``). The float path draws its Laplace noise
from floating-point exponentials: the law of a comparison then carries an uncharged rounding
error (Mironov 2012), harmless for seeded simulation, not for a publication. With
``exact=True`` the answers must be whole numbers (counts) and Δ a whole number, and both
noises are exact discrete Laplace draws (:func:`dpcore.discrete.sample_discrete_laplace`,
Canonne, Kamath & Steinke 2020, Algorithm 2) of scales ``b_T ≥ 2Δ/ε`` and ``b_ν ≥ 4Δ/ε``
(:func:`exact_above_threshold_scales`: rounded up to a dyadic rational, so the ε spent is at
most the ε asked). Every comparison is then between integers, with no rounding anywhere.

*Why AboveThreshold stays ε-DP with discrete noise.* The proof of Dwork & Roth (2014,
Theorem 3.23; Lyu, Su & Li 2017, Theorem 2) fixes the answer noises ``ν_j``, ``j < k``, and
maps an outcome "first pass at k" on ``D`` to one on a neighbour ``D'`` by the shifts
``ρ' = ρ + Δ`` (threshold noise) and ``ν_k' = ν_k + 2Δ``: ``a_j(D') + ν_j ≤ a_j(D) + Δ + ν_j <
T + ρ'`` for ``j < k`` and ``a_k(D') + ν_k' ≥ a_k(D) + ν_k + Δ ≥ T + ρ'``. It uses only that
the shift is a bijection of the noise's support and that the noise's mass changes by at most
``e^{|shift|/b}`` under it. For integer answers, an integer Δ and integer noise, the shifts
``Δ`` and ``2Δ`` are integers, so both hold for the discrete Laplace of scale ``b``
(``P[Y = y] / P[Y = y + s] ≤ e^{|s|/b}``): the ratio is at most ``e^{Δ/b_T} · e^{2Δ/b_ν} ≤
e^{ε/2} e^{ε/2} = e^ε``, with strict and non-strict comparisons preserved exactly. A
non-integer threshold ``T`` is replaced by ``⌈T⌉``: with integer answers and noises,
``a + ν ≥ T + ρ`` and ``a + ν ≥ ⌈T⌉ + ρ`` are the same event, so nothing changes in law.
``tests/test_svt.py`` enumerates the output law exactly on neighbouring inputs and checks the
ratio against ``e^ε``.

Choosing a clipping bound with AboveThreshold is in :mod:`dpcore.clipping`.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Section 3.6: Algorithms 1–3, Theorems 3.16,
  3.23 and 3.25. https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Lyu, Su & Li (2017), "Understanding the Sparse Vector Technique for Differential Privacy",
  PVLDB 10(6), Sections 3–4 (Theorem 2: the proof for any noise with the shift property).
  https://arxiv.org/abs/1603.01699
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS,
  Algorithm 2 (the exact discrete Laplace sampler). https://arxiv.org/abs/2004.00010
- Mironov (2012), "On Significance of the Least Significant Bits for Differential Privacy", CCS
  (floating-point noise leaks). https://doi.org/10.1145/2382196.2382264
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpcore.discrete import sample_discrete_laplace
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
    "exact_above_threshold_scales",
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

# Exact comparisons run on int64: answers and ⌈T⌉ up to 2^53, noise scales up to 2^50 (a draw beyond 2^58 has
# probability below e^-200), so no sum can overflow; scales are rounded up on the 2^-32 grid at most.
_EXACT_MAX_VALUE = 1 << 53
_EXACT_MAX_SCALE = 1 << 50
_EXACT_SCALE_BITS = 32
# the exact sampler's integer scale stays below 2^55, in its vectorised (int64) path
_EXACT_MAX_NUMERATOR = 1 << 55


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


def _dyadic_ceiling(scale: Fraction) -> Fraction:
    """The smallest ``t / 2^k ≥ scale`` with the finest ``k ≤ 32`` that keeps ``t < 2^55``."""
    for k in range(_EXACT_SCALE_BITS, -1, -1):
        t = math.ceil(scale * (1 << k))
        if t < _EXACT_MAX_NUMERATOR or k == 0:
            return Fraction(t, 1 << k)
    raise AssertionError("unreachable")  # pragma: no cover


def exact_above_threshold_scales(epsilon, sensitivity: int = 1, rounds: int = 1) -> tuple[Fraction, Fraction]:
    """The discrete Laplace scales ``(b_T, b_ν)`` of exact AboveThreshold at ε/c: ``b_T ≥ 2cΔ/ε``, ``b_ν ≥ 4cΔ/ε``.

    ``2cΔ/ε`` and ``4cΔ/ε`` (``c = rounds``, the rounds of Sparse sharing ε) are computed
    exactly (a float ε is the rational it stores; a :class:`fractions.Fraction` is taken as
    is, so ``Fraction(ε) / 3`` is exactly a third) and rounded *up* to a dyadic rational
    ``t/2^k`` (``k ≤ 32``, ``t < 2^55``), the form the exact sampler takes; a larger scale
    only lowers the ε spent, ``Δ/b_T + 2Δ/b_ν ≤ ε/c`` per round (see the module docstring;
    Dwork & Roth 2014, Theorem 3.23).

    Parameters
    ----------
    epsilon : float or fractions.Fraction
        Privacy parameter ε, in (0, inf).
    sensitivity : int, default 1
        Δ, a whole number of at least 1 (the answers are integers).
    rounds : int, default 1
        The number ``c`` of rounds sharing ε (Sparse), at least 1.

    Examples
    --------
    >>> exact_above_threshold_scales(0.5)
    (Fraction(4, 1), Fraction(8, 1))
    >>> [float(b) for b in exact_above_threshold_scales(1.0, rounds=3)]
    [6.0, 12.0]
    """
    exact_epsilon = _exact_epsilon(epsilon)
    delta = _whole_sensitivity(sensitivity)
    rounds = check_int(rounds, "rounds", minimum=1)
    out = tuple(_dyadic_ceiling(Fraction(m * delta * rounds) / exact_epsilon) for m in (2, 4))
    if out[1] > _EXACT_MAX_SCALE:
        raise ValueError(
            f"epsilon must be at least {4 * delta * rounds / _EXACT_MAX_SCALE:.3g} for exact comparisons "
            f"(a noise scale above 2^50), got {float(exact_epsilon)}"
        )
    return out


def _exact_epsilon(epsilon) -> Fraction:
    """ε as an exact rational: a Fraction as given, anything else through :func:`check_epsilon` (a float)."""
    if isinstance(epsilon, Fraction):
        if epsilon <= 0:
            raise ValueError(f"epsilon must be in (0, inf), got {float(epsilon)}")
        return epsilon
    return Fraction(check_epsilon(epsilon))


def _whole_sensitivity(sensitivity) -> int:
    value = check_positive(sensitivity, "sensitivity")
    if value != math.floor(value) or value > _EXACT_MAX_VALUE:
        raise ValueError(f"sensitivity must be a whole number for exact comparisons, got {value}")
    return int(value)


class _Comparison:
    """The answers, the threshold and the two noises of one AboveThreshold at ε: float Laplace (simulation) or
    exact discrete Laplace on whole-number answers against ``⌈T⌉`` (``exact``; see the module docstring)."""

    def __init__(self, answers: np.ndarray, threshold: float, epsilon, sensitivity: float, exact: bool, rounds=1):
        self.exact = bool(exact)
        if not self.exact:
            scales = sparse_scales(float(epsilon), rounds, sensitivity)
            self.answers, self.threshold = answers, threshold
            self._scales = (scales.threshold, scales.query)
            return
        if np.any(answers != np.floor(answers)) or np.abs(answers).max() > _EXACT_MAX_VALUE:
            bad = answers[(answers != np.floor(answers)) | (np.abs(answers) > _EXACT_MAX_VALUE)][0]
            raise ValueError(
                f"answers must be whole numbers of magnitude at most 2^53 for exact comparisons (counts), got {bad}"
            )
        ceiling = math.ceil(Fraction(threshold))
        if abs(ceiling) > _EXACT_MAX_VALUE:
            raise ValueError(f"threshold must be at most 2^53 in magnitude for exact comparisons, got {threshold}")
        self.answers, self.threshold = answers.astype(np.int64), ceiling
        self._scales = exact_above_threshold_scales(epsilon, sensitivity, rounds)

    def _draw(self, rng, scale, size):
        if self.exact:
            return sample_discrete_laplace(rng, scale.numerator, size, scale_den=scale.denominator)
        return sample_laplace(rng, scale, size=size)

    def threshold_noise(self, rng, size=None):
        return self._draw(rng, self._scales[0], size)

    def query_noise(self, rng, size=None):
        return self._draw(rng, self._scales[1], size)


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


def above_threshold(
    answers, threshold: float, epsilon: float, rng, sensitivity: float = 1.0, *, exact: bool = False
) -> int | None:
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
        Privacy parameter ε, in (0, inf) (a :class:`fractions.Fraction` is taken exactly when ``exact``).
    rng : numpy.random.Generator or int
    sensitivity : float, default 1.0
        Sensitivity Δ of every query, in (0, inf).
    exact : bool, default False
        Exact comparisons, to publish: whole-number answers, a whole-number Δ, exact
        discrete Laplace noise of :func:`exact_above_threshold_scales` against ``⌈T⌉`` (ε-DP
        with no floating-point error; see the module docstring). False keeps the fast
        floating-point Laplace noise of the seeded simulations.

    Returns
    -------
    int or None
        The index, or None when no query passed.
    """
    answers, threshold, checked, sensitivity = _check_common(answers, threshold, epsilon, sensitivity)
    rng = as_generator(rng)
    cmp = _Comparison(answers, threshold, epsilon if exact else checked, sensitivity, exact)
    t_hat = cmp.threshold + cmp.threshold_noise(rng)
    mask = cmp.answers + cmp.query_noise(rng, answers.size) >= t_hat
    i = int(np.argmax(mask))
    return i if mask[i] else None


def above_threshold_trials(
    answers, threshold: float, epsilon: float, rng, trials: int, sensitivity: float = 1.0, *, exact: bool = False
) -> np.ndarray:
    """``trials`` independent runs of :func:`above_threshold`, vectorised; ``-1`` where nothing passed.

    Same parameters as :func:`above_threshold` (``exact`` included), plus ``trials`` (int >= 1).
    Returns an int64 array of shape ``(trials,)``.
    """
    answers, threshold, checked, sensitivity = _check_common(answers, threshold, epsilon, sensitivity)
    trials = check_trials(trials, per_trial=answers.size)
    rng = as_generator(rng)
    cmp = _Comparison(answers, threshold, epsilon if exact else checked, sensitivity, exact)
    out = np.empty(trials, dtype=np.int64)
    for start, stop in trial_blocks(trials, answers.size):
        m = stop - start
        t_hat = cmp.threshold + cmp.threshold_noise(rng, (m, 1))
        mask = cmp.answers + cmp.query_noise(rng, (m, answers.size)) >= t_hat
        idx = mask.argmax(axis=1)
        out[start:stop] = np.where(mask[np.arange(m), idx], idx, -1)
    return out


def sparse(
    answers, threshold: float, c: int, epsilon: float, rng, sensitivity: float = 1.0, *, exact: bool = False
) -> list[int]:
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
    exact : bool, default False
        Exact comparisons, to publish: whole-number answers, a whole-number Δ, exact
        discrete Laplace noise of :func:`exact_above_threshold_scales` against ``⌈T⌉`` (ε-DP
        with no floating-point error; see the module docstring). False keeps the fast
        floating-point Laplace noise of the seeded simulations.
        Each round is then exact AboveThreshold at ε/c (scales ``exact_above_threshold_scales(ε, Δ, c)``).
    """
    answers, threshold, checked, sensitivity = _check_common(answers, threshold, epsilon, sensitivity)
    c = check_int(c, "c", minimum=1)
    rng = as_generator(rng)
    cmp = _Comparison(answers, threshold, epsilon if exact else checked, sensitivity, exact, c)
    found: list[int] = []
    start = 0
    for _ in range(c):
        if start >= answers.size:
            break
        t_hat = cmp.threshold + cmp.threshold_noise(rng)
        rest = cmp.answers[start:]
        mask = rest + cmp.query_noise(rng, rest.size) >= t_hat
        i = int(np.argmax(mask))
        if not mask[i]:
            break
        found.append(start + i)
        start += i + 1
    return found


def sparse_trials(
    answers,
    threshold: float,
    c: int,
    epsilon: float,
    rng,
    trials: int,
    sensitivity: float = 1.0,
    *,
    exact: bool = False,
) -> np.ndarray:
    """``trials`` independent runs of :func:`sparse`, vectorised over trials and queries.

    Returns an int64 array of shape ``(trials, c)``: the indices found in each
    run, increasing, padded with ``-1``. The only Python loop is over the ``c``
    rounds (and over memory blocks of trials). ``exact`` as in :func:`sparse`.
    """
    answers, threshold, checked, sensitivity = _check_common(answers, threshold, epsilon, sensitivity)
    c = check_int(c, "c", minimum=1)
    trials = check_trials(trials, per_trial=answers.size)
    rng = as_generator(rng)
    cmp = _Comparison(answers, threshold, epsilon if exact else checked, sensitivity, exact, c)
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
            t_hat = cmp.threshold + cmp.threshold_noise(rng, (m, 1))
            mask = cmp.answers + cmp.query_noise(rng, (m, n)) >= t_hat
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
    answers,
    threshold: float,
    c: int,
    epsilon: float,
    rng,
    sensitivity: float = 1.0,
    *,
    lattice: bool = False,
    exact: bool = False,
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
    exact : bool, default False
        Find the queries with exact comparisons (:func:`sparse` with ``exact=True``: whole-number
        answers such as counts, exact discrete Laplace noise, ``⌈T⌉``): with ``lattice=True``, the
        whole release is free of floating-point error, to publish. False keeps the float comparisons.

    Returns
    -------
    list of (int, float)
        ``(index, noisy answer)`` for each query found, by increasing index.
    """
    epsilon = check_epsilon(epsilon)
    rng = as_generator(rng)
    found = sparse(answers, threshold, c, epsilon / 2.0, rng, sensitivity, exact=exact)
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
