"""Unary encodings: symmetric (SUE, basic RAPPOR) and optimised (OUE).

Each user encodes value ``v`` as a length-k bit vector with a single 1 at ``v``
and flips every bit independently: a 1 stays 1 with probability ``p``, a 0
becomes 1 with probability ``q``. Changing the value changes two bits, so the
mechanism is epsilon-LDP iff ``p(1-q) / ((1-p) q) <= e^eps``
(Wang, Blocki, Li, Jha 2017, USENIX Security, Sec. 4.3, Theorem 3).

- SUE (Erlingsson, Pihur, Korolova 2014, RAPPOR): ``p = e^(eps/2)/(e^(eps/2)+1)``,
  ``q = 1/(e^(eps/2)+1)``.
- OUE (Wang et al. 2017, Sec. 4.4): ``p = 1/2``, ``q = 1/(e^eps + 1)``, the
  choice that minimises the estimator's variance.

A widely copied implementation once swapped p and q for these protocols; the
tests check ``ln(p(1-q)/((1-p)q)) = epsilon``.

References
----------
- Wang, Blocki, Li & Jha (2017), "Locally Differentially Private Protocols for Frequency Estimation",
  USENIX Security, Sections 4.3 (Theorem 3) and 4.4. https://arxiv.org/abs/1705.04421
- Erlingsson, Pihur & Korolova (2014), "RAPPOR: Randomized Aggregatable Privacy-Preserving Ordinal
  Response", CCS. https://arxiv.org/abs/1407.6981
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

from dpcore.frequency_oracle import FrequencyOracle, check_true_counts
from dpcore.limits import MAX_CATEGORIES, MAX_ELEMENTS
from dpcore.randomness import raw_words
from dpcore.validation import as_generator, check_category_values, check_elements, check_epsilon, check_int

__all__ = ["SUE", "OUE", "UnaryEncoding"]

_TWO32 = 2.0**32


def _threshold_down(prob: float) -> int:
    # P(u < T) = T / 2^32 for u uniform on 32 bits; rounding p down and q up keeps
    # p~(1-q~)/((1-p~)q~) <= e^eps, so the quantised mechanism stays epsilon-LDP.
    return math.floor(prob * _TWO32)


def _threshold_up(prob: float) -> int:
    return min(math.ceil(prob * _TWO32), 2**32)


def _below(u: np.ndarray, threshold: int) -> np.ndarray:
    """``u < threshold`` for uint32 ``u`` and an integer threshold in [0, 2^32]."""
    if threshold == 0:
        return np.zeros(u.shape, dtype=bool)
    # compare against threshold - 1 so that 2^32 (always) still fits in uint32
    return u <= np.uint32(threshold - 1)


class UnaryEncoding(FrequencyOracle):
    """Shared perturbation, support and exact aggregate sampling of SUE and OUE."""

    def perturb(self, values, rng) -> np.ndarray:
        """Encode and perturb each user's value; returns a bool array, shape (n, k).

        Vectorised over users and bits: one 32-bit uniform per bit, compared with
        integer thresholds (``p`` rounded down, ``q`` rounded up to a multiple of
        2^-32, which can only lower the privacy loss; the effective probabilities
        differ from ``p`` and ``q`` by less than 2.4e-10).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            True values, integers in [0, k).
        rng : numpy.random.Generator or int
        """
        v = check_category_values(values, self.k)
        rng = as_generator(rng)
        n, k = v.size, self.k
        check_elements(n * k, "rows × categories (one bit each)", MAX_ELEMENTS)
        words = (n * k + 1) // 2
        u = raw_words(rng, words).view(np.uint32)[: n * k].reshape(n, k)
        bits = _below(u, _threshold_up(self.q))
        true_bit = np.arange(n) * k + v  # flat positions of each user's own value
        bits.reshape(-1)[true_bit] = _below(u.reshape(-1)[true_bit], _threshold_down(self.p))
        return bits

    def support(self, reports) -> np.ndarray:
        """Number of reports with the bit of each value set, int array (k,)."""
        r = np.asarray(reports)
        if r.ndim != 2 or r.shape[1] != self.k:
            raise ValueError(f"reports must have shape (n, {self.k}), got shape {r.shape}")
        if r.dtype != bool:
            raise TypeError(f"reports must be a bool array, got dtype {r.dtype}")
        return np.count_nonzero(r, axis=0).astype(np.int64)

    def simulate(self, true_counts, rng, trials: int = 1000) -> np.ndarray:
        """Sample estimates for ``trials`` independent runs without touching users.

        The bits of different positions are independent, and position ``v`` is set
        in ``Bin(c_v, p) + Bin(n - c_v, q)`` reports: exactly the law of
        ``estimate(support(perturb(values)), n)``. Cost O(trials * k), whatever n.

        Returns
        -------
        numpy.ndarray, shape (trials, k), float
        """
        c = check_true_counts(true_counts, self.k)
        trials = self._check_trials(trials)
        rng = as_generator(rng)
        n = int(c.sum())
        support = rng.binomial(c, self.p, size=(trials, self.k)) + rng.binomial(n - c, self.q, size=(trials, self.k))
        return self.estimate(support, n)


def _init(obj, p: float, q: float) -> None:
    object.__setattr__(obj, "epsilon", check_epsilon(obj.epsilon))
    object.__setattr__(obj, "k", check_int(obj.k, "k", minimum=2, maximum=MAX_CATEGORIES))
    object.__setattr__(obj, "p", p)
    object.__setattr__(obj, "q", q)


@dataclass(frozen=True)
class SUE(UnaryEncoding):
    """Symmetric unary encoding (basic RAPPOR), epsilon-LDP.

    ``p = e^(eps/2)/(e^(eps/2)+1)``, ``q = 1/(e^(eps/2)+1)``
    (Wang et al. 2017, Sec. 4.3; Erlingsson et al. 2014).

    Parameters
    ----------
    epsilon : float
        Privacy parameter, in (0, inf).
    k : int
        Number of categories, in [2, inf).
    """

    epsilon: float
    k: int
    p: float = field(init=False)
    q: float = field(init=False)

    def __post_init__(self):
        eps = check_epsilon(self.epsilon)
        _init(self, float(expit(eps / 2.0)), float(expit(-eps / 2.0)))

    @property
    def p_minus_q(self) -> float:
        # expit(x) - expit(-x) = tanh(x/2), with x = eps/2
        return math.tanh(self.epsilon / 4.0)

    @classmethod
    def _epsilon_for_std(cls, std: float, n: int, count: int, k: int) -> float:
        # p + q = 1 and q(1−q)/(p−q)² = pq/tanh²(ε/4) = 1/(4 sinh²(ε/4)): Var = n/(4 sinh²(ε/4)) for every value
        return 4.0 * math.asinh(math.sqrt(n) / (2.0 * std))


@dataclass(frozen=True)
class OUE(UnaryEncoding):
    """Optimised unary encoding, epsilon-LDP.

    ``p = 1/2``, ``q = 1/(e^eps + 1)`` (Wang et al. 2017, Sec. 4.4): the ``p, q``
    minimising ``Var[c_hat]`` subject to ``p(1-q)/((1-p)q) = e^eps``.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, in (0, inf).
    k : int
        Number of categories, in [2, inf).
    """

    epsilon: float
    k: int
    p: float = field(init=False)
    q: float = field(init=False)

    def __post_init__(self):
        eps = check_epsilon(self.epsilon)
        _init(self, 0.5, float(expit(-eps)))

    @property
    def p_minus_q(self) -> float:
        # 1/2 - 1/(e^eps + 1) = tanh(eps/2) / 2
        return 0.5 * math.tanh(self.epsilon / 2.0)

    @classmethod
    def _variance_floor(cls, count: int) -> float:
        # 1 − p − q = p − q, so the count term of the variance is c at every ε
        return float(count)

    @classmethod
    def _epsilon_for_std(cls, std: float, n: int, count: int, k: int) -> float:
        # q(1−q) = 1/(4 cosh²(ε/2)) and (p−q)² = tanh²(ε/2)/4: Var = n/sinh²(ε/2) + c, so
        # sinh(ε/2) = sqrt(n / (s² − c)), with s² − c = (s − √c)(s + √c) > 0 checked by the caller
        root_c = math.sqrt(count)
        return 2.0 * math.asinh(math.sqrt(n) / math.sqrt((std - root_c) * (std + root_c)))
