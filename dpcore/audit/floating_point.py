"""Mironov's attack on floating-point Laplace noise, and the same test on the lattice release.

The textbook sampler releases ``y = x + s·(b·ln u)`` in double precision, with
``u`` a uniform double and ``s`` a random sign. Mironov (2012), "On
Significance of the Least Significant Bits for Differential Privacy", CCS,
Section 3 (https://www.microsoft.com/en-us/research/wp-content/uploads/2012/10/lsbs.pdf),
observed that the doubles ``b·ln u`` form a sparse, irregular set, and that
adding ``x`` and rounding shifts it to a set that barely overlaps the one for a
neighbouring ``x'``: most outputs on ``x`` *cannot* occur on ``x'``. Such an
output reveals the input with certainty; the privacy loss is infinite.

:func:`floating_point_attack` decides this exactly, in floating point, for
each output ``y`` drawn on ``x``:

1. the noise values ``n`` (doubles) with ``fl(x' + n) = y`` form an interval of
   doubles (``n ↦ fl(x' + n)`` is non-decreasing), found by bisection on the
   doubles' ordered bit patterns;
2. the sampler's noise ``s·fl(b·fl(ln u))`` is monotone in ``u`` for each sign,
   and ``u`` ranges over the 2⁵³ doubles ``j·2⁻⁵³``, ``j = 1 … 2⁵³``
   (``u = 1 − Generator.random()``, exactly); bisection on ``j`` finds whether
   some ``u`` lands in the interval.

``y`` is impossible on ``x'`` exactly when neither sign finds a ``u``. The same
search run against ``x`` itself must find every output (a positive control
reported as ``found_on_x``): it checks the bisections and the assumption that
the logarithm is monotone. The lattice release (:mod:`dpcore.lattice`) gets the
same test: every grid point is reachable from every answer.

References
----------
- Mironov (2012), "On Significance of the Least Significant Bits for Differential Privacy", CCS,
  Section 3. https://www.microsoft.com/en-us/research/wp-content/uploads/2012/10/lsbs.pdf
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore.audit.bounds import clopper_pearson
from dpcore.laplace import Laplace
from dpcore.lattice import lattice_mechanism
from dpcore.validation import as_generator, check_choice, check_epsilon, check_finite_real, check_int

__all__ = ["FloatingPointAttack", "floating_point_attack", "textbook_laplace", "textbook_can_produce"]

_TWO53 = 2**53
_SIGN = np.int64(0x7FFFFFFFFFFFFFFF)


def textbook_laplace(x: float, scale: float, rng, size: int) -> np.ndarray:
    """The textbook floating-point Laplace sampler: ``x + s·(scale·ln u)``, ``u = 1 − U ∈ (0, 1]``, ``s = ±1``.

    ``U = Generator.random()`` is ``k·2⁻⁵³`` with ``k`` uniform on ``{0, …, 2⁵³ − 1}``,
    so ``u = j·2⁻⁵³`` with ``j = 2⁵³ − k`` uniform on ``{1, …, 2⁵³}``, exactly.
    """
    rng = as_generator(rng)
    u = 1.0 - rng.random(size)
    s = 2.0 * rng.integers(0, 2, size=size) - 1.0
    return x + s * (scale * np.log(u))


def _key(v: np.ndarray) -> np.ndarray:
    """Doubles to int64 keys in the same order (−0.0 and +0.0 share the key 0)."""
    bits = np.asarray(v, dtype=np.float64).view(np.int64)
    return np.where(bits < 0, -(bits & _SIGN), bits)


def _unkey(k: np.ndarray) -> np.ndarray:
    k = np.asarray(k, dtype=np.int64)
    return np.where(k < 0, -((-k).view(np.float64)), k.view(np.float64))


def _first_key(pred, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Smallest integer ``k`` in ``[lo, hi]`` with ``pred(k)`` (``pred`` monotone False→True; ``hi`` if none)."""
    lo, hi = lo.copy(), hi.copy()
    while np.any(lo < hi):
        mid = (lo >> 1) + (hi >> 1) + (lo & hi & 1)  # ⌊(lo + hi)/2⌋ without overflow
        ok = pred(mid)
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid + 1)
    return lo


def _noise_interval(y: np.ndarray, x: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Doubles ``n`` with ``fl(x + n) = y``: ``(smallest, largest, any)``, by bisection on ordered bit patterns."""
    lo_all = np.full(y.shape, _key(np.array(-np.inf)))
    hi_all = np.full(y.shape, _key(np.array(np.inf)))
    first_ge = _first_key(lambda k: x + _unkey(k) >= y, lo_all, hi_all)
    first_gt = _first_key(lambda k: x + _unkey(k) > y, lo_all, hi_all)
    n_lo, n_hi = _unkey(first_ge), _unkey(first_gt - 1)
    exists = (x + n_lo == y) & (first_gt > first_ge)
    return n_lo, n_hi, exists


def _ln_noise(j: np.ndarray, scale: float) -> np.ndarray:
    """``fl(scale · fl(ln(j·2⁻⁵³)))``: the sampler's noise before the sign, non-decreasing in ``j``."""
    return scale * np.log(j.astype(np.float64) * 2.0**-53)


def textbook_can_produce(y, x: float, scale: float) -> np.ndarray:
    """Whether the textbook sampler on input ``x`` can output each double in ``y`` (exact, by bisection).

    See the module docstring. The noise is ``+g(j)`` or ``−g(j)`` with
    ``g(j) = fl(scale·fl(ln(j 2⁻⁵³))) ≤ 0`` non-decreasing in ``j``; for an
    interval ``[a, c]`` of noise values the smallest ``j`` with ``g(j) ≥ a``
    either lands in it or no ``j`` does.
    """
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    n_lo, n_hi, exists = _noise_interval(y, x)
    ones = np.ones(y.shape, dtype=np.int64)
    top = np.full(y.shape, _TWO53, dtype=np.int64)
    found = np.zeros(y.shape, dtype=bool)
    for a, c in ((n_lo, n_hi), (-n_hi, -n_lo)):  # s = +1: g(j) ∈ [lo, hi]; s = −1: g(j) ∈ [−hi, −lo]
        j = _first_key(lambda jj, a=a: _ln_noise(jj, scale) >= a, ones, top)
        g = _ln_noise(j, scale)
        found |= (g >= a) & (g <= c)
    return found & exists


@dataclass(frozen=True)
class FloatingPointAttack:
    """The result of :func:`floating_point_attack`.

    Attributes
    ----------
    sampler : {"textbook", "lattice"}
    epsilon : float
        The ε the noise was calibrated to (scale ``Δ/ε`` with Δ = |x − x'|).
    x, x_prime : float
        The neighbouring answers.
    trials : int
        Outputs drawn on ``x``.
    impossible : int
        Outputs on ``x`` that ``x'`` cannot produce (decided exactly).
    found_on_x : int
        Outputs on ``x`` that the same search finds producible on ``x`` (the positive control: all of them).
    share_lower, share_upper : float
        95% Clopper–Pearson interval for the share of such outputs.
    epsilon_implied : float
        ``inf`` when some output is impossible on ``x'`` (``P[M(x') = y] = 0 < P[M(x) = y]``:
        no finite ε holds); 0.0 when none is (the test shows nothing).
    examples : tuple of float
        A few outputs impossible on ``x'`` (``repr`` shows all 17 digits).
    """

    sampler: str
    epsilon: float
    x: float
    x_prime: float
    trials: int
    impossible: int
    found_on_x: int
    share_lower: float
    share_upper: float
    epsilon_implied: float
    examples: tuple

    @property
    def share(self) -> float:
        """Share of the outputs on ``x`` that ``x'`` cannot produce."""
        return self.impossible / self.trials


def floating_point_attack(
    sampler: str = "textbook",
    epsilon: float = 1.0,
    *,
    trials: int = 10_000,
    rng=0,
    x: float = 0.0,
    x_prime: float = 1.0,
) -> FloatingPointAttack:
    """Mironov's test: the share of outputs on ``x`` that the neighbouring ``x'`` cannot produce.

    Parameters
    ----------
    sampler : {"textbook", "lattice"}
        ``"textbook"``: ``x + s·(b·ln u)`` in doubles (:func:`textbook_laplace`);
        ``"lattice"``: dpcore's safe release of the same Laplace mechanism
        (:func:`dpcore.lattice.lattice_draw`).
    epsilon : float, default 1.0
        ε, in (0, inf); the scale is ``b = |x − x'| / ε``.
    trials : int, default 10,000
        Outputs drawn on ``x``, in [1, 10⁷].
    rng : numpy.random.Generator or int
    x, x_prime : float
        The neighbouring true answers (default 0 and 1), distinct and finite.

    Returns
    -------
    FloatingPointAttack

    Examples
    --------
    >>> r = floating_point_attack("textbook", 1.0, trials=2_000, rng=0)
    >>> r.share > 0.5, r.epsilon_implied, r.found_on_x == r.trials
    (True, inf, True)
    >>> floating_point_attack("lattice", 1.0, trials=2_000, rng=0).impossible
    0
    """
    check_choice(sampler, "sampler", ("textbook", "lattice"))
    epsilon = check_epsilon(epsilon)
    trials = check_int(trials, "trials", minimum=1, maximum=10**7)
    x = check_finite_real(x, "x")
    x_prime = check_finite_real(x_prime, "x_prime")
    if x == x_prime:
        raise ValueError(f"x_prime must differ from x, got x = x_prime = {x}")
    rng = as_generator(rng)
    mech = Laplace.from_epsilon(epsilon, sensitivity=abs(x - x_prime))
    if sampler == "textbook":
        y = textbook_laplace(x, mech.scale, rng, trials)
        possible = textbook_can_produce(y, x_prime, mech.scale)
        found = int(np.count_nonzero(textbook_can_produce(y, x, mech.scale)))
    else:
        lattice = lattice_mechanism(mech)
        y = lattice.simulate(x, rng, trials)
        possible = lattice.can_produce(y, x_prime)
        found = int(np.count_nonzero(lattice.can_produce(y, x)))
    impossible = int(trials - np.count_nonzero(possible))
    lo, hi = clopper_pearson(impossible, trials, 0.95)
    examples = tuple(float(v) for v in y[~possible][:5])
    return FloatingPointAttack(
        sampler, epsilon, x, x_prime, trials, impossible, found, lo, hi, math.inf if impossible else 0.0, examples
    )
