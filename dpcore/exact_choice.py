"""Exact sampling for the exponential mechanism's publications: an index with probability exactly ∝ ``L_k·exp(−c_k)``.

Inverse-CDF sampling in floating point draws a law that differs from the mechanism's by the rounding of its
cumulative sums and the grid of its uniform: an index whose probability is below the rounding may get probability 0
while a neighbouring data set gives it more, and the pure ε-DP guarantee picks up an uncharged δ (Mironov 2012 on
floating-point holes; Ilvento 2020 for the exponential mechanism). :func:`exact_choice` draws the law exactly
(a Las Vegas algorithm: its output has exactly the stated law, only its running time is random):

1. **A uniform drawn lazily.** ``U = 0.b₁b₂b₃…`` in binary, 64 secure bits at a time: after ``b`` bits
   ``U ∈ [a/2ᵇ, (a+1)/2ᵇ)``. The index is the ``k`` with ``S_{k−1} ≤ U·W < S_k`` (``S_k`` the cumulative sums of the
   weights, ``W = S_{m−1}`` their total); ``U·W`` meets a boundary with probability 0, so this ``k`` has probability
   exactly ``w_k/W`` (Devroye 1986, §II.2, the inversion method for a discrete law).
2. **A float pass with rigorous bounds.** Every weight is computed in float64 with a bound on its error (the
   exponent's rounding propagated through ``exp``, ``exp``'s own error taken as 2⁻⁴⁵ relative, 256 times the
   ≤ 1–4 ulp numpy's float64 ``exp`` is tested to; terms with exponents beyond 700 are bounded by
   ``L·e^{−700+γ}`` rather than computed), and every cumulative sum with the running error bound of recursive
   summation, ``|Ŝ_k − S_k| ≤ u Σ_{i≤k} |Ŝ_i|`` (Higham 2002, §4.2, eq. 4.4), summed in blocks of 1,024 so the
   bound grows like ``(1024 + m/1024)·u`` instead of ``m·u``. If ``U·W``'s enclosure lies between the enclosures of
   ``S_{k−1}`` and ``S_k``, the choice is exactly ``k`` (almost always: the chance of an ambiguity is about the total
   relative width of the bounds, below 10⁻⁶ for a million indices).
3. **Decimal refinement otherwise.** With ``P`` decimal digits (40, 80, 160, …) the weights are enclosed by
   intervals computed with :mod:`decimal`: each exponent, an exact rational, divided out rounding down and up,
   ``Decimal.exp`` (correctly rounded, General Decimal Arithmetic specification) widened by one unit in the last place
   each way, products and sums rounded outward (``ROUND_FLOOR``/``ROUND_CEILING``). Terms whose exponent is provably
   above ``T = P·ln 10 + …`` are bounded by ``[0, L·e^{−T}]`` and not computed; ``T`` grows with ``P``, so every term
   is eventually computed. More bits of ``U`` are drawn at each round; the enclosures shrink to the exact sums, so the
   loop ends with probability 1.

The weights are given exactly: lengths ``L_k ≥ 0`` as floats or integers (read as the rationals they are), or as
``right_k − left_k`` of two float arrays (the exact difference, not its rounding); exponents as
``c_k = Σ_j A[k, j]·β_j`` with integer coefficients ``A`` and exact rational bases ``β`` (``Fraction``, ``int`` or
``float``), e.g. ``β = (ε/2,)`` and ``A[k] = (max count − count_k)`` for the most common value.

:func:`nearest_grid_index` rounds a uniform point of an interval to the nearest point of a grid exactly (with
lazily drawn bits and rational arithmetic), and :func:`quantile_exponents` writes the quantile score
``|r_k − q·n| − min_j |r_j − q·n|`` in that exact form.

References
----------
- Devroye (1986), "Non-Uniform Random Variate Generation", Springer, Section II.2 (inversion for discrete laws).
  http://luc.devroye.org/rnbookindex.html
- Higham (2002), "Accuracy and Stability of Numerical Algorithms", 2nd ed., SIAM, Section 4.2 (the running error
  bound of recursive summation) and Section 2.2 (the model ``fl(x op y) = (x op y)(1 + δ)``, ``|δ| ≤ 2⁻⁵³``).
  https://doi.org/10.1137/1.9780898718027
- Mironov (2012), "On Significance of the Least Significant Bits for Differential Privacy", CCS.
  https://doi.org/10.1145/2382196.2382264
- Ilvento (2020), "Implementing the Exponential Mechanism with Base-2 Differential Privacy", CCS, Section 4 (float
  exponential mechanisms are not ε-DP; exact sampling by arbitrary precision). https://arxiv.org/abs/1912.04222
- Cowlishaw (2009), "General Decimal Arithmetic Specification", version 1.70, IBM, the ``exp`` operation (its result
  correctly rounded; Python's ``decimal`` implements it: ``Decimal.exp`` "is correctly rounded using the
  ROUND_HALF_EVEN rounding mode"). https://speleotrove.com/decimal/decarith.html
"""

from __future__ import annotations

import math
from bisect import bisect_left
from decimal import (
    MAX_EMAX,
    MIN_EMIN,
    ROUND_CEILING,
    ROUND_FLOOR,
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
)
from fractions import Fraction

import numpy as np

from dpcore.randomness import raw_words

__all__ = ["exact_choice", "nearest_grid_index", "quantile_exponents"]

_U = 2.0**-53  # the unit roundoff of float64 (Higham 2002, §2.2)
_EXP_REL = 2.0**-44  # exp's relative error (≤ 2⁻⁴⁵ assumed) and the length's and product's roundings, with room
_SLACK = 1.0 + 2.0**-40  # covers the roundings of computing a bound itself (each a few u, u = 2⁻⁵³)
_SUM_SLACK = 1.0 + 2.0**-30  # a float sum of ≤ 2⁴⁰ non-negative terms in blocks errs by < 2¹² u relative
_TINY = 700.0  # exponents beyond: e^{−700} ≈ 10⁻³⁰⁴ is still a normal float, so no exp below it underflows
_BLOCK = 1024
_MAX_COEFFICIENT = 1 << 53  # integers a float64 holds exactly
_FIRST_DIGITS = 40


class _LazyUniform:
    """``U = 0.b₁b₂b₃…`` with its bits drawn 64 at a time on demand: after ``bits`` bits, ``U ∈ [a/2^bits,
    (a+1)/2^bits)``. Bits come from :func:`~dpcore.randomness.raw_words` (a SecureGenerator's, or a seeded
    generator's raw words in tests)."""

    def __init__(self, rng):
        self.rng, self.a, self.bits = rng, 0, 0

    def refine(self, bits: int) -> None:
        while self.bits < bits:
            words = raw_words(self.rng, max(1, -(-(bits - self.bits) // 64)))
            for word in words:
                self.a = (self.a << 64) | int(word)
                self.bits += 64


def _exact(value, name: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction, np.integer, np.floating)):
        raise TypeError(f"{name} must be exact numbers (int, float or Fraction), got {type(value).__name__}")
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return Fraction(int(value)) if isinstance(value, np.integer) else Fraction(value)


def _check_inputs(lengths, left, right, coefficients, bases):
    if (lengths is None) == (left is None or right is None):
        raise TypeError("give either lengths or both left and right, got " + ("neither" if lengths is None else "both"))
    if lengths is not None:
        raw = np.asarray(lengths)
        if raw.dtype.kind not in "iuf" or raw.ndim != 1:
            raise TypeError(f"lengths must be a 1-D array of real numbers, got dtype {raw.dtype} and {raw.ndim} dims")
        if raw.dtype.kind in "iu" and raw.size and not (-_MAX_COEFFICIENT < raw.min() and raw.max() < _MAX_COEFFICIENT):
            raise ValueError("lengths must be integers below 2^53 in magnitude (float64 holds them exactly)")
        length_hat = raw.astype(np.float64)
        left_arr = right_arr = None
    else:
        left_arr = np.asarray(left, dtype=np.float64).ravel()
        right_arr = np.asarray(right, dtype=np.float64).ravel()
        if left_arr.shape != right_arr.shape:
            raise ValueError(f"left and right must have the same length, got {left_arr.size} and {right_arr.size}")
        if not (np.all(np.isfinite(left_arr)) and np.all(np.isfinite(right_arr)) and np.all(right_arr >= left_arr)):
            raise ValueError("left and right must be finite with right ≥ left everywhere")
        length_hat = right_arr - left_arr  # fl(right − left): relative error ≤ u, exactly 0 only when equal
    if length_hat.size == 0:
        raise ValueError("lengths must hold at least one entry, got none")
    if not np.all(np.isfinite(length_hat)) or np.any(length_hat < 0):
        raise ValueError("lengths must be finite and non-negative")
    total = float(np.sum(length_hat))
    if not (math.isfinite(total) and total > 0):
        raise ValueError(f"lengths must have a positive, finite sum, got {total}")
    coefficients = np.asarray(coefficients)
    if coefficients.ndim == 1:
        coefficients = coefficients[:, None]
    if coefficients.dtype.kind not in "iu" or coefficients.ndim != 2 or coefficients.shape[0] != length_hat.size:
        raise TypeError(
            f"coefficients must be integers, one row per length ({length_hat.size}), got dtype "
            f"{coefficients.dtype} and shape {coefficients.shape}"
        )
    if coefficients.size and not (-_MAX_COEFFICIENT < coefficients.min() and coefficients.max() < _MAX_COEFFICIENT):
        raise ValueError("coefficients must be below 2^53 in magnitude (float64 holds them exactly)")
    bases = tuple(_exact(b, "bases") for b in (bases if np.ndim(bases) else (bases,)))
    if len(bases) != coefficients.shape[1]:
        raise ValueError(
            f"bases must give one number per column of coefficients ({coefficients.shape[1]}), got {len(bases)}"
        )
    base_hat = np.array([float(b) for b in bases], dtype=np.float64)  # correctly rounded: |β̂ − β| ≤ u|β|
    if not np.all(np.isfinite(base_hat)):
        raise ValueError("bases must be within the float range (below about 1.8e308 in magnitude)")
    return length_hat, left_arr, right_arr, coefficients.astype(np.int64, copy=False), bases, base_hat


def _prefix_sums(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative sums of non-negative ``x`` in float64 and a rigorous bound on each one's rounding error.

    Sums within blocks of 1,024, then the blocks' totals; the running error bound of each recursive sum is
    ``u Σ |partial sums|`` (Higham 2002, eq. 4.4), and the final ``block offset + partial`` adds ``u·|S|``.
    """
    m = x.size
    size = min(_BLOCK, m)
    blocks = -(-m // size)
    padded = np.zeros(blocks * size)
    padded[:m] = x
    within = np.cumsum(padded.reshape(blocks, size), axis=1)
    within_err = _U * np.cumsum(within, axis=1)
    totals = np.cumsum(within[:, -1])
    totals_err = _U * np.cumsum(totals) + np.cumsum(within_err[:, -1])
    offsets = np.concatenate(([0.0], totals[:-1]))
    offsets_err = np.concatenate(([0.0], totals_err[:-1]))
    sums = within + offsets[:, None]
    err = (within_err + offsets_err[:, None] + _U * sums) * _SUM_SLACK
    return sums.ravel()[:m], err.ravel()[:m]


def _float_pass(length_hat, coefficients, base_hat):
    """Float exponents ``ĉ'`` (shifted so the least is 0) and their error bounds γ over every index, then the indices
    kept (positive length, ``ĉ' ≤ 700``) with their float weights and error bounds, the bound on every other
    index's weight (``L e^{−700+γ}`` beyond 700, 0 for a length of 0), and the exact shift."""
    c_hat = np.zeros(coefficients.shape[0])
    magnitude = np.zeros(coefficients.shape[0])
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
        for column, base in zip(coefficients.T, base_hat):  # |A| < 2⁵³: exact conversions; one rounding per product
            term = column * base
            c_hat += term
            magnitude += np.abs(term)  # Σ|a||β̂| to within a relative u: the slack covers it
    if not (np.all(np.isfinite(c_hat)) and np.all(np.isfinite(magnitude))):
        raise ValueError("the exponents Σ A[k, j]·β_j must stay within the float range (below about 1.8e308)")
    shift = float(c_hat.min())
    shifted = c_hat - shift
    # |ĉ − c| ≤ u Σ|a||β| (the bases' rounding) + J u Σ|a||β̂| (J products) + (J − 1) u Σ|a||β̂| (the sums), to first
    # order; the shift's subtraction adds u|ĉ'|. (2J + 2) and the slack cover the second-order terms.
    columns = coefficients.shape[1]
    gamma = ((2 * columns + 2) * magnitude + shifted) * _U * _SLACK  # ĉ' ≥ 0
    tiny = shifted > _TINY
    keep = np.flatnonzero(~tiny & (length_hat > 0))  # a length of exactly 0 is a weight of exactly 0
    weights = length_hat[keep] * np.exp(-shifted[keep])  # e^{−700} is a normal float: no exp here underflows
    with np.errstate(over="ignore", invalid="ignore"):
        rho = (np.expm1(gamma[keep]) * _SLACK + _EXP_REL) * _SLACK
        # 2⁻¹⁰⁷⁴ covers a product L·e that fell into the subnormals
        err = np.nan_to_num(weights * rho * _SLACK + 2.0**-1074, nan=np.inf)
        # beyond 700: w ≤ L e^{−(ĉ' − γ)} ≤ L e^{−700 + γ} (the factor 2 covers the roundings of this bound)
        largest = float(gamma.max())  # e^{γ_k} ≤ e^{max γ}: one exp, not m (an infinite bound when it is useless)
        worst = math.exp(largest - _TINY) * 2.0 if largest < 2 * _TINY else math.inf
        others = np.where(tiny & (length_hat > 0), length_hat * worst, 0.0)
    return shifted, gamma, keep, weights, err, others, shift


def _float_decision(keep, weights, err, others, u_lo: float, u_hi: float):
    """The ``k`` with ``S_{k−1} ≤ U·W < S_k`` for every value in the float enclosures, or None."""
    m = others.size
    sums, sums_err = _prefix_sums(weights)
    err_sums, err_sums_err = _prefix_sums(err)
    bound = (sums_err + err_sums + err_sums_err) * _SLACK  # |Ŝ − S| over the kept indices
    others_sums = np.cumsum(others) * (1 + 2.0**-20)  # ≥ the weights of the others up to each index
    lo = np.maximum.accumulate((sums - bound) * (1 - 2.0**-50))  # lower bounds of S at the kept indices (monotone)
    total_lo = float(lo[-1])
    total_hi = float((sums[-1] + bound[-1] + others_sums[-1]) * (1 + 2.0**-50))
    if not total_lo > 0:
        return None
    x_lo = u_lo * total_lo * (1 - 2.0**-50)
    x_hi = u_hi * total_hi * (1 + 2.0**-50)
    i = int(np.searchsorted(lo, x_hi, side="left"))  # the first kept index whose S reaches (every value of) U·W
    if i == keep.size:  # none: the last index if it is kept, as S_{m−1} = W > U·W (U < 1)
        if keep[-1] != m - 1:
            return None
        i -= 1
    k = int(keep[i])
    before = (0.0 if i == 0 else sums[i - 1] + bound[i - 1]) + (others_sums[k - 1] if k else 0.0)
    return k if before * (1 + 2.0**-50) <= x_lo else None


def _contexts(digits: int):
    common = {"prec": digits, "Emax": MAX_EMAX, "Emin": MIN_EMIN, "traps": [InvalidOperation, DivisionByZero, Overflow]}
    return (
        Context(rounding=ROUND_FLOOR, **common),
        Context(rounding=ROUND_CEILING, **common),
        Context(rounding=ROUND_HALF_EVEN, **common),
    )


def _exp_bounds(exponent: Fraction, down: Context, up: Context, even: Context) -> tuple[Decimal, Decimal]:
    """``[lo, hi] ∋ exp(−exponent)``: the exponent enclosed by outward division, exp correctly rounded (so within
    half a unit in the last place), widened by one unit each way."""
    num, den = Decimal(exponent.numerator), Decimal(exponent.denominator)
    c_lo, c_hi = down.divide(num, den), up.divide(num, den)
    hi = even.exp(-c_lo).next_plus(even)
    lo = even.exp(-c_hi).next_minus(even)
    return max(lo, Decimal(0)), hi


def _decimal_round(digits, u, float_state, exact):
    """One refinement at ``digits`` decimal digits: the chosen index, or None when still undecided."""
    length_hat, left, right, coefficients, bases, shift = exact
    shifted, gamma, weights = float_state
    m = length_hat.size
    down, up, even = _contexts(digits)
    # terms provably beyond T are bounded by [0, L e^{−T}]; T leaves them a share of about 10^{−digits} of the total
    biggest = float(weights.max()) if weights.size else 0.0
    spread = max(0.0, math.log(float(length_hat.sum())) - math.log(biggest)) if biggest > 0 else float(digits)
    threshold = digits * math.log(10.0) + spread + 10.0
    with np.errstate(invalid="ignore"):
        tail = (shifted - gamma) > threshold
    head = np.flatnonzero(~tail)
    exact_shift = Fraction(shift)
    low_sums, high_sums = [Decimal(0)], [Decimal(0)]
    for k in head.tolist():
        exponent = sum((int(a) * b for a, b in zip(coefficients[k], bases)), Fraction(0)) - exact_shift
        e_lo, e_hi = _exp_bounds(exponent, down, up, even)
        if left is None:
            l_lo = l_hi = Decimal(float(length_hat[k]))  # the length itself, exactly
        else:
            l_lo = down.subtract(Decimal(float(right[k])), Decimal(float(left[k])))
            l_hi = up.subtract(Decimal(float(right[k])), Decimal(float(left[k])))
        low_sums.append(down.add(low_sums[-1], down.multiply(l_lo, e_lo)))
        high_sums.append(up.add(high_sums[-1], up.multiply(l_hi, e_hi)))
    tail_lengths = np.cumsum(np.where(tail, length_hat, 0.0)) * (1 + 2.0**-20)  # ≥ the exact sums of the tail's L
    e_tail = even.exp(-Decimal(threshold)).next_plus(even)

    def high(j: int) -> Decimal:  # an upper bound of S_j
        if j < 0:
            return Decimal(0)
        count = int(np.searchsorted(head, j, side="right"))
        return up.add(high_sums[count], up.multiply(e_tail, Decimal(float(tail_lengths[j]))))

    u.refine(math.ceil(digits * math.log2(10.0)) + 64)
    scale = Decimal(1 << u.bits)
    x_lo = down.multiply(down.divide(Decimal(u.a), scale), low_sums[-1])
    x_hi = up.multiply(up.divide(Decimal(u.a + 1), scale), high(m - 1))
    i = bisect_left(low_sums, x_hi)  # the fewest head terms whose lower sum reaches (every value of) U·W
    if i == 0 or not low_sums[-1] > 0:
        return None
    k = int(head[i - 1]) if i < len(low_sums) else m - 1  # none: the last index, as S_{m−1} = W > U·W
    return k if high(k - 1) <= x_lo else None


def exact_choice(lengths, coefficients, bases, rng, *, left=None, right=None, _float_first: bool = True) -> int:
    """An index ``k`` with probability exactly ``w_k / Σ w``, ``w_k = L_k · exp(−c_k)``, ``c_k = Σ_j A[k, j]·β_j``.

    Las Vegas: the law is exact; a float pass with rigorous error bounds decides almost every draw, and
    :mod:`decimal` at growing precision decides the rest (module notes).

    Parameters
    ----------
    lengths : array_like of float or int, or None
        ``L_k ≥ 0``, 1-D, read as the exact rationals they are, with a positive finite sum. None when ``left`` and
        ``right`` are given instead.
    coefficients : array_like of int, shape (m,) or (m, J)
        ``A``, integers below 2⁵³ in magnitude.
    bases : sequence of Fraction, int or float
        ``β``, J exact numbers (floats read exactly), each within the float range.
    rng : SecureGenerator or numpy.random.Generator
        The source of bits (:func:`~dpcore.randomness.raw_words`); a publication passes a SecureGenerator.
    left, right : array_like of float, optional
        ``L_k = right_k − left_k`` exactly (not its float rounding); finite, ``right ≥ left``.

    Returns
    -------
    int
    """
    length_hat, left_arr, right_arr, coefficients, bases, base_hat = _check_inputs(
        lengths, left, right, coefficients, bases
    )
    shifted, gamma, keep, weights, err, others, shift = _float_pass(length_hat, coefficients, base_hat)
    u = _LazyUniform(rng)
    u.refine(64)
    if _float_first and keep.size:
        u_lo = float(u.a) * 2.0**-64 * (1 - 2.0**-52)  # float(a) rounds: a relative 2⁻⁵³ each way
        u_hi = float(u.a + 1) * 2.0**-64 * (1 + 2.0**-52)
        chosen = _float_decision(keep, weights, err, others, u_lo, u_hi)
        if chosen is not None:
            return chosen
    exact = (length_hat, left_arr, right_arr, coefficients, bases, shift)
    digits = _FIRST_DIGITS
    while True:  # ends with probability 1: the enclosures shrink to the exact sums and U·W hits no boundary
        chosen = _decimal_round(digits, u, (shifted, gamma, weights), exact)
        if chosen is not None:
            return chosen
        digits *= 2


def nearest_grid_index(left: float, right: float, origin: float, step: float, rng) -> int:
    """``j = ⌊(Y − origin)/step + ½⌋`` (the nearest grid point ``origin + j·step``) for ``Y`` uniform on
    ``[left, right]``, exactly.

    ``(Y − origin)/step + ½ = A + V·D`` with ``A = (left − origin)/step + ½``, ``D = (right − left)/step`` exact
    rationals and ``V`` uniform on [0, 1); ``V``'s bits are drawn 64 at a time until ``A + V·D`` is known to lie in
    one cell ``[j, j + 1)`` (the cells' ends, where round-half-to-even and floor differ, have probability 0).
    """
    step_q = _exact(step, "step")
    if not step_q > 0:
        raise ValueError(f"step must be in (0, inf), got {step}")
    start = (_exact(left, "left") - _exact(origin, "origin")) / step_q + Fraction(1, 2)
    span = (_exact(right, "right") - _exact(left, "left")) / step_q
    if span < 0:
        raise ValueError(f"right must be at least left, got left={left} and right={right}")
    if span == 0:
        return math.floor(start)
    u = _LazyUniform(rng)
    while True:
        u.refine(u.bits + 64)
        low = start + span * Fraction(u.a, 1 << u.bits)
        high = start + span * Fraction(u.a + 1, 1 << u.bits)
        j = math.floor(low)
        if high <= j + 1:
            return j


def quantile_exponents(ranks, q: float, n: int, scale) -> tuple[np.ndarray, tuple[Fraction, Fraction]]:
    """``c_k = s·(|r_k − q·n| − min_j |r_j − q·n|)`` as integer coefficients over exact bases ``(s, s·φ)``.

    With ``t = q·n`` exactly (q a float, read exactly), ``f = ⌊t⌋`` and ``φ = t − f``: ``|r − t| = (r − f) − φ``
    when ``r > f``, ``(f − r) + φ`` otherwise. The least of these is ``A₁ − φ`` or ``A₂ + φ``; subtracting it leaves
    an integer plus ``−2, 0`` or ``2`` times ``φ``.

    Parameters
    ----------
    ranks : array_like of int
        ``r_k``.
    q : float
        In [0, 1].
    n : int
        The number of values.
    scale : Fraction
        ``s = ε/(2Δu)``, exactly.

    >>> A, bases = quantile_exponents([0, 1, 2, 3], 0.5, 3, Fraction(1))
    >>> [int(a) + int(b) * bases[1] for a, b in A], bases[1]
    ([Fraction(1, 1), Fraction(0, 1), Fraction(0, 1), Fraction(1, 1)], Fraction(1, 2))
    """
    ranks = np.asarray(ranks, dtype=np.int64)
    target = Fraction(q) * int(n)
    floor = math.floor(target)
    phi = target - floor
    above = ranks > floor
    distance = np.where(above, ranks - floor, floor - ranks).astype(np.int64)  # |r − t| = distance ∓ φ
    sign = np.where(above, -1, 1).astype(np.int64)
    candidates = []
    if above.any():
        candidates.append((int(distance[above].min()) - phi, -1))
    if (~above).any():
        candidates.append((int(distance[~above].min()) + phi, 1))
    best, best_sign = min(candidates)
    best_int = int(best - best_sign * phi)
    coefficients = np.empty((ranks.size, 2), dtype=np.int64, order="F")  # columns contiguous, read one at a time
    coefficients[:, 0] = distance - best_int
    coefficients[:, 1] = sign - best_sign
    scale = Fraction(scale)
    return coefficients, (scale, scale * phi)
