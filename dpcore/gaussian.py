"""The Gaussian mechanism (central model) and its calibrations.

A query ``f`` of L2 sensitivity ``Δ`` is released as ``f(x) + N(0, σ²)``. How
large ``σ`` must be depends on the privacy notion:

* (ε, δ)-DP, **analytic** (tight): the smallest σ with
  ``Φ(Δ/(2σ) − εσ/Δ) − e^ε · Φ(−Δ/(2σ) − εσ/Δ) ≤ δ``; Balle & Wang (2018),
  "Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising", ICML, Theorem 8 and Algorithm 1.
  https://arxiv.org/abs/1805.06530 . Valid for every ε > 0.
* (ε, δ)-DP, **classic**: ``σ = Δ · sqrt(2 ln(1.25/δ)) / ε``; Dwork & Roth
  (2014), Theorem A.1, proven only for ε < 1 (Balle & Wang 2018, Section 2,
  show that it can fail for larger ε).
* ρ-zCDP: ``σ² = Δ² / (2ρ)``; Bun & Steinke (2016), "Concentrated Differential
  Privacy: Simplifications, Extensions, and Lower Bounds", Proposition 1.6.
* (α, ε̄)-RDP: ``σ² = Δ² α / (2 ε̄)``; Mironov (2017), "Rényi Differential
  Privacy", Proposition 7 / Table II.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr, ndtri

from dpcore.noise import AdditiveNoise
from dpcore.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_positive,
    check_probability,
)

__all__ = [
    "Gaussian",
    "analytic_gaussian_sigma",
    "classic_gaussian_sigma",
    "gaussian_delta",
    "gaussian_epsilon",
]

CALIBRATIONS = ("analytic", "classic")

# brentq works on log σ (or log ε): an absolute tolerance there is a relative one on σ.
_XTOL = 1e-14
_RTOL = 4 * np.finfo(float).eps


def _log_gaussian_delta(sigma: float, epsilon: float, sensitivity: float) -> float:
    """``ln δ(ε)`` of the Gaussian mechanism, computed without overflow.

    ``δ = Φ(a) − e^ε Φ(b)`` with ``a = Δ/(2σ) − εσ/Δ``, ``b = −Δ/(2σ) − εσ/Δ``
    (Balle & Wang 2018, Theorem 8). Written as
    ``ln δ = ln Φ(a) + ln(1 − exp(ε + ln Φ(b) − ln Φ(a)))`` with ``log_ndtr`` and
    ``expm1``: e^ε never appears on its own, so ε = 50 or 1000 is fine, and the
    cancellation for large σ (where the bracket tends to 0) stays accurate.
    """
    s = sensitivity / (2.0 * sigma)
    t = epsilon * sigma / sensitivity
    log_phi_a = log_ndtr(s - t)
    log_phi_b = log_ndtr(-s - t)
    x = epsilon + log_phi_b - log_phi_a  # < 0 in exact arithmetic: δ > 0 for every finite ε
    if x >= 0.0:
        return -math.inf
    return float(log_phi_a + np.log(-np.expm1(x)))


def gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """The exact δ(ε) of the Gaussian mechanism ``N(0, σ²)`` on a query of L2 sensitivity Δ.

    ``δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`` (Balle & Wang 2018,
    Theorem 8): the mechanism is (ε, δ)-DP exactly when δ ≥ δ(ε).

    Parameters
    ----------
    sigma : float
        Noise standard deviation, in (0, inf).
    epsilon : float
        Privacy parameter ε, in (0, inf).
    sensitivity : float, default 1.0
        L2 sensitivity Δ, in (0, inf).
    """
    sigma = check_positive(sigma, "sigma")
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return float(np.exp(_log_gaussian_delta(sigma, epsilon, sensitivity)))


def classic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """``σ = Δ · sqrt(2 ln(1.25/δ)) / ε`` (Dwork & Roth 2014, Theorem A.1; proven for ε < 1 only).

    This function only evaluates the formula; :meth:`Gaussian.from_epsilon_delta`
    warns when it is used with ε ≥ 1.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def _bracket_and_solve(f, x0: float) -> float:
    """Root of a decreasing ``f`` on the real line, bracketed by steps of ln 2 from ``x0``.

    ``f`` is a function of a log-parameter; the bracket found is one doubling
    wide, so both ends are finite and brentq converges in a few steps.
    """
    step = math.log(2.0)
    lo = hi = x0
    if f(x0) > 0:
        while f(hi) > 0:
            lo, hi = hi, hi + step
    else:
        while f(lo) <= 0:
            lo, hi = lo - step, lo
    return brentq(f, lo, hi, xtol=_XTOL, rtol=_RTOL)


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest σ for which ``N(0, σ²)`` noise is (ε, δ)-DP: the analytic Gaussian mechanism.

    Solves ``Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) = δ`` for σ (Balle & Wang
    2018, Theorem 8 and Algorithm 1) by ``brentq`` on ``ln σ`` inside a bracket
    found by doubling or halving from the classic σ. The left side decreases
    in σ from 1 (σ → 0) to 0 (σ → ∞), so the root is unique. Valid for every ε > 0.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in (0, inf).
    delta : float
        Privacy parameter δ, in (0, 1).
    sensitivity : float, default 1.0
        L2 sensitivity Δ, in (0, inf).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sensitivity = check_positive(sensitivity, "sensitivity")
    log_delta = math.log(delta)

    def f(log_sigma):
        return _log_gaussian_delta(math.exp(log_sigma), epsilon, sensitivity) - log_delta

    x0 = math.log(classic_gaussian_sigma(epsilon, delta, sensitivity))
    return math.exp(_bracket_and_solve(f, x0))


def gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest ε for which ``N(0, σ²)`` noise is (ε, δ)-DP (the inverse of the analytic calibration).

    Solves ``δ(ε) = δ`` for ε with the exact δ(ε) of :func:`gaussian_delta`
    (Balle & Wang 2018, Theorem 8); δ(ε) decreases in ε. Returns ``0.0`` when
    even ε = 0 suffices, that is when ``δ ≥ δ(0) = 2Φ(Δ/(2σ)) − 1``.

    Parameters
    ----------
    sigma : float
        Noise standard deviation, in (0, inf).
    delta : float
        Privacy parameter δ, in (0, 1).
    sensitivity : float, default 1.0
        L2 sensitivity Δ, in (0, inf).
    """
    sigma = check_positive(sigma, "sigma")
    delta = check_delta(delta)
    sensitivity = check_positive(sensitivity, "sensitivity")
    # δ(0) = Φ(s) − Φ(−s) = 1 − 2Φ(−s), s = Δ/(2σ)
    delta_at_zero = -math.expm1(math.log(2.0) + float(log_ndtr(-sensitivity / (2.0 * sigma))))
    if delta >= delta_at_zero:
        return 0.0
    log_delta = math.log(delta)

    def f(log_eps):
        return _log_gaussian_delta(sigma, math.exp(log_eps), sensitivity) - log_delta

    # classic formula solved for ε, a good starting point
    x0 = math.log(sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / sigma)
    return math.exp(_bracket_and_solve(f, x0))


def _two_sided_z(confidence: float) -> float:
    """``z`` with ``P(|N(0,1)| <= z) = confidence``: ``z = −Φ⁻¹((1 − confidence)/2)``."""
    # written with (1 - c)/2 rather than (1 + c)/2 to keep precision for c near 1
    return float(-ndtri((1.0 - confidence) / 2.0))


@dataclass(frozen=True)
class Gaussian(AdditiveNoise):
    """Gaussian noise ``N(0, σ²)`` added to a query of L2 sensitivity ``sensitivity``.

    Build it from a noise level (``Gaussian(sigma=5.0)``) or from a privacy
    target with :meth:`from_epsilon_delta`, :meth:`from_zcdp` or :meth:`from_rdp`;
    those record what it was calibrated to, so the app can show it.

    Parameters
    ----------
    sigma : float
        Noise standard deviation σ, in (0, inf).
    sensitivity : float, default 1.0
        L2 sensitivity Δ of the query, in (0, inf).
    epsilon, delta : float, optional
        The (ε, δ) the noise was calibrated to, when it was.
    calibration : {"analytic", "classic", "zcdp", "rdp"}, optional
        How σ was derived.
    rdp_alpha : float, optional
        The RDP order α of a ``"rdp"`` calibration.
    note : str, optional
        A caveat to show, such as the classic formula used with ε ≥ 1.
    """

    sigma: float
    sensitivity: float = 1.0
    epsilon: float | None = None
    delta: float | None = None
    calibration: str | None = None
    rdp_alpha: float | None = None
    note: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_positive(self.sigma, "sigma"))
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))
        if self.epsilon is not None:
            object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        if self.delta is not None:
            object.__setattr__(self, "delta", check_delta(self.delta))
        if self.calibration is not None:
            check_choice(self.calibration, "calibration", CALIBRATIONS + ("zcdp", "rdp"))
        if self.rdp_alpha is not None:
            object.__setattr__(self, "rdp_alpha", _check_rdp_order(self.rdp_alpha))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_epsilon_delta(
        cls, epsilon: float, delta: float, sensitivity: float = 1.0, calibration: str = "analytic"
    ) -> Gaussian:
        """The (ε, δ)-DP Gaussian mechanism.

        Parameters
        ----------
        epsilon : float
            Privacy parameter ε, in (0, inf).
        delta : float
            Privacy parameter δ, in (0, 1).
        sensitivity : float, default 1.0
            L2 sensitivity Δ, in (0, inf).
        calibration : {"analytic", "classic"}, default "analytic"
            ``"analytic"``: the smallest σ (Balle & Wang 2018, Theorem 8), valid
            for every ε > 0. ``"classic"``: ``σ = Δ sqrt(2 ln(1.25/δ)) / ε``
            (Dwork & Roth 2014, Theorem A.1), proven only for ε < 1; with ε ≥ 1 it
            is still computed, but a ``UserWarning`` is emitted and ``note`` says
            so, with the δ that σ actually guarantees at this ε.
        """
        calibration = check_choice(calibration, "calibration", CALIBRATIONS)
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta)
        sensitivity = check_positive(sensitivity, "sensitivity")
        note = None
        if calibration == "analytic":
            sigma = analytic_gaussian_sigma(epsilon, delta, sensitivity)
        else:
            sigma = classic_gaussian_sigma(epsilon, delta, sensitivity)
            if epsilon >= 1.0:
                actual = math.exp(_log_gaussian_delta(sigma, epsilon, sensitivity))
                note = (
                    f"the classic Gaussian calibration is proven only for epsilon < 1, got epsilon={epsilon}; "
                    f"at this epsilon its sigma={sigma:.6g} guarantees delta={actual:.3g} "
                    f"({'within' if actual <= delta else 'above'} the requested {delta:.3g}); "
                    "use the analytic calibration"
                )
                warnings.warn(note, UserWarning, stacklevel=2)
        return cls(sigma, sensitivity, epsilon=epsilon, delta=delta, calibration=calibration, note=note)

    @classmethod
    def from_zcdp(cls, rho: float, sensitivity: float = 1.0) -> Gaussian:
        """The ρ-zCDP Gaussian mechanism: ``σ² = Δ² / (2ρ)`` (Bun & Steinke 2016, Proposition 1.6).

        Parameters
        ----------
        rho : float
            zCDP parameter ρ, in (0, inf).
        sensitivity : float, default 1.0
            L2 sensitivity Δ, in (0, inf).
        """
        rho = check_positive(rho, "rho")
        sensitivity = check_positive(sensitivity, "sensitivity")
        return cls(sensitivity / math.sqrt(2.0 * rho), sensitivity, calibration="zcdp")

    @classmethod
    def from_rdp(cls, alpha: float, epsilon_bar: float, sensitivity: float = 1.0) -> Gaussian:
        """The (α, ε̄)-RDP Gaussian mechanism: ``σ² = Δ² α / (2 ε̄)`` (Mironov 2017, Proposition 7).

        Parameters
        ----------
        alpha : float
            RDP order α, in (1, inf).
        epsilon_bar : float
            RDP level ε̄ at order α, in (0, inf).
        sensitivity : float, default 1.0
            L2 sensitivity Δ, in (0, inf).
        """
        alpha = _check_rdp_order(alpha)
        epsilon_bar = check_positive(epsilon_bar, "epsilon_bar")
        sensitivity = check_positive(sensitivity, "sensitivity")
        sigma = sensitivity * math.sqrt(alpha / (2.0 * epsilon_bar))
        return cls(sigma, sensitivity, calibration="rdp", rdp_alpha=alpha)

    # ------------------------------------------------------------------ privacy
    @property
    def zcdp_rho(self) -> float:
        """The ρ of the ρ-zCDP guarantee: ``ρ = Δ² / (2σ²)`` (Bun & Steinke 2016, Prop. 1.6)."""
        return self.sensitivity**2 / (2.0 * self.sigma**2)

    def rdp_epsilon(self, alpha: float) -> float:
        """The RDP curve ``ε̄(α) = α Δ² / (2σ²)`` (Mironov 2017, Proposition 7), α in (1, inf)."""
        return _check_rdp_order(alpha) * self.zcdp_rho

    def delta_for_epsilon(self, epsilon: float) -> float:
        """The exact δ(ε) of this noise (see :func:`gaussian_delta`)."""
        return gaussian_delta(self.sigma, epsilon, self.sensitivity)

    def epsilon_for_delta(self, delta: float) -> float:
        """The smallest ε with (ε, δ)-DP for this noise (see :func:`gaussian_epsilon`)."""
        return gaussian_epsilon(self.sigma, delta, self.sensitivity)

    # ------------------------------------------------------------------ error
    @property
    def variance(self) -> float:
        """Variance of the noise: ``σ²``."""
        return self.sigma**2

    @property
    def std(self) -> float:
        """Standard deviation of the noise: ``σ``."""
        return self.sigma

    def error_bound(self, confidence: float = 0.95) -> float:
        """The ``t`` with ``P(|noise| <= t) = confidence``: ``t = σ · Φ⁻¹((1 + confidence)/2)``.

        Parameters
        ----------
        confidence : float
            Probability in (0, 1).
        """
        confidence = check_probability(confidence, "confidence")
        return self.sigma * _two_sided_z(confidence)

    def pdf(self, x):
        """Density of the noise at ``x``: ``exp(−x²/(2σ²)) / (σ √(2π))``."""
        x = np.asarray(x, dtype=np.float64)
        out = np.exp(-0.5 * (x / self.sigma) ** 2) / (self.sigma * math.sqrt(2.0 * math.pi))
        return float(out) if out.ndim == 0 else out

    def cdf(self, x):
        """Distribution function of the noise at ``x``: ``Φ(x / σ)``."""
        out = ndtr(np.asarray(x, dtype=np.float64) / self.sigma)
        return float(out) if np.ndim(out) == 0 else out

    # ------------------------------------------------------------------ inverses
    @staticmethod
    def sigma_for_accuracy(accuracy: float, confidence: float = 0.95) -> float:
        """The largest σ with ``P(|noise| <= accuracy) >= confidence``: ``σ = accuracy / Φ⁻¹((1 + c)/2)``.

        The inverse of :meth:`error_bound`.

        Parameters
        ----------
        accuracy : float
            Target error ``t``, in (0, inf).
        confidence : float
            Probability in (0, 1).
        """
        accuracy = check_positive(accuracy, "accuracy")
        confidence = check_probability(confidence, "confidence")
        return accuracy / _two_sided_z(confidence)

    @classmethod
    def epsilon_for_accuracy(
        cls,
        accuracy: float,
        confidence: float = 0.95,
        *,
        delta: float,
        sensitivity: float = 1.0,
        calibration: str = "analytic",
    ) -> float:
        """The smallest ε, at a given δ, whose noise stays within ``accuracy`` with probability ``confidence``.

        First ``σ = sigma_for_accuracy(accuracy, confidence)``, then the ε at
        which that σ is (ε, δ)-DP: exact with ``"analytic"``
        (:func:`gaussian_epsilon`), ``ε = Δ sqrt(2 ln(1.25/δ)) / σ`` with
        ``"classic"`` (valid only when that ε is below 1).

        Parameters
        ----------
        accuracy : float
            Target error ``t``, in (0, inf).
        confidence : float
            Probability in (0, 1).
        delta : float
            Privacy parameter δ, in (0, 1); keyword-only and required (no default δ).
        sensitivity : float, default 1.0
            L2 sensitivity Δ, in (0, inf).
        calibration : {"analytic", "classic"}, default "analytic"
        """
        calibration = check_choice(calibration, "calibration", CALIBRATIONS)
        sigma = cls.sigma_for_accuracy(accuracy, confidence)
        delta = check_delta(delta)
        sensitivity = check_positive(sensitivity, "sensitivity")
        if calibration == "analytic":
            return gaussian_epsilon(sigma, delta, sensitivity)
        return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / sigma

    # ------------------------------------------------------------------ sampling
    def _draw(self, rng, shape):
        return rng.normal(0.0, self.sigma, size=shape)


def _check_rdp_order(alpha) -> float:
    """Return an RDP order α in (1, inf) as a float."""
    alpha = check_positive(alpha, "alpha")
    if not alpha > 1.0:
        raise ValueError(f"alpha must be in (1, inf), got {alpha}")
    return alpha
