"""Local-DP mean of a bounded numeric column: randomized rounding + binary RR.

Each user maps ``x`` in ``[lower, upper]`` to ``t = (x - lower)/(upper - lower)``,
rounds it to a bit ``b ~ Bernoulli(t)`` (unbiased: ``E[b] = t``), and sends ``b``
through binary randomized response with ``p = e^eps/(e^eps+1)``. This is the
one-bit mean protocol of Ding, Kulkarni & Yekhanin (Section 2.1, 1BitMean) in
its randomized-response form (Duchi, Jordan & Wainwright analyse the same
bounded-mean problem).

References
----------
- Ding, Kulkarni & Yekhanin (2017), "Collecting Telemetry Data Privately", NeurIPS, Section 2.1.
  https://arxiv.org/abs/1712.01524
- Duchi, Jordan & Wainwright (2018), "Minimax Optimal Procedures for Locally Private Estimation",
  J. Am. Stat. Assoc. 113(521). https://arxiv.org/abs/1604.02390
- Warner (1965), "Randomized Response: A Survey Technique for Eliminating Evasive Answer Bias",
  J. Am. Stat. Assoc. 60(309). https://doi.org/10.1080/01621459.1965.10480775
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from dpcore.randomized_response import GRR
from dpcore.validation import (
    as_generator,
    check_bounds,
    check_epsilon,
    check_int,
    check_numeric_array,
    check_probability,
)

__all__ = ["LDPMean"]


@dataclass(frozen=True)
class LDPMean:
    """epsilon-LDP estimate of the mean of values in ``[lower, upper]``.

    Values outside the bounds are clipped to them before rounding (the bounds
    must be fixed before looking at the data for the guarantee to hold).

    ``E[report] = q + (p - q) t``, so ``mean_hat = lower + (upper - lower) (r_bar - q)/(p - q)``
    is unbiased for the mean of the clipped values.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, in (0, inf).
    lower, upper : float
        Finite clipping bounds with ``lower < upper``.
    """

    epsilon: float
    lower: float
    upper: float
    rr: GRR = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        lower, upper = check_bounds(self.lower, self.upper)
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)
        object.__setattr__(self, "rr", GRR(self.epsilon, 2))

    @property
    def width(self) -> float:
        return self.upper - self.lower

    def clipped_mean(self, values) -> float:
        """The mean of the values clipped to ``[lower, upper]``: the quantity :meth:`estimate` is unbiased for.

        Not private: it is what the estimate is compared with.

        Parameters
        ----------
        values : array_like of float, shape (n,)
            Finite values; NaN is refused.

        Examples
        --------
        >>> LDPMean(1.0, 0.0, 10.0).clipped_mean([-5.0, 4.0, 20.0])  # (0 + 4 + 10) / 3
        4.666666666666667
        """
        x, _ = check_numeric_array(values, "values")
        return float(np.clip(x, self.lower, self.upper).mean())

    def _fractions(self, values) -> np.ndarray:
        x, _ = check_numeric_array(values, "values")
        return (np.clip(x, self.lower, self.upper) - self.lower) / self.width

    def perturb(self, values, rng) -> np.ndarray:
        """Round and randomize each user's value; returns bool reports (True = "upper"), shape (n,).

        Parameters
        ----------
        values : array_like of float, shape (n,)
            Finite values; NaN is refused.
        rng : numpy.random.Generator or int
        """
        t = self._fractions(values)
        rng = as_generator(rng)
        rounded = (rng.random(t.size) < t).astype(np.int64)
        return self.rr.perturb(rounded, rng).astype(bool)

    def estimate(self, reports) -> float:
        """Unbiased mean estimate from bool reports: ``lower + width (r_bar - q)/(p - q)``."""
        r = np.asarray(reports)
        if r.ndim != 1 or r.size == 0:
            raise ValueError(f"reports must be a non-empty 1-D array, got shape {r.shape}")
        return float(self._estimate_from_sum(np.count_nonzero(r), r.size))

    def _estimate_from_sum(self, ones, n):
        frac = (np.asarray(ones, dtype=np.float64) / n - self.rr.q) / self.rr.p_minus_q
        return self.lower + self.width * frac

    def variance(self, values) -> float:
        """Exact variance of the mean estimate for these data.

        Each report is ``Bernoulli(pi_i)`` with ``pi_i = q + (p - q) t_i`` (rounding
        and randomization together), so
        ``Var = width^2 * sum_i pi_i (1 - pi_i) / (n^2 (p - q)^2)``.
        """
        t = self._fractions(values)
        pi = self.rr.q + self.rr.p_minus_q * t
        return float(self.width**2 * np.sum(pi * (1.0 - pi)) / (t.size**2 * self.rr.p_minus_q**2))

    def error_bound(self, values, confidence: float = 0.95) -> float:
        """Normal-approximation half-width ``z_{(1+confidence)/2} sqrt(Var)``."""
        confidence = check_probability(confidence, "confidence")
        return float(stats.norm.ppf(0.5 + confidence / 2.0) * np.sqrt(self.variance(values)))

    def simulate(self, values, rng, trials: int = 1000) -> np.ndarray:
        """Sample mean estimates for ``trials`` independent runs, shape (trials,).

        Exact in law to ``estimate(perturb(values))``. Users with the same value
        share ``t``, so the number rounding up is a sum of ``Bin(n_g, t_g)`` over
        the distinct values ``g``; the reports are then
        ``Bin(B, p) + Bin(n - B, q)``. Cost O(trials * distinct values).
        """
        t = self._fractions(values)
        trials = check_int(trials, "trials", minimum=1)
        rng = as_generator(rng)
        levels, counts = np.unique(t, return_counts=True)
        rounded_up = rng.binomial(counts, levels, size=(trials, levels.size)).sum(axis=1)
        n = t.size
        ones = rng.binomial(rounded_up, self.rr.p) + rng.binomial(n - rounded_up, self.rr.q)
        return self._estimate_from_sum(ones, n)
