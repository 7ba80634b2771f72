"""The staircase mechanism: the pure ε-DP additive noise of least variance (central model).

Geng & Viswanath (2016) show that among all ε-DP mechanisms adding noise
independent of the answer to a real query of sensitivity Δ, the optimal noise
(for the absolute error, the variance, and any symmetric increasing cost) has a
*staircase-shaped* density: for x ≥ 0 in the step ``[kΔ, (k+1)Δ)``,

``f(x) = a e^{−kε}`` on ``[kΔ, (k+γ)Δ)`` and ``a e^{−(k+1)ε}`` on ``[(k+γ)Δ, (k+1)Δ)``,

symmetric about 0, with ``b = e^{−ε}`` and ``a = (1 − b) / (2Δ(γ + (1 − γ)b))``
(their Definition 2; ε-DP: their Theorem 3, since ``f(x)/f(x + d) ≤ e^ε`` for
``|d| ≤ Δ``). The variance-optimal γ has the closed form of their Theorem 7,

``γ* = −b/(1 − b) + (b − 2b² + 2b⁴ − b⁵)^{1/3} / (2^{1/3} (1 − b)²)``.

Sampling (their Algorithm 1): a sign S, a geometric ``G`` with
``P(G = k) = (1 − b) bᵏ``, a uniform U and a Bernoulli B with
``P(B = 0) = γ / (γ + (1 − γ) b)``; the noise is
``S Δ (G + γU)`` when B = 0 and ``S Δ (G + γ + (1 − γ)U)`` when B = 1.
The same decomposition gives the variance in closed form (:attr:`Staircase.variance`):
``Var = Δ² (E[G²] + 2 E[G] E[W] + E[W²])`` with W the position within the step.

At small ε the staircase is close to Laplace; at large ε its variance falls
like ``e^{−2ε/3}`` against Laplace's ``2/ε²`` (their Section V): the gain a
mechanism chooser sees on the Central DP page.

References
----------
- Geng & Viswanath (2016), "The Optimal Noise-Adding Mechanism in Differential Privacy",
  IEEE Transactions on Information Theory 62(2), Definition 2, Theorems 3 and 7, Algorithm 1, Section V.
  https://arxiv.org/abs/1212.1186
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore._roots import root_on_log
from dpcore.noise import AdditiveNoise
from dpcore.validation import check_epsilon, check_positive, check_probability, check_real_in

__all__ = ["Staircase", "optimal_gamma"]


def optimal_gamma(epsilon: float) -> float:
    """The γ of least variance at ε (Geng & Viswanath 2016, Theorem 7), in (0, 1/2]."""
    epsilon = check_epsilon(epsilon)
    b = math.exp(-epsilon)
    one_minus_b = -math.expm1(-epsilon)
    root = (b - 2 * b * b + 2 * b**4 - b**5) ** (1.0 / 3.0)
    return float(min(max(-b / one_minus_b + root / (2.0 ** (1.0 / 3.0) * one_minus_b * one_minus_b), 0.0), 1.0))


@dataclass(frozen=True)
class Staircase(AdditiveNoise):
    """Staircase noise of privacy ε for a query of L1 sensitivity Δ, step split at γ.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in (0, inf): the release is ε-DP (Geng & Viswanath 2016, Theorem 3).
    sensitivity : float, default 1.0
        The sensitivity Δ of the query, in (0, inf): the width of one step.
    gamma : float, optional
        Where each step drops, in [0, 1]; the variance-optimal :func:`optimal_gamma` when omitted.

    Examples
    --------
    >>> round(Staircase.from_epsilon(1.0).std, 4) < round(2**0.5, 4)  # below Laplace's √2 b at Δ = 1
    True
    """

    epsilon: float
    sensitivity: float = 1.0
    gamma: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))
        gamma = optimal_gamma(self.epsilon) if self.gamma is None else check_real_in(self.gamma, "gamma", 0.0, 1.0)
        object.__setattr__(self, "gamma", float(gamma))

    @classmethod
    def from_epsilon(cls, epsilon: float, sensitivity: float = 1.0) -> Staircase:
        """The variance-optimal ε-DP staircase for a query of sensitivity Δ."""
        return cls(epsilon, sensitivity)

    # ------------------------------------------------------------------ the decomposition
    @property
    def _b(self) -> float:
        return math.exp(-self.epsilon)

    @property
    def _p_low(self) -> float:
        """``P(B = 0)``: the noise lies in the high part ``[k, k + γ)`` of its step."""
        g = self.gamma
        return g / (g + (1.0 - g) * self._b)

    # ------------------------------------------------------------------ error
    @property
    def variance(self) -> float:
        """``Δ² (E[G²] + 2 E[G] E[W] + E[W²])`` from the sampling decomposition (module docstring)."""
        b, g, p = self._b, self.gamma, self._p_low
        one_minus_b = -math.expm1(-self.epsilon)
        mean_g = b / one_minus_b
        second_g = b * (1.0 + b) / (one_minus_b * one_minus_b)
        mean_w = p * g / 2.0 + (1.0 - p) * (1.0 + g) / 2.0
        second_w = p * g * g / 3.0 + (1.0 - p) * (1.0 + g + g * g) / 3.0
        return float(self.sensitivity * self.sensitivity * (second_g + 2.0 * mean_g * mean_w + second_w))

    @property
    def std(self) -> float:
        """Standard deviation of the noise."""
        return math.sqrt(self.variance)

    def cdf_abs(self, t):
        """``P(|noise| ≤ t)``: geometric steps, and a piecewise-linear law within a step."""
        s = np.maximum(np.asarray(t, dtype=np.float64), 0.0) / self.sensitivity
        m = np.floor(s)
        r = s - m
        g, p = self.gamma, self._p_low
        below = -np.expm1(m * (-self.epsilon))  # P(G < m) = 1 − bᵐ
        low = p * np.minimum(r / g, 1.0) if g > 0 else np.full_like(r, p)
        high = (1.0 - p) * np.maximum(r - g, 0.0) / (1.0 - g) if g < 1 else np.zeros_like(r)
        out = below + np.exp(m * (-self.epsilon)) * -math.expm1(-self.epsilon) * (low + high)
        return float(out) if out.ndim == 0 else out

    def error_bound(self, confidence: float = 0.95) -> float:
        """The ``t`` with ``P(|noise| ≤ t) = confidence``, the exact inverse of :meth:`cdf_abs`."""
        confidence = check_probability(confidence, "confidence")
        g, p = self.gamma, self._p_low
        # the step m holding the quantile: 1 − b^m ≤ c < 1 − b^(m+1)
        m = max(math.floor(math.log1p(-confidence) / (-self.epsilon)), 0)
        within = (confidence + math.expm1(m * (-self.epsilon))) / (
            math.exp(m * (-self.epsilon)) * -math.expm1(-self.epsilon)
        )
        r = within / p * g if within <= p else g + (within - p) / (1.0 - p) * (1.0 - g)
        return float(self.sensitivity * (m + min(max(r, 0.0), 1.0)))

    def pdf(self, x):
        """Density of the noise at ``x`` (Geng & Viswanath 2016, Definition 2)."""
        s = np.abs(np.asarray(x, dtype=np.float64)) / self.sensitivity
        k = np.floor(s)
        b = self._b
        a = -math.expm1(-self.epsilon) / (2.0 * self.sensitivity * (self.gamma + (1.0 - self.gamma) * b))
        out = a * np.exp(-self.epsilon * (k + (s - k >= self.gamma)))
        return float(out) if out.ndim == 0 else out

    @classmethod
    def epsilon_for_accuracy(cls, accuracy: float, confidence: float = 0.95, sensitivity: float = 1.0) -> float:
        """The smallest ε whose (variance-optimal) staircase stays within ``accuracy`` with probability ``confidence``.

        :meth:`error_bound` falls as ε grows; solved on a log scale by the one bracketed solver.
        """
        accuracy = check_positive(accuracy, "accuracy")
        confidence = check_probability(confidence, "confidence")
        sensitivity = check_positive(sensitivity, "sensitivity")
        return root_on_log(lambda e: cls(e, sensitivity).error_bound(confidence) - accuracy, 1.0, increasing=False)

    # ------------------------------------------------------------------ sampling
    def _draw(self, rng, shape):
        g = self.gamma
        sign = rng.integers(0, 2, size=shape) * 2 - 1
        steps = rng.geometric(-math.expm1(-self.epsilon), size=shape) - 1  # P(G = k) = (1 − b) bᵏ
        u = rng.random(size=shape)
        high = rng.random(size=shape) >= self._p_low
        within = np.where(high, g + (1.0 - g) * u, g * u)
        return sign * self.sensitivity * (steps + within)
