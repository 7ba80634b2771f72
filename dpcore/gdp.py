"""Gaussian differential privacy (μ-GDP): the privacy of Gaussian noise, computed once for all of dpcore.

Gaussian noise ``N(0, σ²)`` on a query of L2 sensitivity Δ is μ-GDP with
``μ = Δ/σ``, and k such releases together are μ-GDP with ``μ = sqrt(k) Δ/σ``.
Every guarantee of such noise is a function of μ alone:

* (ε, δ)-DP exactly when ``δ ≥ δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``
  (:func:`gdp_delta`; its inverses :func:`gdp_epsilon` in ε and
  :func:`gdp_mu_for_epsilon` in μ). With ``μ = Δ/σ`` this is the analytic
  Gaussian mechanism of Balle & Wang (Theorem 8); Dong, Roth & Su state it
  for any μ-GDP mechanism (Corollary 2.13).
* ρ-zCDP with ``ρ = μ²/2`` (:func:`gdp_rho`) and (α, αμ²/2)-RDP
  (:func:`gdp_rdp`): the Rényi divergence between ``N(0, 1)`` and ``N(μ, 1)``
  (Mironov, Proposition 7; Bun & Steinke, Proposition 1.6). A μ-GDP mechanism
  is a post-processing of that pair (Dong, Roth & Su, Theorem 2.10), so the
  same bounds hold for it.

The single-release functions of :mod:`dpcore.gaussian` (``μ = Δ/σ``) and the
k-fold ones of :mod:`dpcore.accounting.gaussian_exact` (``μ = sqrt(k) Δ/σ``)
both call this module: it is the one implementation of these formulas. It
imports no mechanism and no accountant, so both can use it.

References
----------
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising", ICML, Theorem 8 and Algorithm 1. https://arxiv.org/abs/1805.06530
- Dong, Roth & Su (2019), "Gaussian Differential Privacy", J. R. Stat. Soc. B 84(1) 2022,
  Theorem 2.10, Corollaries 2.13 and 3.3. https://arxiv.org/abs/1905.02383
- Mironov (2017), "Rényi Differential Privacy", CSF, Proposition 7 and Table II. https://arxiv.org/abs/1702.07476
- Bun & Steinke (2016), "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds", TCC, Propositions 1.3 and 1.6. https://arxiv.org/abs/1605.02065
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr

from dpcore._numerics import log1mexp
from dpcore._roots import root_on_log, solve_bracketed
from dpcore.validation import check_delta, check_epsilon, check_nonnegative_array, check_positive_array

__all__ = ["gdp_delta", "gdp_epsilon", "gdp_mu_for_epsilon", "gdp_rho", "gdp_rdp"]


def _log_delta(mu, eps):
    """``ln δ_μ(ε)`` and ``ln(e^ε Φ(b))`` (for the derivative in ε), arrays; ε ≥ 0, μ > 0.

    ``δ = Φ(a) − e^ε Φ(b)`` with ``a = −ε/μ + μ/2``, ``b = −ε/μ − μ/2``, written
    ``ln δ = ln Φ(a) + ln(1 − exp(ε + ln Φ(b) − ln Φ(a)))`` with ``log_ndtr`` and
    ``log1mexp``: e^ε never appears on its own, so ε = 1000 does not overflow,
    and the cancellation for small μ stays accurate.
    """
    a = -eps / mu + mu / 2.0
    b = -eps / mu - mu / 2.0
    log_phi_a = log_ndtr(a)
    log_exp_phi_b = eps + log_ndtr(b)
    # the ratio e^ε Φ(b) / Φ(a) is below 1 in exact arithmetic: δ > 0 for every finite ε
    return log_phi_a + log1mexp(np.minimum(log_exp_phi_b - log_phi_a, -1e-300)), log_exp_phi_b


def _log_delta_at_zero(mu):
    # δ_μ(0) = Φ(μ/2) − Φ(−μ/2) = 1 − 2Φ(−μ/2)
    return log1mexp(np.log(2.0) + log_ndtr(-mu / 2.0))


def gdp_epsilon_array(mu, log_delta) -> np.ndarray:
    """ε with ``δ_μ(ε) = δ`` for checked, broadcastable arrays ``mu`` > 0 and ``log_delta`` < 0.

    0 where ``δ ≥ δ_μ(0)``. Both solvers bracket the root by 0 and the zCDP bound
    ``μ²/2 + μ sqrt(2 ln(1/δ))`` (μ-GDP ⇒ (μ²/2)-zCDP, Bun & Steinke 2016,
    Prop. 1.3) and reach about 1e-14 relative: one equation goes to the scalar
    :func:`~dpcore._roots.root_on_log` (a few microseconds per evaluation),
    many to the vectorised Newton–bisection :func:`~dpcore._roots.solve_bracketed`.
    """
    mu, log_delta = np.broadcast_arrays(np.asarray(mu, dtype=np.float64), np.asarray(log_delta, dtype=np.float64))
    if mu.size == 1:
        m1, ld1 = float(mu.reshape(-1)[0]), float(log_delta.reshape(-1)[0])
        if ld1 >= _log_delta_at_zero(m1):  # ε = 0 already gives δ
            return np.zeros(mu.shape)
        hi1 = (m1 * m1 / 2.0 + m1 * math.sqrt(-2.0 * ld1)) * (1.0 + 1e-9) + 1e-12
        eps = root_on_log(lambda e: float(_log_delta(m1, e)[0]) - ld1, hi1, increasing=False, rtol=1e-15)
        return np.full(mu.shape, eps)
    out = np.zeros(mu.shape)
    active = log_delta < _log_delta_at_zero(mu)  # else ε = 0 already gives δ
    if not np.any(active):
        return out
    m, ld = mu[active], log_delta[active]
    hi = (m * m / 2.0 + m * np.sqrt(-2.0 * ld)) * (1.0 + 1e-9) + 1e-12

    def fun(eps):
        log_d, log_exp_phi_b = _log_delta(m, eps)
        # d ln δ / dε = −e^ε Φ(b) / δ  (since dδ/dε = −e^ε Φ(b))
        return log_d - ld, -np.exp(log_exp_phi_b - log_d)

    # ln δ_μ(ε) is concave in ε, so Newton's method started at the upper end of
    # the bracket converges monotonically from above.
    out[active] = solve_bracketed(fun, np.zeros_like(m), hi, x0=hi, increasing=False, rtol=1e-14)
    return out


def gdp_delta(mu, epsilon):
    """``δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``, the exact privacy profile of μ-GDP.

    Dong, Roth & Su (2019), Corollary 2.13; Balle & Wang (2018), Theorem 8 with
    ``μ = Δ/σ``. Computed in log space (``log_ndtr``, ``log(1 − e^x)``), so that
    ε = 1000 does not overflow.

    Parameters
    ----------
    mu : float or array_like
        μ, each in (0, inf).
    epsilon : float or array_like
        ε, each in [0, inf); broadcast against ``mu``.

    Returns
    -------
    float or numpy.ndarray
        A float when both are scalars.

    Examples
    --------
    >>> round(gdp_delta(1.0, 0.0), 6)  # δ_μ(0) = 2Φ(μ/2) − 1, the total variation distance
    0.382925
    """
    mu_arr = np.asarray(check_positive_array(mu, "mu"))
    eps = np.asarray(check_nonnegative_array(epsilon, "epsilon"))
    out = np.exp(_log_delta(*np.broadcast_arrays(mu_arr, eps))[0])
    return float(out) if out.ndim == 0 else out


def gdp_epsilon(mu, delta: float):
    """The smallest ε with ``δ_μ(ε) ≤ δ``: the exact ε of μ-GDP at δ (the inverse of :func:`gdp_delta` in ε).

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

    Examples
    --------
    >>> round(gdp_epsilon(1.0, 1e-5), 6)
    4.377178
    """
    mu_arr = np.asarray(check_positive_array(mu, "mu"))
    delta = check_delta(delta)
    out = gdp_epsilon_array(mu_arr, np.log(delta))
    return float(out) if out.ndim == 0 else out


def gdp_mu_for_epsilon(epsilon: float, delta: float) -> float:
    """The largest μ with ``δ_μ(ε) ≤ δ``: the inverse of :func:`gdp_delta` in μ.

    ``δ_μ(ε)`` increases in μ from 0 (μ → 0) to 1 (μ → ∞), so the root is
    unique; it is found by :func:`dpcore._roots.root_on_log` on ``ln μ``,
    started at the μ of the classic calibration, ``ε / sqrt(2 ln(1.25/δ))``
    (Dwork & Roth 2014, Theorem A.1). Gaussian noise of
    ``σ = sqrt(k) Δ / μ`` makes k releases of sensitivity Δ (ε, δ)-DP, and no
    smaller σ does.

    Parameters
    ----------
    epsilon : float
        ε, in (0, inf).
    delta : float
        δ, in (0, 1).

    Examples
    --------
    >>> round(1.0 / gdp_mu_for_epsilon(1.0, 1e-5), 4)  # analytic σ at ε = 1, δ = 1e-5, Δ = 1 (Balle & Wang: 3.73)
    3.7306
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    log_delta = math.log(delta)

    def f(mu: float) -> float:
        return float(_log_delta(mu, epsilon)[0]) - log_delta

    return root_on_log(f, epsilon / math.sqrt(2.0 * math.log(1.25 / delta)), rtol=1e-14)


def gdp_rho(mu):
    """``ρ = μ²/2``: μ-GDP implies ρ-zCDP (for ``μ = Δ/σ``, Bun & Steinke 2016, Proposition 1.6).

    Parameters
    ----------
    mu : float or array_like
        μ, each in (0, inf).
    """
    mu = check_positive_array(mu, "mu")
    return mu * mu / 2.0


def gdp_rdp(mu, orders):
    """The RDP curve of μ-GDP, ``r(α) = α μ²/2`` (for ``μ = Δ/σ``, Mironov 2017, Proposition 7).

    Parameters
    ----------
    mu : float
        μ, in (0, inf).
    orders : float or array_like
        RDP orders α, each in (1, inf).

    Examples
    --------
    >>> gdp_rdp(0.5, [2.0, 10.0]).tolist()  # α · 0.5² / 2
    [0.25, 1.25]
    """
    rho = gdp_rho(mu)
    if isinstance(orders, bool) or np.asarray(orders).dtype == bool:
        raise TypeError(f"orders must be real numbers in (1, inf), got {orders!r}")
    alpha = np.asarray(orders, dtype=np.float64)
    bad = ~(np.isfinite(alpha) & (alpha > 1.0))
    if np.any(bad):
        raise ValueError(f"orders must be in (1, inf), got {alpha[bad].reshape(-1)[0]}")
    out = alpha * rho
    return float(out) if out.ndim == 0 else out
