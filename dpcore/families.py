"""The registry of mechanism families: one entry per family, one protocol for all of them.

A *family* is a way of answering counts with noise: additive noise added by a
trusted curator (central DP: Laplace, Gaussian, staircase) or a frequency
oracle run on every person's device (local DP: GRR, SUE, OUE). Pages, charts,
queries and publications ask this registry for a family by its key (the value
a link carries, ``"laplace"``) and then use the same methods whatever the
family:

* :meth:`Family.counts` — the mechanism answering a k-category histogram under
  a neighbouring relation, as a :class:`Counts` object with one protocol
  (``std``, ``error_bound``, ``simulate``, ``release``, ``mechanism``);
* :meth:`Family.noise` — the additive noise of one query of a given
  sensitivity (central families);
* :meth:`Family.epsilon_for_accuracy` — "±X at 95 % needs which ε?";
* :meth:`Family.privacy` — the (ε, δ) a release of the family is charged;
* :meth:`Family.describe` and :meth:`Family.noise_parameter` — a release of
  the family in words, and the parameter that sets its noise's spread (b, σ);
* :attr:`Family.lattice` — the exact noise a publication draws on a lattice
  (:mod:`dpcore.lattice` asks it), None when the family is not published.

:func:`family_of` finds the family of a mechanism object (by the class it
registered, :attr:`Family.kind`), so code holding a mechanism asks the registry
instead of testing its class.

Nothing outside this module decides what a family *is* by its name: a new
family is one entry in :data:`FAMILIES` (its mathematics lives in its own
module), and every page, chart, accountant and audit that lists families
picks it up (``tests/test_families.py`` runs one contract over every entry;
``tests/test_no_family_dispatch.py`` looks for string dispatch elsewhere).

Which sensitivity calibrates an additive family is a fact of its law: Laplace
and the staircase are calibrated by the L1 sensitivity (Dwork & Roth 2014,
Thm 3.6; Geng & Viswanath 2014, Thm 3), the Gaussian by the L2 sensitivity
(Dwork & Roth 2014, Thm A.1; Balle & Wang 2018, Thm 8). The histogram
sensitivities under each relation are :mod:`dpcore.neighbours`' facts.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorem 3.6 and Theorem A.1.
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy", ICML, Theorem 8.
  https://arxiv.org/abs/1805.06530
- Geng & Viswanath (2016), "The Optimal Noise-Adding Mechanism in Differential Privacy", IEEE
  Transactions on Information Theory 62(2), Theorem 3. https://arxiv.org/abs/1212.1186
- Wang, Blocki, Li & Jha (2017), "Locally Differentially Private Protocols for Frequency Estimation",
  USENIX Security, Sections 4.1–4.4. https://arxiv.org/abs/1705.04421
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from dpcore.gaussian import Gaussian
from dpcore.laplace import Laplace
from dpcore.limits import MAX_ELEMENTS
from dpcore.neighbours import REPLACE_ONE, NeighbouringRelation, check_relation
from dpcore.randomized_response import GRR
from dpcore.staircase import Staircase
from dpcore.unary_encoding import OUE, SUE, UnaryEncoding
from dpcore.validation import check_category_values, check_delta, check_int, check_probability

__all__ = [
    "Counts",
    "Family",
    "FAMILIES",
    "NoiseParameter",
    "family",
    "family_of",
    "central",
    "local",
    "keys",
    "labelled",
    "lowest_variance_local",
]

CENTRAL, LOCAL = "central", "local"


class NoiseParameter(NamedTuple):
    """The parameter that sets an additive noise's spread, as a reader sees it."""

    words: str  # in a sentence: "scale b", "σ"
    symbol: str  # in a formula: "b", "σ"
    value: float


@dataclass(frozen=True)
class Counts:
    """A mechanism answering a k-category histogram, with the protocol every family shares.

    ``mechanism`` is the dpcore object itself (what accountants, audits and the
    ledger accept); the methods read alike for an additive noise and an oracle.
    ``relation`` is the neighbouring relation its ε holds under: the one whose
    histogram sensitivity calibrated a central family's noise, replace one record
    for a local family (each device randomizes its own value). It is set where the
    noise is calibrated (:meth:`Family.counts`), so a label that reads it states the
    relation the noise was calibrated for.
    """

    family: Family
    mechanism: object
    k: int
    relation: NeighbouringRelation

    @property
    def epsilon(self) -> float:
        """The ε of one release."""
        return float(self.mechanism.epsilon)

    @property
    def delta(self) -> float | None:
        """The δ of one release (None for pure ε-DP families)."""
        return getattr(self.mechanism, "delta", None) if self.family.takes_delta else None

    def std(self, true_counts) -> np.ndarray:
        """Standard deviation of each released count (an oracle's depends on the counts)."""
        true = np.asarray(true_counts)
        if self.family.model == LOCAL:
            return np.asarray(self.mechanism.std(true), dtype=float)
        return np.full(self.k, float(self.mechanism.std))

    def error_bound(self, true_counts, confidence: float = 0.95) -> np.ndarray:
        """Half-width of each count's error at ``confidence`` (an oracle's by the normal approximation)."""
        true = np.asarray(true_counts)
        if self.family.model == LOCAL:
            return np.asarray(self.mechanism.error_bound(true, confidence), dtype=float)
        return np.full(self.k, float(self.mechanism.error_bound(confidence)))

    def simulate(self, true_counts, rng, trials: int) -> np.ndarray:
        """``trials`` simulated releases of the counts, shape ``(trials, k)`` (seeded: not private)."""
        true = np.asarray(true_counts)
        if self.family.model == LOCAL:
            return np.asarray(self.mechanism.simulate(true, rng, trials=trials), dtype=float)
        return np.asarray(self.mechanism.simulate(true.astype(float), rng, trials=trials), dtype=float)

    def release(self, codes, rng) -> np.ndarray:
        """One simulated release from the people's category codes in [0, k) (seeded: not private).

        A local family randomizes each person's value and estimates the counts
        from the reports; a central one adds noise to the true counts.
        """
        codes = check_category_values(codes, self.k, "codes")
        if self.family.model == LOCAL:
            oracle = self.mechanism
            return oracle.estimate(oracle.support(oracle.perturb(codes, rng)), codes.size)
        true = np.bincount(codes, minlength=self.k).astype(float)
        return np.asarray(self.mechanism.simulate(true, rng), dtype=float)


@dataclass(frozen=True)
class Family:
    """One family of mechanisms: its names, its model, and how it is built from ε.

    Parameters
    ----------
    key : str
        The family's identifier (in links, in ``mechanism=`` arguments): ``"laplace"``.
    name : str
        Its name on screen and in files: ``"Laplace"``.
    title : str
        A longer name for choosers: ``"GRR · k-ary randomized response"``.
    model : {"central", "local"}
        Who adds the noise: a trusted curator or each person's device.
    colour : str
        Its colour on every chart.
    source : str
        The paper its guarantee comes from.
    takes_delta : bool
        Whether its guarantee is (ε, δ) rather than pure ε.
    norm : {"L1", "L2"} or None
        The sensitivity that calibrates an additive family (None for a local one).
    audit : str
        Its audit in :data:`dpcore.audit.CATALOGUE` (a count's worst-case neighbouring pair).
    kind : type
        The class of its mechanism objects (what ``build`` returns): how :func:`family_of` finds a mechanism's family.
    lattice : str or None
        The publication hook: the exact noise that publishes an additive family on a lattice, a key of
        :data:`dpcore.lattice.SAMPLERS` (``"discrete Laplace"``), which :func:`dpcore.lattice.lattice_mechanism`
        asks; None when the family is simulated here but not published.
    parameter : callable or None
        ``parameter(mechanism)``: the :class:`NoiseParameter` that sets an additive family's spread (Laplace's
        scale b, the Gaussian's σ); None when no one parameter does (the staircase, an oracle).
    build : callable
        ``build(epsilon, sensitivity, delta)`` for an additive family (its noise);
        ``build(epsilon, k)`` for a local one (its oracle).
    accuracy : callable
        The inverse of its error bound: ``accuracy(accuracy, confidence, sensitivity, delta)`` for an additive family,
        ``accuracy(accuracy, confidence, true_counts, value)`` for a local one.
    """

    key: str
    name: str
    title: str
    model: str
    colour: str
    source: str
    build: Callable
    accuracy: Callable
    audit: str
    kind: type
    takes_delta: bool = False
    norm: str | None = None
    lattice: str | None = None
    parameter: Callable | None = None

    # ------------------------------------------------------------------ construction
    def noise(self, epsilon: float, sensitivity: float, delta: float | None = None):
        """The additive noise of one query of the given sensitivity (its L1 or L2 one, by :attr:`norm`)."""
        if self.model != CENTRAL:
            raise TypeError(f"mechanism must be an additive (central) family for a query, got {self.key!r}")
        return self.build(epsilon, sensitivity, self._delta(delta))

    def histogram_sensitivity(self, relation: NeighbouringRelation) -> float:
        """The sensitivity of a histogram under ``relation`` in this family's norm."""
        if self.norm == "L2":
            return relation.histogram_l2_sensitivity
        return relation.histogram_l1_sensitivity

    def counts(
        self, epsilon: float, k: int, *, delta: float | None = None, relation: NeighbouringRelation = REPLACE_ONE
    ) -> Counts:
        """The mechanism answering a k-category histogram at ε (and δ) under ``relation``.

        A local family holds under replace one record whatever is asked (each
        device randomizes its own value); ``relation`` calibrates a central one.
        """
        k = check_int(k, "k", minimum=2)
        if self.model == LOCAL:
            return Counts(self, self.build(epsilon, k), k, REPLACE_ONE)
        relation = check_relation(relation)
        return Counts(self, self.noise(epsilon, self.histogram_sensitivity(relation), delta), k, relation)

    # ------------------------------------------------------------------ display
    def _own(self, mechanism):
        if not isinstance(mechanism, self.kind):
            raise TypeError(f"mechanism must be a {self.name} mechanism, got {type(mechanism).__name__}")
        return mechanism

    def noise_parameter(self, mechanism) -> NoiseParameter | None:
        """The parameter that sets the spread of ``mechanism``'s noise (scale b, σ), or None when no one does."""
        self._own(mechanism)
        return None if self.parameter is None else self.parameter(mechanism)

    def describe(self, mechanism) -> str:
        """A release of this family in a few words, for tables and sentences.

        ``"Laplace, b = 2"`` (an additive noise with a parameter), ``"GRR, ε = 1, 5 categories"`` (an oracle),
        ``"Staircase, ε = 1"`` (otherwise).
        """
        if (spread := self.noise_parameter(mechanism)) is not None:
            return f"{self.name}, {spread.symbol} = {spread.value:.4g}"
        if self.model == LOCAL:
            return f"{self.name}, ε = {mechanism.epsilon:g}, {mechanism.k} categories"
        return f"{self.name}, ε = {mechanism.epsilon:g}"

    # ------------------------------------------------------------------ privacy
    def _delta(self, delta: float | None) -> float | None:
        if not self.takes_delta:
            return None
        if delta is None:
            raise ValueError(f"delta must be in (0, 1) for the {self.name} mechanism, got None")
        return check_delta(delta)

    def delta(self, delta: float | None) -> float | None:
        """The δ a release of this family uses: ``delta`` for an (ε, δ) family, None for a pure one."""
        return self._delta(delta) if self.takes_delta else None

    def privacy(self, epsilon: float, delta: float | None = None) -> tuple[float, float]:
        """The (ε, δ) one release is charged: δ = 0 for a pure ε-DP family."""
        return float(epsilon), float(self._delta(delta)) if self.takes_delta else 0.0

    def epsilon_for_accuracy(
        self,
        accuracy: float,
        confidence: float = 0.95,
        *,
        sensitivity: float = 1.0,
        delta: float | None = None,
        true_counts=None,
        value: int | None = None,
    ) -> float:
        """The smallest ε whose error stays within ``accuracy`` with probability ``confidence``.

        An additive family needs the sensitivity (and δ for an (ε, δ) family); a
        local one needs the true counts (its error grows with the count) and
        optionally the value asked about (else the value with the largest error).
        """
        confidence = check_probability(confidence, "confidence")
        if self.model == LOCAL:
            if true_counts is None:
                raise ValueError(f"true_counts must be given for the {self.name} oracle, got None")
            return float(self.accuracy(accuracy, confidence, true_counts, value))
        return float(self.accuracy(accuracy, confidence, sensitivity, self._delta(delta)))


#: Every family, in the order choosers list them. A new family is one entry here.
FAMILIES: dict[str, Family] = {
    f.key: f
    for f in (
        Family(
            key="grr",
            name="GRR",
            title="GRR · k-ary randomized response",
            model=LOCAL,
            colour="#e8590c",
            source="Wang, Blocki, Li, Jha (2017), Section 4.1",
            audit="grr",
            kind=GRR,
            build=GRR,
            accuracy=lambda a, c, true, value: GRR.epsilon_for_accuracy(a, true, c, value),
        ),
        Family(
            key="sue",
            name="SUE",
            title="SUE · basic RAPPOR",
            model=LOCAL,
            colour="#7048e8",
            source="Wang, Blocki, Li, Jha (2017), Section 4.3",
            audit="sue",
            kind=SUE,
            build=SUE,
            accuracy=lambda a, c, true, value: SUE.epsilon_for_accuracy(a, true, c, value),
        ),
        Family(
            key="oue",
            name="OUE",
            title="OUE · optimised unary encoding",
            model=LOCAL,
            colour="#2b8a3e",
            source="Wang, Blocki, Li, Jha (2017), Section 4.4",
            audit="oue",
            kind=OUE,
            build=OUE,
            accuracy=lambda a, c, true, value: OUE.epsilon_for_accuracy(a, true, c, value),
        ),
        Family(
            key="laplace",
            name="Laplace",
            title="Laplace",
            model=CENTRAL,
            colour="#3b5bdb",
            source="Dwork, McSherry, Nissim, Smith (2006); Dwork & Roth (2014), Theorem 3.6",
            audit="laplace_count",
            kind=Laplace,
            build=lambda eps, sens, _delta: Laplace.from_epsilon(eps, sens),
            accuracy=lambda a, c, sens, _delta: Laplace.epsilon_for_accuracy(a, c, sens),
            norm="L1",
            lattice="discrete Laplace",
            parameter=lambda m: NoiseParameter("scale b", "b", m.scale),
        ),
        Family(
            key="gaussian",
            name="Gaussian",
            title="Gaussian (analytic)",
            model=CENTRAL,
            colour="#c2255c",
            source="Balle & Wang (2018), Theorem 8 (the analytic Gaussian mechanism)",
            audit="gaussian_count",
            kind=Gaussian,
            build=lambda eps, sens, delta: Gaussian.from_epsilon_delta(eps, delta, sens),
            accuracy=lambda a, c, sens, delta: Gaussian.epsilon_for_accuracy(a, c, delta=delta, sensitivity=sens),
            takes_delta=True,
            norm="L2",
            lattice="discrete Gaussian",
            parameter=lambda m: NoiseParameter("σ", "σ", m.sigma),
        ),
        Family(
            key="staircase",
            name="Staircase",
            title="Staircase (optimal pure ε-DP noise)",
            model=CENTRAL,
            colour="#74b816",
            source="Geng & Viswanath (2014), Theorem 3 and Section IV",
            audit="staircase_count",
            kind=Staircase,
            build=lambda eps, sens, _delta: Staircase.from_epsilon(eps, sens),
            accuracy=lambda a, c, sens, _delta: Staircase.epsilon_for_accuracy(a, c, sens),
            norm="L1",
        ),
    )
}


def keys(model: str | None = None) -> tuple[str, ...]:
    """The keys of every family, or of the ``"central"`` or ``"local"`` ones, in registry order."""
    return tuple(k for k, f in FAMILIES.items() if model is None or f.model == model)


def family(key) -> Family:
    """The family registered under ``key``, or named ``key`` (a :class:`Family` is returned as it is).

    Raises
    ------
    ValueError
        Naming the registered keys, when ``key`` is neither a key nor a name of the registry.
    """
    if isinstance(key, Family):
        return key
    if isinstance(key, str):
        if key in FAMILIES:
            return FAMILIES[key]
        for f in FAMILIES.values():
            if f.name == key:
                return f
    raise ValueError(f"mechanism must be one of {', '.join(map(repr, FAMILIES))}, got {key!r}")


def family_of(mechanism) -> Family | None:
    """The family whose mechanism ``mechanism`` is (by its class, :attr:`Family.kind`), or None for any other object.

    The most derived registered class wins, so a subclass registered as its own family is not taken for its parent.

    >>> family_of(Laplace(2.0)).key, family_of(object())
    ('laplace', None)
    """
    by_kind = {f.kind: f for f in FAMILIES.values()}
    return next((by_kind[cls] for cls in type(mechanism).__mro__ if cls in by_kind), None)


def labelled(suffix: str = "", model: str | None = None) -> dict[str, Family]:
    """``{"<name> (<model>)<suffix>": family}`` for choosers that list families beside other methods."""
    return {f"{f.name}{suffix} ({f.model})": f for f in FAMILIES.values() if model is None or f.model == model}


def central() -> tuple[Family, ...]:
    """The additive (central) families, in registry order."""
    return tuple(FAMILIES[k] for k in keys(CENTRAL))


def local() -> tuple[Family, ...]:
    """The local (frequency oracle) families, in registry order."""
    return tuple(FAMILIES[k] for k in keys(LOCAL))


def lowest_variance_local(epsilon: float, k: int, reports: int | None = None) -> Family:
    """The local family whose estimate of a rare value's count has the smallest variance at ``epsilon`` for ``k`` values.

    Every oracle's estimate of a value held by nobody has variance ``n q(1 − q)/(p − q)²`` (Wang et al. 2017), the
    variance rare values pay; the families are compared on it with n = 1, a common factor. GRR wins exactly when
    ``epsilon > GRR.grr_crossover_epsilon(k)`` (every ε for k ≤ 5), OUE below it, SUE never; a tie goes to the first
    family of the registry. With ``reports``, only the families whose ``reports`` reports dpcore draws are compared (a
    unary encoding's reports are ``reports × k`` bits, at most :data:`~dpcore.limits.MAX_ELEMENTS`; GRR's one value
    each fits any upload; when none fits, every family is compared).
    """
    k = check_int(k, "k", minimum=2)
    rare = np.zeros(k, dtype=np.int64)
    rare[0] = 1  # one report, of another value than the one compared
    offered = [f for f in local() if reports is None or _draws(f.counts(epsilon, k).mechanism, reports)] or local()
    return min(offered, key=lambda f: float(f.counts(epsilon, k).std(rare)[1]))


def _draws(oracle, reports: int) -> bool:
    """Whether dpcore draws ``reports`` reports of ``oracle`` (its perturbation's array within MAX_ELEMENTS)."""
    reports = check_int(reports, "reports", minimum=0)
    return reports * (oracle.k if isinstance(oracle, UnaryEncoding) else 1) <= MAX_ELEMENTS
