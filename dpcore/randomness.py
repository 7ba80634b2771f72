"""The two kinds of randomness: simulation (seeded, to teach) and publication (secure, to protect).

**Simulation** draws from a seeded ``numpy.random.Generator``: the same seed gives the same
numbers, so a shared link redraws a teaching view, and the truth is shown beside it. Anyone who
knows the seed can redraw the noise and subtract it, so a simulated release protects nothing.

**Publication** draws from :class:`SecureGenerator`: every bit comes from the operating
system's cryptographically secure generator (``os.urandom``: ``getrandom(2)`` on Linux, a
ChaCha20 stream reseeded by the kernel), fresh for every draw. It has no seed, cannot be given
one, cannot be copied or pickled, and nothing a user sees, sets or shares (a seed, a link, a
snippet, a session) determines what it returns. It offers what the exact samplers of
:mod:`dpcore.discrete` need (uniform integers, by rejection: no modulo bias) and uniform
floats for the exponential mechanism's selection.

The second route the field uses, OpenDP's samplers (a CSPRNG behind exact samplers), was not
taken: dpcore's exact discrete Laplace and Gaussian samplers (Canonne, Kamath, Steinke 2020) are
already vectorised, tested against their laws and audited here; driving them with the operating
system's generator gives the same two properties (exact law, unpredictable bits) without a
compiled dependency, and keeps one sampler for simulation and publication, so the audit of one
is the audit of the other.

References
----------
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS,
  Section 5 (exact sampling from uniform random bits). https://arxiv.org/abs/2004.00010
- Garfinkel & Leclerc (2020), "Randomness Concerns When Deploying Differential Privacy", WPES,
  Sections 3–4 (seeded and non-cryptographic generators make noise predictable). https://arxiv.org/abs/2009.03777
- OpenDP, "Additional Notes: Floating-point and randomness" (a CSPRNG for all noise). https://docs.opendp.org
"""

from __future__ import annotations

import enum
import os

import numpy as np

__all__ = ["Randomness", "SecureGenerator", "raw_words"]


class Randomness(enum.Enum):
    """Which kind of randomness drew a release."""

    #: Seeded, reproducible from a link, shown beside the truth: for teaching, not private.
    SIMULATION = "simulation"
    #: Cryptographically secure and fresh: the noise nobody can recompute.
    PUBLICATION = "publication"

    @property
    def words(self) -> str:
        """How a page and a file say it."""
        if self is Randomness.SIMULATION:
            return "simulated, not private: seeded noise that anyone with the seed can recompute"
        return "published: noise from the operating system's secure generator, drawn once and never stored"


# the widest integer the rejection sampler handles in one machine word
_WORD_BITS = 63


class SecureGenerator:
    """Uniform draws from the operating system's cryptographically secure generator; no seed, no state to copy.

    Only the methods the publication path uses exist, so a seeded-generator idiom
    (``SecureGenerator(2017)``, ``copy``, ``pickle``, ``bit_generator``) fails loudly
    instead of silently giving reproducible noise.

    Examples
    --------
    >>> g = SecureGenerator()
    >>> x = g.integers(0, 10, size=1000)
    >>> bool(x.min() >= 0 and x.max() <= 9)
    True
    >>> SecureGenerator(2017)
    Traceback (most recent call last):
    ...
    TypeError: SecureGenerator takes no seed: publication noise must not be reproducible, got 2017
    """

    __slots__ = ()

    def __init__(self, *seed):
        if seed:
            raise TypeError(
                f"SecureGenerator takes no seed: publication noise must not be reproducible, got {seed[0]!r}"
            )

    def __repr__(self) -> str:
        return "SecureGenerator(os.urandom)"

    def __reduce__(self):
        raise TypeError("a SecureGenerator cannot be pickled or copied")

    def __copy__(self):
        raise TypeError("a SecureGenerator cannot be pickled or copied")

    def __deepcopy__(self, memo):
        raise TypeError("a SecureGenerator cannot be pickled or copied")

    @staticmethod
    def _words(count: int) -> np.ndarray:
        """``count`` uniform 64-bit words."""
        return np.frombuffer(os.urandom(8 * count), dtype=np.uint64).copy()

    def integers(self, low, high=None, size=None, dtype=np.int64):
        """Uniform integers in ``[low, high)`` (``[0, low)`` when ``high`` is None), as ``numpy.random.Generator.integers``.

        ``low`` and ``high`` may be arrays broadcast with ``size``. Each draw takes
        the fewest bits that cover the range and rejects values beyond it, so every
        integer of the range is exactly equally likely.
        """
        if high is None:
            low, high = 0, low
        if _too_wide(low) or _too_wide(high):  # Python ints beyond a machine word: one draw at a time
            low_arr, high_arr = np.asarray(low, dtype=object), np.asarray(high, dtype=object)
            shape = np.broadcast_shapes(low_arr.shape, high_arr.shape, _shape(size))
            span = np.broadcast_to(high_arr - low_arr, shape).ravel()
            _check_spans(span)
            base = np.broadcast_to(low_arr, shape).ravel()
            out = np.array([int(b) + _below(int(s)) for b, s in zip(base, span)], dtype=object).reshape(shape)
            return out.item() if size is None and out.ndim == 0 else out
        low_arr, high_arr = np.asarray(low, dtype=np.int64), np.asarray(high, dtype=np.int64)
        shape = np.broadcast_shapes(low_arr.shape, high_arr.shape, _shape(size))
        span = np.broadcast_to(high_arr - low_arr, shape).ravel()
        _check_spans(span)
        drawn = _uniform_below(span)
        out = (np.broadcast_to(low_arr, shape).ravel() + drawn).astype(dtype).reshape(shape)
        return out.item() if size is None and out.ndim == 0 else out

    def random(self, size=None):
        """Uniform floats in ``[0, 1)`` on the 2⁻⁵³ grid (53 secure bits each)."""
        count = 1 if size is None else int(np.prod(size))
        out = (self._words(count) >> np.uint64(11)).astype(np.float64) * 2.0**-53
        return float(out[0]) if size is None else out.reshape(size)

    def standard_exponential(self, size=None):
        """Exponential draws of mean 1, ``−ln(1 − U)`` with ``U`` on the 2⁻⁵³ grid (the tail past 36.7 is cut, a mass
        of 2⁻⁵³). For the comparisons of the sparse vector technique, whose noisy values are never released: every
        released number goes through the exact samplers of :mod:`dpcore.discrete`."""
        u = self.random(size)
        return -np.log1p(-np.asarray(u)) if size is not None else -float(np.log1p(-u))


def _shape(size) -> tuple:
    return () if size is None else ((size,) if np.ndim(size) == 0 else tuple(size))


def _check_spans(span) -> None:
    if span.size and span.min() < 1:
        raise ValueError(f"high must be above low, got a range of {span.min()}")


#: Shifts that smear the highest set bit of a 64-bit word into every lower bit.
_SMEAR = tuple(np.uint64(s) for s in (1, 2, 4, 8, 16, 32))


def _uniform_below(span: np.ndarray) -> np.ndarray:
    """For each span (int64, at least 1) a uniform integer in ``[0, span)``: the fewest bits that cover it, rejected
    past it (each try accepts with probability above 1/2), all draws of a round from one read of secure bytes.

    The mask of ``s`` is ``2^bitlength(s − 1) − 1``: ``s − 1`` with its highest set bit smeared into every
    lower bit (``m |= m >> 1``, ``>> 2``, …, ``>> 32``), vectorised, with no sort and no loop per span.
    """
    limit = span.astype(np.uint64)
    masks = limit - np.uint64(1)
    for shift in _SMEAR:
        masks |= masks >> shift
    words = SecureGenerator._words(span.size) & masks  # the first round, over every draw
    accepted = words < limit
    out = words.astype(np.int64)
    pending = np.flatnonzero(~accepted)
    while pending.size:
        words = SecureGenerator._words(pending.size) & masks[pending]
        accepted = words < limit[pending]
        out[pending[accepted]] = words[accepted].astype(np.int64)
        pending = pending[~accepted]
    return out


def _too_wide(value) -> bool:
    """Whether some ``|v|`` reaches 2^63; for a machine-integer array, by one vectorised comparison."""
    arr = np.asarray(value)
    if arr.dtype.kind in "iu" and (arr.dtype.itemsize < 8 or arr.size == 0):
        return False
    if arr.dtype.kind == "u":  # uint64: from 2^63 on
        return bool(arr.max() >= np.uint64(1 << _WORD_BITS))
    if arr.dtype.kind == "i":  # int64: only −2^63 has |v| = 2^63
        return bool(arr.min() == np.iinfo(np.int64).min)
    return any(abs(int(v)) >= 1 << _WORD_BITS for v in np.ravel(np.asarray(value, dtype=object)))


def _below(span: int) -> int:
    """A uniform integer in ``[0, span)`` from secure bits, by rejection."""
    if span == 1:
        return 0
    bits = (span - 1).bit_length()
    nbytes = (bits + 7) // 8
    mask = (1 << bits) - 1
    while True:  # accepts with probability > 1/2 each time
        candidate = int.from_bytes(os.urandom(nbytes), "little") & mask
        if candidate < span:
            return candidate


def raw_words(rng, count: int) -> np.ndarray:
    """``count`` uniform 64-bit words from a seeded ``numpy.random.Generator`` (its bit generator's raw output)
    or from a :class:`SecureGenerator` (the operating system's bytes): the samplers that work on raw bits
    (the unary encodings' integer thresholds) take either."""
    if isinstance(rng, SecureGenerator):
        return SecureGenerator._words(count)
    return rng.bit_generator.random_raw(count)
