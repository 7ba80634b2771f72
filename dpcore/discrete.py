"""Exact samplers for the discrete Laplace and the discrete Gaussian on the integers.

Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential
Privacy", NeurIPS, https://arxiv.org/abs/2004.00010 :

* Algorithm 1: ``Bernoulli(exp(−γ))`` for a rational ``γ = n/d ≥ 0`` from
  ``Bernoulli(γ/k)`` coins only (a Taylor-series race, then ``⌊γ⌋`` coins of
  ``Bernoulli(e⁻¹)`` and one of ``Bernoulli(exp(−(γ − ⌊γ⌋)))``);
* Algorithm 2: the discrete Laplace ``P[Y = y] ∝ exp(−|y| s/t)`` for integers
  ``s, t ≥ 1``;
* Algorithm 3: the discrete Gaussian ``P[Y = y] ∝ exp(−y²/(2σ²))`` for a
  rational ``σ²``, by rejection from the discrete Laplace of scale ``⌊σ⌋ + 1``.

**Exactness.** Every random decision here compares integers: a coin
``Bernoulli(n/(d k))`` is ``U < n`` for ``U`` uniform on ``{0, …, d k − 1}``
(``Generator.integers``, itself exact on integers), the uniform ``U`` of
Algorithm 2 is an integer, and the acceptance parameters ``U/t`` and
``(|Y| − σ²/t)²/(2σ²)`` are formed as integer numerators and denominators. No
logarithm, exponential or floating-point division enters a decision, so the
output law is exactly the one stated, with no rounding holes of the kind
Mironov (2012) exploited in floating-point Laplace samplers. Numbers that could
overflow int64 (huge ``|Y|``, huge ``σ²``, a race lasting more than 64 coins)
are finished one by one with Python's unbounded integers, still exactly.

Vectorisation: the loops of the algorithms run over arrays of pending draws
(each loop pass serves every draw still running), so the number of Python-level
passes grows like the logarithm of the number of draws.

References
----------
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS,
  Algorithms 1–3, Section 2.2, Theorems 4 and 7. https://arxiv.org/abs/2004.00010
- Mironov (2012), "On Significance of the Least Significant Bits for Differential Privacy", CCS,
  Section 3. https://www.microsoft.com/en-us/research/wp-content/uploads/2012/10/lsbs.pdf
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpcore.validation import as_generator, check_int, check_nonnegative, check_positive, check_sample_size

__all__ = [
    "bernoulli_exp",
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "DiscreteLaplace",
    "DiscreteGaussian",
]

# The vectorised race draws integers in [0, d·k): d below 2^56 and k below 2^6 keep d·k in int64.
_FAST_DEN = 1 << 56
_FAST_K = 64
# (|Y|·t − σ²)² must stay below 2^63: |Y|·t − σ² below ⌊√(2^63 − 1)⌋.
_FAST_DIFF = math.isqrt((1 << 63) - 1)


# ---------------------------------------------------------------------- Bernoulli(exp(−γ))


def _uniform_below(rng: np.random.Generator, n: int) -> int:
    """A uniform integer in ``{0, …, n − 1}`` for a Python int ``n ≥ 1`` (rejection on 32-bit words)."""
    bits = n.bit_length()
    words = (bits + 31) // 32
    while True:
        value = 0
        for w in rng.integers(0, 1 << 32, size=words, dtype=np.uint64).tolist():
            value = (value << 32) | w
        value >>= 32 * words - bits
        if value < n:
            return value


def _race_scalar(a: int, d: int, rng: np.random.Generator, k: int = 1) -> bool:
    """The race of :func:`_race` for one draw on Python ints, from ``K = k``: exact for any size."""
    while _uniform_below(rng, d * k) < a:
        k += 1
    return k % 2 == 1


def _bernoulli_exp_scalar(num: int, den: int, rng: np.random.Generator) -> bool:
    """CKS 2020 Algorithm 1 on Python ints: ``Bernoulli(exp(−num/den))``, exactly, for any size."""
    whole, frac = divmod(num, den)
    for _ in range(whole):  # exp(−⌊γ⌋) as ⌊γ⌋ coins of Bernoulli(e⁻¹)
        if not _race_scalar(1, 1, rng):
            return False
    return _race_scalar(frac, den, rng)


def _race(a: np.ndarray, d: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``Bernoulli(exp(−a/d))`` for ``0 ≤ a ≤ d`` (int64 arrays, ``d < 2^56``): CKS 2020 Algorithm 1, γ ≤ 1.

    ``K ← 1``; while ``Bernoulli(γ/K)`` is 1, ``K ← K + 1``; return ``K`` odd.
    ``P[K odd] = Σ_k (−γ)^k / k! = e^{−γ}``.
    """
    out = np.empty(a.shape, dtype=bool)
    k = np.ones(a.shape, dtype=np.int64)
    pending = np.arange(a.size)
    while pending.size:
        if k[pending[0]] >= _FAST_K:  # every pending draw has the same k: finish them exactly, one by one
            for i in pending.tolist():
                out[i] = _race_scalar(int(a[i]), int(d[i]), rng, int(k[i]))
            break
        coin = rng.integers(0, d[pending] * k[pending]) < a[pending]  # Bernoulli(a / (d k))
        done = pending[~coin]
        out[done] = (k[done] % 2) == 1
        pending = pending[coin]
        k[pending] += 1
    return out


def bernoulli_exp(num, den, rng) -> np.ndarray:
    """Exact ``Bernoulli(exp(−num/den))`` for integers ``num ≥ 0``, ``den ≥ 1`` (CKS 2020, Algorithm 1).

    ``exp(−γ) = exp(−1)^{⌊γ⌋} · exp(−(γ − ⌊γ⌋))``: ``⌊γ⌋`` coins of
    ``Bernoulli(e⁻¹)`` (each the race below with ``γ = 1``), all of which must
    be 1, then the race for the fractional part.

    Parameters
    ----------
    num, den : array_like of int
        Numerators in [0, inf) and denominators in [1, inf), broadcast together.
        Python ints of any size are accepted (object arrays are finished one by one).
    rng : numpy.random.Generator or int

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> bool(bernoulli_exp(0, 1, 0)), bool(bernoulli_exp(10**30, 1, 0))
    (True, False)
    """
    rng = as_generator(rng)
    num_a, den_a = np.asarray(num), np.asarray(den)
    if num_a.dtype.kind in "iu" and den_a.dtype.kind in "iu":  # the vectorised path, when everything fits
        n64, d64 = np.broadcast_arrays(num_a.astype(np.int64), den_a.astype(np.int64))
        if n64.size == 0:
            return np.ones(n64.shape, dtype=bool)
        if n64.min() < 0 or d64.min() < 1:
            raise ValueError(f"num must be in [0, inf) and den in [1, inf), got {n64.min()} and {d64.min()}")
        if d64.max() < _FAST_DEN:
            return _bernoulli_exp_fast(n64.reshape(-1), d64.reshape(-1), rng).reshape(n64.shape)
    num_b, den_b = np.broadcast_arrays(np.asarray(num, dtype=object), np.asarray(den, dtype=object))
    shape = num_b.shape
    flat_num, flat_den = num_b.reshape(-1), den_b.reshape(-1)
    if flat_num.size and (min(flat_num) < 0 or min(flat_den) < 1):
        raise ValueError(f"num must be in [0, inf) and den in [1, inf), got {min(flat_num)} and {min(flat_den)}")
    out = np.empty(flat_num.size, dtype=bool)
    for i in range(flat_num.size):
        out[i] = _bernoulli_exp_scalar(int(flat_num[i]), int(flat_den[i]), rng)
    return out.reshape(shape)


def _bernoulli_exp_fast(num: np.ndarray, den: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """:func:`bernoulli_exp` on int64 arrays with ``den < 2^56``."""
    whole = num // den
    frac = num - whole * den
    out = np.ones(num.shape, dtype=bool)
    pending = np.flatnonzero(whole > 0)
    left = whole[pending]
    while pending.size:  # one Bernoulli(e⁻¹) coin per pass for every draw still alive
        coin = _race(np.ones(pending.size, dtype=np.int64), np.ones(pending.size, dtype=np.int64), rng)
        out[pending[~coin]] = False
        left = left - 1
        keep = coin & (left > 0)
        pending, left = pending[keep], left[keep]
    alive = np.flatnonzero(out & (frac > 0))
    if alive.size:
        out[alive] = _race(frac[alive], den[alive], rng)
    return out


# ---------------------------------------------------------------------- discrete Laplace


def _geometric_e(rng: np.random.Generator, size: int) -> np.ndarray:
    """Number of 1s before the first 0 in a run of ``Bernoulli(e⁻¹)`` coins (CKS 2020, Alg. 2 inner loop)."""
    v = np.zeros(size, dtype=np.int64)
    pending = np.arange(size)
    while pending.size:
        coin = _race(np.ones(pending.size, dtype=np.int64), np.ones(pending.size, dtype=np.int64), rng)
        pending = pending[coin]
        v[pending] += 1
    return v


def _discrete_laplace(rng: np.random.Generator, t: int, s: int, size: int) -> np.ndarray:
    """``size`` draws with ``P[Y = y] ∝ exp(−|y| s/t)``: CKS 2020 Algorithm 2, on batches of candidates.

    Per candidate: ``U`` uniform on ``{0, …, t − 1}``, kept with probability
    ``exp(−U/t)``; ``V`` counts ``Bernoulli(e⁻¹)`` successes; ``X = U + tV`` is
    geometric with ``P[X = x] ∝ e^{−x/t}``; ``Y = ⌊X/s⌋``; a sign ``B``; the
    candidate ``(B, Y) = (1, 0)`` is rejected (so 0 is not counted twice). The
    accepted candidates are iid, so the first ``size`` of them are the sample.
    """
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        m = max(2 * (size - filled), 16)
        u = rng.integers(0, t, size=m)
        u = u[bernoulli_exp(u, t, rng)]
        y = (u + t * _geometric_e(rng, u.size)) // s
        b = rng.integers(0, 2, size=u.size)
        keep = ~((b == 1) & (y == 0))
        z = ((1 - 2 * b) * y)[keep]
        take = min(z.size, size - filled)
        out[filled : filled + take] = z[:take]
        filled += take
    return out


#: The largest integer scale the vectorised samplers take (their uniform draws are int64).
_MAX_INT_SCALE = 1 << 62


def sample_discrete_laplace(rng, scale: int, size=None, *, scale_den: int = 1):
    """Exact draws of the discrete Laplace ``P[Y = y] ∝ exp(−|y| / (scale/scale_den))`` on the integers.

    CKS 2020, Algorithm 2 (with ``t = scale``, ``s = scale_den``).

    Parameters
    ----------
    rng : numpy.random.Generator or int
    scale : int
        Numerator of the scale, in [1, inf).
    size : int or tuple, optional
        Output shape (an int when None).
    scale_den : int, default 1
        Denominator of the scale, in [1, inf).
    """
    rng = as_generator(rng)
    t = check_int(scale, "scale", minimum=1, maximum=_MAX_INT_SCALE)
    s = check_int(scale_den, "scale_den", minimum=1, maximum=_MAX_INT_SCALE)
    n = check_sample_size(size)
    out = _discrete_laplace(rng, t, s, n)
    return int(out[0]) if size is None else out.reshape(size)


# ---------------------------------------------------------------------- discrete Gaussian


def _discrete_gaussian(rng: np.random.Generator, num: int, den: int, size: int) -> np.ndarray:
    """``size`` draws with ``P[Y = y] ∝ exp(−y²/(2σ²))``, ``σ² = num/den``: CKS 2020 Algorithm 3.

    ``t = ⌊σ⌋ + 1``; candidate ``Y`` from the discrete Laplace of scale ``t``;
    accept with probability ``exp(−(|Y| − σ²/t)² / (2σ²))``, whose exponent is
    the rational ``(|Y|·den·t − num)² / (2·num·den·t²)``.
    """
    t = math.isqrt(num // den) + 1  # ⌊√(num/den)⌋ = ⌊√⌊num/den⌋⌋
    acc_den = 2 * num * den * t * t
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        m = max(2 * (size - filled), 16)
        y = _discrete_laplace(rng, t, 1, m)
        mag = np.abs(y)
        if acc_den < _FAST_DEN and int(mag.max()) * den * t < _FAST_DIFF:
            diff = mag * (den * t) - num
            accept = _bernoulli_exp_fast(diff * diff, np.full(m, acc_den, dtype=np.int64), rng)
        else:
            numer = [(int(v) * den * t - num) ** 2 for v in mag.tolist()]
            accept = bernoulli_exp(np.array(numer, dtype=object), acc_den, rng)
        z = y[accept]
        take = min(z.size, size - filled)
        out[filled : filled + take] = z[:take]
        filled += take
    return out


def _as_fraction(value, name: str) -> Fraction:
    """``value`` (int, float or Fraction) as an exact positive Fraction."""
    if isinstance(value, Fraction | int) and not isinstance(value, bool):
        frac = Fraction(value)
    else:
        frac = Fraction(check_positive(value, name))
    if frac <= 0:
        raise ValueError(f"{name} must be in (0, inf), got {float(frac)}")
    return frac


def sample_discrete_gaussian(rng, sigma2, size=None):
    """Exact draws of the discrete Gaussian ``P[Y = y] ∝ exp(−y²/(2σ²))`` on the integers (CKS 2020, Algorithm 3).

    Parameters
    ----------
    rng : numpy.random.Generator or int
    sigma2 : int, float or fractions.Fraction
        The variance parameter σ², in (0, inf); a float is taken as the exact
        rational it stores.
    size : int or tuple, optional
    """
    rng = as_generator(rng)
    frac = _as_fraction(sigma2, "sigma2")
    n = check_sample_size(size)
    out = _discrete_gaussian(rng, frac.numerator, frac.denominator, n)
    return int(out[0]) if size is None else out.reshape(size)


# ---------------------------------------------------------------------- the laws


@dataclass(frozen=True)
class DiscreteLaplace:
    """The discrete Laplace law ``P[Y = y] = (1 − r)/(1 + r) · r^{|y|}``, ``r = e^{−1/scale}``, on the integers.

    Adding it to an integer-valued query of sensitivity ``Δ`` (an integer) is
    ``ε``-DP with ``ε = Δ / scale`` (the ratio of the masses at ``y`` and
    ``y − Δ`` is at most ``r^{−Δ}``; Ghosh, Roughgarden & Sundararajan 2012,
    "Universally Utility-Maximizing Privacy Mechanisms", SIAM J. Comput.; CKS
    2020, Section 2.2).

    Parameters
    ----------
    scale : int
        The scale ``t``, in [1, inf) (grid units).
    """

    scale: int

    def __post_init__(self):
        object.__setattr__(self, "scale", check_int(self.scale, "scale", minimum=1))

    def epsilon(self, sensitivity: int) -> float:
        """``ε = Δ / t`` for an integer sensitivity ``Δ ≥ 1``."""
        return check_int(sensitivity, "sensitivity", minimum=1) / self.scale

    @property
    def variance(self) -> float:
        """``2r / (1 − r)²`` with ``r = e^{−1/t}`` (written as ``1 / (2 sinh²(1/(2t)))``)."""
        half = math.sinh(0.5 / self.scale)
        return 0.5 / (half * half)

    def log_pmf(self, y):
        """``ln P[Y = y] = ln tanh(1/(2t)) − |y|/t``; ``(1 − r)/(1 + r) = tanh(1/(2t))``."""
        y = np.abs(np.asarray(y, dtype=np.float64))
        return math.log(math.tanh(0.5 / self.scale)) - y / self.scale

    def sample(self, rng, size=None):
        """Exact draws (CKS 2020, Algorithm 2)."""
        return sample_discrete_laplace(rng, self.scale, size)


def _log_gauss_normaliser(sigma2: float) -> float:
    """``ln Σ_{z∈ℤ} exp(−z²/(2σ²))`` by Poisson summation.

    ``Σ_z e^{−z²/(2σ²)} = √(2π)σ · Σ_k e^{−2π²σ²k²}`` (the Poisson summation
    formula applied to the Gaussian, whose Fourier transform is a Gaussian; the
    normaliser of the discrete Gaussian is this theta value, CKS 2020, Section 2.1).
    The ``k ≠ 0`` terms are below 3e-9 once σ ≥ 1 and are summed until negligible.
    """
    s2 = float(sigma2)
    if s2 < 0.05:  # tiny σ: the direct sum converges at once
        z = np.arange(-20, 21)
        return float(np.log(np.sum(np.exp(-(z * z) / (2.0 * s2)))))
    k = np.arange(1, 30)
    corr = 2.0 * np.sum(np.exp(-2.0 * math.pi * math.pi * s2 * k * k))
    return 0.5 * math.log(2.0 * math.pi * s2) + math.log1p(corr)


@dataclass(frozen=True)
class DiscreteGaussian:
    """The discrete Gaussian law ``P[Y = y] ∝ exp(−y²/(2σ²))`` on the integers (CKS 2020, Definition 1).

    Added to an integer-valued query of sensitivity ``Δ`` it is
    ``Δ²/(2σ²)``-zCDP (CKS 2020, Theorem 4) and (ε, δ)-DP with the exact
    ``δ(ε)`` of :meth:`delta_for_epsilon` (CKS 2020, Theorem 7).

    Parameters
    ----------
    sigma2 : int, float or fractions.Fraction
        σ², in (0, inf) (grid units squared); kept as an exact fraction.
    """

    sigma2: Fraction

    def __post_init__(self):
        object.__setattr__(self, "sigma2", _as_fraction(self.sigma2, "sigma2"))

    @property
    def sigma(self) -> float:
        return math.sqrt(self.sigma2)

    def zcdp_rho(self, sensitivity: int) -> float:
        """``ρ = Δ²/(2σ²)`` (CKS 2020, Theorem 4)."""
        d = check_int(sensitivity, "sensitivity", minimum=1)
        return float(Fraction(d * d) / (2 * self.sigma2))

    @property
    def variance(self) -> float:
        """``Σ y² P[Y = y]``, summed over ``|y| ≤ 40σ + 40`` (the rest is below e^{−800}); at most σ² (CKS 2020, Prop. 19)."""
        y = np.arange(-(int(40 * self.sigma) + 40), int(40 * self.sigma) + 41, dtype=np.float64)
        return float(np.sum(y * y * np.exp(self.log_pmf(y))))

    def log_pmf(self, y):
        """``ln P[Y = y] = −y²/(2σ²) − ln Σ_z e^{−z²/(2σ²)}``."""
        y = np.asarray(y, dtype=np.float64)
        return -(y * y) / (2.0 * float(self.sigma2)) - _log_gauss_normaliser(self.sigma2)

    def delta_for_epsilon(self, epsilon: float, sensitivity: int) -> float:
        """The exact δ(ε) of the discrete Gaussian mechanism with integer sensitivity Δ.

        ``δ(ε) = Σ_y max(0, P[Y = y] − e^ε P[Y = y − Δ])`` (the hockey-stick
        divergence of the two shifted laws; CKS 2020, Theorem 7, which writes
        it as ``P[Y > εσ²/Δ − Δ/2] − e^ε P[Y > εσ²/Δ + Δ/2]``). Summed term by
        term over the tail where the privacy loss exceeds ε, from
        ``εσ²/Δ − Δ/2`` outward for ``40σ + 40`` integers (beyond them the
        terms are below e^{−800}): no boundary term can be misplaced.

        Parameters
        ----------
        epsilon : float
            In [0, inf).
        sensitivity : int
            Δ, in [1, inf).
        """
        eps = check_nonnegative(epsilon, "epsilon")
        d = check_int(sensitivity, "sensitivity", minimum=1)
        s2 = float(self.sigma2)
        start = math.floor(eps * s2 / d - d / 2.0) - 2  # a little before the first y with loss > ε
        span = int(40 * math.sqrt(s2)) + 40
        y = np.arange(start, start + span, dtype=np.float64)
        # with Y ~ law, compare P[Y = y] and P[Y + Δ = y]: by symmetry the tail y ≥ start (loss of −y vs −y + Δ)
        lp0 = self.log_pmf(y)
        lp1 = self.log_pmf(y + d)
        gap = -np.expm1(np.minimum(eps + lp1 - lp0, 0.0))  # 1 − e^{ε} P1/P0, floored at 0
        return float(np.sum(np.exp(lp0) * gap))

    def sample(self, rng, size=None):
        """Exact draws (CKS 2020, Algorithm 3)."""
        return sample_discrete_gaussian(rng, self.sigma2, size)
