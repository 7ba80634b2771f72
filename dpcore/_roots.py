"""The one bracketed root solver of dpcore (private): step on a log scale until the sign changes, then brentq.

Calibrations and their inverses (σ for a target ε, ε for a given σ, ρ for a
target ε, the noise of a plan) all solve a monotone equation in a positive
quantity whose scale is unknown beforehand. Working on ``ln x`` makes the
bracket search scale-free and an absolute tolerance there a relative one on
``x``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

__all__ = ["root_on_log"]

#: Doublings (or halvings) :func:`root_on_log` tries before giving up: a factor 2**200 ≈ 1e60 either way.
MAX_BRACKET_STEPS = 200


def root_on_log(
    f,
    x0: float,
    *,
    increasing: bool = True,
    rtol: float = 1e-13,
    unreachable: str = "no value solves the equation within 2**±200 of the starting point",
) -> float:
    """Root of a monotone ``f`` of ``x > 0``: step by factors of 2 from ``x0`` to a sign change, then ``brentq`` on ``ln x``.

    Each step evaluates ``f`` once (it may cost a PLD composition), and the
    bracket found is one doubling wide, so ``brentq`` converges in a few steps.

    Parameters
    ----------
    f : callable
        ``f(x) -> float``, monotone in ``x``, with one sign change on (0, inf).
    x0 : float
        Starting point, in (0, inf); a good guess (a closed-form bound) saves steps.
    increasing : bool, default True
        Whether ``f`` increases in ``x``.
    rtol : float, default 1e-13
        Tolerance on ``ln x``, that is a relative tolerance on the root.
    unreachable : str
        The message of the ``ValueError`` raised when no sign change is found
        within ``2**±200`` of ``x0`` (a target that cannot be reached).

    Examples
    --------
    >>> round(root_on_log(lambda x: x * x - 2.0, 1.0), 12)
    1.414213562373
    """
    step = math.log(2.0)

    def g(t: float) -> float:
        value = f(math.exp(t))
        return value if increasing else -value

    t = math.log(x0)
    gt = g(t)
    if gt == 0.0:
        return x0
    direction = step if gt < 0 else -step  # towards the sign change
    for _ in range(MAX_BRACKET_STEPS):
        t_next = t + direction
        g_next = g(t_next)
        if (g_next < 0) != (gt < 0) or g_next == 0.0:
            lo, hi = sorted((t, t_next))
            return math.exp(brentq(g, lo, hi, xtol=rtol, rtol=4 * np.finfo(float).eps))
        t, gt = t_next, g_next
    raise ValueError(unreachable)
