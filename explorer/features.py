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

**Declared features, for a publication.** :func:`declared_features` builds the
arrays of a published model from declarations alone (:class:`NumericDeclaration`,
:class:`CategoricalDeclaration`, a declared positive value of the target): a
numeric feature is clipped to its declared bounds and mapped to [−1, 1] by the
public affine map ``2 (x − lower)/(upper − lower) − 1`` (a missing value is the
midpoint, 0); a categorical one is one-hot over its declared domain, a value
outside it (or a missing one) going to an ``(other)`` column when declared, to
no column otherwise (:func:`explorer.domains.encode_in_domain`); the label is 1
when the target equals the declared value. Every row is kept and no statistic
of the data is read, so adding or removing one person changes no column, name
or scale: only that person's row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore.release import PublicFact
from dpcore.validation import as_generator, check_bounds, check_finite_real, check_int, check_probability
from explorer import domains

__all__ = [
    "Features",
    "prepare_features",
    "MAX_CATEGORIES",
    "MAX_FEATURES",
    "MAX_CELLS",
    "FLOAT",
    "NumericDeclaration",
    "CategoricalDeclaration",
    "DeclaredFeatures",
    "declared_feature_names",
    "declared_features",
]

#: One-hot columns per categorical feature, counting ``(other)``.
MAX_CATEGORIES = 50
#: Feature columns (numeric columns and one-hot indicators) at most: with :data:`MAX_CELLS`, 20,000 rows stay.
MAX_FEATURES = 1_000
#: Cells of the arrays (training and test rows × feature columns) at most: 80 MB as float32. A 20 MB upload with
#: 1,000 one-hot columns once made the Learning page allocate 8 GB (issue 23).
MAX_CELLS = 20_000_000
#: The arrays' type: 4 bytes a cell, half of float64; ``dpcore.learning`` reads them as float64 (0/1 indicators
#: exactly, a standardized value to 7 significant digits, far finer than any noise the page adds).
FLOAT = np.float32
OTHER = "(other)"
MISSING = "(missing)"


@dataclass(frozen=True, eq=False)
class Features:
    """Arrays for a binary classifier, and what was done to make them.

    Attributes
    ----------
    X_train, X_test : numpy.ndarray of float32, shapes (n_train, d) and (n_test, d)
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
        One sentence per row or column dropped, skipped, merged or imputed (:attr:`size_note` among them).
    rows_with_target : int
        Rows of the table with a target value.
    rows_used : int
        Rows in ``X_train`` and ``X_test`` together (fewer when ``max_rows`` or the cell budget cut the table).
    category_cap : int
        One-hot columns a categorical feature took at most, counting ``(other)`` and ``(missing)``.
    categories_merged : int
        Categories merged into an ``(other)`` column, over every feature.
    columns_left_out : tuple of str
        Columns left out because the feature budget was full: the first usable column that did not fit and every
        column after it (those are not read, so a column among them that would have been skipped is counted here).
    columns_used : tuple of str
        The columns that became features, in the table's order (neither skipped nor left out).
    max_cells : int
        The budget of cells the arrays were held to.
    size_note : str
        One sentence saying what was cut to keep the arrays within their budget ("" when nothing was), for the
        page to show: e.g. "The model is trained on at most 2 one-hot columns per text column instead of 50 (…) and
        a seeded random 20,000 of its 820,000 rows, …, so that its data fit the page's budget of 1,000 feature
        columns and 20,000,000 cells: 20,000 rows × 1,000 columns, 80 MB."
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
    rows_with_target: int = 0
    rows_used: int = 0
    category_cap: int = MAX_CATEGORIES
    categories_merged: int = 0
    columns_left_out: tuple[str, ...] = ()
    columns_used: tuple[str, ...] = ()
    max_cells: int = MAX_CELLS
    size_note: str = ""

    @property
    def cells(self) -> int:
        """Cells of ``X_train`` and ``X_test`` together."""
        return int(self.X_train.size + self.X_test.size)


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


#: The text type the distinct values of a categorical column are read as (``"string"``: stripped by its storage's
#: rule, pyarrow's when it is installed).
_TEXT = pd.StringDtype()
#: Codes of :attr:`_Column.ranks` that are not a category seen in training.
_MISSING_CODE, _UNSEEN_CODE = -1, -2


@dataclass(frozen=True, eq=False)
class _Column:
    """What one feature column becomes, read from the training rows: a numeric column's mean and standard
    deviation, or a categorical column's categories (most frequent first, ties by value), whether it has missing
    values, and each row's rank among those categories (:data:`_MISSING_CODE`, :data:`_UNSEEN_CODE` otherwise)."""

    name: str
    numeric: bool
    mean: float = 0.0
    std: float = 1.0
    categories: tuple = ()
    has_missing: bool = False
    ranks: np.ndarray | None = None

    def width(self, cap: int) -> int:
        """Feature columns it takes when a categorical column has at most ``cap`` (counting (other), (missing))."""
        return 1 if self.numeric else min(len(self.categories) + int(self.has_missing), cap)


def _category_codes(series: pd.Series) -> tuple[np.ndarray, list[str]]:
    """``(codes, values)``: each row's index into the column's distinct text values (stripped), -1 for a missing
    one (NaN, or blank once stripped). Only the distinct values are converted to text and stripped."""
    raw, uniques = pd.factorize(series, use_na_sentinel=True)
    uniques = pd.Index(uniques)
    if not (isinstance(uniques.dtype, pd.StringDtype) and uniques.dtype.storage == _TEXT.storage):
        uniques = uniques.astype(_TEXT)  # already text of the same storage (an upload's str): no copy, same strip
    texts = uniques.str.strip()
    remap = np.full(len(uniques) + 1, _MISSING_CODE, dtype=np.int32)  # the last slot: factorize's -1
    position: dict[str, int] = {}
    for i, text in enumerate(texts.tolist()):  # plain str: iterating the index itself is 20 times slower
        if isinstance(text, str) and text:
            remap[i] = position.setdefault(text, len(position))
    return remap[raw], list(position)


def _plan(
    data: pd.DataFrame, train: np.ndarray, features: list, max_features: int | None = None
) -> tuple[list[_Column], list[str], list]:
    """Each usable feature column's statistics from the training rows, the columns skipped (with why), and the
    columns not read: once the usable columns read take more than ``max_features`` even at two one-hot columns each,
    :func:`_fit` keeps none after them, so they are not read (the widest upload's 999 text columns: 501 read)."""
    plans, skipped, narrowest, counted = [], [], 0, 0
    for at, col in enumerate(features):
        narrowest += sum(p.width(2) for p in plans[counted:])
        counted = len(plans)
        if max_features is not None and narrowest > max_features:
            return plans, skipped, list(features[at:])
        series = data[col]
        if _is_numeric(series):
            values = series.to_numpy(dtype=np.float64, na_value=np.nan)
            tr = values[train]
            tr = tr[np.isfinite(tr)]
            if tr.size == 0 or np.std(tr) == 0:
                skipped.append(f"'{col}' (constant)")
                continue
            plans.append(_Column(col, True, mean=float(np.mean(tr)), std=float(np.std(tr))))
            continue
        codes, values = _category_codes(series)
        in_train = codes[train]
        counts = np.bincount(in_train[in_train >= 0], minlength=len(values))  # missing values not counted
        seen = np.flatnonzero(counts)
        if len(seen) + int((in_train < 0).any()) < 2:
            skipped.append(f"'{col}' (a single value)")
            continue
        if len(seen) > len(data) / 2:
            skipped.append(f"'{col}' (identifier-like: {len(seen):,} distinct values)")
            continue
        ordered = sorted(seen.tolist(), key=lambda i: (-counts[i], values[i]))
        rank = np.full(len(values) + 1, _UNSEEN_CODE, dtype=np.int32)  # the last slot: a missing value's -1
        rank[ordered] = np.arange(len(ordered), dtype=np.int32)
        rank[-1] = _MISSING_CODE
        plans.append(
            _Column(
                col,
                False,
                categories=tuple(values[i] for i in ordered),
                has_missing=bool((codes < 0).any()),
                ranks=rank[codes],
            )
        )
    return plans, skipped, []


def _fit(plans: list[_Column], max_categories: int, max_features: int) -> tuple[int, list[_Column], list[_Column]]:
    """The largest one-hot cap in [2, max_categories] under which the columns take at most ``max_features``;
    when even two each is too many, the columns kept in the table's order while they fit, and those left out."""
    for cap in range(max_categories, 1, -1):
        if sum(p.width(cap) for p in plans) <= max_features:
            return cap, plans, []
    kept, total = [], 0
    for p in plans:
        if total + p.width(2) > max_features:
            break
        kept.append(p)
        total += p.width(2)
    return 2, kept, plans[len(kept) :]


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
    max_features: int = MAX_FEATURES,
    max_cells: int = MAX_CELLS,
) -> Features:
    """Standardize numeric columns, one-hot encode categorical ones, make a 0/1 target, split.

    Module notes for every rule. The statistics used are read from the
    training rows and are **not private**. The arrays are float32 and hold at most ``max_cells`` cells
    (:data:`MAX_CELLS`, 80 MB); what was cut to fit is said in :attr:`Features.size_note`.

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
    max_features : int, default 1,000
        Feature columns at most, in [1, inf): when the columns would take more, every categorical column gets
        the same lower cap of one-hot columns (its rarer categories merged into ``(other)``), down to two; below
        that, the columns from the first that does not fit on are left out (noted), and those after it are not
        read at all.
    max_cells : int, default 20,000,000
        Cells of ``X_train`` and ``X_test`` together at most, in [1, inf): a table whose rows times feature columns
        would pass it is cut to a seeded random subset of rows, drawn independently of the values (noted).

    Returns
    -------
    Features

    Examples
    --------
    >>> df = pd.DataFrame({"age": [20, 30, 40, 50, 60, 70, 25, 35], "job": list("abab?bab"), "rich": list("nnyynnyn")})
    >>> f = prepare_features(df.replace("?", None), "rich", test_fraction=0.25)
    >>> f.feature_names, f.positive, f.X_train.shape, f.X_train.dtype
    (('age', 'job=b', 'job=a', 'job=(missing)'), "rich = 'y'", (6, 4), dtype('float32'))
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if target not in frame.columns:
        raise ValueError(f"target must be a column of the table, got '{target}'")
    test_fraction = check_probability(test_fraction, "test_fraction")
    max_categories = check_int(max_categories, "max_categories", minimum=2)
    max_features = check_int(max_features, "max_features", minimum=1)
    max_cells = check_int(max_cells, "max_cells", minimum=1)
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
    rows = np.flatnonzero(has_target)  # rows of the frame used, in order; the frame is read only at these
    with_target = len(rows)
    rng = as_generator(rng)
    if max_rows is not None and len(rows) > max_rows:
        rows = rows[np.sort(rng.choice(len(rows), size=max_rows, replace=False))]
        notes.append(
            f"{with_target:,} rows have a target; a seeded random {max_rows:,} of them are used, drawn without "
            "looking at their values, so that training stays fast."
        )
    if frame.columns.is_unique:  # only the rows and columns used are copied
        data = frame.iloc[rows, frame.columns.get_indexer(features)].reset_index(drop=True)
    else:
        data = frame.iloc[rows][features].reset_index(drop=True)
    train, test = _split(len(data), test_fraction, rng)
    plans, skipped, unread = _plan(data, train, features, max_features)
    cap, plans, left_out = _fit(plans, max_categories, max_features)
    left_out = [str(p.name) for p in left_out] + [str(c) for c in unread]
    d = sum(p.width(cap) for p in plans)
    if d and len(data) * d > max_cells:  # fewer rows, drawn without looking at the values; the plan is read again
        n = max(3, max_cells // d)
        keep = np.sort(rng.choice(len(data), size=n, replace=False))
        before = len(data)
        rows, data = rows[keep], data.iloc[keep].reset_index(drop=True)
        train, test = _split(len(data), test_fraction, rng)
        kept_names = {p.name for p in plans}
        plans, more_skipped, _ = _plan(data, train, [c for c in features if c in kept_names])
        skipped += more_skipped
        d = sum(p.width(cap) for p in plans)  # no larger: a subset has no category its superset lacks
        size_rows = (before, len(data))
    else:
        size_rows = None
    y_all = y_all[rows]
    if y_all[train].min() == y_all[train].max():
        raise ValueError(
            f"the training rows must contain both classes of the target, got only {'positives' if y_all[train][0] else 'negatives'}"
        )
    if not plans:
        raise ValueError(
            f"features must include at least one usable column (numeric, or categorical with 2+ values), got none of {len(features)}"
        )

    X_train = np.zeros((len(train), d), dtype=FLOAT)
    X_test = np.zeros((len(test), d), dtype=FLOAT)
    in_train, in_test = np.arange(len(train)), np.arange(len(test))
    names: list[str] = []
    n_numeric = n_categorical = 0
    merged: list[tuple[str, int]] = []  # (column, categories merged into (other))
    for p in plans:
        j = len(names)
        series = data[p.name]
        if p.numeric:
            values = series.to_numpy(dtype=np.float64, na_value=np.nan)
            values = np.where(np.isfinite(values), values, np.nan)
            missing = int(np.isnan(values).sum())
            if missing:
                notes.append(f"{missing:,} missing value(s) of '{p.name}' were set to its training mean, {p.mean:.4g}.")
            z = np.where(np.isnan(values), 0.0, (values - p.mean) / p.std)
            X_train[:, j] = z[train]
            X_test[:, j] = z[test]
            names.append(str(p.name))
            n_numeric += 1
            continue
        ranks = p.ranks
        missing = ranks == _MISSING_CODE
        room = cap - (1 if p.has_missing else 0)
        if len(p.categories) > room:
            kept, other = list(p.categories[: room - 1]), True
            merged.append((p.name, len(p.categories) - len(kept)))
        else:
            kept, other = list(p.categories), False
        labels = kept + ([OTHER] if other else []) + ([MISSING] if p.has_missing else [])
        codes = np.where((ranks >= 0) & (ranks < len(kept)), ranks, -1)  # -1: not a kept category
        if other:
            codes[(codes == -1) & ~missing] = len(kept)
        if p.has_missing:
            codes[missing] = len(labels) - 1
            notes.append(f"{int(missing.sum()):,} missing value(s) of '{p.name}' have their own column {MISSING}.")
        unseen = int(np.sum(codes[test] == -1))
        if unseen:
            notes.append(
                f"{unseen:,} test row(s) have a category of '{p.name}' not seen in training and no column for it."
            )
        for X, part, at in ((X_train, train, in_train), (X_test, test, in_test)):
            c = codes[part]
            ok = c >= 0
            X[at[ok], j + c[ok]] = 1.0
        names += [f"{p.name}={label}" for label in labels]
        n_categorical += 1
    if len(merged) <= 3:
        notes += [f"{k:,} rarer categories of '{c}' share the column {OTHER}." for c, k in merged]
    else:  # one sentence, not one per column
        notes.append(
            f"In {len(merged):,} text columns the rarer categories share a column {OTHER}: "
            f"{sum(k for _, k in merged):,} categories in all."
        )
    if skipped:
        notes.append(f"Skipped {len(skipped)} column(s): {', '.join(skipped)}.")

    n_merged = sum(k for _, k in merged)
    size_note = _size_note(max_cells, max_features, cap, max_categories, n_merged, size_rows, left_out, d, len(data))
    if size_note:
        notes.append(size_note)
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
        rows_with_target=with_target,
        rows_used=len(data),
        category_cap=cap,
        categories_merged=n_merged,
        columns_left_out=tuple(left_out),
        columns_used=tuple(str(p.name) for p in plans),
        max_cells=max_cells,
        size_note=size_note,
    )


def _size_note(max_cells, max_features, cap, max_categories, merged, size_rows, left_out, d, n) -> str:
    """The one sentence saying what was cut to keep the arrays within their budget, or "" when nothing was."""
    cuts = []
    if cap < max_categories:
        cuts.append(
            f"at most {cap} one-hot columns per text column instead of {max_categories} "
            f"({merged:,} rarer categories in all merged into {OTHER})"
        )
    if left_out:
        shown = ", ".join(f"'{c}'" for c in left_out[:3]) + (
            f" and {len(left_out) - 3:,} more" if len(left_out) > 3 else ""
        )
        cuts.append(f"{len(left_out):,} column(s) left out ({shown})")
    if size_rows:
        cuts.append(
            f"a seeded random {size_rows[1]:,} of its {size_rows[0]:,} rows, drawn without looking at their values"
        )
    if not cuts:
        return ""
    megabytes = n * d * np.dtype(FLOAT).itemsize / 1e6
    return (
        f"The model is trained on {', '.join(cuts[:-1]) + (' and ' if len(cuts) > 1 else '') + cuts[-1]}, so that its "
        f"data fit the page's budget of {max_features:,} feature columns and {max_cells:,} cells: {n:,} rows × {d:,} "
        f"columns, {megabytes:,.0f} MB."
    )


# --------------------------------------------------------------------------- declared features, for a publication


@dataclass(frozen=True)
class NumericDeclaration:
    """A numeric feature with declared bounds: clipped to ``[lower, upper]``, then mapped to [−1, 1].

    Attributes
    ----------
    column : str
    lower, upper : float
        Finite, ``lower < upper``; from a codebook or a law, never from the file.
    """

    column: str
    lower: float
    upper: float

    def __post_init__(self):
        lower, upper = check_bounds(
            self.lower, self.upper, f"the lower bound of '{self.column}'", f"the upper bound of '{self.column}'"
        )
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)

    @property
    def names(self) -> tuple[str, ...]:
        return (str(self.column),)

    def encode(self, series: pd.Series) -> np.ndarray:
        """``2 (clip(x) − lower)/(upper − lower) − 1`` in [−1, 1], shape (n, 1); a missing or non-number value is 0."""
        values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        mid = 0.5 * self.lower + 0.5 * self.upper
        values = np.clip(np.where(np.isfinite(values), values, mid), self.lower, self.upper)
        mapped = 2.0 * ((values - self.lower) / (self.upper - self.lower)) - 1.0
        return np.clip(mapped, -1.0, 1.0)[:, None]

    def facts(self) -> tuple[PublicFact, ...]:
        return (
            PublicFact(
                f"bounds of {self.column}",
                f"[{self.lower:g}, {self.upper:g}], values clipped to them and mapped to [−1, 1]; a missing value "
                "is the midpoint",
                "declared",
            ),
        )


@dataclass(frozen=True)
class CategoricalDeclaration:
    """A categorical feature one-hot over a declared domain; outside it (and missing): ``(other)`` or no column.

    Attributes
    ----------
    column : str
    domain : tuple of str
        The declared categories, at least one, distinct.
    other : bool, default False
        Whether a value outside the domain (or a missing one) has its own ``(other)`` column; otherwise it sets
        no column. Declared before the data is read: no count decides it.
    """

    column: str
    domain: tuple[str, ...]
    other: bool = False

    def __post_init__(self):
        domain = tuple(str(d).strip() for d in self.domain)
        if not domain or len(set(domain)) != len(domain) or not all(domain):
            raise ValueError(
                f"the categories of '{self.column}' must be at least one distinct non-empty value, got {len(domain)}"
            )
        if len(domain) > domains.MAX_DOMAIN:
            raise ValueError(
                f"the categories of '{self.column}' must be at most {domains.MAX_DOMAIN:,}, got {len(domain):,}"
            )
        object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "other", bool(self.other))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f"{self.column}={value}" for value in (*self.domain, *((OTHER,) if self.other else ())))

    def encode(self, series: pd.Series) -> np.ndarray:
        """The one-hot columns, shape (n, len(names)): every row is coded, outside the domain as its rule says."""
        codes = domains.encode_in_domain(series, list(self.domain), True, every_row=True)  # outside: len(domain)
        onehot = np.zeros((codes.size, len(self.names)))
        kept = codes < onehot.shape[1]  # without (other), a code past the domain sets no column
        onehot[np.flatnonzero(kept), codes[kept]] = 1.0
        return onehot

    def facts(self) -> tuple[PublicFact, ...]:
        rule = f"the column {self.column}={OTHER}" if self.other else "no column"
        return (
            PublicFact(f"categories of {self.column}", ", ".join(self.domain), "declared"),
            PublicFact(
                f"outside the categories of {self.column}", f"a value outside them, or missing: {rule}", "declared"
            ),
        )


@dataclass(frozen=True, eq=False)
class DeclaredFeatures:
    """The arrays of a published model, built from declarations alone.

    Attributes
    ----------
    X : numpy.ndarray of float64, shape (n, d)
        Every row of the table, each entry in [−1, 1].
    y : numpy.ndarray of int64 (0/1), shape (n,)
    feature_names : tuple of str
        From the declarations alone (:func:`declared_feature_names`).
    facts : tuple of PublicFact
        The declarations, as a release carries them.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    facts: tuple[PublicFact, ...]


def declared_feature_names(schema) -> tuple[str, ...]:
    """The columns of the model a ``schema`` declares, in order: known before any data is read.

    >>> declared_feature_names([NumericDeclaration("age", 17, 90), CategoricalDeclaration("sex", ("F", "M"), True)])
    ('age', 'sex=F', 'sex=M', 'sex=(other)')
    """
    names = tuple(name for declaration in schema for name in declaration.names)
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"the declared features must have distinct names, got '{repeated[0]}' twice")
    return names


def declared_features(frame: pd.DataFrame, target: str, positive: str, schema) -> DeclaredFeatures:
    """Features and labels of a publication from declarations alone: nothing is read from the data but each row.

    Module notes for the rules. Every row is kept (a missing target is label 0, a missing feature value follows its
    declaration's rule).

    Parameters
    ----------
    frame : pandas.DataFrame
    target : str
        The column to predict.
    positive : str
        The declared value of ``target`` that is label 1 (compared as trimmed text, "3" matching 3.0).
    schema : sequence of NumericDeclaration or CategoricalDeclaration
        At least one; none of them on ``target``.

    Returns
    -------
    DeclaredFeatures

    Examples
    --------
    >>> df = pd.DataFrame({"age": [20, 95, None], "sex": ["F", "X", "M"], "rich": ["y", "n", "y"]})
    >>> f = declared_features(df, "rich", "y", [NumericDeclaration("age", 20, 80), CategoricalDeclaration("sex", ("F", "M"))])
    >>> f.feature_names, f.X.tolist(), f.y.tolist()
    (('age', 'sex=F', 'sex=M'), [[-1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [1, 0, 1])
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if target not in frame.columns:
        raise ValueError(f"target must be a column of the table, got '{target}'")
    positive = "" if positive is None else str(positive).strip()
    if not positive:
        raise ValueError(f"the value of '{target}' that is label 1 must be declared, got nothing")
    schema = list(schema)
    if not schema:
        raise ValueError("the declared features must list at least one column, got none")
    for declaration in schema:
        if not isinstance(declaration, NumericDeclaration | CategoricalDeclaration):
            raise TypeError(f"schema must hold feature declarations, got {type(declaration).__name__}")
        if declaration.column not in frame.columns or declaration.column == target:
            raise ValueError(
                f"a declared feature must be a column of the table other than '{target}', got '{declaration.column}'"
            )
    names = declared_feature_names(schema)
    y = (domains.encode_in_domain(frame[target], [positive], True, every_row=True) == 0).astype(np.int64)
    X = np.hstack([declaration.encode(frame[declaration.column]) for declaration in schema])
    label = PublicFact("label", f"1 when {target} is '{positive}', else 0 (a missing {target} too)", "declared")
    facts = (label, *(fact for declaration in schema for fact in declaration.facts()))
    return DeclaredFeatures(X=np.ascontiguousarray(X), y=y, feature_names=names, facts=facts)
