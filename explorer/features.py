"""Feature preparation for private training: a table in, the arrays :mod:`dpcore.learning` takes out.

:func:`prepare_features` turns a pandas DataFrame into a training and a test
set for a binary classifier:

* **Target**: a two-valued column (the rarer value is the positive class
  unless ``positive`` names one), or a numeric column thresholded
  (``value > threshold``; default threshold the median). Rows without a
  target are dropped.
* **Numeric columns**: standardized, ``(x − mean) / std`` with the training
  rows' mean and standard deviation; missing values become the training
  mean (0 after standardizing). Constant columns are skipped.
* **Categorical columns** (text, booleans): one-hot encoded, one 0/1 column
  per category seen in the training rows; beyond ``max_categories`` the
  rarer categories share one ``(other)`` column; missing values get a
  ``(missing)`` column; a test category not seen in training lands in
  ``(other)`` when there is one, else in no column. Identifier-like columns
  (more distinct values than half the rows) and single-valued columns are
  skipped.
* **Split**: a seeded random split into training and test rows.

**Not private.** The means, standard deviations, category lists, the
median threshold and the positive class are read from the data, without
noise: the (ε, δ) of a model trained on these arrays covers the training
itself, not these choices. A private pipeline would fix them from public
knowledge (a codebook, known ranges) or spend budget on them.

Every step that changes or drops something is one sentence in
:attr:`Features.notes`, and :attr:`Features.description` says in one sentence
what was done. Bad input raises ``ValueError`` with one sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore.validation import as_generator, check_finite_real, check_int, check_probability

__all__ = ["Features", "prepare_features", "MAX_CATEGORIES"]

#: One-hot columns per categorical feature, counting ``(other)``.
MAX_CATEGORIES = 50
OTHER = "(other)"
MISSING = "(missing)"


@dataclass(frozen=True, eq=False)
class Features:
    """Arrays for a binary classifier, and what was done to make them.

    Attributes
    ----------
    X_train, X_test : numpy.ndarray of float64, shapes (n_train, d) and (n_test, d)
    y_train, y_test : numpy.ndarray of int64 (0/1)
    feature_names : tuple of str
        One per column of X: a numeric column's name, or ``column=category``.
    target : str
        The target column.
    positive : str
        What label 1 means, e.g. ``income = '>50K'`` or ``age > 37``.
    description : str
        One sentence describing the preparation.
    notes : tuple of str
        One sentence per row or column dropped, skipped, merged or imputed.
    """

    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    feature_names: tuple[str, ...]
    target: str
    positive: str
    description: str
    notes: tuple[str, ...] = ()


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)


def _text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _binary_target(series: pd.Series, positive, threshold, notes: list[str]) -> tuple[np.ndarray, np.ndarray, str]:
    """``(y, has_target, meaning of 1)`` for the target column."""
    name = str(series.name)
    numeric = _is_numeric(series)
    values = series.to_numpy(dtype=np.float64, na_value=np.nan) if numeric else series
    present = np.isfinite(values) if numeric else series.notna().to_numpy()
    if not present.any():
        raise ValueError(f"target column '{name}' must have values, got none")
    if threshold is not None:
        if not numeric:
            raise ValueError(f"threshold applies to a numeric target, got the text column '{name}'")
        threshold = check_finite_real(threshold, "threshold")
        return np.where(present, values > threshold, False).astype(np.int64), present, f"{name} > {threshold:g}"
    kept = series[present] if numeric else series[present].astype(str).str.strip()
    counts = kept.value_counts()
    if len(counts) < 2:
        only = _text(counts.index[0])
        raise ValueError(f"target column '{name}' must have two classes, got only '{only}'")
    if len(counts) > 2:
        if not numeric:
            raise ValueError(
                f"target column '{name}' must have exactly two values (or be numeric with a threshold), got {len(counts)}"
            )
        threshold = float(np.median(values[present]))
        notes.append(f"The target is '{name}' above its median, {threshold:g}, read from the data.")
        return np.where(present, values > threshold, False).astype(np.int64), present, f"{name} > {threshold:g}"
    labels = sorted(counts.index, key=lambda v: (counts[v], _text(v)))  # rarer first
    if positive is None:
        chosen = labels[0]
    else:
        matches = [v for v in counts.index if _text(v) == str(positive).strip()]
        if not matches:
            options = " or ".join(f"'{_text(v)}'" for v in sorted(counts.index, key=_text))
            raise ValueError(f"positive must be {options} for target column '{name}', got '{positive}'")
        chosen = matches[0]
    if numeric:
        y = np.where(present, values == chosen, False)
    else:
        y = (series.astype(str).str.strip() == str(chosen)).to_numpy() & present
    return y.astype(np.int64), present, f"{name} = '{_text(chosen)}'"


def _split(n: int, test_fraction: float, rng) -> tuple[np.ndarray, np.ndarray]:
    n_test = int(round(n * test_fraction))
    if n_test < 1 or n - n_test < 2:
        raise ValueError(
            f"the data must have enough rows with a target to split into training and test rows at "
            f"test_fraction={test_fraction:g}, got {n}"
        )
    perm = as_generator(rng).permutation(n)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def prepare_features(
    frame: pd.DataFrame,
    target: str,
    *,
    positive=None,
    threshold: float | None = None,
    features=None,
    test_fraction: float = 0.2,
    rng=0,
    max_categories: int = MAX_CATEGORIES,
    max_rows: int | None = None,
) -> Features:
    """Standardize numeric columns, one-hot encode categorical ones, make a 0/1 target, split.

    Module notes for every rule. The statistics used are read from the
    training rows and are **not private**.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (column names are used as given).
    target : str
        The column to predict.
    positive : str or number, optional
        The value of a two-valued target that is label 1 (default: the rarer one).
    threshold : float, optional
        For a numeric target: label 1 is ``value > threshold`` (default: the
        median, when the column has more than two values).
    features : sequence of str, optional
        The columns to use (default: every other column).
    test_fraction : float, default 0.2
        Share of rows held out for testing, in (0, 1).
    rng : numpy.random.Generator or int, default 0
        Seed of the split.
    max_categories : int, default 50
        One-hot columns per categorical feature, counting ``(other)``, in [2, inf).
    max_rows : int, optional
        Rows used at most (training and test together), in [3, inf): a larger table is cut to a seeded
        random subset of this many rows, drawn before the split and independently of the values (noted).

    Returns
    -------
    Features

    Examples
    --------
    >>> df = pd.DataFrame({"age": [20, 30, 40, 50, 60, 70, 25, 35], "job": list("abab?bab"), "rich": list("nnyynnyn")})
    >>> f = prepare_features(df.replace("?", None), "rich", test_fraction=0.25)
    >>> f.feature_names, f.positive, f.X_train.shape
    (('age', 'job=b', 'job=a', 'job=(missing)'), "rich = 'y'", (6, 4))
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if target not in frame.columns:
        raise ValueError(f"target must be a column of the table, got '{target}'")
    test_fraction = check_probability(test_fraction, "test_fraction")
    max_categories = check_int(max_categories, "max_categories", minimum=2)
    if max_rows is not None:
        max_rows = check_int(max_rows, "max_rows", minimum=3)
    if features is None:
        features = [c for c in frame.columns if c != target]
    else:
        features = list(features)
        unknown = [c for c in features if c not in frame.columns]
        if unknown:
            raise ValueError(f"features must be columns of the table, got '{unknown[0]}'")
        if target in features:
            raise ValueError(f"features must not include the target column, got '{target}'")

    notes: list[str] = []
    y_all, has_target, meaning = _binary_target(frame[target], positive, threshold, notes)
    dropped = int((~has_target).sum())
    if dropped:
        notes.append(f"{dropped:,} row(s) without a value of '{target}' were dropped.")
    data = frame.loc[has_target, features].reset_index(drop=True)
    y_all = y_all[has_target]
    rng = as_generator(rng)
    if max_rows is not None and len(data) > max_rows:
        keep = np.sort(rng.choice(len(data), size=max_rows, replace=False))
        notes.append(
            f"{len(data):,} rows have a target; a seeded random {max_rows:,} of them are used, drawn without "
            "looking at their values, so that training stays fast."
        )
        data, y_all = data.iloc[keep].reset_index(drop=True), y_all[keep]
    train, test = _split(len(data), test_fraction, rng)
    if y_all[train].min() == y_all[train].max():
        raise ValueError(
            f"the training rows must contain both classes of the target, got only {'positives' if y_all[train][0] else 'negatives'}"
        )

    blocks_train, blocks_test, names = [], [], []
    n_numeric = n_categorical = 0
    skipped: list[str] = []
    for col in features:
        series = data[col]
        if _is_numeric(series):
            values = series.to_numpy(dtype=np.float64, na_value=np.nan)
            values = np.where(np.isfinite(values), values, np.nan)
            tr = values[train]
            if np.isnan(tr).all() or np.nanstd(tr) == 0:
                skipped.append(f"'{col}' (constant)")
                continue
            mean, std = float(np.nanmean(tr)), float(np.nanstd(tr))
            missing = int(np.isnan(values).sum())
            if missing:
                notes.append(f"{missing:,} missing value(s) of '{col}' were set to its training mean, {mean:.4g}.")
            z = np.where(np.isnan(values), 0.0, (values - mean) / std)
            blocks_train.append(z[train, None])
            blocks_test.append(z[test, None])
            names.append(str(col))
            n_numeric += 1
            continue
        text = series.astype("string").str.strip()
        text = text.mask(text == "")  # an empty cell is a missing one
        missing = text.isna().to_numpy()
        counts = text.iloc[train].value_counts()  # missing values not counted
        if len(counts) + int(missing[train].any()) < 2:
            skipped.append(f"'{col}' (a single value)")
            continue
        if len(counts) > len(data) / 2:
            skipped.append(f"'{col}' (identifier-like: {len(counts):,} distinct values)")
            continue
        has_missing = bool(missing.any())
        room = max_categories - (1 if has_missing else 0)
        ordered = sorted(counts.index, key=lambda v: (-counts[v], v))
        if len(ordered) > room:
            kept, other = ordered[: room - 1], True
            notes.append(f"{len(ordered) - len(kept):,} rarer categories of '{col}' share the column {OTHER}.")
        else:
            kept, other = ordered, False
        labels = list(kept) + ([OTHER] if other else []) + ([MISSING] if has_missing else [])
        codes = pd.Index(kept).get_indexer(text.fillna(""))  # -1: not a kept category
        if other:
            codes[(codes == -1) & ~missing] = len(kept)
        if has_missing:
            codes[missing] = len(labels) - 1
            notes.append(f"{int(missing.sum()):,} missing value(s) of '{col}' have their own column {MISSING}.")
        unseen = int(np.sum(codes[test] == -1))
        if unseen:
            notes.append(
                f"{unseen:,} test row(s) have a category of '{col}' not seen in training and no column for it."
            )
        onehot = np.zeros((len(data), len(labels)))
        ok = codes >= 0
        onehot[np.flatnonzero(ok), codes[ok]] = 1.0
        blocks_train.append(onehot[train])
        blocks_test.append(onehot[test])
        names += [f"{col}={label}" for label in labels]
        n_categorical += 1
    if skipped:
        notes.append(f"Skipped {len(skipped)} column(s): {', '.join(skipped)}.")
    if not names:
        raise ValueError(
            f"features must include at least one usable column (numeric, or categorical with 2+ values), got none of {len(features)}"
        )

    X_train = np.hstack(blocks_train)
    X_test = np.hstack(blocks_test)
    share = float(y_all.mean())
    parts = []
    if n_numeric:
        parts.append(
            f"{n_numeric} numeric column(s) standardized with the training rows' means and standard deviations"
        )
    if n_categorical:
        n_onehot = len(names) - n_numeric
        parts.append(f"{n_categorical} categorical column(s) one-hot encoded into {n_onehot} indicators")
    description = (
        f"Predicting {meaning} ({share:.1%} of {len(data):,} rows) from {len(names)} features: "
        f"{' and '.join(parts)}; {len(train):,} training and {len(test):,} test rows (seeded random split); "
        "these statistics are read from the data without privacy."
    )
    return Features(
        X_train=X_train,
        X_test=X_test,
        y_train=y_all[train],
        y_test=y_all[test],
        feature_names=tuple(names),
        target=str(target),
        positive=meaning,
        description=description,
        notes=tuple(notes),
    )
