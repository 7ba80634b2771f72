"""The Poisson-subsampled Gaussian mechanism: the privacy accountant of DP-SGD.

DP-SGD (Abadi et al. 2016) takes T steps; at each, every example joins the
batch independently with probability q (Poisson sampling), each gradient is
clipped to L2 norm C, and Gaussian noise of standard deviation ``σ C`` is
added to their sum. One step is the *Poisson-subsampled Gaussian mechanism*
with noise multiplier σ and sampling rate q; after scaling by C it compares,
for neighbouring data sets that differ by adding or removing one example
(the worst case puts that example's clipped gradient at distance 1),

``M = (1 − q) N(0, σ²) + q N(1, σ²)``  (the example is there)  with  ``N(0, σ²)``  (it is not).

The two directions differ:

* **remove**: ``P = M``, ``Q = N(0, σ²)``; privacy loss
  ``L(x) = ln(1 − q + q e^{(2x − 1)/(2σ²)})`` with ``x ~ M``, in ``(ln(1 − q), ∞)``;
* **add**: ``P = N(0, σ²)``, ``Q = M``; loss ``−L(x)`` with ``x ~ N(0, σ²)``,
  in ``(−∞, −ln(1 − q))``.

The ε of T steps is the larger of the two directions' (each composed with
itself T times: the same pair of data sets is compared at every step), as in
dp_accounting's ``PoissonSampledDpEvent`` under ``ADD_OR_REMOVE_ONE``. At
``q = 1`` both are the plain Gaussian, ``L ~ N(μ²/2, μ²)`` with ``μ = 1/σ``.

Accountants
-----------
* **RDP** (:func:`subsampled_gaussian_rdp`): Mironov, Talwar, Zhang (2019)
  show that the remove direction has the larger Rényi divergence at every
  order (Section 3), ``r(α) = ln A_α / (α − 1)`` with
  ``A_α = E_{x ~ N(0,σ²)}[(1 − q + q e^{(2x−1)/(2σ²)})^α]``; exact sums at
  integer and fractional orders (below), converted by
  :func:`~dpcore.accounting.rdp.rdp_to_dp`.
* **PLD** (:func:`dpsgd_epsilon` with ``method="pld"``): both directions
  discretised by connect-the-dots (:func:`~dpcore.accounting.privacy_loss.connect_the_dots`,
  an upper bound), each composed for every T of a curve with one forward FFT
  (:func:`~dpcore.accounting.privacy_loss.compose`), ε read off each and the larger kept.

References
----------
- Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang (2016), "Deep Learning with Differential
  Privacy", CCS, Section 3.1 and Theorem 1. https://arxiv.org/abs/1607.00133
- Mironov, Talwar & Zhang (2019), "Rényi Differential Privacy of the Sampled Gaussian Mechanism",
  arXiv:1908.10530, Sections 3.2 (integer orders) and 3.3 (fractional orders). https://arxiv.org/abs/1908.10530
- Koskela, Jälkö & Honkela (2020), "Computing Tight Differential Privacy Guarantees Using FFT",
  AISTATS. https://arxiv.org/abs/1906.03049
- Doroshenko, Ghazi, Kamath, Kumar & Manurangsi (2022), "Connect the Dots: Tighter Discrete
  Approximations of Privacy Loss Distributions", PoPETs 2022(4). https://arxiv.org/abs/2207.04380
- Google dp_accounting, ``rdp_privacy_accountant`` and ``pld`` (conventions only; no code taken).
  https://github.com/google/differential-privacy
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln, gammasgn, log_ndtr

from dpcore.accounting._numerics import as_ks, as_orders
from dpcore.accounting.events import PoissonSampledGaussian
from dpcore.accounting.gaussian_exact import gaussian_sigma_for_epsilon
from dpcore.accounting.privacy_loss import (
    GAUSSIAN_Z,
    MAX_FFT_POINTS,
    TAIL_MASS_TRUNCATION,
    PrivacyLossPMF,
    check_grid_points,
    compose,
    connect_the_dots,
    connect_the_dots_step,
    gaussian_interval,
    gaussian_privacy_loss,
    normal_cells,
    round_to_grid,
)
from dpcore.accounting.rdp import CONVERSIONS, DEFAULT_ORDERS, rdp_to_dp
from dpcore.gdp import gdp_epsilon, gdp_rdp
from dpcore.limits import MAX_COMPOSITIONS, MAX_NOISE_MULTIPLIER, MAX_ORDER, MIN_NOISE_MULTIPLIER
from dpcore.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_noise_multiplier,
    check_positive,
    check_probability,
    check_sampling_rate,
)

__all__ = [
    "DPSGD_METHODS",
    "DIRECTIONS",
    "subsampled_gaussian_rdp",
    "subsampled_gaussian_privacy_loss",
    "subsampled_gaussian_intervals",
    "subsampled_gaussian_privacy_losses",
    "dpsgd_epsilon",
    "dpsgd_noise_multiplier",
    "PoissonSampledGaussian",
    "DPSGDPlan",
    "plan_dpsgd",
]

#: Accountants of :func:`dpsgd_epsilon` and :func:`dpsgd_noise_multiplier`.
DPSGD_METHODS = ("rdp", "pld")
#: The two directions of the add/remove relation (see the module notes).
DIRECTIONS = ("remove", "add")

#: Relative size below which the fractional-order series is cut (its remainder is then added as a bound).
_SERIES_RTOL = 1e-15
#: Most terms the fractional-order series may take (q near 1/2 with a large σ converges slowest).
_SERIES_MAX_TERMS = 4096


# ---------------------------------------------------------------- parameters


def _orders(orders) -> np.ndarray:
    """RDP orders for the subsampled Gaussian: at most MAX_ORDER (:mod:`dpcore.limits`), since an integer order α
    sums α + 1 terms (the closed forms of the other releases take any order)."""
    orders = as_orders(orders)
    if orders.max() > MAX_ORDER:
        raise ValueError(f"orders must be in (1, {MAX_ORDER:g}], got {orders.max():g}")
    return orders


def _check_sigma_q(noise_multiplier, sampling_rate) -> tuple[float, float]:
    return check_noise_multiplier(noise_multiplier), check_sampling_rate(sampling_rate)


# ---------------------------------------------------------------- RDP


def _log_expm1(x: np.ndarray) -> np.ndarray:
    """``ln(e^x − 1)`` for ``x > 0``, without overflow."""
    x = np.asarray(x, dtype=np.float64)
    small = np.minimum(x, 30.0)
    return np.where(x > 30.0, x + np.log1p(-np.exp(-np.maximum(x, 30.0))), np.log(np.expm1(small)))


def _log_a_integer(sigma: float, q: float, alphas: np.ndarray) -> np.ndarray:
    """``ln A_α`` at integer orders α ≥ 2 (Mironov, Talwar, Zhang 2019, Section 3.2), all at once.

    Expanding ``(1 − q + q e^{(2x−1)/(2σ²)})^α`` binomially and using
    ``E[e^{i(2x−1)/(2σ²)}] = e^{(i² − i)/(2σ²)}`` for ``x ~ N(0, σ²)``:
    ``A_α = Σ_{i=0}^{α} C(α, i) (1 − q)^{α−i} q^i e^{(i² − i)/(2σ²)}``.
    The binomial weights sum to 1 and the terms ``i = 0, 1`` have exponent 0, so
    ``A_α − 1 = Σ_{i=2}^{α} C(α, i) (1 − q)^{α−i} q^i (e^{(i² − i)/(2σ²)} − 1)``,
    a sum of positive terms: summed in log space, it keeps its relative
    precision when ``A_α`` is within 1e-12 of 1 (large σ, small q).
    """
    a = alphas[:, None]
    i = np.arange(2.0, float(alphas.max()) + 1.0)
    inside = i <= a
    rest = np.where(inside, a - i, 0.0)
    log_terms = np.where(
        inside,
        gammaln(a + 1.0)
        - gammaln(i + 1.0)
        - gammaln(rest + 1.0)
        + i * math.log(q)
        + rest * math.log1p(-q)
        + _log_expm1((i * i - i) / (2.0 * sigma * sigma)),
        -np.inf,
    )
    top = log_terms.max(axis=1)
    log_am1 = top + np.log(np.exp(log_terms - top[:, None]).sum(axis=1))
    return np.logaddexp(0.0, log_am1)


def _log_a_fractional(sigma: float, q: float, alphas: np.ndarray) -> np.ndarray:
    """``ln A_α`` at non-integer orders (Mironov, Talwar, Zhang 2019, Section 3.3), all orders at once.

    Split the integral at ``z₀ = σ² ln(1/q − 1) + 1/2``, where
    ``q e^{(2z−1)/(2σ²)} = 1 − q``, expand each side by the generalised
    binomial series (in the ratio that is below 1 there) and integrate term by
    term against ``N(0, σ²)``:

    ``A_α = Σ_{i≥0} C(α, i) [ (1−q)^{α−i} q^i e^{(i²−i)/(2σ²)} Φ((z₀ − i)/σ)
    + (1−q)^i q^{α−i} e^{(j²−j)/(2σ²)} Φ((j − z₀)/σ) ]``, ``j = α − i``.

    Both series are summed exactly, signs included (``C(α, i)`` alternates in
    sign for ``i > α``), in chunks of 64 terms until a chunk's last terms
    fall below ``1e-15`` of the sum (at most 4096 terms: q near 1/2 with a
    large σ decays like ``i^{−α−2}``). The tail alternates and its terms
    shrink, so the remainder is at most the first term left out, which is
    added: an upper bound on ``A_α`` within about 1e-15 of it (1e-11 in the
    slowest case). dp_accounting adds the terms' absolute values instead, a
    looser bound (up to 7 % higher near α = 1, and left out when 1000 terms
    do not converge).
    """
    z0 = sigma * sigma * (math.log1p(-q) - math.log(q)) + 0.5
    log_q, log_1mq = math.log(q), math.log1p(-q)
    two_var = 2.0 * sigma * sigma

    def log_terms(a, i):
        """ln|first|, ln|second| and the common sign of C(α, i), for rows ``a`` and columns ``i``."""
        j = a - i
        log_binom = gammaln(a + 1.0) - gammaln(i + 1.0) - gammaln(j + 1.0)  # ln |C(α, i)|
        first = log_binom + i * log_q + j * log_1mq + (i * i - i) / two_var + log_ndtr((z0 - i) / sigma)
        second = log_binom + j * log_q + i * log_1mq + (j * j - j) / two_var + log_ndtr((j - z0) / sigma)
        return first, second, gammasgn(j + 1.0)

    chunk = 64
    a = alphas[:, None]
    # the first chunk reaches past α, where the binomial coefficients start alternating
    start = max(chunk, chunk * math.ceil((float(alphas.max()) + 2) / chunk))
    first, second, sign = log_terms(a, np.arange(start, dtype=np.float64)[None, :])
    top = np.maximum(first.max(axis=1), second.max(axis=1))
    total = np.sum(sign * (np.exp(first - top[:, None]) + np.exp(second - top[:, None])), axis=1)
    last = np.maximum(first[:, -1], second[:, -1]) - top
    n_terms = np.full(alphas.size, start)
    active = last >= np.log(_SERIES_RTOL * total)
    while np.any(active) and n_terms.max() < _SERIES_MAX_TERMS:
        rows = np.nonzero(active)[0]
        i = (n_terms[rows, None] + np.arange(chunk)).astype(np.float64)
        first, second, sign = log_terms(a[rows], i)
        scale = top[rows, None]
        total[rows] += np.sum(sign * (np.exp(first - scale) + np.exp(second - scale)), axis=1)
        n_terms[rows] += chunk
        last = np.maximum(first[:, -1], second[:, -1]) - top[rows]
        active[rows] = last >= np.log(_SERIES_RTOL * total[rows])
    first, second, _ = log_terms(a, n_terms[:, None].astype(np.float64))
    remainder = np.exp(first[:, 0] - top) + np.exp(second[:, 0] - top)
    return top + np.log(total + remainder)


def _subsampled_gaussian_rdp(sigma: float, q: float, orders: np.ndarray) -> np.ndarray:
    """RDP curve for checked arguments."""
    if q == 1.0:
        return gdp_rdp(1.0 / sigma, orders)  # q = 1 is the Gaussian itself (dpcore.gdp)
    log_a = np.empty(orders.size)
    integer = orders == np.floor(orders)
    if np.any(integer):
        log_a[integer] = _log_a_integer(sigma, q, orders[integer])
    if np.any(~integer):
        log_a[~integer] = _log_a_fractional(sigma, q, orders[~integer])
    return np.maximum(log_a / (orders - 1.0), 0.0)


def subsampled_gaussian_rdp(noise_multiplier: float, sampling_rate: float, orders=DEFAULT_ORDERS) -> np.ndarray:
    """RDP curve of one step of the Poisson-subsampled Gaussian mechanism (add/remove neighbours).

    ``r(α) = ln A_α / (α − 1)`` with
    ``A_α = E_{x ~ N(0, σ²)}[(1 − q + q e^{(2x − 1)/(2σ²)})^α]``, the Rényi
    divergence of ``(1 − q) N(0, σ²) + q N(1, σ²)`` from ``N(0, σ²)``, which
    is the larger of the two directions (Mironov, Talwar, Zhang 2019,
    Section 3; checked by quadrature in the tests). Integer orders: the finite binomial sum (their Section 3.2);
    fractional orders: their two convergent series (Section 3.3), summed with
    signs and a bound on the remainder added. At ``q = 1`` this is exactly the
    Gaussian's ``α / (2σ²)``. Sensitivity 1: σ is the noise multiplier
    (noise standard deviation over the clipping norm).

    Parameters
    ----------
    noise_multiplier : float
        σ, in (0, inf).
    sampling_rate : float
        q, the probability that an example is in a batch, in (0, 1].
    orders : array_like of float
        RDP orders α, each in (1, inf).

    Returns
    -------
    numpy.ndarray
        ``r(α)`` for each order.

    Examples
    --------
    >>> r = subsampled_gaussian_rdp(1.0, 0.01, [2.0, 8.0])
    >>> [round(float(x), 10) for x in r]       # α = 2: ln(1 + q²(e^{1/σ²} − 1)) = ln(1 + 1.71828e-4)
    [0.0001718134, 0.0008936439]
    """
    sigma, q = _check_sigma_q(noise_multiplier, sampling_rate)
    return _subsampled_gaussian_rdp(sigma, q, _orders(orders))


# ---------------------------------------------------------------- PLD


def _loss_remove(sigma: float, q: float, x: np.ndarray) -> np.ndarray:
    """``L(x) = ln(1 − q + q e^{(2x − 1)/(2σ²)})``, in log space."""
    return np.logaddexp(math.log1p(-q), math.log(q) + (2.0 * x - 1.0) / (2.0 * sigma * sigma))


def _x_of_loss(sigma: float, q: float, ell: np.ndarray) -> np.ndarray:
    """Inverse of :func:`_loss_remove`: ``x = σ² ln((e^ℓ − 1 + q)/q) + 1/2``; ``−∞`` for ``ℓ ≤ ln(1 − q)``."""
    gap = np.expm1(ell) + q  # e^ℓ − (1 − q)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = sigma * sigma * (np.log(gap) - math.log(q)) + 0.5
    return np.where(gap > 0, x, -np.inf)


def subsampled_gaussian_privacy_loss(
    noise_multiplier: float,
    sampling_rate: float,
    interval: float,
    direction: str = "remove",
    *,
    pessimistic: bool = True,
    connect_dots: bool = True,
) -> PrivacyLossPMF:
    """Discretised PLD of one step of the Poisson-subsampled Gaussian, in one direction.

    ``"remove"``: ``L = ln(1 − q + q e^{(2x−1)/(2σ²)})``, ``x ~ M = (1−q) N(0,σ²) + q N(1,σ²)``;
    ``"add"``: ``−L`` with ``x ~ N(0, σ²)`` (module notes). The loss is
    monotone in x, so the P- and Q-mass of a loss cell ``(ℓ_i, ℓ_{i+1}]`` are
    normal masses between ``x(ℓ_i)`` and ``x(ℓ_{i+1})``, with
    ``x(ℓ) = σ² ln((e^ℓ − 1 + q)/q) + 1/2``. The grid covers
    ``x ∈ [−11.5σ, 1 + 11.5σ]`` (remove) or ``x ≤ 11.5σ`` (add) and the bounded
    end of the loss; the P-mass beyond (below 1e-30) goes to ``+∞`` (remove) or
    is rounded up onto the grid (add). Each cell is then split by
    :func:`~dpcore.accounting.privacy_loss.connect_the_dots` (default, an upper bound),
    rounded up (``connect_dots=False``) or down (``pessimistic=False``, a lower bound).
    At ``q = 1`` both directions are the Gaussian's ``N(μ²/2, μ²)``, ``μ = 1/σ``
    (:func:`~dpcore.accounting.privacy_loss.gaussian_privacy_loss`).

    Parameters
    ----------
    noise_multiplier : float
        σ, in (0, inf).
    sampling_rate : float
        q, in (0, 1].
    interval : float
        Grid step of the loss, in (0, inf).
    direction : {"remove", "add"}, default "remove"
    pessimistic : bool, default True
    connect_dots : bool, default True
        Only used when ``pessimistic``.
    """
    sigma, q = _check_sigma_q(noise_multiplier, sampling_rate)
    h = check_positive(interval, "interval")
    direction = check_choice(direction, "direction", DIRECTIONS)
    if q == 1.0:
        return gaussian_privacy_loss(1.0 / sigma, h, pessimistic=pessimistic, connect_dots=connect_dots)
    floor = math.log1p(-q)  # the smallest remove loss, reached as x → −∞
    if direction == "remove":
        i_lo = math.floor(floor / h)
        i_hi = math.ceil(float(_loss_remove(sigma, q, np.array(1.0 + GAUSSIAN_Z * sigma))) / h)
        check_grid_points(i_hi - i_lo + 1, h)
        x = _x_of_loss(sigma, q, np.arange(i_lo, i_hi + 1) * h)  # increasing
        base, base_below, base_above = normal_cells(x / sigma)
        shifted, shifted_below, shifted_above = normal_cells((x - 1.0) / sigma)
        p_cells, q_cells = (1 - q) * base + q * shifted, base
        p_below, p_above = 0.0, (1 - q) * base_above + q * shifted_above
    else:
        i_lo = math.floor(-float(_loss_remove(sigma, q, np.array(GAUSSIAN_Z * sigma))) / h)
        i_hi = _add_top_index(q, h)
        check_grid_points(i_hi - i_lo + 1, h)
        x = _x_of_loss(sigma, q, -np.arange(i_lo, i_hi + 1)[::-1] * h)  # increasing in x = decreasing loss
        base, base_below, base_above = normal_cells(x / sigma)
        shifted = normal_cells((x - 1.0) / sigma)[0]
        p_cells, q_cells = base[::-1], ((1 - q) * base + q * shifted)[::-1]
        p_below, p_above = base_above, 0.0  # x above the grid: the loss below it
    if pessimistic and connect_dots:
        return connect_the_dots(h, i_lo, p_cells, q_cells, p_below, p_above)
    return round_to_grid(h, i_lo, p_cells, p_below, p_above, up=pessimistic)


def _add_top_index(q: float, h: float) -> int:
    """The top grid index of the add direction's loss, whose largest value is ``−ln(1 − q)`` (rounded up)."""
    return math.ceil(-math.log1p(-q) / h)


def _loss_moments(sigma: float, q: float) -> dict[str, tuple[float, float]]:
    """Mean and variance of one step's loss under P, per direction (only used to size the grid).

    ``M = (1 − q) N(0, σ²) + q N(1, σ²)``: each component is integrated on its own window,
    ``x = σ z`` and ``x = 1 + σ z`` with ``z ∈ [−12, 12]`` in steps of 1/200 (a Riemann sum,
    robust to the softplus shape of the loss when σ is small, accurate to far better than the
    10 % the grid needs), and the mixture's moments combined from the components'. The work
    is the same 4,801 points per component whatever σ (a window spanning both centres would
    grow as 1/σ).
    """
    z = np.arange(-12.0, 12.0 + 0.0025, 0.005)
    weights = np.exp(-0.5 * z * z)
    weights /= weights.sum()
    loss_at_0 = _loss_remove(sigma, q, sigma * z)  # x ~ N(0, σ²)
    loss_at_1 = _loss_remove(sigma, q, 1.0 + sigma * z)  # x ~ N(1, σ²)
    out = {}
    for direction, parts, sign in (
        ("remove", ((1 - q, loss_at_0), (q, loss_at_1)), 1.0),
        ("add", ((1.0, loss_at_0),), -1.0),
    ):
        first = sum(w * float(np.dot(weights, sign * values)) for w, values in parts)
        second = sum(w * float(np.dot(weights, values * values)) for w, values in parts)
        out[direction] = (first, max(0.0, second - first * first))
    return out


def _default_intervals(sigma: float, q: float, k_max: int, delta: float) -> dict[str, float]:
    """Grid step per direction for k_max steps: about 0.2 % excess over the true ε.

    :func:`~dpcore.accounting.privacy_loss.connect_the_dots_step` with each
    direction's loss variance and ``ε_ref = min(RDP ε, the CLT's ε)`` (the
    central limit theorem of Dong, Roth, Su 2019: k steps are about
    ``sqrt(k v)``-GDP), at least ``½ sqrt(k v)``; at most a quarter of one
    step's spread; coarsened if the FFT would pass 2²² points (still an upper
    bound, then less tight). The FFT covers one step's support and the window
    of k steps; the window's top is about the Chernoff bound
    ``min_α k r(α) + ln(2/τ)/(α − 1)`` (``E_P[e^{tL}] = e^{t D_{t+1}}``: the
    Mironov conversion at δ = τ/2; the add direction's divergences are the
    smaller, Mironov, Talwar, Zhang 2019, Section 3), its bottom about as far
    below the mean.
    """
    moments = _loss_moments(sigma, q)
    v_max = max(v for _, v in moments.values())
    rdp = k_max * _subsampled_gaussian_rdp(sigma, q, DEFAULT_ORDERS)
    eps_rdp = rdp_to_dp(DEFAULT_ORDERS, rdp, delta, warn=False)[0]
    reach = rdp_to_dp(DEFAULT_ORDERS, rdp, TAIL_MASS_TRUNCATION / 2, "mironov", warn=False)[0]
    mu_clt = math.sqrt(k_max * v_max)
    eps_clt = gdp_epsilon(mu_clt, delta) if mu_clt > 0 else 0.0
    eps_ref = max(min(eps_rdp, eps_clt), 0.5 * math.sqrt(k_max * v_max))
    # one step's loss spans [ln(1 − q), L(1 + 11.5σ)] (remove) or [−L(11.5σ), −ln(1 − q)] (add)
    support = {
        "remove": float(_loss_remove(sigma, q, np.array(1.0 + GAUSSIAN_Z * sigma))) - math.log1p(-q),
        "add": float(_loss_remove(sigma, q, np.array(GAUSSIAN_Z * sigma))) - math.log1p(-q),
    }
    out = {}
    for direction, (mean, variance) in moments.items():
        h = min(math.sqrt(variance) / 4, connect_the_dots_step(k_max, eps_ref, variance))
        points = (2 * (reach + k_max * abs(mean)) + support[direction]) / h
        out[direction] = h * max(1.0, points / MAX_FFT_POINTS)
    return out


def _intervals(sigma: float, q: float, k_max: int, delta: float, connect_dots: bool) -> tuple[float, ...]:
    """Default grid step of each direction for checked arguments (the Gaussian's at q = 1)."""
    if q == 1.0:  # the plain Gaussian, gridded as the PLD accountant grids it
        return (gaussian_interval(1.0 / sigma, k_max, delta, connect_dots=connect_dots),)
    steps = _default_intervals(sigma, q, k_max, delta)
    return tuple(steps[d] for d in DIRECTIONS)


def subsampled_gaussian_intervals(
    noise_multiplier: float, sampling_rate: float, steps: int, delta: float, *, connect_dots: bool = True
) -> tuple[float, ...]:
    """The default PLD grid step of each direction for T steps: about 0.2 % excess over the true ε.

    ``(remove, add)`` below q = 1, sized by
    :func:`~dpcore.accounting.privacy_loss.connect_the_dots_step` with each
    direction's loss variance and ``ε_ref = min(RDP ε, the CLT's ε)`` (Dong,
    Roth, Su 2019: T steps are about ``sqrt(T v)``-GDP); at q = 1, where both
    directions are the Gaussian's, its one step
    (:func:`~dpcore.accounting.privacy_loss.gaussian_interval`; ``connect_dots``
    only matters there, the other grids being sized for connect the dots).

    Parameters
    ----------
    noise_multiplier : float
        σ, in [0.1, 10⁴].
    sampling_rate : float
        q, in [1e-7, 1].
    steps : int
        T, the most steps composed, in [1, inf).
    delta : float
        The δ the ε will be read at, in (0, 1).
    connect_dots : bool, default True

    Returns
    -------
    tuple of float
        One step per direction of :func:`subsampled_gaussian_privacy_losses`.
    """
    sigma, q = _check_sigma_q(noise_multiplier, sampling_rate)
    steps = check_int(steps, "steps", minimum=1, maximum=MAX_COMPOSITIONS)
    delta = check_delta(delta)
    return _intervals(sigma, q, steps, delta, connect_dots)


def subsampled_gaussian_privacy_losses(
    noise_multiplier: float, sampling_rate: float, intervals, *, pessimistic: bool = True, connect_dots: bool = True
) -> tuple[PrivacyLossPMF, ...]:
    """One step's discretised PLD in each direction that must be read: remove and add (the remove alone at q = 1).

    :func:`subsampled_gaussian_privacy_loss` per direction; the ε (δ) of T
    steps is the larger of the two directions' T-fold compositions (module notes).

    Parameters
    ----------
    noise_multiplier : float
        σ, in [0.1, 10⁴].
    sampling_rate : float
        q, in [1e-7, 1].
    intervals : sequence of float
        The grid step of each direction, each in (0, inf) (:func:`subsampled_gaussian_intervals`).
    pessimistic : bool, default True
    connect_dots : bool, default True
        Only used when ``pessimistic``.
    """
    sigma, q = _check_sigma_q(noise_multiplier, sampling_rate)
    directions = DIRECTIONS[:1] if q == 1.0 else DIRECTIONS
    intervals = tuple(intervals)
    if len(intervals) != len(directions):
        raise ValueError(f"intervals must hold one grid step per direction ({len(directions)}), got {len(intervals)}")
    return tuple(
        subsampled_gaussian_privacy_loss(
            sigma, q, h, d, pessimistic=pessimistic, connect_dots=connect_dots and pessimistic
        )
        for d, h in zip(directions, intervals)
    )


def _direction_epsilons(sigma, q, ks, delta, interval, direction, tail, pessimistic, connect_dots) -> np.ndarray:
    """ε for each k of one direction's composed PLD on the grid step ``interval`` (checked arguments)."""
    pmf = subsampled_gaussian_privacy_loss(
        sigma, q, interval, direction, pessimistic=pessimistic, connect_dots=connect_dots and pessimistic
    )
    return np.array([composed.epsilon(delta) for composed in compose(pmf, ks, tail)])


def _pld_epsilons(sigma, q, ks, delta, value_discretization_interval, tail, *, pessimistic, connect_dots) -> np.ndarray:
    """ε for each k: the larger of the two directions' composed PLDs."""
    if value_discretization_interval is None:
        intervals = _intervals(sigma, q, int(ks.max()), delta, connect_dots and pessimistic)
    else:
        h = check_positive(value_discretization_interval, "value_discretization_interval")
        intervals = (h,) if q == 1.0 else (h, h)
    eps = np.zeros(ks.size)
    for direction, h in zip(DIRECTIONS, intervals):
        eps = np.maximum(eps, _direction_epsilons(sigma, q, ks, delta, h, direction, tail, pessimistic, connect_dots))
    return eps


# ---------------------------------------------------------------- ε of T steps, and its inverse


def dpsgd_epsilon(
    noise_multiplier: float,
    sampling_rate: float,
    steps,
    delta: float,
    method: str = "pld",
    *,
    conversion: str = "balle",
    orders=DEFAULT_ORDERS,
    value_discretization_interval: float | None = None,
    tail_mass_truncation: float = TAIL_MASS_TRUNCATION,
    warn: bool = True,
    _pessimistic: bool = True,
    _connect_dots: bool = True,
):
    """ε of T steps of DP-SGD (Poisson-subsampled Gaussian, add/remove neighbours) at δ.

    ``method="pld"`` (default): both directions' privacy loss distributions,
    discretised by connect-the-dots and composed by FFT, one forward transform
    shared by every T asked for; the larger ε of the two directions. An upper
    bound on the exact ε, about 0.1–0.2 % above it with the default grid
    (Koskela, Jälkö, Honkela 2020; Doroshenko et al. 2022).

    ``method="rdp"``: ``T · r(α)`` from :func:`subsampled_gaussian_rdp`
    (Mironov, Talwar, Zhang 2019), converted by
    :func:`~dpcore.accounting.rdp.rdp_to_dp` with ``conversion``: ``"balle"``
    (Balle et al. 2020; the tighter, modern one) or ``"mironov"`` (Mironov
    2017, Proposition 3; the classic one of the papers of 2016–2019, so that
    published figures can be recognised). Abadi et al.'s setting, q = 0.01,
    σ = 4, T = 10⁴, δ = 10⁻⁵, published as ε = 1.26 (moments accountant):
    RDP with the classic conversion gives 1.2586, with the improved one
    1.0355, and the PLD 0.948.

    Parameters
    ----------
    noise_multiplier : float
        σ, noise standard deviation over the clipping norm, in (0, inf).
    sampling_rate : float
        q, the Poisson sampling rate (expected batch size over data set size), in (0, 1].
    steps : int or array_like of int
        T, each in [1, inf). An array gives one ε per entry.
    delta : float
        δ, in (0, 1).
    method : {"pld", "rdp"}, default "pld"
    conversion : {"balle", "mironov"}, default "balle"
        RDP to (ε, δ) conversion (``method="rdp"`` only).
    orders : array_like of float, default DEFAULT_ORDERS
        RDP orders, each in (1, inf) (``method="rdp"`` only).
    value_discretization_interval : float, optional
        PLD grid step, in (0, inf); default: sized for the largest T (about 0.2 % excess).
    tail_mass_truncation : float, default 1e-15
        PLD mass allowed outside the FFT window, in (0, 1); added to δ.
    warn : bool, default True
        Whether RDP issues :class:`~dpcore.accounting.rdp.OrderGridEdgeWarning`.

    Returns
    -------
    float or numpy.ndarray
        ε (a float for a scalar ``steps``).

    Examples
    --------
    >>> round(dpsgd_epsilon(4.0, 0.01, 10_000, 1e-5, method="rdp"), 3)   # Abadi et al. report 1.26
    1.035
    >>> round(dpsgd_epsilon(1.0, 1.0, 1, 1e-5), 3)      # q = 1: the Gaussian (exact: 4.377)
    4.385
    """
    sigma, q = _check_sigma_q(noise_multiplier, sampling_rate)
    ks = as_ks(steps, "steps")
    delta = check_delta(delta)
    method = check_choice(method, "method", DPSGD_METHODS)
    conversion = check_choice(conversion, "conversion", CONVERSIONS)
    if method == "rdp":
        orders = _orders(orders)
        rdp = ks[:, None].astype(np.float64) * _subsampled_gaussian_rdp(sigma, q, orders)
        eps = np.asarray(rdp_to_dp(orders, rdp, delta, conversion, warn=warn)[0], dtype=np.float64)
    else:
        tail = check_probability(tail_mass_truncation, "tail_mass_truncation")
        eps = _pld_epsilons(
            sigma,
            q,
            ks,
            delta,
            value_discretization_interval,
            tail,
            pessimistic=_pessimistic,
            connect_dots=_connect_dots,
        )
    return float(eps[0]) if np.ndim(steps) == 0 else eps


def _noise_guess(epsilon: float, delta: float, q: float, steps: int) -> tuple[float, float]:
    """A starting σ from the central limit theorem, and the slope ``d ln ε / d ln σ`` there.

    T steps are about ``μ = q sqrt(T (e^{1/σ²} − 1))``-GDP (Bu, Dong, Long, Su
    2020, "Deep Learning with Gaussian Differential Privacy", Harvard Data
    Science Review), solved for σ with μ the GDP parameter that gives (ε, δ).
    The slope of that approximation's ε (:func:`dpcore.gdp.gdp_epsilon`) at
    the guess aims the first secant step; the calibration only needs both
    roughly (−1 when the approximation gives none).
    """
    mu = math.sqrt(steps) / gaussian_sigma_for_epsilon(epsilon, steps, delta)  # μ of the target (ε, δ)
    ratio = mu * mu / (q * q * steps)
    sigma = 1.0 / math.sqrt(math.log1p(ratio)) if 0.0 < ratio < math.inf else 1.0
    sigma = min(max(sigma, MIN_NOISE_MULTIPLIER), MAX_NOISE_MULTIPLIER)

    def log_eps(s: float) -> float:  # ln ε of the approximation at σ = s
        return math.log(max(gdp_epsilon(q * math.sqrt(steps * math.expm1(1.0 / (s * s))), delta), 1e-300))

    try:
        slope = (log_eps(sigma * 1.01) - log_eps(sigma)) / math.log(1.01)
    except (ValueError, OverflowError):
        slope = -1.0
    return sigma, slope if math.isfinite(slope) and slope < 0 else -1.0


#: The PLD calibration stops at an ε within 1e-6 below the target (or within the PLD's own rounding error at small
#: δ, about 1e-12 in δ, :mod:`dpcore.accounting.privacy_loss`, taken as 1e-12/δ of ε), or at a bracket of 1e-8 in σ.
_PLD_FTOL, _PLD_XTOL = 1e-6, 1e-8


class _Unreachable(Exception):
    """No σ in the range of :mod:`dpcore.limits` is the answer: at the end ``sigma``, ε is (at most) ``epsilon``."""

    def __init__(self, sigma: float, epsilon: float):
        super().__init__(sigma, epsilon)
        self.sigma, self.epsilon = sigma, epsilon


#: How far past the predicted root each secant step aims (a fraction of the step), so that two points soon bracket
#: it; the first step, whose slope is the central limit theorem's guess, aims further.
_FIRST_PAST, _PAST = 0.25, 0.05


class _Close(Exception):
    """A σ on the safe side whose ε is within the tolerance of the target: the search can stop."""


def _smallest_sigma(eps_of, target: float, guess: float, slope: float, ftol: float, xtol: float) -> tuple[float, float]:
    """The smallest σ in [0.1, 10⁴] (:mod:`dpcore.limits`) with ``eps_of(σ) ≤ target``, and its ε.

    ``eps_of`` decreases in σ. The search works on ``g(u) = ln ε(e^u) − ln t``,
    nearly linear in ``u = ln σ`` (ε falls like a power of σ), for the aim
    ``t = (1 − ftol/2) target``: secant steps from ``guess`` (the first along
    ``slope``, an estimate of ``d ln ε / d ln σ``), each aimed a little past the
    root and at most a factor 8 in σ, until two points bracket it; then
    ``brentq`` (Brent 1973) on that bracket. It stops at the first σ whose ε is
    in ``[(1 − ftol) target, target]``, or when the bracket is narrower than
    ``xtol`` in σ (where ε is not smooth: a PLD's ε can move by 1e-5 of itself
    in steps as its grid follows σ). Each σ is evaluated once
    (memoised): a PLD evaluation is the expensive part, and a handful suffice.
    The answer is the smallest σ evaluated on the safe side, with its ε.
    :class:`_Unreachable` when the range ends first: at 0.1 if even that meets
    the target, at 10⁴ if even that misses it.
    """
    u_min, u_max = math.log(MIN_NOISE_MULTIPLIER), math.log(MAX_NOISE_MULTIPLIER)
    log_aim = math.log(target) + math.log1p(-ftol / 2)
    seen: dict[float, float] = {}

    def sigma_of(u: float) -> float:  # the ends exactly (e^{ln 0.1} is not 0.1)
        return MIN_NOISE_MULTIPLIER if u <= u_min else MAX_NOISE_MULTIPLIER if u >= u_max else math.exp(u)

    def g(u: float) -> float:
        sigma = sigma_of(u)
        if sigma not in seen:
            seen[sigma] = float(eps_of(sigma))
            if (1.0 - ftol) * target <= seen[sigma] <= target:
                raise _Close
        return min(max(math.log(max(seen[sigma], 1e-300)) - log_aim, -700.0), 700.0)

    try:
        u = min(max(math.log(guess), u_min), u_max)
        gu = g(u)
        past = _FIRST_PAST  # the first slope is a guess: aim further past the root
        while gu != 0.0:
            step = min(max(-gu / slope, -math.log(8.0)), math.log(8.0))
            step += math.copysign(max(past * abs(step), 10 * xtol), step)  # a little past the root: a bracket
            past = _PAST
            u_next = min(max(u + step, u_min), u_max)
            if u_next == u:  # at an end of the range, still on one side
                raise _Unreachable(sigma_of(u), seen[sigma_of(u)])
            g_next = g(u_next)
            if (g_next <= 0.0) != (gu <= 0.0):
                lo, hi = sorted((u, u_next))
                brentq(g, lo, hi, xtol=xtol, rtol=4 * np.finfo(float).eps)
                break
            secant = (g_next - gu) / (u_next - u)
            if math.isfinite(secant) and secant < 0.0:
                slope = secant
            u, gu = u_next, g_next
    except _Close:
        pass
    sigma = min(s for s, e in seen.items() if e <= target)
    return sigma, seen[sigma]


def _rdp_calibration(epsilon, delta, q, steps, conversion, orders) -> tuple[float, float]:
    """The smallest σ (to 1e-12) meeting (ε, δ) under RDP, and its ε."""
    floor = rdp_to_dp(orders, np.zeros_like(orders), delta, conversion, warn=False)[0]
    if epsilon <= floor:
        raise ValueError(
            f"epsilon must be above {floor:.4g} for rdp accounting at delta={delta:g} with orders up to "
            f"{orders.max():g} (the conversion's own cost), got {epsilon}"
        )

    def eps_of(sigma: float) -> float:
        rdp = steps * _subsampled_gaussian_rdp(sigma, q, orders)
        return rdp_to_dp(orders, rdp, delta, conversion, warn=False)[0]

    return _smallest_sigma(eps_of, epsilon, *_noise_guess(epsilon, delta, q, steps), ftol=1e-12, xtol=1e-12)


def _pld_calibration(epsilon, delta, q, steps) -> tuple[float, float]:
    """The smallest σ meeting (ε, δ) by the PLD, and its ε (:func:`dpsgd_epsilon`'s, to the bit).

    The ε of T steps is the larger of the two directions' (module notes), and
    the remove direction's is the larger wherever we looked (as its Rényi
    divergences are, Mironov, Talwar, Zhang 2019, Section 3). So the root is
    first sought on the remove direction alone (each evaluation half the
    work). The add direction is read at that σ only if it might matter: its
    loss is at most ``−ln(1 − q)`` per step, so its ε after T steps is at most
    ``T ⌈−ln(1 − q)/h⌉ h`` on its grid of step h, and when that is below the
    remove direction's ε the larger is known without it (short runs at small
    q, whose add direction has the finest and longest grid). Only if the add
    direction's ε is then above the target is the search continued on the
    larger of the two. Each σ's grid is sized as :func:`dpsgd_epsilon` sizes it.
    """
    ks = np.array([steps])
    grids: dict[float, tuple[float, ...]] = {}

    def direction(sigma: float, which: int) -> float:
        if sigma not in grids:
            grids[sigma] = _intervals(sigma, q, steps, delta, True)
        h = grids[sigma][which]
        return _direction_epsilons(sigma, q, ks, delta, h, DIRECTIONS[which], TAIL_MASS_TRUNCATION, True, True)[0]

    @functools.cache
    def remove(sigma: float) -> float:
        return direction(sigma, 0)

    def add_bound(sigma: float) -> float:
        """A bound on the add direction's ε: T times its top grid point (no mass at infinity; δ above the tails)."""
        if q == 1.0:
            return 0.0  # one direction: the Gaussian's
        h = grids[sigma][1]
        return steps * _add_top_index(q, h) * h if delta > 2 * TAIL_MASS_TRUNCATION else math.inf

    def both(sigma: float) -> float:
        eps = max(0.0, remove(sigma))  # as _pld_epsilons: the larger of 0 and each direction's
        if add_bound(sigma) <= eps:
            return eps
        return max(eps, direction(sigma, 1))

    guess, slope = _noise_guess(epsilon, delta, q, steps)
    ftol = max(_PLD_FTOL, 1e-12 / delta)  # ε is no finer than the FFT's rounding in δ
    try:
        sigma, _ = _smallest_sigma(remove, epsilon, guess, slope, ftol, _PLD_XTOL)
    except _Unreachable as end:
        if end.sigma == MAX_NOISE_MULTIPLIER:
            raise
        sigma = MIN_NOISE_MULTIPLIER  # even the smallest σ meets the target in the remove direction
        if add_bound(sigma) <= epsilon:  # and in the add direction: ε there is at most the larger of the two
            raise _Unreachable(sigma, max(end.epsilon, add_bound(sigma))) from None
    eps = both(sigma)
    if eps <= epsilon:
        if sigma == MIN_NOISE_MULTIPLIER:
            raise _Unreachable(sigma, eps)
        return sigma, eps
    # the add direction is the larger here: continue on the larger of the two, above this σ
    return _smallest_sigma(both, epsilon, sigma, slope, ftol, _PLD_XTOL)


def _calibration(epsilon, delta, q, steps, method, conversion, orders) -> tuple[float, float]:
    """:func:`dpsgd_noise_multiplier` for checked arguments, with the ε at the σ found."""
    try:
        if method == "rdp":
            return _rdp_calibration(epsilon, delta, q, steps, conversion, orders)
        return _pld_calibration(epsilon, delta, q, steps)
    except _Unreachable as end:
        where = f"for {steps} steps at q = {q:g} under {method} accounting at delta = {delta:g}"
        if end.sigma == MIN_NOISE_MULTIPLIER:
            raise ValueError(
                f"epsilon must be smaller {where}: dpcore's smallest noise multiplier, {MIN_NOISE_MULTIPLIER:g}, "
                f"already gives at most {end.epsilon:.4g}, got {epsilon}"
            ) from None
        raise ValueError(
            f"epsilon must be at least {end.epsilon:.4g} {where} (dpcore's largest noise multiplier, "
            f"{MAX_NOISE_MULTIPLIER:g}, gives that), got {epsilon}"
        ) from None


def dpsgd_noise_multiplier(
    epsilon: float,
    delta: float,
    sampling_rate: float,
    steps: int,
    method: str = "pld",
    *,
    conversion: str = "balle",
    orders=DEFAULT_ORDERS,
) -> float:
    """The smallest noise multiplier σ for which T steps of DP-SGD are (ε, δ)-DP under an accountant.

    The inverse of :func:`dpsgd_epsilon` (dp_accounting's and Opacus's
    ``get_noise_multiplier``): ε decreases in σ, so σ is the root of
    ``ln ε(σ) = ln ε_target``, nearly linear in ``ln σ``. Secant steps from the
    central limit theorem's estimate (:func:`_noise_guess`) bracket it, and
    ``brentq`` (Brent 1973) closes the bracket until ``dpsgd_epsilon(σ)`` is
    within 1e-6 below the target (RDP: 1e-12), or the bracket within 1e-8 in σ;
    the σ returned is on the safe side, ``dpsgd_epsilon(σ) ≤ ε``. At δ below
    1e-6 the PLD's ε is only as fine as the FFT's rounding in δ (about 1e-12),
    and the search stops within ``1e-12/δ`` of the target (1 % at δ = 1e-10).
    Each PLD evaluation sizes its own grid, as :func:`dpsgd_epsilon` will, and
    the PLD search reads the remove direction first (:func:`_pld_calibration`):
    four to eight evaluations, under a second for q in [1e-4, 0.5] and T up to
    10⁵ (``benchmarks/bench_dpsgd_planner.py``).

    Parameters
    ----------
    epsilon : float
        Target ε, in (0, inf); for ``"rdp"``, above the conversion's own cost at δ.
    delta : float
        Target δ, in (0, 1).
    sampling_rate : float
        q, in (0, 1].
    steps : int
        T, in [1, inf).
    method : {"pld", "rdp"}, default "pld"
    conversion : {"balle", "mironov"}, default "balle"
    orders : array_like of float, default DEFAULT_ORDERS

    Raises
    ------
    ValueError
        When no noise multiplier in [0.1, 10⁴] (:mod:`dpcore.limits`) is the
        answer: the smallest already meets the target, or the largest misses it.

    Examples
    --------
    >>> sigma = dpsgd_noise_multiplier(1.0, 1e-5, 0.01, 10_000, method="rdp")
    >>> round(sigma, 3), round(dpsgd_epsilon(sigma, 0.01, 10_000, 1e-5, method="rdp"), 6)
    (4.126, 1.0)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    q = check_sampling_rate(sampling_rate)
    steps = check_int(steps, "steps", minimum=1, maximum=MAX_COMPOSITIONS)
    method = check_choice(method, "method", DPSGD_METHODS)
    conversion = check_choice(conversion, "conversion", CONVERSIONS)
    return _calibration(epsilon, delta, q, steps, method, conversion, _orders(orders))[0]


# ---------------------------------------------------------------- planning a run


@dataclass(frozen=True)
class DPSGDPlan:
    """A DP-SGD run planned for a target (ε, δ): its sampling, its length, its noise, and every accountant's ε.

    Attributes
    ----------
    dataset_size, batch_size : int
        n and the expected batch size B.
    epochs : float
        E, passes over the data.
    target_epsilon, delta : float
        The budget the noise was calibrated to.
    method : str
        The accountant that calibrated the noise ("pld" or "rdp").
    sampling_rate : float
        ``q = B / n``.
    steps : int
        ``T = ⌈E n / B⌉``.
    noise_multiplier : float
        σ, the smallest that meets (ε, δ) under ``method``.
    epsilon_rdp_balle, epsilon_rdp_mironov, epsilon_pld : float
        The ε each accountant reports at that σ and δ.
    """

    dataset_size: int
    batch_size: int
    epochs: float
    target_epsilon: float
    delta: float
    method: str
    sampling_rate: float
    steps: int
    noise_multiplier: float
    epsilon_rdp_balle: float
    epsilon_rdp_mironov: float
    epsilon_pld: float

    @property
    def event(self) -> PoissonSampledGaussian:
        """The run as a privacy event (for a ledger)."""
        return PoissonSampledGaussian(self.noise_multiplier, self.sampling_rate, self.steps)

    def noise_std(self, clipping_norm: float) -> float:
        """Standard deviation of the noise added to the clipped-gradient sum: ``σ C``.

        Parameters
        ----------
        clipping_norm : float
            C, in (0, inf).
        """
        return self.noise_multiplier * check_positive(clipping_norm, "clipping_norm")


def plan_dpsgd(
    dataset_size: int,
    batch_size: int,
    epochs: float,
    epsilon: float,
    delta: float,
    *,
    method: str = "pld",
    conversion: str = "balle",
) -> DPSGDPlan:
    """Plan DP-SGD for a target (ε, δ): ``q = B/n``, ``T = ⌈E n / B⌉``, the noise multiplier, and every accountant's ε.

    The noise multiplier is the smallest that meets (ε, δ) under ``method``
    (:func:`dpsgd_noise_multiplier`); the plan then reports the ε that RDP
    (Balle et al. 2020 conversion), RDP (Mironov 2017 conversion) and PLD
    give at that σ, so the saving of a tighter accountant shows as a smaller
    ε for the same run.

    Parameters
    ----------
    dataset_size : int
        n, in [1, inf).
    batch_size : int
        Expected batch size B under Poisson sampling, in [1, n].
    epochs : float
        E, in (0, inf): the number of passes over the data (need not be whole).
    epsilon : float
        Target ε, in (0, inf).
    delta : float
        Target δ, in (0, 1); usually below 1/n.
    method : {"pld", "rdp"}, default "pld"
        The accountant that calibrates σ.
    conversion : {"balle", "mironov"}, default "balle"
        The RDP conversion when ``method="rdp"``.

    Examples
    --------
    >>> plan = plan_dpsgd(60_000, 256, 60, 1.0, 1e-5, method="rdp")
    >>> plan.sampling_rate == 256 / 60_000, plan.steps, round(plan.noise_multiplier, 3)
    (True, 14063, 2.178)
    """
    n = check_int(dataset_size, "dataset_size", minimum=1)
    b = check_int(batch_size, "batch_size", minimum=1, maximum=n)
    epochs = check_positive(epochs, "epochs")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    method = check_choice(method, "method", DPSGD_METHODS)
    conversion = check_choice(conversion, "conversion", CONVERSIONS)
    q = b / n
    # T = ⌈E n / B⌉ in exact arithmetic (E as the decimal the user typed), so that 3 epochs of 100/50 are 6 steps
    steps = max(1, math.ceil(Fraction(repr(epochs)) * n / b))
    steps = check_int(steps, "steps", minimum=1, maximum=MAX_COMPOSITIONS)
    sigma, calibrated = _calibration(epsilon, delta, q, steps, method, conversion, DEFAULT_ORDERS)
    # every accountant's ε at σ, as dpsgd_epsilon gives it: one RDP curve for both conversions, and the
    # calibration's own ε reused (the PLD's, or the RDP's under its conversion)
    rdp = steps * _subsampled_gaussian_rdp(sigma, q, DEFAULT_ORDERS)
    balle, mironov = (rdp_to_dp(DEFAULT_ORDERS, rdp, delta, c, warn=False)[0] for c in CONVERSIONS)
    pld = calibrated if method == "pld" else dpsgd_epsilon(sigma, q, steps, delta, "pld")
    return DPSGDPlan(n, b, epochs, epsilon, delta, method, q, steps, sigma, balle, mironov, pld)
