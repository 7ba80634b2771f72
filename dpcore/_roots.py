"""The root solvers of dpcore (private): one for a single equation, one for many at once.

* :func:`root_on_log`, the one scalar solver: step on a log scale until the
  sign changes, then ``brentq``. Calibrations and their inverses (σ for a
  target ε, ρ for a target ε, the noise of a plan) all solve a monotone
  equation in a positive quantity whose scale is unknown beforehand. Working
  on ``ln x`` makes the bracket search scale-free and an absolute tolerance
  there a relative one on ``x``.
* :func:`solve_bracketed`, the vectorised solver: safeguarded Newton–bisection
  on whole arrays of equations whose brackets are known (ε of μ-GDP for every
  k at once, the optimal order of the zCDP conversion for every ρ).

References
----------
- Brent (1973), *Algorithms for Minimization without Derivatives*, Prentice-Hall, Chapter 4
  (the zero finder behind ``scipy.optimize.brentq``).
  https://docs.scipy.org/doc/scipy/reference/generated/scipy.optimize.brentq.html
- Press, Teukolsky, Vetterling & Flannery (2007), *Numerical Recipes*, 3rd ed., Cambridge
  University Press, Section 9.4 (``rtsafe``, Newton–Raphson safeguarded by bisection).
  http://numerical.recipes/
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

__all__ = ["root_on_log", "solve_bracketed"]

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


def solve_bracketed(
    fun, lo, hi, *, increasing: bool, x0=None, rtol: float = 1e-13, atol: float = 0.0, max_iter: int = 200
):
    """Solve ``fun(x) = 0`` elementwise inside brackets ``[lo, hi]``, all at once.

    Safeguarded Newton–bisection (Numerical Recipes' ``rtsafe``) on whole
    arrays: every element takes a Newton step when it stays inside its
    bracket and halves the bracket otherwise (and also every eighth step if
    the Newton step has not halved meanwhile, so that a creeping Newton
    sequence cannot stall), so it converges like Newton and never leaves ``[lo, hi]``.
    There is no Python loop over the elements.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, derivative)``, both arrays shaped like ``x``.
        ``value`` must change sign once on each bracket.
    lo, hi : array_like
        Brackets, ``lo <= hi`` elementwise, broadcast together.
    increasing : bool
        Whether ``fun`` increases (``True``) or decreases in ``x``.
    x0 : array_like, optional
        Starting points inside the brackets (default: the midpoints). Starting
        on the side where Newton's method converges monotonically (for
        example the right end for a concave decreasing ``fun``) saves steps.
    rtol, atol : float
        Stop when every bracket (or Newton step) is below ``atol + rtol * |x|``.
    max_iter : int
        Iteration cap; bisection alone reaches double precision in ~1100
        halvings of the widest float range, Newton in a handful.
    """
    lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64))
    lo, hi = lo.copy(), hi.copy()
    x = 0.5 * (lo + hi) if x0 is None else np.clip(np.broadcast_to(np.asarray(x0, dtype=np.float64), lo.shape), lo, hi)
    sign = 1.0 if increasing else -1.0
    finished = np.zeros(x.shape, dtype=bool)
    step_before = hi - lo
    for iteration in range(max_iter):
        value, slope = fun(x)
        value = sign * np.asarray(value, dtype=np.float64)
        slope = sign * np.asarray(slope, dtype=np.float64)
        # value > 0: the root is below x; value < 0: above; value == 0: found
        hi = np.where(value >= 0, x, hi)
        lo = np.where(value <= 0, x, lo)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            newton = x - value / slope
        inside = np.isfinite(newton) & (newton >= lo) & (newton <= hi)
        tol = atol + rtol * np.abs(x)
        # converged: the Newton step (or the bracket) is below the tolerance
        done = (inside & (np.abs(newton - x) <= tol)) | (hi - lo <= tol) | (value == 0)
        use_newton = inside & (newton > lo) & (newton < hi)
        if iteration % 8 == 7:
            # Newton creeping (steps that do not shrink, as for exp(-x) far from
            # its root): bisect where the step has not halved in eight iterations
            step = np.abs(newton - x)
            use_newton &= step <= 0.5 * step_before
            step_before = np.where(np.isfinite(step), step, hi - lo)
        step_to = np.where(done, np.where(inside, newton, x), np.where(use_newton, newton, 0.5 * (lo + hi)))
        x = np.where(finished, x, step_to)
        finished |= done
        if np.all(finished):
            break
    return x
