"""The Laplace mechanism (central model), and the law of a sum of two Laplace noises.

A query ``f`` of L1 sensitivity ``Δ`` (the largest change of ``f`` between two
neighbouring data sets, :mod:`dpcore.neighbours`) is released as
``f(x) + Lap(b)`` with scale ``b = Δ / ε``; the release is ε-differentially
private (Dwork & Roth, Definition 3.3 and Theorem 3.6; accuracy, Theorem 3.8).

The error of a ratio of two noisy Laplace releases (a mean as noisy sum over
noisy count) is, to first order, a sum of two independent Laplace variables:
:func:`laplace_sum_pdf` is its density (Kotz, Kozubowski & Podgórski, Section 2.3).

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Definition 3.3, Theorems 3.6 and 3.8, Fact 3.7.
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Kotz, Kozubowski & Podgórski (2001), *The Laplace Distribution and Generalizations*, Birkhäuser,
  Section 2.3 (sums of independent Laplace variables). https://doi.org/10.1007/978-1-4612-0173-1
- OpenDP, ``laplacian_scale_to_accuracy`` and ``accuracy_to_laplacian_scale``.
  https://docs.opendp.org/
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcore.noise import AdditiveNoise
from dpcore.validation import (
    check_epsilon,
    check_nonnegative_array,
    check_positive,
    check_positive_array,
    check_probability,
)

__all__ = ["Laplace", "sample_laplace", "laplace_sum_pdf"]


def sample_laplace(rng: np.random.Generator, scale, size=None):
    """Draw ``Lap(scale)`` noise as ``scale · (E₁ − E₂)`` with ``E₁, E₂`` iid standard exponential.

    The difference of two iid Exp(1) variables is exactly standard Laplace: its
    characteristic function is ``1/(1 − it) · 1/(1 + it) = 1/(1 + t²)``, that of
    Lap(1). NumPy's ziggurat exponential sampler makes this about twice as fast
    as ``Generator.laplace``. ``scale`` may be an array: it must broadcast
    against ``size``, and gives the shape when ``size`` is None.
    """
    if size is None and np.ndim(scale) > 0:
        size = np.shape(scale)
    e = rng.standard_exponential(size)
    if size is None:
        return scale * (e - rng.standard_exponential())
    e -= rng.standard_exponential(size)
    return np.multiply(e, scale, out=e) if np.ndim(scale) == 0 else e * scale


def laplace_sum_pdf(x, a, c):
    """Density at ``x`` of ``Lap(a) + Lap(c)``, two independent Laplace variables of scales ``a`` and ``c``.

    The characteristic function ``1/((1 + a²t²)(1 + c²t²))`` splits into partial
    fractions, so for ``a ≠ c``

    ``f(x) = (a e^{−|x|/a} − c e^{−|x|/c}) / (2(a² − c²))``,

    and for ``a = c`` its limit ``(a + |x|) e^{−|x|/a} / (4a²)`` (Kotz,
    Kozubowski & Podgórski 2001, Section 2.3). With ``c = 0`` it is the density
    of ``Lap(a)``. Computed as ``(e^{−|x|/a} − r e^{−|x|/c}) / (2a(1 − r²))``
    with ``a ≥ c`` and ``r = c/a``; within a relative ``1e-6`` of ``a = c`` the
    difference cancels, and the limit is used instead.

    Parameters
    ----------
    x : float or array_like
        Points, any real.
    a : float or array_like
        Scale of the first Laplace variable, each in (0, inf).
    c : float or array_like
        Scale of the second, each in [0, inf); broadcast against ``a``.

    Returns
    -------
    float or numpy.ndarray
        ``f`` broadcast over ``x``, ``a`` and ``c`` (a float when all three are scalars).

    Examples
    --------
    >>> round(laplace_sum_pdf(0.0, 1.0, 1.0), 12)  # (a + 0) / (4a²) = 1/4
    0.25
    >>> laplace_sum_pdf(0.3, 2.0, 0.0) == Laplace(2.0).pdf(0.3)
    True
    """
    z = np.abs(np.asarray(x, dtype=np.float64))
    a = np.asarray(check_positive_array(a, "a"))
    c = np.asarray(check_nonnegative_array(c, "c"))
    big, small = np.maximum(a, c), np.minimum(a, c)
    r = small / big
    same = np.isclose(r, 1.0, rtol=1e-6, atol=0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        tail_small = np.where(small > 0, r * np.exp(-z / np.where(small > 0, small, 1.0)), 0.0)
        out = np.where(
            same,
            (1.0 + z / big) * np.exp(-z / big) / (4.0 * big),
            (np.exp(-z / big) - tail_small) / (2.0 * big * np.where(same, 1.0, 1.0 - r * r)),
        )
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class Laplace(AdditiveNoise):
    """Laplace noise ``Lap(scale)`` added to a query of L1 sensitivity ``sensitivity``.

    The density of the noise is ``exp(-|x| / b) / (2 b)`` with ``b = scale``; the
    release is ε-DP with ``ε = sensitivity / scale`` (Dwork & Roth 2014, Thm 3.6).

    Parameters
    ----------
    scale : float
        The scale ``b`` of the noise, in (0, inf).
    sensitivity : float, default 1.0
        The L1 sensitivity ``Δ`` of the query, in (0, inf).

    Examples
    --------
    >>> Laplace.from_epsilon(epsilon=0.5, sensitivity=2.0).scale
    4.0
    """

    scale: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "scale", check_positive(self.scale, "scale"))
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_epsilon(cls, epsilon: float, sensitivity: float = 1.0) -> Laplace:
        """The ε-DP Laplace mechanism: ``scale = sensitivity / epsilon``.

        Parameters
        ----------
        epsilon : float
            Privacy parameter ε, in (0, inf).
        sensitivity : float, default 1.0
            L1 sensitivity Δ of the query, in (0, inf).
        """
        epsilon = check_epsilon(epsilon)
        sensitivity = check_positive(sensitivity, "sensitivity")
        return cls(scale=sensitivity / epsilon, sensitivity=sensitivity)

    # ------------------------------------------------------------------ privacy
    @property
    def epsilon(self) -> float:
        """The ε of the pure-DP guarantee: ``ε = Δ / b``."""
        return self.sensitivity / self.scale

    # ------------------------------------------------------------------ error
    @property
    def variance(self) -> float:
        """Variance of the noise: ``2 b²``."""
        return 2.0 * self.scale * self.scale

    @property
    def std(self) -> float:
        """Standard deviation of the noise: ``√2 · b``."""
        return float(np.sqrt(2.0) * self.scale)

    def error_bound(self, confidence: float = 0.95) -> float:
        """The ``t`` with ``P(|noise| <= t) = confidence``: ``t = b · ln(1 / (1 - confidence))``.

        Derivation: ``P(|Lap(b)| > t) = exp(-t / b)`` (Dwork & Roth 2014, Fact 3.7).

        Parameters
        ----------
        confidence : float
            Probability in (0, 1).
        """
        confidence = check_probability(confidence, "confidence")
        return float(self.scale * -np.log1p(-confidence))

    def pdf(self, x):
        """Density of the noise at ``x``: ``exp(-|x| / b) / (2 b)``."""
        x = np.asarray(x, dtype=np.float64)
        out = np.exp(-np.abs(x) / self.scale) / (2.0 * self.scale)
        return float(out) if out.ndim == 0 else out

    def cdf(self, x):
        """Distribution function of the noise at ``x``."""
        x = np.asarray(x, dtype=np.float64)
        # 1/2 exp(x/b) below zero, 1 - 1/2 exp(-x/b) above; written so that nothing overflows.
        half_tail = 0.5 * np.exp(-np.abs(x) / self.scale)
        out = np.where(x < 0, half_tail, 1.0 - half_tail)
        return float(out) if out.ndim == 0 else out

    # ------------------------------------------------------------------ inverses
    @staticmethod
    def scale_for_accuracy(accuracy: float, confidence: float = 0.95) -> float:
        """The largest scale ``b`` with ``P(|noise| <= accuracy) >= confidence``.

        ``b = accuracy / ln(1 / (1 - confidence))``; the inverse of :meth:`error_bound`.

        Parameters
        ----------
        accuracy : float
            Target error ``t``, in (0, inf).
        confidence : float
            Probability in (0, 1).
        """
        accuracy = check_positive(accuracy, "accuracy")
        confidence = check_probability(confidence, "confidence")
        return float(accuracy / -np.log1p(-confidence))

    @classmethod
    def epsilon_for_accuracy(cls, accuracy: float, confidence: float = 0.95, sensitivity: float = 1.0) -> float:
        """The smallest ε whose Laplace noise stays within ``accuracy`` with probability ``confidence``.

        ``ε = Δ · ln(1 / (1 - confidence)) / accuracy`` (OpenDP's
        ``laplacian_scale_to_accuracy`` inverted, with ``b = Δ / ε``).

        Parameters
        ----------
        accuracy : float
            Target error ``t``, in (0, inf).
        confidence : float
            Probability in (0, 1).
        sensitivity : float, default 1.0
            L1 sensitivity Δ, in (0, inf).
        """
        sensitivity = check_positive(sensitivity, "sensitivity")
        return sensitivity / cls.scale_for_accuracy(accuracy, confidence)

    # ------------------------------------------------------------------ sampling
    def _draw(self, rng, shape):
        return sample_laplace(rng, self.scale, shape)
