"""The exact law of AboveThreshold, by numerical integration: shared by the SVT and clipping tests."""

import numpy as np
from scipy.integrate import trapezoid

from dpcore import Laplace


def above_threshold_probabilities(answers, threshold, epsilon, sensitivity=1.0, points=400_001):
    """Exact ``P(output = i)`` for i = 0..n-1, then ``P(None)``, by numerical integration.

    ``P(i) = ∫ f_T̂(t) Π_{j<i} P(a_j + ν_j < t) P(a_i + ν_i >= t) dt`` with
    ``T̂ ~ T + Lap(2Δ/ε)``, ``ν ~ Lap(4Δ/ε)`` (Dwork & Roth 2014, Algorithm 1).
    """
    answers = np.asarray(answers, dtype=float)
    thr, nu = Laplace(2 * sensitivity / epsilon), Laplace(4 * sensitivity / epsilon)
    t = np.linspace(threshold - 60 * thr.scale, threshold + 60 * thr.scale, points)
    below = nu.cdf(t[None, :] - answers[:, None])  # P(a_j + ν_j < t)
    all_below_before = np.vstack([np.ones_like(t), np.cumprod(below, axis=0)])
    dens = thr.pdf(t - threshold)
    p = [trapezoid(dens * all_below_before[i] * (1 - below[i]), t) for i in range(answers.size)]
    p.append(trapezoid(dens * all_below_before[-1], t))
    return np.array(p)


def event_counts(outputs, n):
    """Counts of outputs 0..n-1 and of "nothing passed" (-1) in the last slot."""
    outputs = np.where(np.asarray(outputs) < 0, n, outputs)
    return np.bincount(outputs, minlength=n + 1)
