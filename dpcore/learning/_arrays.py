"""Input checks shared by the trainers (private): features, labels, test sets, clients.

Each check raises ``ValueError`` (value out of range) or ``TypeError`` (wrong
type) with one sentence in the house form, naming the argument, what is
allowed and what was received.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["check_features", "check_labels", "check_training_set", "check_eval_set", "check_weights"]


def check_features(X, name: str = "X", *, n_columns: int | None = None) -> np.ndarray:
    """``X`` as a C-contiguous float64 matrix of shape (n, d), n ≥ 1, d ≥ 1, every entry finite."""
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"{name} must be a 2-D array of numbers, got {type(X).__name__}")
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a 2-D array of numbers, got values that cannot be read as numbers") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (rows x features), got {arr.ndim} dimension(s)")
    if arr.shape[0] < 1:
        raise ValueError(f"{name} must have at least one row, got 0")
    if arr.shape[1] < 1:
        raise ValueError(f"{name} must have at least one feature column, got 0")
    if n_columns is not None and arr.shape[1] != n_columns:
        raise ValueError(f"{name} must have {n_columns} feature column(s) like the training data, got {arr.shape[1]}")
    bad = ~np.isfinite(arr)
    if bad.any():
        nan = int(np.isnan(arr).sum())
        if nan:
            raise ValueError(f"{name} must not contain NaN, got {nan} NaN value(s)")
        raise ValueError(f"{name} must be finite, got {int(bad.sum())} infinite value(s)")
    return np.ascontiguousarray(arr)


def check_labels(y, n: int, name: str = "y") -> np.ndarray:
    """``y`` as a float64 vector of n labels, each 0 or 1 (booleans accepted)."""
    if isinstance(y, (str, bytes)) or y is None:
        raise TypeError(f"{name} must be a 1-D array of 0/1 labels, got {type(y).__name__}")
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of 0/1 labels, got {arr.ndim} dimension(s)")
    if arr.shape[0] != n:
        raise ValueError(f"{name} must have one label per row of the features ({n}), got {arr.shape[0]}")
    if arr.dtype != bool and not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold 0/1 labels, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    bad = ~((arr == 0.0) | (arr == 1.0))
    if bad.any():
        raise ValueError(f"{name} must hold labels 0 or 1, got {arr[bad][0]}")
    return arr


def check_training_set(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of a training set: both classes must be present."""
    X = check_features(X, "X")
    y = check_labels(y, X.shape[0], "y")
    positives = int(y.sum())
    if positives == 0 or positives == y.size:
        only = 1 if positives else 0
        raise ValueError(f"y must contain both classes 0 and 1 to train a classifier, got only class {only}")
    return X, y


def check_eval_set(X_test, y_test, d: int) -> tuple[np.ndarray, np.ndarray] | None:
    """An optional evaluation set: both or neither of ``X_test`` and ``y_test``."""
    if X_test is None and y_test is None:
        return None
    if X_test is None or y_test is None:
        missing = "X_test" if X_test is None else "y_test"
        raise ValueError(f"X_test and y_test must be given together, got {missing}=None")
    X_test = check_features(X_test, "X_test", n_columns=d)
    return X_test, check_labels(y_test, X_test.shape[0], "y_test")


def check_weights(weights, p: int, name: str = "weights") -> np.ndarray:
    """Model weights as a float64 array of shape (p,) or (k, p), finite."""
    if isinstance(weights, numbers.Number):
        raise TypeError(f"{name} must be an array of {p} weights, got a single number")
    arr = np.asarray(weights, dtype=np.float64)
    if arr.ndim not in (1, 2) or arr.shape[-1] != p:
        raise ValueError(f"{name} must have shape ({p},) or (draws, {p}), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got a non-finite weight")
    return arr
