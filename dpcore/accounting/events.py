"""Privacy events: releases the accountants charge that are not a dpcore mechanism object.

A mechanism of dpcore (``Laplace``, ``Gaussian``, ``GRR``, ``SUE``, ``OUE``,
``LDPMean``) is charged as what it is. A release whose only known guarantee
is "ε-DP" (the exponential mechanism, AboveThreshold, Sparse, a whole SVT
release, a third-party tool) is a :class:`PureDP` event, the analogue of
dp_accounting's ``EpsilonDeltaDpEvent`` with δ = 0.

An event says, like every release, under which neighbouring relation and
unit of privacy its guarantee holds (:mod:`dpcore.neighbours`): the caller
knows, since the ε of an exponential mechanism or an SVT follows from a
sensitivity under some relation. The default is that of every central query
of dpcore, add/remove one record.

How an event enters each accountant is decided in one place,
:mod:`dpcore.accounting.per_release`.

References
----------
- Kairouz, Oh & Viswanath (2015), "The Composition Theorem for Differential Privacy", ICML,
  Theorem 2.1 and Corollary 2.3. https://arxiv.org/abs/1311.0776
- Google dp_accounting, ``dp_event.EpsilonDeltaDpEvent``. https://github.com/google/differential-privacy
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcore.neighbours import ADD_REMOVE, UNIT_RECORD, NeighbouringRelation, check_relation, check_unit
from dpcore.validation import check_epsilon

__all__ = ["PureDP"]


@dataclass(frozen=True)
class PureDP:
    """One ε-DP release of any kind, for the accountants.

    Its accounting is that of binary randomized response at the same ε, the
    worst case of every ε-DP mechanism: any ε-DP mechanism's output pair is a
    post-processing of binary RR's (Kairouz, Oh & Viswanath 2015, Theorem 2.1 /
    Corollary 2.3), so its Rényi divergences, privacy loss distribution and
    compositions are bounded by those of ``GRR(ε, 2)``. Under basic
    composition it costs ε; under zCDP ``ε²/2`` (Bun & Steinke 2016,
    Proposition 1.4).

    Parameters
    ----------
    epsilon : float
        The ε of the release, in (0, inf).
    relation : NeighbouringRelation, default ADD_REMOVE
        The neighbouring relation the ε holds under.
    unit : {"record", "client"}, default "record"
        The unit of privacy the ε holds for.

    Examples
    --------
    >>> from dpcore.accounting import BudgetLedger
    >>> BudgetLedger(1.0, 1e-6).spend(PureDP(0.25), count=2).spent().epsilon
    0.5
    """

    epsilon: float
    relation: NeighbouringRelation = ADD_REMOVE
    unit: str = UNIT_RECORD

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        check_relation(self.relation)
        check_unit(self.unit)
