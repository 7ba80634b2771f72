"""The exponential mechanism: choose a candidate with probability growing with its score.

Candidate ``r`` is chosen with probability ``∝ exp(ε · u(x, r) / (2Δu))``, where
``Δu`` is the sensitivity of the score ``u`` (its largest change, for any fixed
candidate, between neighbouring data sets). The choice is ε-DP.

References
----------
- McSherry & Talwar (2007), "Mechanism Design via Differential Privacy", FOCS.
  https://doi.org/10.1109/FOCS.2007.66
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Definition 3.4, Theorem 3.10 (privacy) and Theorem 3.11 (utility). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import softmax

from dpcore.validation import (
    as_generator,
    check_epsilon,
    check_int,
    check_numeric_array,
    check_positive,
    check_probability,
    check_trials,
)

__all__ = [
    "exponential_probabilities",
    "exponential_mechanism",
    "exponential_error_bound",
    "exponential_epsilon_for_accuracy",
]


def exponential_probabilities(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """The selection probabilities ``p_r = exp(ε s_r / (2Δ)) / Σ_r' exp(ε s_r' / (2Δ))``.

    Computed stably: scores are shifted by their maximum before scaling, so
    ``exp`` only ever sees numbers in ``[-inf, 0]`` and huge scores (1e300)
    cannot overflow (the usual log-sum-exp shift; Dwork & Roth 2014, Def. 3.4).

    Parameters
    ----------
    scores : array_like
        Finite score ``u(x, r)`` of each candidate, 1-D, at least one entry.
    epsilon : float
        Privacy parameter ε, in (0, inf).
    sensitivity : float, default 1.0
        Sensitivity Δu of the score, in (0, inf).

    Returns
    -------
    numpy.ndarray
        Probabilities summing to 1, one per candidate.
    """
    scores, _ = check_numeric_array(scores, "scores")
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    top = scores.max()
    with np.errstate(over="ignore", invalid="ignore"):
        # (s − max) may be −inf for scores 1e308 apart: exp gives 0, which is right.
        z = (scores - top) * (epsilon / (2.0 * sensitivity))
    z[scores == top] = 0.0  # guards 0 · inf when ε / (2Δ) overflows
    return softmax(z)


def exponential_mechanism(scores, epsilon: float, sensitivity: float, rng, trials: int | None = None):
    """Choose a candidate index with the exponential mechanism (ε-DP).

    ``P(r) = exp(ε s_r / (2Δ)) / Σ exp(ε s_r' / (2Δ))`` (Dwork & Roth 2014,
    Definition 3.4, Theorem 3.10); see :func:`exponential_probabilities`.

    Parameters
    ----------
    scores : array_like
        Finite score of each candidate, 1-D.
    epsilon : float
        Privacy parameter ε, in (0, inf).
    sensitivity : float
        Sensitivity Δu of the score, in (0, inf).
    rng : numpy.random.Generator or int
        Source of randomness.
    trials : int, optional
        When given, that many independent choices as an int array (vectorised).

    Returns
    -------
    int or numpy.ndarray
    """
    probs = exponential_probabilities(scores, epsilon, sensitivity)
    rng = as_generator(rng)
    size = None if trials is None else check_trials(trials, per_trial=2)
    # inverse-CDF sampling: u in [0, total) lands in [cdf[i-1], cdf[i]) with probability p_i
    cdf = np.cumsum(probs)
    u = rng.random(size) * cdf[-1]
    idx = np.minimum(np.searchsorted(cdf, u, side="right"), probs.size - 1)
    return int(idx) if trials is None else idx.astype(np.int64)


def exponential_error_bound(
    n_candidates: int, epsilon: float, sensitivity: float = 1.0, confidence: float = 0.95
) -> float:
    """Score shortfall ``t`` with ``P(OPT − u(chosen) <= t) >= confidence``.

    ``t = (2Δ/ε) (ln n + ln(1/(1 − confidence)))`` (Dwork & Roth 2014,
    Theorem 3.11 with ``|R_OPT| >= 1`` and ``e^{-t'} = 1 − confidence``).

    Parameters
    ----------
    n_candidates : int
        Number of candidates ``n``, at least 1.
    epsilon : float
        Privacy parameter ε, in (0, inf).
    sensitivity : float, default 1.0
        Sensitivity Δu of the score, in (0, inf).
    confidence : float
        Probability in (0, 1).
    """
    n_candidates = check_int(n_candidates, "n_candidates", minimum=1)
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    confidence = check_probability(confidence, "confidence")
    return 2.0 * sensitivity / epsilon * (math.log(n_candidates) - math.log1p(-confidence))


def exponential_epsilon_for_accuracy(
    accuracy: float, n_candidates: int, sensitivity: float = 1.0, confidence: float = 0.95
) -> float:
    """The smallest ε whose :func:`exponential_error_bound` is ``accuracy``: the exact inverse.

    The bound ``t = (2Δ/ε) (ln n + ln(1/(1 − confidence)))`` (Dwork & Roth 2014,
    Theorem 3.11) is proportional to ``1/ε``, so ``ε = t(ε = 1) / accuracy``,
    that is ``ε = 2Δ (ln n − ln(1 − confidence)) / accuracy``.

    Parameters
    ----------
    accuracy : float
        Largest score shortfall ``t`` accepted, in (0, inf).
    n_candidates : int
        Number of candidates ``n``, at least 1.
    sensitivity : float, default 1.0
        Sensitivity Δu of the score, in (0, inf).
    confidence : float
        Probability in (0, 1).

    Examples
    --------
    >>> eps = exponential_epsilon_for_accuracy(50.0, 15)
    >>> round(exponential_error_bound(15, eps), 12)
    50.0
    """
    accuracy = check_positive(accuracy, "accuracy")
    return exponential_error_bound(n_candidates, 1.0, sensitivity, confidence) / accuracy
