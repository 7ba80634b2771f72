"""Confidence bounds for an empirical lower bound on ε.

If a mechanism ``M`` is (ε, δ)-DP then for every pair of neighbouring inputs
``x, x'`` and every output event ``S``

    ``P[M(x) ∈ S] ≤ e^ε · P[M(x') ∈ S] + δ``,  so  ``ε ≥ ln((P[M(x) ∈ S] − δ) / P[M(x') ∈ S])``

(Dwork & Roth 2014, Definition 2.4). An audit estimates the two probabilities
from independent runs and replaces them by a Clopper–Pearson lower bound on the
first and an upper bound on the second; the logarithm of their ratio is then a
lower bound on ε that holds with the stated confidence (Jagielski, Ullman &
Oprea 2020, "Auditing Differentially Private Machine Learning: How Private is
Private SGD?", NeurIPS, Section 3 and Algorithm 2, https://arxiv.org/abs/2006.07709;
Nasr, Song, Thakurta, Papernot & Carlini 2021, "Adversary Instantiation: Lower
Bounds for Differentially Private Machine Learning", IEEE S&P, Section 4).

Why the confidence is honest. Let ``α = 1 − confidence``. The Clopper–Pearson
bounds (Clopper & Pearson 1934, "The Use of Confidence or Fiducial Limits
Illustrated in the Case of the Binomial", Biometrika 26(4)) are exact: for any
true ``p``, ``P[p̲ ≤ p] ≥ 1 − α/2`` and ``P[p̄ ≥ p] ≥ 1 − α/2`` with
``p̲ = Beta⁻¹(α/2; h, n − h + 1)`` and ``p̄ = Beta⁻¹(1 − α/2; h + 1, n − h)``.
By the union bound both hold together with probability at least ``1 − α``, and
when they do, ``(p̲₀ − δ)/p̄₁ ≤ (p₀ − δ)/p₁ ≤ e^ε``. So the reported bound
exceeds the true ε with probability at most α, whatever the mechanism.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and Trends
  in Theoretical Computer Science 9(3–4), Definitions 2.4 and 3.1. https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Jagielski, Ullman & Oprea (2020), "Auditing Differentially Private Machine Learning: How Private is
  Private SGD?", NeurIPS, Section 3 and Algorithm 2. https://arxiv.org/abs/2006.07709
- Nasr, Song, Thakurta, Papernot & Carlini (2021), "Adversary Instantiation: Lower Bounds for
  Differentially Private Machine Learning", IEEE S&P, Section 4. https://arxiv.org/abs/2101.04535
- Clopper & Pearson (1934), "The Use of Confidence or Fiducial Limits Illustrated in the Case of the
  Binomial", Biometrika 26(4). https://doi.org/10.1093/biomet/26.4.404
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaincinv

from dpcore.validation import check_int, check_probability

__all__ = ["clopper_pearson", "epsilon_lower_bound", "epsilon_lower_bounds"]


def _bounds(hits: np.ndarray, trials: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper–Pearson ``(lower, upper)``, each holding with probability ``≥ 1 − tail``.

    ``lower = Beta⁻¹(tail; h, n − h + 1)`` (0 when ``h = 0``) and
    ``upper = Beta⁻¹(1 − tail; h + 1, n − h)`` (1 when ``h = n``).
    ``betaincinv`` inverts the regularised incomplete beta function, the
    binomial tail: ``P[Bin(n, p) ≥ h] = I_p(h, n − h + 1)``.
    """
    h = np.asarray(hits, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = np.where(h > 0, betaincinv(np.maximum(h, 1.0), n - h + 1.0, tail), 0.0)
        upper = np.where(h < n, betaincinv(h + 1.0, np.maximum(n - h, 1.0), 1.0 - tail), 1.0)
    return lower, upper


def clopper_pearson(hits: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The two-sided Clopper–Pearson interval for a binomial proportion.

    ``P[lower ≤ p ≤ upper] ≥ confidence`` for every ``p`` (Clopper & Pearson
    1934): each end is the exact one-sided bound at ``(1 − confidence)/2``.

    Parameters
    ----------
    hits : int
        Number of successes, in [0, trials].
    trials : int
        Number of trials, in [1, inf).
    confidence : float, default 0.95
        Coverage, in (0, 1).

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 100)
    >>> lo, round(hi, 4)  # 1 − 0.025**(1/100)
    (0.0, 0.0362)
    """
    trials = check_int(trials, "trials", minimum=1)
    hits = check_int(hits, "hits", minimum=0, maximum=trials)
    confidence = check_probability(confidence, "confidence")
    lo, hi = _bounds(np.float64(hits), np.float64(trials), (1.0 - confidence) / 2.0)
    return float(lo), float(hi)


def epsilon_lower_bounds(hits0, trials0, hits1, trials1, delta: float = 0.0, confidence: float = 0.95):
    """Vectorised :func:`epsilon_lower_bound` (arrays broadcast; no argument checks).

    Returns ``(bound, p0_lower, p1_upper)``, each an array of the broadcast shape.
    """
    tail = (1.0 - confidence) / 2.0
    p0_lower, _ = _bounds(hits0, trials0, tail)
    _, p1_upper = _bounds(hits1, trials1, tail)
    numer = p0_lower - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.where(numer > 0, np.log(np.where(numer > 0, numer, 1.0)) - np.log(p1_upper), 0.0)
    return np.maximum(bound, 0.0), p0_lower, p1_upper


def epsilon_lower_bound(hits0, trials0, hits1, trials1, delta: float = 0.0, confidence: float = 0.95) -> float:
    """A lower bound on ε that holds with probability ``confidence``: ``ln((p̲₀ − δ) / p̄₁)``.

    ``p̲₀`` is the one-sided Clopper–Pearson lower bound on ``P[M(x) ∈ S]`` from
    ``hits0`` of ``trials0`` runs on ``x`` and ``p̄₁`` the upper bound on
    ``P[M(x') ∈ S]`` from ``hits1`` of ``trials1`` runs on ``x'``, each at
    level ``1 − (1 − confidence)/2`` so that both hold together with
    probability ``confidence`` (union bound; see the module docstring). The
    event ``S`` must have been fixed before these runs were made (choosing it
    on the same runs would void the confidence: :func:`dpcore.audit.audit`
    chooses it on separate runs). Returns 0.0 when the runs show nothing
    (``p̲₀ ≤ δ`` or the ratio below 1): ε ≥ 0 always holds.

    Parameters
    ----------
    hits0, trials0 : int
        Runs on ``x`` whose output fell in ``S``, and all runs on ``x``; ``trials0`` in [1, inf), ``hits0`` in [0, trials0].
    hits1, trials1 : int
        The same on ``x'``.
    delta : float, default 0.0
        The δ of the claim being audited, in [0, 1).
    confidence : float, default 0.95
        Probability, in (0, 1), that the bound is below the true ε.

    Returns
    -------
    float
        The lower bound on ε, in [0, inf).

    Examples
    --------
    >>> round(epsilon_lower_bound(50_000, 100_000, 18_394, 100_000), 3)  # p₀ = 1/2, p₁ = e⁻¹/2: ε = 1
    0.981
    >>> epsilon_lower_bound(10, 100, 10, 100)
    0.0
    """
    trials0 = check_int(trials0, "trials0", minimum=1)
    trials1 = check_int(trials1, "trials1", minimum=1)
    hits0 = check_int(hits0, "hits0", minimum=0, maximum=trials0)
    hits1 = check_int(hits1, "hits1", minimum=0, maximum=trials1)
    confidence = check_probability(confidence, "confidence")
    if delta != 0.0:
        delta = check_probability(delta, "delta", low_open=False)
    bound, _, _ = epsilon_lower_bounds(hits0, trials0, hits1, trials1, float(delta), confidence)
    return float(bound)
