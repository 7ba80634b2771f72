"""One release type, read alike by a page, a chart, a download, a snippet and the ledger.

A :class:`Release` carries the published numbers and nothing of the truth, with everything
a reader needs to judge them: the query, the mechanism and its noise, the (ε, δ) it costs,
the neighbouring relation and the unit of privacy under which that guarantee holds, which
kind of randomness drew it (:class:`~dpcore.randomness.Randomness`), and the public facts
it relies on (a declared domain, bounds, bins) with where each came from. Nothing in a
release is chosen by the data: its labels are the declared domain or bins.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Definition 2.4 (the guarantee is relative to
  a neighbouring relation). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- OpenDP, "Measurements" (every measurement carries its input domain, input metric and privacy
  measure). https://docs.opendp.org
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dpcore.neighbours import UNIT_CLIENT, UNIT_RECORD, NeighbouringRelation
from dpcore.randomness import Randomness

# the units of privacy live with the relations, in dpcore.neighbours; named here too, as before
__all__ = ["UNIT_RECORD", "UNIT_CLIENT", "PublicFact", "Release"]


@dataclass(frozen=True)
class PublicFact:
    """A fact a release relies on that is not private: what, its value, and where it came from.

    ``source`` says how it became public: ``"declared"`` (typed or read from a public file by
    the user), ``"fixed"`` (chosen by the software before any data is seen), ``"relation"``
    (public because the neighbouring relation keeps it: the number of rows under replace one
    record), or ``"released"`` (itself released privately and charged).
    """

    name: str
    value: str
    source: str

    def __post_init__(self):
        if self.source not in ("declared", "fixed", "relation", "released"):
            raise ValueError(f"source must be one of declared, fixed, relation, released, got {self.source!r}")


@dataclass(frozen=True)
class Release:
    """A release: the numbers, and the guarantee they carry.

    Attributes
    ----------
    query : str
        What was asked ("count", "sum", "mean", "histogram", "count where", "category counts", "most common").
    value : float, str or tuple
        The released answer(s), one per label; never the truth.
    labels : tuple of str
        One label per released number (the declared categories, the declared bins), or ``("value",)``.
    mechanism : str
        The mechanism, in words ("Laplace on a 2⁻¹⁰ lattice", "exponential mechanism").
    noise_std : float
        The standard deviation of each released number's noise (nan for a selection).
    epsilon, delta : float
        What the release costs, under ``relation`` and ``unit``.
    relation : NeighbouringRelation
    unit : str
        The unit of privacy (:data:`UNIT_RECORD`, :data:`UNIT_CLIENT`).
    randomness : Randomness
    public : tuple of PublicFact
    """

    query: str
    value: float | str | tuple
    labels: tuple[str, ...]
    mechanism: str
    noise_std: float
    epsilon: float
    delta: float
    relation: NeighbouringRelation
    unit: str
    randomness: Randomness
    public: tuple[PublicFact, ...] = field(default=())

    @property
    def values(self) -> tuple:
        """The released numbers (or choice) as a tuple, one per label."""
        return self.value if isinstance(self.value, tuple) else (self.value,)

    @property
    def is_publication(self) -> bool:
        return self.randomness is Randomness.PUBLICATION

    def table(self) -> pd.DataFrame:
        """The released numbers only, one row per label (what a release file holds)."""
        return pd.DataFrame({"label": list(self.labels), "released value": list(self.values)})

    def label(self) -> dict:
        """The privacy label of the release: every parameter a reader needs, as plain values (JSON-ready)."""
        return {
            "query": self.query,
            "randomness": self.randomness.value,
            "randomness_in_words": self.randomness.words,
            "mechanism": self.mechanism,
            "noise_std": None if math.isnan(self.noise_std) else self.noise_std,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "neighbouring_relation": self.relation.words(self.unit),  # "add/remove one person" under a person unit
            "unit_of_privacy": self.unit,
            "public_facts": [{"name": f.name, "value": f.value, "source": f.source} for f in self.public],
        }

    def guarantee(self) -> str:
        """The guarantee in one sentence."""
        delta = "" if self.delta == 0 else f", δ = {self.delta:.2g}"
        return f"(ε = {self.epsilon:.4g}{delta})-DP under {self.relation.words(self.unit)} (unit: one {self.unit})"


def as_tuple(value) -> float | str | tuple:
    """A released value as an immutable plain value: a float, a str, or a tuple of floats."""
    if isinstance(value, str):
        return value
    arr = np.asarray(value, dtype=np.float64)
    return float(arr) if arr.ndim == 0 else tuple(float(v) for v in arr.ravel())
