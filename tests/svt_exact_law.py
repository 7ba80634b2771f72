"""The exact law of AboveThreshold with discrete Laplace noise on integer answers, by enumeration over the noise.

``P(i) = Σ_ρ P[ρ] Π_{j<i} P[ν_j < ⌈T⌉ + ρ − a_j] · P[ν_i ≥ ⌈T⌉ + ρ − a_i]`` (Dwork & Roth 2014, Algorithm 1),
``ρ`` and ``ν`` discrete Laplace (``P[Y = y] = (1 − r)/(1 + r) r^{|y|}``, ``r = e^{−1/b}``), whose distribution
function is closed-form: ``P[Y ≤ y] = r^{−y}/(1 + r)`` for ``y < 0`` and ``1 − r^{y+1}/(1 + r)`` for ``y ≥ 0``.
The threshold noise is summed over ``|ρ| ≤ 60 b_T + 60`` (the mass left out is below e⁻⁶⁰); shared by the SVT and
clipping tests.
"""

import math

import numpy as np


def discrete_laplace_cdf(y, scale: float) -> np.ndarray:
    """``P[Y ≤ y]`` for integer ``y`` and the discrete Laplace of ``scale``."""
    y = np.asarray(y, dtype=np.float64)
    r = math.exp(-1.0 / scale)
    below = np.exp(np.minimum(y, 0.0) / scale) / (1.0 + r)  # r^{−y}/(1 + r) for y < 0
    above = 1.0 - np.exp(-(np.maximum(y, 0.0) + 1.0) / scale) / (1.0 + r)
    return np.where(y < 0, below, above)


def discrete_laplace_pmf(y, scale: float) -> np.ndarray:
    y = np.abs(np.asarray(y, dtype=np.float64))
    return math.tanh(0.5 / scale) * np.exp(-y / scale)


def exact_above_threshold_probabilities(answers, threshold, threshold_scale, query_scale, *, query_cdf=None):
    """``P(output = i)`` for ``i = 0..n−1``, then ``P(nothing passed)``, of exact AboveThreshold.

    ``answers`` are integers; ``threshold`` is compared as ``⌈T⌉``; ``query_cdf(y)`` (``P[ν ≤ y]``) may replace the
    discrete Laplace of ``query_scale`` (a negative control plugs in a broken variant; it must be symmetric, so that
    ``P[ν ≥ y] = P[ν ≤ −y]``, computed without cancellation).
    """
    a = np.asarray(answers, dtype=np.float64)
    t = math.ceil(threshold)
    span = int(60 * float(threshold_scale)) + 60
    rho = np.arange(-span, span + 1, dtype=np.float64)
    weight = discrete_laplace_pmf(rho, float(threshold_scale))
    cdf = query_cdf if query_cdf is not None else (lambda y: discrete_laplace_cdf(y, float(query_scale)))
    below = cdf(t + rho[None, :] - a[:, None] - 1.0)  # P[a_j + ν_j < ⌈T⌉ + ρ] = P[ν_j ≤ ⌈T⌉ + ρ − a_j − 1]
    before = np.vstack([np.ones_like(rho), np.cumprod(below, axis=0)])
    passes = cdf(a[:, None] - t - rho[None, :])  # P[ν_j ≥ ⌈T⌉ + ρ − a_j] = P[ν_j ≤ a_j − ⌈T⌉ − ρ]
    p = [float(np.sum(weight * before[i] * passes[i])) for i in range(a.size)]
    p.append(float(np.sum(weight * before[-1])))
    return np.array(p)


def worst_log_ratio(p: np.ndarray, q: np.ndarray) -> float:
    """``max_e |ln P(e) − ln Q(e)|`` over the outcomes (infinite when one law gives an outcome no mass)."""
    with np.errstate(divide="ignore"):
        return float(np.max(np.abs(np.log(p) - np.log(q))))
