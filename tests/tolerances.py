"""Monte-Carlo tolerances shared by the tests: they come from the sampling error, never from trial and error."""

import numpy as np

#: Number of standard errors a seeded Monte-Carlo statistic may stray. Over the
#: whole suite, a few hundred such checks at 5 sigma fail by chance with
#: probability < 1e-3 even if the seeds were changed.
Z = 5.0


def variance_tolerance(trials: int) -> float:
    """Relative tolerance for a sample variance from ``trials`` near-normal draws.

    The sample variance has relative standard error sqrt(2/(trials-1)).
    """
    return Z * np.sqrt(2.0 / (trials - 1))
