"""A per-session privacy budget ledger that refuses to overspend.

The app keeps one :class:`BudgetLedger` per session (in ``st.session_state``);
there is no module-level ledger and no shared state, so two ledgers never
interfere. The design follows diffprivlib's ``BudgetAccountant.spend`` (which
raises before overspending) and dp_accounting's ``compose(event, count)``.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorem 3.16 (basic composition). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Mironov (2017), "Rényi Differential Privacy", CSF, Propositions 1 and 3. https://arxiv.org/abs/1702.07476
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS,
  Section 2.3, Proposition 12 and Corollary 13. https://arxiv.org/abs/2004.00010
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising", ICML, Theorem 8. https://arxiv.org/abs/1805.06530
- IBM diffprivlib, ``BudgetAccountant``; Google dp_accounting, ``PrivacyAccountant.compose``.
  https://github.com/IBM/differential-privacy-library https://github.com/google/differential-privacy
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from dpcore.accounting._numerics import as_orders
from dpcore.accounting.per_release import accountable, accounting_for, release_epsilon, release_rdp, release_rho
from dpcore.accounting.rdp import DEFAULT_ORDERS, rdp_to_dp
from dpcore.accounting.zcdp import zcdp_to_dp
from dpcore.validation import check_choice, check_delta, check_epsilon, check_int

__all__ = ["LEDGER_METHODS", "Budget", "LedgerEntry", "BudgetError", "BudgetLedger"]

#: Accounting methods a ledger can use.
LEDGER_METHODS = ("basic", "rdp", "zcdp")

# relative slack when comparing a cost with the budget, so that spending the
# budget exactly (for example ten releases of ε/10) is not refused for rounding
_RELATIVE_SLACK = 1e-9


class Budget(NamedTuple):
    """An (ε, δ) pair: spent, remaining, or the cost of some releases."""

    epsilon: float
    delta: float


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
    asked : Budget
        What the refused releases cost on their own.
    total : Budget
        What everything would have cost together: above the budget.
    releases : int
        How many releases were asked for.
    label : str
        The label given to the refused spend.
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
    ):
        self.method, self.budget, self.spent, self.asked, self.total = method, budget, spent, asked, total
        self.releases, self.label = releases, label
        super().__init__(
            f"spend refused ({method} accounting): budget is epsilon={budget.epsilon:.6g}, "
            f"delta={budget.delta:.3g}; spent so far epsilon={spent.epsilon:.6g}, delta={spent.delta:.3g}; "
            f"asked epsilon={asked.epsilon:.6g}, delta={asked.delta:.3g} for {releases} release(s)"
            f"{' (' + label + ')' if label else ''}, which would bring the total to "
            f"epsilon={total.epsilon:.6g}, delta={total.delta:.3g}"
        )


@dataclass(frozen=True)
class LedgerEntry:
    """One recorded spend: ``count`` releases of ``mechanism``.

    Attributes
    ----------
    mechanism : Laplace, Gaussian, GRR, SUE, OUE, LDPMean or PureDP
        The release as it was spent (SUE, OUE, LDPMean and PureDP are charged
        as binary randomized response at their ε).
    count : int
        Number of releases, in [1, inf).
    label : str
        What the releases were, for the app's table.
    release_delta : float or None
        The δ each Gaussian release is charged under basic accounting (None
        for pure mechanisms).
    """

    mechanism: object
    count: int
    label: str = ""
    release_delta: float | None = None


class BudgetLedger:
    """A total (ε, δ) budget, an accounting method, and the releases charged to it.

    ``spend`` (one kind of release) and ``spend_all`` (several together, all or
    nothing) compute the cost of every recorded release plus the new ones
    under the method and raise :class:`BudgetError` (a ``ValueError``) *before
    recording anything* if that would exceed the budget; nothing is released
    without being paid for.

    How releases are charged, by method:

    * ``"basic"``: the (ε_i, δ_i) of each release add up (Dwork & Roth 2014,
      Theorem 3.16). Laplace, GRR and every pure ε-DP release (SUE, OUE,
      LDPMean, :class:`~dpcore.accounting.events.PureDP`) are pure: ``(ε₀, 0)``. A Gaussian is
      charged ``(ε(δ₀), δ₀)``, its exact ε at a per-release ``δ₀`` (Balle &
      Wang 2018): ``δ₀`` is the ``release_delta`` given to :meth:`spend`, or
      else the δ the Gaussian was calibrated to (``Gaussian.delta``); a
      Gaussian with neither is refused.
    * ``"rdp"``: RDP curves add up order by order (Mironov 2017, Prop. 1); the
      ε spent is the sum converted at the budget's δ (Balle et al. 2020
      conversion, :func:`~dpcore.accounting.rdp.rdp_to_dp`).
    * ``"zcdp"``: the ρ's add up (pure releases: ``ε₀²/2``; Gaussian:
      ``Δ²/(2σ²)``), converted at the budget's δ (Canonne, Kamath, Steinke 2020).

    Under ``"rdp"`` and ``"zcdp"`` δ is not consumed release by release: the
    whole budget δ is the δ at which ε is measured, so :meth:`spent` reports
    the budget δ as soon as anything is spent. The methods are not mixed: a
    zCDP ledger charges a single Laplace release more than its ε₀ (that is
    the price of that accounting, and the explorer shows it).

    Parameters
    ----------
    epsilon : float
        Total ε, in (0, inf).
    delta : float
        Total δ, in (0, 1).
    method : {"basic", "rdp", "zcdp"}, default "basic"
    orders : array_like of float, default DEFAULT_ORDERS
        RDP orders for ``"rdp"``, each in (1, inf).

    Examples
    --------
    >>> from dpcore.laplace import Laplace
    >>> ledger = BudgetLedger(1.0, 1e-6)
    >>> ledger.spend(Laplace(scale=2.0), count=2, label="two counts").spent()
    Budget(epsilon=1.0, delta=0.0)
    >>> ledger.can_spend(Laplace(scale=2.0))
    False
    """

    def __init__(self, epsilon: float, delta: float, method: str = "basic", *, orders=DEFAULT_ORDERS):
        self._epsilon = check_epsilon(epsilon)
        self._delta = check_delta(delta)
        self._method = check_choice(method, "method", LEDGER_METHODS)
        orders = as_orders(orders).copy()
        orders.setflags(write=False)
        self._orders = orders
        self._entries: list[LedgerEntry] = []

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
        """The accounting method: "basic", "rdp" or "zcdp"."""
        return self._method

    @property
    def budget(self) -> Budget:
        """``(ε, δ)`` of the budget."""
        return Budget(self._epsilon, self._delta)

    @property
    def entries(self) -> tuple[LedgerEntry, ...]:
        """The recorded spends, oldest first (a copy: the ledger cannot be changed through it)."""
        return tuple(self._entries)

    def __repr__(self) -> str:
        return (
            f"BudgetLedger(epsilon={self._epsilon!r}, delta={self._delta!r}, method={self._method!r}, "
            f"entries={len(self._entries)})"
        )

    # ------------------------------------------------------------------ accounting
    def _entry(self, mechanism, count, label, release_delta) -> LedgerEntry:
        accounted = accountable(mechanism)
        count = check_int(count, "count", minimum=1)
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}")
        if accounting_for(accounted).pure_epsilon(accounted) is not None:
            return LedgerEntry(mechanism, count, label, None)
        if release_delta is not None:
            release_delta = check_delta(release_delta, "release_delta")
        elif getattr(accounted, "delta", None) is not None:
            release_delta = float(accounted.delta)
        elif self._method == "basic":
            raise ValueError(
                "release_delta must be given (in (0, 1)) for a Gaussian without a calibrated delta under basic "
                "accounting, got None"
            )
        return LedgerEntry(mechanism, count, label, release_delta)

    def cost(self, entries) -> Budget:
        """The (ε, δ) that ``entries`` (a sequence of :class:`LedgerEntry`) cost together under this ledger's method."""
        entries = tuple(entries)
        if not entries:
            return Budget(0.0, 0.0)
        releases = [(accountable(e.mechanism), e) for e in entries]
        if self._method == "basic":
            eps = delta = 0.0
            for m, e in releases:
                if e.release_delta is None:
                    eps += e.count * float(release_epsilon(m, 1.0)[()])  # pure: δ irrelevant
                else:
                    eps += e.count * float(release_epsilon(m, e.release_delta)[()])
                    delta += e.count * e.release_delta
            return Budget(eps, delta)
        if self._method == "rdp":
            rdp = sum(e.count * release_rdp(m, self._orders) for m, e in releases)
            return Budget(rdp_to_dp(self._orders, rdp, self._delta, warn=False)[0], self._delta)
        rho = sum(e.count * release_rho(m) for m, e in releases)
        return Budget(float(zcdp_to_dp(rho, self._delta)), self._delta)

    def _fits(self, cost: Budget) -> bool:
        return cost.epsilon <= self._epsilon * (1 + _RELATIVE_SLACK) and cost.delta <= self._delta * (
            1 + _RELATIVE_SLACK
        )

    def spent(self) -> Budget:
        """``(ε, δ)`` spent so far under the ledger's method."""
        return self.cost(self._entries)

    def remaining(self) -> Budget:
        """Budget minus spent, each at least 0.

        Under "rdp" and "zcdp" costs do not add up: the remaining ε is
        headroom, not the ε of a further release that would fit (use
        :meth:`can_spend` or :meth:`max_count`).
        """
        spent = self.spent()
        return Budget(max(0.0, self._epsilon - spent.epsilon), max(0.0, self._delta - spent.delta))

    def can_spend(self, mechanism, count: int = 1, *, release_delta: float | None = None) -> bool:
        """Whether :meth:`spend` would accept ``count`` releases of ``mechanism``."""
        entry = self._entry(mechanism, count, "", release_delta)
        return self._fits(self.cost(self._entries + [entry]))

    def can_spend_all(self, mechanisms, count: int = 1, *, release_delta: float | None = None) -> bool:
        """Whether :meth:`spend_all` would accept these releases together."""
        entries = self._entries_for(mechanisms, count, "", release_delta)
        return self._fits(self.cost(self._entries + entries))

    def spend(self, mechanism, count: int = 1, label: str = "", *, release_delta: float | None = None) -> BudgetLedger:
        """Record ``count`` releases of ``mechanism``, or refuse them if they would exceed the budget.

        Parameters
        ----------
        mechanism : Laplace, Gaussian, GRR, SUE, OUE, LDPMean or PureDP
            The release; any other ε-DP release is a :class:`~dpcore.accounting.events.PureDP`.
        count : int, default 1
            Number of releases, in [1, inf).
        label : str, default ""
        release_delta : float, optional
            Per-release δ charged for a Gaussian under "basic", in (0, 1);
            default ``mechanism.delta``. Ignored otherwise.

        Returns
        -------
        BudgetLedger
            ``self``, so that spends can be chained.

        Raises
        ------
        BudgetError
            If the spend would exceed the budget; the ledger is unchanged.
        """
        return self._record([self._entry(mechanism, count, label, release_delta)], label)

    def spend_all(
        self, mechanisms, label: str = "", *, count: int = 1, release_delta: float | None = None
    ) -> BudgetLedger:
        """Record several releases together, all or nothing: ``count`` of each of ``mechanisms``.

        For a result made of several releases (a mean is a noisy sum and a
        noisy count): either every one fits in the budget and all are
        recorded, or :class:`BudgetError` is raised and none is.

        Parameters
        ----------
        mechanisms : sequence
            The releases (as in :meth:`spend`), at least one.
        label : str, default ""
            The label of every entry.
        count : int, default 1
            Number of releases of each, in [1, inf).
        release_delta : float, optional
            As in :meth:`spend`, for every Gaussian among them.

        Returns
        -------
        BudgetLedger
            ``self``.

        Raises
        ------
        BudgetError
            If they would exceed the budget together; the ledger is unchanged.

        Examples
        --------
        >>> from dpcore.laplace import Laplace
        >>> ledger = BudgetLedger(1.0, 1e-6)
        >>> ledger.spend_all([Laplace(scale=2.0), Laplace(scale=2.0)], label="a mean").spent().epsilon
        1.0
        >>> ledger.spend_all([Laplace(scale=10.0), Laplace(scale=10.0)])
        Traceback (most recent call last):
        ...
        dpcore.accounting.ledger.BudgetError: spend refused (basic accounting): budget is epsilon=1, ...
        """
        return self._record(self._entries_for(mechanisms, count, label, release_delta), label)

    def _entries_for(self, mechanisms, count, label, release_delta) -> list[LedgerEntry]:
        if isinstance(mechanisms, (str, bytes)) or not hasattr(mechanisms, "__iter__"):
            raise TypeError(f"mechanisms must be a sequence of releases, got {type(mechanisms).__name__}")
        entries = [self._entry(m, count, label, release_delta) for m in mechanisms]
        if not entries:
            raise ValueError("mechanisms must contain at least one release, got none")
        return entries

    def _record(self, entries: list[LedgerEntry], label: str) -> BudgetLedger:
        """Append ``entries`` if they fit together, else raise :class:`BudgetError` and append nothing."""
        after = self.cost(self._entries + entries)
        if not self._fits(after):
            raise BudgetError(
                method=self._method,
                budget=self.budget,
                spent=self.spent(),
                asked=self.cost(entries),
                total=after,
                releases=sum(e.count for e in entries),
                label=label,
            )
        self._entries.extend(entries)
        return self

    def max_count(self, mechanism, *, release_delta: float | None = None, limit: int = 10**9) -> int:
        """The largest number of further releases of ``mechanism`` that fit (0 if none, at most ``limit``)."""
        limit = check_int(limit, "limit", minimum=1)
        if not self.can_spend(mechanism, 1, release_delta=release_delta):
            return 0
        lo, hi = 1, 2
        while hi <= limit and self.can_spend(mechanism, hi, release_delta=release_delta):
            lo, hi = hi, hi * 2
        hi = min(hi, limit + 1)
        while hi - lo > 1:  # lo fits, hi does not (or is past the limit)
            mid = (lo + hi) // 2
            if self.can_spend(mechanism, mid, release_delta=release_delta):
                lo = mid
            else:
                hi = mid
        return lo

    def reset(self) -> None:
        """Forget every spend (the budget and method stay)."""
        self._entries.clear()
