"""Post-processing of frequency estimates into a valid histogram (off by default).

The unbiased estimates of the frequency oracles can be negative and need not
sum to n. Projecting them onto ``{x >= 0, sum x = n}`` gives a valid histogram
at the price of bias; by the post-processing property of differential privacy
it costs no privacy (Dwork & Roth 2014, Prop. 2.1).

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

import numpy as np

from dpcore.validation import check_nonnegative

__all__ = ["project_to_histogram"]


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
