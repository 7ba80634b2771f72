"""Tests for dpcore.neighbours: each sensitivity against a brute-force search over neighbours."""

import math

import numpy as np
import pytest

from dpcore import ADD_REMOVE, REPLACE_ONE, NeighbouringRelation, dp_count, dp_histogram, dp_sum
from dpcore.queries import RELATION, clipped_sum_sensitivity

EDGES = np.array([0.0, 1.0, 2.0, 3.0, 4.0])


def neighbours(data: np.ndarray, relation: NeighbouringRelation, domain: np.ndarray):
    """Every neighbour of ``data`` whose new record is in ``domain``: remove or add one, or replace one."""
    if relation is ADD_REMOVE:
        for i in range(data.size):
            yield np.delete(data, i)
        for x in domain:
            yield np.append(data, x)
    else:
        for i in range(data.size):
            for x in domain:
                other = data.copy()
                other[i] = x
                yield other


def largest_change(query, data, relation, domain, norm=1):
    base = np.atleast_1d(query(data))
    return max(
        np.linalg.norm(np.atleast_1d(query(other)) - base, ord=norm) for other in neighbours(data, relation, domain)
    )


def histogram(x):
    return np.histogram(np.clip(x, EDGES[0], EDGES[-1]), bins=EDGES)[0].astype(float)


def test_table_of_sensitivities():
    assert [r.value for r in NeighbouringRelation] == ["add/remove one record", "replace one record"]
    assert ADD_REMOVE.counting_query_sensitivity == REPLACE_ONE.counting_query_sensitivity == 1.0
    assert (ADD_REMOVE.histogram_l1_sensitivity, REPLACE_ONE.histogram_l1_sensitivity) == (1.0, 2.0)
    assert (ADD_REMOVE.histogram_l2_sensitivity, REPLACE_ONE.histogram_l2_sensitivity) == (1.0, math.sqrt(2.0))
    assert ADD_REMOVE.clipped_sum_sensitivity(-5.0, 3.0) == 5.0  # max(|L|, |U|)
    assert REPLACE_ONE.clipped_sum_sensitivity(-5.0, 3.0) == 8.0  # U − L
    assert ADD_REMOVE.clipped_sum_sensitivity(2.0, 7.0) == 7.0 and REPLACE_ONE.clipped_sum_sensitivity(2.0, 7.0) == 5.0


@pytest.mark.parametrize("relation", list(NeighbouringRelation))
def test_sensitivities_are_the_largest_change_between_neighbours(relation):
    rng = np.random.default_rng(3)
    domain = np.array([-7.0, -5.0, -1.0, 0.5, 1.5, 2.5, 3.0, 9.0])
    lower, upper = -5.0, 3.0
    for _ in range(5):
        data = rng.choice(domain, size=6)

        def count_positive(x):  # a counting query #{x: x > 0}
            return float(np.sum(x > 0))

        def clipped_sum(x):
            return float(np.clip(x, lower, upper).sum())

        assert largest_change(count_positive, data, relation, domain) <= relation.counting_query_sensitivity
        assert largest_change(histogram, data, relation, domain, 1) <= relation.histogram_l1_sensitivity
        assert largest_change(histogram, data, relation, domain, 2) <= relation.histogram_l2_sensitivity + 1e-15
        assert largest_change(clipped_sum, data, relation, domain) <= relation.clipped_sum_sensitivity(lower, upper)
    # and each bound is attained: the data above contain −5 and values in different bins, the domain 3 and 9
    data = np.array([-5.0, 0.5, 2.5])
    assert largest_change(histogram, data, relation, domain, 1) == relation.histogram_l1_sensitivity
    assert largest_change(histogram, data, relation, domain, 2) == pytest.approx(relation.histogram_l2_sensitivity)
    assert largest_change(clipped_sum, data, relation, domain) == relation.clipped_sum_sensitivity(lower, upper)


def test_the_relation_matters():
    # negative control: the add/remove sensitivities are too small for replace-one neighbours
    data = np.array([-5.0, 0.5, 2.5])
    domain = np.array([-5.0, 3.0])
    assert largest_change(histogram, data, REPLACE_ONE, domain, 1) > ADD_REMOVE.histogram_l1_sensitivity
    change = largest_change(lambda x: np.clip(x, -5.0, 3.0).sum(), data, REPLACE_ONE, domain)
    assert change > ADD_REMOVE.clipped_sum_sensitivity(-5.0, 3.0)


def test_central_queries_use_add_remove():
    assert RELATION is ADD_REMOVE
    assert clipped_sum_sensitivity(-5.0, 3.0) == ADD_REMOVE.clipped_sum_sensitivity(-5.0, 3.0)
    values = [1.0, 2.0, 5.0]
    assert dp_count(values, 0.5, 0).mechanism.sensitivity == ADD_REMOVE.counting_query_sensitivity
    assert dp_sum(values, -5.0, 3.0, 0.5, 0).mechanism.sensitivity == 5.0
    assert dp_histogram(values, 3, 0.5, 0, lower=0, upper=6).mechanism.sensitivity == 1.0
    g = dp_histogram(values, 3, 0.5, 0, lower=0, upper=6, mechanism="gaussian", delta=1e-6)
    assert g.mechanism.sensitivity == ADD_REMOVE.histogram_l2_sensitivity


def test_bad_bounds():
    with pytest.raises(ValueError, match="lower must be below upper, got lower=3.0 and upper=1.0"):
        REPLACE_ONE.clipped_sum_sensitivity(3.0, 1.0)
    with pytest.raises(ValueError, match="lower must be finite"):
        ADD_REMOVE.clipped_sum_sensitivity(-math.inf, 1.0)
