"""Array checks shared by the accountants (private): composition counts ``k`` and RDP orders α.

They sit on top of :mod:`dpcore.validation`. The numerical primitives the
accountants use live one level up, beside every other calibration:
:func:`dpcore._roots.solve_bracketed` and :func:`dpcore._numerics.log1mexp`.
"""

from __future__ import annotations

import numpy as np

from dpcore.limits import MAX_COMPOSITIONS, MAX_CURVE_POINTS, MAX_ORDERS
from dpcore.validation import check_elements, check_int

__all__ = ["as_ks", "as_orders"]


def as_ks(ks, name: str = "k") -> np.ndarray:
    """Return composition counts as a 1-D int64 array of integers in [1, MAX_COMPOSITIONS].

    A scalar gives a one-element array; an array has at most
    :data:`~dpcore.limits.MAX_CURVE_POINTS` entries. Uses :func:`dpcore.validation.check_int`
    on the first offending entry so that the message has the house form.
    """
    arr = np.asarray(ks)
    if arr.ndim == 0:
        return np.array([check_int(ks, name, minimum=1, maximum=MAX_COMPOSITIONS)], dtype=np.int64)
    arr = arr.reshape(-1)
    if arr.size == 0:
        raise ValueError(f"{name} must contain at least one integer in [1, inf), got none")
    check_elements(arr.size, f"the number of {name}", MAX_CURVE_POINTS)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        # let check_int name the offending value and its type
        return np.array(
            [check_int(value, name, minimum=1, maximum=MAX_COMPOSITIONS) for value in arr.tolist()], dtype=np.int64
        )
    if np.issubdtype(arr.dtype, np.floating):
        bad = ~np.isfinite(arr) | (arr != np.floor(arr)) | (arr < 1) | (arr > MAX_COMPOSITIONS)
    else:
        bad = (arr < 1) | (arr > MAX_COMPOSITIONS)
    if np.any(bad):
        check_int(arr[np.argmax(bad)].item(), name, minimum=1, maximum=MAX_COMPOSITIONS)
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
    check_elements(arr.size, "the number of orders", MAX_ORDERS)
    return arr
