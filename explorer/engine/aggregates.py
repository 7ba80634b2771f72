"""The aggregates both engines compute, and the one SQL text they run (two dialects of it).

A release plan needs exact aggregates of the data (the truth dpcore adds noise to): a **count** of rows, a **clipped
sum** of a column, a **histogram** of a column over a declared domain, and a **group-by** (count, clipped sum and
distinct persons per declared key); the same with declared **conditions** on the rows (a count where), over the pairs
of **two** declared domains (a two-way table), or over the declared **periods** of a column of dates (its text's
``YYYY-MM``, the same regular expression in both engines and in dpcore). The most common value's scores are a
histogram over its declared domain (dpcore draws the selection). With a person column, each person's contribution is bounded first
(:class:`dpcore.contributions.ContributionBounds`): at most m rows ungrouped, at most L₀ keys and L∞ rows per key in
a group-by, chosen by window functions, so memory follows the number of keys, not the number of rows.

Sampling in SQL (the same rule in DuckDB and Spark, so that they agree exactly on one seed)
------------------------------------------------------------------------------------------
``dpcore.contributions.bound_contributions`` keeps a uniformly random subset of each person's rows with a numpy
permutation; SQL engines share no generator, so each row gets a 60-bit key from a keyed hash of (person, key, j),
where ``j`` numbers the person's rows in that key by value (rows equal in person, key and value are interchangeable
for every aggregate here, so how ties are numbered changes nothing), and each (person, key) pair a key of (person,
key). A person keeps the L∞ rows of smallest row key in each of the L₀ pairs of smallest pair key (m rows of
smallest row key, ungrouped): one window pass numbering the rows, one ranking them (``row_number``, ``rank`` and
``dense_rank`` over one ordering), then a GROUP BY of what is kept. A count needs no row key (a kept pair keeps
``min(rows, L∞)`` whichever rows they are): it is a GROUP BY per pair and one ranking of the pairs.

The hash is integer arithmetic both engines compute alike and fast (no text per row): rounds of
``((h xor x) · A) mod (2³¹ − 1)`` with multipliers that are primitive roots (Park & Miller 1988; L'Ecuyer 1999), two
streams from the seed's SHA-256 (computed once in Python), each finished by an xorshift round, concatenated into 60
bits. It is not a cryptographic function, and the privacy of the bound does not rest on it: any rule under which a
person's kept rows depend on that person's rows alone bounds each person's contribution (Wilson et al. 2020,
Section 3); the seeded hash makes the kept subset pseudo-random, uniform in distribution (checked against dpcore's
sampler in ``tests/test_engine_duckdb.py``), and unpredictable without the seed. Integer identifiers are hashed as
they are; other identifiers (text, decimals) first to 60 bits by SHA-256 of their text, computed per row (slower:
10⁷ rows of text identifiers cost seconds more) — two identifiers sharing 60 bits (probability below n² / 2⁶¹)
would be bounded together, which only tightens the bound. A simulation's seed is the session's; a publication
draws a fresh secret one (:func:`secret_seed`) and never shows it.

Rules about each row alone, applied before bounding (as in ``dpcore.groupby``): a row with a missing value (for a
sum) or a missing key is left out; a key outside the declared domain is left out (the released vector is indexed by
the domain, never by the keys found); a missing person identifier is refused. Person identifiers should be integers
or strings (they are hashed as text, and both engines write those the same way).

Sums are of doubles: both engines clip the same way; the sum of the same numbers can differ in the last bits
between engines when the values are not on a binary grid (floating-point addition depends on order), so the tests
use values on a grid of quarters, whose sums are exact.

References
----------
- Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson (2020), "Differentially Private SQL with Bounded User
  Contribution", PoPETs 2020(2), Section 3. https://arxiv.org/abs/1909.01917
- Park & Miller (1988), "Random number generators: good ones are hard to find", Communications of the ACM 31(10).
- L'Ecuyer (1999), "Tables of linear congruential generators of different sizes and good lattice structure",
  Mathematics of Computation 68(225), Table 1 (multipliers modulo 2³¹ − 1; each checked a primitive root).
"""

from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore.contributions import ContributionBounds
from dpcore.plan import NUMBER_CONDITIONS
from dpcore.plan_release import DATE_PATTERN
from dpcore.publish import OTHER

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
    "each_once",
    "plan_aggregates",
    "secret_seed",
]


@dataclass(frozen=True)
class Dialect:
    """How one engine writes what differs: identifiers, string literals, the text type, SHA-256."""

    name: str
    quote: str
    text: str
    hash64: str  # a format string with one {} for a text: its SHA-256's first 60 bits as a BIGINT
    backslash_escapes: bool
    xor_format: str  # bitwise exclusive or of two BIGINTs
    shr_format: str  # arithmetic shift right of a BIGINT
    search_format: str = "regexp_matches({}, {})"  # whether a text holds a match of a regular expression (a literal)

    def xor(self, a: str, b: str) -> str:
        """``a xor b``."""
        return self.xor_format.format(a, b)

    def shr(self, a: str, bits: int) -> str:
        """``a >> bits``."""
        return self.shr_format.format(a, int(bits))

    def identifier(self, name: str) -> str:
        """A quoted column name."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"column names must be non-empty strings, got {name!r}")
        return self.quote + name.replace(self.quote, self.quote * 2) + self.quote

    def search(self, text: str, pattern: str) -> str:
        """Whether ``text`` (SQL) holds a match of the regular expression ``pattern`` (no backslash in it)."""
        return self.search_format.format(text, self.literal(pattern))

    def literal(self, value: str) -> str:
        """A string literal."""
        value = str(value)
        if self.backslash_escapes:
            return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return "'" + value.replace("'", "''") + "'"


DUCKDB = Dialect(
    "duckdb",
    '"',
    "VARCHAR",
    "CAST(('0x' || left(sha256({}), 15)) AS BIGINT)",
    backslash_escapes=False,
    xor_format="xor({}, {})",
    shr_format="({} >> {})",
)
SPARK = Dialect(
    "spark",
    "`",
    "STRING",
    "CAST(conv(substr(sha2({}, 256), 1, 15), 16, 10) AS BIGINT)",
    backslash_escapes=True,
    xor_format="({} ^ {})",
    shr_format="shiftright({}, {})",
    search_format="({} RLIKE {})",
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
    other : bool
        Count a key outside the domain, or a missing key, in a last row "(other)" (else leave its row out).
    edges : tuple of float or None
        A histogram of a numeric ``key``: the inner edges of its bins (``domain`` names the bins); a value goes to
        the bin ``1 + #(edges <= value)`` (end bins take what lies beyond), as ``numpy.searchsorted(..., "right")``.
    key2, domain2 : str and tuple of str, or None
        A two-way table's second column and its declared keys: one result row per pair, row by row (``other``
        applies to both: a value outside a domain, or missing, in that domain's "(other)").
    period : (str, int, int) or None
        Counts per period of a column of dates: ``("year" or "month", first year, last year)``, ``domain`` the
        periods' labels; a date is a value whose text starts ``YYYY-MM`` (:data:`dpcore.plan_release.DATE_PATTERN`),
        others and dates outside the years left out.
    where : tuple of (column, condition, value) or None
        A count where's conditions (:data:`dpcore.plan.NUMBER_CONDITIONS` with a number, or
        :data:`~dpcore.plan.TEXT_CONDITIONS` with a text): the rows meeting all of them, before bounding.
    """

    key: str | None = None
    domain: tuple[str, ...] | None = None
    value: str | None = None
    lower: float | None = None
    upper: float | None = None
    person: str | None = None
    bounds: ContributionBounds | None = None
    seed: str = "0"
    other: bool = False
    edges: tuple[float, ...] | None = None
    key2: str | None = None
    domain2: tuple[str, ...] | None = None
    period: tuple[str, int, int] | None = None
    where: tuple[tuple[str, str, float | str], ...] | None = None

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
        if self.edges is not None:
            edges = tuple(float(e) for e in self.edges)
            if self.domain is None or len(edges) != len(self.domain) - 1 or self.other:
                raise ValueError(
                    f"edges must be the {len(self.domain or ()) - 1} inner edges of the bins, got {len(edges)}"
                )
            object.__setattr__(self, "edges", edges)
        if (self.key2 is None) != (self.domain2 is None) or (self.key2 is not None and self.key is None):
            raise ValueError("a second key column needs its declared domain, and a first key with its own")
        if self.domain2 is not None:
            domain2 = tuple(str(k) for k in self.domain2)
            if not domain2 or len(set(domain2)) != len(domain2):
                raise ValueError(f"domain2 must be non-empty distinct keys, got {len(domain2)} with repeats or none")
            object.__setattr__(self, "domain2", domain2)
        if self.period is not None:
            period, first, last = self.period
            if period not in _PERIOD_MONTHS or not 1 <= int(first) <= int(last) <= 9999 or self.key is None:
                raise ValueError(f"period must be (year or month, first year, last year) with a key, got {self.period}")
            if len(self.domain) != (int(last) - int(first) + 1) * _PERIOD_MONTHS[period] or self.other:
                raise ValueError("a period's domain must be its labels, one per period, without other")
            object.__setattr__(self, "period", (period, int(first), int(last)))
        if self.where is not None:
            where = tuple((str(c), str(cond), v) for c, cond, v in self.where)
            for _, cond, _ in where:
                if cond not in _NUMBER_SQL and cond not in ("is", "is not"):
                    raise ValueError(f"a condition must be one of {', '.join(_NUMBER_SQL)}, is, is not, got {cond!r}")
            object.__setattr__(self, "where", where)

    @property
    def labels(self) -> tuple[str, ...]:
        """One label per result row: the declared keys (and "(other)" with ``other``), or ``("",)``; a two-way
        table's pairs ``"row × column"``, row by row."""
        if self.domain is None:
            return ("",)
        rows = (*self.domain, OTHER) if self.other else self.domain
        if self.domain2 is None:
            return rows
        columns = (*self.domain2, OTHER) if self.other else self.domain2
        return tuple(f"{r} × {c}" for r in rows for c in columns)

    def sql(self, source: str, dialect: Dialect, *, integral: bool = False) -> str:
        """The query over the table or view named ``source``: one row per key code found (``g``: the key's position
        in the domain from 1, 0 without a key; ``rows``, ``total``, ``persons``); :func:`finish` puts it on the
        declared domain. ``integral``: the person column holds integers (used as they are; other identifiers are
        hashed to 60 bits, see the module notes)."""
        d = dialect
        base = self._base(source, d, integral)
        value = self.value is not None
        clip = f"least(greatest(v, {self.lower!r}), {self.upper!r})" if value else "CAST(0 AS DOUBLE)"
        if self.person is None:
            persons = "CAST(NULL AS BIGINT)"
            return (
                f"SELECT g, count(*) AS rows, sum({clip}) AS total, {persons} AS persons FROM ({base}) base GROUP BY g"
            )
        b = self.bounds
        per_pair, pairs = (int(b.max_rows_per_group), int(b.max_groups)) if self.key else (int(b.max_rows), 1)
        s1, s2 = _seed_words(self.seed)
        person_state = (
            f"{_mix(d, _mix(d, s1, _residue('p'), 0), _residue(d.shr('p', 31)), 1)} AS a1, "
            f"{_mix(d, _mix(d, s2, _residue(d.shr('p', 31)), 2), _residue('p'), 3)} AS a2"
        )
        if not value:
            # which of a pair's rows are kept changes no count: min(rows, L∞) of each kept pair
            pair_rows = f"SELECT p, g, least(count(*), {per_pair}) AS n FROM ({base}) base GROUP BY p, g"
            if not self.key or pairs >= len(self.labels):
                kept = pair_rows
            else:
                keyed = f"SELECT p, g, n, {person_state} FROM ({pair_rows}) pr"
                ordered = (
                    f"SELECT p, g, n, {_mix(d, 'a1', 'g', 4)} AS b1, {_mix(d, 'a2', 'g', 5)} AS b2 FROM ({keyed}) k"
                )
                ranked = (
                    f"SELECT g, n, row_number() OVER (PARTITION BY p ORDER BY {_key(d, 'b1', 'b2')}, g) AS gr "
                    f"FROM ({ordered}) o"
                )
                kept = f"SELECT g, n FROM ({ranked}) r WHERE gr <= {pairs}"
            return f"SELECT g, sum(n) AS rows, CAST(0 AS DOUBLE) AS total, count(*) AS persons FROM ({kept}) kept GROUP BY g"
        # rows numbered within each (person, key) pair by value: rows equal in all three are interchangeable
        numbered = (
            f"SELECT p, g, v, row_number() OVER (PARTITION BY p, g ORDER BY v) AS j, {person_state} FROM ({base}) base"
        )
        keyed = (
            f"SELECT p, g, v, {_mix(d, 'a1', 'g', 4)} AS b1, {_mix(d, 'a2', 'g', 5)} AS b2, "
            f"{_mix(d, _mix(d, 'a1', 'g', 4), 'j', 6)} AS c1, "  # j < 2³¹ − 1: a residue already
            f"{_mix(d, _mix(d, 'a2', 'g', 5), 'j', 7)} AS c2 FROM ({numbered}) nb"
        )
        pair_key, row_key = _key(d, "b1", "b2"), _key(d, "c1", "c2")
        if self.key and pairs < len(self.labels):
            ranked = (
                "SELECT g, v, row_number() OVER (PARTITION BY p ORDER BY pk, g, rk) "
                "- rank() OVER (PARTITION BY p ORDER BY pk, g) + 1 AS rr, "
                "dense_rank() OVER (PARTITION BY p ORDER BY pk, g) AS gr "
                f"FROM (SELECT p, g, v, {pair_key} AS pk, {row_key} AS rk FROM ({keyed}) k) kk"
            )
        else:  # no person can have more keys than L₀ (or there is no key): rows only
            ranked = (
                "SELECT g, v, row_number() OVER (PARTITION BY p, g ORDER BY rk) AS rr, 1 AS gr "
                f"FROM (SELECT p, g, v, {row_key} AS rk FROM ({keyed}) k) kk"
            )
        return (
            f"SELECT g, count(*) AS rows, sum({clip}) AS total, sum(CASE WHEN rr = 1 THEN 1 ELSE 0 END) AS persons "
            f"FROM ({ranked}) ranked WHERE rr <= {per_pair} AND gr <= {pairs} GROUP BY g"
        )

    def _base(self, source: str, d: Dialect, integral: bool) -> str:
        """The rows each aggregate reads, with the rules about each row alone applied: ``p`` (the person as a
        BIGINT), ``g`` (the key's code) and ``v`` (the value as a double)."""
        where = []
        if self.person is None:
            person = "CAST(NULL AS BIGINT)"
        elif integral:
            person = f"CAST({d.identifier(self.person)} AS BIGINT)"
        else:
            person = d.hash64.format(f"CAST({d.identifier(self.person)} AS {d.text})")
        value = f"CAST({d.identifier(self.value)} AS DOUBLE)" if self.value else "CAST(0 AS DOUBLE)"
        if self.value:
            where.append(f"{d.identifier(self.value)} IS NOT NULL")
            where.append(f"NOT isnan(CAST({d.identifier(self.value)} AS DOUBLE))")
        where += [self._condition(d, *c) for c in self.where or ()]
        if self.key is None:
            rows = f"SELECT {person} AS p, 0 AS g, {value} AS v FROM {source}"
            return rows + (f" WHERE {' AND '.join(where)}" if where else "")
        column = d.identifier(self.key)
        if self.edges is not None:  # bins of a number: the first edge above it (the end bins take what lies beyond)
            x = f"CAST({column} AS DOUBLE)"
            cases = " ".join(f"WHEN {x} < {e!r} THEN {i}" for i, e in enumerate(self.edges, start=1))
            code = f"CASE {cases} ELSE {len(self.domain)} END" if cases else "1"
            where += [f"{column} IS NOT NULL", f"NOT isnan({x})"]
            rows = f"SELECT {person} AS p, {code} AS g, {value} AS v FROM {source}"
            return rows + f" WHERE {' AND '.join(where)}"
        if self.period is not None:  # a date's year and month from its text (guarded: a CASE casts matches only)
            period, first, last = self.period
            text = f"CAST({column} AS {d.text})"
            match = d.search(text, DATE_PATTERN)
            year = f"(CASE WHEN {match} THEN CAST(substr({text}, 1, 4) AS INTEGER) ELSE -1 END)"
            month = f"(CASE WHEN {match} THEN CAST(substr({text}, 6, 2) AS INTEGER) ELSE -1 END)"
            code = f"({year} - {first} + 1)" if period == "year" else f"(({year} - {first}) * 12 + {month})"
            where += [f"{column} IS NOT NULL", f"{year} BETWEEN {first} AND {last}", f"{month} BETWEEN 1 AND 12"]
            rows = f"SELECT {person} AS p, {code} AS g, {value} AS v FROM {source}"
            return rows + f" WHERE {' AND '.join(where)}"
        # the declared keys as a small table joined on the key's text (a hash join, any domain size); a whole number
        # declared as "9" also matches the "9.0" an engine writes for a floating-point column (as dpcore matches it)
        domain = ", ".join(
            f"({d.literal(text)}, {i})"
            for i, k in enumerate(self.domain, start=1)
            for text in _spellings(k, self.domain)
        )
        join, code = (
            ("LEFT JOIN", f"coalesce(dom.code, {len(self.domain) + 1})") if self.other else ("JOIN", "dom.code")
        )
        second = ""
        if self.key2 is not None:  # a two-way table: the pair's code, row by row
            domain2 = ", ".join(
                f"({d.literal(text)}, {i})"
                for i, k in enumerate(self.domain2, start=1)
                for text in _spellings(k, self.domain2)
            )
            width = len(self.domain2) + self.other
            code2 = f"coalesce(dom2.code, {len(self.domain2) + 1})" if self.other else "dom2.code"
            code = f"(({code}) - 1) * {width} + {code2}"
            second = (
                f" {join} (VALUES {domain2}) AS dom2(label, code) "
                f"ON CAST({d.identifier(self.key2)} AS {d.text}) = dom2.label"
            )
        rows = (
            f"SELECT {person} AS p, {code} AS g, {value} AS v FROM {source} "
            f"{join} (VALUES {domain}) AS dom(label, code) ON CAST({column} AS {d.text}) = dom.label{second}"
        )
        return rows + (f" WHERE {' AND '.join(where)}" if where else "")

    @staticmethod
    def _condition(d: Dialect, column: str, condition: str, value) -> str:
        """One condition of a count where in SQL, as :func:`dpcore.plan_release` applies it: a number compared when
        finite (NaN sorts above every number in both engines, so ``abs(x) <= max`` leaves out NaN and infinities);
        a text equal to the declared one (a whole number in a floating-point column too), a missing value never."""
        name = d.identifier(column)
        if condition in _NUMBER_SQL:
            x = f"CAST({name} AS DOUBLE)"
            return (
                f"({name} IS NOT NULL AND abs({x}) <= {_LARGEST!r} AND {x} {_NUMBER_SQL[condition]} {float(value)!r})"
            )
        spellings = ", ".join(d.literal(t) for t in _spellings(str(value), (str(value),)))
        equal = f"CAST({name} AS {d.text}) IN ({spellings})"
        return f"({name} IS NOT NULL AND {'' if condition == 'is' else 'NOT '}{equal})"


def _spellings(key: str, domain) -> tuple[str, ...]:
    """``key``, and for a declared whole number ("9", "-3") the text DuckDB and Spark give the same value in a
    floating-point column ("9.0"), unless that text is declared too: dpcore.plan_release matches a numeric column's
    9.0 (a whole-number column with missing values) to the declared "9", and the engine must count what it counts."""
    text = str(key)
    body = text[1:] if text.startswith("-") else text
    if body.isdigit() and f"{text}.0" not in domain:
        return text, f"{text}.0"
    return (text,)


#: The SQL of each number condition (:data:`dpcore.plan.NUMBER_CONDITIONS`, numpy's comparisons in dpcore).
_NUMBER_SQL = dict(zip(NUMBER_CONDITIONS, (">=", ">", "<=", "<", "=", "<>")))
#: The largest finite double: ``abs(x) <= _LARGEST`` holds for every finite number and for no NaN or infinity.
_LARGEST = float(np.finfo(np.float64).max)
#: Months per period.
_PERIOD_MONTHS = {"year": 1, "month": 12}

#: The prime modulus of the sampling hash (2³¹ − 1): products of two residues stay below 2⁶² (no overflow in BIGINT).
_P = 2_147_483_647
#: Multipliers of the hash's rounds: primitive roots modulo 2³¹ − 1 (module references).
_MULTIPLIERS = (16807, 48271, 69621, 630360016, 742938285, 950706376, 1226874159, 62089911, 1343714438, 397204094)


def _seed_words(seed: str) -> tuple[int, int]:
    """Two residues modulo 2³¹ − 1 from the seed's SHA-256 (computed here, once; the SQL carries them as literals)."""
    digest = hashlib.sha256(seed.encode()).digest()
    return int.from_bytes(digest[:8], "big") % _P, int.from_bytes(digest[8:16], "big") % _P


def _residue(x: str) -> str:
    """``x`` modulo 2³¹ − 1 in [0, 2³¹ − 1) (both engines truncate ``%`` toward zero)."""
    return f"((({x}) % {_P} + {_P}) % {_P})"


def _mix(d: Dialect, h, x, i: int) -> str:
    """One round of the hash: ``((h xor x) · A_i) mod (2³¹ − 1)`` for residues ``h`` and ``x``."""
    return f"({d.xor(str(h), str(x))} * {_MULTIPLIERS[i]} % {_P})"


def _key(d: Dialect, h1: str, h2: str) -> str:
    """A 60-bit sampling key from two hash states: each finished by an xorshift round, concatenated."""

    def finish(h: str, i: int) -> str:
        return f"({d.xor(h, d.shr(h, 16))} * {_MULTIPLIERS[i]} % {_P})"

    return f"({finish(h1, 8)} * 536870912 + {d.shr(finish(h2, 9), 2)})"


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
    keys = list(query.labels)
    codes = list(range(1, len(keys) + 1)) if query.domain is not None else [0]
    by_code = found.assign(g=found["g"].astype(np.int64)).set_index("g")
    out = pd.DataFrame({"key": keys})
    out["rows"] = by_code["rows"].reindex(codes).fillna(0).to_numpy(dtype=np.int64)
    total = by_code["total"].reindex(codes).astype(float).fillna(0.0).to_numpy(dtype=np.float64)
    out["total"] = total if query.value else np.zeros(len(keys))
    persons = by_code["persons"].reindex(codes)
    out["persons"] = persons.fillna(0).to_numpy(dtype=np.int64) if query.person else np.full(len(keys), -1)
    return out


def plan_sql(queries, source: str, dialect: Dialect, integral=frozenset()) -> str:
    """One query for a whole plan: each aggregate's rows tagged with its position ``q`` (one statement, one job on
    Spark). ``integral``: the person columns that hold integers (the engine reads its schema)."""
    parts = [
        f"SELECT {i} AS q, g, rows, total, persons "
        f"FROM ({query.sql(source, dialect, integral=query.person in integral)}) part{i}"
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


def each_once(queries, compute) -> list[pd.DataFrame]:
    """``compute`` (a list of aggregates -> their results) run on each distinct aggregate of ``queries`` once, the
    results given back per query (a plan's sum and mean of one column and bounds are one aggregate)."""
    queries = list(queries)
    unique = list(dict.fromkeys(queries))
    found = dict(zip(unique, compute(unique)))
    return [found[query].copy() for query in queries]


def plan_aggregates(plan, seed) -> list[Aggregate]:
    """The aggregates a release plan's statistics need, one per statistic, in the plan's order.

    ``plan`` is a :class:`dpcore.plan.Plan` (or an Allocation's ``.plan``); ``seed`` the sampling seed of the
    contribution bounding (a simulation's, or for a publication a fresh secret one: :func:`secret_seed`). Each
    statistic is bounded on its own rows, as in :mod:`dpcore.plan_release`: a count and a count where per person (m
    rows), a count, sum or mean per declared group, category counts, a histogram, a two-way table, counts per period
    and the most common value's counts per person and key (L₀ keys, L∞ rows each). What
    :func:`dpcore.plan_release.publish_from_aggregates` takes: their ``rows`` and ``total`` on the statistic's labels.

    Raises
    ------
    ValueError
        A quantile (the exponential mechanism needs the rows, not aggregates), in one sentence.
    """
    unit = plan.unit
    person = unit.identifier
    bounds = unit.bounds if person is not None else None
    out = []
    for stat in plan.statistics:
        common = {"person": person, "bounds": bounds, "seed": seed}
        if stat.kind == "quantile":
            raise ValueError(
                f"statistic {stat.name!r} is a quantile, which needs the rows (the exponential mechanism scores every "
                "value), so it is published from a sample or by dpcore.plan_release.publish_plan, not from aggregates"
            )
        if stat.kind == "histogram":
            labels = stat.labels
            out.append(Aggregate(key=stat.column, domain=labels, edges=tuple(stat.edges[1:-1]), **common))
        elif stat.kind == "count_where":
            out.append(Aggregate(where=stat.where, **common))
        elif stat.kind == "two_way":
            keyed = {"key": stat.column, "domain": stat.domain, "key2": stat.by, "domain2": stat.keys}
            out.append(Aggregate(**keyed, other=stat.other, **common))
        elif stat.kind == "periods":
            period = (stat.period, stat.first_year, stat.last_year)
            out.append(Aggregate(key=stat.column, domain=stat.labels, period=period, **common))
        elif stat.kind == "most_common":  # its counts per declared category (the selection is dpcore's)
            out.append(Aggregate(key=stat.column, domain=stat.domain, **common))
        elif stat.kind == "counts":
            out.append(Aggregate(key=stat.column, domain=stat.domain, other=stat.other, **common))
        elif stat.kind == "count":
            keyed = {"key": stat.by, "domain": stat.keys, "other": stat.other} if stat.by is not None else {}
            out.append(Aggregate(**keyed, **common))
        else:  # a sum or a mean: the clipped sum and the number of rows of the same bounded rows
            keyed = {"key": stat.by, "domain": stat.keys, "other": stat.other} if stat.by is not None else {}
            out.append(Aggregate(value=stat.column, lower=stat.lower, upper=stat.upper, **keyed, **common))
    return out


def secret_seed() -> str:
    """A fresh sampling seed for a publication: 256 bits from the operating system's secure generator, never shown."""
    return secrets.token_hex(32)
