"""The Central DP page's true answers over every row of a file opened by path, computed by DuckDB (issue 22).

A file of the data folder larger than :data:`explorer.dataset.SAMPLE_ROWS` rows is opened as a seeded sample
(:attr:`explorer.dataset.Dataset.sampled`). The views that need only aggregates (a count, a clipped sum, a mean as
sum over count, a histogram over declared bins, the counts of listed categories, a count of the rows meeting
conditions chosen from lists) take their true answers from the engine instead: :mod:`explorer.engine.aggregates`
over the whole file (:func:`whole_numeric`, :func:`whole_categories`, :func:`whole_matching`), so memory follows the
number of bins, not of rows. The seeded noise of the simulation is then added to those numbers (noise needs no
rows): :func:`on_whole` puts the whole file's truths into the release dpcore drew on the sample (its noise law,
sensitivity and ε are dpcore's and need no rows either), :func:`drawn` draws the seeded noise around them. Nothing
here decides a privacy fact.

Each aggregate is cached per file (path and fingerprint), cell rules and query settings
(:func:`explorer.cache.bounded`), so a move of ε, δ or the noise reruns no scan; a new column, bound, bin count,
condition or seed scans once.

Cell rules: the same as the loader's where SQL can say them alike (:mod:`explorer.csv_reader`): names stripped, a
short cell spelled as missing (:data:`explorer.csv_reader.NA_SPELLINGS`) is missing, a number that is not finite is
missing. A column whose numbers the loader read with a decimal comma or thousands separators, a JSON file, or a
column whose name is not the file's (renamed while loading) is left to the sample, and the page says so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.contributions import ContributionBounds
from dpcore.queries import MeanResult
from explorer import cache, full_file_scan, jobs, state
from explorer.columns import MISSING_LABEL, NUMBER_CONDITIONS, OTHER_LABEL, TEXT_CONDITIONS, is_numeric
from explorer.csv_reader import NA_SPELLINGS
from explorer.engine import aggregates
from explorer.markup import md

__all__ = [
    "ON_SAMPLE",
    "SLOT",
    "INLINE_SECONDS",
    "SECONDS_PER_ROW",
    "estimated_seconds",
    "in_pool",
    "Whole",
    "whole_numeric",
    "whole_categories",
    "whole_matching",
    "on_whole",
    "drawn",
    "rows_words",
    "sample_words",
    "pending_words",
    "sample_note",
]

#: The Central DP queries that stay on the sample of a file opened by path, and why (the others' truths are over the
#: whole file).
ON_SAMPLE = {
    "Quantile": "the exponential mechanism scores every candidate against the rows",
    "Two-way table": "its cells are not yet computed by the engine",
    "Per year or month": "its dates are read on the rows of the sample, not yet in SQL",
}

#: The most a finite double can be: the "clipping" bounds of an unclipped sum (they change no finite value).
_LARGEST = float(np.finfo(np.float64).max)
#: Numeric types of DuckDB read as numbers as they are (others are text, read by the loader's rules).
_NUMBER_TYPES = (
    *("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "FLOAT", "DOUBLE", "DECIMAL"),
    *("UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"),
)
#: The scans' places in the session's jobs: ``full_file_0`` for a view's first aggregate, ``full_file_1`` for its
#: second (one job each at a time).
SLOT = "full_file"
#: Estimated CPU seconds of a scan above which it runs in the server's pool (issue 23: a rerun may spend 2 s; with the
#: page's own work, about 0.3 s, and the view's other scan, this leaves room for a loaded server, as the Audit page's).
INLINE_SECONDS = 0.8
#: CPU seconds per row of the file of one aggregate's scan, measured on Parquet files of 10⁶, 3·10⁶ and 10⁷ rows
#: (``benchmarks.bench_heavy.write_heavy_parquet``, 2 cores): a clipped sum under a person unit, whose rows the
#: engine bounds by a window over every row (3.2·10⁻⁷ to 3.4·10⁻⁷: 3.2 s at 10⁷ rows), and any other (a count under a
#: person unit is one GROUP BY, 5·10⁻⁸; an unbounded sum or a histogram 3·10⁻⁸). So the numeric views
#: (:func:`whole_numeric`) compute a person-bounded sum or mean in the pool on a file above about 2.3 million rows
#: (estimated 3.5 s at 10⁷), any other scan above about 13 million; the scans of category counts and of conditions
#: stay in the rerun (0.25 to 0.49 s of CPU at 10⁷ rows, benchmarks/results/heavy_path.md).
SECONDS_PER_ROW = {"window": 3.5e-7, "scan": 6e-8}


@dataclass(frozen=True)
class Whole:
    """One query's exact aggregates over the whole file.

    ``rows``: rows kept (a value present; at most m per person under a person unit); ``total``: their clipped sum;
    ``every_rows`` and ``every_total``: every row with a value and their unclipped sum (no bounding); ``below`` and
    ``above``: values strictly outside the clipping bounds; ``counts``: per bin or category; ``file_rows``: the
    file's rows; ``left_out``: rows in no listed category (categories only).
    """

    file_rows: int
    rows: int = 0
    total: float = 0.0
    every_rows: int = 0
    every_total: float = 0.0
    below: int = 0
    above: int = 0
    counts: tuple[int, ...] | None = None
    left_out: int = 0


# --- reading the file ----------------------------------------------------------------------------------------------


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


_reader, _connect = full_file_scan.reader, full_file_scan.connect


@cache.bounded(1 * cache.MIB)  # a file's column names and types: a few kB
def _schema(path: str, fingerprint: str) -> tuple[tuple[str, str], ...] | None:
    reader = _reader(path)
    if reader is None:
        return None
    import duckdb

    con = _connect()
    try:
        return tuple((str(r[0]), str(r[1])) for r in con.execute(f"DESCRIBE SELECT * FROM {reader}").fetchall())
    except duckdb.Error:  # DuckDB reads it otherwise than the loader did (its sniffer): left to the sample
        return None
    finally:
        con.close()


def _scan(path: str, select: str, queries: list) -> list[pd.DataFrame]:
    """The engine's aggregates of ``queries`` over ``select`` in this process (:func:`explorer.full_file_scan.scan`)."""
    return full_file_scan.scan(path, select, queries)


class _Pending(Exception):
    """A scan is computing in the pool: nothing to keep yet (the cache keeps no exception)."""


@cache.bounded(4 * cache.MIB, spinner="Computing over every row of the file with DuckDB…")  # ≤ 200 rows each
def _aggregate(path: str, fingerprint: str, select: str, query: aggregates.Aggregate, _rows: int = 0, _slot=SLOT):
    """One aggregate over the file, kept per file, cell rules and query: an ε move reads it back, never rescans.
    A refusal is kept too, as its one sentence (a row without a person; a cell DuckDB cannot read).

    A scan estimated above :data:`INLINE_SECONDS` for the file's ``_rows`` (:func:`in_pool`) is computed in the
    server's pool by the same function (:func:`explorer.full_file_scan.aggregate`): until it is done this draws where
    the job is (with a Cancel button) and raises :class:`_Pending`; once done, its result is kept here like any
    other, so the next rerun reads it back and submits nothing."""
    if not in_pool(query, _rows):
        return full_file_scan.aggregate(path, select, query, _scan)
    key = ("full_file", path, fingerprint, select, repr(query))
    found = jobs.background(
        _slot,
        key,
        [jobs.Call(full_file_scan.aggregate, (path, select, query))],
        label=f"The true answers over all {_rows:,} rows (DuckDB)",
        estimate=estimated_seconds(query, _rows),
    )
    if found is None:
        raise _Pending
    return found[0]


def estimated_seconds(query: aggregates.Aggregate, rows: int) -> float:
    """Estimated CPU seconds of one aggregate's scan over a file of ``rows`` rows (:data:`SECONDS_PER_ROW`)."""
    window = query.person is not None and query.value is not None
    return int(rows) * SECONDS_PER_ROW["window" if window else "scan"]


def in_pool(query: aggregates.Aggregate, rows: int) -> bool:
    """Whether the scan of ``query`` over a file of ``rows`` rows runs in the server's pool, not in the rerun."""
    return estimated_seconds(query, rows) > INLINE_SECONDS


def _column(ds, column: str) -> tuple[str, str] | None:
    """The file's column behind the sample's ``column`` and its DuckDB type, or None when it cannot be read alike."""
    schema = _schema(ds.path, ds.fingerprint)
    if schema is None:
        return None
    found = [(n, t) for n, t in schema if n.strip() == column]
    if len(found) != 1:
        return None
    if any(column in note and ("decimal comma" in note or "Thousands" in note) for note in ds.notes):
        return None
    return found[0]


def _number(name: str, kind: str) -> str:
    """A column's cells as finite doubles (NULL for a missing, non-numeric or infinite cell)."""
    quoted = aggregates.DUCKDB.identifier(name)
    if kind.startswith(_NUMBER_TYPES):
        x = f"CAST({quoted} AS DOUBLE)"
    else:
        x = f"TRY_CAST(trim(CAST({quoted} AS VARCHAR)) AS DOUBLE)"
    return f"CASE WHEN isfinite({x}) THEN {x} END"


def _text(name: str) -> str:
    """A column's cells as stripped text (NULL for a cell spelled as missing)."""
    t = f"trim(CAST({aggregates.DUCKDB.identifier(name)} AS VARCHAR))"
    spellings = ", ".join(_literal(s) for s in sorted(NA_SPELLINGS))
    return f"CASE WHEN {t} IS NULL OR lower({t}) IN ({spellings}) THEN NULL ELSE {t} END"


def _run(ds, select: str, queries, pool: bool = False) -> list[pd.DataFrame] | str | None:
    """The aggregates of ``queries``, or the first one's refusal in one sentence. With ``pool``, a scan estimated
    above the rerun's share goes to the server's pool (:func:`in_pool`): None while it computes there (where it is
    was drawn; the other scans are computed meanwhile and kept)."""
    found = []
    rows = int(ds.total_rows) if pool else 0
    for i, q in enumerate(queries):
        try:
            found.append(_aggregate(ds.path, ds.fingerprint, select, q, _rows=rows, _slot=f"{SLOT}_{i}"))
        except _Pending:
            found.append(None)
    if any(f is None for f in found):
        return None
    return next((f for f in found if isinstance(f, str)), found)


# --- the queries ---------------------------------------------------------------------------------------------------


def whole_numeric(ds, column: str, query: str, settings: dict, unit=None, seed=None) -> Whole | str | None:
    """The exact aggregates of a count, clipped sum, mean or histogram of ``column`` over the whole file of ``ds``.

    ``settings`` are the view's (``lower``, ``upper``, ``bins``); ``unit`` a declared person unit (its identifier
    and ``bounds.max_rows``), whose rows the engine bounds by a keyed hash of ``seed`` (the page's seed, in a
    simulation). Returns the aggregates, or one sentence saying why they stay on the sample, or None while a scan
    estimated above the rerun's share computes in the server's pool (:func:`in_pool`; its place in the queue, with a
    Cancel button, drawn where this was called).
    """
    person = unit is not None and unit.identifier is not None
    if person and query == "histogram":
        return (
            "under a person unit the histogram keeps at most m of each person's rows in any bins, a bounding the "
            "engine does not compute"
        )
    found = _column(ds, column)
    if found is None:
        return f"the file's column {column!r} is not read by the same rules as the sample's"
    value = _number(*found)
    parts = [f"{value} AS value"]
    common = {}
    if person:
        who = _column(ds, unit.identifier)
        if who is None:
            return f"the file's column {unit.identifier!r} is not read by the same rules as the sample's"
        ident = aggregates.DUCKDB.identifier(who[0]) if who[1].startswith(_NUMBER_TYPES) else _text(who[0])
        parts.append(f"{ident} AS person")
        common = {
            "person": "person",
            "bounds": ContributionBounds(max_rows=unit.bounds.max_rows),
            "seed": "-".join(map(str, np.atleast_1d(seed))),
        }
    # the rows with a value: what every aggregate below reads (a count needs no value column, so the engine's count
    # of each person's rows is one GROUP BY, with no window over the rows)
    select = f"SELECT * FROM (SELECT {', '.join(parts)} FROM {_reader(ds.path)}) cells WHERE value IS NOT NULL"
    lower, upper = float(settings.get("lower", 0.0)), float(settings.get("upper", 0.0))
    if query == "histogram":
        edges = np.linspace(lower, upper, int(settings["bins"]) + 1)
        main = aggregates.Aggregate(
            key="value", domain=tuple(map(str, range(len(edges) - 1))), edges=tuple(edges[1:-1])
        )
    elif query == "count":
        main = aggregates.count(**common)  # the rows with a value (at most m per person)
    else:
        main = aggregates.clipped_sum("value", lower, upper, **common)
    # every value, unclipped and unbounded, in three bins: below the lower bound, within, above the upper bound
    profile = aggregates.Aggregate(
        key="value",
        domain=("below", "within", "above"),
        edges=(lower, float(np.nextafter(upper, np.inf))),
        value="value",
        lower=-_LARGEST,
        upper=_LARGEST,
    )
    found = _run(ds, select, (main, profile), pool=True)
    if found is None:
        return None
    if isinstance(found, str):
        return found
    kept, every = found
    whole = Whole(
        file_rows=int(ds.total_rows),
        rows=int(kept["rows"].sum()),
        total=float(kept["total"].sum()),
        every_rows=int(every["rows"].sum()),
        every_total=float(every["total"].sum()),
        below=int(every["rows"].iloc[0]),
        above=int(every["rows"].iloc[2]),
        counts=tuple(int(c) for c in kept["rows"]) if query == "histogram" else None,
    )
    if query == "mean" and (whole.rows == 0 or whole.every_rows == 0):
        return "the file has no value in this column"
    return whole


def whole_categories(ds, column: str, labels) -> Whole | str:
    """Every listed category's count over the whole file: ``labels`` as the page lists them (the sample's, with
    "(other)" for any other value and "(missing)" for a missing one when listed; a row in no listed category is
    left out and counted in ``left_out``). Returns the aggregates, or one sentence saying why they stay on the sample.
    """
    found = _column(ds, column)
    if found is None:
        return f"the file's column {column!r} is not read by the same rules as the sample's"
    numeric = is_numeric(ds.frame[column])
    cell = _number(*found) if numeric else _text(found[0])
    cell = f"CAST({cell} AS VARCHAR)" if numeric else cell
    key = f"coalesce({cell}, {_literal(MISSING_LABEL)})" if MISSING_LABEL in labels else cell
    select = f"SELECT {key} AS key FROM {_reader(ds.path)}"
    domain = tuple(str(label) for label in labels if label != OTHER_LABEL)
    other = OTHER_LABEL in labels
    query = aggregates.Aggregate(key="key", domain=domain, other=other)
    found = _run(ds, select, (query,))
    if isinstance(found, str):
        return found
    (found_rows,) = found
    by_label = dict(zip(found_rows["key"], found_rows["rows"]))
    counts = tuple(int(by_label.get(str(label), 0)) for label in labels)  # the engine's "(other)" is the page's
    return Whole(file_rows=int(ds.total_rows), counts=counts, left_out=int(ds.total_rows) - sum(counts))


#: The SQL of each comparison a condition offers (:data:`explorer.columns.NUMBER_CONDITIONS`), as numpy's in
#: :func:`explorer.columns.condition_mask`: a missing value never matches.
_OPERATORS = dict(zip(NUMBER_CONDITIONS, (">=", ">", "<=", "<", "=", "<>")))


def whole_matching(ds, conditions) -> Whole | str:
    """How many rows of the whole file meet every condition: ``conditions`` are ``(column, condition, value)`` as
    :func:`explorer.columns.condition_mask` takes them, chosen from lists (nothing typed becomes SQL but a number
    or a quoted literal). Returns the aggregates, or one sentence saying why they stay on the sample."""
    where = []
    for column, condition, value in conditions:
        found = _column(ds, column)
        if found is None:
            return f"the file's column {column!r} is not read by the same rules as the sample's"
        if is_numeric(ds.frame[column]):
            if condition not in _OPERATORS:
                return f"condition {condition!r} is not one of a number's"
            where.append(f"({_number(*found)}) {_OPERATORS[condition]} {float(value)!r}")
        else:
            if condition not in TEXT_CONDITIONS:
                return f"condition {condition!r} is not one of a text's"
            equal = f"({_text(found[0])}) = {_literal(str(value))}"
            where.append(equal if condition == "is" else f"({_text(found[0])}) IS NOT NULL AND NOT {equal}")
    select = f"SELECT 1 AS one FROM {_reader(ds.path)} WHERE {' AND '.join(f'({w})' for w in where)}"
    found = _run(ds, select, (aggregates.count(),))
    if isinstance(found, str):
        return found
    return Whole(file_rows=int(ds.total_rows), rows=int(found[0]["rows"].sum()))


# --- releases on the whole file's truths -----------------------------------------------------------------------------


def on_whole(result, whole: Whole):
    """``result`` (a release dpcore drew on the sample) with the whole file's true answers: the same query, noise,
    ε and sensitivity, its truths (and what it reports beside them: clipped values, the unclipped answer) replaced.
    Its noisy answer is still the sample's: :func:`drawn` draws one around the new truths."""
    if isinstance(result, MeanResult):
        return replace(
            result,
            sum=on_whole(result.sum, whole),
            count=on_whole(result.count, whole),
            true_value=whole.total / whole.rows,
            n=whole.rows,
            dropped_nan=0,
            unclipped_value=whole.every_total / whole.every_rows,
        )
    if result.query == "count_matching":
        return replace(result, true_value=float(whole.rows), n=whole.file_rows)
    if result.query == "count":
        unclipped = float(whole.every_rows) if result.unclipped_value is not None else None
        return replace(result, true_value=float(whole.rows), n=whole.rows, dropped_nan=0, unclipped_value=unclipped)
    if result.query == "sum":
        return replace(
            result,
            true_value=whole.total,
            n=whole.rows,
            dropped_nan=0,
            unclipped_value=whole.every_total,
            clipped_below=whole.below,
            clipped_above=whole.above,
        )
    true = np.asarray(whole.counts, dtype=np.float64)  # a histogram or the counts of categories
    clipped = {"clipped_below": whole.below, "clipped_above": whole.above} if result.clipped_below is not None else {}
    return replace(result, true_value=true, n=int(true.sum()), dropped_nan=0, **clipped)


def drawn(result, seed, lattice: bool):
    """``result`` with seeded noise drawn around its truths: on a lattice with exact noise for a family dpcore
    publishes (:meth:`dpcore.queries.QueryResult.on_lattice`), floating-point noise of the same law otherwise."""
    rng = np.random.default_rng(seed)
    if lattice:
        return result.on_lattice(rng)
    if isinstance(result, MeanResult):
        parts = [replace(p, noisy_value=p.mechanism.simulate(p.true_value, rng)) for p in (result.sum, result.count)]
        # the post-processing of MeanResult: clip(noisy sum / max(noisy count, 1), lower, upper)
        noisy = float(np.clip(parts[0].noisy_value / max(parts[1].noisy_value, 1.0), result.lower, result.upper))
        return replace(result, sum=parts[0], count=parts[1], noisy_value=noisy)
    return replace(result, noisy_value=result.mechanism.simulate(result.true_value, rng))


# --- what the page says ----------------------------------------------------------------------------------------------


def rows_words(ds, whole: Whole, person: bool = False) -> str:
    """Where the true answers come from, in one paragraph (Markdown without user text but the file's name)."""
    said = (
        f"True answers over **all {whole.file_rows:,} rows** of {md(ds.name)}, computed by DuckDB (exact aggregates "
        f"over the file, not the {ds.n_rows:,}-row sample); the simulated noise is added to them."
    )
    if person:
        said += (
            " Each person's rows are bounded in SQL by a keyed hash of this page's seed (the same law as the bounding"
            " of the sample, other rows kept)."
        )
    if whole.left_out:
        said += f" {whole.left_out:,} row(s) in none of the listed categories are not counted."
    return said


def sample_words(ds, why: str | None = None) -> str:
    """That a view computes on the seeded sample, and why (one sentence, Markdown)."""
    reason = f": {md(why)}" if why else ""
    return f"Computed on the seeded sample of {ds.n_rows:,} of the file's {ds.total_rows:,} rows{reason}."


def pending_words(ds) -> str:
    """That the true answers over every row are computing in the pool, and what the view shows meanwhile."""
    return (
        f"The true answers over **all {ds.total_rows:,} rows** of {md(ds.name)} are being computed by DuckDB in the "
        f"background (above); meanwhile this view shows the seeded sample of {ds.n_rows:,} rows, and the page stays "
        "usable. The whole file's answers replace them when they are ready, and stay for the next ε."
    )


def sample_note(query: str) -> None:
    """Under a query of :data:`ON_SAMPLE`, on a file opened by path and sampled: that it computes on the sample."""
    ds = state.dataset()
    if ds.sampled and query in ON_SAMPLE:
        st.caption(sample_words(ds, ON_SAMPLE[query]))
