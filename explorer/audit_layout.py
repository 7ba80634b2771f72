"""What the Audit page's two views share: the salt of their seeds, the name of dpcore's correct implementation
beside its broken exhibits, and how many runs the bound curve keeps.
"""

from __future__ import annotations

from explorer import state

__all__ = ["SALT", "CORRECT", "CURVE_TRIALS", "page_seed"]

SALT = "audit"
CORRECT = "correct"
#: The curve keeps every run of both inputs in memory: up to 10⁶ runs (16 MB) rather than dpcore's 10⁷ per session.
CURVE_TRIALS = 10**6


def page_seed(salt: str) -> tuple[int, ...]:
    """The page's seed words for ``salt`` (the sidebar's seed, salted per view and per chart)."""
    return tuple(state.seed_words(salt))
