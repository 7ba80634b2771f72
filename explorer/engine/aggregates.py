"""The aggregates both engines compute, and the one SQL text they run (two dialects of it).

A release plan needs exact aggregates of the data (the truth dpcore adds noise to): a **count** of rows, a **clipped
sum** of a column, a **histogram** of a column over a declared domain, and a **group-by** (count, clipped sum and
distinct persons per declared key). With a person column, each person's contribution is bounded first
(:class:`dpcore.contributions.ContributionBounds`): at most m rows ungrouped, at most L₀ keys and L∞ rows per key in
a group-by, chosen by window functions, so memory follows the number of keys, not the number of rows.

Sampling in SQL (the same rule in DuckDB and Spark, so that they agree exactly on one seed)
------------------------------------------------------------------------------------------
``dpcore.contributions.bound_contributions`` keeps a uniformly random subset of each person's rows with a numpy
permutation; SQL engines share no generator, so here each row gets a key ``sha256(seed | person | key | r)``, where
``r`` numbers the person's rows in that key by value (rows equal in person, key and value are interchangeable for
every aggregate here, so how ties are numbered changes nothing), and each person's (person, key) pair a key
``sha256(seed | person | key)``. A person keeps the L∞ rows of smallest row key in each of the L₀ pairs of smallest
pair key (m rows of smallest row key, ungrouped). For a seed nobody chose after seeing the data, the kept subset is
a pseudo-random uniform one (SHA-256 as a random function), and which rows a person keeps depends on that person's
rows only, which is what the bound's guarantee needs (see ``dpcore.contributions``). The keys are the first 60 bits
of the hash as integers (sorting 64-character strings of 10⁷ rows spilled gigabytes to disk); two rows of one person
tie with probability below n² / 2⁶¹. A simulation's seed is the
session's; a publication must draw the seed fresh from a secure generator and never show it.

Rules about each row alone, applied before bounding (as in ``dpcore.groupby``): a row with a missing value (for a
sum) or a missing key is left out; a key outside the declared domain is left out (the released vector is indexed by
the domain, never by the keys found); a missing person identifier is refused. Person identifiers should be integers
or strings (they are hashed as text, and both engines write those the same way).

Sums are of doubles: both engines clip the same way; the sum of the same numbers can differ in the last bits
between engines when the values are not on a binary grid (floating-point addition depends on order), so the tests
use values on a grid of quarters, whose sums are exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore.contributions import ContributionBounds

__all__ = [
    "Dialect",
    "DUCKDB",
    "SPARK",
    "Aggregate",
    "count",
    "clipped_sum",
    "histogram",
    "group_by",
    "plan_sql",
    "missing_persons_sql",
    "refuse_missing",
    "split",
    "finish",
]


@dataclass(frozen=True)
class Dialect:
    """How one engine writes what differs: identifiers, string literals, the text type, SHA-256."""

    name: str
    quote: str
    text: str
    hash64: str  # a format string with one {} for a text: its SHA-256's first 60 bits as a BIGINT
    backslash_escapes: bool

    def identifier(self, name: str) -> str:
        """A quoted column name."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"column names must be non-empty strings, got {name!r}")
        return self.quote + name.replace(self.quote, self.quote * 2) + self.quote

    def literal(self, value: str) -> str:
        """A string literal."""
        value = str(value)
        if self.backslash_escapes:
            return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return "'" + value.replace("'", "''") + "'"


DUCKDB = Dialect("duckdb", '"', "VARCHAR", "CAST(('0x' || left(sha256({}), 15)) AS BIGINT)", backslash_escapes=False)
SPARK = Dialect(
    "spark", "`", "STRING", "CAST(conv(substr(sha2({}, 256), 1, 15), 16, 10) AS BIGINT)", backslash_escapes=True
)


@dataclass(frozen=True)
class Aggregate:
    """One aggregate query: what both engines compute (build it with :func:`count` and the others).

    Attributes
    ----------
    key : str or None
        The group column (histogram, group-by); None for a count or a sum.
    domain : tuple of str or None
        The declared keys, compared as text; the result has one row per key, in this order.
    value : str or None
        The column summed (clipped to [lower, upper]); None for counts only.
    lower, upper : float or None
        The clipping bounds of ``value``.
    person : str or None
        The identifier column; None when every row is its own person (no bounding).
    bounds : ContributionBounds or None
        The contribution bounds (with ``person``).
    seed : str
        The sampling seed (a simulation's; a publication draws a fresh secret one).
    """

    key: str | None = None
    domain: tuple[str, ...] | None = None
    value: str | None = None
    lower: float | None = None
    upper: float | None = None
    person: str | None = None
    bounds: ContributionBounds | None = None
    seed: str = "0"

    def __post_init__(self):
        if (self.person is None) != (self.bounds is None):
            raise ValueError("person and bounds must be given together (a person column needs contribution bounds)")
        if self.bounds is not None and not isinstance(self.bounds, ContributionBounds):
            raise TypeError(f"bounds must be a ContributionBounds, got {type(self.bounds).__name__}")
        if self.value is not None:
            lower, upper = float(self.lower), float(self.upper)
            if not (math.isfinite(lower) and math.isfinite(upper) and lower <= upper):
                raise ValueError(
                    f"lower and upper must be finite with lower <= upper, got [{self.lower}, {self.upper}]"
                )
            object.__setattr__(self, "lower", lower)
            object.__setattr__(self, "upper", upper)
        if (self.key is None) != (self.domain is None):
            raise ValueError("a key column needs a declared domain of keys (and a domain needs a key column)")
        if self.domain is not None:
            domain = tuple(str(k) for k in self.domain)
            if not domain or len(set(domain)) != len(domain):
                raise ValueError(f"domain must be non-empty distinct keys, got {len(domain)} with repeats or none")
            object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "seed", str(self.seed))

    def sql(self, source: str, dialect: Dialect) -> str:
        """The query over the table or view named ``source``: one row per key found (``key``, ``rows``, ``total``,
        ``persons``); :func:`finish` puts it on the declared domain."""
        d = dialect
        text = d.text
        person = f"CAST({d.identifier(self.person)} AS {text})" if self.person else "NULL"
        key = f"CAST({d.identifier(self.key)} AS {text})" if self.key else "''"
        value = f"CAST({d.identifier(self.value)} AS DOUBLE)" if self.value else "CAST(0 AS DOUBLE)"
        where = []
        if self.value:
            where.append(f"{d.identifier(self.value)} IS NOT NULL")
            where.append(f"NOT isnan(CAST({d.identifier(self.value)} AS DOUBLE))")
        if self.key:
            where.append(f"{key} IN ({', '.join(map(d.literal, self.domain))})")
        base = f"SELECT {person} AS p, {key} AS g, {value} AS v FROM {source}"
        base += f" WHERE {' AND '.join(where)}" if where else ""
        clip = f"least(greatest(v, {self.lower!r}), {self.upper!r})" if self.value else "v"
        persons = "count(DISTINCT p)" if self.person else "CAST(NULL AS BIGINT)"
        select = f"SELECT g AS key, count(*) AS rows, sum({clip}) AS total, {persons} AS persons"
        if self.person is None:
            return f"{select} FROM ({base}) base GROUP BY g"
        b = self.bounds
        per_pair, pairs = (b.max_rows_per_group, b.max_groups) if self.key else (b.max_rows, 1)
        seed = d.literal(self.seed)
        row_key = d.hash64.format(f"concat({seed}, '|r|', p, '|', g, '|', CAST(r AS {text}))")
        pair_key = d.hash64.format(f"concat({seed}, '|g|', p, '|', g)")
        return (
            f"WITH base AS ({base}), "
            "ranked AS (SELECT p, g, v, row_number() OVER (PARTITION BY p, g ORDER BY v) AS r FROM base), "
            f"keyed AS (SELECT p, g, v, {row_key} AS k, {pair_key} AS gk FROM ranked), "
            "bounded AS (SELECT p, g, v, row_number() OVER (PARTITION BY p, g ORDER BY k) AS rr, "
            "dense_rank() OVER (PARTITION BY p ORDER BY gk) AS gr FROM keyed) "
            f"{select} FROM bounded WHERE rr <= {int(per_pair)} AND gr <= {int(pairs)} GROUP BY g"
        )


def count(*, person: str | None = None, bounds: ContributionBounds | None = None, seed="0") -> Aggregate:
    """The number of rows (at most m per person with a person column)."""
    return Aggregate(person=person, bounds=bounds, seed=seed)


def clipped_sum(value: str, lower: float, upper: float, *, person=None, bounds=None, seed="0") -> Aggregate:
    """The sum of ``value`` clipped to [lower, upper] (missing values left out; at most m rows per person)."""
    return Aggregate(value=value, lower=lower, upper=upper, person=person, bounds=bounds, seed=seed)


def histogram(key: str, domain, *, person=None, bounds=None, seed="0") -> Aggregate:
    """Rows per declared key of ``key`` (at most L₀ keys and L∞ rows per key per person)."""
    return Aggregate(key=key, domain=tuple(domain), person=person, bounds=bounds, seed=seed)


def group_by(key: str, domain, value: str, lower: float, upper: float, *, person=None, bounds=None, seed="0"):
    """Per declared key: rows, the clipped sum of ``value`` and distinct persons, after bounding."""
    return Aggregate(
        key=key, domain=tuple(domain), value=value, lower=lower, upper=upper, person=person, bounds=bounds, seed=seed
    )


def finish(query: Aggregate, found: pd.DataFrame) -> pd.DataFrame:
    """The engine's rows on the declared domain: one row per key in its order, zeros where no row was kept.

    Columns ``key``, ``rows`` (int64), ``total`` (float64; the clipped sum, 0.0 without a value column) and
    ``persons`` (int64 distinct persons with a kept row; -1 without a person column). A count or a sum is one row
    with key ``""``.
    """
    keys = list(query.domain) if query.domain is not None else [""]
    found = found.copy()
    found["key"] = found["key"].astype(object).where(found["key"].notna(), "")
    by_key = found.set_index("key")
    out = pd.DataFrame({"key": keys})
    rows = by_key["rows"].reindex(keys)
    out["rows"] = rows.fillna(0).to_numpy(dtype=np.int64)
    total = by_key["total"].reindex(keys).astype(float)
    out["total"] = total.fillna(0.0).to_numpy(dtype=np.float64) if query.value else np.zeros(len(keys))
    persons = by_key["persons"].reindex(keys)
    out["persons"] = persons.fillna(0).to_numpy(dtype=np.int64) if query.person else np.full(len(keys), -1)
    return out


def plan_sql(queries, source: str, dialect: Dialect) -> str:
    """One query for a whole plan: each aggregate's rows tagged with its position ``q`` (one pass, one job on Spark)."""
    parts = [
        f"SELECT {i} AS q, key, rows, total, persons FROM ({query.sql(source, dialect)}) part{i}"
        for i, query in enumerate(queries)
    ]
    return " UNION ALL ".join(parts)


def missing_persons_sql(queries, source: str, dialect: Dialect) -> tuple[list[str], str | None]:
    """The person columns of a plan and one query counting, for each, the rows without an identifier (or None)."""
    columns = sorted({q.person for q in queries if q.person is not None})
    if not columns:
        return columns, None
    counts = ", ".join(f"sum(CASE WHEN {dialect.identifier(c)} IS NULL THEN 1 ELSE 0 END)" for c in columns)
    return columns, f"SELECT {counts} FROM {source}"


def refuse_missing(columns: list[str], counts) -> None:
    """One sentence for the first person column with rows lacking an identifier."""
    for column, missing in zip(columns, counts):
        if missing:
            raise ValueError(
                f"person must name a person on every row, got {int(missing):,} row(s) without one in {column!r} "
                "(drop those rows, or give each its own identifier, before bounding)"
            )


def split(queries, found: pd.DataFrame) -> list[pd.DataFrame]:
    """A plan's tagged rows back into one result per aggregate, each on its declared domain."""
    return [finish(query, found[found["q"] == i].drop(columns="q")) for i, query in enumerate(queries)]
