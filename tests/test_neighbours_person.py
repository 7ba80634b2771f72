"""The unit "person" in dpcore.neighbours: its conversions, checked by brute force on small tables of records.

A table is a multiset of records (person, value). Under add/remove one person, neighbours differ in all the records
of one person; the person-level distance between two tables is the fewest such steps from one to the other: each
person whose records differ must be removed (1 step) if present, and added (1 step) if present in the other. The
conversion's group ``k`` must be the largest such distance between record-level neighbours (person → record), or the
largest record-level distance between person-level neighbours whose persons have at most k rows (record → person).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from dpcore.accounting import BudgetLedger, PureDP
from dpcore.neighbours import (
    ADD_REMOVE,
    REPLACE_ONE,
    UNIT_CLIENT,
    UNIT_PERSON,
    UNIT_RECORD,
    UNITS,
    RelationError,
    conversion,
    convert,
    convert_rho,
)
from dpcore.randomness import Randomness
from dpcore.release import PublicFact, Release
from explorer.publication_log import cost_under

PERSONS, VALUES = ("a", "b", "c"), (0, 1)
RECORDS = tuple(itertools.product(PERSONS, VALUES))


def tables(most: int):
    """Every multiset of at most ``most`` records."""
    for size in range(most + 1):
        yield from (Counter(t) for t in itertools.combinations_with_replacement(RECORDS, size))


def rows_of(table: Counter, person: str) -> Counter:
    return Counter({r: c for r, c in table.items() if r[0] == person})


def person_distance(x: Counter, y: Counter) -> int:
    """Add/remove-one-person steps from x to y: remove each differing person present in x, add them as in y."""
    steps = 0
    for p in PERSONS:
        a, b = rows_of(x, p), rows_of(y, p)
        if a != b:
            steps += (sum(a.values()) > 0) + (sum(b.values()) > 0)
    return steps


def record_neighbours(x: Counter, relation):
    if relation is ADD_REMOVE:
        for r in RECORDS:
            yield x + Counter([r])
            if x[r]:
                yield x - Counter([r])
    else:
        for old in [r for r in RECORDS if x[r]]:
            for new in RECORDS:
                if new != old:
                    yield x - Counter([old]) + Counter([new])


@pytest.mark.parametrize(("from_relation", "to_relation"), [(ADD_REMOVE, ADD_REMOVE), (ADD_REMOVE, REPLACE_ONE)])
def test_a_person_guarantee_per_record_takes_the_brute_force_group(from_relation, to_relation):
    k = conversion(from_relation=from_relation, to_relation=to_relation, from_unit=UNIT_PERSON).group
    largest = max(person_distance(x, y) for x in tables(3) for y in record_neighbours(x, to_relation))
    assert k == largest == (2 if to_relation is ADD_REMOVE else 4)


@pytest.mark.parametrize(("from_relation", "to_relation"), [(ADD_REMOVE, ADD_REMOVE), (ADD_REMOVE, REPLACE_ONE)])
def test_a_record_ledger_charges_a_person_release_its_brute_force_group(from_relation, to_relation):
    # the ledger's conversion is this module's: a pure ε-DP person-level release costs kε, k found by brute force
    largest = max(person_distance(x, y) for x in tables(3) for y in record_neighbours(x, to_relation))
    ledger = BudgetLedger(10.0, 1e-6, relation=to_relation).spend(PureDP(0.5, from_relation, UNIT_PERSON))
    assert ledger.spent().epsilon == pytest.approx(largest * 0.5, rel=1e-15)
    assert ledger.entries[0].conversion.group == largest


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_record_guarantee_per_person_takes_k_steps_for_at_most_k_rows(k):
    group = conversion(from_relation=ADD_REMOVE, to_relation=ADD_REMOVE, to_unit=UNIT_PERSON, rows_per_person=k).group
    # person-level neighbours: add one person with 1..k rows to a table; the record distance is the rows added
    largest = 0
    for x in tables(2):
        for p in PERSONS:
            if sum(rows_of(x, p).values()):
                continue
            for rows in itertools.combinations_with_replacement([r for r in RECORDS if r[0] == p], k):
                y = x + Counter(rows)
                largest = max(largest, sum((y - x).values()) + sum((x - y).values()))
    assert group == largest == k
    # a person-level ledger charges a record-level ε-DP release declared at k rows per person the brute-force kε
    ledger = BudgetLedger(10.0, 1e-6, unit=UNIT_PERSON).spend(PureDP(0.5), rows_per_person=k)
    assert ledger.spent().epsilon == pytest.approx(largest * 0.5, rel=1e-15)


def test_group_privacy_for_a_declared_bound_is_within_the_stated_formula():
    eps, delta = 0.7, 1e-7
    for k in (1, 2, 5, 20):
        e, d = convert(
            (eps, delta), from_relation=ADD_REMOVE, to_relation=ADD_REMOVE, to_unit=UNIT_PERSON, rows_per_person=k
        )
        assert e == pytest.approx(k * eps)
        assert d == pytest.approx(delta * sum(math.exp(i * eps) for i in range(k)), rel=1e-12)
        assert d <= k * math.exp((k - 1) * eps) * delta * (1 + 1e-12)  # Vadhan 2017, Lemma 2.2's form
    rho = convert_rho(0.1, from_relation=ADD_REMOVE, to_relation=REPLACE_ONE, to_unit=UNIT_PERSON, rows_per_person=3)
    assert rho == pytest.approx(36 * 0.1)  # 2k = 6 steps, k²ρ


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"to_unit": UNIT_PERSON}, "declare the most rows one person may have"),
        ({"from_relation": REPLACE_ONE, "to_unit": UNIT_PERSON, "rows_per_person": 3}, "number of rows"),
        ({"from_unit": UNIT_PERSON, "from_relation": REPLACE_ONE}, "number of persons"),
        ({"from_unit": UNIT_CLIENT, "to_unit": UNIT_PERSON}, "says nothing about one person"),
        ({"from_unit": UNIT_PERSON, "to_unit": UNIT_CLIENT}, "says nothing about one client"),
    ],
)
def test_refusals_are_one_sentence(kwargs, words):
    arguments = {"from_relation": ADD_REMOVE, "to_relation": ADD_REMOVE, **kwargs}
    with pytest.raises(RelationError) as info:
        conversion(**arguments)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_person_level_guarantees_compose_as_they_are_and_a_ledger_keeps_every_unit():
    assert conversion(from_relation=ADD_REMOVE, to_relation=ADD_REMOVE, from_unit=UNIT_PERSON, to_unit=UNIT_PERSON) == (
        1,
        "the release holds under add/remove one person",
    )
    assert UNITS == (UNIT_RECORD, UNIT_CLIENT, UNIT_PERSON)
    assert BudgetLedger(1.0, 1e-6, unit=UNIT_PERSON).unit == UNIT_PERSON
    with pytest.raises(ValueError, match="rows_per_person must be"):
        conversion(from_relation=ADD_REMOVE, to_relation=ADD_REMOVE, to_unit=UNIT_PERSON, rows_per_person=0)


def _release(unit: str) -> Release:
    return Release(
        query="count", value=1.0, labels=("count",), mechanism="test", noise_std=1.0, epsilon=0.5, delta=1e-6,
        relation=ADD_REMOVE, unit=unit, randomness=Randomness.PUBLICATION, public=(PublicFact("x", "y", "fixed"),),
    )  # fmt: skip


def test_the_publication_log_charges_a_person_release_on_a_record_log_by_group_privacy_and_refuses_the_reverse():
    e, d = cost_under(_release(UNIT_PERSON), ADD_REMOVE, UNIT_RECORD)
    assert e == pytest.approx(1.0) and d == pytest.approx((1 + math.exp(0.5)) * 1e-6)
    assert tuple(cost_under(_release(UNIT_PERSON), ADD_REMOVE, UNIT_PERSON)) == (0.5, 1e-6)
    with pytest.raises(RelationError, match="person with many rows"):
        cost_under(_release(UNIT_RECORD), ADD_REMOVE, UNIT_PERSON)
