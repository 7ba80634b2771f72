"""The Gaussian mechanism (central model) and its calibrations.

A query ``f`` of L2 sensitivity ``Δ`` is released as ``f(x) + N(0, σ²)``. How
large ``σ`` must be depends on the privacy notion:

* (ε, δ)-DP, **analytic** (tight): the smallest σ with
  ``Φ(Δ/(2σ) − εσ/Δ) − e^ε · Φ(−Δ/(2σ) − εσ/Δ) ≤ δ`` (Balle & Wang, Theorem 8
  and Algorithm 1). Valid for every ε > 0. The formula and its inverses are
  those of μ-GDP with ``μ = Δ/σ`` and live in :mod:`dpcore.gdp`.
* (ε, δ)-DP, **classic**: ``σ = Δ · sqrt(2 ln(1.25/δ)) / ε`` (Dwork & Roth,
  Theorem A.1), proven only for ε < 1 (Balle & Wang, Section 2, show that it
  can fail for larger ε).
* ρ-zCDP: ``σ² = Δ² / (2ρ)`` (Bun & Steinke, Proposition 1.6).
* (α, ε̄)-RDP: ``σ² = Δ² α / (2 ε̄)`` (Mironov, Proposition 7 / Table II).

The noise law (:class:`Gaussian`: σ and Δ) is kept apart from how σ was
chosen (:class:`GaussianCalibration`): two Gaussians with the same σ and Δ
are the same noise, and compare equal, whatever their calibration.

References
----------
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising", ICML, Section 2, Theorem 8, Algorithm 1. https://arxiv.org/abs/1805.06530
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorem A.1. https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Bun & Steinke (2016), "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds", TCC, Proposition 1.6. https://arxiv.org/abs/1605.02065
- Mironov (2017), "Rényi Differential Privacy", CSF, Proposition 7 and Table II. https://arxiv.org/abs/1702.07476
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr, ndtri

from dpcore.gdp import gdp_delta, gdp_epsilon, gdp_mu_for_epsilon, gdp_rdp, gdp_rho
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
    "GaussianCalibration",
    "analytic_gaussian_sigma",
    "analytic_gaussian_epsilon",
    "classic_gaussian_sigma",
    "gaussian_delta",
]

#: Calibrations to an (ε, δ) target accepted by :meth:`Gaussian.from_epsilon_delta`.
CALIBRATIONS = ("analytic", "classic")
#: Every calibration a :class:`GaussianCalibration` may record.
CALIBRATION_METHODS = CALIBRATIONS + ("zcdp", "rdp")


def gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """The exact δ(ε) of the Gaussian mechanism ``N(0, σ²)`` on a query of L2 sensitivity Δ.

    ``δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`` (Balle & Wang 2018,
    Theorem 8): the mechanism is (ε, δ)-DP exactly when δ ≥ δ(ε). It is
    :func:`dpcore.gdp.gdp_delta` at ``μ = Δ/σ``.

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
    return gdp_delta(sensitivity / sigma, epsilon)


def classic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """``σ = Δ · sqrt(2 ln(1.25/δ)) / ε`` (Dwork & Roth 2014, Theorem A.1; proven for ε < 1 only).

    This function only evaluates the formula; :meth:`Gaussian.from_epsilon_delta`
    records whether the theorem covers ε and the δ the σ actually guarantees.

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
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest σ for which ``N(0, σ²)`` noise is (ε, δ)-DP: the analytic Gaussian mechanism.

    Solves ``Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) = δ`` for σ (Balle & Wang
    2018, Theorem 8 and Algorithm 1): ``σ = Δ / μ`` with μ from
    :func:`dpcore.gdp.gdp_mu_for_epsilon`. The left side decreases in σ from 1
    (σ → 0) to 0 (σ → ∞), so the root is unique. Valid for every ε > 0.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in (0, inf).
    delta : float
        Privacy parameter δ, in (0, 1).
    sensitivity : float, default 1.0
        L2 sensitivity Δ, in (0, inf).

    Examples
    --------
    >>> round(analytic_gaussian_sigma(1.0, 1e-5), 4)  # Balle & Wang 2018: 3.73, against the classic 4.84
    3.7306
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return sensitivity / gdp_mu_for_epsilon(epsilon, delta)


def analytic_gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest ε for which ``N(0, σ²)`` noise is (ε, δ)-DP: the inverse of :func:`analytic_gaussian_sigma`.

    Solves ``δ(ε) = δ`` for ε with the exact δ(ε) of :func:`gaussian_delta`
    (Balle & Wang 2018, Theorem 8): :func:`dpcore.gdp.gdp_epsilon` at
    ``μ = Δ/σ``. Returns ``0.0`` when even ε = 0 suffices, that is when
    ``δ ≥ δ(0) = 2Φ(Δ/(2σ)) − 1``. For k releases see
    :func:`dpcore.accounting.gaussian_epsilon`.

    Parameters
    ----------
    sigma : float
        Noise standard deviation, in (0, inf).
    delta : float
        Privacy parameter δ, in (0, 1).
    sensitivity : float, default 1.0
        L2 sensitivity Δ, in (0, inf).

    Examples
    --------
    >>> round(analytic_gaussian_epsilon(analytic_gaussian_sigma(0.5, 1e-6), 1e-6), 12)
    0.5
    """
    sigma = check_positive(sigma, "sigma")
    delta = check_delta(delta)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return gdp_epsilon(sensitivity / sigma, delta)


def two_sided_z(confidence: float) -> float:
    """``z`` with ``P(|N(0,1)| <= z) = confidence``: ``z = −Φ⁻¹((1 − confidence)/2)``."""
    # written with (1 - c)/2 rather than (1 + c)/2 to keep precision for c near 1
    return float(-ndtri((1.0 - confidence) / 2.0))


@dataclass(frozen=True)
class GaussianCalibration:
    """How a σ was chosen: the target it was calibrated to, as data (not compared as part of the noise).

    Attributes
    ----------
    method : {"analytic", "classic", "zcdp", "rdp"}
        The calibration used.
    epsilon, delta : float, optional
        The (ε, δ) target of an ``"analytic"`` or ``"classic"`` calibration.
    rho : float, optional
        The ρ of a ``"zcdp"`` calibration.
    alpha, epsilon_bar : float, optional
        The RDP order α and level ε̄ of an ``"rdp"`` calibration.
    guaranteed_delta : float, optional
        For an (ε, δ) calibration, the δ(ε) the σ actually guarantees at the
        target ε (Balle & Wang 2018, Theorem 8): δ itself (up to rounding) for
        ``"analytic"``; for ``"classic"`` with ε ≥ 1 it may exceed δ.
    proven : bool, default True
        Whether the calibration's theorem covers these parameters: False only
        for ``"classic"`` with ε ≥ 1 (Dwork & Roth 2014, Theorem A.1 assumes ε < 1).
    """

    method: str
    epsilon: float | None = None
    delta: float | None = None
    rho: float | None = None
    alpha: float | None = None
    epsilon_bar: float | None = None
    guaranteed_delta: float | None = None
    proven: bool = True

    def __post_init__(self):
        check_choice(self.method, "method", CALIBRATION_METHODS)
        for name, check in (
            ("epsilon", check_epsilon),
            ("delta", check_delta),
            ("rho", lambda v: check_positive(v, "rho")),
            ("alpha", _check_rdp_order),
            ("epsilon_bar", lambda v: check_positive(v, "epsilon_bar")),
            ("guaranteed_delta", lambda v: check_probability(v, "guaranteed_delta", low_open=False, high_open=False)),
        ):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, check(getattr(self, name)))
        if not isinstance(self.proven, bool):
            raise TypeError(f"proven must be a bool, got {self.proven!r}")


@dataclass(frozen=True)
class Gaussian(AdditiveNoise):
    """Gaussian noise ``N(0, σ²)`` added to a query of L2 sensitivity ``sensitivity``.

    Build it from a noise level (``Gaussian(sigma=5.0)``) or from a privacy
    target with :meth:`from_epsilon_delta`, :meth:`from_zcdp` or :meth:`from_rdp`;
    those record what it was calibrated to in :attr:`calibration`, which is
    not compared: the same σ and Δ are the same noise.

    Parameters
    ----------
    sigma : float
        Noise standard deviation σ, in (0, inf).
    sensitivity : float, default 1.0
        L2 sensitivity Δ of the query, in (0, inf).
    calibration : GaussianCalibration, optional
        How σ was derived, when it was (not part of equality or hashing).

    Examples
    --------
    >>> Gaussian(sigma=1.0) == Gaussian.from_zcdp(0.5)  # σ² = Δ²/(2ρ) = 1: the same noise
    True
    """

    sigma: float
    sensitivity: float = 1.0
    calibration: GaussianCalibration | None = field(default=None, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_positive(self.sigma, "sigma"))
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))
        if self.calibration is not None and not isinstance(self.calibration, GaussianCalibration):
            raise TypeError(f"calibration must be a GaussianCalibration or None, got {type(self.calibration).__name__}")

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
            is still computed, with ``calibration.proven`` False and
            ``calibration.guaranteed_delta`` the δ that σ actually guarantees at
            this ε, and a ``UserWarning`` is emitted.
        """
        calibration = check_choice(calibration, "calibration", CALIBRATIONS)
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta)
        sensitivity = check_positive(sensitivity, "sensitivity")
        if calibration == "analytic":
            sigma = analytic_gaussian_sigma(epsilon, delta, sensitivity)
        else:
            sigma = classic_gaussian_sigma(epsilon, delta, sensitivity)
        guaranteed = gdp_delta(sensitivity / sigma, epsilon)
        proven = calibration == "analytic" or epsilon < 1.0
        if not proven:
            warnings.warn(
                f"the classic Gaussian calibration is proven only for epsilon < 1, got epsilon={epsilon}; "
                f"at this epsilon its sigma={sigma:.6g} guarantees delta={guaranteed:.3g} "
                f"({'within' if guaranteed <= delta else 'above'} the requested {delta:.3g}); "
                "use the analytic calibration",
                UserWarning,
                stacklevel=2,
            )
        record = GaussianCalibration(
            calibration, epsilon=epsilon, delta=delta, guaranteed_delta=guaranteed, proven=proven
        )
        return cls(sigma, sensitivity, record)

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
        return cls(sensitivity / math.sqrt(2.0 * rho), sensitivity, GaussianCalibration("zcdp", rho=rho))

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
        return cls(sigma, sensitivity, GaussianCalibration("rdp", alpha=alpha, epsilon_bar=epsilon_bar))

    # ------------------------------------------------------------------ privacy
    @property
    def epsilon(self) -> float | None:
        """The ε this noise was calibrated to (None unless built by :meth:`from_epsilon_delta`)."""
        return None if self.calibration is None else self.calibration.epsilon

    @property
    def delta(self) -> float | None:
        """The δ this noise was calibrated to (None unless built by :meth:`from_epsilon_delta`)."""
        return None if self.calibration is None else self.calibration.delta

    @property
    def mu(self) -> float:
        """``μ = Δ/σ``: one release is exactly μ-GDP (Dong, Roth, Su 2019); every guarantee below is a function of μ."""
        return self.sensitivity / self.sigma

    @property
    def zcdp_rho(self) -> float:
        """The ρ of the ρ-zCDP guarantee: ``ρ = Δ² / (2σ²)`` (see :func:`dpcore.gdp.gdp_rho`)."""
        return gdp_rho(self.mu)

    def rdp_epsilon(self, alpha: float) -> float:
        """The RDP curve ``ε̄(α) = α Δ² / (2σ²)`` (see :func:`dpcore.gdp.gdp_rdp`), α in (1, inf)."""
        return gdp_rdp(self.mu, _check_rdp_order(alpha))

    def delta_for_epsilon(self, epsilon: float) -> float:
        """The exact δ(ε) of this noise (see :func:`gaussian_delta`)."""
        return gaussian_delta(self.sigma, epsilon, self.sensitivity)

    def epsilon_for_delta(self, delta: float) -> float:
        """The smallest ε with (ε, δ)-DP for this noise (see :func:`analytic_gaussian_epsilon`)."""
        return analytic_gaussian_epsilon(self.sigma, delta, self.sensitivity)

    # ------------------------------------------------------------------ error
    @property
    def variance(self) -> float:
        """Variance of the noise: ``σ²``."""
        return self.sigma * self.sigma

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
        return self.sigma * two_sided_z(confidence)

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
        return accuracy / two_sided_z(confidence)

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
        (:func:`analytic_gaussian_epsilon`), ``ε = Δ sqrt(2 ln(1.25/δ)) / σ`` with
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
            return analytic_gaussian_epsilon(sigma, delta, sensitivity)
        # σ = Δ sqrt(2 ln(1.25/δ)) / ε solved for ε: ε = (the classic σ at ε = 1) / σ
        return classic_gaussian_sigma(1.0, delta, sensitivity) / sigma

    # ------------------------------------------------------------------ sampling
    def _draw(self, rng, shape):
        return rng.normal(0.0, self.sigma, size=shape)


def _check_rdp_order(alpha) -> float:
    """Return an RDP order α in (1, inf) as a float."""
    alpha = check_positive(alpha, "alpha")
    if not alpha > 1.0:
        raise ValueError(f"alpha must be in (1, inf), got {alpha}")
    return alpha
