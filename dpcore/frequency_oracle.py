"""What every local-DP frequency oracle shares: estimation, variance, error bars.

A frequency oracle perturbs each user's category in [0, k) so that a value ``v``
is *supported* by a report with probability ``p`` when the user holds ``v`` and
``q`` otherwise (Wang, Blocki, Li, Jha 2017, "Locally Differentially Private
Protocols for Frequency Estimation", USENIX Security, Sec. 3, "pure" protocols).
GRR, SUE and OUE differ only in how reports look and in ``p`` and ``q``; the
unbiased estimator and its variance are the same functions of ``p`` and ``q``.

The variance has a closed form in ε for each oracle, and so has its inverse:
:meth:`FrequencyOracle.epsilon_for_accuracy` answers "which ε gives ±X at 95 %
on this count?" exactly, from each subclass's ``_epsilon_for_std``.

References
----------
- Wang, Blocki, Li & Jha (2017), "Locally Differentially Private Protocols for Frequency Estimation",
  USENIX Security, Section 3 (pure protocols), Equations (2) and (3), Section 4.5.
  https://arxiv.org/abs/1705.04421
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from dpcore.gaussian import two_sided_z
from dpcore.validation import check_int, check_positive, check_probability, check_trials

__all__ = ["FrequencyOracle", "check_true_counts"]


def check_true_counts(true_counts, k: int, name: str = "true_counts") -> np.ndarray:
    """Return ``true_counts`` as an int64 array of k non-negative integers."""
    arr = np.asarray(true_counts)
    if arr.shape != (k,):
        raise ValueError(f"{name} must have shape ({k},), got shape {arr.shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"{name} must hold non-negative integers, got dtype {arr.dtype}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.floor(arr)):
        raise ValueError(f"{name} must hold non-negative integers, got {arr.tolist()[:8]}")
    return arr.astype(np.int64)


class FrequencyOracle:
    """Mixin for frozen dataclasses with fields ``epsilon``, ``k`` and derived ``p``, ``q``.

    Subclasses implement ``perturb``, ``support`` and ``simulate``; this class
    gives the estimator, its exact variance and a normal-approximation error bar.
    """

    epsilon: float
    k: int
    p: float
    q: float

    @property
    def p_minus_q(self) -> float:
        """``p - q``, computed without cancellation by each subclass."""
        return self.p - self.q

    def estimate(self, support, n) -> np.ndarray:
        """Unbiased estimates of the true counts.

        ``c_hat = (support - n q) / (p - q)`` (Wang et al. 2017, Eq. (2)). Since
        ``E[support_v] = c_v p + (n - c_v) q``, ``E[c_hat_v] = c_v``. Estimates can
        be negative; see :func:`dpcore.postprocess.project_to_histogram` for a
        valid histogram (biased, off by default).

        Parameters
        ----------
        support : array_like, shape (..., k)
            How many reports support each value; leading axes (trials) allowed.
        n : int
            Number of users, in [0, inf).
        """
        n = check_int(n, "n", minimum=0)
        support = np.asarray(support, dtype=np.float64)
        if support.shape[-1:] != (self.k,):
            raise ValueError(f"support must have last dimension k={self.k}, got shape {support.shape}")
        return (support - n * self.q) / self.p_minus_q

    def variance(self, true_counts) -> np.ndarray:
        """Exact variance of each count estimate.

        ``support_v = Bin(c_v, p) + Bin(n - c_v, q)``, so
        ``Var[c_hat_v] = (c_v p(1-p) + (n-c_v) q(1-q)) / (p-q)^2``, and with
        ``p(1-p) - q(1-q) = (p-q)(1-p-q)`` this is
        ``n q(1-q)/(p-q)^2 + c_v (1-p-q)/(p-q)`` (Wang et al. 2017, Eq. (3)
        for the unary encodings; the same algebra gives it for GRR, where the
        supports of different values are dependent but each is such a sum).

        Parameters
        ----------
        true_counts : array_like of int, shape (k,)
            The true count of each value; ``n`` is their sum.
        """
        c = check_true_counts(true_counts, self.k).astype(np.float64)
        n = c.sum()
        d = self.p_minus_q
        return n * self.q * (1.0 - self.q) / d**2 + c * (1.0 - self.p - self.q) / d

    def std(self, true_counts) -> np.ndarray:
        """Standard deviation of each count estimate, ``sqrt(variance)``."""
        return np.sqrt(self.variance(true_counts))

    def error_bound(self, true_counts, confidence: float = 0.95) -> np.ndarray:
        """Half-width t with ``P(|c_hat_v - c_v| <= t) ~= confidence`` per value.

        Normal approximation (the estimate is an affine function of a sum of
        ``n`` independent Bernoulli variables, so the CLT applies for the
        dataset sizes the app uses): ``t = z_{(1+confidence)/2} * std``.
        """
        confidence = check_probability(confidence, "confidence")
        return two_sided_z(confidence) * self.std(true_counts)

    @classmethod
    def epsilon_for_accuracy(cls, accuracy: float, true_counts, confidence: float = 0.95, value=None) -> float:
        """The smallest ε whose :meth:`error_bound` on a count is ``accuracy``: "±X at 95 % needs which ε?".

        The exact inverse of ``cls(ε, k).error_bound(true_counts, confidence)``
        (normal approximation, ``t = z sqrt(Var)``) at one value, or at the
        value with the largest error. Every oracle's variance
        ``n q(1−q)/(p−q)² + c (1−p−q)/(p−q)`` (:meth:`variance`) decreases in ε
        and has a closed form there (Wang et al. 2017, Sections 4.1, 4.3, 4.4),
        inverted in closed form by each subclass:

        * GRR: ``n(k−1)u² + (n + c(k−2))u`` with ``u = 1/(e^ε − 1)``, a quadratic in ``u``;
        * SUE: ``n / (4 sinh²(ε/4))``, the same for every value;
        * OUE: ``n / sinh²(ε/2) + c``: the holders of a value keep its bit with
          probability 1/2 at any ε, so the error never falls below ``z sqrt(c)``.

        Since ``1 − p − q >= 0`` for all three, the error grows with the count
        ``c``: the largest error is at the largest count, whatever ε.

        Parameters
        ----------
        accuracy : float
            Target half-width ``t`` of the count's error, in (0, inf); for OUE above ``z sqrt(c)``.
        true_counts : array_like of int, shape (k,)
            The true count of each value (``k = len(true_counts)`` in [2, inf), ``n`` their sum, at least 1).
        confidence : float, default 0.95
            Probability in (0, 1).
        value : int, optional
            The value whose count must meet ``accuracy``, in [0, k); by default
            the value with the largest error (the largest count).

        Returns
        -------
        float
            ε in (0, inf) with ``cls(ε, k).error_bound(true_counts, confidence)[value] == accuracy``.

        Examples
        --------
        >>> from dpcore import SUE
        >>> round(SUE.epsilon_for_accuracy(100.0, [2500, 5000, 2500]), 6)  # 4 asinh(1.96 · sqrt(10⁴) / (2 · 100))
        3.468591
        """
        accuracy = check_positive(accuracy, "accuracy")
        confidence = check_probability(confidence, "confidence")
        arr = np.asarray(true_counts)
        if arr.ndim != 1 or arr.size < 2:
            raise ValueError(f"true_counts must be a 1-D array of at least 2 counts, got shape {arr.shape}")
        k = arr.size
        c = check_true_counts(arr, k)
        n = int(c.sum())
        if n == 0:
            raise ValueError("true_counts must sum to at least 1, got 0")
        count = int(c.max()) if value is None else int(c[check_int(value, "value", minimum=0, maximum=k - 1)])
        z = two_sided_z(confidence)
        floor = z * math.sqrt(cls._variance_floor(count))
        if accuracy <= floor:
            raise ValueError(
                f"accuracy must be in ({floor:.6g}, inf) for {cls.__name__} on a count of {count} at confidence "
                f"{confidence} (the error no epsilon removes), got {accuracy}"
            )
        epsilon = cls._epsilon_for_std(accuracy / z, n, count, k)
        if not (0.0 < epsilon < math.inf):
            raise ValueError(
                f"accuracy must lead to an epsilon in (0, inf), got {accuracy}, which needs epsilon = {epsilon}"
            )
        return epsilon

    @classmethod
    def _variance_floor(cls, count: int) -> float:
        """The limit of the variance of a count ``count`` as ε → ∞ (0 unless a subclass says otherwise)."""
        return 0.0

    @classmethod
    def _epsilon_for_std(cls, std: float, n: int, count: int, k: int) -> float:
        """The ε at which a count ``count`` out of ``n`` has standard deviation ``std`` (above the floor)."""
        raise NotImplementedError

    def error_pdf(self, x, true_counts) -> np.ndarray:
        """Normal-approximation density of each estimate's error at ``x``, shape (len(x), k).

        ``N(0, Var[c_hat_v])`` with the exact variance of :meth:`variance`; used to
        draw the theory over a histogram of simulated errors.
        """
        x = np.asarray(x, dtype=np.float64).reshape(-1, 1)
        return stats.norm.pdf(x, scale=self.std(true_counts)[None, :])

    @staticmethod
    def grr_crossover_epsilon(k: int) -> float:
        """The epsilon above which GRR has a smaller variance than OUE for k values.

        For rare values (``c_v << n``) ``Var_GRR ~ n (e^eps + k - 2)/(e^eps - 1)^2`` and
        ``Var_OUE = n 4 e^eps/(e^eps - 1)^2``, so GRR wins iff ``k < 3 e^eps + 2``, i.e.
        ``eps > ln((k - 2)/3)`` (Wang et al. 2017, Sec. 4.5). Returns 0 when GRR always wins (k <= 5).
        """
        k = check_int(k, "k", minimum=2)
        return float(np.log((k - 2) / 3.0)) if k > 5 else 0.0

    def _check_trials(self, trials) -> int:
        return check_trials(trials, per_trial=self.k)
