"""Privacy-cost curves over the number of releases k, for the explorer's plots.

:func:`epsilon_curve` puts every accounting side by side for one mechanism;
:func:`vectorised_vs_sequential` contrasts one k-dimensional release with k
separate ones; :func:`plan_noise` goes the other way, from a total budget to
the noise of each release; :func:`plan_epsilon` starts from the accuracy each
answer needs and gives the total ε under every accounting.

How one release enters each method
----------------------------------
========  ===============================  ==============================================
method    Laplace (ε₀ = Δ/b), GRR (ε)       Gaussian (σ, Δ)
========  ===============================  ==============================================
basic     ``k ε₀``, δ = 0                    ``k ε₀(δ/k)``: each release charged δ₀ = δ/k
                                             and its exact ε at δ₀ (Balle & Wang 2018)
advanced  DRV with δ' = δ                    DRV with δ' = δ/2 and δ₀ = δ/(2k) per release
rdp       Mironov Prop. 6 / RR curve        ``α Δ²/(2σ²)`` (Mironov Prop. 7)
zcdp      ``ρ = ε₀²/2`` (B-S Prop. 1.4)      ``ρ = Δ²/(2σ²)`` (B-S Prop. 1.6)
exact     —                                  μ-GDP, ``μ = sqrt(k) Δ/σ`` (Dong, Roth, Su 2019)
pld       PLD, FFT composition              PLD, FFT composition
========  ===============================  ==============================================

In every row the total δ is the δ asked for. The δ split for the Gaussian
under basic and advanced composition is a choice (any split is valid); the
one above spends all of δ on the releases for basic composition and half on
the releases, half on the slack δ' for advanced composition. How each kind of
release enters each method is decided in :mod:`dpcore.accounting.per_release`.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorems 3.6 (Laplace), 3.16 (basic composition) and 3.20 (advanced composition). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Dwork, Rothblum & Vadhan (2010), "Boosting and Differential Privacy", FOCS, Theorem III.3.
  https://doi.org/10.1109/FOCS.2010.12
- Mironov (2017), "Rényi Differential Privacy", CSF, Propositions 6 and 7. https://arxiv.org/abs/1702.07476
- Bun & Steinke (2016), "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds", TCC, Propositions 1.4 and 1.6. https://arxiv.org/abs/1605.02065
- Dong, Roth & Su (2019), "Gaussian Differential Privacy", J. R. Stat. Soc. B 84(1) 2022,
  Corollaries 2.13 and 3.3. https://arxiv.org/abs/1905.02383
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising", ICML, Theorem 8. https://arxiv.org/abs/1805.06530
"""

from __future__ import annotations

import math
import warnings
from types import MappingProxyType
from typing import NamedTuple

import numpy as np
import pandas as pd

from dpcore import families
from dpcore._roots import root_on_log
from dpcore.accounting._numerics import as_ks, as_orders
from dpcore.accounting.composition import advanced_composition_curve
from dpcore.accounting.gaussian_exact import gaussian_sigma_for_epsilon
from dpcore.accounting.per_release import (
    METHODS,
    accountable,
    accounting_for,
    release_epsilon,
    release_rdp,
    release_rho,
)
from dpcore.accounting.pld import TAIL_MASS_TRUNCATION, pld_epsilon
from dpcore.accounting.rdp import CONVERSIONS, DEFAULT_ORDERS, OrderGridEdgeWarning, laplace_rdp, rdp_to_dp
from dpcore.accounting.zcdp import ZCDP_CONVERSIONS, zcdp_rho_for_epsilon, zcdp_to_dp
from dpcore.gaussian import Gaussian
from dpcore.gdp import gdp_epsilon
from dpcore.laplace import Laplace
from dpcore.limits import MAX_COMPOSITIONS, MAX_PLAN_NOISE, MIN_PLAN_NOISE
from dpcore.validation import check_choice, check_delta, check_epsilon, check_int, check_positive, check_probability

__all__ = ["METHODS", "methods_for", "epsilon_curve", "vectorised_vs_sequential", "plan_noise", "plan_epsilon"]

# METHODS (every accounting method name, in the order the explorer shows them) is defined in per_release


def methods_for(mechanism) -> tuple[str, ...]:
    """The methods that apply to ``mechanism``: all but ``"exact"`` for Laplace, GRR and every pure ε-DP release."""
    return accounting_for(accountable(mechanism)).methods


def _check_methods(methods, mechanism) -> tuple[str, ...]:
    if methods is None:
        # the tight method of each family: exact for the Gaussian, PLD for the others
        return accounting_for(mechanism).default_methods
    if isinstance(methods, str):
        methods = (methods,)
    valid = methods_for(mechanism)
    checked = tuple(check_choice(m, "methods", valid) for m in methods)
    if not checked:
        raise ValueError(f"methods must name at least one of {', '.join(map(repr, valid))}, got none")
    return checked


class _CurveOptions(NamedTuple):
    orders: np.ndarray
    conversion: str
    zcdp_conversion: str
    pld: dict


def _basic(mechanism, ks, kf, delta, o, notes):
    pure = accounting_for(mechanism).pure_epsilon(mechanism)
    if pure is None:  # each release charged δ/k and its ε at that δ
        return kf * release_epsilon(mechanism, delta / kf)
    return kf * pure


def _advanced(mechanism, ks, kf, delta, o, notes):
    pure = accounting_for(mechanism).pure_epsilon(mechanism)
    if pure is None:  # δ/2 to the releases (δ/(2k) each), δ/2 to the slack δ'
        eps0 = release_epsilon(mechanism, delta / (2.0 * kf))
        return advanced_composition_curve(eps0, ks, delta / 2.0)
    return advanced_composition_curve(pure, ks, delta)


def _rdp(mechanism, ks, kf, delta, o, notes):
    rdp = kf[:, None] * release_rdp(mechanism, o.orders)[None, :]
    eps, best = rdp_to_dp(o.orders, rdp, delta, o.conversion, warn=False)
    edge = (best == o.orders.min()) | (best == o.orders.max())
    if np.any(edge):
        notes.append(
            f"rdp: the optimal order is on the edge of the order grid for {int(edge.sum())} of {ks.size} "
            f"values of k (k = {int(ks[edge].min())} to {int(ks[edge].max())}); those epsilons are valid "
            "but a wider grid might lower them"
        )
    return eps


def _zcdp(mechanism, ks, kf, delta, o, notes):
    rho = kf * release_rho(mechanism)
    return np.asarray(zcdp_to_dp(rho, delta, o.zcdp_conversion), dtype=np.float64).reshape(-1)


def _exact(mechanism, ks, kf, delta, o, notes):
    # k releases of a μ-GDP mechanism are sqrt(k) μ-GDP (Dong, Roth, Su 2019, Cor. 3.3)
    mu = np.sqrt(kf) * accounting_for(mechanism).gdp_mu(mechanism)
    return gdp_epsilon(mu, delta)


def _pld(mechanism, ks, kf, delta, o, notes):
    # one shared FFT for the distinct k
    unique, inverse = np.unique(ks, return_inverse=True)
    return np.asarray(pld_epsilon(mechanism, unique, delta, **o.pld), dtype=np.float64).reshape(-1)[inverse]


#: ε of k releases under each method (every name of :data:`METHODS`, each a function; no fall-through).
_CURVES = MappingProxyType(
    {"basic": _basic, "advanced": _advanced, "rdp": _rdp, "zcdp": _zcdp, "exact": _exact, "pld": _pld}
)


def _curve(mechanism, method: str, ks: np.ndarray, delta: float, options: _CurveOptions, notes):
    """ε for each k in ``ks`` under one method (checked, among :data:`METHODS`); ``ks`` checked."""
    return _CURVES[check_choice(method, "method", tuple(_CURVES))](
        mechanism, ks, ks.astype(np.float64), delta, options, notes
    )


def epsilon_curve(
    mechanism,
    ks,
    delta: float,
    methods=None,
    *,
    orders=DEFAULT_ORDERS,
    conversion: str = "balle",
    zcdp_conversion: str = "cks",
    value_discretization_interval: float | None = None,
    tail_mass_truncation: float = TAIL_MASS_TRUNCATION,
) -> pd.DataFrame:
    """ε after k releases of ``mechanism``, at δ, under several accountings: a tidy table.

    The closed-form methods are vectorised over k (no loop of root solves);
    ``"exact"`` solves the GDP equation for all k at once; ``"pld"`` shares one
    forward FFT and costs one inverse FFT per distinct k (keep to tens of k).
    How each mechanism enters each method is in the module notes.

    Parameters
    ----------
    mechanism : Laplace, Gaussian, GRR, SUE, OUE, LDPMean or PureDP
        One release; any other ε-DP release is a :class:`~dpcore.accounting.events.PureDP`
        (accounted as binary randomized response at its ε).
    ks : int or array_like of int
        Numbers of releases, each in [1, inf).
    delta : float
        Total δ, in (0, 1).
    methods : str or sequence of str, optional
        Among "basic", "advanced", "rdp", "zcdp", "pld", and "exact" for a
        Gaussian. Default: basic, advanced, rdp, zcdp and the tight one
        (exact for the Gaussian, pld otherwise).
    orders : array_like of float, default DEFAULT_ORDERS
        RDP orders, each in (1, inf).
    conversion : {"balle", "mironov"}, default "balle"
        RDP to (ε, δ) conversion (:func:`~dpcore.accounting.rdp.rdp_to_dp`).
    zcdp_conversion : {"cks", "bun-steinke"}, default "cks"
        zCDP to (ε, δ) conversion (:func:`~dpcore.accounting.zcdp.zcdp_to_dp`).
    value_discretization_interval, tail_mass_truncation
        PLD options (:func:`~dpcore.accounting.pld.pld_epsilon`).

    Returns
    -------
    pandas.DataFrame
        Columns ``k`` (int), ``method`` (str), ``epsilon`` (float), one row per
        method and k, methods in the order given. ``df.attrs["notes"]`` lists
        caveats (an RDP optimum on the edge of the order grid, which also
        issues one :class:`~dpcore.accounting.rdp.OrderGridEdgeWarning`).

    Examples
    --------
    >>> from dpcore.gaussian import Gaussian
    >>> df = epsilon_curve(Gaussian(sigma=5.0), [10], 1e-5, methods=["exact", "rdp"])
    >>> df.round(4).to_dict("records")
    [{'k': 10, 'method': 'exact', 'epsilon': 2.5944}, {'k': 10, 'method': 'rdp', 'epsilon': 2.8137}]
    """
    mechanism = accountable(mechanism)
    methods = _check_methods(methods, mechanism)
    ks = as_ks(ks, "ks")
    delta = check_delta(delta)
    orders = as_orders(orders)
    conversion = check_choice(conversion, "conversion", CONVERSIONS)
    zcdp_conversion = check_choice(zcdp_conversion, "zcdp_conversion", ZCDP_CONVERSIONS)
    pld_options = {
        "value_discretization_interval": value_discretization_interval,
        "tail_mass_truncation": tail_mass_truncation,
    }
    options = _CurveOptions(orders, conversion, zcdp_conversion, pld_options)
    notes: list[str] = []
    frames = []
    for method in methods:
        eps = _curve(mechanism, method, ks, delta, options, notes)
        frames.append(pd.DataFrame({"k": ks, "method": method, "epsilon": np.asarray(eps, dtype=np.float64)}))
    df = pd.concat(frames, ignore_index=True)
    df.attrs["notes"] = notes
    for note in notes:
        warnings.warn(note, OrderGridEdgeWarning, stacklevel=2)
    return df


def vectorised_vs_sequential(mechanism, ks, delta: float, methods=None, **curve_options) -> pd.DataFrame:
    """One k-dimensional release against k separate releases, same noise per coordinate.

    Each of k queries has sensitivity Δ (the mechanism's) and one person can
    move all of them.

    * **Vectorised**: answer the k-vector at once. Laplace: its L1 sensitivity
      is ``kΔ``, so it is pure ``ε = kΔ/b`` (Dwork & Roth 2014, Thm 3.6).
      Gaussian: its L2 sensitivity is ``sqrt(k) Δ``, so it is exactly
      ``μ = sqrt(k) Δ/σ``-GDP, and ε is :func:`gaussian_epsilon` of one
      release with that sensitivity.
    * **Sequential**: k separate releases, accounted by composition
      (:func:`epsilon_curve`).

    The lesson: for the Gaussian, exact composition of k releases costs
    exactly what the vectorised release costs (sqrt(k) either way), and only
    loose accounting makes separate releases look dearer; for Laplace, the
    vectorised pure ε grows like k, while advanced, RDP or PLD accounting of
    the separate releases grows like sqrt(k) once δ > 0 is allowed.

    Parameters
    ----------
    mechanism : Laplace or Gaussian
        The noise on each coordinate.
    ks : int or array_like of int
        Dimensions k, each in [1, inf).
    delta : float
        δ, in (0, 1) (unused by the vectorised Laplace, which is pure).
    methods : sequence of str, optional
        Methods for the sequential releases, as in :func:`epsilon_curve`.
    **curve_options
        Passed to :func:`epsilon_curve`.

    Returns
    -------
    pandas.DataFrame
        Columns ``k``, ``approach`` ("vectorised" or "sequential"), ``method``
        (for vectorised: "L1 sensitivity" or "L2 sensitivity"), ``epsilon``.
    """
    if not isinstance(mechanism, (Laplace, Gaussian)):
        accountable(mechanism)  # TypeError for objects no accountant knows
        article = "an" if type(mechanism).__name__[0] in "AEIOU" else "a"
        raise ValueError(
            f"mechanism must be a Laplace or a Gaussian for this comparison, got {article} {type(mechanism).__name__}"
        )
    ks = as_ks(ks, "ks")
    delta = check_delta(delta)
    kf = ks.astype(np.float64)
    if isinstance(mechanism, Laplace):
        vec = pd.DataFrame(
            {"k": ks, "approach": "vectorised", "method": "L1 sensitivity", "epsilon": kf * mechanism.epsilon}
        )
    else:
        mu = np.sqrt(kf) * mechanism.mu  # one release, L2 sensitivity sqrt(k) Δ
        vec = pd.DataFrame(
            {
                "k": ks,
                "approach": "vectorised",
                "method": "L2 sensitivity",
                "epsilon": gdp_epsilon(mu, delta),
            }
        )
    seq = epsilon_curve(mechanism, ks, delta, methods, **curve_options)
    seq.insert(1, "approach", "sequential")
    out = pd.concat([vec, seq], ignore_index=True)
    out.attrs["notes"] = seq.attrs.get("notes", [])
    return out


# ---------------------------------------------------------------- planning


_UNREACHABLE = "no noise level reaches this epsilon under this accounting; ask for a larger epsilon or delta"


def _root_on_log(f, x0: float, rtol: float) -> float:
    """Root of an increasing ``f`` of the noise parameter (see :func:`dpcore._roots.root_on_log`)."""
    return root_on_log(f, x0, rtol=rtol, unreachable=_UNREACHABLE)


class _Target(NamedTuple):
    """A checked total budget for k releases, and the accounting's options."""

    epsilon: float
    delta: float
    k: int
    sensitivity: float
    orders: np.ndarray
    conversion: str
    zcdp_conversion: str


def _laplace_advanced(t: _Target) -> float:
    # sqrt(2k ln(1/δ)) ε₀ + k ε₀ (e^{ε₀} − 1) = ε, increasing in ε₀
    return _root_on_log(
        lambda e0: float(advanced_composition_curve(e0, t.k, t.delta)[0]) - t.epsilon, t.epsilon / t.k, 1e-13
    )


def _laplace_rdp(t: _Target) -> float:
    # laplace_rdp at scale 1 and sensitivity ε₀ is the curve of ε₀ = Δ/b
    return _root_on_log(
        lambda e0: (
            rdp_to_dp(t.orders, t.k * laplace_rdp(1.0, t.orders, e0), t.delta, t.conversion, warn=False)[0] - t.epsilon
        ),
        t.epsilon / t.k,
        1e-13,
    )


def _laplace_pld(t: _Target) -> float:
    # ε of the curve increases with ε₀ = Δ/b
    return _root_on_log(lambda e0: pld_epsilon(Laplace(1.0 / e0), t.k, t.delta) - t.epsilon, t.epsilon / t.k, 1e-6)


#: ε₀ = Δ/b of each of k Laplace releases that fit a total (ε, δ), under each method (no fall-through).
_LAPLACE_PLANS = MappingProxyType(
    {
        "basic": lambda t: t.epsilon / t.k,
        "advanced": _laplace_advanced,
        "rdp": _laplace_rdp,
        "zcdp": lambda t: math.sqrt(2.0 * zcdp_rho_for_epsilon(t.epsilon, t.delta, t.zcdp_conversion) / t.k),
        "pld": _laplace_pld,
    }
)


def _gaussian_advanced(t: _Target) -> float:
    eps0 = _root_on_log(
        lambda e0: float(advanced_composition_curve(e0, t.k, t.delta / 2)[0]) - t.epsilon, t.epsilon / t.k, 1e-13
    )
    return gaussian_sigma_for_epsilon(eps0, 1, t.delta / (2 * t.k), t.sensitivity)


def _gaussian_rdp(t: _Target) -> float:
    # k releases have r(α) = α c with c = k Δ²/(2σ²)
    c = _root_on_log(
        lambda c: rdp_to_dp(t.orders, t.orders * c, t.delta, t.conversion, warn=False)[0] - t.epsilon,
        t.epsilon / 10,
        1e-13,
    )
    return t.sensitivity * math.sqrt(t.k / (2.0 * c))


def _gaussian_pld(t: _Target) -> float:
    mu = _root_on_log(
        lambda m: pld_epsilon(Gaussian(1.0 / m), t.k, t.delta) - t.epsilon, math.sqrt(t.epsilon / t.k), 1e-6
    )
    return t.sensitivity / mu


#: σ of each of k Gaussian releases that fit a total (ε, δ), under each method (no fall-through).
_GAUSSIAN_PLANS = MappingProxyType(
    {
        "basic": lambda t: gaussian_sigma_for_epsilon(t.epsilon / t.k, 1, t.delta / t.k, t.sensitivity),
        "advanced": _gaussian_advanced,
        "rdp": _gaussian_rdp,
        "zcdp": lambda t: (
            t.sensitivity * math.sqrt(t.k / (2.0 * zcdp_rho_for_epsilon(t.epsilon, t.delta, t.zcdp_conversion)))
        ),
        "exact": lambda t: gaussian_sigma_for_epsilon(t.epsilon, t.k, t.delta, t.sensitivity),
        "pld": _gaussian_pld,
    }
)


class _Planner(NamedTuple):
    """How the planner calibrates one family: its plans per method, and its noise from what a plan returns."""

    plans: MappingProxyType  # method -> target -> ε₀ of one Laplace release, or σ of one Gaussian release
    noise: object  # (what a plan returns, sensitivity) -> the mechanism of one release
    for_accuracy: object  # (accuracy, confidence, sensitivity) -> (the noise, its parameter)


#: The families the planner calibrates (dpcore.families), each with its plans: one table, no fall-through.
_PLANNERS = {
    families.family("laplace"): _Planner(
        _LAPLACE_PLANS,
        lambda eps0, sens: Laplace(scale=sens / eps0, sensitivity=sens),
        lambda a, c, sens: (lambda n: (n, n.scale))(Laplace(scale=Laplace.scale_for_accuracy(a, c), sensitivity=sens)),
    ),
    families.family("gaussian"): _Planner(
        _GAUSSIAN_PLANS,
        lambda sigma, sens: Gaussian(sigma=sigma, sensitivity=sens),
        lambda a, c, sens: (lambda n: (n, n.sigma))(
            Gaussian(sigma=Gaussian.sigma_for_accuracy(a, c), sensitivity=sens)
        ),
    ),
}
PLAN_METHODS = {f.key: tuple(planner.plans) for f, planner in _PLANNERS.items()}


def plan_noise(
    mechanism: str,
    epsilon: float,
    delta: float,
    k: int,
    method: str = "rdp",
    sensitivity: float = 1.0,
    *,
    orders=DEFAULT_ORDERS,
    conversion: str = "balle",
    zcdp_conversion: str = "cks",
):
    """The noise per release that makes k releases fit a total (ε, δ) budget under an accounting.

    The inverse of :func:`epsilon_curve` at one k: the smallest noise whose
    curve reaches at most ε at k. Closed forms where they exist (basic
    Laplace ``b = kΔ/ε``; zCDP ``ρ_total`` from
    :func:`~dpcore.accounting.zcdp.zcdp_rho_for_epsilon`, then ``b = Δ/sqrt(2ρ/k)`` or
    ``σ = Δ sqrt(k/(2ρ))``; exact Gaussian by
    :func:`~dpcore.accounting.gaussian_exact.gaussian_sigma_for_epsilon`), a bracketed
    ``brentq`` otherwise. ``"pld"`` runs one PLD per step of the root
    search (about a second); the others take milliseconds.

    Parameters
    ----------
    mechanism : {"laplace", "gaussian"}
        The noise family.
    epsilon : float
        Total ε, in (0, inf).
    delta : float
        Total δ, in (0, 1) (ignored by basic composition of Laplace releases).
    k : int
        Number of releases, in [1, inf).
    method : str, default "rdp"
        Laplace: basic, advanced, rdp, zcdp, pld. Gaussian: those and exact.
    sensitivity : float, default 1.0
        Sensitivity Δ of each release (L1 for Laplace, L2 for Gaussian), in (0, inf).
    orders, conversion, zcdp_conversion
        As in :func:`epsilon_curve`.

    Returns
    -------
    Laplace or Gaussian
        The mechanism for one release.

    Examples
    --------
    >>> plan_noise("laplace", 1.0, 1e-5, 10, method="basic").scale
    10.0
    """
    family = check_choice(mechanism, "mechanism", tuple(PLAN_METHODS))
    method = check_choice(method, "method", PLAN_METHODS[family])
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = check_int(k, "k", minimum=1, maximum=MAX_COMPOSITIONS)
    sensitivity = check_positive(sensitivity, "sensitivity")
    orders = as_orders(orders)
    conversion = check_choice(conversion, "conversion", CONVERSIONS)
    zcdp_conversion = check_choice(zcdp_conversion, "zcdp_conversion", ZCDP_CONVERSIONS)
    if method == "rdp":
        # even a zero RDP curve converts to ε > 0: the conversion's own term, min over the grid of
        # ln((α−1)/α) − (ln δ + ln α)/(α−1) (Balle) or ln(1/δ)/(α−1) (Mironov); no noise gets below it
        floor = rdp_to_dp(orders, np.zeros_like(orders), delta, conversion, warn=False)[0]
        if epsilon <= floor:
            raise ValueError(
                f"epsilon must be above {floor:.4g} for rdp accounting at delta={delta:g} with orders up to "
                f"{orders.max():g} (the conversion's own cost), got {epsilon}"
            )
    target = _Target(epsilon, delta, k, sensitivity, orders, conversion, zcdp_conversion)
    planner = _PLANNERS[families.family(family)]
    return planner.noise(planner.plans[method](target), sensitivity)


def _three_digits(x: float, up: bool) -> float:
    """``x`` rounded to three significant digits, up or down: a range stated inside itself (its ends are accepted)."""
    step = 10.0 ** (math.floor(math.log10(x)) - 2) if math.isfinite(x) and x > 0 else 0.0
    if not 0 < step < math.inf:
        return x
    mantissa = round(x / step, 9)  # 299.99999999 is 300, not 299
    rounded = (math.ceil(mantissa) if up else math.floor(mantissa)) * step
    return rounded if math.isfinite(rounded) and rounded > 0 else x


def plan_epsilon(
    mechanism: str,
    accuracy: float,
    k: int,
    delta: float,
    *,
    confidence: float = 0.95,
    sensitivity: float = 1.0,
    methods=None,
    orders=DEFAULT_ORDERS,
    conversion: str = "balle",
    zcdp_conversion: str = "cks",
) -> pd.DataFrame:
    """The smallest total ε of k releases whose every answer is within ``±accuracy`` at ``confidence``, per accounting.

    The inverse of :func:`plan_noise`. The accuracy fixes the largest noise
    per answer: the Laplace scale ``b = accuracy / ln(1/(1 − confidence))``
    (:meth:`~dpcore.laplace.Laplace.scale_for_accuracy`) or the Gaussian
    ``σ = accuracy / Φ⁻¹((1 + confidence)/2)``
    (:meth:`~dpcore.gaussian.Gaussian.sigma_for_accuracy`); less noise would
    only cost more. The total ε of k such releases at δ under each accounting
    is then :func:`epsilon_curve` at k, so
    ``plan_noise(mechanism, ε, δ, k, method)`` gives back that noise.

    Parameters
    ----------
    mechanism : {"laplace", "gaussian"}
        The noise family.
    accuracy : float
        Largest error accepted on each answer, in (0, inf); refused where one answer's noise would be below
        MIN_PLAN_NOISE or above MAX_PLAN_NOISE times the sensitivity (:mod:`dpcore.limits`).
    k : int
        Number of releases, in [1, inf).
    delta : float
        Total δ, in (0, 1) (unused by basic composition of Laplace releases, which is pure).
    confidence : float, default 0.95
        Probability in (0, 1) that an answer is within ``accuracy``.
    sensitivity : float, default 1.0
        Sensitivity Δ of each release (L1 for Laplace, L2 for Gaussian), in (0, inf).
    methods : str or sequence of str, optional
        As in :func:`epsilon_curve` (default: basic, advanced, rdp, zcdp and the tight one).
    orders, conversion, zcdp_conversion
        As in :func:`epsilon_curve`.

    Returns
    -------
    pandas.DataFrame
        Columns ``method`` (str), ``epsilon`` (the total ε, float) and
        ``noise`` (the scale b or σ of each answer, the same on every row),
        methods in the order given; ``df.attrs["mechanism"]`` is the
        :class:`~dpcore.laplace.Laplace` or :class:`~dpcore.gaussian.Gaussian`
        of one release and ``df.attrs["notes"]`` the caveats of :func:`epsilon_curve`.

    Examples
    --------
    >>> df = plan_epsilon("laplace", 3.0, 10, 1e-5, methods="basic")
    >>> round(float(df.epsilon[0]), 6)  # k Δ / b with b = 3 / ln 20
    9.985774
    """
    family = check_choice(mechanism, "mechanism", tuple(PLAN_METHODS))
    k = check_int(k, "k", minimum=1, maximum=MAX_COMPOSITIONS)
    sensitivity = check_positive(sensitivity, "sensitivity")
    confidence = check_probability(confidence, "confidence")
    accuracy = check_positive(accuracy, "accuracy")
    planner = _PLANNERS[families.family(family)]
    # The noise is proportional to the accuracy: its parameter per unit of accuracy (1/ln 20 for Laplace, 1/1.96
    # for the Gaussian at 95%) gives the range of accuracies without computing a noise from the accuracy given,
    # which underflows to a subnormal or to 0 for accuracies like 1e-320 and would garble the range it states.
    per_unit = planner.for_accuracy(1.0, confidence, 1.0)[1]
    low, high = MIN_PLAN_NOISE * sensitivity / per_unit, MAX_PLAN_NOISE * sensitivity / per_unit
    ratio = (accuracy / sensitivity) * per_unit  # the noise over the sensitivity; 0 or inf where it leaves floats
    if not MIN_PLAN_NOISE * (1 - 1e-12) <= ratio <= MAX_PLAN_NOISE * (1 + 1e-12):
        raise ValueError(
            f"accuracy must be in [{_three_digits(low, up=True):.3g}, {_three_digits(high, up=False):.3g}], "
            f"got {accuracy:.3g}"
        )
    noise, parameter = planner.for_accuracy(accuracy, confidence, sensitivity)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", OrderGridEdgeWarning)
        curve = epsilon_curve(
            noise, [k], delta, methods, orders=orders, conversion=conversion, zcdp_conversion=zcdp_conversion
        )
    for warning in caught:
        warnings.warn(warning.message, warning.category, stacklevel=2)
    out = pd.DataFrame({"method": curve["method"], "epsilon": curve["epsilon"], "noise": parameter})
    out.attrs["mechanism"] = noise
    out.attrs["notes"] = curve.attrs.get("notes", [])
    return out
