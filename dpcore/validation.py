"""Parameter checks shared by every mechanism and accountant.

Each check raises ``ValueError`` (value out of range) or ``TypeError`` (wrong
type) with one sentence naming the parameter, the allowed range and the value
received, in the form used by diffprivlib and dp_accounting::

    epsilon must be in (0, inf), got -1.0
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from dpcore.limits import MAX_ELEMENTS, MAX_NOISE_MULTIPLIER, MAX_TRIALS, MIN_NOISE_MULTIPLIER, MIN_SAMPLING_RATE
from dpcore.randomness import SecureGenerator

__all__ = [
    "as_generator",
    "check_epsilon",
    "check_delta",
    "check_positive",
    "check_nonnegative",
    "check_probability",
    "check_int",
    "check_real_in",
    "check_elements",
    "check_noise_multiplier",
    "check_trials",
    "check_sample_size",
    "check_sampling_rate",
    "check_bounds",
    "check_finite_real",
    "check_choice",
    "check_category_values",
    "check_numeric_array",
    "check_positive_array",
    "check_nonnegative_array",
]


def _is_real(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def check_finite_real(value, name: str) -> float:
    """Return ``value`` as a float, refusing non-numbers, NaN and infinities."""
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def check_positive(value, name: str) -> float:
    """Return ``value`` as a float in (0, inf)."""
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number in (0, inf), got {value!r}")
    value = float(value)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be in (0, inf), got {value}")
    return value


def check_nonnegative(value, name: str) -> float:
    """Return ``value`` as a float in [0, inf)."""
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number in [0, inf), got {value!r}")
    value = float(value)
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be in [0, inf), got {value}")
    return value


def check_epsilon(value, name: str = "epsilon") -> float:
    """Return a privacy parameter epsilon in (0, inf) as a float."""
    return check_positive(value, name)


def check_probability(value, name: str, *, low_open: bool = True, high_open: bool = True) -> float:
    """Return ``value`` as a float in the interval (0, 1), with ends as requested."""
    lo, hi = ("(" if low_open else "["), (")" if high_open else "]")
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number in {lo}0, 1{hi}, got {value!r}")
    value = float(value)
    ok_lo = value > 0 if low_open else value >= 0
    ok_hi = value < 1 if high_open else value <= 1
    if not (np.isfinite(value) and ok_lo and ok_hi):
        raise ValueError(f"{name} must be in {lo}0, 1{hi}, got {value}")
    return value


def check_delta(value, name: str = "delta") -> float:
    """Return a privacy parameter delta in (0, 1) as a float."""
    return check_probability(value, name)


def check_int(value, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int in [minimum, maximum] (either end optional).

    Integral floats such as ``3.0`` are accepted; ``3.5`` and booleans are not.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        ivalue = int(value)
    else:
        if not (np.isfinite(value) and float(value).is_integer()):
            raise ValueError(f"{name} must be an integer, got {value}")
        ivalue = int(value)
    lo = "-inf" if minimum is None else str(minimum)
    hi = "inf" if maximum is None else str(maximum)
    if (minimum is not None and ivalue < minimum) or (maximum is not None and ivalue > maximum):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {ivalue}")
    return ivalue


def check_real_in(value, name: str, low: float, high: float) -> float:
    """Return ``value`` as a float in the closed range [low, high] (a bound of :mod:`dpcore.limits`).

    >>> check_real_in(1e-300, "noise_multiplier", 0.1, 1e4)
    Traceback (most recent call last):
    ...
    ValueError: noise_multiplier must be in [0.1, 10000], got 1e-300
    """
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number in [{low:g}, {high:g}], got {value!r}")
    value = float(value)
    if not (low <= value <= high):  # NaN fails both comparisons
        raise ValueError(f"{name} must be in [{low:g}, {high:g}], got {value}")
    return value


def check_elements(elements, name: str, maximum: int) -> int:
    """Refuse a product of sizes (``trials × k``, ``rows × categories``) beyond ``maximum`` (see :mod:`dpcore.limits`).

    ``elements`` is computed by the caller in Python integers (no overflow); ``name`` says what it multiplies.

    >>> check_elements(10**6 * 10**5, "rows × categories", 20_000_000)
    Traceback (most recent call last):
    ...
    ValueError: rows × categories must be at most 20000000, got 100000000000
    """
    elements = int(elements)
    if elements > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {elements}")
    return elements


def check_trials(trials, name: str = "trials", *, per_trial: int = 1) -> int:
    """A number of simulated runs, in [1, MAX_TRIALS], whose ``trials × per_trial`` elements fit MAX_ELEMENTS.

    ``per_trial`` is what one run allocates (the answers of a query walk, the categories of a report);
    both bounds live in :mod:`dpcore.limits`.
    """
    trials = check_int(trials, name, minimum=1, maximum=MAX_TRIALS)
    check_elements(trials * max(1, int(per_trial)), f"{name} × values per trial", MAX_ELEMENTS)
    return trials


def check_sample_size(size, name: str = "size") -> int:
    """The number of draws of an output shape (an int or a tuple of ints), at most MAX_ELEMENTS (:mod:`dpcore.limits`)."""
    if size is None:
        return 1
    shape = (size,) if np.ndim(size) == 0 else tuple(size)
    return check_elements(math.prod(check_int(d, name, minimum=0) for d in shape), name, MAX_ELEMENTS)


def check_noise_multiplier(value, name: str = "noise_multiplier") -> float:
    """The noise multiplier σ of the subsampled Gaussian, in [MIN_NOISE_MULTIPLIER, MAX_NOISE_MULTIPLIER] (:mod:`dpcore.limits`)."""
    return check_real_in(value, name, MIN_NOISE_MULTIPLIER, MAX_NOISE_MULTIPLIER)


def check_sampling_rate(value, name: str = "sampling_rate") -> float:
    """A Poisson sampling rate q, in [MIN_SAMPLING_RATE, 1] (:mod:`dpcore.limits`)."""
    return check_real_in(value, name, MIN_SAMPLING_RATE, 1.0)


def check_bounds(lower, upper, lower_name: str = "lower", upper_name: str = "upper") -> tuple[float, float]:
    """Return finite ``(lower, upper)`` with lower < upper and a finite width ``upper − lower``.

    Two finite bounds can still be too far apart for a float: ``1e308 − (−1e308)``
    overflows to ``inf``, and every rescaling by the width (``(x − lower)/width``)
    or grid over the range would then turn into NaN far from here. Such bounds
    are refused at once. (A finite width can still be too wide to square:
    code that needs ``width²`` computes ``width · sqrt(...)`` instead.)

    Examples
    --------
    >>> check_bounds(-1e308, 1e308)
    Traceback (most recent call last):
    ...
    ValueError: upper - lower must be finite, got lower=-1e+308 and upper=1e+308
    """
    lower = check_finite_real(lower, lower_name)
    upper = check_finite_real(upper, upper_name)
    if not lower < upper:
        raise ValueError(f"{lower_name} must be below {upper_name}, got {lower_name}={lower} and {upper_name}={upper}")
    if not np.isfinite(upper - lower):
        raise ValueError(
            f"{upper_name} - {lower_name} must be finite, got {lower_name}={lower} and {upper_name}={upper}"
        )
    return lower, upper


def check_choice(value, name: str, choices) -> str:
    """Return ``value`` if it is one of ``choices``; otherwise list the valid ones."""
    choices = tuple(choices)
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def check_category_values(values, k: int, name: str = "values") -> np.ndarray:
    """Return ``values`` as a 1-D int64 array of category indices in [0, k)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        arr = arr.reshape(-1) if arr.ndim == 0 else arr
        if arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-D array of integers in [0, {k}), got shape {arr.shape}")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold integers in [0, {k}), got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
            bad = arr[~(np.isfinite(arr) & (arr == np.floor(np.where(np.isfinite(arr), arr, 0))))][0]
            raise ValueError(f"{name} must hold integers in [0, {k}), got {bad}")
    lo, hi = arr.min(), arr.max()
    if lo < 0 or hi >= k:
        bad = lo if lo < 0 else hi
        raise ValueError(f"{name} must hold integers in [0, {k}), got {bad}")
    return arr.astype(np.int64, copy=False)


def check_numeric_array(values, name: str = "values", *, nan: str = "raise") -> tuple[np.ndarray, int]:
    """Return ``(finite float64 1-D array, number of dropped NaN)``.

    Parameters
    ----------
    nan : {"raise", "drop"}
        ``"raise"`` refuses NaN; ``"drop"`` removes them and reports how many.
        Infinite values are always refused: no clipping bound makes them meaningful.
    """
    check_choice(nan, "nan", ("raise", "drop"))
    try:
        arr = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numeric, got values that cannot be read as numbers") from None
    isnan = np.isnan(arr)
    dropped = int(isnan.sum())
    if dropped:
        if nan == "raise":
            raise ValueError(f"{name} must not contain NaN, got {dropped} NaN value(s)")
        arr = arr[~isnan]
    if np.isinf(arr).any():
        raise ValueError(f"{name} must be finite, got {int(np.isinf(arr).sum())} infinite value(s)")
    if arr.size == 0:
        raise ValueError(f"{name} must contain at least one number, got none")
    return arr, dropped


def _check_real_array(value, name: str, *, include_zero: bool):
    """Shared body of :func:`check_positive_array` and :func:`check_nonnegative_array`."""
    domain = "[0, inf)" if include_zero else "(0, inf)"
    if np.ndim(value) == 0:
        scalar = value.item() if isinstance(value, np.ndarray) else value
        return check_nonnegative(scalar, name) if include_zero else check_positive(scalar, name)
    arr = np.asarray(value)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers in {domain}, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    bad = ~(np.isfinite(arr) & ((arr >= 0) if include_zero else (arr > 0)))
    if np.any(bad):
        raise ValueError(f"{name} must be in {domain}, got {arr[bad].reshape(-1)[0]}")
    return arr


def check_positive_array(value, name: str):
    """Return a scalar as a float in (0, inf), an array as a float64 array with every entry in (0, inf).

    A scalar goes through :func:`check_positive` (so ``True`` is a ``TypeError``);
    an array of booleans or of non-numbers is a ``TypeError``.
    """
    return _check_real_array(value, name, include_zero=False)


def check_nonnegative_array(value, name: str):
    """Return a scalar as a float in [0, inf), an array as a float64 array with every entry in [0, inf)."""
    return _check_real_array(value, name, include_zero=True)


def as_generator(rng) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from a Generator, an int seed, or None (fresh entropy).

    A :class:`~dpcore.randomness.SecureGenerator` (publication) is returned as it is: it offers the
    draws the exact samplers and the exponential mechanism take.
    """
    if isinstance(rng, (np.random.Generator, SecureGenerator)):
        return rng
    if rng is None or (isinstance(rng, numbers.Integral) and not isinstance(rng, bool)):
        if rng is not None and int(rng) < 0:
            raise ValueError(f"rng seed must be in [0, inf), got {rng}")
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be a numpy.random.Generator or an int seed, got {type(rng).__name__}")
