"""Empirical privacy check shared by the mechanism tests.

For two neighbouring inputs, estimate the probability of every output event
from seeded samples and bound the log-ratio with its sampling error.
"""

import numpy as np

from tests.tolerances import Z


def worst_log_ratio(events_a, events_b, n_events):
    """Return (largest |ln P_a(e)/P_b(e)| over events seen often enough, its standard error).

    Each probability is estimated from N draws; by the delta method
    ``se(ln p_hat) = sqrt((1 - p)/(N p))``. Events seen fewer than 400 times in
    either sample are skipped: their ratio is too noisy to say anything.
    """
    na, nb = len(events_a), len(events_b)
    ca = np.bincount(events_a, minlength=n_events).astype(float)
    cb = np.bincount(events_b, minlength=n_events).astype(float)
    ok = (ca >= 400) & (cb >= 400)
    pa, pb = ca[ok] / na, cb[ok] / nb
    ratio = np.abs(np.log(pa / pb))
    se = np.sqrt((1 - pa) / (na * pa) + (1 - pb) / (nb * pb))
    worst = np.argmax(ratio - Z * se)
    return ratio[worst], se[worst]


def assert_within_epsilon(events_a, events_b, n_events, epsilon, tight=True):
    """Assert the worst log-ratio is at most epsilon (and, if tight, at least epsilon) up to Z se."""
    ratio, se = worst_log_ratio(events_a, events_b, n_events)
    assert ratio <= epsilon + Z * se, f"log-ratio {ratio:.4f} exceeds epsilon {epsilon} (se {se:.4f})"
    if tight:
        assert ratio >= epsilon - Z * se, f"log-ratio {ratio:.4f} far below epsilon {epsilon} (se {se:.4f})"
