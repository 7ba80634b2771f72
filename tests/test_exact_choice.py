"""dpcore.exact_choice: the exponential mechanism's law drawn exactly (float pass with rigorous bounds, decimal
refinement, lazily drawn bits), the grid rounding of a uniform point, and the quantile's exact exponents.

The samplers are driven here by seeded generators (their raw words, :func:`dpcore.randomness.raw_words`) or by
injected bit streams: these tests check a sampler, not a publication, so their draws are reproducible. Each χ²
check must exceed P_FLOOR (tests/test_randomness.py: a correct sampler fails one with probability 5.7e-7).
"""

import math
from fractions import Fraction

import numpy as np
import pytest

import dpcore.exact_choice as ec
from dpcore.exact_choice import exact_choice, nearest_grid_index, quantile_exponents
from dpcore.exponential import exponential_probabilities
from tests.test_randomness import P_FLOOR, chi2_pvalue


class Stream:
    """A bit source whose 64-bit words are given (then zeros): ``raw_words`` reads ``bit_generator.random_raw``."""

    def __init__(self, words):
        words = iter([int(w) for w in words])

        class _Bits:
            @staticmethod
            def random_raw(n):
                return np.array([next(words, 0) for _ in range(n)], dtype=np.uint64)

        self.bit_generator = _Bits()


def ones_then_zeros(ones: int) -> Stream:
    """``U = 1 − 2^−ones`` exactly: ``ones`` one bits, then zeros."""
    value = ((1 << ones) - 1) << (64 * math.ceil(ones / 64) - ones)
    count = math.ceil(ones / 64)
    return Stream([(value >> (64 * (count - 1 - i))) & (2**64 - 1) for i in range(count)])


def exact_law(lengths, gaps, base) -> np.ndarray:
    """``p_k ∝ L_k exp(−base·gap_k)`` in float64 (relative error ~1e-15: far below what a χ² of 10⁴ draws sees)."""
    w = np.asarray(lengths, dtype=np.float64) * np.exp(-float(base) * np.asarray(gaps, dtype=np.float64))
    return w / w.sum()


# ---------------------------------------------------------------------- the law, against χ²


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
def test_the_draws_follow_the_exact_law(epsilon):
    # four indices of unequal lengths and gaps; ε/2 as the base (the most common value's exponents); 4,000 draws
    lengths, gaps = [1.0, 2.0, 0.5, 3.0], np.array([0, 1, 3, 2])
    base = Fraction(epsilon) / 2
    rng = np.random.default_rng(int(epsilon * 10))
    draws = [exact_choice(lengths, gaps, (base,), rng) for _ in range(4_000)]
    assert chi2_pvalue(np.bincount(draws, minlength=4), exact_law(lengths, gaps, base)) > P_FLOOR


def test_the_decimal_path_alone_follows_the_exact_law_too():
    lengths, gaps, base = [1, 3, 2], np.array([2, 0, 1]), Fraction(1)
    rng = np.random.default_rng(11)
    draws = [exact_choice(lengths, gaps, (base,), rng, _float_first=False) for _ in range(2_000)]
    assert chi2_pvalue(np.bincount(draws, minlength=3), exact_law(lengths, gaps, base)) > P_FLOOR


def test_the_float_pass_and_the_decimal_path_choose_the_same_index_from_the_same_bits(monkeypatch):
    # Both are exact: given the same uniform (the same bits) they must pick the same k. 100 seeds over 500 indices
    # with weights spanning e^{−900}: the float pass decides every one (no decimal round is called), the decimal
    # path redoes each from scratch.
    calls = []
    original = ec._decimal_round
    monkeypatch.setattr(ec, "_decimal_round", lambda *a: calls.append(a[0]) or original(*a))
    rng = np.random.default_rng(5)
    lengths = rng.uniform(0.0, 2.0, 500)
    gaps = rng.integers(0, 1_800, 500)
    for seed in range(100):
        fast = exact_choice(lengths, gaps, (Fraction(1, 2),), np.random.default_rng(seed))
        assert not calls
        slow = exact_choice(lengths, gaps, (Fraction(1, 2),), np.random.default_rng(seed), _float_first=False)
        assert fast == slow, seed
        calls.clear()


def test_the_float_bounds_enclose_the_exact_cumulative_sums():
    # the float pass's enclosure of every S_k, against S_k computed with 60 decimal digits from the exact exponents
    # (ε = 0.3 read exactly, q·n fractional): lo ≤ S ≤ hi everywhere, the bounds within 10⁻¹² of S relative
    from decimal import Context, Decimal

    rng = np.random.default_rng(8)
    left = np.sort(rng.uniform(0.0, 100.0, 400))
    right = np.append(left[1:], 100.0)
    coefficients, bases = quantile_exponents(np.arange(400), 0.3, 399, Fraction(0.3) / (2 * (1 - Fraction(0.3))))
    length_hat, _, _, a, exact_bases, base_hat = ec._check_inputs(None, left, right, coefficients, bases)
    shifted, gamma, keep, weights, err, others, shift = ec._float_pass(length_hat, a, base_hat)
    assert keep.size == 400 and not others.any()
    sums, sums_err = ec._prefix_sums(weights)
    err_sums, err_sums_err = ec._prefix_sums(err)
    bound = sums_err + err_sums + err_sums_err
    ctx = Context(prec=60)
    exact, total = [], Decimal(0)
    for k in range(400):
        c = int(a[k, 0]) * exact_bases[0] + int(a[k, 1]) * exact_bases[1] - Fraction(shift)
        c_dec = ctx.divide(Decimal(c.numerator), Decimal(c.denominator))
        total = ctx.add(total, ctx.multiply(ctx.subtract(Decimal(right[k]), Decimal(left[k])), ctx.exp(-c_dec)))
        exact.append(float(total))
    exact = np.array(exact)
    assert np.all(sums - bound <= exact) and np.all(exact <= sums + bound)
    assert np.all(bound <= 1e-12 * exact)


def test_lengths_given_as_ends_and_zero_lengths_are_never_chosen():
    left = np.array([0.0, 1.0, 1.0, 3.0])
    right = np.array([1.0, 1.0, 3.0, 3.5])  # the second has length 0
    rng = np.random.default_rng(2)
    draws = [exact_choice(None, [0, 0, 1, 0], (Fraction(1, 3),), rng, left=left, right=right) for _ in range(4_000)]
    counts = np.bincount(draws, minlength=4)
    assert counts[1] == 0
    assert chi2_pvalue(counts[[0, 2, 3]], exact_law([1.0, 2.0, 0.5], [0, 1, 0], Fraction(1, 3))) > P_FLOOR


# ---------------------------------------------------------------------- what floats lose, the exact draw keeps


def test_a_weight_of_e_to_the_minus_800_keeps_its_mass_to_the_last_bit():
    # Weights 1 and e^{−800} ≈ 2^{−1154.2}: in float64 the second has probability 0 (the old inverse CDF could never
    # draw it, whatever the data next door gave it). Exactly, index 1 is drawn iff U ≥ 1/(1 + e^{−800}), i.e. iff
    # U ≥ 1 − 2^{−1154.2…}: U = 1 − 2^{−1154} (1,154 one bits, then zeros) gives 0, U = 1 − 2^{−1155} gives 1.
    assert exponential_probabilities([0.0, -1600.0], 1.0)[1] == 0.0
    lengths, gaps = [1, 1], [0, 800]
    assert exact_choice(lengths, gaps, (1,), ones_then_zeros(1_154)) == 0
    assert exact_choice(lengths, gaps, (1,), ones_then_zeros(1_155)) == 1
    assert exact_choice(lengths, gaps, (1,), ones_then_zeros(2_000)) == 1
    # the same between two heavy neighbours: weights 1, e^{−800}, 1 and U just above one half
    half = 1 << 63
    assert exact_choice([1, 1, 1], [0, 800, 0], (1,), Stream([half])) == 1  # U = ½ exactly: U·W = 1 + e^{−800}/2
    assert exact_choice([1, 1, 1], [0, 800, 0], (1,), Stream([half - 1, 2**64 - 1])) == 0  # U just below ½


def test_an_ambiguous_float_pass_is_settled_by_the_decimal_path(monkeypatch):
    # Equal weights, U = ½ − 2^{−128}: within the float bounds of the boundary S_0/W = ½, so the float pass cannot
    # decide; the decimal path (counted here) does, and gives 0. U = ½ + 2^{−128} gives 1.
    calls = []
    original = ec._decimal_round
    monkeypatch.setattr(ec, "_decimal_round", lambda *a: calls.append(a[0]) or original(*a))
    assert exact_choice([1, 1], [0, 0], (1,), Stream([2**63 - 1, 2**64 - 1])) == 0
    assert calls == [40]
    assert exact_choice([1, 1], [0, 0], (1,), Stream([2**63, 1])) == 1
    assert calls == [40, 40]
    assert exact_choice([1, 1], [0, 0], (1,), Stream([2**62])) == 0  # U = ¼: the float pass decides alone
    assert calls == [40, 40]


# ---------------------------------------------------------------------- the grid point


def test_the_nearest_grid_point_of_a_uniform_point_follows_the_overlaps():
    # Y uniform on [0.3, 1.7], grid 0.5 from 0: j = 1 on [0.3, 0.75), 2 on [0.75, 1.25), 3 on [1.25, 1.7]
    rng = np.random.default_rng(9)
    draws = np.array([nearest_grid_index(0.3, 1.7, 0.0, 0.5, rng) for _ in range(4_000)])
    assert set(np.unique(draws)) == {1, 2, 3}
    p = np.array([0.45, 0.5, 0.45]) / 1.4
    assert chi2_pvalue(np.bincount(draws - 1, minlength=3), p) > P_FLOOR


def test_the_grid_rounding_is_decided_at_the_exact_half():
    # [0, 1] with step 1: j = ⌊V + ½⌋, so 0 for V < ½, 1 for V ≥ ½, whatever the bits after the first word
    assert nearest_grid_index(0.0, 1.0, 0.0, 1.0, Stream([2**63 - 1])) == 0
    assert nearest_grid_index(0.0, 1.0, 0.0, 1.0, Stream([2**63])) == 1
    assert nearest_grid_index(2.0, 2.0, 0.0, 1.5, Stream([])) == 1  # a point: 2/1.5 = 1.33 → 1
    # 0.1 is not 1/10 in binary: (0.3 − 0)/0.1 rounds to 3 in floats but the exact ratio is 2.9999999999999996…;
    # a uniform on the point [0.15, 0.15] lies at 1.4999999999999999… grid steps of 0.1 (0.15 < 1.5 × 0.1 exactly)
    assert Fraction(0.15) < Fraction(3, 2) * Fraction(0.1)
    assert nearest_grid_index(0.15, 0.15, 0.0, 0.1, Stream([])) == 1


# ---------------------------------------------------------------------- the quantile's exponents


@pytest.mark.parametrize("q", [0.0, 0.1, 0.3, 1 / 3, 0.5, 0.9, 1.0])
def test_quantile_exponents_equal_the_score_gaps_in_exact_rationals(q):
    ranks = np.array([0, 2, 3, 7, 8, 9, 13])
    n = 13
    scale = Fraction(0.7) / (2 * max(Fraction(q), 1 - Fraction(q)))
    coefficients, bases = quantile_exponents(ranks, q, n, scale)
    target = Fraction(q) * n
    distances = [abs(r - target) for r in ranks.tolist()]
    expected = [scale * (d - min(distances)) for d in distances]
    assert [int(a) * bases[0] + int(b) * bases[1] for a, b in coefficients] == expected
    assert min(expected) == 0


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: exact_choice([], [], (1,), np.random.default_rng(0)), ValueError, r"lengths must hold at least one"),
        (lambda: exact_choice([1.0, -1.0], [0, 0], (1,), 0), ValueError, r"lengths must be finite and non-negative"),
        (lambda: exact_choice([0.0, 0.0], [0, 0], (1,), 0), ValueError, r"lengths must have a positive, finite sum"),
        (lambda: exact_choice([1.0], [0.5], (1,), 0), TypeError, r"coefficients must be integers, one row per length"),
        (lambda: exact_choice([1.0], [2**53], (1,), 0), ValueError, r"coefficients must be below 2\^53"),
        (lambda: exact_choice([1.0], [0], (1, 2), 0), ValueError, r"bases must give one number per column"),
        (lambda: exact_choice([1.0], [0], ("1",), 0), TypeError, r"bases must be exact numbers"),
        (lambda: exact_choice([1.0], [0], (math.inf,), 0), ValueError, r"bases must be finite, got inf"),
        (lambda: exact_choice([1.0, 1.0], [0, 9], (1e308,), 0), ValueError, r"exponents .* must stay within the float"),
        (lambda: exact_choice(None, [0], (1,), 0), TypeError, r"give either lengths or both left and right"),
        (lambda: exact_choice(None, [0], (1,), 0, left=[1.0], right=[0.0]), ValueError, r"right ≥ left"),
        (lambda: nearest_grid_index(0.0, 1.0, 0.0, 0.0, 0), ValueError, r"step must be in \(0, inf\), got 0\.0"),
        (lambda: nearest_grid_index(1.0, 0.0, 0.0, 1.0, 0), ValueError, r"right must be at least left"),
    ],
)
def test_bad_input_gets_one_sentence(call, error, message):
    with pytest.raises(error, match=message):
        call()
