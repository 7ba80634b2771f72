"""dpcore.audit.floating_point: Mironov's attack on textbook Laplace noise, and the lattice release's immunity."""

import math

import numpy as np
import pytest

from dpcore.audit import floating_point_attack
from dpcore.audit.floating_point import textbook_can_produce, textbook_laplace


def _brute_force_can_produce(y: float, x: float, scale: float, window: int = 4_000) -> bool:
    """Independent check: scan every u = j·2⁻⁵³ near the real-number preimage of y − x, both signs."""
    for sign in (1.0, -1.0):
        target = (y - x) / sign / scale  # ln u ≈ target
        if target > 0:
            continue
        j0 = int(round(math.exp(target) * 2**53))
        j = np.arange(max(1, j0 - window), min(2**53, j0 + window) + 1, dtype=np.int64)
        outs = x + sign * (scale * np.log(j.astype(np.float64) * 2.0**-53))
        if np.any(outs == y):
            return True
    return False


def test_textbook_sampler_leaks_at_epsilon_one():
    r = floating_point_attack("textbook", 1.0, trials=20_000, rng=0)
    assert r.share_lower > 0.5  # more than half of the outputs on 0 cannot occur on 1
    assert r.epsilon_implied == math.inf
    assert r.found_on_x == r.trials  # positive control: the search finds every output on its own input


def test_lattice_release_has_no_impossible_output():
    r = floating_point_attack("lattice", 1.0, trials=20_000, rng=0)
    assert r.impossible == 0 and r.epsilon_implied == 0.0 and r.found_on_x == r.trials


def test_impossible_outputs_confirmed_by_brute_force():
    r = floating_point_attack("textbook", 1.0, trials=2_000, rng=1)
    assert len(r.examples) == 5
    for y in r.examples:
        assert not _brute_force_can_produce(y, 1.0, 1.0)
        assert _brute_force_can_produce(y, 0.0, 1.0)  # it did occur on 0


def test_outputs_on_the_other_input_are_all_possible_there():
    # negative control of the decision: outputs drawn on 1 are never declared impossible on 1
    y = textbook_laplace(1.0, 1.0, np.random.default_rng(2), 5_000)
    assert textbook_can_produce(y, 1.0, 1.0).all()
    # and the brute force agrees with the bisection on a sample of outputs drawn on 0
    y0 = textbook_laplace(0.0, 1.0, np.random.default_rng(3), 40)
    fast = textbook_can_produce(y0, 1.0, 1.0)
    slow = np.array([_brute_force_can_produce(v, 1.0, 1.0) for v in y0])
    np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(sampler="ziggurat"), "sampler must be one of 'textbook', 'lattice', got 'ziggurat'"),
        (dict(epsilon=0.0), "epsilon must be in (0, inf), got 0.0"),
        (dict(trials=0), "trials must be an integer in [1, 10000000], got 0"),
        (dict(x=1.0, x_prime=1.0), "x_prime must differ from x, got x = x_prime = 1.0"),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError) as err:
        floating_point_attack(**kwargs)
    assert str(err.value) == message
