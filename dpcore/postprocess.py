"""Post-processing: frequency estimates into a valid histogram (off by default); released numbers rounded to what
their noise allows.

The unbiased estimates of the frequency oracles can be negative and need not
sum to n. Projecting them onto ``{x >= 0, sum x = n}`` gives a valid histogram
at the price of bias; by the post-processing property of differential privacy
it costs no privacy (Dwork & Roth 2014, Prop. 2.1).

A released number carries no information in digits far below its noise: :func:`release_step` is the one
rounding rule of every released number (a count to whole units, any other number to the largest power of ten at
most a tenth of its noise's standard deviation), :func:`error_step` the same rule read from the errors a release
states for the number (a tenth of the smallest: a mean stated at its planned size and at its released count is
rounded for the noise it carries, not for the planned size's), :func:`round_release` applies it, and
:func:`round_up` writes an
ε or a δ to 4 significant digits, upwards, so that the guarantee written is never stronger than the one held.
Rounding is post-processing too: free in privacy. Its error is at most half a step; for a number that is not a
count, a rounding error uniform on a step ``h ≤ σ/10`` adds at most ``h²/12 ≤ σ²/1200`` to the variance (0.04% of
the standard deviation).

References
----------
- Wang, Lopuhaä-Zwakenberg, Li, Škorić & Li (2020), "Locally Differentially Private Frequency
  Estimation with Consistency", NDSS, Section IV-B (Norm-Sub). https://arxiv.org/abs/1905.08320
- Duchi, Shalev-Shwartz, Singer & Chandra (2008), "Efficient Projections onto the l1-Ball for
  Learning in High Dimensions", ICML, Figure 1. https://doi.org/10.1145/1390156.1390191
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Proposition 2.1 (post-processing). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.validation import check_nonnegative

__all__ = ["project_to_histogram", "release_step", "error_step", "round_release", "round_up", "SIGNIFICANT_DIGITS"]

#: The significant digits an ε or a δ is written with.
SIGNIFICANT_DIGITS = 4


def project_to_histogram(estimates, n) -> np.ndarray:
    """Euclidean projection of estimates onto non-negative vectors summing to ``n``.

    This is the "Norm-Sub" consistency step of Wang, Lopuhaä-Zwakenberg, Li,
    Škorić, Li 2020, "Locally Differentially Private Frequency Estimation with
    Consistency" (NDSS, Sec. IV-B): subtract one constant from every estimate and
    clip at zero, the constant chosen so the total is ``n``. It equals the
    projection onto the scaled simplex, computed by sorting (Duchi, Shalev-Shwartz,
    Singer, Chandra 2008, "Efficient Projections onto the l1-Ball", Fig. 1).
    The result is biased; use it for display, never in place of the unbiased
    estimate.

    Parameters
    ----------
    estimates : array_like, shape (..., k)
        Estimates; leading axes (trials) are projected independently.
    n : float
        Target total, in [0, inf).

    Returns
    -------
    numpy.ndarray, same shape as ``estimates``.
    """
    n = check_nonnegative(n, "n")
    x = np.asarray(estimates, dtype=np.float64)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(f"estimates must have at least one value in the last axis, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("estimates must be finite, got NaN or infinite values")
    s = -np.sort(-x, axis=-1)
    cumulative = np.cumsum(s, axis=-1) - n
    idx = np.arange(1, x.shape[-1] + 1)
    # largest j with s_j - (cumsum_j - n)/j > 0 fixes the shift theta
    positive = s - cumulative / idx > 0
    j = x.shape[-1] - 1 - np.argmax(positive[..., ::-1], axis=-1)
    theta = np.take_along_axis(cumulative, j[..., None], axis=-1) / (j[..., None] + 1)
    return np.maximum(x - theta, 0.0)


def release_step(noise_std: float, *, whole: bool = False) -> float | None:
    """The step a released number is rounded to: 1 for a count (``whole``), else the largest power of ten at most
    ``noise_std / 10``; None when the noise has no standard deviation to read it from (a selection, an unknown law).

    Parameters
    ----------
    noise_std : float
        The standard deviation of the number's noise, in (0, inf); nan or 0 gives None (no rounding but a count's).
    whole : bool, default False
        The number counts something (a count, a histogram bin, a cell of a table): whole units.

    >>> release_step(1.414, whole=True), release_step(141.4), release_step(0.0532)
    (1.0, 10.0, 0.001)
    """
    if whole:
        return 1.0
    if not math.isfinite(noise_std) or noise_std <= 0:
        return None
    return 10.0 ** math.floor(math.log10(noise_std / 10))


def error_step(*errors: float | None) -> float | None:
    """The step a released number is rounded to from the errors stated for it (each at the release's confidence, in
    the number's unit): the largest power of ten at most a tenth of the smallest; None when none is a positive finite
    number (no rounding). Its rounding error, at most half a step, is then at most 5% of every stated error.

    Parameters
    ----------
    *errors : float or None
        The errors stated for the number (None or nan: not stated), each in (0, inf).

    >>> error_step(1.48, 0.0455), error_step(0.148), error_step(None, math.nan)
    (0.001, 0.01, None)
    """
    stated = [float(e) for e in errors if e is not None and math.isfinite(e) and e > 0]
    if not stated:
        return None
    return 10.0 ** math.floor(math.log10(min(stated) / 10))


def round_release(values, step: float | None):
    """``values`` rounded to the nearest multiple of ``step`` (None: unchanged), written with no digit below the step.

    >>> round_release([10502.1103515625, -0.4], 1.0), round_release(0.30000000000000004, 0.1)
    ([10502.0, 0.0], 0.3)
    """
    if step is None:
        return values
    decimals = max(0, -math.floor(math.log10(step)))
    arr = np.round(np.round(np.asarray(values, dtype=np.float64) / step) * step, decimals) + 0.0  # no -0.0
    return float(arr) if arr.ndim == 0 else arr.tolist()


def round_up(value: float, digits: int = SIGNIFICANT_DIGITS) -> float:
    """``value`` (an ε or a δ, ≥ 0) to ``digits`` significant digits, rounded up: the guarantee written is never
    stronger than the one held.

    >>> round_up(2.9999999945214664), round_up(0.123449), round_up(1e-06), round_up(0.0)
    (3.0, 0.1235, 1e-06, 0.0)
    """
    if value == 0 or not math.isfinite(value):
        return value
    exponent = math.floor(math.log10(abs(value))) - digits + 1
    scaled = value / 10.0**exponent
    # an exact value (1e-06) is not bumped by its binary representation's last bit
    up = math.ceil(scaled - 1e-12 * abs(scaled))
    return float(f"{up * 10.0**exponent:.{digits}g}")
