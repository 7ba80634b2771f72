"""A per-session privacy budget ledger that refuses to overspend.

The app keeps one :class:`BudgetLedger` per session (in ``st.session_state``);
there is no module-level ledger and no shared state, so two ledgers never
interfere. The design follows diffprivlib's ``BudgetAccountant.spend`` (which
raises before overspending) and dp_accounting's ``compose(event, count)``.

A ledger's total holds under one neighbouring relation and unit of privacy
(:mod:`dpcore.neighbours`: one record, one client, or one person with all their
rows); a release under another is converted by group privacy when its guarantee
gives one there, and refused in one sentence
(:class:`~dpcore.neighbours.RelationError`) when it does not. A record-level
release enters a person-level ledger only with a declared bound ``m`` on one
person's rows (``rows_per_person=m``): it is then counted as a group of ``m``
records (:func:`dpcore.neighbours.conversion`).

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorem 3.16 (basic composition), Theorem 2.2 (group privacy).
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Vadhan (2017), "The Complexity of Differential Privacy", Tutorials on the Foundations of Cryptography, Springer,
  Lemma 2.2 (group privacy for (ε, δ)-DP). https://doi.org/10.1007/978-3-319-57048-8_7
- Mironov (2017), "Rényi Differential Privacy", CSF, Propositions 1 and 3. https://arxiv.org/abs/1702.07476
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS,
  Section 2.3, Proposition 12 and Corollary 13. https://arxiv.org/abs/2004.00010
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising", ICML, Theorem 8. https://arxiv.org/abs/1805.06530
- Bun & Steinke (2016), "Concentrated Differential Privacy: Simplifications, Extensions, and
  Lower Bounds", TCC, Proposition 1.9 (group privacy). https://arxiv.org/abs/1605.02065
- IBM diffprivlib, ``BudgetAccountant``; Google dp_accounting, ``PrivacyAccountant.compose``.
  https://github.com/IBM/differential-privacy-library https://github.com/google/differential-privacy
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from dpcore.accounting._numerics import as_orders
from dpcore.accounting.per_release import (
    accountable,
    accounting_for,
    relation_of,
    release_epsilon,
    release_rdp,
    release_rho,
)
from dpcore.accounting.rdp import DEFAULT_ORDERS, rdp_to_dp
from dpcore.accounting.zcdp import zcdp_to_dp
from dpcore.gdp import gdp_epsilon
from dpcore.neighbours import (
    ADD_REMOVE,
    UNIT_RECORD,
    Conversion,
    NeighbouringRelation,
    RelationError,
    check_relation,
    check_unit,
    conversion,
    convert,
)
from dpcore.validation import check_choice, check_delta, check_epsilon, check_int

__all__ = [
    "LEDGER_METHODS",
    "LEDGER_ACCOUNTINGS",
    "CONVERSION_RULE",
    "Budget",
    "Charge",
    "LedgerEntry",
    "UnitTotal",
    "BudgetError",
    "LedgerFullError",
    "RelationError",
    "BudgetLedger",
]

#: Accounting methods a ledger can use. Each charges the smallest of the valid bounds it names; basic
#: composition is a valid bound for every set of releases, so every method includes it (k pure ε₀
#: releases never cost more than k ε₀, and no δ).
LEDGER_METHODS = ("best", "basic", "rdp", "zcdp")
#: The accountings whose minimum each method charges ("exact": μ-GDP, when every release is Gaussian).
LEDGER_ACCOUNTINGS = {
    "best": ("basic", "rdp", "zcdp", "exact"),
    "basic": ("basic",),
    "rdp": ("basic", "rdp"),
    "zcdp": ("basic", "zcdp"),
}

#: How a ledger converts a release whose guarantee holds under another relation or unit, ``k`` being the
#: :class:`~dpcore.neighbours.Conversion`'s group (the class notes of :class:`BudgetLedger`), in words.
CONVERSION_RULE = (
    "group privacy over k steps: Laplace and Gaussian noise counted at k times its sensitivity, any other pure "
    "ε-DP release at kε (Dwork & Roth 2014, Theorem 2.2), an (ε, δ) run at (kε, δ(1 + e^ε + … + e^((k−1)ε))), at "
    "most (kε, k·e^((k−1)ε)·δ) (Vadhan 2017, Lemma 2.2), and a ρ-zCDP one at k²ρ (Bun & Steinke 2016, "
    "Proposition 1.9)"
)

# relative slack when comparing a cost with the budget, so that spending the
# budget exactly (for example ten releases of ε/10) is not refused for rounding
_RELATIVE_SLACK = 1e-9


class Budget(NamedTuple):
    """An (ε, δ) pair: spent, remaining, or the cost of some releases."""

    epsilon: float
    delta: float


class Charge(NamedTuple):
    """What some releases cost: the tightest valid (ε, δ) and the accounting that gave it.

    ``accounting`` is ``"basic"``, ``"rdp"``, ``"zcdp"`` or ``"exact"`` (``""``
    when nothing is charged); ``candidates`` holds every accounting's (ε, δ)
    that applied, for display.
    """

    epsilon: float
    delta: float
    accounting: str
    candidates: tuple[tuple[str, Budget], ...] = ()

    @property
    def budget(self) -> Budget:
        return Budget(self.epsilon, self.delta)


class BudgetError(ValueError):
    """A spend refused because it would exceed the budget (the ledger is unchanged).

    A ``ValueError``, so code that catches bad arguments still catches it; a
    page that must tell "over budget" from "bad argument" catches this class.

    Attributes
    ----------
    method : str
        The ledger's accounting method.
    budget : Budget
        The ledger's total (ε, δ).
    spent : Budget
        What was spent before the refused spend.
    asked : Charge
        What the refused releases cost on their own.
    total : Charge
        What everything would have cost together, and by which accounting: above the budget.
    releases : int
        How many releases were asked for.
    label : str
        The label given to the refused spend.
    relation : NeighbouringRelation
        The relation the budget holds under (every cost above is counted under it).
    unit : str
        The unit of privacy the budget holds for.
    """

    def __init__(
        self,
        *,
        method: str,
        budget: Budget,
        spent: Budget,
        asked: Budget,
        total: Budget,
        releases: int,
        label: str = "",
        relation: NeighbouringRelation = ADD_REMOVE,
        unit: str = UNIT_RECORD,
    ):
        self.method, self.budget, self.spent, self.asked, self.total = method, budget, spent, asked, total
        self.releases, self.label, self.relation, self.unit = releases, label, relation, unit
        by = f", {total.accounting} composition being the tightest" if getattr(total, "accounting", "") else ""
        super().__init__(
            f"spend refused ({method} accounting{by}): budget is epsilon={budget.epsilon:.6g}, "
            f"delta={budget.delta:.3g} under {relation.words(unit)}; "
            f"spent so far epsilon={spent.epsilon:.6g}, delta={spent.delta:.3g}; "
            f"asked epsilon={asked.epsilon:.6g}, delta={asked.delta:.3g} for {releases} release(s)"
            f"{' (' + label + ')' if label else ''}, which would bring the total to "
            f"epsilon={total.epsilon:.6g}, delta={total.delta:.3g}"
        )


class LedgerFullError(ValueError):
    """A spend refused because the ledger already holds its ``max_entries`` entries (the ledger is unchanged).

    Attributes
    ----------
    max_entries : int
        The ledger's cap on its number of entries.
    entries : int
        How many entries the ledger would have held with the refused spend.
    """

    def __init__(self, max_entries: int, entries: int):
        self.max_entries, self.entries = max_entries, entries
        super().__init__(f"ledger entries must be at most {max_entries}, got {entries}")


@dataclass(frozen=True)
class LedgerEntry:
    """One recorded spend: ``count`` releases of ``mechanism``.

    Attributes
    ----------
    mechanism : Laplace, Gaussian, GRR, SUE, OUE, LDPMean, PureDP, ApproxDP or PoissonSampledGaussian
        The release as it was spent (SUE, OUE, LDPMean and PureDP are charged
        as binary randomized response at their ε).
    count : int
        Number of releases, in [1, inf).
    label : str
        What the releases were, for the app's table.
    release_delta : float or None
        The δ each Gaussian release is charged under basic accounting (None
        for pure mechanisms), under the release's own relation.
    relation : NeighbouringRelation, default ADD_REMOVE
        The relation the release's own guarantee holds under.
    unit : {"record", "client", "person"}, default "record"
        The unit of privacy the release's own guarantee holds for.
    rows_per_person : int or None, default None
        The declared most rows of one person, for a record-level release charged
        to a person-level ledger (the group of :func:`dpcore.neighbours.conversion`);
        None when none was declared.
    cost : Charge or None
        What the entry costs on its own in the ledger that recorded it, converted
        to the ledger's relation and unit (:meth:`BudgetLedger.entry_cost`); None
        until recorded, and not compared.
    conversion : Conversion or None
        How the release's guarantee was converted to the ledger's relation and
        unit: the group ``k`` and the rule in words (``k = 1``: it holds as it
        is); None until recorded, and not compared.
    """

    mechanism: object
    count: int
    label: str = ""
    release_delta: float | None = None
    relation: NeighbouringRelation = ADD_REMOVE
    unit: str = UNIT_RECORD
    rows_per_person: int | None = None
    cost: Charge | None = field(default=None, compare=False)
    conversion: Conversion | None = field(default=None, compare=False)

    @property
    def converted(self) -> bool:
        """Whether the ledger that recorded it converted its guarantee (a group of more than one step)."""
        return self.conversion is not None and self.conversion.group > 1


class UnitTotal(NamedTuple):
    """What a ledger's entries under one unit of privacy cost together (:meth:`BudgetLedger.by_unit`).

    ``unit`` is the entries' own unit; ``entries`` and ``releases`` how many; ``charge`` what they cost
    together under the ledger's relation and unit (its tightest accounting over these entries alone);
    ``conversions`` the distinct rules that converted them, oldest first (empty when none was converted).
    """

    unit: str
    entries: int
    releases: int
    charge: Charge
    conversions: tuple[Conversion, ...]


class _PerRelease(NamedTuple):
    """What one release of an entry adds to each accounting (computed once, when the entry is recorded).

    ``epsilon`` is its ε under basic composition (its pure ε, or its ε at the entry's ``release_delta``)
    and ``delta`` the δ that goes with it (0 for a pure release); ``epsilon`` is None when basic
    composition does not apply (a Gaussian without a per-release δ). ``rdp``, ``rho`` and ``mu`` are its
    RDP curve at the ledger's orders, its zCDP ρ and its μ-GDP μ; each is None when that accounting is not
    among the ledger method's, and ``mu`` also when the release is not a Gaussian; all under the ledger's relation
    and unit. ``renyi`` is False for a release that has no RDP curve and no zCDP ρ at all (an
    :class:`~dpcore.accounting.events.ApproxDP` event): RDP and zCDP then do not apply to any total holding it.
    """

    epsilon: float | None
    delta: float
    rdp: np.ndarray | None
    rho: float | None
    mu: float | None
    renyi: bool = True


class _Totals:
    """The running sums of every accounting over some entries, each entry adding ``count × value`` in turn.

    Entries are folded in the order they were recorded, with the same operations a pass over all of them
    performs, so a total kept up to date spend by spend is the total recomputed from scratch, bit for bit.
    A fold returns a new object (:meth:`plus`); the ledger's own totals change only by replacement.
    """

    __slots__ = (
        "entries",
        "basic_epsilon",
        "basic_delta",
        "basic_applies",
        "renyi_applies",
        "rdp",
        "rho",
        "mu2",
        "all_gaussian",
    )

    def __init__(self):
        self.entries = 0
        self.basic_epsilon = self.basic_delta = 0.0
        self.basic_applies = True  # False once a release has no per-release δ
        self.renyi_applies = True  # False once a release has no RDP curve nor zCDP ρ (an ApproxDP event)
        self.rdp = None  # the summed RDP curve, None before the first entry (or when the method has no RDP)
        self.rho = 0.0
        self.mu2 = 0.0  # Σ count·μ², while every release is Gaussian
        self.all_gaussian = True

    def plus(self, releases) -> _Totals:
        """These totals with ``releases`` (pairs of :class:`_PerRelease` and count) folded in, in order."""
        new = _Totals.__new__(_Totals)
        for name in self.__slots__:
            setattr(new, name, getattr(self, name))
        for unit, count in releases:
            new.entries += 1
            if unit.epsilon is None:
                new.basic_applies = False
            elif new.basic_applies:
                new.basic_epsilon += count * unit.epsilon
                new.basic_delta += count * unit.delta
            if not unit.renyi:
                new.renyi_applies = False
            if unit.rdp is not None:
                term = count * unit.rdp
                new.rdp = term if new.rdp is None else new.rdp + term  # never in place: copies share the array
            if unit.rho is not None:
                new.rho += count * unit.rho
            if unit.mu is None:
                new.all_gaussian = False
            elif new.all_gaussian:
                new.mu2 += count * unit.mu * unit.mu
        return new


class BudgetLedger:
    """A total (ε, δ) budget, an accounting method, and the releases charged to it.

    ``spend`` (one kind of release) and ``spend_all`` (several together, all or
    nothing) compute the cost of every recorded release plus the new ones
    under the method and raise :class:`BudgetError` (a ``ValueError``) *before
    recording anything* if that would exceed the budget; nothing is released
    without being paid for.

    How releases are charged: every accounting below gives a valid (ε, δ)
    bound for the releases recorded; the ledger charges the one with the
    smallest ε among those whose δ fits the budget (a smaller δ at equal ε),
    over the accountings its ``method`` names (:data:`LEDGER_ACCOUNTINGS`).
    Every method includes basic composition, so pure releases are never
    charged more than the sum of their ε's, and no δ.

    * ``"basic"``: the (ε_i, δ_i) of each release add up (Dwork & Roth 2014,
      Theorem 3.16). Laplace, GRR and every pure ε-DP release (SUE, OUE,
      LDPMean, :class:`~dpcore.accounting.events.PureDP`) are pure: ``(ε₀, 0)``. A Gaussian is
      charged ``(ε(δ₀), δ₀)``, its exact ε at a per-release ``δ₀`` (Balle &
      Wang 2018): ``δ₀`` is the ``release_delta`` given to :meth:`spend`, or
      else the δ the Gaussian was calibrated to (``Gaussian.delta``); without
      either, basic composition does not apply to it (and a ``"basic"``
      ledger refuses it). A DP-SGD run is charged its PLD ε at ``δ₀``. An
      :class:`~dpcore.accounting.events.ApproxDP` event is charged its ``(ε, δ)``
      (its ε at a ``release_delta`` δ₀ ≥ δ; ``inf`` below δ, where it states nothing).
    * ``"rdp"``: RDP curves add up order by order (Mironov 2017, Prop. 1); the
      ε is the sum converted at the budget's δ (Balle et al. 2020
      conversion, :func:`~dpcore.accounting.rdp.rdp_to_dp`).
    * ``"zcdp"``: the ρ's add up (pure releases: ``ε₀²/2``; Gaussian:
      ``Δ²/(2σ²)``), converted at the budget's δ (Canonne, Kamath, Steinke 2020).
    * ``"exact"`` (in ``"best"``), when every release is Gaussian: together
      they are exactly μ-GDP with ``μ² = Σ μ_i²`` (Dong, Roth, Su 2019,
      Corollary 3.3), converted at the budget's δ (Corollary 2.13).

    An :class:`~dpcore.accounting.events.ApproxDP` event has no RDP curve, zCDP ρ
    or μ: while the ledger holds one, ``"rdp"``, ``"zcdp"`` and ``"exact"`` do
    not apply (as ``"exact"`` does not while a release is not Gaussian), and
    every method charges by basic composition, the one bound valid for it.

    Under ``"rdp"``, ``"zcdp"`` and ``"exact"`` δ is not consumed release by
    release: the budget's δ is the δ at which ε is measured, so a charge by
    them reports the budget's δ.

    Neighbouring relations: the budget holds under one relation and unit of
    privacy (``relation``, ``unit``), and so does every cost the ledger adds.
    Each release says under which its own guarantee holds
    (:func:`~dpcore.accounting.per_release.relation_of`: add/remove one record
    for Laplace, Gaussian and DP-SGD, replace one record for the local
    mechanisms, a ``PureDP`` event's own), unless the caller states it
    (``relation=``, ``unit=`` of :meth:`spend`). A release under another
    relation or unit is converted when its guarantee gives one under the
    ledger's (:func:`dpcore.neighbours.conversion`: one step of the ledger's
    relation is ``k`` steps of the release's), and refused with
    :class:`~dpcore.neighbours.RelationError` (a ``ValueError``, one sentence)
    when it does not: a replace-one release under an add/remove ledger, a
    record-level release under a client-level ledger, or under a person-level
    one without a declared bound on rows per person. Units of privacy:

    * one person, in a record-level ledger: ``k = 2`` under add/remove (remove
      the record's person, add them back changed), ``k = 4`` under replace one;
    * one record, in a person-level ledger, with ``rows_per_person=m``
      declared: ``k = m`` under add/remove (a person is at most ``m`` records),
      ``2m`` under replace one; refused without ``m``;
    * a client and a person: refused both ways (different units).

    Each entry keeps the rule that converted it (:attr:`LedgerEntry.conversion`),
    and :meth:`by_unit` totals the entries per unit. Converted, a Laplace or
    Gaussian release is accounted as the same noise at ``k`` times its
    sensitivity, any other pure ε-DP release as ``kε``-DP (Dwork & Roth 2014,
    Theorem 2.2), and a DP-SGD run by group privacy: ``(kε, δ·Σ_{i<k} e^{iε})`` at
    its per-release δ under basic accounting, ``k²ρ`` under zCDP (Bun & Steinke
    2016, Proposition 1.9) and the RDP curve ``k²ρα`` of that zCDP under RDP (its
    own, amplified curve has no group version here).

    Every accounting above is a sum over the releases (of ε's and δ's, RDP
    curves, ρ's, μ²'s) converted at the end, so the ledger keeps each sum as a
    running total, updated by each spend: :meth:`charge`, :meth:`spend` and
    :meth:`can_spend` cost the same with two thousand entries as with none.
    What each release adds is computed once, when it is recorded, and so is
    each entry's own cost (:meth:`entry_cost`); :meth:`remove` and
    :meth:`reset` sum again from those. :meth:`cost` computes any entries'
    cost from scratch.

    Parameters
    ----------
    epsilon : float
        Total ε, in (0, inf).
    delta : float
        Total δ, in (0, 1).
    method : {"best", "basic", "rdp", "zcdp"}, default "basic"
        The accountings to take the minimum over (:data:`LEDGER_ACCOUNTINGS`).
    orders : array_like of float, default DEFAULT_ORDERS
        RDP orders, each in (1, inf).
    max_entries : int, optional
        The most entries the ledger holds, in [1, inf); a spend beyond it is
        refused with :class:`LedgerFullError` (a ``ValueError``). Default: no limit.
    relation : NeighbouringRelation, default ADD_REMOVE
        The neighbouring relation the budget holds under.
    unit : {"record", "client", "person"}, default "record"
        The unit of privacy the budget holds for.

    Examples
    --------
    >>> from dpcore.laplace import Laplace
    >>> ledger = BudgetLedger(1.0, 1e-6)
    >>> ledger.spend(Laplace(scale=2.0), count=2, label="two counts").spent()
    Budget(epsilon=1.0, delta=0.0)
    >>> ledger.can_spend(Laplace(scale=2.0))
    False

    Under replace one record, an add/remove release counts twice its ε:

    >>> from dpcore.neighbours import REPLACE_ONE
    >>> BudgetLedger(5.0, 1e-6, relation=REPLACE_ONE).spend(Laplace.from_epsilon(2.5)).spent()
    Budget(epsilon=5.0, delta=0.0)

    Per person, a record-level count counts as ``m`` records when one person has at most ``m`` rows:

    >>> people = BudgetLedger(5.0, 1e-6, unit="person")
    >>> people.spend(Laplace.from_epsilon(0.5), rows_per_person=3).spent()
    Budget(epsilon=1.5, delta=0.0)
    >>> people.entries[0].conversion.group
    3
    """

    def __init__(
        self,
        epsilon: float,
        delta: float,
        method: str = "basic",
        *,
        orders=DEFAULT_ORDERS,
        max_entries: int | None = None,
        relation: NeighbouringRelation = ADD_REMOVE,
        unit: str = UNIT_RECORD,
    ):
        self._epsilon = check_epsilon(epsilon)
        self._delta = check_delta(delta)
        self._method = check_choice(method, "method", LEDGER_METHODS)
        self._relation = check_relation(relation)
        self._unit = check_unit(unit)
        orders = as_orders(orders).copy()
        orders.setflags(write=False)
        self._orders = orders
        self._max_entries = None if max_entries is None else check_int(max_entries, "max_entries", minimum=1)
        self._entries: list[LedgerEntry] = []
        self._units: list[_PerRelease] = []  # what one release of each entry adds to each accounting
        self._own: list[Charge] = []  # each entry's cost on its own
        self._totals = _Totals()
        self._charge = Charge(0.0, 0.0, "")  # what the totals cost

    # ------------------------------------------------------------------ configuration (read-only)
    @property
    def epsilon(self) -> float:
        """The total ε of the budget."""
        return self._epsilon

    @property
    def delta(self) -> float:
        """The total δ of the budget."""
        return self._delta

    @property
    def method(self) -> str:
        """The accounting method: "best", "basic", "rdp" or "zcdp" (see :data:`LEDGER_ACCOUNTINGS`)."""
        return self._method

    @property
    def budget(self) -> Budget:
        """``(ε, δ)`` of the budget."""
        return Budget(self._epsilon, self._delta)

    @property
    def max_entries(self) -> int | None:
        """The most entries the ledger holds (None: no limit)."""
        return self._max_entries

    @property
    def relation(self) -> NeighbouringRelation:
        """The neighbouring relation the budget, and every cost charged to it, holds under."""
        return self._relation

    @property
    def unit(self) -> str:
        """The unit of privacy the budget holds for: "record", "client" or "person"."""
        return self._unit

    @property
    def entries(self) -> tuple[LedgerEntry, ...]:
        """The recorded spends, oldest first (a copy: the ledger cannot be changed through it)."""
        return tuple(self._entries)

    def __repr__(self) -> str:
        cap = "" if self._max_entries is None else f", max_entries={self._max_entries!r}"
        return (
            f"BudgetLedger(epsilon={self._epsilon!r}, delta={self._delta!r}, method={self._method!r}{cap}, "
            f"relation={self._relation.name}, unit={self._unit!r}, entries={len(self._entries)})"
        )

    # ------------------------------------------------------------------ accounting
    def _entry(
        self, mechanism, count, label, release_delta, relation=None, unit=None, rows_per_person=None
    ) -> LedgerEntry:
        accounted = accountable(mechanism)
        count = check_int(count, "count", minimum=1)
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}")
        own_relation, own_unit = relation_of(mechanism)
        own_relation = own_relation if relation is None else check_relation(relation)
        own_unit = own_unit if unit is None else check_unit(unit)
        if rows_per_person is not None:
            rows_per_person = check_int(rows_per_person, "rows_per_person", minimum=1)
        where = (own_relation, own_unit, rows_per_person)
        self._conversion(*where)  # RelationError if the release's guarantee gives none here
        if accounting_for(accounted).pure_epsilon(accounted) is not None:
            return LedgerEntry(mechanism, count, label, None, *where)
        if release_delta is not None:
            release_delta = check_delta(release_delta, "release_delta")
        elif getattr(accounted, "delta", None) is not None:
            release_delta = float(accounted.delta)
        elif LEDGER_ACCOUNTINGS[self._method] == ("basic",):
            raise ValueError(
                "release_delta must be given (in (0, 1)) for a Gaussian without a calibrated delta under basic "
                "accounting, got None"
            )
        return LedgerEntry(mechanism, count, label, release_delta, *where)

    def _conversion(self, relation: NeighbouringRelation, unit: str, rows_per_person: int | None) -> Conversion:
        """How a guarantee under ``relation`` and ``unit`` gives one under the ledger's: ``k`` steps (or refuse)."""
        return conversion(
            from_relation=relation,
            to_relation=self._relation,
            from_unit=unit,
            to_unit=self._unit,
            rows_per_person=rows_per_person,
        )

    def cost(self, entries) -> Charge:
        """The (ε, δ) that ``entries`` (a sequence of :class:`LedgerEntry`) cost together, and by which accounting.

        The smallest ε, among the accountings of this ledger's method that
        apply, whose δ fits the budget (see the class notes); an ε of ``inf``
        when none does. Computed from scratch, entry by entry (what the
        running totals behind :meth:`charge` must always equal).
        """
        entries = tuple(entries)
        return self._charge_of(_Totals().plus((self._per_release(e), e.count) for e in entries))

    def _per_release(self, entry: LedgerEntry) -> _PerRelease:
        """What one release of ``entry`` adds to each accounting of the ledger's method, under the ledger's relation."""
        m = accountable(entry.mechanism)
        group = self._conversion(entry.relation, entry.unit, entry.rows_per_person).group
        if group > 1:
            stand_in = accounting_for(m).for_group(m, group)  # the same noise at k times the sensitivity, or kε
            if stand_in is not None:
                m, group = accountable(stand_in), 1
        how = accounting_for(m)
        accountings = LEDGER_ACCOUNTINGS[self._method]
        pure = how.pure_epsilon(m)
        if pure is not None:
            epsilon, delta = pure, 0.0
        elif entry.release_delta is None:
            epsilon, delta = None, 0.0  # no per-release δ: basic composition does not apply
        else:
            epsilon, delta = float(release_epsilon(m, entry.release_delta)[()]), entry.release_delta
            if group > 1 and math.isfinite(epsilon):  # an infinite ε is no guarantee to convert
                # a group of k steps: (kε, δ Σ_{i<k} e^{iε}), chaining the definition (dpcore.neighbours.convert);
                # a (0, δ) guarantee is also one at the smallest positive ε, which convert takes
                epsilon, delta = convert(
                    (max(epsilon, math.ulp(0.0)), delta),
                    from_relation=entry.relation,
                    to_relation=self._relation,
                    from_unit=entry.unit,
                    to_unit=self._unit,
                    rows_per_person=entry.rows_per_person,
                )
        renyi = "rdp" in how.methods and "zcdp" in how.methods  # an ApproxDP event has neither
        if not renyi:
            rdp = rho = mu = None  # RDP and zCDP do not apply to a total holding it (_rdp, _zcdp), nor μ-GDP
        elif group == 1:
            rdp = release_rdp(m, self._orders) if "rdp" in accountings else None
            rho = release_rho(m) if "zcdp" in accountings else None
            mu = how.gdp_mu(m) if "exact" in accountings else None
        else:
            # a DP-SGD run under another relation: zCDP's group privacy, k²ρ (Bun & Steinke 2016, Prop. 1.9); being
            # k²ρ-zCDP is having the RDP curve k²ρ·α at every order α (their Definition 1.1), its curve here
            rho = group * group * release_rho(m)
            rdp = rho * self._orders if "rdp" in accountings else None
            rho = rho if "zcdp" in accountings else None
            mu = None
        return _PerRelease(epsilon, delta, rdp, rho, mu, renyi)

    def _charge_of(self, totals: _Totals) -> Charge:
        """The tightest fitting (ε, δ) of some totals, and every accounting's that applies."""
        if not totals.entries:
            return Charge(0.0, 0.0, "")
        candidates = []
        for accounting in LEDGER_ACCOUNTINGS[self._method]:
            bound = getattr(self, f"_{accounting}")(totals)
            if bound is not None:
                candidates.append((accounting, bound))
        if not candidates:  # a Gaussian without a per-release δ beside an ApproxDP event: no accounting applies
            return Charge(math.inf, 0.0, "")
        fitting = [(b.epsilon, b.delta, a) for a, b in candidates if b.delta <= self._delta * (1 + _RELATIVE_SLACK)]
        if not fitting:
            return Charge(math.inf, min(b.delta for _, b in candidates), candidates[0][0], tuple(candidates))
        eps, delta, accounting = min(fitting)
        return Charge(eps, delta, accounting, tuple(candidates))

    def _basic(self, totals: _Totals) -> Budget | None:
        # the (ε_i, δ_i) add up (Dwork & Roth 2014, Theorem 3.16), when every release has one
        return Budget(totals.basic_epsilon, totals.basic_delta) if totals.basic_applies else None

    def _rdp(self, totals: _Totals) -> Budget | None:
        if not totals.renyi_applies:
            return None
        return Budget(rdp_to_dp(self._orders, totals.rdp, self._delta, warn=False)[0], self._delta)

    def _zcdp(self, totals: _Totals) -> Budget | None:
        if not totals.renyi_applies:
            return None
        return Budget(float(zcdp_to_dp(totals.rho, self._delta)), self._delta)

    def _exact(self, totals: _Totals) -> Budget | None:
        if not totals.all_gaussian:
            return None
        return Budget(float(gdp_epsilon(math.sqrt(totals.mu2), self._delta)), self._delta)

    def _fits(self, cost) -> bool:
        return cost.epsilon <= self._epsilon * (1 + _RELATIVE_SLACK) and cost.delta <= self._delta * (
            1 + _RELATIVE_SLACK
        )

    def spent(self) -> Budget:
        """``(ε, δ)`` spent so far under the ledger's method (see :meth:`charge` for which accounting gave it)."""
        return self._charge.budget

    def charge(self) -> Charge:
        """What everything recorded costs together: the (ε, δ), the accounting that gave it, and the others'."""
        return self._charge

    def entry_cost(self, index: int) -> Charge:
        """What the entry at ``index`` costs on its own (its own ε and δ, tightest accounting), under the ledger's
        relation and unit (converted when the release's differ; :attr:`LedgerEntry.cost` holds the same)."""
        index = check_int(index, "index", minimum=0, maximum=len(self._entries) - 1)
        return self._own[index]

    def entry_costs(self) -> tuple[Charge, ...]:
        """What each entry costs on its own, oldest first (:meth:`entry_cost` of every index)."""
        return tuple(self._own)

    def by_unit(self) -> tuple[UnitTotal, ...]:
        """The entries grouped by their own unit of privacy: what each group costs together, and how it was converted.

        One :class:`UnitTotal` per unit among the entries, in the order each first appears. Each charge is
        under the ledger's relation and unit, by the ledger's method over that group's entries alone (from the
        terms computed when they were recorded). The groups' charges need not add up to :meth:`charge`: RDP,
        zCDP and exact composition count releases together for less than apart; basic composition adds up.
        """
        groups: dict[str, list[int]] = {}
        for index, entry in enumerate(self._entries):
            groups.setdefault(entry.unit, []).append(index)
        totals = []
        for unit, indices in groups.items():
            entries = [self._entries[i] for i in indices]
            rules = [e.conversion for e in entries if e.converted]
            totals.append(
                UnitTotal(
                    unit,
                    len(entries),
                    sum(e.count for e in entries),
                    self._charge_of(_Totals().plus((self._units[i], self._entries[i].count) for i in indices)),
                    tuple(dict.fromkeys(rules)),
                )
            )
        return tuple(totals)

    def remove(self, index: int) -> LedgerEntry:
        """Forget the entry at ``index`` (oldest is 0) and return it: the releases it stood for are not undone,
        so use this to correct a recording, not to free budget already spent in public."""
        index = check_int(index, "index", minimum=0, maximum=len(self._entries) - 1)
        del self._units[index], self._own[index]
        removed = self._entries.pop(index)
        self._resum()
        return removed

    def _resum(self) -> None:
        """Sum every accounting again over the entries kept (after a removal: a sum cannot be undone exactly)."""
        self._totals = _Totals().plus(zip(self._units, (e.count for e in self._entries)))
        self._charge = self._charge_of(self._totals)

    def remaining(self) -> Budget:
        """Budget minus spent, each at least 0.

        Under "rdp" and "zcdp" costs do not add up: the remaining ε is
        headroom, not the ε of a further release that would fit (use
        :meth:`can_spend` or :meth:`max_count`).
        """
        spent = self.spent()
        return Budget(max(0.0, self._epsilon - spent.epsilon), max(0.0, self._delta - spent.delta))

    def can_spend(
        self,
        mechanism,
        count: int = 1,
        *,
        release_delta: float | None = None,
        relation: NeighbouringRelation | None = None,
        unit: str | None = None,
        rows_per_person: int | None = None,
    ) -> bool:
        """Whether :meth:`spend` would accept ``count`` releases of ``mechanism`` (False also when it would refuse
        their relation or unit, or the ledger is full; :meth:`spend` says why)."""
        try:
            entries = [self._entry(mechanism, count, "", release_delta, relation, unit, rows_per_person)]
        except RelationError:
            return False
        return self._accepts(entries)

    def can_spend_all(
        self,
        mechanisms,
        count: int = 1,
        *,
        release_delta: float | None = None,
        relation: NeighbouringRelation | None = None,
        unit: str | None = None,
        rows_per_person: int | None = None,
    ) -> bool:
        """Whether :meth:`spend_all` would accept these releases together (False also when it would refuse their
        relation or unit)."""
        try:
            entries = self._entries_for(mechanisms, count, "", release_delta, relation, unit, rows_per_person)
        except RelationError:
            return False
        return self._accepts(entries)

    def _full(self, adding: int) -> bool:
        return self._max_entries is not None and len(self._entries) + adding > self._max_entries

    def _accepts(self, entries: list[LedgerEntry]) -> bool:
        if self._full(len(entries)):
            return False
        return self._fits(self._charge_of(self._totals.plus((self._per_release(e), e.count) for e in entries)))

    def spend(
        self,
        mechanism,
        count: int = 1,
        label: str = "",
        *,
        release_delta: float | None = None,
        relation: NeighbouringRelation | None = None,
        unit: str | None = None,
        rows_per_person: int | None = None,
    ) -> BudgetLedger:
        """Record ``count`` releases of ``mechanism``, or refuse them if they would exceed the budget.

        Parameters
        ----------
        mechanism : Laplace, Gaussian, GRR, SUE, OUE, LDPMean, PureDP, ApproxDP or PoissonSampledGaussian
            The release; any other ε-DP release is a :class:`~dpcore.accounting.events.PureDP`, any other
            (ε, δ)-DP release known by its pair alone an :class:`~dpcore.accounting.events.ApproxDP`.
        count : int, default 1
            Number of releases, in [1, inf).
        label : str, default ""
        release_delta : float, optional
            Per-release δ charged for a Gaussian, a DP-SGD run or an ApproxDP event under "basic", in (0, 1);
            default ``mechanism.delta``. Ignored for a pure release.
        relation : NeighbouringRelation, optional
            The relation the release's guarantee holds under, when not its
            kind's (:func:`~dpcore.accounting.per_release.relation_of`): a
            Laplace histogram calibrated to replace-one sensitivity 2 is
            ``REPLACE_ONE``.
        unit : {"record", "client", "person"}, optional
            The unit of privacy of the release's guarantee, when not its
            kind's (``"record"``): a client-level DP-FedAvg run is ``"client"``,
            a count calibrated to one person's bounded contribution ``"person"``.
        rows_per_person : int, optional
            The declared most rows of one person, in [1, inf): a record-level
            release charged to a person-level ledger counts as a group of that
            many records (:func:`dpcore.neighbours.conversion`); without it,
            such a release is refused. A fact the release must have enforced
            (or that holds by construction), stated by the caller, never read
            from the data here.

        Returns
        -------
        BudgetLedger
            ``self``, so that spends can be chained.

        Raises
        ------
        BudgetError
            If the spend would exceed the budget; the ledger is unchanged.
        LedgerFullError
            If the ledger already holds ``max_entries`` entries; the ledger is unchanged.
        RelationError
            If the release's guarantee gives none under the ledger's relation and
            unit (a ``ValueError``, one sentence); the ledger is unchanged.
        """
        entry = self._entry(mechanism, count, label, release_delta, relation, unit, rows_per_person)
        return self._record([entry], label)

    def spend_all(
        self,
        mechanisms,
        label: str = "",
        *,
        count: int = 1,
        release_delta: float | None = None,
        relation: NeighbouringRelation | None = None,
        unit: str | None = None,
        rows_per_person: int | None = None,
    ) -> BudgetLedger:
        """Record several releases together, all or nothing: ``count`` of each of ``mechanisms``.

        For a result made of several releases (a mean is a noisy sum and a
        noisy count): either every one fits in the budget and all are
        recorded, or :class:`BudgetError` is raised and none is.

        Parameters
        ----------
        mechanisms : sequence
            The releases (as in :meth:`spend`), at least one.
        label : str or sequence of str, default ""
            The label of every entry, or one label per release (a mean's "sum" and "count" parts).
        count : int, default 1
            Number of releases of each, in [1, inf).
        release_delta : float, optional
            As in :meth:`spend`, for every Gaussian among them.
        relation, unit, rows_per_person : optional
            As in :meth:`spend`, for every one of them (default: each its kind's).

        Returns
        -------
        BudgetLedger
            ``self``.

        Raises
        ------
        BudgetError
            If they would exceed the budget together; the ledger is unchanged.
        LedgerFullError
            If they would bring the ledger past ``max_entries`` entries; the ledger is unchanged.
        RelationError
            If one of them has a guarantee that gives none under the ledger's relation and unit; the ledger is
            unchanged.

        Examples
        --------
        >>> from dpcore.laplace import Laplace
        >>> ledger = BudgetLedger(1.0, 1e-6)
        >>> ledger.spend_all([Laplace(scale=2.0), Laplace(scale=2.0)], label="a mean").spent().epsilon
        1.0
        >>> ledger.spend_all([Laplace(scale=10.0), Laplace(scale=10.0)])
        Traceback (most recent call last):
        ...
        dpcore.accounting.ledger.BudgetError: spend refused (basic accounting, basic composition being the tightest): ...
        """
        entries = self._entries_for(mechanisms, count, label, release_delta, relation, unit, rows_per_person)
        return self._record(entries, label if isinstance(label, str) else "; ".join(map(str, label)))

    def _entries_for(
        self, mechanisms, count, label, release_delta, relation=None, unit=None, rows_per_person=None
    ) -> list[LedgerEntry]:
        if isinstance(mechanisms, (str, bytes)) or not hasattr(mechanisms, "__iter__"):
            raise TypeError(f"mechanisms must be a sequence of releases, got {type(mechanisms).__name__}")
        mechanisms = list(mechanisms)
        labels = [label] * len(mechanisms) if isinstance(label, str) else list(label)
        if len(labels) != len(mechanisms):
            raise ValueError(f"label must be a str or one str per release ({len(mechanisms)}), got {len(labels)}")
        entries = [
            self._entry(m, count, text, release_delta, relation, unit, rows_per_person)
            for m, text in zip(mechanisms, labels)
        ]
        if not entries:
            raise ValueError("mechanisms must contain at least one release, got none")
        return entries

    def _record(self, entries: list[LedgerEntry], label: str) -> BudgetLedger:
        """Append ``entries`` if they fit together, else raise :class:`BudgetError` (or :class:`LedgerFullError`)
        and append nothing."""
        if self._full(len(entries)):
            raise LedgerFullError(self._max_entries, len(self._entries) + len(entries))
        units = [(self._per_release(e), e.count) for e in entries]
        totals = self._totals.plus(units)
        after = self._charge_of(totals)
        if not self._fits(after):
            raise BudgetError(
                method=self._method,
                budget=self.budget,
                spent=self.spent(),
                asked=self._charge_of(_Totals().plus(units)),
                total=after,
                releases=sum(e.count for e in entries),
                label=label,
                relation=self._relation,
                unit=self._unit,
            )
        own = [self._charge_of(_Totals().plus([release])) for release in units]
        self._entries.extend(
            replace(entry, cost=cost, conversion=self._conversion(entry.relation, entry.unit, entry.rows_per_person))
            for entry, cost in zip(entries, own)
        )
        self._units.extend(unit for unit, _ in units)
        self._own.extend(own)
        self._totals, self._charge = totals, after
        return self

    def max_count(
        self,
        mechanism,
        *,
        release_delta: float | None = None,
        limit: int = 10**9,
        relation: NeighbouringRelation | None = None,
        unit: str | None = None,
        rows_per_person: int | None = None,
    ) -> int:
        """The largest number of further releases of ``mechanism`` that fit (0 if none, at most ``limit``; 0 also
        when the ledger refuses their relation or unit)."""
        limit = check_int(limit, "limit", minimum=1)
        try:
            entry = self._entry(mechanism, 1, "", release_delta, relation, unit, rows_per_person)
        except RelationError:
            return 0
        one = self._per_release(entry)  # what one release adds, once

        def fits(count: int) -> bool:  # can_spend(mechanism, count), but without recomputing the release's terms
            return not self._full(1) and self._fits(self._charge_of(self._totals.plus([(one, count)])))

        if not fits(1):
            return 0
        lo, hi = 1, 2
        while hi <= limit and fits(hi):
            lo, hi = hi, hi * 2
        hi = min(hi, limit + 1)
        while hi - lo > 1:  # lo fits, hi does not (or is past the limit)
            mid = (lo + hi) // 2
            if fits(mid):
                lo = mid
            else:
                hi = mid
        return lo

    def reset(self) -> None:
        """Forget every spend (the budget and method stay)."""
        self._entries.clear()
        self._units.clear()
        self._own.clear()
        self._resum()
