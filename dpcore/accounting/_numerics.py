"""Vectorised numerical helpers shared by the accountants (private).

Nothing here knows about privacy: a bracketed root finder that solves many
monotone equations at once, the ``log(1 - e^x)`` primitive, and the array
checks the public functions need on top of :mod:`dpcore.validation`.
"""

from __future__ import annotations

import numpy as np

from dpcore.validation import check_int

__all__ = ["log1mexp", "solve_bracketed", "as_ks", "as_orders"]


def log1mexp(x):
    """``log(1 - exp(x))`` for ``x <= 0``, accurate at both ends.

    Mächler (2012), "Accurately computing log(1 - exp(-|a|))": use
    ``log(-expm1(x))`` for ``x > -ln 2`` and ``log1p(-exp(x))`` below.
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.where(
            x > -np.log(2.0), np.log(-np.expm1(np.minimum(x, 0.0))), np.log1p(-np.exp(np.minimum(x, -np.log(2.0))))
        )


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


def as_ks(ks, name: str = "k") -> np.ndarray:
    """Return composition counts as a 1-D int64 array of integers in [1, inf).

    A scalar gives a one-element array. Uses :func:`dpcore.validation.check_int`
    on the first offending entry so that the message has the house form.
    """
    arr = np.asarray(ks)
    if arr.ndim == 0:
        return np.array([check_int(ks, name, minimum=1)], dtype=np.int64)
    arr = arr.reshape(-1)
    if arr.size == 0:
        raise ValueError(f"{name} must contain at least one integer in [1, inf), got none")
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        # let check_int name the offending value and its type
        return np.array([check_int(value, name, minimum=1) for value in arr.tolist()], dtype=np.int64)
    bad = ~np.isfinite(arr) | (arr != np.floor(arr)) | (arr < 1) if np.issubdtype(arr.dtype, np.floating) else arr < 1
    if np.any(bad):
        check_int(arr[np.argmax(bad)].item(), name, minimum=1)
    return arr.astype(np.int64)


def as_orders(orders) -> np.ndarray:
    """Return RDP orders as a 1-D float array of values in (1, inf)."""
    try:
        arr = np.asarray(orders, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"orders must be real numbers in (1, inf), got {orders!r}") from None
    if arr.size == 0:
        raise ValueError("orders must contain at least one order in (1, inf), got none")
    bad = ~np.isfinite(arr) | (arr <= 1.0)
    if np.any(bad):
        raise ValueError(f"orders must be in (1, inf), got {arr[np.argmax(bad)]}")
    return arr
