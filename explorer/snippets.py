"""The downloadable Python snippets: the release function that drew the page, with the page's arguments.

Each snippet is built here from the real source of a function in
:mod:`explorer.releases` (``inspect.getsource``, as Streamlit's own ``hello``
app shows its demos), so that it cannot drift from what the page computed;
``tests/test_snippets.py`` runs every one against the demo data and compares
what it prints with what the page shows.
"""

from __future__ import annotations

import inspect

from explorer import releases
from explorer.dataset import Dataset

__all__ = [
    "local_counts",
    "local_mean",
    "central_query",
    "count_matching",
    "category_counts",
    "most_common",
    "range_queries",
    "clipping_bound",
    "automatic_mean",
    "compare_counts",
    "compare_means",
    "private_model",
]

_HEADER = '''"""Reproduce a DP Explorer release: same data, same seed, same numbers.

Needs the dp-explorer package (dpcore and explorer): pip install -e <the repository>.
"""
'''


def _imports() -> str:
    """The import block of :mod:`explorer.releases`, the names every release function uses, as they are written there."""
    source = inspect.getsource(releases)
    return source[source.index("import numpy") : source.index("\n__all__")].rstrip() + "\n"


def _load(ds: Dataset) -> str:
    if ds.demo:
        return f"ds = load_demo({ds.demo!r})"
    return f"ds = load_csv(open({ds.name!r}, 'rb').read(), {ds.name!r})  # the file you uploaded, beside this script"


def _build(ds: Dataset, prepare: str, function, call: str, show: str) -> str:
    functions = function if isinstance(function, tuple) else (function,)  # the release and the helpers it calls
    return (
        _HEADER
        + _imports()
        + "from explorer.columns import condition_mask, encode_categories, numeric_values\n"
        + "from explorer.dataset import load_csv, load_demo\n\n\n"
        + "\n\n".join(inspect.getsource(f) for f in functions)
        + "\n\n"
        + _load(ds)
        + "\n"
        + prepare
        + f"release = {call}\n"
        + show
        + "\n"
    )


def _column(column: str) -> str:
    return f"ds.frame[{column!r}]"


def local_counts(ds: Dataset, column: str, oracle: str, epsilon: float, seed, valid_histogram: bool) -> str:
    """The snippet of :func:`explorer.releases.local_counts`."""
    return _build(
        ds,
        f"codes, labels, _ = encode_categories({_column(column)})\n",
        releases.local_counts,
        f"local_counts(codes, labels, {oracle!r}, {epsilon!r}, {list(seed)!r}, valid_histogram={valid_histogram!r})",
        "print(release.to_csv(index=False))",
    )


def central_query(ds: Dataset, column: str, query: str, epsilon: float, seed, **options) -> str:
    """The snippet of :func:`explorer.releases.central_query` (``options``: noise, delta, bounds, bins, split)."""
    kw = "".join(f", {k}={v!r}" for k, v in options.items() if v is not None)
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})  # missing values are left out\n",
        releases.central_query,
        f"central_query(values, {query!r}, {epsilon!r}, {list(seed)!r}{kw})",
        "print(np.atleast_1d(release.noisy_value).tolist())",
    )


def most_common(ds: Dataset, column: str, epsilon: float, seed) -> str:
    """The snippet of :func:`explorer.releases.most_common`."""
    return _build(
        ds,
        f"codes, labels, _ = encode_categories({_column(column)})\n",
        releases.most_common,
        f"most_common(codes, labels, {epsilon!r}, {list(seed)!r})",
        "print(release)",
    )


def range_queries(ds: Dataset, column: str, lower, upper, n_queries, threshold_share, c, epsilon, seeds) -> str:
    """The snippet of :func:`explorer.releases.range_queries`; prints the SVT release (no true counts)."""
    args = f"{lower!r}, {upper!r}, {n_queries!r}, {threshold_share!r}, {c!r}, {epsilon!r}, {[list(s) for s in seeds]!r}"
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})\n",
        releases.range_queries,
        f"range_queries(values, {args})",
        'print(release[["range", "passed SVT", "SVT answer"]].to_csv(index=False))',
    )


def compare_counts(ds: Dataset, column: str, mechanisms, epsilon: float, delta: float, seed) -> str:
    """The snippet of :func:`explorer.releases.compare_counts`."""
    return _build(
        ds,
        f"codes, labels, _ = encode_categories({_column(column)})\n",
        releases.compare_counts,
        f"compare_counts(codes, labels, {list(mechanisms)!r}, {epsilon!r}, {delta!r}, {list(seed)!r})",
        "print(release.to_csv(index=False))",
    )


def compare_means(ds: Dataset, column: str, lower, upper, mechanisms, epsilon: float, delta: float, seed) -> str:
    """The snippet of :func:`explorer.releases.compare_means`."""
    args = f"{lower!r}, {upper!r}, {list(mechanisms)!r}, {epsilon!r}, {delta!r}, {list(seed)!r}"
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})\n",
        releases.compare_means,
        f"compare_means(values, {args})",
        "print(release.to_csv(index=False))",
    )


def count_matching(ds: Dataset, column: str, condition: str, value, epsilon: float, seed, noise, delta) -> str:
    """The snippet of :func:`explorer.releases.count_matching` (prints the published count)."""
    return _build(
        ds,
        f"mask = condition_mask({_column(column)}, {condition!r}, {value!r})  # {column} {condition} {value}\n",
        releases.count_matching,
        f"count_matching(mask, {epsilon!r}, {list(seed)!r}, {noise!r}, {delta!r})",
        "print(np.atleast_1d(release.noisy_value).tolist())",
    )


def category_counts(ds: Dataset, column: str, epsilon: float, seed, noise, delta) -> str:
    """The snippet of :func:`explorer.releases.category_counts` (prints the published counts)."""
    return _build(
        ds,
        f"codes, labels, _ = encode_categories({_column(column)})\n",
        releases.category_counts,
        f"category_counts(codes, labels, {epsilon!r}, {list(seed)!r}, {noise!r}, {delta!r})",
        "print(np.atleast_1d(release.noisy_value).tolist())",
    )


def local_mean(ds: Dataset, column: str, lower: float, upper: float, epsilon: float, seed) -> str:
    """The snippet of :func:`explorer.releases.local_mean` (prints the estimate)."""
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})  # missing values are left out\n",
        releases.local_mean,
        f"local_mean(values, {lower!r}, {upper!r}, {epsilon!r}, {list(seed)!r})",
        "print(release)",
    )


def clipping_bound(ds: Dataset, column: str, largest: float, n_candidates: int, epsilon: float, seed) -> str:
    """The snippet of :func:`explorer.releases.clipping_bound` (prints the chosen bound)."""
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})\n",
        releases.clipping_bound,
        f"clipping_bound(values, {largest!r}, {n_candidates!r}, {epsilon!r}, {list(seed)!r})",
        "print(release)",
    )


def automatic_mean(ds: Dataset, column: str, largest: float, n_candidates: int, epsilon: float, seed) -> str:
    """The snippet of :func:`explorer.releases.automatic_mean` (prints the published mean and the bound it chose)."""
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})\n",
        releases.automatic_mean,
        f"automatic_mean(values, {largest!r}, {n_candidates!r}, {epsilon!r}, {list(seed)!r})",
        "print(release.noisy_value, release.bound)",
    )


def private_model(
    ds: Dataset, target: str, label: dict, columns, split_seed, method: str, settings: dict, seed, draws: int
) -> str:
    """The snippet of :func:`explorer.releases.private_model`: the features prepared as on the page, then the run.

    ``label`` holds ``positive`` or ``threshold`` (what label 1 means); ``columns`` are the feature columns.
    Prints the release: draw 0's weights and the (ε, δ) they cost.
    """
    options = "".join(f", {k}={v!r}" for k, v in label.items() if v is not None)
    prepare = (
        "from explorer.features import prepare_features  # not private: the scaling statistics are read from the data\n\n"
        f"features = prepare_features(ds.frame, {target!r}{options}, features={list(columns)!r}, "
        f"rng=np.random.default_rng({list(split_seed)!r}))\n"
        "X, y, X_test, y_test = features.X_train, features.y_train, features.X_test, features.y_test\n"
    )
    return _build(
        ds,
        prepare,
        (releases.split_clients, releases.private_model),
        f"private_model({method!r}, X, y, features.feature_names, {settings!r}, {list(seed)!r}, draws={draws!r}, "
        "X_test=X_test, y_test=y_test)",
        "result, weights = release\nprint(weights.to_csv(index=False))",
    )
