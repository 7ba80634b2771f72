"""The unit of privacy: people with many rows, the bounds on what each contributes, and the sensitivities that follow.

Every query of :mod:`dpcore.queries` protects one *row* (add/remove one record). When a table holds many rows per
person (visits, purchases, survey waves), a guarantee for one row says little about a person: removing a person
removes all of their rows, and a count moves by as many. The privacy unit here is one *person*, named by an
identifier column, under **add/remove one person**: neighbouring tables differ by all the rows of one person
(Wilson et al. 2020's user-level differential privacy; McMahan et al. 2018's user-level neighbours). A person with
unbounded rows moves a count without bound, so no finite noise protects them: every person's contribution is
**bounded** first, and the sensitivities follow from the bounds (:class:`ContributionBounds`):

* **m**, ``max_rows``: at most m rows per person for an ungrouped query (Amin et al. 2019 bound every user to k
  contributions);
* **L₀**, ``max_groups``: at most L₀ groups per person in a group-by (a histogram's bins are groups);
* **L∞**, ``max_rows_per_group``: at most L∞ rows per person in each group (Wilson et al. 2020, Section 3: each user
  contributes to at most C_u partitions, with a bounded contribution to each).

======================================  =====================  ================================
query (add/remove one person)           ℓ1 sensitivity         ℓ2 sensitivity
======================================  =====================  ================================
count of rows                           m                      m
sum of values clipped to [L, U]         m · max(|L|, |U|)      m · max(|L|, |U|)
mean = noisy sum / noisy count          the two above, each with its share of ε
counts per group (histogram)            L₀ · L∞                √L₀ · L∞
counts per bin, at most m rows in all   m                      m
sums per group, clipped to [L, U]       L₀ · L∞ · max(|L|,|U|) √L₀ · L∞ · max(|L|, |U|)
distinct persons per group              L₀                     √L₀
======================================  =====================  ================================

Each is the record-level fact of :data:`dpcore.neighbours.ADD_REMOVE` scaled by the triangle inequality: a person
is at most m records (a count moves by at most m records' worth), or touches at most L₀ entries of a vector, each by
at most L∞ records' worth, so the change vector has ℓ1 norm at most ``L₀ · L∞ · s`` and ℓ2 norm at most
``√(L₀ · (L∞ s)²) = √L₀ · L∞ · s`` for a per-record sensitivity ``s``. Every bound is reached (a person with m rows
at the bound of largest magnitude; L∞ rows in each of L₀ groups): ``tests/test_contributions.py`` checks each
against every neighbouring pair of small tables.

A histogram may also bound a person's rows *ungrouped*, at most m rows in total in whatever bins they fall (the bound
of a count, :meth:`ContributionBounds.rows_histogram_sensitivity`): removing the person changes the counts by a vector
``c`` with ``c_i ≥ 0`` and ``Σ c_i ≤ m``, so ``ℓ1 = Σ c_i ≤ m``, ``ℓ2 = √(Σ c_i²) ≤ Σ c_i ≤ m`` and ``ℓ∞ ≤ m``, all
reached by m rows in one bin. It has the noise of L₀ = 1, L∞ = m and keeps as many of each person's rows or more
(``min(rows, m)`` against at most ``min(rows in one bin, m)``).

Contribution bounding
---------------------
A person with more rows than a bound keeps a uniformly random subset of them (Wilson et al. 2020 sample a user's
partitions and rows uniformly; Amin et al. 2019 keep k contributions per user): :func:`bound_contributions` orders
every row uniformly at random (a uniform permutation), sorts the rows by person keeping that order (a stable radix
sort), and keeps each person's first m rows; for a group-by it first keeps L₀ of each person's groups the same way,
then L∞ of the person's rows in each. Vectorised, no Python loop over persons: 10⁶ rows of 10⁵ persons take a
fraction of a second (``benchmarks/bench_contributions.py``).

Why the bound keeps the guarantee: which of a person's rows are kept depends only on that person's rows and on
randomness drawn for them, so the bounded tables of two neighbours, coupled on the other persons' draws, differ only
in the removed person's kept rows, at most m (or L₀ groups of at most L∞) rows; conditioned on the other persons'
draws, the query on the bounded table then has the sensitivity above, and a mixture of (ε, δ)-DP outputs is
(ε, δ)-DP. The randomness is explicit: a seeded ``numpy.random.Generator`` in a simulation, a
:class:`~dpcore.randomness.SecureGenerator` in a publication (which rows were dropped is as secret as the noise).

The cost of the bound is bias: a person's rows beyond it are dropped. Amin et al. (2019) show the trade-off: a small
bound drops many rows of heavy contributors, a large one needs noise proportional to it.

References
----------
- Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson (2020), "Differentially Private SQL with Bounded User
  Contribution", Proceedings on Privacy Enhancing Technologies 2020(2), Section 3 (user-level privacy; at most C_u
  partitions per user and a bounded contribution to each, sampled uniformly). https://arxiv.org/abs/1909.01917
- Amin, Kulesza, Muñoz Medina & Vassilvitskii (2019), "Bounding User Contributions: A Bias-Variance Trade-off in
  Differential Privacy", ICML, Sections 2–3 (at most k contributions per user; sensitivity k times a contribution's).
  https://proceedings.mlr.press/v97/amin19a.html
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and Trends in Theoretical
  Computer Science 9(3–4), Definition 3.1 (sensitivity) and Theorem 2.2 (groups of k records).
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- McMahan, Ramage, Talwar & Zhang (2018), "Learning Differentially Private Recurrent Language Models", ICLR,
  Section 2 (user-level neighbours add or remove all of one user's data). https://arxiv.org/abs/1710.06963
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore.limits import MAX_CATEGORIES, MAX_TABLE_ROWS
from dpcore.neighbours import ADD_REMOVE, UNIT_PERSON, UNIT_RECORD, NeighbouringRelation
from dpcore.randomness import SecureGenerator, raw_words
from dpcore.validation import as_generator, check_choice, check_elements, check_int

__all__ = [
    "Sensitivity",
    "ContributionBounds",
    "PrivacyUnit",
    "ROW_PER_PERSON",
    "BoundedTable",
    "bound_contributions",
    "rows_per_person",
    "person_codes",
]


@dataclass(frozen=True)
class Sensitivity:
    """The sensitivity of a query in the norms that calibrate noise.

    Attributes
    ----------
    l1, l2 : float
        The largest ℓ1 and ℓ2 norm of the change of the answer between neighbours (equal for a number).
    linf : float
        The largest change of one entry (for a vector; equal to the others for a number).
    """

    l1: float
    l2: float
    linf: float

    def norm(self, norm: str) -> float:
        """The sensitivity in ``norm``, ``"L1"`` or ``"L2"`` (a family's :attr:`~dpcore.families.Family.norm`)."""
        return self.l1 if check_choice(norm, "norm", ("L1", "L2")) == "L1" else self.l2

    @property
    def entries(self) -> int:
        """How many entries one person can change: ``l1 / linf`` (1 for a number, L₀ for a vector over groups)."""
        return max(1, round(self.l1 / self.linf))


def _scalar(value: float) -> Sensitivity:
    return Sensitivity(value, value, value)


def _vector(entries: int, per_entry: float) -> Sensitivity:
    # a person changes at most `entries` entries by at most `per_entry` each: ℓ1 ≤ L₀·s, ℓ2 ≤ √(L₀·s²) = √L₀·s
    return Sensitivity(entries * per_entry, math.sqrt(entries) * per_entry, per_entry)


@dataclass(frozen=True)
class ContributionBounds:
    """How much one person may contribute, and the sensitivities under add/remove one person that follow.

    Parameters
    ----------
    max_groups : int, default 1
        L₀, the most groups (partitions, bins) one person's rows may fall in, in [1, MAX_CATEGORIES].
    max_rows_per_group : int, default 1
        L∞, the most rows of one person in one group, in [1, MAX_TABLE_ROWS].
    max_rows : int, default 1
        m, the most rows of one person in an ungrouped query (count, sum, mean), in [1, MAX_TABLE_ROWS].

    Notes
    -----
    Every sensitivity is the record-level one of :data:`dpcore.neighbours.ADD_REMOVE` times the rows a person may
    keep (the triangle inequality; see the module notes): Amin et al. (2019), Section 2, for m; Wilson et al. (2020),
    Section 3, for L₀ and L∞.

    Examples
    --------
    >>> b = ContributionBounds(max_groups=4, max_rows_per_group=2, max_rows=5)
    >>> b.count_sensitivity().l1, b.sum_sensitivity(0.0, 10.0).l1
    (5.0, 50.0)
    >>> b.histogram_sensitivity()  # L₀·L∞ and √L₀·L∞
    Sensitivity(l1=8.0, l2=4.0, linf=2.0)
    """

    max_groups: int = 1
    max_rows_per_group: int = 1
    max_rows: int = 1

    #: The relation of every sensitivity here: add or remove all the rows of one person.
    relation = ADD_REMOVE

    def __post_init__(self):
        object.__setattr__(
            self, "max_groups", check_int(self.max_groups, "max_groups", minimum=1, maximum=MAX_CATEGORIES)
        )
        object.__setattr__(
            self,
            "max_rows_per_group",
            check_int(self.max_rows_per_group, "max_rows_per_group", minimum=1, maximum=MAX_TABLE_ROWS),
        )
        object.__setattr__(self, "max_rows", check_int(self.max_rows, "max_rows", minimum=1, maximum=MAX_TABLE_ROWS))

    # ------------------------------------------------------------------ ungrouped queries (at most m rows)
    def count_sensitivity(self) -> Sensitivity:
        """A count of rows: ``m`` (m rows of one person, each a counting query's sensitivity 1)."""
        return _scalar(self.max_rows * ADD_REMOVE.counting_query_sensitivity)

    def sum_sensitivity(self, lower: float, upper: float) -> Sensitivity:
        """A sum of values clipped to ``[lower, upper]``: ``m · max(|lower|, |upper|)``.

        Parameters
        ----------
        lower, upper : float
            Clipping bounds, finite, ``lower < upper``.
        """
        return _scalar(self.max_rows * ADD_REMOVE.clipped_sum_sensitivity(lower, upper))

    def mean_sensitivities(self, lower: float, upper: float) -> tuple[Sensitivity, Sensitivity]:
        """A mean released as noisy sum over noisy count: ``(sum, count)`` sensitivities, each with its share of ε."""
        return self.sum_sensitivity(lower, upper), self.count_sensitivity()

    # ------------------------------------------------------------------ grouped queries (L₀ groups, L∞ rows each)
    def histogram_sensitivity(self) -> Sensitivity:
        """Counts of rows per group (a histogram over bins or groups): ``ℓ1 = L₀·L∞``, ``ℓ2 = √L₀·L∞``, one entry L∞."""
        return _vector(self.max_groups, self.max_rows_per_group * ADD_REMOVE.counting_query_sensitivity)

    def rows_histogram_sensitivity(self) -> Sensitivity:
        """Counts per bin of at most m rows per person in total, in any bins: ``ℓ1 = ℓ2 = ℓ∞ = m``.

        The rows are bounded ungrouped (:func:`bound_contributions` without ``groups``, Amin et al. 2019's k
        contributions per user), and the histogram counts them per bin. By the triangle inequality over the person's
        at most m kept rows, each moving one bin by a counting query's sensitivity 1, removing the person changes the
        counts by ``c ≥ 0`` with ``Σ c_i ≤ m``: ``ℓ1 ≤ m``, ``ℓ2 = √(Σ c_i²) ≤ Σ c_i ≤ m`` (as ``c_i² ≤ c_i · Σ c_j``),
        ``ℓ∞ ≤ m``, each reached by m rows in one bin. The same as L₀ = 1, L∞ = m (Wilson et al. 2020, Section 3), which
        keeps fewer rows.

        >>> ContributionBounds(max_rows=5).rows_histogram_sensitivity()
        Sensitivity(l1=5.0, l2=5.0, linf=5.0)
        """
        return _scalar(self.max_rows * ADD_REMOVE.counting_query_sensitivity)

    def group_sum_sensitivity(self, lower: float, upper: float) -> Sensitivity:
        """Sums per group of values clipped to ``[lower, upper]``: ``L₀·L∞·B`` (ℓ1), ``√L₀·L∞·B`` (ℓ2), ``B = max(|L|, |U|)``."""
        return _vector(self.max_groups, self.max_rows_per_group * ADD_REMOVE.clipped_sum_sensitivity(lower, upper))

    def group_mean_sensitivities(self, lower: float, upper: float) -> tuple[Sensitivity, Sensitivity]:
        """Means per group as noisy sums over noisy counts: ``(sums, counts)`` sensitivities."""
        return self.group_sum_sensitivity(lower, upper), self.histogram_sensitivity()

    def distinct_sensitivity(self) -> Sensitivity:
        """Distinct persons per group (what partition selection thresholds): ``ℓ1 = L₀``, ``ℓ2 = √L₀``, one entry 1."""
        return _vector(self.max_groups, ADD_REMOVE.counting_query_sensitivity)

    def row_words(self) -> str:
        """The bound of an ungrouped query in words."""
        return f"at most {self.max_rows:,} row(s) per person"

    def group_words(self) -> str:
        """The bounds of a group-by in words."""
        return (
            f"at most {self.max_groups:,} group(s) per person and {self.max_rows_per_group:,} row(s) per person in each"
        )

    def words(self) -> str:
        """Every bound in words."""
        return f"{self.row_words()}; {self.group_words()}"


@dataclass(frozen=True)
class PrivacyUnit:
    """Who a release protects: one row (each row a different person), or one person named by an identifier column.

    Parameters
    ----------
    identifier : str, optional
        The declared name of the column that names each row's person; None (the default) when every row is a
        different person, the unit of every query of :mod:`dpcore.queries`.
    bounds : ContributionBounds, optional
        What each person may contribute; with one row per person every bound is 1 (and only 1 is accepted).

    Examples
    --------
    >>> ROW_PER_PERSON.unit, ROW_PER_PERSON.bounds.count_sensitivity().l1
    ('record', 1.0)
    >>> u = PrivacyUnit("patient_id", ContributionBounds(max_rows=10))
    >>> u.unit, u.words()
    ('person', 'add/remove one person (patient_id): at most 10 row(s) per person; at most 1 group(s) per person and 1 row(s) per person in each')
    """

    identifier: str | None = None
    bounds: ContributionBounds = ContributionBounds()

    def __post_init__(self):
        if self.identifier is not None and not (isinstance(self.identifier, str) and self.identifier):
            raise TypeError(f"identifier must be a non-empty column name or None, got {self.identifier!r}")
        if not isinstance(self.bounds, ContributionBounds):
            raise TypeError(f"bounds must be a ContributionBounds, got {type(self.bounds).__name__}")
        if self.identifier is None and self.bounds != ContributionBounds():
            raise ValueError(
                "bounds must all be 1 when every row is a different person (name a person identifier column to "
                f"bound several rows per person), got {self.bounds.words()}"
            )

    @property
    def unit(self) -> str:
        """The unit of privacy of a release: :data:`~dpcore.neighbours.UNIT_RECORD` or ``UNIT_PERSON``."""
        return UNIT_RECORD if self.identifier is None else UNIT_PERSON

    @property
    def relation(self) -> NeighbouringRelation:
        """Add/remove one unit (one row, or all the rows of one person)."""
        return ADD_REMOVE

    def words(self) -> str:
        """The unit and its bounds in words."""
        if self.identifier is None:
            return "add/remove one record (every row a different person)"
        return f"add/remove one person ({self.identifier}): {self.bounds.words()}"


#: Today's default: every row is a different person (unit one record, every bound 1).
ROW_PER_PERSON = PrivacyUnit()


# ---------------------------------------------------------------------------------------------- the sampling


def _codes(values, name: str, *, missing: str) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, labels)``: each row's index into the distinct values (hash-based, in order of appearance).

    ``missing="refuse"`` refuses a missing value in one sentence; ``"code"`` gives it the code −1.
    """
    if isinstance(values, pd.Categorical) or isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        cat = pd.Categorical(values)
        codes, labels = np.asarray(cat.codes, dtype=np.int64), np.asarray(cat.categories)
    else:
        arr = values if isinstance(values, (pd.Series, pd.Index)) else np.asarray(values)
        if np.ndim(arr) != 1:
            raise ValueError(f"{name} must be one value per row (1-D), got shape {np.shape(arr)}")
        codes, labels = pd.factorize(arr)
        codes = np.asarray(codes, dtype=np.int64)
    if missing == "refuse" and codes.size and codes.min() < 0:
        raise ValueError(
            f"{name} must name a person on every row, got {int(np.count_nonzero(codes < 0)):,} missing value(s) "
            "(drop those rows, or give each its own identifier, before bounding)"
        )
    return codes, np.asarray(labels)


def _permutation(n: int, rng) -> np.ndarray:
    """A uniformly random permutation of ``range(n)``: the seeded generator's own, or secure 64-bit keys sorted.

    Sorting iid keys gives a uniform permutation when they are distinct (exchangeability); secure keys that tie
    (probability below n²/2⁶⁵) are all drawn again, so the permutation is exactly uniform.
    """
    if not isinstance(rng, SecureGenerator):
        return rng.permutation(n)
    while True:
        keys = raw_words(rng, n)
        order = np.argsort(keys)
        ordered = keys[order]
        if not np.any(ordered[1:] == ordered[:-1]):
            return order


def _stable_order(codes: np.ndarray, size: int) -> np.ndarray:
    """The stable sort of integer codes in ``[0, size)``: radix passes of 16 bits (numpy's radix sort), O(n)."""
    if size <= 1 << 16:
        return np.argsort(codes.astype(np.uint16), kind="stable")
    low = np.argsort((codes & 0xFFFF).astype(np.uint16), kind="stable")
    return low[np.argsort((codes[low] >> 16).astype(np.uint16), kind="stable")]


def _random_ranks(units: np.ndarray, size: int, rng) -> np.ndarray:
    """Each element's rank among the elements of its unit, in a uniformly random order (0 for the first)."""
    n = units.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    perm = _permutation(n, rng)
    order = perm[_stable_order(units[perm], size)]  # by unit, and within a unit in the random order
    counts = np.bincount(units, minlength=size)
    starts = np.cumsum(counts) - counts
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = np.arange(n) - np.repeat(starts, counts)
    return ranks


@dataclass(frozen=True, eq=False)
class BoundedTable:
    """What :func:`bound_contributions` kept: a mask over the rows, and per group the distinct persons left.

    Attributes
    ----------
    kept : numpy.ndarray of bool
        One per input row: True for a row kept.
    persons : int
        Distinct persons in the table.
    group_codes : numpy.ndarray of int or None
        For a group-by, each row's group (an index into ``group_labels``; −1 for a missing group, never kept).
    group_labels : numpy.ndarray or None
        The distinct group values, in order of first appearance.
    distinct : numpy.ndarray of int or None
        For a group-by, the number of distinct persons with a kept row in each group (what partition selection
        thresholds); each person counts in at most L₀ groups.
    bounds : ContributionBounds
    """

    kept: np.ndarray
    persons: int
    group_codes: np.ndarray | None
    group_labels: np.ndarray | None
    distinct: np.ndarray | None
    bounds: ContributionBounds

    @property
    def rows(self) -> int:
        """Rows in the table."""
        return int(self.kept.size)

    @property
    def rows_kept(self) -> int:
        """Rows kept by the bounds (exact, not private: what the bias of the bound is made of)."""
        return int(np.count_nonzero(self.kept))

    @property
    def rows_dropped(self) -> int:
        """Rows dropped by the bounds (exact, not private)."""
        return self.rows - self.rows_kept


def bound_contributions(persons, rng, *, bounds: ContributionBounds, groups=None) -> BoundedTable:
    """Keep a uniformly random part of each person's rows, within ``bounds``.

    Without ``groups`` each person keeps a uniformly random ``min(rows, m)`` of their rows (``m = bounds.max_rows``).
    With ``groups`` each person keeps a uniformly random ``min(groups, L₀)`` of the groups their rows fall in, then
    in each a uniformly random ``min(rows, L∞)`` of their rows there (Wilson et al. 2020, Section 3). Rows with a
    missing group are never kept (a rule that does not depend on the data).

    Parameters
    ----------
    persons : array_like, shape (n,)
        Each row's person identifier (numbers or strings; a pandas Categorical is read by its codes); no missing
        value. At most MAX_TABLE_ROWS rows.
    rng : numpy.random.Generator, int or SecureGenerator
        The randomness of the sampling: seeded in a simulation, a
        :class:`~dpcore.randomness.SecureGenerator` in a publication.
    bounds : ContributionBounds
    groups : array_like, shape (n,), optional
        Each row's group (the group-by's key); at most MAX_CATEGORIES distinct values.

    Returns
    -------
    BoundedTable

    Raises
    ------
    ValueError
        A missing identifier, rows and groups of different lengths, too many rows or groups (one sentence each).

    Examples
    --------
    >>> t = bound_contributions([1, 1, 1, 2], 0, bounds=ContributionBounds(max_rows=2))
    >>> t.rows_kept, t.persons
    (3, 2)
    """
    if not isinstance(bounds, ContributionBounds):
        raise TypeError(f"bounds must be a ContributionBounds, got {type(bounds).__name__}")
    n = int(np.size(persons))
    check_elements(n, "rows", MAX_TABLE_ROWS)
    rng = as_generator(rng)
    person_codes, person_labels = _codes(persons, "persons", missing="refuse")
    n_persons = int(person_labels.size)
    if groups is None:
        ranks = _random_ranks(person_codes, n_persons, rng)
        return BoundedTable(ranks < bounds.max_rows, n_persons, None, None, None, bounds)
    if np.size(groups) != n:
        raise ValueError(f"groups must give one group per row ({n:,} rows), got {np.size(groups):,}")
    group_codes, group_labels = _codes(groups, "groups", missing="code")
    n_groups = int(group_labels.size)
    check_elements(n_groups, "groups (distinct values of the group column)", MAX_CATEGORIES)
    present_rows = np.flatnonzero(group_codes >= 0)
    person_of, group_of = person_codes[present_rows], group_codes[present_rows]
    # the rows in a uniformly random order, then sorted by group and by person (stable radix passes): sorted by
    # (person, group), and within each (person, group) pair still in the random order
    order = _permutation(present_rows.size, rng)
    order = order[_stable_order(group_of[order], n_groups)]
    order = order[_stable_order(person_of[order], n_persons)]
    sorted_person, sorted_group = person_of[order], group_of[order]
    starts = np.ones(order.size, dtype=bool)  # the first row of each pair
    starts[1:] = (sorted_person[1:] != sorted_person[:-1]) | (sorted_group[1:] != sorted_group[:-1])
    pair_of_sorted = np.cumsum(starts) - 1
    pair_person, pair_group = sorted_person[starts], sorted_group[starts]
    # L₀: each person keeps a uniformly random min(groups, L₀) of their groups
    pair_kept = _random_ranks(pair_person, n_persons, rng) < bounds.max_groups
    # L∞: in each kept group, the person's first min(rows, L∞) rows in the random order
    rank_in_pair = np.arange(order.size) - np.flatnonzero(starts)[pair_of_sorted]
    keep_sorted = pair_kept[pair_of_sorted] & (rank_in_pair < bounds.max_rows_per_group)
    kept = np.zeros(n, dtype=bool)
    kept[present_rows[order[keep_sorted]]] = True
    distinct = np.bincount(pair_group[pair_kept], minlength=n_groups)
    return BoundedTable(kept, n_persons, group_codes, group_labels, distinct, bounds)


def rows_per_person(persons) -> np.ndarray:
    """How many rows each person has (exact, not private: to show the distribution of contributions, never release).

    Parameters
    ----------
    persons : array_like, shape (n,)
        Each row's person identifier; no missing value.

    Examples
    --------
    >>> rows_per_person(["a", "b", "a", "c", "a"]).tolist()
    [3, 1, 1]
    """
    check_elements(int(np.size(persons)), "rows", MAX_TABLE_ROWS)
    codes, labels = _codes(persons, "persons", missing="refuse")
    return np.bincount(codes, minlength=labels.size)


def person_codes(persons) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, labels)``: each row's person as an index into the distinct identifiers (a missing one refused).

    Examples
    --------
    >>> codes, labels = person_codes(["a", "b", "a"])
    >>> codes.tolist(), labels.tolist()
    ([0, 1, 0], ['a', 'b'])
    """
    check_elements(int(np.size(persons)), "rows", MAX_TABLE_ROWS)
    return _codes(persons, "persons", missing="refuse")
