"""Exact (tight) composition of Gaussian mechanisms through Gaussian differential privacy.

The k-fold composition of a Gaussian mechanism with noise σ on a query of L2
sensitivity Δ is exactly μ-GDP with ``μ = sqrt(k) Δ / σ`` (Dong, Roth, Su
2019, Corollary 3.3), and a μ-GDP mechanism is (ε, δ)-DP exactly when

``δ ≥ δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``

(Dong, Roth, Su 2019, Corollary 2.13; Balle & Wang 2018, Theorem 8). Solving
``δ_μ(ε) = δ`` for ε gives the smallest possible ε: no accountant can report
less for these releases.

Sources
-------
- Dong, Roth, Su (2019), "Gaussian Differential Privacy", JRSS-B 2022.
  https://arxiv.org/abs/1905.02383
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential
  Privacy: Analytical Calibration and Optimal Denoising", ICML.
  https://arxiv.org/abs/1805.06530
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

from dpcore.accounting._numerics import as_ks, log1mexp, solve_bracketed
from dpcore.validation import check_delta, check_epsilon, check_int, check_positive

__all__ = ["gdp_mu", "gdp_delta", "gdp_epsilon", "gaussian_epsilon", "gaussian_sigma_for_epsilon"]


def gdp_mu(sigma: float, k=1, sensitivity: float = 1.0):
    """``μ = sqrt(k) Δ / σ``: the GDP parameter of k Gaussian releases (Dong, Roth, Su 2019, Cor. 3.3).

    Parameters
    ----------
    sigma : float
        Noise standard deviation σ, in (0, inf).
    k : int or array_like of int
        Number of releases, each in [1, inf).
    sensitivity : float, default 1.0
        L2 sensitivity Δ, in (0, inf).
    """
    sigma = check_positive(sigma, "sigma")
    sensitivity = check_positive(sensitivity, "sensitivity")
    ks = as_ks(k)
    mu = np.sqrt(ks.astype(np.float64)) * sensitivity / sigma
    return float(mu[0]) if np.ndim(k) == 0 else mu


def _log_delta(mu, eps):
    """``ln δ_μ(ε)`` and ``ln(e^ε Φ(b))`` (for the derivative), arrays; ε ≥ 0, μ > 0."""
    a = -eps / mu + mu / 2.0
    b = -eps / mu - mu / 2.0
    log_phi_a = log_ndtr(a)
    log_exp_phi_b = eps + log_ndtr(b)
    # δ = Φ(a) (1 − e^ε Φ(b) / Φ(a)); the ratio is below 1 in exact arithmetic
    return log_phi_a + log1mexp(np.minimum(log_exp_phi_b - log_phi_a, -1e-300)), log_exp_phi_b


def _log_delta_at_zero(mu):
    # δ_μ(0) = Φ(μ/2) − Φ(−μ/2) = 1 − 2Φ(−μ/2)
    return log1mexp(np.log(2.0) + log_ndtr(-mu / 2.0))


def _gdp_epsilon(mu, log_delta) -> np.ndarray:
    """ε with δ_μ(ε) = δ for checked, broadcastable arrays ``mu`` > 0 and ``log_delta`` < 0."""
    mu, log_delta = np.broadcast_arrays(np.asarray(mu, dtype=np.float64), np.asarray(log_delta, dtype=np.float64))
    out = np.zeros(mu.shape)
    active = log_delta < _log_delta_at_zero(mu)  # else ε = 0 already gives δ
    if not np.any(active):
        return out
    m, ld = mu[active], log_delta[active]

    def fun(eps):
        log_d, log_exp_phi_b = _log_delta(m, eps)
        # d ln δ / dε = −e^ε Φ(b) / δ  (since dδ/dε = −e^ε Φ(b))
        return log_d - ld, -np.exp(log_exp_phi_b - log_d)

    # μ-GDP ⇒ (μ²/2)-zCDP ⇒ ε ≤ μ²/2 + μ sqrt(2 ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3): a bracket
    hi = (m * m / 2.0 + m * np.sqrt(-2.0 * ld)) * (1.0 + 1e-9) + 1e-12
    # ln δ_μ(ε) is concave in ε, so Newton's method started at the upper end of
    # the bracket converges monotonically from above.
    out[active] = solve_bracketed(fun, np.zeros_like(m), hi, x0=hi, increasing=False, rtol=1e-14)
    return out


def gdp_delta(mu, epsilon):
    """``δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``, the exact privacy profile of μ-GDP.

    Dong, Roth, Su (2019), Corollary 2.13. Computed in log space
    (``log_ndtr``, ``log(1 − e^x)``), so that ε = 1000 does not overflow.

    Parameters
    ----------
    mu : float or array_like
        μ, each in (0, inf).
    epsilon : float or array_like
        ε, each in [0, inf); broadcast against ``mu``.
    """
    mu_arr = _positive_array(mu, "mu")
    eps = np.asarray(epsilon, dtype=np.float64)
    if np.any(~np.isfinite(eps) | (eps < 0)):
        raise ValueError(f"epsilon must be in [0, inf), got {eps[~np.isfinite(eps) | (eps < 0)].reshape(-1)[0]}")
    out = np.exp(_log_delta(*np.broadcast_arrays(mu_arr, eps))[0])
    return float(out) if out.ndim == 0 else out


def gdp_epsilon(mu, delta: float):
    """The smallest ε with ``δ_μ(ε) ≤ δ``: the exact ε of μ-GDP at δ.

    Solves :func:`gdp_delta` for ε, for all μ at once (vectorised
    Newton–bisection on ``ln δ_μ(ε)``, bracketed by 0 and the zCDP bound
    ``μ²/2 + μ sqrt(2 ln(1/δ))``), to about 1e-14 relative. Returns 0 where
    ``δ ≥ δ_μ(0) = 2Φ(μ/2) − 1``.

    Parameters
    ----------
    mu : float or array_like
        μ, each in (0, inf).
    delta : float
        δ, in (0, 1).
    """
    mu_arr = _positive_array(mu, "mu")
    delta = check_delta(delta)
    out = _gdp_epsilon(mu_arr, np.log(delta))
    return float(out) if out.ndim == 0 else out


def gaussian_epsilon(sigma: float, k, delta: float, sensitivity: float = 1.0):
    """Exact ε of k Gaussian releases at δ: the tightest possible value.

    ``ε`` solves ``Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) = δ`` with
    ``μ = sqrt(k) Δ / σ`` (Dong, Roth, Su 2019, Corollaries 2.13 and 3.3;
    Balle & Wang 2018, Theorem 8 for k = 1). Vectorised over ``k``: 10⁴ values
    take a few milliseconds.

    Parameters
    ----------
    sigma : float
        Noise standard deviation σ of each release, in (0, inf).
    k : int or array_like of int
        Number of releases, each in [1, inf).
    delta : float
        Target δ, in (0, 1).
    sensitivity : float, default 1.0
        L2 sensitivity Δ of each release, in (0, inf).

    Returns
    -------
    float or numpy.ndarray
        ε for each k (a float for a scalar k).

    Examples
    --------
    >>> round(gaussian_epsilon(5.0, 10, 1e-5), 5)
    2.59438
    """
    mu = gdp_mu(sigma, k, sensitivity)
    delta = check_delta(delta)
    out = _gdp_epsilon(np.asarray(mu), np.log(delta))
    return float(out) if out.ndim == 0 else out


def gaussian_sigma_for_epsilon(epsilon: float, k: int, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest σ such that k Gaussian releases are (ε, δ)-DP: the inverse of :func:`gaussian_epsilon`.

    Finds the μ with ``δ_μ(ε) = δ`` (δ_μ(ε) increases in μ) by ``brentq`` on
    ``ln μ``, then ``σ = sqrt(k) Δ / μ``.

    Parameters
    ----------
    epsilon : float
        Target ε of the k releases together, in (0, inf).
    k : int
        Number of releases, in [1, inf).
    delta : float
        Target δ, in (0, 1).
    sensitivity : float, default 1.0
        L2 sensitivity Δ of each release, in (0, inf).
    """
    epsilon = check_epsilon(epsilon)
    k = check_int(k, "k", minimum=1)
    delta = check_delta(delta)
    sensitivity = check_positive(sensitivity, "sensitivity")
    log_delta = np.log(delta)

    def f(log_mu):
        return float(_log_delta(np.exp(log_mu), epsilon)[0]) - log_delta

    lo = hi = 0.0  # μ = 1
    while f(lo) > 0:
        lo -= np.log(2.0)
    while f(hi) < 0:
        hi += np.log(2.0)
    mu = float(np.exp(brentq(f, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)))
    return float(np.sqrt(k) * sensitivity / mu)


def _positive_array(value, name: str) -> np.ndarray:
    if np.ndim(value) == 0:
        return np.asarray(check_positive(value.item() if isinstance(value, np.ndarray) else value, name))
    arr = np.asarray(value, dtype=np.float64)
    bad = ~(np.isfinite(arr) & (arr > 0))
    if np.any(bad):
        raise ValueError(f"{name} must be in (0, inf), got {arr[bad].reshape(-1)[0]}")
    return arr
