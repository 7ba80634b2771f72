"""A per-session privacy budget ledger that refuses to overspend.

The app keeps one :class:`BudgetLedger` per session (in ``st.session_state``);
there is no module-level ledger and no shared state, so two ledgers never
interfere. The design follows diffprivlib's ``BudgetAccountant.spend`` (which
raises before overspending) and dp_accounting's ``compose(event, count)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from dpcore.accounting._numerics import as_orders
from dpcore.accounting.per_release import accountable, mechanism_kind, release_epsilon, release_rdp, release_rho
from dpcore.accounting.rdp import DEFAULT_ORDERS, rdp_to_dp
from dpcore.accounting.zcdp import zcdp_to_dp
from dpcore.validation import check_choice, check_delta, check_epsilon, check_int

__all__ = ["LEDGER_METHODS", "Budget", "LedgerEntry", "BudgetLedger"]

#: Accounting methods a ledger can use.
LEDGER_METHODS = ("basic", "rdp", "zcdp")

# relative slack when comparing a cost with the budget, so that spending the
# budget exactly (for example ten releases of ε/10) is not refused for rounding
_RELATIVE_SLACK = 1e-9


class Budget(NamedTuple):
    """An (ε, δ) pair: spent, remaining, or the cost of some releases."""

    epsilon: float
    delta: float


@dataclass(frozen=True)
class LedgerEntry:
    """One recorded spend: ``count`` releases of ``mechanism``.

    Attributes
    ----------
    mechanism : Laplace, Gaussian or GRR
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

    ``spend`` computes the cost of every recorded release plus the new one
    under the method and raises ``ValueError`` *before recording anything* if
    that would exceed the budget; nothing is released without being paid for.

    How releases are charged, by method:

    * ``"basic"``: the (ε_i, δ_i) of each release add up (Dwork & Roth 2014,
      Theorem 3.16). Laplace and GRR are pure: ``(ε₀, 0)``. A Gaussian is
      charged ``(ε(δ₀), δ₀)``, its exact ε at a per-release ``δ₀`` (Balle &
      Wang 2018): ``δ₀`` is the ``release_delta`` given to :meth:`spend`, or
      else the δ the Gaussian was calibrated to (``Gaussian.delta``); a
      Gaussian with neither is refused.
    * ``"rdp"``: RDP curves add up order by order (Mironov 2017, Prop. 1); the
      ε spent is the sum converted at the budget's δ (Balle et al. 2020
      conversion, :func:`~dpcore.accounting.rdp.rdp_to_dp`).
    * ``"zcdp"``: the ρ's add up (Laplace and GRR: ``ε₀²/2``; Gaussian:
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
        mechanism = accountable(mechanism)
        kind = mechanism_kind(mechanism)
        count = check_int(count, "count", minimum=1)
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}")
        if kind != "gaussian":
            return LedgerEntry(mechanism, count, label, None)
        if release_delta is not None:
            release_delta = check_delta(release_delta, "release_delta")
        elif getattr(mechanism, "delta", None) is not None:
            release_delta = float(mechanism.delta)
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
        if self._method == "basic":
            eps = delta = 0.0
            for e in entries:
                if e.release_delta is None:
                    eps += e.count * float(release_epsilon(e.mechanism, 1.0)[()])  # pure: δ irrelevant
                else:
                    eps += e.count * float(release_epsilon(e.mechanism, e.release_delta)[()])
                    delta += e.count * e.release_delta
            return Budget(eps, delta)
        if self._method == "rdp":
            rdp = sum(e.count * release_rdp(e.mechanism, self._orders) for e in entries)
            return Budget(rdp_to_dp(self._orders, rdp, self._delta, warn=False)[0], self._delta)
        rho = sum(e.count * release_rho(e.mechanism) for e in entries)
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

    def spend(self, mechanism, count: int = 1, label: str = "", *, release_delta: float | None = None) -> BudgetLedger:
        """Record ``count`` releases of ``mechanism``, or refuse them if they would exceed the budget.

        Parameters
        ----------
        mechanism : Laplace, Gaussian or GRR
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
        ValueError
            If the spend would exceed the budget; the ledger is unchanged.
        """
        entry = self._entry(mechanism, count, label, release_delta)
        before = self.spent()
        after = self.cost(self._entries + [entry])
        if not self._fits(after):
            asked = self.cost([entry])
            raise ValueError(
                f"spend refused ({self._method} accounting): budget is epsilon={self._epsilon:.6g}, "
                f"delta={self._delta:.3g}; spent so far epsilon={before.epsilon:.6g}, delta={before.delta:.3g}; "
                f"asked epsilon={asked.epsilon:.6g}, delta={asked.delta:.3g} for {entry.count} release(s)"
                f"{' (' + label + ')' if label else ''}, which would bring the total to "
                f"epsilon={after.epsilon:.6g}, delta={after.delta:.3g}"
            )
        self._entries.append(entry)
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
