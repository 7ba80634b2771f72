"""A quantile read off a noisy histogram: the other way to a DP quantile, by post-processing.

Release the counts of ``bins`` equal-width bins over the declared range ``[lower, upper]`` with a central family's
noise (:func:`dpcore.queries.dp_histogram`: one record falls in one bin, so every count gets the noise of a single
count, Dwork & Roth 2014, Section 3.3), then read the ``q``-quantile off the noisy counts' cumulative distribution:
negative counts are raised to 0, the first bin whose cumulative count reaches ``q`` times the total holds the
quantile, and the point inside it is interpolated linearly (the values taken as spread evenly in the bin). Everything
after the histogram reads only the noisy counts and the declared edges, so the quantile is exactly as private as the
histogram: ε-DP for Laplace or the staircase, (ε, δ)-DP for the Gaussian, under the histogram's relation (add/remove
one record, :data:`dpcore.queries.RELATION`), by the post-processing property (Dwork & Roth 2014, Proposition 2.1).
Its bins, like the range, are declared before the data is seen.

Everything here is a **simulation** (seeded float noise, the truth kept beside it, for Compare): a
:class:`~dpcore.randomness.SecureGenerator` is refused in one sentence rather than silently driving textbook float
noise, whose low bits can tell neighbouring datasets apart (Mironov 2012). To publish such a quantile, publish the
histogram (:func:`dpcore.publish.publish_histogram`: secure lattice noise) and read the quantile off its published
counts with :func:`quantile_from_counts` (post-processing).

Its error has two parts: the bin width (the quantile is only located to within a bin: at most
``(upper − lower) / bins``, however large ε) and the noise summed along the cumulative counts (the sum of ``j``
noisy counts has ``j`` times one count's variance), which moves the crossing point by a number of ranks that grows
like ``√bins / ε``. More bins: finer location, noisier cumulative counts. The exponential mechanism over the range
(:mod:`dpcore.quantiles`, Smith 2011) has neither trade-off: its error grows only with ``ln`` of the range. No closed
form of this estimator's error is stated here: the explorer simulates it.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and Trends in Theoretical
  Computer Science 9(3–4), Proposition 2.1 (post-processing) and Section 3.3 (histogram queries).
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Gillenwater, Joseph & Kulesza (2021), "Differentially Private Quantiles", ICML, Sections 1 and 5 (a quantile
  computed on its own by the exponential mechanism, against methods that summarise the whole distribution with noisy
  counts). https://arxiv.org/abs/2102.08244
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from dpcore.queries import QueryResult, dp_histogram
from dpcore.randomness import Randomness, SecureGenerator
from dpcore.validation import check_probability

__all__ = ["quantile_from_counts", "HistogramQuantileResult", "dp_histogram_quantile"]


def _seeded(rng):
    """``rng`` unless it is a :class:`SecureGenerator` (module notes: this module only simulates)."""
    if isinstance(rng, SecureGenerator):
        raise TypeError(
            "rng must be a seed or a seeded numpy Generator: a quantile read off a noisy histogram is simulated here "
            "with float noise, got a SecureGenerator; to publish, use dpcore.publish.publish_histogram and read the "
            "quantile off its counts with quantile_from_counts"
        )
    return rng


def quantile_from_counts(counts, edges, q: float):
    """The ``q``-quantile read off (noisy) bin counts: post-processing only.

    Parameters
    ----------
    counts : array_like, shape (..., bins)
        Counts of consecutive bins (one histogram, or one per row); negative counts are taken as 0.
    edges : array_like, shape (bins + 1,)
        The bins' edges, increasing (declared: never read from the data).
    q : float
        In [0, 1].

    Returns
    -------
    float or numpy.ndarray, shape (...)
        The point where the cumulative count first reaches ``q`` times the total, linear inside its bin; the middle
        of the range when no count is positive.

    Examples
    --------
    >>> float(quantile_from_counts([10.0, 10.0, 0.0, 0.0], [0.0, 1.0, 2.0, 3.0, 4.0], 0.5))
    1.0
    >>> float(quantile_from_counts([-3.0, 4.0, 4.0], [0.0, 10.0, 20.0, 30.0], 0.25))
    15.0
    """
    q = check_probability(q, "q", low_open=False, high_open=False)
    edges = np.asarray(edges, dtype=np.float64)
    c = np.maximum(np.asarray(counts, dtype=np.float64), 0.0)
    if c.shape[-1] != edges.size - 1:
        raise ValueError(f"counts must have one count per bin ({edges.size - 1}), got {c.shape[-1]}")
    cumulative = np.cumsum(c, axis=-1)
    total = cumulative[..., -1]
    target = q * total
    j = np.minimum(np.sum(cumulative < target[..., None], axis=-1), c.shape[-1] - 1)  # the first bin reaching it
    inside = np.take_along_axis(c, j[..., None], axis=-1)[..., 0]
    before = np.take_along_axis(cumulative, j[..., None], axis=-1)[..., 0] - inside
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(inside > 0, (target - before) / inside, 0.5)
    point = edges[j] + np.clip(share, 0.0, 1.0) * (edges[j + 1] - edges[j])
    out = np.where(total > 0, point, (edges[0] + edges[-1]) / 2.0)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True, eq=False)
class HistogramQuantileResult:
    """One quantile read off one noisy histogram (what :func:`dp_histogram_quantile` returns).

    Attributes
    ----------
    histogram : QueryResult
        The noisy histogram it was read from (its ``mechanism`` is the noise, what the accountants charge).
    q : float
    noisy_value : float
        The released quantile (seeded: a simulation).
    family : str
        The key of the central family whose noise the histogram carries.
    """

    histogram: QueryResult
    q: float
    noisy_value: float
    family: str = "laplace"

    @property
    def randomness(self) -> Randomness:
        """Always :attr:`Randomness.SIMULATION`: seeded float noise, not private."""
        return Randomness.SIMULATION

    @property
    def mechanism(self):
        """The histogram's noise: the quantile costs what the histogram costs."""
        return self.histogram.mechanism

    @property
    def edges(self) -> np.ndarray:
        return self.histogram.bin_edges

    def at_epsilon(self, epsilon: float, rng, *, delta: float | None = None) -> HistogramQuantileResult:
        """The same quantile of the same data at another ``epsilon`` (and ``delta``), drawn from ``rng``.

        The true counts are kept (no new pass over the values); the noise is the one :func:`dpcore.queries.dp_histogram`
        calibrates at that ε, asked of it on one value of the range (the calibration reads no data).

        >>> r = dp_histogram_quantile([20.0, 30.0, 40.0, 50.0], 0.5, 0.0, 100.0, 10, 1.0, 0)
        >>> s = r.at_epsilon(0.25, 1)
        >>> s.mechanism.epsilon, s.histogram.true_value.tolist() == r.histogram.true_value.tolist()
        (0.25, True)
        """
        rng = _seeded(rng)
        edges = self.edges
        calibrated = dp_histogram(edges[:1], edges, epsilon, rng, mechanism=self.family, delta=delta).mechanism
        true = self.histogram.true_value
        histogram = replace(self.histogram, mechanism=calibrated, noisy_value=calibrated.simulate(true, rng))
        noisy = float(quantile_from_counts(histogram.noisy_value, edges, self.q))
        return replace(self, histogram=histogram, noisy_value=noisy)

    def simulate(self, trials: int, rng) -> np.ndarray:
        """``trials`` fresh quantiles on the same data: each read off a fresh noisy histogram (vectorised)."""
        return quantile_from_counts(self.histogram.simulate(trials, _seeded(rng)), self.edges, self.q)


def dp_histogram_quantile(
    values, q: float, lower: float, upper: float, bins: int, epsilon: float, rng, *, mechanism="laplace", delta=None
) -> HistogramQuantileResult:
    """The ``q``-quantile of ``values`` read off a noisy histogram of ``bins`` equal bins over ``[lower, upper]``.

    Parameters
    ----------
    values : array_like
        The column (NaN refused); values outside the range are counted in the end bins.
    q : float
        In [0, 1].
    lower, upper : float
        The declared range.
    bins : int
        The number of equal-width bins, declared.
    epsilon : float
        In (0, inf): the histogram's ε, and so the quantile's.
    rng : numpy.random.Generator or int
        Seeded: a simulation (a :class:`~dpcore.randomness.SecureGenerator` is refused, see the module notes).
    mechanism : str, default "laplace"
        A central family's key (:mod:`dpcore.families`).
    delta : float, optional
        δ for an (ε, δ) family.

    Examples
    --------
    >>> r = dp_histogram_quantile([20.0, 30.0, 40.0, 50.0], 0.5, 0.0, 100.0, 10, 1.0, 0)
    >>> 0.0 <= r.noisy_value <= 100.0, r.mechanism.epsilon
    (True, 1.0)
    """
    q = check_probability(q, "q", low_open=False, high_open=False)
    rng = _seeded(rng)
    histogram = dp_histogram(values, bins, epsilon, rng, lower=lower, upper=upper, mechanism=mechanism, delta=delta)
    noisy = float(quantile_from_counts(histogram.noisy_value, histogram.bin_edges, q))
    return HistogramQuantileResult(histogram, q, noisy, mechanism)
