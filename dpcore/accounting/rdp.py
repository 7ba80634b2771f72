"""Rényi differential privacy (RDP): per-mechanism curves and the conversion to (ε, δ).

A mechanism is (α, r(α))-RDP when the Rényi divergence of order α between its
output distributions on neighbouring data sets is at most r(α). RDP composes
by adding the curves order by order (Mironov 2017, Proposition 1); the
result is converted to (ε, δ)-DP by minimising a conversion over the orders.

References
----------
- Mironov (2017), "Rényi Differential Privacy", CSF, Proposition 1 (composition), Proposition 3
  (conversion), Propositions 5–7 and Table II (randomized response, Laplace, Gaussian),
  Definition 3. https://arxiv.org/abs/1702.07476
- Balle, Barthe, Gaboardi, Hsu & Sato (2020), "Hypothesis Testing Interpretations and Rényi
  Differential Privacy", AISTATS, Theorem 21 (the improved conversion). https://arxiv.org/abs/1905.09982
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS,
  Section 2.3, Proposition 12 (the improved conversion). https://arxiv.org/abs/2004.00010
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import logsumexp

from dpcore.accounting._numerics import as_orders
from dpcore.gdp import gdp_rdp
from dpcore.limits import MAX_COMPOSITIONS
from dpcore.validation import check_choice, check_delta, check_epsilon, check_int, check_positive

__all__ = [
    "DEFAULT_ORDERS",
    "CONVERSIONS",
    "OrderGridEdgeWarning",
    "gaussian_rdp",
    "laplace_rdp",
    "randomized_response_rdp",
    "rdp_to_dp",
    "rdp_epsilons",
]

#: The RDP order grid: 1.1, 1.2, ..., 10.9, 11, 12, ..., 63, 128, 256, 512, 1024
#: (156 orders; dp_accounting's default grid with the finer steps below 11).
#: Read-only, so that no caller can change it for everybody else.
DEFAULT_ORDERS = np.concatenate([np.arange(11, 110) / 10.0, np.arange(11.0, 64.0), [128.0, 256.0, 512.0, 1024.0]])
DEFAULT_ORDERS.setflags(write=False)

#: Names accepted by :func:`rdp_to_dp`.
CONVERSIONS = ("balle", "mironov")


class OrderGridEdgeWarning(UserWarning):
    """The optimal RDP order is the smallest or largest order of the grid.

    The ε reported is still a valid upper bound, but a wider grid might give a
    smaller one.
    """


def gaussian_rdp(sigma: float, orders=DEFAULT_ORDERS, sensitivity: float = 1.0) -> np.ndarray:
    """RDP curve of the Gaussian mechanism: ``r(α) = α Δ² / (2σ²)``.

    Mironov (2017), Proposition 7 and Table II; computed by
    :func:`dpcore.gdp.gdp_rdp` at ``μ = Δ/σ``, the one home of this formula.

    Parameters
    ----------
    sigma : float
        Noise standard deviation σ, in (0, inf).
    orders : array_like of float
        RDP orders α, each in (1, inf).
    sensitivity : float, default 1.0
        L2 sensitivity Δ, in (0, inf).

    Returns
    -------
    numpy.ndarray
        ``r(α)`` for each order, same length as ``orders``.
    """
    sigma = check_positive(sigma, "sigma")
    sensitivity = check_positive(sensitivity, "sensitivity")
    return np.asarray(gdp_rdp(sensitivity / sigma, as_orders(orders)))


def _laplace_rdp_eps(epsilon0: float, orders: np.ndarray) -> np.ndarray:
    """Laplace RDP curve in terms of ``ε₀ = Δ / b``; arguments assumed checked."""
    # r(α) = 1/(α−1) · ln[ α/(2α−1) · e^{(α−1)ε₀} + (α−1)/(2α−1) · e^{−αε₀} ],
    # summed in log space so that α = 1024 with ε₀ = 10 does not overflow.
    a = orders
    terms = np.stack([np.log(a / (2 * a - 1)) + (a - 1) * epsilon0, np.log((a - 1) / (2 * a - 1)) - a * epsilon0])
    # a Rényi divergence is >= 0; clip the rounding error of logsumexp near 0 (tiny ε₀)
    return np.maximum(logsumexp(terms, axis=0) / (a - 1), 0.0)


def laplace_rdp(scale: float, orders=DEFAULT_ORDERS, sensitivity: float = 1.0) -> np.ndarray:
    """RDP curve of the Laplace mechanism.

    With ``ε₀ = Δ / b``, for α > 1 (Mironov 2017, Proposition 6 and Table II):

    ``r(α) = 1/(α−1) · ln[ α/(2α−1) · exp((α−1) ε₀) + (α−1)/(2α−1) · exp(−α ε₀) ]``.

    It increases from the KL divergence ``ε₀ + e^{−ε₀} − 1`` (α → 1) to ``ε₀``
    (α → ∞, pure ε₀-DP).

    Parameters
    ----------
    scale : float
        Noise scale b, in (0, inf).
    orders : array_like of float
        RDP orders α, each in (1, inf).
    sensitivity : float, default 1.0
        L1 sensitivity Δ, in (0, inf).
    """
    scale = check_positive(scale, "scale")
    sensitivity = check_positive(sensitivity, "sensitivity")
    return _laplace_rdp_eps(sensitivity / scale, as_orders(orders))


def _rr_rdp_eps(epsilon: float, k: int, orders: np.ndarray) -> np.ndarray:
    """k-ary randomized response RDP in terms of ε; arguments assumed checked."""
    a = orders
    # log q = −log(e^ε + k − 1), written as −ε − log(1 + (k−1)e^{−ε}) to avoid overflow
    log_q = -epsilon - np.log1p((k - 1) * np.exp(-epsilon))
    terms = [a * epsilon, (1 - a) * epsilon]
    if k > 2:
        terms.append(np.full_like(a, np.log(k - 2.0)))
    # Σ_y P^α Q^{1−α} = q [e^{αε} + e^{(1−α)ε} + (k − 2)]
    # a Rényi divergence is >= 0; clip the rounding error near 0 (tiny ε)
    return np.maximum((log_q + logsumexp(np.stack(np.broadcast_arrays(*terms)), axis=0)) / (a - 1), 0.0)


def randomized_response_rdp(epsilon: float, k: int, orders=DEFAULT_ORDERS) -> np.ndarray:
    """RDP curve of k-ary (generalised) randomized response with ``p/q = e^ε``.

    For neighbours that change one user's value from ``x`` to ``x'``
    (replace-one), the output laws are ``P = (p at x, q at x', q elsewhere)``
    and ``Q = (q at x, p at x', q elsewhere)``: the privacy loss ``ln P/Q`` is
    ``+ε`` (probability p), ``−ε`` (probability q) or ``0`` (probability
    ``(k−2)q``). Every pair of values gives the same two laws, so

    ``r(α) = 1/(α−1) · ln Σ_y P(y)^α Q(y)^{1−α}
    = 1/(α−1) · ln( q [e^{αε} + e^{(1−α)ε} + k − 2] )``,

    with ``q = 1/(e^ε + k − 1)``. For ``k = 2`` this is Mironov (2017),
    Proposition 5 (binary randomized response); the k-ary form follows from
    the same definition of the Rényi divergence (Mironov 2017, Definition 3).

    Parameters
    ----------
    epsilon : float
        The ε of randomized response (``ln(p/q)``), in (0, inf).
    k : int
        Number of categories, in [2, inf).
    orders : array_like of float
        RDP orders α, each in (1, inf).
    """
    epsilon = check_epsilon(epsilon)
    k = check_int(k, "k", minimum=2, maximum=MAX_COMPOSITIONS)
    return _rr_rdp_eps(epsilon, k, as_orders(orders))


def _check_rdp_values(rdp, n_orders: int) -> np.ndarray:
    try:
        arr = np.asarray(rdp, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("rdp must be real numbers in [0, inf]") from None
    if arr.ndim == 0 or arr.shape[-1] != n_orders:
        raise ValueError(f"rdp must have one value per order ({n_orders}) on its last axis, got shape {arr.shape}")
    if np.any(np.isnan(arr) | (arr < 0)):
        bad = arr[np.isnan(arr) | (arr < 0)].reshape(-1)[0]
        raise ValueError(f"rdp must be in [0, inf], got {bad}")
    return arr


def _rdp_epsilons(orders: np.ndarray, rdp: np.ndarray, log_delta, conversion: str) -> np.ndarray:
    """ε(α) for every order (last axis) before the minimum; inputs checked."""
    a = orders
    if conversion == "balle":
        # ε = r(α) + ln((α−1)/α) − (ln δ + ln α)/(α−1)
        return rdp + np.log1p(-1.0 / a) - (log_delta + np.log(a)) / (a - 1)
    # ε = r(α) + ln(1/δ)/(α−1)
    return rdp - log_delta / (a - 1)


def rdp_to_dp(orders, rdp, delta: float, conversion: str = "balle", *, warn: bool = True):
    """Convert an RDP curve to (ε, δ)-DP: the smallest ε over the orders.

    ``conversion="balle"`` (default), the improved conversion of Balle et al.
    (2020, Theorem 21) and Canonne, Kamath, Steinke (2020, Proposition 12):

    ``ε = min_α  r(α) + ln((α−1)/α) − (ln δ + ln α)/(α−1)``.

    ``conversion="mironov"``, the original conversion (Mironov 2017,
    Proposition 3), which reproduces older published numbers:

    ``ε = min_α  r(α) + ln(1/δ)/(α−1)``.

    The result is clipped at 0 (the improved bound can dip below 0 for tiny
    curves, where (0, δ)-DP already holds). When the optimum is the smallest or
    the largest order of the grid an :class:`OrderGridEdgeWarning` is issued:
    the ε is still valid, but a wider grid might give a smaller one.

    Parameters
    ----------
    orders : array_like of float, shape (n,)
        RDP orders α, each in (1, inf); :data:`DEFAULT_ORDERS` is the usual grid.
    rdp : array_like of float, shape (..., n)
        ``r(α)`` for each order, each in [0, inf]; leading axes are converted
        independently (for example one row per number of releases k).
    delta : float
        Target δ, in (0, 1).
    conversion : {"balle", "mironov"}, default "balle"
    warn : bool, default True
        Whether to issue the grid-edge warning.

    Returns
    -------
    (epsilon, best_order)
        Floats for a 1-D ``rdp``, arrays of shape ``rdp.shape[:-1]`` otherwise.

    Examples
    --------
    >>> eps, order = rdp_to_dp(DEFAULT_ORDERS, gaussian_rdp(5.0) * 10, 1e-5)
    >>> round(eps, 4), order
    (2.8137, 7.9)
    """
    conversion = check_choice(conversion, "conversion", CONVERSIONS)
    orders = as_orders(orders)
    rdp = _check_rdp_values(rdp, orders.size)
    delta = check_delta(delta)
    eps_all = _rdp_epsilons(orders, rdp, np.log(delta), conversion)
    best = np.argmin(eps_all, axis=-1)
    eps = np.maximum(np.take_along_axis(eps_all, best[..., None], axis=-1)[..., 0], 0.0)
    best_order = orders[best]
    if warn:
        warn_if_on_edge(orders, best_order)
    if rdp.ndim == 1:
        return float(eps), float(best_order)
    return eps, best_order


def rdp_epsilons(orders, rdp, delta: float, conversion: str = "balle") -> np.ndarray:
    """The ε each RDP order gives on its own: the function :func:`rdp_to_dp` minimises over α.

    ``conversion="balle"`` (Balle et al. 2020, Theorem 21; Canonne, Kamath,
    Steinke 2020, Proposition 12): ``ε(α) = r(α) + ln((α−1)/α) − (ln δ + ln α)/(α−1)``;
    ``conversion="mironov"`` (Mironov 2017, Proposition 3): ``ε(α) = r(α) + ln(1/δ)/(α−1)``.
    Every ``ε(α)`` is a valid ε at δ; :func:`rdp_to_dp` returns the smallest
    (clipped at 0) and its order. Not clipped here, so that a plot shows the
    whole trade-off: small α pays ``ln(1/δ)/(α−1)``, large α pays ``r(α)``.

    Parameters
    ----------
    orders : array_like of float, shape (n,)
        RDP orders α, each in (1, inf).
    rdp : array_like of float, shape (..., n)
        ``r(α)`` for each order, each in [0, inf].
    delta : float
        Target δ, in (0, 1).
    conversion : {"balle", "mironov"}, default "balle"

    Returns
    -------
    numpy.ndarray
        ``ε(α)``, the shape of ``rdp``.

    Examples
    --------
    >>> eps = rdp_epsilons(DEFAULT_ORDERS, gaussian_rdp(5.0) * 10, 1e-5)
    >>> round(float(eps.min()), 4), float(DEFAULT_ORDERS[eps.argmin()])
    (2.8137, 7.9)
    """
    conversion = check_choice(conversion, "conversion", CONVERSIONS)
    orders = as_orders(orders)
    rdp = _check_rdp_values(rdp, orders.size)
    delta = check_delta(delta)
    return _rdp_epsilons(orders, rdp, np.log(delta), conversion)


def warn_if_on_edge(orders: np.ndarray, best_order, stacklevel: int = 3) -> bool:
    """Issue one :class:`OrderGridEdgeWarning` if any optimal order sits on the grid's edge."""
    best_order = np.asarray(best_order)
    lo, hi = orders.min(), orders.max()
    at_lo, at_hi = int(np.sum(best_order == lo)), int(np.sum(best_order == hi))
    if at_lo or at_hi:
        where = " and ".join(
            f"the {side} order {value:g} ({count} of {best_order.size})"
            for side, value, count in (("smallest", lo, at_lo), ("largest", hi, at_hi))
            if count
        )
        warnings.warn(
            f"the optimal RDP order is {where}, on the edge of the order grid; "
            "the epsilon is a valid bound but a wider grid might give a smaller one",
            OrderGridEdgeWarning,
            stacklevel=stacklevel,
        )
        return True
    return False
