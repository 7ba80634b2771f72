"""What one release of each mechanism costs, under each accounting (private dispatch).

The curves, the PLD accountant and the ledger take mechanism objects from
:mod:`dpcore` (:class:`~dpcore.laplace.Laplace`, :class:`~dpcore.gaussian.Gaussian`,
:class:`~dpcore.randomized_response.GRR`); this module is the one place that
knows, for each, its pure ε, its RDP curve, its zCDP ρ and its per-release
(ε, δ). The mechanism classes are imported lazily, when a mechanism is used.

Neighbouring relations: Laplace and Gaussian are as the sensitivity says
(L1 and L2 sensitivity over whichever relation it was computed for); GRR is
replace-one (one user's value changes), its only meaningful relation in the
local model.
"""

from __future__ import annotations

import numpy as np

from dpcore.accounting.gaussian_exact import _gdp_epsilon
from dpcore.accounting.rdp import _laplace_rdp_eps, _rr_rdp_eps

__all__ = ["KINDS", "accountable", "mechanism_kind", "pure_epsilon", "release_rdp", "release_rho", "release_epsilon"]

KINDS = ("laplace", "gaussian", "grr")


def accountable(mechanism):
    """The mechanism the accountants compute with: itself, or the binary RR that dominates it.

    Laplace, Gaussian and GRR are accounted exactly as they are. Any other
    pure ε-DP mechanism of dpcore (SUE, OUE, LDPMean; each ε-LDP under
    replace-one) is accounted as binary randomized response at the same ε,
    ``GRR(ε, 2)``: every ε-DP mechanism is dominated by it in the
    hypothesis-testing sense (Kairouz, Oh, Viswanath 2015, "The Composition
    Theorem for Differential Privacy", Theorem 2.1 / Corollary 2.3), so by
    data processing its Rényi divergences, privacy loss distribution and
    compositions bound theirs. (The k-ary GRR formulas are tighter than that
    and would be wrong for the unary encodings.)
    """
    from dpcore.ldp_mean import LDPMean
    from dpcore.randomized_response import GRR
    from dpcore.unary_encoding import UnaryEncoding

    if isinstance(mechanism, (UnaryEncoding, LDPMean)):
        return GRR(mechanism.epsilon, 2)
    mechanism_kind(mechanism)
    return mechanism


def mechanism_kind(mechanism) -> str:
    """``"laplace"``, ``"gaussian"`` or ``"grr"``; ``TypeError`` for anything else."""
    from dpcore.gaussian import Gaussian
    from dpcore.laplace import Laplace
    from dpcore.randomized_response import GRR

    if isinstance(mechanism, Laplace):
        return "laplace"
    if isinstance(mechanism, Gaussian):
        return "gaussian"
    if isinstance(mechanism, GRR):
        return "grr"
    raise TypeError(
        f"mechanism must be a dpcore Laplace, Gaussian, GRR, SUE, OUE or LDPMean, got {type(mechanism).__name__}"
    )


def pure_epsilon(mechanism) -> float | None:
    """The ε of the pure ε-DP guarantee of one release, or ``None`` (Gaussian: no pure guarantee).

    Laplace: ``ε₀ = Δ / b`` (Dwork & Roth 2014, Theorem 3.6). GRR: ``ε = ln(p/q)``
    (Wang et al. 2017, Section 4.1).
    """
    kind = mechanism_kind(mechanism)
    if kind == "laplace":
        return mechanism.sensitivity / mechanism.scale
    if kind == "grr":
        return mechanism.epsilon
    return None


def release_rdp(mechanism, orders: np.ndarray) -> np.ndarray:
    """RDP curve of one release at the (checked) ``orders``.

    Laplace: Mironov (2017) Prop. 6; Gaussian: ``α Δ² / (2σ²)``, Prop. 7; GRR:
    :func:`dpcore.accounting.rdp.randomized_response_rdp`.
    """
    kind = mechanism_kind(mechanism)
    if kind == "laplace":
        return _laplace_rdp_eps(pure_epsilon(mechanism), orders)
    if kind == "grr":
        return _rr_rdp_eps(mechanism.epsilon, mechanism.k, orders)
    return orders * mechanism.sensitivity**2 / (2.0 * mechanism.sigma**2)


def release_rho(mechanism) -> float:
    """zCDP ρ of one release.

    Gaussian: ``ρ = Δ² / (2σ²)`` (Bun & Steinke 2016, Proposition 1.6). Laplace
    and GRR: ``ρ = ε₀² / 2`` from their pure ε₀-DP (Bun & Steinke 2016,
    Proposition 1.4); not the smallest ρ these mechanisms satisfy (the tight
    conversion from pure DP is smaller, see Steinke's 2024 note "Tight RDP &
    zCDP Bounds from Pure DP" on differentialprivacy.org), but the textbook
    one, and the one that makes "zCDP" mean "pure DP seen as zCDP".
    """
    if mechanism_kind(mechanism) == "gaussian":
        return mechanism.sensitivity**2 / (2.0 * mechanism.sigma**2)
    return pure_epsilon(mechanism) ** 2 / 2.0


def release_epsilon(mechanism, release_delta) -> np.ndarray:
    """ε of one release at per-release δ (array, for basic/advanced composition).

    Laplace and GRR: their pure ε₀, whatever δ. Gaussian: the exact ε of one
    release at that δ (Balle & Wang 2018, Theorem 8), vectorised over δ.
    """
    release_delta = np.asarray(release_delta, dtype=np.float64)
    if mechanism_kind(mechanism) != "gaussian":
        return np.full(release_delta.shape, pure_epsilon(mechanism))
    mu = mechanism.sensitivity / mechanism.sigma
    return _gdp_epsilon(np.full(release_delta.shape, mu), np.log(release_delta))
