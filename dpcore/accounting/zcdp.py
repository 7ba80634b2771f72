"""Zero-concentrated differential privacy (zCDP) and its conversion to (ε, δ).

A mechanism is ρ-zCDP when its RDP curve is at most ``ρ α`` for every α > 1.
zCDP composes by adding the ρ's (Bun & Steinke 2016).

References
----------
- Bun & Steinke (2016), "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds", TCC, Propositions 1.3 (conversion), 1.4 (pure DP ⇒ zCDP) and 1.6 (Gaussian).
  https://arxiv.org/abs/1605.02065
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS,
  Section 2.3 and Corollary 13 (the tighter conversion). https://arxiv.org/abs/2004.00010
"""

from __future__ import annotations

import numpy as np

from dpcore._roots import root_on_log, solve_bracketed
from dpcore.validation import check_choice, check_delta, check_epsilon, check_positive_array

__all__ = ["ZCDP_CONVERSIONS", "zcdp_to_dp", "pure_dp_to_zcdp", "zcdp_rho_for_epsilon"]

#: Names accepted by :func:`zcdp_to_dp`.
ZCDP_CONVERSIONS = ("cks", "bun-steinke")


def _cks_epsilon(rho: np.ndarray, log_inv_delta) -> np.ndarray:
    """CKS conversion for checked arrays: the minimum over α of the Corollary 13 bound."""
    L = np.asarray(log_inv_delta, dtype=np.float64)
    rho, L = np.broadcast_arrays(rho, L)

    # With x = α − 1 the bound is ε(x) = (1+x)ρ + (L − ln(1+x))/x + ln x − ln(1+x).
    # dε/dx = ρ − (L − ln(1+x))/x², so the optimum solves ρx² + ln(1+x) − L = 0:
    # increasing in x, negative at 0, positive at √(L/ρ) (as ln(1+x) > 0).
    def fun(x):
        return rho * x * x + np.log1p(x) - L, 2.0 * rho * x + 1.0 / (1.0 + x)

    hi = np.sqrt(L / rho)
    x = solve_bracketed(fun, np.zeros_like(hi), hi, increasing=True, rtol=1e-15)
    lx = np.log1p(x)
    eps = (1.0 + x) * rho + (L - lx) / x + np.log(x) - lx
    return np.maximum(eps, 0.0)


def zcdp_to_dp(rho, delta: float, conversion: str = "cks"):
    """Convert ρ-zCDP to (ε, δ)-DP.

    ``conversion="cks"`` (default): Canonne, Kamath, Steinke (2020),
    Section 2.3, Corollary 13: ρ-zCDP implies (ε, δ)-DP for every α > 1 with

    ``δ = exp((α−1)(αρ − ε)) / (α−1) · (1 − 1/α)^α``, that is
    ``ε = αρ + (ln(1/δ) − ln α)/(α−1) + ln(1 − 1/α)``,

    minimised over real α (not a grid): the derivative in α vanishes where
    ``ρ (α−1)² + ln α = ln(1/δ)``, solved by vectorised Newton–bisection.

    ``conversion="bun-steinke"``: ``ε = ρ + 2 sqrt(ρ ln(1/δ))`` (Bun & Steinke
    2016, Proposition 1.3).

    Both are clipped at 0. Pure ε-DP is ρ = ε²/2 zCDP (:func:`pure_dp_to_zcdp`).

    Parameters
    ----------
    rho : float or array_like
        ρ, each in (0, inf).
    delta : float
        Target δ, in (0, 1).
    conversion : {"cks", "bun-steinke"}, default "cks"

    Returns
    -------
    float or numpy.ndarray
        ε, with the shape of ``rho``.

    Examples
    --------
    >>> round(zcdp_to_dp(2.0, 1e-6), 10)
    11.6885962494
    """
    conversion = check_choice(conversion, "conversion", ZCDP_CONVERSIONS)
    rho_arr = np.asarray(check_positive_array(rho, "rho"))
    delta = check_delta(delta)
    L = -np.log(delta)
    if conversion == "cks":
        eps = _cks_epsilon(rho_arr, L)
    else:
        eps = np.maximum(rho_arr + 2.0 * np.sqrt(rho_arr * L), 0.0)
    return float(eps) if np.ndim(eps) == 0 else eps


def pure_dp_to_zcdp(epsilon):
    """ε-DP implies ρ-zCDP with ``ρ = ε² / 2`` (Bun & Steinke 2016, Proposition 1.4).

    Parameters
    ----------
    epsilon : float or array_like
        ε of the pure guarantee, each in (0, inf).
    """
    epsilon = check_positive_array(epsilon, "epsilon")
    return epsilon * epsilon / 2.0  # a product: inf past float range, where ** raises OverflowError


def zcdp_rho_for_epsilon(epsilon: float, delta: float, conversion: str = "cks") -> float:
    """The largest ρ whose zCDP conversion gives at most ε at δ: the inverse of :func:`zcdp_to_dp`.

    ``bun-steinke`` inverts in closed form, ``ρ = (sqrt(ln(1/δ) + ε) − sqrt(ln(1/δ)))²``;
    ``cks`` by :func:`dpcore._roots.root_on_log` (the conversion increases in ρ).

    Parameters
    ----------
    epsilon : float
        Target ε, in (0, inf).
    delta : float
        Target δ, in (0, 1).
    conversion : {"cks", "bun-steinke"}, default "cks"
    """
    conversion = check_choice(conversion, "conversion", ZCDP_CONVERSIONS)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    L = -np.log(delta)
    # ρ + 2 sqrt(ρ L) = ε  ⇔  (sqrt ρ + sqrt L)² = ε + L
    rho_bs = (np.sqrt(L + epsilon) - np.sqrt(L)) ** 2
    if conversion == "bun-steinke":
        return float(rho_bs)

    def f(rho: float) -> float:
        return float(_cks_epsilon(np.asarray(rho), L)) - epsilon

    # CKS is tighter than Bun-Steinke, so its root lies at or above ρ_BS: start there
    return root_on_log(f, float(rho_bs), rtol=1e-14)
