"""Basic and advanced composition of (ε, δ)-DP releases.

References
----------
- Dwork, Kenthapadi, McSherry, Mironov & Naor (2006), "Our Data, Ourselves: Privacy via Distributed
  Noise Generation", EUROCRYPT (basic composition of (ε, δ)-DP releases).
  https://doi.org/10.1007/11761679_29
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorem 3.16 (basic composition) and Theorem 3.20 (advanced composition). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Dwork, Rothblum & Vadhan (2010), "Boosting and Differential Privacy", FOCS, Theorem III.3.
  https://doi.org/10.1109/FOCS.2010.12
"""

from __future__ import annotations

import numpy as np

from dpcore.accounting._numerics import as_ks
from dpcore.limits import MAX_COMPOSITIONS
from dpcore.validation import (
    check_delta,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_nonnegative_array,
    check_probability,
)

__all__ = ["basic_composition", "advanced_composition", "advanced_composition_curve"]


def basic_composition(epsilons, deltas=None) -> tuple[float, float]:
    """Basic (sequential) composition: the ε's add up and the δ's add up.

    Releasing mechanisms that are (ε_i, δ_i)-DP on the same data is
    ``(Σ ε_i, Σ δ_i)``-DP (Dwork & Roth 2014, Theorem 3.16).

    Parameters
    ----------
    epsilons : float or sequence of float
        Each ε_i in [0, inf).
    deltas : float or sequence of float, optional
        Each δ_i in [0, 1); omitted means pure ε-DP releases (all δ_i = 0).
        Must have as many entries as ``epsilons``.

    Returns
    -------
    (epsilon, delta) : tuple of float
        ``delta`` is capped at 1 (a guarantee with δ ≥ 1 says nothing).
    """
    eps = [check_nonnegative(e, "epsilons") for e in np.atleast_1d(np.asarray(epsilons, dtype=object)).tolist()]
    if deltas is None:
        dels = [0.0] * len(eps)
    else:
        dels = [
            check_probability(d, "deltas", low_open=False)
            for d in np.atleast_1d(np.asarray(deltas, dtype=object)).tolist()
        ]
        if len(dels) != len(eps):
            raise ValueError(f"deltas must have one entry per epsilon ({len(eps)}), got {len(dels)}")
    if not eps:
        raise ValueError("epsilons must contain at least one value, got none")
    return float(np.sum(eps)), float(min(1.0, np.sum(dels)))


def advanced_composition(epsilon: float, delta: float, k: int, delta_slack: float) -> tuple[float, float]:
    """Advanced composition of ``k`` releases that are each (ε, δ)-DP.

    For every ``δ' > 0`` the k-fold composition is (ε', kδ + δ')-DP with
    ``ε' = sqrt(2 k ln(1/δ')) ε + k ε (e^ε − 1)``
    (Dwork, Rothblum, Vadhan 2010, Theorem III.3; Dwork & Roth 2014, Theorem 3.20).

    The bound is returned as the theorem states it: for few releases it can be
    larger than the basic ``k ε``, which is itself a valid bound; the explorer
    shows both so that the crossing point is visible.

    Parameters
    ----------
    epsilon : float
        Per-release ε, in (0, inf).
    delta : float
        Per-release δ, in [0, 1).
    k : int
        Number of releases, in [1, inf).
    delta_slack : float
        The δ' of the theorem, in (0, 1).

    Returns
    -------
    (epsilon, delta) : tuple of float
        ``(ε', k δ + δ')``; the δ is capped at 1.

    Examples
    --------
    >>> round(advanced_composition(0.1, 0.0, 100, 1e-5)[0], 3)
    5.85
    """
    epsilon = check_epsilon(epsilon)
    delta = check_probability(delta, "delta", low_open=False)
    k = check_int(k, "k", minimum=1, maximum=MAX_COMPOSITIONS)
    delta_slack = check_delta(delta_slack, "delta_slack")
    eps = float(advanced_composition_curve(epsilon, np.array([k]), delta_slack)[0])
    return eps, float(min(1.0, k * delta + delta_slack))


def advanced_composition_curve(epsilon, ks, delta_slack: float) -> np.ndarray:
    """``ε'(k)`` of :func:`advanced_composition` for many ``k`` (and per-release ε) at once.

    ``ε' = sqrt(2 k ln(1/δ')) ε + k ε expm1(ε)`` (Dwork, Rothblum, Vadhan 2010,
    Theorem III.3), broadcast over ``epsilon`` and ``ks``. ``inf`` for ε > 709.

    Parameters
    ----------
    epsilon : float or array_like
        Per-release ε, each in [0, inf) (a Gaussian release whose δ alone
        suffices has ε = 0); an array broadcasts against ``ks``.
    ks : int or array_like of int
        Numbers of releases, each in [1, inf).
    delta_slack : float
        The δ' of the theorem, in (0, 1).

    Returns
    -------
    numpy.ndarray
        ``ε'`` for each k.
    """
    epsilon = np.asarray(check_nonnegative_array(epsilon, "epsilon"), dtype=np.float64)
    ks = as_ks(ks, "k").astype(np.float64)
    log_inv = -np.log(check_delta(delta_slack, "delta_slack"))
    with np.errstate(over="ignore"):  # e^ε overflows for ε > 709: the bound is then +inf, as it should be
        return np.sqrt(2.0 * ks * log_inv) * epsilon + ks * epsilon * np.expm1(epsilon)
