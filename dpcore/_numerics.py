"""Floating-point primitives of dpcore (private): nothing here knows about privacy.

References
----------
- Mächler (2012), "Accurately Computing log(1 − exp(−|a|)), Assessed by the Rmpfr package",
  CRAN vignette, Section 2. https://cran.r-project.org/web/packages/Rmpfr/vignettes/log1mexp-note.pdf
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["log1mexp"]

_LN2 = math.log(2.0)


def log1mexp(x):
    """``log(1 - exp(x))`` for ``x <= 0``, accurate at both ends.

    Mächler (2012), "Accurately computing log(1 - exp(-|a|))": use
    ``log(-expm1(x))`` for ``x > -ln 2`` and ``log1p(-exp(x))`` below;
    ``-inf`` at ``x = 0``. A float in gives a float out (the scalar root
    solves call it in their inner loop), an array an array.
    """
    if np.ndim(x) == 0 and not isinstance(x, np.ndarray):
        x = float(x)
        if x >= 0.0:
            return -math.inf
        return math.log(-math.expm1(x)) if x > -_LN2 else math.log1p(-math.exp(x))
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.where(
            x > -np.log(2.0), np.log(-np.expm1(np.minimum(x, 0.0))), np.log1p(-np.exp(np.minimum(x, -np.log(2.0))))
        )
