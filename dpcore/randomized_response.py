"""Generalised randomized response (k-ary RR) and the classic coin-flip survey.

References
----------
- Warner (1965), "Randomized Response: A Survey Technique for Eliminating Evasive Answer Bias",
  J. Am. Stat. Assoc. 60(309). https://doi.org/10.1080/01621459.1965.10480775
- Wang, Blocki, Li & Jha (2017), "Locally Differentially Private Protocols for Frequency Estimation",
  USENIX Security, Section 4.1 ("Direct Encoding", GRR) and Equation (4). https://arxiv.org/abs/1705.04421
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Section 3.2 (the coin-flip protocol and its ε = ln 3). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpcore.frequency_oracle import FrequencyOracle, check_true_counts
from dpcore.limits import MAX_CATEGORIES
from dpcore.validation import as_generator, check_category_values, check_epsilon, check_int

__all__ = ["GRR", "COIN_FLIP_EPSILON", "coin_flip_rr", "coin_flip_response"]

#: The coin-flip protocol answers truthfully w.p. 3/4 and lies w.p. 1/4: ln((3/4)/(1/4)).
COIN_FLIP_EPSILON = math.log(3.0)


@dataclass(frozen=True)
class GRR(FrequencyOracle):
    """k-ary (generalised) randomized response, epsilon-LDP.

    Each user reports their true value with probability ``p`` and each other
    value with probability ``q`` (Wang et al. 2017, Sec. 4.1):

    ``p = e^eps / (e^eps + k - 1)``, ``q = 1 / (e^eps + k - 1)``, so ``p/q = e^eps``.

    ``k = 2`` is binary randomized response (Warner 1965).

    Parameters
    ----------
    epsilon : float
        Privacy parameter, in (0, inf).
    k : int
        Number of categories, in [2, inf).

    Notes
    -----
    ``p`` and ``q`` are computed as ``1/(1 + (k-1) e^-eps)`` and ``p e^-eps`` so
    that large epsilon (60) and large k (10^4) neither overflow nor lose ``q``.
    """

    epsilon: float
    k: int
    p: float = field(init=False)
    q: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "k", check_int(self.k, "k", minimum=2, maximum=MAX_CATEGORIES))
        p = 1.0 / (1.0 + (self.k - 1) * math.exp(-self.epsilon))
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "q", p * math.exp(-self.epsilon))

    @property
    def p_minus_q(self) -> float:
        # p - q = p (1 - e^-eps), exact even when p and q are close
        return self.p * -math.expm1(-self.epsilon)

    @property
    def resample_probability(self) -> float:
        """``k q``: GRR equals "keep, or with probability ``k q`` report a uniform value".

        ``1 - kq + q = p`` and ``kq / k = q``, so the mixture has GRR's law; the
        exact aggregate sampler in :meth:`simulate` rests on this identity.
        """
        return min(1.0, self.k * self.q)

    @classmethod
    def _epsilon_for_std(cls, std: float, n: int, count: int, k: int) -> float:
        # Var = n (e^ε + k − 2)/(e^ε − 1)² + c (k − 2)/(e^ε − 1) (FrequencyOracle.variance with GRR's p, q);
        # with u = 1/(e^ε − 1), e^ε + k − 2 = 1/u + k − 1, so Var = a u² + b u, a = n(k−1), b = n + c(k−2).
        # The positive root of a u² + b u − s² = 0, u = 2s²/(b + sqrt(b² + 4as²)), divided through by s so
        # that neither a tiny nor a huge s over- or underflows; then ε = ln(1 + 1/u).
        a, b = n * (k - 1.0), n + count * (k - 2.0)
        u = 2.0 * std / (b / std + math.hypot(b / std, 2.0 * math.sqrt(a)))
        return math.log1p(1.0 / u) if u > 0 else math.inf

    def perturb(self, values, rng) -> np.ndarray:
        """Randomize each user's value; returns an int array of reports, shape (n,).

        Keep the value with probability ``p``; otherwise report one of the
        other ``k - 1`` values uniformly (Wang et al. 2017, Eq. (4)).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            True values, integers in [0, k).
        rng : numpy.random.Generator or int
        """
        v = check_category_values(values, self.k)
        rng = as_generator(rng)
        keep = rng.random(v.size) < self.p
        # a uniform value among the other k - 1: draw in [0, k-1) and skip v
        other = rng.integers(0, self.k - 1, size=v.size)
        other += other >= v
        return np.where(keep, v, other)

    def support(self, reports) -> np.ndarray:
        """Number of reports equal to each value, int array (k,)."""
        r = check_category_values(reports, self.k, "reports")
        return np.bincount(r, minlength=self.k)

    def simulate(self, true_counts, rng, trials: int = 1000) -> np.ndarray:
        """Sample estimates for ``trials`` independent runs without touching users.

        Exact in law to ``estimate(support(perturb(values)), n)``: with the
        mixture identity of :attr:`resample_probability`, the users of value
        ``v`` who keep it are ``Bin(c_v, 1 - kq)``, and the ``R`` others report
        ``Multinomial(R, uniform over k)``. Cost O(trials * k), whatever n.

        Returns
        -------
        numpy.ndarray, shape (trials, k), float
        """
        c = check_true_counts(true_counts, self.k)
        trials = self._check_trials(trials)
        rng = as_generator(rng)
        n = int(c.sum())
        kept = rng.binomial(c, 1.0 - self.resample_probability, size=(trials, self.k))
        resampled = n - kept.sum(axis=1)
        spread = rng.multinomial(resampled, np.full(self.k, 1.0 / self.k))
        return self.estimate(kept + spread, n)


def coin_flip_response(truth, rng) -> np.ndarray:
    """The classic coin-flip survey answer for each respondent, bool array.

    Flip a coin: on heads answer truthfully; on tails flip a second coin and
    answer "yes" on heads, "no" on tails (Dwork & Roth 2014, Sec. 3.2).
    ``P(yes | yes) = 1/2 + 1/4 = 3/4``, ``P(yes | no) = 1/4``: this is
    :class:`GRR` with ``k = 2`` and ``epsilon = ln 3`` (see :func:`coin_flip_rr`).

    Parameters
    ----------
    truth : array_like of bool, shape (n,)
        The true answers.
    rng : numpy.random.Generator or int
    """
    truth = np.asarray(truth)
    if truth.dtype != bool:
        check_category_values(truth, 2, "truth")
        truth = truth.astype(bool)
    rng = as_generator(rng)
    first_heads = rng.random(truth.shape) < 0.5
    second_heads = rng.random(truth.shape) < 0.5
    return np.where(first_heads, truth, second_heads)


def coin_flip_rr() -> GRR:
    """The coin-flip survey as a frequency oracle: ``GRR(epsilon=ln 3, k=2)``."""
    return GRR(epsilon=COIN_FLIP_EPSILON, k=2)
