"""The label of a simulated release (dpcore.simulation): the Release type, randomness SIMULATION."""

import numpy as np
import pytest

from dpcore import GRR, OUE, Gaussian, Laplace, dp_count, dp_mean
from dpcore.accounting import PureDP
from dpcore.neighbours import ADD_REMOVE, REPLACE_ONE, UNIT_CLIENT
from dpcore.randomness import Randomness
from dpcore.simulation import simulated
from dpcore.staircase import Staircase


@pytest.mark.parametrize(
    "mechanism, relation, epsilon, delta",
    [
        (Laplace.from_epsilon(0.5), ADD_REMOVE, 0.5, 0.0),
        (Gaussian.from_epsilon_delta(1.0, 1e-6), ADD_REMOVE, 1.0, 1e-6),
        (Staircase(2.0), ADD_REMOVE, 2.0, 0.0),
        (GRR(1.5, 4), REPLACE_ONE, 1.5, 0.0),
        (OUE(0.7, 9), REPLACE_ONE, 0.7, 0.0),
        (PureDP(3.0), ADD_REMOVE, 3.0, 0.0),
    ],
)
def test_a_simulation_says_its_mechanism_cost_and_relation(mechanism, relation, epsilon, delta):
    release = simulated(mechanism, query="counts", value=[1.0, 2.0], labels=("a", "b"))
    assert release.randomness is Randomness.SIMULATION and not release.is_publication
    assert release.relation == relation and release.unit == "record"
    assert release.epsilon == pytest.approx(epsilon) and release.delta == delta
    assert type(mechanism).__name__ in release.mechanism
    assert release.label()["randomness"] == "simulation"


def test_query_results_carry_their_noise_and_the_whole_cost_of_a_mean():
    count = simulated(dp_count(np.ones(50), 1.0, 0), query="count")
    assert count.noise_std == pytest.approx(np.sqrt(2.0)) and count.relation == ADD_REMOVE
    mean = dp_mean(np.ones(50), 0.0, 1.0, 2.0, 0, mechanism="gaussian", delta=1e-5)
    release = simulated(mean, query="mean")
    assert (release.epsilon, release.delta) == (pytest.approx(2.0), pytest.approx(1e-5))
    assert "Gaussian" in release.mechanism and release.noise_std == pytest.approx(mean.approx_std)


def test_a_client_level_event_keeps_its_unit():
    release = simulated(PureDP(1.0, relation=ADD_REMOVE, unit=UNIT_CLIENT), query="model")
    assert release.unit == UNIT_CLIENT


def test_something_no_accountant_knows_is_refused():
    with pytest.raises(TypeError, match="^mechanism must be a dpcore"):
        simulated(object(), query="x")
