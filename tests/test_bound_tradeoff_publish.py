"""dpcore.bound_tradeoff.publish_private_bound: the private bound m as a publication under add/remove one person."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.bound_tradeoff import private_bound, publish_private_bound
from dpcore.neighbours import ADD_REMOVE, UNIT_PERSON
from dpcore.randomness import Randomness

# 100 persons with each of 1, 2, ..., 10 rows: the median of rows per person lies between 5 and 6
PERSONS = np.repeat(np.arange(1_000), np.arange(1_000) // 100 + 1)


def test_the_release_holds_for_persons_and_is_a_whole_number_of_rows_in_the_declared_range():
    release = publish_private_bound(PERSONS, 0.5, q=0.5, max_bound=50, identifier="patient_id")
    assert release.unit == UNIT_PERSON and release.relation is ADD_REMOVE
    assert release.randomness is Randomness.PUBLICATION
    assert (release.epsilon, release.delta) == (0.5, 0.0)
    m = release.value
    assert m == math.floor(m) and 1 <= m <= 50
    assert "add/remove one person" in release.guarantee()
    facts = {f.name: f.value for f in release.public}
    assert facts["person identifier"] == "patient_id" and facts["upper bound of the range"] == "50"


def test_at_a_large_epsilon_it_is_the_quantile_rounded_up():
    # ε = 20, Δu = 0.5: an interval 100 ranks from the median weighs e^-2000 as much: m is 5 or 6, every time
    draws = {publish_private_bound(PERSONS, 20.0, q=0.5, max_bound=1_000).value for _ in range(20)}
    assert draws <= {5.0, 6.0}
    # the seeded simulation of the same mechanism agrees
    assert {private_bound(PERSONS, 20.0, q=0.5, max_bound=1_000, rng=s) for s in range(20)} <= {5, 6}


def test_two_publications_are_drawn_afresh():
    # ε = 0.01 over [1, 10^5]: the draw is close to uniform on the range, so 10 draws all equal would be a fixed seed
    draws = [publish_private_bound(PERSONS, 0.01, q=0.5, max_bound=100_000).value for _ in range(10)]
    assert len(set(draws)) > 1


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"q": 1.0}, "q must be in (0, 1)"),
        ({"max_bound": 1}, "max_bound must be"),
        ({"epsilon": 0.0}, "epsilon must be"),
    ],
)
def test_bad_input_is_one_sentence(kwargs, words):
    arguments = {"epsilon": 1.0, "q": 0.5, "max_bound": 100, **kwargs}
    with pytest.raises(ValueError) as info:
        publish_private_bound(PERSONS, arguments.pop("epsilon"), **arguments)
    assert words in str(info.value) and "\n" not in str(info.value)
