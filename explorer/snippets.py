"""The downloadable Python snippets: the release function that drew the page, with the page's arguments.

A snippet reproduces a SIMULATED release (seeded noise, recomputable by anyone with the seed: not
private). Its docstring says so and how to publish instead, and the first line it prints is
:data:`explorer.export.SIMULATED_NOTE`, as every simulated file says on each row.

Each snippet is built here from the real source of a function in
:mod:`explorer.releases` (``inspect.getsource``, as Streamlit's own ``hello``
app shows its demos), so that it cannot drift from what the page computed;
``tests/test_snippets.py`` runs every one against the demo data and compares
what it prints with what the page shows.

A snippet is code that the user runs, and column names, values and file names
come from whoever wrote the CSV file. Every one of them is written into a
snippet by :func:`_literal`, as a Python literal (``repr``) checked to read
back as the same value, never as raw text: a line break in a name cannot end a
comment or a string and start a line of code. Comments hold fixed text only.
"""

from __future__ import annotations

import ast
import inspect
import math

import numpy as np

from explorer import releases
from explorer.dataset import Dataset
from explorer.export import SIMULATED_NOTE

__all__ = [
    "local_counts",
    "local_mean",
    "central_query",
    "count_matching",
    "category_counts",
    "two_way_table",
    "period_counts",
    "quantile",
    "most_common",
    "range_queries",
    "clipping_bound",
    "automatic_mean",
    "compare_counts",
    "compare_means",
    "compare_quantiles",
    "private_model",
]

#: The opening of every snippet: what it reproduces is a simulation (explorer.export.SIMULATED_NOTE, one home for the
#: sentence), and how to publish instead.
_HEADER = f'''"""Reproduce a SIMULATED DP Explorer release: same data, same seed, same numbers.

{SIMULATED_NOTE[0].upper() + SIMULATED_NOTE[1:]}.
The seed is written below, so anyone with this file can recompute the noise and
subtract it: publish nothing this script prints. To publish, use the view's
Publish section in the app (fresh secure noise, charged to the publication log), or:
    python -m dpx_publish publish plan.json data.csv --out release.zip

Needs the dp-explorer package (dpcore and explorer): pip install -e <the repository>.
"""
'''

#: The first line every snippet prints: what follows is simulated, not private (as every simulated file says).
_SAY_SIMULATED = "print('#', SIMULATED_NOTE)  # the first line printed: what follows is a simulation\n"


def _imports() -> str:
    """The import block of :mod:`explorer.releases`, the names every release function uses, as they are written there."""
    source = inspect.getsource(releases)
    return source[source.index("import numpy") : source.index("\n__all__")].rstrip() + "\n"


def _plain(value):
    """``value`` as plain Python (numpy scalars and arrays converted), refusing what has no literal."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    kind = type(value)  # exact types: a subclass could write itself as anything
    if value is None or kind in (str, int, bool):
        return value
    if kind is float:
        if not math.isfinite(value):  # repr gives nan or inf: names, not literals
            raise ValueError(f"a number written into a snippet must be finite, got {value!r}")
        return value
    if kind in (list, tuple):
        return kind(_plain(item) for item in value)
    if kind is dict:
        return {_plain(key): _plain(item) for key, item in value.items()}
    raise TypeError(
        "a value written into a snippet must be a str, int, float, bool or None, or a list, tuple or dict of them, "
        f"got {kind.__name__}"
    )


def _literal(value) -> str:
    """The Python literal of ``value``: the one way anything is written into a snippet.

    ``repr`` of a plain value is a literal, and ``repr`` of a str escapes every line break
    (``\\n``, ``\\r``, ``\\x0c``, U+2028, U+2029), quotes and backslashes, so no name or value
    can end the literal and start code. The text is checked to hold only printable characters
    and to read back (``ast.literal_eval``) as the same value, of the same types.

    Raises
    ------
    TypeError
        When ``value`` (or an item of it) is not a str, int, float, bool or None, or a list,
        tuple or dict of them (numpy scalars and arrays are converted first).
    ValueError
        When a number is not finite, or the text does not read back as the value.
    """
    plain = _plain(value)
    text = repr(plain)
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(f"a value written into a snippet must read back as itself, got {text}") from None
    if not text.isprintable() or back != plain or repr(back) != text:
        raise ValueError(f"a value written into a snippet must read back as itself, got {text}")
    return text


def _args(*values) -> str:
    """The literals of ``values``, separated by commas: a call's positional arguments."""
    return ", ".join(map(_literal, values))


def _keywords(options: dict, allowed) -> str:
    """``, name=literal`` for every option that is not None; each name must be one of ``allowed``."""
    for name in options:
        if type(name) is not str or name not in allowed:
            raise ValueError(f"option must be one of {', '.join(allowed)}, got {name!r}")
    return "".join(f", {name}={_literal(value)}" for name, value in options.items() if value is not None)


def _optional(function) -> tuple[str, ...]:
    """The parameters of ``function`` that have a default: those a snippet may pass by name."""
    parameters = inspect.signature(function).parameters.values()
    return tuple(p.name for p in parameters if p.default is not inspect.Parameter.empty)


def _load(ds: Dataset) -> str:
    if ds.demo:
        return f"ds = load_demo({_literal(ds.demo)})"
    name = _literal(ds.name)
    return f"ds = load_csv(open({name}, 'rb').read(), {name})  # the file you uploaded, beside this script"


def _build(ds: Dataset, prepare: str, function, call: str, show: str) -> str:
    functions = function if isinstance(function, tuple) else (function,)  # the release and the helpers it calls
    return (
        _HEADER
        + _imports()
        + "from explorer.columns import condition_mask, encode_categories, numeric_values, parse_dates, period_codes\n"
        + "from explorer.dataset import load_csv, load_demo\n"
        + "from explorer.export import SIMULATED_NOTE\n\n\n"
        + "\n\n".join(inspect.getsource(f) for f in functions)
        + "\n\n"
        + _load(ds)
        + "\n"
        + prepare
        + f"release = {call}\n"
        + _SAY_SIMULATED
        + show
        + "\n"
    )


#: What a central snippet prints: the release rounded as the page shows it (explorer.export.rounded, one rule).
_PRINT_ROUNDED = (
    "from explorer.export import rounded  # a count to whole units, any other number to what its noise allows\n\n"
    "std = release.approx_std if hasattr(release, 'approx_std') else release.mechanism.std\n"
    "print(np.atleast_1d(rounded(release.noisy_value, std, release.query)).tolist())"
)


def _column(column: str) -> str:
    return f"ds.frame[{_literal(column)}]"


def local_counts(ds: Dataset, column: str, oracle: str, epsilon: float, seed, valid_histogram: bool) -> str:
    """The snippet of :func:`explorer.releases.local_counts`."""
    return _build(
        ds,
        f"codes, labels, _ = encode_categories({_column(column)})\n",
        releases.local_counts,
        f"local_counts(codes, labels, {_args(oracle, epsilon, list(seed))}, valid_histogram={_literal(valid_histogram)})",
        "print(release.to_csv(index=False))",
    )


def central_query(ds: Dataset, column: str, query: str, epsilon: float, seed, **options) -> str:
    """The snippet of :func:`explorer.releases.central_query` (``options``: noise, delta, lower, upper, bins, split)."""
    kw = _keywords(options, _optional(releases.central_query))
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})  # missing values are left out\n",
        releases.central_query,
        f"central_query(values, {_args(query, epsilon, list(seed))}{kw})",
        _PRINT_ROUNDED,
    )


def most_common(ds: Dataset, column: str, epsilon: float, seed) -> str:
    """The snippet of :func:`explorer.releases.most_common`."""
    return _build(
        ds,
        f"codes, labels, _ = encode_categories({_column(column)})\n",
        releases.most_common,
        f"most_common(codes, labels, {_args(epsilon, list(seed))})",
        "print(release)",
    )


def range_queries(ds: Dataset, column: str, lower, upper, n_queries, threshold_share, c, epsilon, seeds) -> str:
    """The snippet of :func:`explorer.releases.range_queries`; prints the SVT release (no true counts)."""
    args = _args(lower, upper, n_queries, threshold_share, c, epsilon, [list(s) for s in seeds])
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})\n",
        (releases.random_ranges, releases.whole_counts, releases.range_queries),
        f"range_queries(values, {args})",
        'print(release[["range", "passed SVT", "SVT answer"]].to_csv(index=False))',
    )


def compare_counts(ds: Dataset, column: str, mechanisms, epsilon: float, delta: float, seed, relation: str) -> str:
    """The snippet of :func:`explorer.releases.compare_counts`."""
    return _build(
        ds,
        f"codes, labels, _ = encode_categories({_column(column)})\n",
        releases.compare_counts,
        f"compare_counts(codes, labels, {_args(list(mechanisms), epsilon, delta, list(seed), relation)})",
        "print(release.to_csv(index=False))",
    )


def compare_means(ds: Dataset, column: str, lower, upper, mechanisms, epsilon: float, delta: float, seed) -> str:
    """The snippet of :func:`explorer.releases.compare_means`."""
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})\n",
        releases.compare_means,
        f"compare_means(values, {_args(lower, upper, list(mechanisms), epsilon, delta, list(seed))})",
        "print(release.to_csv(index=False))",
    )


def compare_quantiles(ds: Dataset, column: str, q, lower, upper, bins, mechanisms, epsilon, delta, seed) -> str:
    """The snippet of :func:`explorer.releases.compare_quantiles`."""
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})\n",
        releases.compare_quantiles,
        f"compare_quantiles(values, {_args(q, lower, upper, bins, list(mechanisms), epsilon, delta, list(seed))})",
        "print(release.to_csv(index=False))",
    )


def count_matching(
    ds: Dataset, column: str, condition: str, value, epsilon: float, seed, noise, delta, second=None
) -> str:
    """The snippet of :func:`explorer.releases.count_matching` (prints the simulated count); with ``second`` (a
    second condition: its column, condition and value), of :func:`explorer.releases.count_matching_all`."""
    if second is not None:
        other, other_condition, other_value = second
        return _build(
            ds,
            f"masks = [condition_mask({_column(column)}, {_args(condition, value)}), "
            f"condition_mask({_column(other)}, {_args(other_condition, other_value)})]\n",
            releases.count_matching_all,
            f"count_matching_all(masks, {_args(epsilon, list(seed), noise, delta)})",
            _PRINT_ROUNDED,
        )
    return _build(
        ds,
        f"mask = condition_mask({_column(column)}, {_args(condition, value)})\n",
        releases.count_matching,
        f"count_matching(mask, {_args(epsilon, list(seed), noise, delta)})",
        _PRINT_ROUNDED,
    )


def category_counts(ds: Dataset, column: str, epsilon: float, seed, noise, delta) -> str:
    """The snippet of :func:`explorer.releases.category_counts` (prints the simulated counts)."""
    return _build(
        ds,
        f"codes, labels, _ = encode_categories({_column(column)})\n",
        releases.category_counts,
        f"category_counts(codes, labels, {_args(epsilon, list(seed), noise, delta)})",
        _PRINT_ROUNDED,
    )


def two_way_table(ds: Dataset, rows: str, columns: str, epsilon: float, seed, noise, delta) -> str:
    """The snippet of :func:`explorer.releases.two_way_table` over the categories read from the two columns (prints
    the cells' counts, row by row)."""
    prepare = (
        f"row_codes, row_labels, _ = encode_categories({_column(rows)})\n"
        f"column_codes, column_labels, _ = encode_categories({_column(columns)})\n"
        "shape = (len(row_labels), len(column_labels))\n"
    )
    return _build(
        ds,
        prepare,
        releases.two_way_table,
        f"two_way_table(row_codes, column_codes, shape, {_args(epsilon, list(seed), noise, delta)})",
        _PRINT_ROUNDED,
    )


def period_counts(
    ds: Dataset, column: str, period: str, first_year: int, last_year: int, epsilon: float, seed, noise, delta
) -> str:
    """The snippet of :func:`explorer.releases.category_counts` over the periods (years or months) of a range of
    years (prints the counts, period by period)."""
    return _build(
        ds,
        f"codes, labels = period_codes(parse_dates({_column(column)}), {_args(period, first_year, last_year)})\n",
        releases.category_counts,
        f"category_counts(codes, labels, {_args(epsilon, list(seed), noise, delta)})",
        _PRINT_ROUNDED,
    )


def quantile(ds: Dataset, column: str, q: float, lower: float, upper: float, epsilon: float, seed) -> str:
    """The snippet of :func:`explorer.releases.quantile` (prints the released value)."""
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})  # missing values are left out\n",
        releases.quantile,
        f"quantile(values, {_args(q, lower, upper, epsilon, list(seed))})",
        "print(release.noisy_value)",
    )


def local_mean(ds: Dataset, column: str, lower: float, upper: float, epsilon: float, seed) -> str:
    """The snippet of :func:`explorer.releases.local_mean` (prints the estimate)."""
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})  # missing values are left out\n",
        releases.local_mean,
        f"local_mean(values, {_args(lower, upper, epsilon, list(seed))})",
        "print(release)",
    )


def clipping_bound(ds: Dataset, column: str, largest: float, n_candidates: int, epsilon: float, seed) -> str:
    """The snippet of :func:`explorer.releases.clipping_bound` (prints the chosen bound)."""
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})\n",
        releases.clipping_bound,
        f"clipping_bound(values, {_args(largest, n_candidates, epsilon, list(seed))})",
        "print(release)",
    )


def automatic_mean(ds: Dataset, column: str, largest: float, n_candidates: int, epsilon: float, seed) -> str:
    """The snippet of :func:`explorer.releases.automatic_mean` (prints the simulated mean and the bound it chose)."""
    return _build(
        ds,
        f"values, dropped = numeric_values({_column(column)})\n",
        releases.automatic_mean,
        f"automatic_mean(values, {_args(largest, n_candidates, epsilon, list(seed))})",
        "print(release.noisy_value, release.bound)",
    )


#: What label 1 means, as :func:`explorer.features.prepare_features` takes it (``label`` of :func:`private_model`).
_LABEL_OPTIONS = ("positive", "threshold")


def private_model(
    ds: Dataset,
    target: str,
    label: dict,
    columns,
    split_seed,
    method: str,
    settings: dict,
    seed,
    draws: int,
    max_rows: int | None = None,
) -> str:
    """The snippet of :func:`explorer.releases.private_model`: the features prepared as on the page, then the run.

    ``label`` holds ``positive`` or ``threshold`` (what label 1 means); ``columns`` are the feature columns;
    ``max_rows`` the page's cap on the rows it trains on (the same seeded subset is drawn again).
    Prints the release: draw 0's weights and the (ε, δ) they cost.
    """
    prepare = (
        "from explorer.features import prepare_features  # not private: the scaling statistics are read from the data\n\n"
        f"features = prepare_features(ds.frame, {_literal(target)}{_keywords(label, _LABEL_OPTIONS)}, "
        f"features={_literal(list(columns))}, rng=np.random.default_rng({_literal(list(split_seed))})"
        + ("" if max_rows is None else f", max_rows={_literal(int(max_rows))}")
        + ")\n"
        "X, y, X_test, y_test = features.X_train, features.y_train, features.X_test, features.y_test\n"
    )
    return _build(
        ds,
        prepare,
        (releases.split_clients, releases.private_model),
        f"private_model({_literal(method)}, X, y, features.feature_names, {_args(settings, list(seed))}, "
        f"draws={_literal(draws)}, X_test=X_test, y_test=y_test)",
        "result, weights = release\nprint(weights.to_csv(index=False))",
    )
