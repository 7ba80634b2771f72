"""dpcore.randomness: SecureGenerator's uniform integers and floats are exact, and it cannot be seeded or copied.

**Significance.** SecureGenerator takes no seed, so every run of this file (and of tests/test_publish.py)
sees new numbers: a check cannot be made to pass by picking a lucky seed, and a correct sampler fails it
now and then by chance. Every statistical check of the two files fails a correct sampler with probability
at most :data:`P_FLOOR` = 5.7e-7, the two-sided tail of the suite's ``Z = 5`` standard errors
(tests/tolerances.py): a χ² goodness-of-fit p-value must exceed it, a standardised statistic must stay
within ±Z, a count of coincidences below the count the binomial law exceeds with probability P_FLOOR. The
two files make fewer than 100 such checks, so a correct implementation fails a run with probability below
100 × 5.7e-7 < 1e-4: at most once in 10⁴ runs. Draw counts are chosen so that each check still rejects the
faults it is there for; the negative controls (a modulo-biased sampler, floats of 32 bits, a wrong law)
show that it does, each with a margin far beyond the 5σ floor.
"""

import copy
import math
import os
import pickle

import numpy as np
import pytest
from scipy import stats

from dpcore.randomness import Randomness, SecureGenerator
from dpcore.validation import as_generator
from tests.tolerances import Z

#: A check on unseeded draws fails a correct sampler with probability at most this (two-sided 5σ).
P_FLOOR = 2 * stats.norm.sf(Z)


def chi2_pvalue(counts, probs) -> float:
    """χ² goodness-of-fit p-value of observed ``counts`` against exact cell probabilities ``probs`` (summing to 1)."""
    counts = np.asarray(counts, dtype=np.float64)
    probs = np.asarray(probs, dtype=np.float64)
    assert abs(probs.sum() - 1.0) < 1e-9 and counts.size == probs.size
    return float(stats.chisquare(counts, probs * counts.sum()).pvalue)


def uniform_pvalue(draws, low: int, span: int, cells: int = 64) -> float:
    """χ² p-value of integer ``draws`` against the uniform law on ``[low, low + span)``.

    Spans up to 1,000 are tested value by value; wider ones in ``cells`` cells, cell ``c`` holding the
    integers ``x`` with ``⌊(x − low)·cells/span⌋ = c``, whose number is ``⌈(c+1)s/C⌉ − ⌈cs/C⌉`` exactly
    (Python integers: no rounding at any span).
    """
    offsets = [int(v) - low for v in np.ravel(draws).tolist()]
    assert min(offsets) >= 0 and max(offsets) < span, "a draw outside the range"
    if span <= 1_000:
        return chi2_pvalue(np.bincount(offsets, minlength=span), np.full(span, 1.0 / span))
    counts = np.bincount([x * cells // span for x in offsets], minlength=cells)
    edges = [-(-c * span // cells) for c in range(cells + 1)]  # ⌈c·s/C⌉
    return chi2_pvalue(counts, [(b - a) / span for a, b in zip(edges[:-1], edges[1:])])


# ---------------------------------------------------------------------- integers


@pytest.mark.parametrize("low,high", [(0, 2), (0, 3), (0, 7), (-5, 5), (0, 100), (3, 1_003)])
def test_small_ranges_are_uniform(low, high):
    # non-powers of two (3, 7, 10, 100, 1000) are where a modulo or a truncated word would bias the low values
    draws = SecureGenerator().integers(low, high, size=200_000)
    assert draws.dtype == np.int64 and draws.shape == (200_000,)
    assert uniform_pvalue(draws, low, high - low) > P_FLOOR


@pytest.mark.parametrize(
    "low,high",
    [
        (0, 3 * 2**61),  # 2/3 of the 64-bit words: a modulo would make the lower 2/3 of the range 1.5× as likely
        (0, 2**62 + 1),  # the worst case of the rejection: one try in two accepted
        (-(2**62), 2**62 - 3),  # a span of 2^63 − 3, the widest of one machine word
        (10**17, 10**18),
    ],
)
def test_wide_machine_word_ranges_are_uniform(low, high):
    draws = SecureGenerator().integers(low, high, size=100_000)
    assert draws.dtype == np.int64
    assert uniform_pvalue(draws, low, high - low) > P_FLOOR


@pytest.mark.parametrize(
    "low,high",
    [
        (0, 2**63),  # the first span beyond int64 (numpy reads 2^63 as uint64)
        (0, 2**64 * 2 // 3),  # 2/3 of 2^64: a modulo over 64-bit words would bias it
        (-(10**30), 10**30),
        (5, 3**100),
    ],
)
def test_huge_python_int_ranges_are_uniform(low, high):
    draws = SecureGenerator().integers(low, high, size=20_000)
    assert draws.dtype == object and all(isinstance(v, int) for v in draws[:10])
    assert uniform_pvalue(draws, low, high - low, cells=32) > P_FLOOR


def test_a_scalar_draw_is_a_python_int_in_range():
    g = SecureGenerator()
    for low, high in [(0, 1), (4, 5), (-3, 2), (0, 10**40), (10**40, 10**40 + 1)]:
        x = g.integers(low, high)
        assert isinstance(x, int) and low <= x < high
    assert all(0 <= g.integers(7) < 7 for _ in range(100))  # one argument: [0, low)


def test_array_highs_as_the_exact_samplers_draw_them():
    # dpcore.discrete draws Bernoulli(a/(d·k)) coins as rng.integers(0, d[pending] * k[pending]): one high per entry.
    # Shuffled highs of very different widths: each entry must be uniform below its own high (a mask or a limit
    # taken from another entry would show as a draw out of range or a biased group).
    g = SecureGenerator()
    spans = np.array([2, 3, 5, 12, 1_000, 2**40 + 7, 3 * 2**61], dtype=np.int64)
    highs = np.repeat(spans, 40_000)
    order = np.random.default_rng(0).permutation(highs.size)  # seeded: only the order of the highs
    draws = np.empty(highs.size, dtype=np.int64)
    draws[order] = g.integers(0, highs[order])
    assert np.all((draws >= 0) & (draws < highs))
    for span in spans.tolist():
        assert uniform_pvalue(draws[highs == span], 0, span) > P_FLOOR, span


def test_array_arguments_broadcast_like_numpy():
    g = SecureGenerator()
    highs = np.array([[2, 3, 4], [10, 20, 30]])
    assert g.integers(0, highs).shape == (2, 3)
    lows = np.array([0, 100, -50])
    draws = g.integers(lows, 200, size=(4_000, 3))
    assert draws.shape == (4_000, 3) and np.all((draws >= lows) & (draws < 200))
    assert np.array_equal(g.integers(lows, lows + 1, size=(2, 3)), np.tile(lows, (2, 1)))  # a span of 1: no choice
    assert g.integers(0, 5, size=0).shape == (0,)


def test_uint64_words_as_the_big_integer_path_draws_them():
    # dpcore.discrete._uniform_below builds integers of any size from rng.integers(0, 1 << 32, size=w, dtype=uint64)
    draws = SecureGenerator().integers(0, 1 << 32, size=100_000, dtype=np.uint64)
    assert draws.dtype == np.uint64 and int(draws.max()) < 1 << 32
    assert uniform_pvalue(draws, 0, 1 << 32) > P_FLOOR
    low_byte = (draws & np.uint64(0xFF)).astype(np.int64)  # the low bits too: a word of 24 bits would fail here
    assert uniform_pvalue(low_byte, 0, 256) > P_FLOOR


def test_the_uniformity_check_catches_a_modulo_bias():
    # negative controls: the same checks, on draws reduced by a modulo instead of rejected
    words = np.frombuffer(os.urandom(8 * 100_000), dtype=np.uint64)
    span = 3 * 2**61  # 2^64 mod span = 2^62: the lower 2/3 of the range has 3 preimages, the rest 2
    assert uniform_pvalue((words % np.uint64(span)).astype(np.int64), 0, span) < P_FLOOR
    small = np.frombuffer(os.urandom(200_000), dtype=np.uint8) % 100  # 0..55 get 3/256, 56..99 get 2/256
    assert uniform_pvalue(small, 0, 100) < P_FLOOR


def test_bad_ranges_are_refused():
    g = SecureGenerator()
    for low, high in [(3, 3), (5, 2), (10**30, 0), (0, -(10**30))]:
        with pytest.raises(ValueError, match="high must be above low"):
            g.integers(low, high)
    with pytest.raises(ValueError, match="high must be above low"):
        g.integers(0, np.array([4, 0, 2]))


# ---------------------------------------------------------------------- floats


def test_random_is_uniform_on_the_2_to_minus_53_grid():
    g = SecureGenerator()
    u = g.random(200_000)
    assert u.dtype == np.float64 and u.min() >= 0.0 and u.max() < 1.0
    k = u * 2.0**53
    assert np.all(k == np.floor(k))  # on the grid: 53 bits, exact in a double
    assert uniform_pvalue(np.floor(u * 100).astype(np.int64), 0, 100) > P_FLOOR
    # the last bits are random too (floats built from 32 bits, or from a float multiply, would have them fixed)
    assert uniform_pvalue((k.astype(np.int64) & 0xFF), 0, 256) > P_FLOOR
    x = g.random()
    assert isinstance(x, float) and 0.0 <= x < 1.0
    assert g.random((3, 4)).shape == (3, 4)


def test_the_low_bit_check_catches_floats_of_32_bits():
    # negative control: 32-bit floats, k = 2^53 u has its 21 low bits zero
    u = np.frombuffer(os.urandom(4 * 100_000), dtype=np.uint32) * 2.0**-32
    k = (u * 2.0**53).astype(np.int64)
    assert uniform_pvalue(k & 0xFF, 0, 256) < P_FLOOR


def test_two_generators_and_two_calls_differ():
    # 2 × 256 secure bits: equal with probability 2^-256
    a, b = SecureGenerator(), SecureGenerator()
    assert not np.array_equal(a.integers(0, 2**32, size=8), b.integers(0, 2**32, size=8))
    assert not np.array_equal(a.random(5), a.random(5))


# ---------------------------------------------------------------------- no seed, no copy


@pytest.mark.parametrize("seed", [2017, 0, None, np.random.SeedSequence(1), [2017, 734]])
def test_refuses_a_seed(seed):
    with pytest.raises(TypeError, match="takes no seed"):
        SecureGenerator(seed)


def test_refuses_a_seed_by_keyword_and_a_state():
    with pytest.raises(TypeError):
        SecureGenerator(seed=2017)
    g = SecureGenerator()
    for name in ("bit_generator", "seed", "state", "spawn", "__dict__"):
        assert not hasattr(g, name), name
    with pytest.raises(AttributeError):
        g.state = {"state": 1}  # no attribute to hold one (__slots__ = ())


@pytest.mark.parametrize("duplicate", [copy.copy, copy.deepcopy, pickle.dumps, lambda g: pickle.loads(pickle.dumps(g))])
def test_cannot_be_copied_or_pickled(duplicate):
    with pytest.raises(TypeError, match="cannot be pickled or copied"):
        duplicate(SecureGenerator())


def test_as_generator_passes_it_through():
    g = SecureGenerator()
    assert as_generator(g) is g
    assert isinstance(as_generator(0), np.random.Generator)  # seeds still make simulations


def test_randomness_kinds_say_what_they_are():
    assert "not private" in Randomness.SIMULATION.words
    assert "secure" in Randomness.PUBLICATION.words
    assert repr(SecureGenerator()) == "SecureGenerator(os.urandom)"
    assert math.isclose(P_FLOOR, 5.733e-7, rel_tol=1e-3)
