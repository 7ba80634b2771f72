"""Error bounds read off simulated releases, where no closed form exists.

A mean released as noisy sum over noisy count, a mean whose clipping bound was
itself chosen privately, or any error that includes clipping bias has no
closed-form law. Its bound is then the empirical ``confidence`` quantile of
``|error|`` over simulated releases: :func:`empirical_error_bound`, the one
place dpcore and the app compute it.

The empirical ``q``-quantile of ``n`` draws estimates the true one with a
standard error of about ``sqrt(q(1 − q)/n) / f(t_q)`` (``f`` the density of
``|error|`` at the quantile; Serfling, Section 2.3.3), so 10⁴ trials put the
95 % bound within a few percent.

References
----------
- Serfling (1980), *Approximation Theorems of Mathematical Statistics*, Wiley, Section 2.3.3
  (asymptotic normality of sample quantiles). https://doi.org/10.1002/9780470316481
- Hyndman & Fan (1996), "Sample Quantiles in Statistical Packages", The American Statistician
  50(4), definition 7 (NumPy's default "linear" quantile). https://doi.org/10.2307/2684934
"""

from __future__ import annotations

import numpy as np

from dpcore.validation import check_numeric_array, check_probability

__all__ = ["empirical_error_bound"]


def empirical_error_bound(errors, confidence: float = 0.95) -> float:
    """The ``t`` with ``|error| <= t`` in a fraction ``confidence`` of simulated releases.

    The empirical ``confidence`` quantile of ``|errors|`` (NumPy's default
    linear interpolation, Hyndman & Fan 1996, definition 7).

    Parameters
    ----------
    errors : array_like
        Simulated errors (``noisy − true``), finite; any shape, at least one.
    confidence : float, default 0.95
        Probability in (0, 1).

    Returns
    -------
    float

    Examples
    --------
    >>> empirical_error_bound([-3.0, 1.0, -1.0, 2.0, 0.0], confidence=0.5)
    1.0
    """
    confidence = check_probability(confidence, "confidence")
    errors, _ = check_numeric_array(errors, "errors")
    return float(np.quantile(np.abs(errors), confidence))
