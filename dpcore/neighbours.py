"""Neighbouring relations, and the sensitivities that follow from them.

Differential privacy compares a data set with its neighbours; which data sets
are neighbours is part of the guarantee, and every sensitivity depends on it:

* **add/remove one record** (unbounded DP): a neighbour has one record more
  or fewer. Dwork & Roth's definition (Definition 2.4, with histograms at
  ℓ1 distance 1) and the one of every central query in :mod:`dpcore.queries`.
* **replace one record** (bounded DP): a neighbour has the same size and one
  record changed. The relation of the local model, where one person's
  report changes, and so the one under which local and central mechanisms
  are compared.

The sensitivity of a query is the largest change of its answer between
neighbours (Dwork & Roth, Definition 3.1):

==================  ========================  =======================
query               add/remove one            replace one
==================  ========================  =======================
counting query      1                         1
histogram, L1       1                         2
histogram, L2       1                         √2
clipped sum         max(|L|, |U|)             U − L
==================  ========================  =======================

A counting query counts the records with a property: one record changes it
by at most 1 under both relations. (The size of the whole data set is public
under replace-one, sensitivity 0; :func:`dpcore.queries.dp_count` releases it
under add/remove.) Under replace-one, one record leaves one histogram bin and
enters another: two counts move by 1. A record clipped to [L, U] adds at most
``max(|L|, |U|)`` to a sum, and replacing it moves the sum by at most ``U − L``.

The unit of privacy
-------------------
A neighbour differs in one *unit*: one record (:data:`UNIT_RECORD`, every query
of dpcore), one client's whole data (:data:`UNIT_CLIENT`, DP federated
learning's client-level guarantee, McMahan et al. 2018), or all the rows of one
person named by an identifier column (:data:`UNIT_PERSON`,
:mod:`dpcore.contributions`; Wilson et al. 2020's user-level privacy).

From one relation to another
----------------------------
Guarantees about different neighbours do not add up. A guarantee under one
relation and unit gives one under another only when one neighbouring step of
the second is a path of ``k`` steps of the first; then group privacy applies
(:func:`conversion`, :func:`convert`, :func:`convert_rho`):

==============================  ==============================  ===================================
release holds under             ledger counts under             k, and why
==============================  ==============================  ===================================
the same relation and unit      (the same)                      1
add/remove one u                replace one u                   2: a replacement is a removal, then
                                                                an addition
add/remove one client           add/remove or replace one       2: remove the record's client, add
                                record                          it back changed
replace one client              replace one record              1: the record's client is replaced
replace one u                   add/remove one u'               refused: a replace-one release may
                                                                reveal the number of units
one record                      one client                      refused: says nothing about a
                                                                client's whole data
add/remove one person           add/remove one record           2: remove the record's person, add
                                                                them back changed
add/remove one person           replace one record              4: the record may change person:
                                                                remove both persons, add both back
replace one person              replace one record              2: replace both persons
add/remove one record, at most  add/remove one person           k: a person is at most k records
k rows per person (declared)
add/remove one record, at most  replace one person              2k: remove the person's k records,
k rows per person (declared)                                    add the other's k
one record, no declared k       one person                      refused: says nothing about a person
                                                                with many rows
a person and a client           (the other)                     refused: different units
==============================  ==============================  ===================================

A person's records are named by a column, so replacing one record may move it
from one person to another: two persons change, which is why a person-level
guarantee counts twice the client-level group for replace one record. The
declared bound ``k`` on rows per person is a fact about the data that the
record-level release must have enforced (or that holds by construction): the
caller states it, dpcore does not read it from the data.

A guarantee for a path of ``k`` steps: pure ε-DP gives ``kε`` (Dwork & Roth 2014,
Theorem 2.2); (ε, δ)-DP gives ``(kε, δ·Σ_{i<k} e^{iε})`` by chaining the definition
``k`` times, ``(2ε, (1 + e^ε)·δ)`` for ``k = 2``, at most ``(kε, k·e^{(k−1)ε}·δ)`` (Vadhan 2017, Lemma 2.2 states
the larger ``k·e^{kε}·δ``); ρ-zCDP gives ``k²ρ`` (Bun & Steinke 2016,
Proposition 1.9). A noise-adding mechanism can do better than the generic rule
through its sensitivity: a path of ``k`` steps moves a query by at most ``k``
times its sensitivity (the triangle inequality), which is how
:mod:`dpcore.accounting.per_release` converts Laplace and Gaussian releases.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Definitions 2.4 and 3.1, Section 3.3
  (counting and histogram queries). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Near & Abuah (2021), *Programming Differential Privacy*, chapter "Sensitivity" (neighbouring
  data sets, sensitivity of counts, sums and histograms, clipping). https://programming-dp.com/
- Kifer & Machanavajjhala (2011), "No Free Lunch in Data Privacy", SIGMOD, Section 2
  (bounded and unbounded differential privacy). https://doi.org/10.1145/1989323.1989345
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorem 2.2 (group privacy: an ε-DP mechanism
  is kε-DP for groups of size k). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Vadhan (2017), "The Complexity of Differential Privacy", Tutorials on the Foundations of
  Cryptography, Springer, Section 2.1, Lemma 2.2 (group privacy for (ε, δ)-DP: data sets at
  distance k give (kε, k·e^{kε}·δ)). https://doi.org/10.1007/978-3-319-57048-8_7
- Bun & Steinke (2016), "Concentrated Differential Privacy: Simplifications, Extensions, and
  Lower Bounds", TCC, Proposition 1.9 (group privacy: ρ-zCDP gives k²ρ-zCDP for groups of
  size k). https://arxiv.org/abs/1605.02065
- McMahan, Ramage, Talwar & Zhang (2018), "Learning Differentially Private Recurrent Language
  Models", ICLR, Section 2 (user-level privacy: neighbours add or remove all of one user's
  data). https://arxiv.org/abs/1710.06963
"""

from __future__ import annotations

import math
from enum import Enum
from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from dpcore.validation import check_bounds, check_choice, check_epsilon, check_int, check_nonnegative, check_probability

__all__ = [
    "NeighbouringRelation",
    "ADD_REMOVE",
    "REPLACE_ONE",
    "UNIT_RECORD",
    "UNIT_CLIENT",
    "UNIT_PERSON",
    "UNITS",
    "RelationError",
    "Conversion",
    "check_relation",
    "check_unit",
    "conversion",
    "convert",
    "convert_rho",
]

#: The unit of privacy of every query of this package unless stated: one record (one row).
UNIT_RECORD = "record"
#: The unit of DP federated learning's client-level guarantee: one client's whole data.
UNIT_CLIENT = "client"
#: The unit of a table with a person identifier: all of one person's rows (:mod:`dpcore.contributions`). A
#: person-level guarantee composes with person-level ones as it is; a record-level one is converted to it only with a
#: declared bound on rows per person (:func:`conversion`), and refused without one.
UNIT_PERSON = "person"
#: Every unit of privacy a release may name and a ledger may hold; :func:`conversion` converts between them.
UNITS = (UNIT_RECORD, UNIT_CLIENT, UNIT_PERSON)


class NeighbouringRelation(Enum):
    """Which data sets are neighbours; each sensitivity of dpcore derives from it.

    Examples
    --------
    >>> REPLACE_ONE.histogram_l1_sensitivity, ADD_REMOVE.histogram_l1_sensitivity
    (2.0, 1.0)
    >>> ADD_REMOVE.clipped_sum_sensitivity(-5.0, 3.0), REPLACE_ONE.clipped_sum_sensitivity(-5.0, 3.0)
    (5.0, 8.0)
    """

    ADD_REMOVE = "add/remove one record"
    REPLACE_ONE = "replace one record"

    @property
    def counting_query_sensitivity(self) -> float:
        """Sensitivity of a counting query ``#{x: P(x)}``: 1 under both relations."""
        return 1.0

    @property
    def histogram_l1_sensitivity(self) -> float:
        """L1 sensitivity of a histogram (disjoint bins): 1 under add/remove, 2 under replace-one."""
        return 1.0 if self is NeighbouringRelation.ADD_REMOVE else 2.0

    @property
    def histogram_l2_sensitivity(self) -> float:
        """L2 sensitivity of a histogram (disjoint bins): 1 under add/remove, √2 under replace-one."""
        return 1.0 if self is NeighbouringRelation.ADD_REMOVE else math.sqrt(2.0)

    def clipped_sum_sensitivity(self, lower: float, upper: float) -> float:
        """Sensitivity (L1 = L2) of ``Σ clip(x, lower, upper)``.

        ``max(|lower|, |upper|)`` under add/remove one record, ``upper − lower``
        under replace-one.

        Parameters
        ----------
        lower, upper : float
            Clipping bounds, finite, ``lower < upper``.
        """
        lower, upper = check_bounds(lower, upper)
        if self is NeighbouringRelation.ADD_REMOVE:
            return max(abs(lower), abs(upper))
        return upper - lower

    def words(self, unit: str = UNIT_RECORD) -> str:
        """The relation for ``unit`` in words: ``"add/remove one client"``, ``"replace one record"``."""
        unit = check_choice(unit, "unit", UNITS)
        return f"add/remove one {unit}" if self is NeighbouringRelation.ADD_REMOVE else f"replace one {unit}"


#: Add or remove one record (unbounded DP): the relation of every central query in dpcore.
ADD_REMOVE = NeighbouringRelation.ADD_REMOVE
#: Replace one record (bounded DP): the relation of the local model.
REPLACE_ONE = NeighbouringRelation.REPLACE_ONE


class RelationError(ValueError):
    """A guarantee refused because it says nothing under the neighbouring relation or unit asked for.

    A ``ValueError`` whose message is one sentence saying why and what to do
    (a page can show it as it is).

    Attributes
    ----------
    from_relation, to_relation : NeighbouringRelation
        The relation of the guarantee, and the one asked for.
    from_unit, to_unit : str
        The unit of the guarantee, and the one asked for.
    """

    def __init__(self, message: str, *, from_relation, to_relation, from_unit: str, to_unit: str):
        self.from_relation, self.to_relation = from_relation, to_relation
        self.from_unit, self.to_unit = from_unit, to_unit
        super().__init__(message)


class Conversion(NamedTuple):
    """How a guarantee under one relation and unit gives one under another.

    ``group`` is ``k``: how many neighbouring steps of the guarantee's relation
    one step of the target's takes (1: the guarantee holds as it is);
    ``reason`` says why, in words.
    """

    group: int
    reason: str


def check_relation(relation, name: str = "relation") -> NeighbouringRelation:
    """Return ``relation`` if it is a :class:`NeighbouringRelation` (``TypeError`` otherwise)."""
    if not isinstance(relation, NeighbouringRelation):
        raise TypeError(f"{name} must be a NeighbouringRelation (ADD_REMOVE or REPLACE_ONE), got {relation!r}")
    return relation


def check_unit(unit, name: str = "unit") -> str:
    """Return ``unit`` if it is one of :data:`UNITS` (``ValueError`` otherwise)."""
    return check_choice(unit, name, UNITS)


def conversion(
    *,
    from_relation,
    to_relation,
    from_unit: str = UNIT_RECORD,
    to_unit: str = UNIT_RECORD,
    rows_per_person: int | None = None,
) -> Conversion:
    """How a guarantee under ``from_relation`` and ``from_unit`` gives one under ``to_relation`` and ``to_unit``.

    The table of the module notes: one step of the target relation is a path
    of ``k`` steps of the guarantee's, and group privacy over ``k`` steps
    converts the guarantee; or no such path exists and the conversion is
    refused.

    * Same relation and unit: ``k = 1``.
    * Add/remove one unit to replace one unit: ``k = 2``, a replacement is a
      removal then an addition (Kifer & Machanavajjhala 2011, Section 2: unbounded
      ε-DP gives bounded 2ε-DP).
    * Add/remove one client to one record, either relation: ``k = 2``; the data set
      without the record's client neighbours both data sets (McMahan et al. 2018's
      client-level neighbours add or remove one client's data).
    * Replace one client to replace one record: ``k = 1``; replacing a record
      replaces its client's data, the number of clients unchanged.
    * Replace one unit to add/remove one unit: refused, a replace-one release
      may reveal the number of units (``n`` is public under replace-one).
    * One record to one client: refused, a record-level guarantee says nothing
      about a client's whole data.
    * Add/remove one person to add/remove one record: ``k = 2`` (the data set
      without the record's person neighbours both); to replace one record:
      ``k = 4`` (the replaced record may belong to another person afterwards:
      remove both persons, add both back); replace one person to replace one
      record: ``k = 2``.
    * Add/remove one record to add/remove one person, with a declared bound of
      ``rows_per_person = k`` rows per person: ``k`` (a person is at most k
      records, Dwork & Roth 2014, Theorem 2.2); to replace one person: ``2k``.
      Without a declared bound, or from replace one record: refused.
    * Between a person and a client: refused, they are different units.

    Parameters
    ----------
    from_relation, to_relation : NeighbouringRelation
        The relation the guarantee holds under, and the one it is wanted under.
    from_unit, to_unit : {"record", "client", "person"}, default "record"
        The unit of privacy of the guarantee, and the one wanted.
    rows_per_person : int, optional
        The declared most rows of one person, in [1, inf): only for a record-level guarantee wanted per person.

    Returns
    -------
    Conversion
        ``(group, reason)``.

    Raises
    ------
    RelationError
        If the guarantee gives none under the target (a ``ValueError``, one sentence).

    Examples
    --------
    >>> conversion(from_relation=ADD_REMOVE, to_relation=REPLACE_ONE).group
    2
    >>> conversion(from_relation=ADD_REMOVE, to_relation=ADD_REMOVE, from_unit=UNIT_CLIENT).group
    2
    """
    from_relation = check_relation(from_relation, "from_relation")
    to_relation = check_relation(to_relation, "to_relation")
    from_unit = check_choice(from_unit, "from_unit", UNITS)
    to_unit = check_choice(to_unit, "to_unit", UNITS)
    if rows_per_person is not None:
        rows_per_person = check_int(rows_per_person, "rows_per_person", minimum=1)

    def refuse(message: str) -> RelationError:
        return RelationError(
            message, from_relation=from_relation, to_relation=to_relation, from_unit=from_unit, to_unit=to_unit
        )

    if UNIT_PERSON in (from_unit, to_unit) and from_unit != to_unit:
        return _person_conversion(from_relation, to_relation, from_unit, to_unit, rows_per_person, refuse)
    if from_unit == UNIT_RECORD and to_unit == UNIT_CLIENT:
        raise refuse(
            "a guarantee for one record says nothing about one client's whole data: release it with client-level "
            "privacy (noise on each client's whole contribution), or keep a ledger for one record"
        )
    if from_relation is REPLACE_ONE and to_relation is ADD_REMOVE:
        raise refuse(
            f"a guarantee under {from_relation.words(from_unit)} gives none under {to_relation.words(to_unit)}, "
            f"because a replace-one release may reveal the number of {from_unit}s: release it under "
            f"{to_relation.words(from_unit)}, or keep a ledger under {from_relation.words(to_unit)}"
        )
    if from_unit == to_unit:
        if from_relation is to_relation:
            return Conversion(1, f"the release holds under {to_relation.words(to_unit)}")
        return Conversion(
            2, f"replacing one {to_unit} is removing it and adding another: two steps of add/remove one {to_unit}"
        )
    # a client-level guarantee for a record-level ledger
    if from_relation is REPLACE_ONE:
        return Conversion(1, "replacing one record replaces its client's data: one step of replace one client")
    return Conversion(
        2,
        f"a record {'added or removed' if to_relation is ADD_REMOVE else 'replaced'} changes its client's data: "
        "remove that client and add it back changed, two steps of add/remove one client",
    )


def _person_conversion(from_relation, to_relation, from_unit, to_unit, rows_per_person, refuse) -> Conversion:
    """The rows of :func:`conversion`'s table between one person and one record (checked input, units differ)."""
    if UNIT_CLIENT in (from_unit, to_unit):
        raise refuse(
            f"a guarantee for one {from_unit} says nothing about one {to_unit}: keep a ledger for one {from_unit}, "
            f"or release it with {to_unit}-level privacy"
        )
    if from_relation is REPLACE_ONE and (to_relation is ADD_REMOVE or from_unit == UNIT_RECORD):
        raise refuse(
            f"a guarantee under {from_relation.words(from_unit)} gives none under {to_relation.words(to_unit)}, "
            f"because it may reveal the number of {'rows' if from_unit == UNIT_RECORD else 'persons'}: release it "
            f"under {ADD_REMOVE.words(from_unit)}, or keep a ledger under {from_relation.words(from_unit)}"
        )
    if from_unit == UNIT_PERSON:  # to one record
        if from_relation is REPLACE_ONE:
            return Conversion(2, "a replaced record changes at most two persons' rows: two steps of replace one person")
        if to_relation is ADD_REMOVE:
            return Conversion(
                2, "a record added or removed changes its person's rows: remove that person and add them back changed"
            )
        return Conversion(
            4, "a replaced record may move from one person to another: remove both persons and add both back changed"
        )
    # one record, to one person
    if rows_per_person is None:
        raise refuse(
            "a guarantee for one record says nothing about a person with many rows: declare the most rows one person "
            "may have (group privacy then multiplies ε by it), or release it with person-level privacy"
        )
    k = rows_per_person
    if to_relation is ADD_REMOVE:
        return Conversion(k, f"a person is at most {k:,} record(s): {k:,} step(s) of add/remove one record")
    return Conversion(2 * k, f"replacing a person removes at most {k:,} record(s) and adds at most {k:,}")


def _group_privacy(epsilon: float, delta: float, group: int) -> tuple[float, float]:
    """(ε, δ)-DP for neighbours gives ``(kε, δ·Σ_{i<k} e^{iε})`` for data sets ``k`` steps apart (checked input).

    Chaining ``P[M(x₀) ∈ S] ≤ e^ε P[M(x₁) ∈ S] + δ`` along ``x₀, …, x_k`` gives
    ``e^{kε} P[M(x_k) ∈ S] + δ (1 + e^ε + … + e^{(k−1)ε})``; ``δ = 0`` is pure
    group privacy (Dwork & Roth 2014, Theorem 2.2). A δ past 1 is vacuous and
    reported as 1.
    """
    if group == 1:
        return epsilon, delta
    if delta == 0.0:
        return group * epsilon, 0.0
    # log(δ Σ_{i<k} e^{iε}), without overflow for a large ε
    log_delta = math.log(delta) + float(logsumexp(epsilon * np.arange(group)))
    return group * epsilon, 1.0 if log_delta >= 0.0 else math.exp(log_delta)


def convert(
    guarantee,
    *,
    from_relation,
    to_relation,
    from_unit: str = UNIT_RECORD,
    to_unit: str = UNIT_RECORD,
    rows_per_person: int | None = None,
) -> tuple[float, float]:
    """An (ε, δ)-DP guarantee under one relation and unit, as one under another (or refused).

    With ``k`` the :func:`conversion`'s group: ``(ε, δ)`` gives
    ``(kε, δ·Σ_{i<k} e^{iε})``, which for ``k = 2`` is ``(2ε, (1 + e^ε)·δ)``
    and for pure DP (``δ = 0``) ``(kε, 0)`` (Dwork & Roth 2014, Theorem 2.2).
    The δ chains the definition ``k`` times; Vadhan (2017), Lemma 2.2, states the
    larger ``k·e^{kε}·δ``.

    Parameters
    ----------
    guarantee : tuple of float
        ``(epsilon, delta)``: ε in (0, inf), δ in [0, 1) (0: pure DP).
    from_relation, to_relation, from_unit, to_unit, rows_per_person
        As in :func:`conversion`.

    Returns
    -------
    tuple of float
        ``(epsilon, delta)`` under ``to_relation`` and ``to_unit`` (a δ past 1 reported as 1).

    Raises
    ------
    RelationError
        If the guarantee gives none there (:func:`conversion`).

    Examples
    --------
    >>> convert((2.5, 0.0), from_relation=ADD_REMOVE, to_relation=REPLACE_ONE)
    (5.0, 0.0)
    >>> eps, delta = convert((1.0, 1e-6), from_relation=ADD_REMOVE, to_relation=REPLACE_ONE)
    >>> eps, round(delta / 1e-6, 6)  # (1 + e) δ
    (2.0, 3.718282)
    """
    if isinstance(guarantee, (str, bytes)) or not hasattr(guarantee, "__len__") or len(guarantee) != 2:
        raise TypeError(f"guarantee must be an (epsilon, delta) pair, got {guarantee!r}")
    epsilon = check_epsilon(guarantee[0])
    delta = check_probability(guarantee[1], "delta", low_open=False)
    group = conversion(
        from_relation=from_relation,
        to_relation=to_relation,
        from_unit=from_unit,
        to_unit=to_unit,
        rows_per_person=rows_per_person,
    ).group
    return _group_privacy(epsilon, delta, group)


def convert_rho(
    rho: float,
    *,
    from_relation,
    to_relation,
    from_unit: str = UNIT_RECORD,
    to_unit: str = UNIT_RECORD,
    rows_per_person: int | None = None,
) -> float:
    """A ρ-zCDP guarantee under one relation and unit, as one under another: ``k²ρ`` (or refused).

    Group privacy of zCDP (Bun & Steinke 2016, Proposition 1.9), with ``k`` the
    :func:`conversion`'s group.

    Parameters
    ----------
    rho : float
        ρ, in [0, inf).
    from_relation, to_relation, from_unit, to_unit, rows_per_person
        As in :func:`conversion`.

    Examples
    --------
    >>> convert_rho(0.5, from_relation=ADD_REMOVE, to_relation=REPLACE_ONE)
    2.0
    """
    rho = check_nonnegative(rho, "rho")
    group = conversion(
        from_relation=from_relation,
        to_relation=to_relation,
        from_unit=from_unit,
        to_unit=to_unit,
        rows_per_person=rows_per_person,
    ).group
    return group * group * rho
