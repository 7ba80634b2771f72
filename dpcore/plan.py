"""A release plan: several statistics under one budget, split equally, by weights, or by the accuracy each needs.

A :class:`Plan` is data-independent: the unit of privacy (:class:`~dpcore.contributions.PrivacyUnit`), the declared
public facts of each statistic (clipping bounds, histogram bins, category domains and group keys, the planned or
public number of records of a mean, a quantile's range and resolution), the total (ε, δ), and a split policy.
:func:`allocate` turns it into an :class:`Allocation`: each statistic's share of the budget, its noise, and its
expected error at the plan's confidence, all from the plan alone (nothing here reads data; the release is drawn by
:mod:`dpcore.plan_release`).

Budget currencies and the accountant
------------------------------------
A statistic released with Laplace noise (and a quantile, by the exponential mechanism) is pure ε-DP: its budget is
an ε_i. A statistic released with Gaussian noise is calibrated in zCDP: its budget is a ρ_i (σ² = Δ²/(2ρ_i), Bun &
Steinke 2016, Proposition 1.6; on the lattice the discrete Gaussian keeps ρ, Canonne, Kamath & Steinke 2020,
Theorem 4). The total is the tightest of the valid bounds dpcore has for the mix (:func:`compose`):

* every statistic pure: ε = Σ ε_i, δ = 0 (basic composition, Dwork & Roth 2014, Theorem 3.16; tight for pure DP);
  with a declared δ > 0, the smaller of that and zCDP over everything, ρ = Σ ε_i²/2 (Bun & Steinke 2016,
  Proposition 1.4) converted at δ (:func:`dpcore.accounting.zcdp.zcdp_to_dp`): 100 statistics at ε_i = 0.1 cost
  ε = 5.22 at δ = 10⁻⁶ rather than 10;
* with Gaussian statistics: the smaller of (a) zCDP over everything, ρ = Σ ρ_i + Σ ε_i²/2 (pure ε-DP is
  ε²/2-zCDP, Bun & Steinke 2016, Proposition 1.4), converted to (ε, δ) by Canonne, Kamath & Steinke (2020),
  Corollary 13 (:func:`dpcore.accounting.zcdp.zcdp_to_dp`); and (b) Σ ε_i (pure part) plus the zCDP conversion of
  Σ ρ_i alone (basic composition of the two parts). Both are valid, so their minimum is. Checked against
  dp_accounting's PLD of the worst case (each pure part as binary randomized response, each Gaussian part
  continuous): never below it, and 0.5–17 % above it at the points of ``tests/test_plan.py``. A PLD total is not
  claimed here: the lattice draws a discrete Gaussian, whose PLD dpcore does not compute, and dpcore's PLD composes
  releases of one kind only.

The split
---------
Every error model here has the form ``error_i = c_i / ε_i`` (pure) or ``error_i = c_i / √ρ_i`` (zCDP), where
``c_i`` is the statistic's error at a unit budget (:func:`error_coefficient`): a Laplace or Gaussian noise's error is
proportional to its scale, which is Δ/ε or Δ/√(2ρ) (for a mean, the noisy sum over noisy count linearised around
the planned n, both parts scaling alike). The split plans with ``c_i`` widened by :data:`LATTICE_MARGIN` (the most
the lattice widens the noise, 1 + 2⁻⁹: :func:`planning_coefficient`), so that the expected errors on the lattice
meet their targets. With a target ``T_i`` per statistic (an error it must not exceed at the
plan's confidence) and the ratio ``r_i = error_i / T_i``:

* **smallest total meeting every target**: ``ε_i = c_i / T_i`` and ``ρ_i = (c_i / T_i)²`` (each the least its
  target needs); every accountant above is increasing in each ε_i and ρ_i, so no other split meeting the targets
  has a smaller total.
* **given a total, the split minimising the worst ratio** (minimax): for a common ratio r, the least budget that
  keeps every ``r_i ≤ r`` is ``ε_i = c_i/(r T_i)``, ``ρ_i = (c_i/(r T_i))²``; the total decreases in r, so the
  optimum is the smallest r whose total fits, and all ratios are equal there (a split with a smaller worst ratio
  would give every statistic more budget than this one, hence a larger total). Closed forms: all pure,
  ``r* = Σ_j (c_j/T_j) / ε`` and ``ε_i = ε · (c_i/T_i) / Σ_j (c_j/T_j)`` (the budget in proportion to the
  target-normalised scale); all Gaussian, ``r* = √(Σ_j (c_j/T_j)² / ρ)`` with ρ the largest zCDP budget the
  total (ε, δ) allows (:func:`~dpcore.accounting.zcdp.zcdp_rho_for_epsilon`) and ``ρ_i ∝ (c_i/T_i)²``; a mix,
  r by a bracketed root of the total in r. Minimising the largest of decreasing ratios under an increasing
  budget constraint is a quasiconvex problem solved on its level r (Boyd & Vandenberghe 2004, Section 4.2.5); here
  the level set is found exactly, since every r gives its least budgets in closed form. The smallest total is
  then raised where a Gaussian's lattice widens more than the margin (ρ tiny against Δ), by checked steps.
* **equal** and **weights**: shares ``w_i / Σ w_j`` of ε when every statistic is pure, of ρ otherwise (a pure
  statistic then gets ``ε_i = √(2ρ_i)``, the ε whose zCDP is ρ_i), scaled so that the total is the plan's.

What an error means. For a statistic of several numbers (a histogram, category counts, a group-by), the error is
that of each number: each published number is within ± the error of its true value (on the bounded, clipped rows)
with probability at least the confidence. A mean's error is at the declared planned number of records, with the
clipped mean put at the bound of largest magnitude, where the noisy count costs most (conservative for any data of
that size); with a declared public n the mean is the noisy sum over that n. A quantile's error is a bound on the
rank shortfall (in records, :meth:`~dpcore.quantiles.ExponentialQuantile.shortfall_bound`), given the declared
resolution of the values. A count where is a count (sensitivity m, whatever its conditions); a two-way table and
counts per period are histograms over the declared cells or periods (each entry the noise of one count, L₀ cells or
periods and L∞ rows each per person). The most common value's error is the shortfall of the chosen value's count
below the top count, ``(2Δu/ε)(ln k + ln(1/(1 − confidence)))`` over k declared candidates
(:func:`dpcore.exponential.exponential_error_bound`, Dwork & Roth 2014, Theorem 3.11), Δu = L∞ (1 with one row per
person): proportional to 1/ε, so it takes the split as a quantile does. The expected errors include the lattice's noise inflation (at most 2⁻⁹ for Laplace; for a
Gaussian bounded by ``g·σ_g/σ``).

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and Trends in Theoretical
  Computer Science 9(3–4), Theorem 3.16. https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Bun & Steinke (2016), "Concentrated Differential Privacy: Simplifications, Extensions, and Lower Bounds", TCC,
  Propositions 1.4 and 1.6, Lemma 2.3 (composition). https://arxiv.org/abs/1605.02065
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS, Theorem 4 and
  Corollary 13. https://arxiv.org/abs/2004.00010
- Boyd & Vandenberghe (2004), "Convex Optimization", Cambridge University Press, Section 4.2.5 (quasiconvex
  optimisation by bisection). https://web.stanford.edu/~boyd/cvxbook/
- Kotz, Kozubowski & Podgórski (2001), "The Laplace Distribution and Generalizations", Section 2.3 (the sum of two
  Laplace variables, :func:`dpcore.laplace.laplace_sum_pdf`; its tail is integrated here). ISBN 978-0-8176-4166-5
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from dpcore import families
from dpcore._roots import root_on_log
from dpcore.accounting.zcdp import pure_dp_to_zcdp, zcdp_rho_for_epsilon, zcdp_to_dp
from dpcore.contributions import ContributionBounds, PrivacyUnit, Sensitivity
from dpcore.exponential import exponential_error_bound
from dpcore.gaussian import Gaussian, two_sided_z
from dpcore.laplace import Laplace
from dpcore.lattice import lattice_mechanism
from dpcore.limits import MAX_CATEGORIES
from dpcore.neighbours import ADD_REMOVE
from dpcore.publish import OTHER, bin_labels
from dpcore.quantiles import ExponentialQuantile

__all__ = [
    "NOT_PRIVATE",
    "check_publishable",
    "KINDS",
    "SELECTION_KINDS",
    "NUMBER_CONDITIONS",
    "TEXT_CONDITIONS",
    "PERIODS",
    "MAX_CONDITIONS",
    "period_labels",
    "POLICIES",
    "PLAN_MECHANISMS",
    "MAX_STATISTICS",
    "Statistic",
    "Plan",
    "PlanError",
    "PLAN_VERSION",
    "Part",
    "Share",
    "Allocation",
    "Composition",
    "compose",
    "noise_parts",
    "selection_sensitivity",
    "error_coefficient",
    "planning_coefficient",
    "LATTICE_MARGIN",
    "expected_error",
    "allocate",
    "error_curve",
    "MAX_CURVE_TOTALS",
    "BUDGET_RANGE",
    "plan_from_dict",
    "plan_to_dict",
]

#: What a statistic computes: rows counted, a clipped sum, a mean (noisy sum over noisy count), equal bins over
#: declared bounds, the counts of a declared category domain, a quantile over a declared range, the rows meeting
#: declared conditions, the counts of every pair of two declared domains (a two-way table), the counts per year or
#: month of declared years, the most common value of a declared domain (the exponential mechanism).
KINDS = ("count", "sum", "mean", "histogram", "counts", "quantile", "count_where", "two_way", "periods", "most_common")
#: The kinds released by the exponential mechanism (a selection, pure ε-DP; no additive noise, no lattice).
SELECTION_KINDS = frozenset({"quantile", "most_common"})
#: The conditions of a count where, by the kind of column (the explorer's, :mod:`explorer.columns`): a number
#: compared with a declared number (finite values only: a missing or infinite value never matches), or a value's text
#: compared with a declared text (a whole number 9.0 reads "9"; a missing value never matches, "is not" included).
NUMBER_CONDITIONS = ("≥", ">", "≤", "<", "=", "≠")
TEXT_CONDITIONS = ("is", "is not")
#: ASCII spellings a plan file may use for the number conditions.
_CONDITION_ALIASES = {">=": "≥", "<=": "≤", "!=": "≠", "==": "="}
#: The most conditions of one count where (one count of sensitivity m, whatever their number).
MAX_CONDITIONS = 2
#: How dates are counted: per year or per month.
PERIODS = ("year", "month")
#: How the total is split.
POLICIES = ("equal", "weights", "accuracy")
#: The noise of a statistic: a central family published on a lattice (:data:`dpcore.families.FAMILIES`): Laplace
#: (pure ε-DP) or Gaussian (calibrated in zCDP here). A quantile is always pure (the exponential mechanism).
PLAN_MECHANISMS = tuple(f.key for f in families.central() if f.lattice is not None)
#: The most statistics in one plan (each is one row of the report; a work bound, not a privacy fact).
MAX_STATISTICS = 100
#: The most a lattice release widens its noise: ``g·t/b ≤ (1 + g/Δ) + g/b ≤ 1 + 2⁻⁹`` for Laplace with the grid
#: ``g ≤ 2⁻¹⁰ min(Δ, b)`` of :func:`dpcore.lattice.lattice_grid` (``t = ⌈⌈Δ/g⌉ b/Δ⌉``); for the Gaussian
#: ``σ_g ≤ σ (1 + g/Δ) + g`` likewise. The accuracy split plans with it (:func:`planning_coefficient`).
LATTICE_MARGIN = 1.0 + 2.0**-9
#: The most totals :func:`error_curve` computes (each is one allocation).
MAX_CURVE_TOTALS = 200
#: A name, a column or a provenance longer than this is refused (they are shown in reports).
_MAX_TEXT = 200
#: Relative slack when a total is compared with the budget (float rounding of the root solver).
_SLACK = 1e-9
#: The range of a statistic's budget, as an ε (pure) or as ``√(2ρ)`` (Gaussian: the ε whose zCDP is ρ), that a plan
#: may give it: far outside, the noise underflows or overflows the lattice's grid (a work and arithmetic bound, not a
#: privacy fact; a target or total that needs more is refused in one sentence).
BUDGET_RANGE = (1e-9, 1e9)


class PlanError(ValueError):
    """A plan that cannot be published, in one sentence (a ``ValueError``)."""


def period_labels(period: str, first_year: int, last_year: int) -> tuple[str, ...]:
    """Every period of the declared years, in order: ``"2023"`` per year, ``"2023-01"`` per month (from the declared
    years alone, never from the data: a period nobody falls in is counted too).

    >>> period_labels("month", 2023, 2023)[:2], period_labels("year", 2022, 2024)
    (('2023-01', '2023-02'), ('2022', '2023', '2024'))
    """
    years = range(int(first_year), int(last_year) + 1)
    if period == "year":
        return tuple(f"{y:04d}" for y in years)
    return tuple(f"{y:04d}-{m:02d}" for y in years for m in range(1, 13))


def _condition(item, at: str) -> tuple[str, str, float | str]:
    """One declared condition ``(column, condition, value)``, checked: a number condition takes a finite number."""
    if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 3:
        raise PlanError(f"{at}: each condition must be [column, condition, value], got {item!r}")
    column, condition, value = item
    column = _text(column, f"{at}: the column of a condition")
    condition = _CONDITION_ALIASES.get(condition, condition)
    if condition in NUMBER_CONDITIONS:
        value = _number(value, f"{at}: the value of {column} {condition}")
    elif condition in TEXT_CONDITIONS:
        if isinstance(value, bool) or not isinstance(value, (str, int, float, np.integer, np.floating)):
            raise TypeError(f"{at}: the value of {column} {condition} must be a text or a number, got {value!r}")
        value = _text(
            str(int(value)) if isinstance(value, float) and value.is_integer() else str(value),
            f"{at}: the value of {column} {condition}",
            empty=True,
        )
    else:
        raise ValueError(
            f"{at}: a condition must be one of {', '.join(NUMBER_CONDITIONS + TEXT_CONDITIONS)}, got {condition!r}"
        )
    return column, condition, value


def _where(name: str) -> str:
    return f"statistic {name!r}"


def _check_budgets(plan: Plan, budgets, *, least: bool) -> None:
    """Refuse, in one sentence, a budget outside :data:`BUDGET_RANGE` (``least``: what a target needs alone)."""
    low, high = BUDGET_RANGE
    for s, b in zip(plan.statistics, budgets):
        x = b if s.pure else math.sqrt(2.0 * b) if b >= 0.0 else math.nan
        if low <= x <= high:
            continue
        if least:
            beyond = "more than" if not x < low else "less than"
            raise PlanError(
                f"{_where(s.name)}: its target error {s.target:g} asks for {beyond} any budget a plan can give one "
                f"statistic (an ε from {low:g} to {high:g}, it would need {x:.3g}): set a target nearer its expected "
                "error at ε = 1"
            )
        raise PlanError(
            f"{_where(s.name)}: the total ε {plan.epsilon:g} gives it an ε of {x:.3g}, outside what a plan can give one "
            f"statistic ({low:g} to {high:g}): choose a total nearer 1"
        )


def _text(value, what: str, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be text, got {type(value).__name__}")
    if not empty and not value.strip():
        raise ValueError(f"{what} must not be empty")
    if len(value) > _MAX_TEXT:
        raise ValueError(f"{what} must be at most {_MAX_TEXT} characters long, got {len(value)}")
    return value


def _number(value, what: str, *, low=None, high=None, low_open=True, high_open=True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a number, got {value!r}")
    x = float(value)
    ok = math.isfinite(x)
    if ok and low is not None:
        ok = x > low if low_open else x >= low
    if ok and high is not None:
        ok = x < high if high_open else x <= high
    if not ok:
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        brackets = (
            ("(" if low_open or low is None else "[") + f"{lo}, {hi}" + (")" if high_open or high is None else "]")
        )
        raise ValueError(f"{what} must be in {brackets}, got {value!r}")
    return x


def _whole(value, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{what} must be a whole number, got {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{what} must be a whole number from {low:,} to {high:,}, got {value!r}")
    return int(value)


def _labels(values, what: str) -> tuple[str, ...]:
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise TypeError(f"{what} must be a list of categories, got {type(values).__name__}")
    out = tuple(str(v) for v in values)
    if not out:
        raise ValueError(f"{what} must list at least one category, got none")
    if len(out) > MAX_CATEGORIES:
        raise ValueError(f"{what} must list at most {MAX_CATEGORIES:,} categories, got {len(out):,}")
    if len(set(out)) != len(out):
        repeated = next(v for v in out if out.count(v) > 1)
        raise ValueError(f"{what} must list each category once, got {repeated!r} twice")
    for v in out:
        _text(v, f"{what} (category)", empty=True)
    return out


@dataclass(frozen=True)
class Statistic:
    """One statistic of a plan, with the public facts it is declared with.

    Parameters
    ----------
    name : str
        Its name in the release and the report (unique in the plan), non-empty, at most 200 characters.
    kind : {"count", "sum", "mean", "histogram", "counts", "quantile", "count_where", "two_way", "periods", \
"most_common"}
    column : str, optional
        The column read (every kind but "count" and "count_where"); a two-way table's rows; a column of dates for
        "periods" (a date is a value whose text starts ``YYYY-MM``: ISO dates, or a date or timestamp type).
    lower, upper : float, optional
        Declared bounds (sum, mean, histogram, quantile): values are clipped to them; finite, ``lower < upper``.
    bins : int, optional
        A histogram's number of equal bins over ``[lower, upper]``, in [1, MAX_CATEGORIES].
    domain : sequence of str, optional
        The declared categories of "counts", "most_common" and a two-way table's rows (absent ones released as a
        noisy zero, or candidates of the selection).
    by : str, optional
        A group column for a count, sum or mean per group (a group-by with public ``keys``); a two-way table's
        columns.
    keys : sequence of str, optional
        The declared groups of ``by``.
    where : sequence of (column, condition, value), optional
        A count where's declared conditions, one or :data:`MAX_CONDITIONS` (all must hold): a condition of
        :data:`NUMBER_CONDITIONS` with a number, or of :data:`TEXT_CONDITIONS` with a text.
    period : {"year", "month"}, optional
        What "periods" counts per.
    first_year, last_year : int, optional
        The declared years of "periods" (from the study's design, never from the data), in [1, 9999].
    other : bool, default False
        With ``domain`` or ``keys``: count a value outside them in "(other)" (True) or leave it out (False).
    q : float, optional
        A quantile's q, in [0, 1].
    resolution : float, optional
        A quantile's declared step of the values (1 for whole years), in (0, upper − lower]: its error bound needs it.
    planned_n : int, optional
        A mean's planned number of records (per group for a group-by): its expected error is stated at this n.
    n_public : int, optional
        A mean's declared public number of records: the mean is the noisy sum over it (no noisy count).
    split : float, default 0.5
        A mean's share of its budget for the sum, in (0, 1) (the rest for the count).
    mechanism : {"laplace", "gaussian"}, default "laplace"
    target : float, optional
        The error it must not exceed at the plan's confidence (accuracy policy), in (0, inf).
    weight : float, default 1.0
        Its weight (weights policy), in (0, inf).
    provenance : str, default ""
        Where the declared facts come from, in words (a codebook, a past release), shown in the report.
    """

    name: str
    kind: str
    column: str | None = None
    lower: float | None = None
    upper: float | None = None
    bins: int | None = None
    domain: tuple[str, ...] | None = None
    by: str | None = None
    keys: tuple[str, ...] | None = None
    other: bool = False
    where: tuple[tuple[str, str, float | str], ...] | None = None
    period: str | None = None
    first_year: int | None = None
    last_year: int | None = None
    q: float | None = None
    resolution: float | None = None
    planned_n: int | None = None
    n_public: int | None = None
    split: float = 0.5
    mechanism: str = "laplace"
    target: float | None = None
    weight: float = 1.0
    provenance: str = ""

    def __post_init__(self):
        name = _text(self.name, "name of a statistic")
        at = _where(name)
        if self.kind not in KINDS:
            raise ValueError(f"{at}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.mechanism not in PLAN_MECHANISMS:
            raise ValueError(f"{at}: mechanism must be one of {', '.join(PLAN_MECHANISMS)}, got {self.mechanism!r}")
        set_ = self._set
        if self.kind not in ("count", "count_where"):
            if self.column is None:
                raise PlanError(f'{at}: a {self.kind} needs the column it reads ("column")')
            set_("column", _text(self.column, f"{at}: column"))
        elif self.column is not None:
            set_("column", _text(self.column, f"{at}: column"))
        needs_bounds = self.kind in ("sum", "mean", "histogram", "quantile")
        if needs_bounds:
            if self.lower is None or self.upper is None:
                raise PlanError(f'{at}: a {self.kind} needs declared bounds ("lower" and "upper"), read from no data')
            lower = _number(self.lower, f"{at}: lower")
            upper = _number(self.upper, f"{at}: upper")
            if not lower < upper:
                raise ValueError(f"{at}: lower must be below upper, got {lower:g} and {upper:g}")
            set_("lower", lower)
            set_("upper", upper)
        if self.kind == "histogram":
            if self.bins is None:
                raise PlanError(f'{at}: a histogram needs its declared number of bins ("bins")')
            set_("bins", _whole(self.bins, f"{at}: bins", 1, MAX_CATEGORIES))
        if self.kind in ("counts", "two_way", "most_common"):
            if self.domain is None:
                what = {"counts": "category counts need", "two_way": "a two-way table needs its rows'"}.get(
                    self.kind, "the most common value needs"
                )
                raise PlanError(f'{at}: {what} a declared domain ("domain": the list of categories, read from no data)')
            set_("domain", _labels(self.domain, f"{at}: domain"))
        elif self.domain is not None:
            raise ValueError(
                f"{at}: only category counts, a two-way table and the most common value take a domain (a group-by "
                'takes "by" and "keys")'
            )
        if self.kind == "two_way" and self.by is None:
            raise PlanError(
                f'{at}: a two-way table needs its second column ("by") and that column\'s declared categories ("keys")'
            )
        if self.by is not None:
            if self.kind not in ("count", "sum", "mean", "two_way"):
                raise ValueError(f'{at}: only a count, sum or mean can be grouped ("by"), not a {self.kind}')
            set_("by", _text(self.by, f"{at}: by"))
            if self.keys is None:
                raise PlanError(
                    f'{at}: a group-by needs its declared group keys ("keys": the list of groups, read from no data)'
                )
            set_("keys", _labels(self.keys, f"{at}: keys"))
        elif self.keys is not None:
            raise ValueError(f'{at}: keys are the groups of a group-by: give "by" too')
        if not isinstance(self.other, bool):
            raise TypeError(f"{at}: other must be true or false, got {self.other!r}")
        if self.other and self.kind == "most_common":
            raise ValueError(f"{at}: the most common value is chosen among the declared domain only: leave out other")
        if self.kind == "two_way":
            cells = (len(self.domain) + self.other) * (len(self.keys) + self.other)
            if cells > MAX_CATEGORIES:
                raise ValueError(f"{at}: a two-way table must have at most {MAX_CATEGORIES:,} cells, got {cells:,}")
        self._check_where(at)
        self._check_period(at)
        listed = self.domain if self.domain is not None else self.keys
        if self.other and listed is not None and OTHER in listed:
            raise ValueError(
                f"{at}: {OTHER!r} is the label of the values outside the declared list, so the list must not hold it "
                "too (two rows would share one label): rename that category, or leave out other"
            )
        if self.kind == "most_common" and not self.pure:
            raise ValueError(
                f"{at}: the most common value is chosen by the exponential mechanism (pure ε-DP): mechanism must be "
                f"a pure family, got {self.mechanism!r}"
            )
        if self.kind == "quantile":
            if self.q is None:
                raise PlanError(f"{at}: a quantile needs its q (0.5 for the median)")
            set_("q", _number(self.q, f"{at}: q", low=0.0, high=1.0, low_open=False, high_open=False))
            if not self.pure:
                raise ValueError(
                    f"{at}: a quantile is released by the exponential mechanism (pure ε-DP): mechanism must be a pure "
                    f"family, got {self.mechanism!r}"
                )
            if self.resolution is not None:
                res = _number(self.resolution, f"{at}: resolution", low=0.0)
                if res > self.upper - self.lower:
                    raise ValueError(
                        f"{at}: resolution must be in (0, {self.upper - self.lower:g}] (upper - lower), got {res:g}"
                    )
                set_("resolution", res)
        if self.kind == "mean":
            if self.planned_n is None and self.n_public is None:
                raise PlanError(
                    f'{at}: a mean\'s error depends on the number of records: declare "planned_n" (the size the '
                    'study was designed for) or "n_public" (a public number of records)'
                )
            if self.planned_n is not None:
                set_("planned_n", _whole(self.planned_n, f"{at}: planned_n", 1, 10**9))
            if self.n_public is not None:
                set_("n_public", _whole(self.n_public, f"{at}: n_public", 1, 10**9))
            set_("split", _number(self.split, f"{at}: split", low=0.0, high=1.0))
        set_("weight", _number(self.weight, f"{at}: weight", low=0.0))
        if self.target is not None:
            set_("target", _number(self.target, f"{at}: target", low=0.0))
        set_("provenance", _text(self.provenance, f"{at}: provenance", empty=True))

    def _set(self, name, value):
        object.__setattr__(self, name, value)

    def _check_where(self, at: str) -> None:
        if self.kind != "count_where":
            if self.where is not None:
                raise ValueError(f'{at}: only a count where takes conditions ("where"), not a {self.kind}')
            return
        where = self.where
        if where is None or isinstance(where, (str, bytes)) or not hasattr(where, "__len__") or not where:
            raise PlanError(
                f'{at}: a count where needs its declared conditions ("where": a list of [column, condition, value])'
            )
        if len(where) > MAX_CONDITIONS:
            raise ValueError(f"{at}: a count where takes at most {MAX_CONDITIONS} conditions, got {len(where)}")
        self._set("where", tuple(_condition(c, at) for c in where))

    def _check_period(self, at: str) -> None:
        given = (self.period, self.first_year, self.last_year)
        if self.kind != "periods":
            if any(v is not None for v in given):
                raise ValueError(f'{at}: only counts per period take "period", "first_year" and "last_year"')
            return
        if self.period not in PERIODS:
            raise ValueError(f"{at}: period must be one of {', '.join(PERIODS)}, got {self.period!r}")
        if self.first_year is None or self.last_year is None:
            raise PlanError(
                f'{at}: counts per {self.period} need the declared years ("first_year" and "last_year", from the '
                "study's design, never from the data)"
            )
        first = _whole(self.first_year, f"{at}: first_year", 1, 9999)
        last = _whole(self.last_year, f"{at}: last_year", first, 9999)
        periods = (last - first + 1) * (12 if self.period == "month" else 1)
        if periods > MAX_CATEGORIES:
            raise ValueError(f"{at}: the periods must be at most {MAX_CATEGORIES:,}, got {periods:,}")
        self._set("first_year", first)
        self._set("last_year", last)

    # ------------------------------------------------------------------ what it releases
    @property
    def pure(self) -> bool:
        """Whether its budget is a pure ε (Laplace, exponential), not a zCDP ρ (Gaussian)."""
        return not families.family(self.mechanism).takes_delta

    @property
    def grouped(self) -> bool:
        """Whether it releases a vector over groups, bins, categories, cells or periods (its noise per entry)."""
        return self.by is not None or self.kind in ("histogram", "counts", "two_way", "periods")

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column it reads, each once (its column, group column and the columns of its conditions)."""
        names = [self.column, self.by, *(c for c, _, _ in self.where or ())]
        return tuple(dict.fromkeys(n for n in names if n is not None))

    @property
    def numeric_columns(self) -> tuple[str, ...]:
        """The columns it needs numbers in: a sum's, mean's, histogram's or quantile's, and those of its number
        conditions."""
        names = [self.column] if self.kind in ("sum", "mean", "histogram", "quantile") else []
        names += [c for c, cond, _ in self.where or () if cond in NUMBER_CONDITIONS]
        return tuple(dict.fromkeys(names))

    @property
    def labels(self) -> tuple[str, ...]:
        """One label per released number, from the declared facts alone."""
        if self.kind == "histogram":
            return bin_labels(self.edges)
        if self.kind == "counts":
            return (*self.domain, OTHER) if self.other else self.domain
        if self.kind == "two_way":
            rows = (*self.domain, OTHER) if self.other else self.domain
            columns = (*self.keys, OTHER) if self.other else self.keys
            return tuple(f"{r} × {c}" for r in rows for c in columns)
        if self.kind == "periods":
            return period_labels(self.period, self.first_year, self.last_year)
        if self.kind == "count_where":
            return (self.condition_words(),)
        if self.kind == "most_common":
            return ("most common value",)
        if self.by is not None:
            return (*self.keys, OTHER) if self.other else self.keys
        if self.kind == "quantile":
            return ("median",) if self.q == 0.5 else (f"{self.q:g}-quantile",)
        return (self.kind,)

    @property
    def edges(self) -> np.ndarray:
        """A histogram's declared bin edges: ``bins`` equal bins over ``[lower, upper]``."""
        return np.linspace(self.lower, self.upper, self.bins + 1)

    @property
    def error_unit(self) -> str:
        """What the error is counted in: ranks (records) for a quantile, rows below the top count for the most
        common value (its count's shortfall), the statistic's own unit otherwise."""
        return {"quantile": "ranks", "most_common": "rows below the top count"}.get(self.kind, "")

    def condition_words(self) -> str:
        """A count where's conditions in words (``age ≥ 40 and sex is Female``)."""
        return " and ".join(
            f"{c} {cond} {v:g}" if isinstance(v, float) else f"{c} {cond} {v}" for c, cond, v in self.where or ()
        )

    def words(self) -> str:
        """The statistic in words."""
        what = {
            "count": "count of rows",
            "sum": f"sum of {self.column}",
            "mean": f"mean of {self.column}",
            "histogram": f"histogram of {self.column} ({self.bins} bins)",
            "counts": f"counts of {self.column} per category",
            "quantile": f"{self.labels[0]} of {self.column}",
            "count_where": f"count of rows where {self.condition_words()}",
            "two_way": f"two-way table of {self.column}",
            "periods": f"counts per {self.period} of {self.column}, {self.first_year} to {self.last_year}",
            "most_common": f"most common value of {self.column}",
        }[self.kind]
        return f"{what} by {self.by}" if self.by is not None else what


@dataclass(frozen=True)
class Plan:
    """A release plan: the statistics, the unit of privacy, the total and how it is split.

    Parameters
    ----------
    statistics : sequence of Statistic
        One to MAX_STATISTICS, with distinct names.
    unit : PrivacyUnit, default one row per person
    epsilon : float, optional
        The total ε, in [1e-9, 1e9] (:data:`BUDGET_RANGE`). None only under the accuracy policy: the smallest total meeting every target.
    delta : float, default 0
        The total δ, in [0, 1); above 0 when a statistic is Gaussian.
    policy : {"equal", "weights", "accuracy"}, default "equal"
    confidence : float, default 0.95
        The confidence of every error, in (0, 1).
    title : str, default ""
    """

    statistics: tuple[Statistic, ...]
    unit: PrivacyUnit = field(default_factory=PrivacyUnit)
    epsilon: float | None = None
    delta: float = 0.0
    policy: str = "equal"
    confidence: float = 0.95
    title: str = ""

    def __post_init__(self):
        stats = tuple(self.statistics)
        if not stats:
            raise PlanError("a plan needs at least one statistic, got none")
        if len(stats) > MAX_STATISTICS:
            raise ValueError(f"a plan takes at most {MAX_STATISTICS} statistics, got {len(stats)}")
        for s in stats:
            if not isinstance(s, Statistic):
                raise TypeError(f"statistics must be Statistic objects, got {type(s).__name__}")
        names = [s.name for s in stats]
        if len(set(names)) != len(names):
            raise ValueError(
                f"statistics must have distinct names, got {next(n for n in names if names.count(n) > 1)!r} twice"
            )
        object.__setattr__(self, "statistics", stats)
        if not isinstance(self.unit, PrivacyUnit):
            raise TypeError(f"unit must be a PrivacyUnit, got {type(self.unit).__name__}")
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        if self.epsilon is not None:
            low, high = BUDGET_RANGE
            total = _number(self.epsilon, "the total epsilon", low=low, high=high, low_open=False, high_open=False)
            object.__setattr__(self, "epsilon", total)
        elif self.policy != "accuracy":
            raise PlanError(f'the {self.policy} split needs a total epsilon ("epsilon")')
        object.__setattr__(self, "delta", _number(self.delta, "the total delta", low=0.0, high=1.0, low_open=False))
        object.__setattr__(self, "confidence", _number(self.confidence, "confidence", low=0.0, high=1.0))
        object.__setattr__(self, "title", _text(self.title, "title", empty=True))
        gaussian = [s.name for s in stats if not s.pure]
        if gaussian and self.delta == 0.0:
            raise PlanError(f'{_where(gaussian[0])} uses Gaussian noise, which needs a total delta above 0 ("delta")')
        for s in stats:
            at = _where(s.name)
            if s.kind == "quantile" and self.unit.identifier is not None:
                raise PlanError(f"{at}: a quantile is offered with one row per person only (no person identifier)")
            if not s.pure and s.grouped and self.unit.bounds.max_groups > 1:
                raise PlanError(
                    f"{at}: Gaussian noise over groups is published entry by entry on a lattice, which needs at most "
                    f"one group per person (max_groups = 1), got {self.unit.bounds.max_groups}"
                )
            if self.policy == "accuracy":
                if s.target is None:
                    raise PlanError(f'{at}: the accuracy split needs a target for every statistic ("target")')
                if s.kind == "quantile" and s.resolution is None:
                    raise PlanError(
                        f'{at}: a quantile\'s error bound needs the declared resolution of its values ("resolution", '
                        "1 for whole numbers) before it can take a target"
                    )

    @property
    def pure(self) -> bool:
        """Whether every statistic is pure ε-DP."""
        return all(s.pure for s in self.statistics)


# ---------------------------------------------------------------------------------------------- noise and error


@dataclass(frozen=True)
class Part:
    """One noisy part of a statistic: what it is, its sensitivity, and its share of the statistic's budget."""

    what: str
    sensitivity: Sensitivity
    share: float


def _sensitivities(stat: Statistic, bounds: ContributionBounds) -> tuple[Part, ...]:
    """The parts of a statistic and their sensitivities under add/remove one unit (:mod:`dpcore.contributions`)."""
    grouped = stat.grouped
    if stat.kind in ("count", "histogram", "counts", "count_where", "two_way", "periods"):
        sens = bounds.histogram_sensitivity() if grouped else bounds.count_sensitivity()
        return (Part("counts" if grouped else "count", sens, 1.0),)
    if stat.kind == "sum":
        sens = (
            bounds.group_sum_sensitivity(stat.lower, stat.upper)
            if grouped
            else bounds.sum_sensitivity(stat.lower, stat.upper)
        )
        return (Part("sums" if grouped else "sum", sens, 1.0),)
    if stat.kind == "mean":
        if grouped:
            s, c = bounds.group_mean_sensitivities(stat.lower, stat.upper)
        else:
            s, c = bounds.mean_sensitivities(stat.lower, stat.upper)
        if stat.n_public is not None:
            return (Part("sums" if grouped else "sum", s, 1.0),)
        return (
            Part("sums" if grouped else "sum", s, stat.split),
            Part("counts" if grouped else "count", c, 1 - stat.split),
        )
    raise ValueError(f"{_where(stat.name)}: a {stat.kind} has no additive noise")


def selection_sensitivity(unit: PrivacyUnit) -> float:
    """The most common value's score sensitivity Δu under ``unit``: one unit's kept rows change any one category's
    count by at most L∞ (the rows it keeps per category; 1 with one row per person), add/remove one unit
    (:meth:`~dpcore.contributions.ContributionBounds.histogram_sensitivity`)."""
    return unit.bounds.histogram_sensitivity().linf


def noise_parts(stat: Statistic, unit: PrivacyUnit, budget: float) -> tuple[tuple[Part, Laplace | Gaussian], ...]:
    """The additive noise of each part of ``stat`` at ``budget`` (ε for a pure statistic, ρ for a Gaussian one).

    An ℓ1 family gives each entry of a vector ``share·ε/L₀`` at the entry's sensitivity L∞·s (the at most L₀ entries
    a person changes compose to ``share·ε``, Dwork & Roth 2014, Theorem 3.16); the Gaussian takes the vector's ℓ2
    sensitivity at ``share·ρ`` (Bun & Steinke 2016, Proposition 1.6). A selection (a quantile, the most common value)
    has no additive part (empty).
    """
    if stat.kind in SELECTION_KINDS:
        return ()
    out = []
    for part in _sensitivities(stat, unit.bounds):
        if stat.pure:  # the family's own noise at ε (Laplace: scale Δ/ε)
            family = families.family(stat.mechanism)
            noise = family.noise(part.share * budget / part.sensitivity.entries, part.sensitivity.linf)
        else:
            noise = Gaussian.from_zcdp(part.share * budget, part.sensitivity.l2)
        out.append((part, noise))
    return tuple(out)


def _laplace_sum_tail(t: float, a: float, c: float) -> float:
    """``P(|Lap(a) + Lap(c)| > t)``: the integral of :func:`dpcore.laplace.laplace_sum_pdf`'s density over |x| > t.

    With ``a ≥ c``, ``r = c/a``: ``(e^{−t/a} − r² e^{−t/c}) / (1 − r²)``; at ``a = c`` its limit
    ``(1 + t/(2a)) e^{−t/a}``; at ``c = 0``, ``e^{−t/a}`` (Laplace's own tail).
    """
    a, c = max(a, c), min(a, c)
    if c == 0.0:
        return math.exp(-t / a)
    r = c / a
    if abs(1.0 - r) < 1e-6:
        return (1.0 + t / (2.0 * a)) * math.exp(-t / a)
    return (math.exp(-t / a) - r * r * math.exp(-t / c)) / (1.0 - r * r)


def _laplace_sum_error(a: float, c: float, confidence: float) -> float:
    """The ``t`` with ``P(|Lap(a) + Lap(c)| ≤ t) = confidence`` (a bracketed root: the tail decreases in t)."""
    return root_on_log(lambda t: _laplace_sum_tail(t, a, c) - (1.0 - confidence), a + c, increasing=False, rtol=1e-12)


def _inflation(noise: Laplace | Gaussian) -> float:
    """How much wider the lattice release's noise is than ``noise``'s (:attr:`LatticeMechanism.noise_inflation`).

    For a Gaussian, ``g·σ_g/σ``: the discrete Gaussian's variance is at most σ_g² (Canonne, Kamath & Steinke 2020,
    Proposition 19), so this bounds the ratio without summing its law (millions of terms on a coarse grid)."""
    lat = lattice_mechanism(noise)
    if isinstance(noise, Gaussian):
        return lat.grid * lat.noise.sigma / noise.sigma
    return lat.noise_inflation


def _mean_n(stat: Statistic) -> int:
    return stat.n_public if stat.n_public is not None else stat.planned_n


def _error(stat: Statistic, unit: PrivacyUnit, budget: float, confidence: float, *, lattice: bool) -> float | None:
    if stat.kind == "quantile":
        if stat.resolution is None:
            return None
        mechanism = ExponentialQuantile(budget, stat.lower, stat.upper, stat.q, ADD_REMOVE)
        return mechanism.shortfall_bound(confidence, resolution=stat.resolution)
    if stat.kind == "most_common":  # the chosen count's shortfall below the top count (Dwork & Roth 2014, Th. 3.11)
        return exponential_error_bound(len(stat.domain), budget, selection_sensitivity(unit), confidence)
    parts = noise_parts(stat, unit, budget)
    inflation = [_inflation(noise) if lattice else 1.0 for _, noise in parts]
    if stat.kind != "mean":
        (_, noise), k = parts[0], inflation[0]
        return noise.error_bound(confidence) * k
    n = _mean_n(stat)
    if len(parts) == 1:  # a public n: the noisy sum over n
        (_, noise), k = parts[0], inflation[0]
        return noise.error_bound(confidence) * k / n
    # the delta method: (S + N_S)/(C + N_C) − S/C ≈ (N_S − m N_C)/n with m the clipped mean, put at the bound of
    # largest magnitude (where the count's noise costs most)
    m = max(abs(stat.lower), abs(stat.upper))
    (_, sum_noise), (_, count_noise) = parts
    if stat.pure:
        return _laplace_sum_error(sum_noise.scale * inflation[0], m * count_noise.scale * inflation[1], confidence) / n
    std = math.hypot(sum_noise.sigma * inflation[0], m * count_noise.sigma * inflation[1])
    return two_sided_z(confidence) * std / n


def error_coefficient(stat: Statistic, unit: PrivacyUnit, confidence: float) -> float | None:
    """``c`` with ``error = c/ε`` (pure) or ``c/√ρ`` (Gaussian): the error at a unit budget, without the lattice.

    None for a quantile without a declared resolution (its error bound needs one).
    """
    return _error(stat, unit, 1.0, confidence, lattice=False)


def planning_coefficient(stat: Statistic, unit: PrivacyUnit, confidence: float) -> float | None:
    """The coefficient the accuracy split plans with: :func:`error_coefficient` times :data:`LATTICE_MARGIN` for an
    additive statistic (whose lattice noise is at most that much wider), so that every expected error on the
    lattice is within its target; a quantile's own (no lattice)."""
    c = error_coefficient(stat, unit, confidence)
    return c if c is None or stat.kind in SELECTION_KINDS else c * LATTICE_MARGIN


def expected_error(stat: Statistic, unit: PrivacyUnit, budget: float, confidence: float) -> float | None:
    """The error of each released number of ``stat`` at ``budget`` (ε or ρ) and ``confidence``, on the lattice."""
    return _error(stat, unit, budget, confidence, lattice=True)


# ---------------------------------------------------------------------------------------------- accounting


@dataclass(frozen=True)
class Composition:
    """The total guarantee of a plan's statistics together, and the accountant that gave it."""

    epsilon: float
    delta: float
    accountant: str
    rho: float | None = None


def compose(epsilons, rhos, delta: float) -> Composition:
    """The tightest valid total of pure ``epsilons`` and zCDP ``rhos`` (module notes): basic composition when all pure
    (the smaller of it and zCDP over everything when ``delta`` > 0), else the smaller of zCDP over everything and pure
    part plus the zCDP of the Gaussian part."""
    eps = [float(e) for e in epsilons]
    rho = [float(r) for r in rhos]
    rho_all = math.fsum(rho) + math.fsum(float(pure_dp_to_zcdp(e)) for e in eps)
    if not rho:
        basic = Composition(math.fsum(eps), 0.0, "basic composition of pure ε-DP (Dwork & Roth 2014, Theorem 3.16)")
        if delta <= 0.0 or not rho_all > 0.0:
            return basic
        by_zcdp = zcdp_to_dp(rho_all, delta)
        if by_zcdp < basic.epsilon:  # many small ε's: their zCDP at the declared δ is smaller than their sum
            return Composition(
                by_zcdp,
                delta,
                "zCDP over every statistic (pure ε-DP as ε²/2-zCDP), converted by Canonne, Kamath & Steinke 2020, "
                "Cor. 13",
                rho_all,
            )
        return basic
    by_zcdp = zcdp_to_dp(rho_all, delta)
    if not eps:
        return Composition(
            by_zcdp, delta, "zCDP (Bun & Steinke 2016), converted by Canonne, Kamath & Steinke 2020, Cor. 13", rho_all
        )
    by_parts = math.fsum(eps) + zcdp_to_dp(math.fsum(rho), delta)
    if by_zcdp <= by_parts:
        return Composition(
            by_zcdp,
            delta,
            "zCDP over every statistic (pure ε-DP as ε²/2-zCDP), converted by Canonne, Kamath & Steinke 2020, Cor. 13",
            rho_all,
        )
    return Composition(
        by_parts,
        delta,
        "basic composition of the pure statistics' ε with the zCDP conversion of the Gaussian ones",
        math.fsum(rho),
    )


# ---------------------------------------------------------------------------------------------- allocation


@dataclass(frozen=True)
class Share:
    """One statistic's share of the plan.

    Attributes
    ----------
    statistic : Statistic
    budget : float
        ε_i (pure) or ρ_i (Gaussian): what calibrates its noise.
    epsilon, delta : float
        Its guarantee alone: ε_i and 0 (pure), or the zCDP conversion of ρ_i at the plan's δ.
    rho : float or None
        ρ_i (Gaussian), None when pure.
    expected_error : float or None
        The error of each of its numbers at the plan's confidence (None: a quantile without a resolution).
    ratio : float or None
        ``expected_error / target`` when a target is set.
    noise : tuple of str
        Each noisy part in words (mechanism and scale).
    """

    statistic: Statistic
    budget: float
    epsilon: float
    delta: float
    rho: float | None
    expected_error: float | None
    ratio: float | None
    noise: tuple[str, ...]


@dataclass(frozen=True)
class Allocation:
    """A plan with its budget split: each statistic's share, the total, and the accountant.

    Attributes
    ----------
    plan : Plan
    shares : tuple of Share
    epsilon, delta : float
        The total guarantee under add/remove one unit (at most the plan's total).
    accountant : str
    worst_ratio : float or None
        The largest ``error/target`` (accuracy policy).
    needed_epsilon : float or None
        Accuracy policy: the smallest total ε at the plan's δ that meets every target.
    """

    plan: Plan
    shares: tuple[Share, ...]
    epsilon: float
    delta: float
    accountant: str
    worst_ratio: float | None = None
    needed_epsilon: float | None = None

    @property
    def relation(self):
        """The neighbouring relation every share holds under: add/remove one unit."""
        return self.plan.unit.relation

    def table(self):
        """Statistic, ε, δ, ρ, expected error and target, one row per statistic (what a page shows)."""
        return pd.DataFrame(
            {
                "statistic": [s.statistic.name for s in self.shares],
                "epsilon": [s.epsilon for s in self.shares],
                "delta": [s.delta for s in self.shares],
                "rho": [s.rho for s in self.shares],
                "expected error": [s.expected_error for s in self.shares],
                "target": [s.statistic.target for s in self.shares],
            }
        )


def _noise_words(stat: Statistic, unit: PrivacyUnit, budget: float) -> tuple[str, ...]:
    if stat.kind == "quantile":
        m = ExponentialQuantile(budget, stat.lower, stat.upper, stat.q, ADD_REMOVE)
        return (f"exponential mechanism, ε = {budget:.6g}, score sensitivity Δu = {m.sensitivity:g}",)
    if stat.kind == "most_common":
        return (
            f"exponential mechanism over the declared domain, ε = {budget:.6g} (score: the count, sensitivity "
            f"Δu = {selection_sensitivity(unit):g})",
        )
    words = []
    for part, noise in noise_parts(stat, unit, budget):
        if isinstance(noise, Laplace):
            words.append(f"{part.what}: Laplace, scale b = {noise.scale:.6g} (sensitivity {noise.sensitivity:g})")
        else:
            words.append(f"{part.what}: Gaussian, σ = {noise.sigma:.6g} (ℓ2 sensitivity {noise.sensitivity:g})")
    return tuple(words)


def _shares(plan: Plan, budgets, lattice: bool = True) -> tuple[Share, ...]:
    out = []
    for stat, b in zip(plan.statistics, budgets):
        err = _error(stat, plan.unit, b, plan.confidence, lattice=lattice)
        ratio = None if stat.target is None or err is None else err / stat.target
        if stat.pure:
            eps, delta, rho = b, 0.0, None
        else:
            eps, delta, rho = zcdp_to_dp(b, plan.delta), plan.delta, b
        out.append(Share(stat, b, eps, delta, rho, err, ratio, _noise_words(stat, plan.unit, b)))
    return tuple(out)


def _total(plan: Plan, budgets) -> Composition:
    eps = [b for s, b in zip(plan.statistics, budgets) if s.pure]
    rho = [b for s, b in zip(plan.statistics, budgets) if not s.pure]
    return compose(eps, rho, plan.delta)


def _fit(plan: Plan, budgets_at) -> list[float]:
    """The budgets ``budgets_at(t)`` (increasing in t) whose total is the plan's ε: a bracketed root in t."""
    target = plan.epsilon
    t = root_on_log(lambda x: _total(plan, budgets_at(x)).epsilon - target, 1.0, increasing=True, rtol=1e-13)
    budgets = budgets_at(t)
    # the root may sit a hair above the total: step down until it fits (a few ulps at most)
    while _total(plan, budgets).epsilon > target:
        t *= 1.0 - 1e-12
        budgets = budgets_at(t)
    return budgets


def _weights_budgets(plan: Plan, weights) -> list[float]:
    w = np.asarray(weights, dtype=np.float64) / math.fsum(weights)
    if plan.pure:  # shares of ε: basic composition adds them up to the total exactly
        budgets = [float(plan.epsilon * x) for x in w]
        if _total(plan, budgets).epsilon >= plan.epsilon * (1.0 - _SLACK):
            return budgets
        # a declared δ whose zCDP total is below the sum: the same shares of ε, scaled up to spend the total
        return _fit(plan, lambda t: [float(t * x) for x in w])

    # shares of ρ; a pure statistic gets the ε whose zCDP is its ρ share
    def at(t):
        return [float(math.sqrt(2.0 * t * x) if s.pure else t * x) for s, x in zip(plan.statistics, w)]

    return _fit(plan, at)


def _on_lattice(plan: Plan, budgets: list[float]) -> list[float]:
    """Budgets raised where a statistic's lattice error still exceeds its target: a Gaussian with ρ tiny against its
    Δ is published on a grid coarser than Δ (:func:`dpcore.lattice.lattice_grid`), which widens it beyond
    :data:`LATTICE_MARGIN`. Each such budget takes the least of 16 geometric steps up to ``r`` (pure) or ``r²``
    (Gaussian), ``r`` its error over its target, that meets the target (the lattice's error is not monotone in the
    budget, so a step is checked, not solved for); a few rounds."""
    budgets = list(budgets)
    for _ in range(4):
        changed = False
        for i, s in enumerate(plan.statistics):
            err = expected_error(s, plan.unit, budgets[i], plan.confidence)
            if err is None or err <= s.target * (1.0 + _SLACK):
                continue
            r = err / s.target
            steps = np.geomspace(1.0, r if s.pure else r * r, 17)[1:]
            fits = (f for f in steps if expected_error(s, plan.unit, budgets[i] * f, plan.confidence) <= s.target)
            budgets[i] *= float(next(fits, steps[-1]))
            changed = True
        if not changed:
            break
    return budgets


def _accuracy_budgets(plan: Plan, coefficients, strict: bool, lattice: bool) -> tuple[list[float], float, float]:
    """The minimax split (module notes): budgets, the common ratio r*, and the smallest total meeting the targets."""
    stats = plan.statistics
    need = [c / s.target for s, c in zip(stats, coefficients)]  # c_i/T_i

    def at_ratio(r):
        return [n / r if s.pure else (n / r) * (n / r) for s, n in zip(stats, need)]  # inf, not OverflowError

    _check_budgets(plan, at_ratio(1.0), least=True)
    least = _on_lattice(plan, at_ratio(1.0)) if lattice else at_ratio(1.0)
    needed = _total(plan, least).epsilon
    if plan.epsilon is None:
        return least, 1.0, needed
    if strict and needed > plan.epsilon * (1.0 + _SLACK):
        delta = "" if plan.pure else f" at δ = {plan.delta:.3g}"
        raise PlanError(
            f"the total epsilon {plan.epsilon:g} is below the {needed:.4g} the accuracy targets need{delta}: raise the "
            "total or loosen the targets"
        )
    if plan.pure:
        r = math.fsum(need) / plan.epsilon
        budgets = [plan.epsilon * n / math.fsum(need) for n in need]
        if _total(plan, budgets).epsilon >= plan.epsilon * (1.0 - _SLACK):
            return budgets, r, needed
        budgets = _fit(plan, lambda t: at_ratio(1.0 / t))  # the zCDP total at the declared δ: a larger common ε
        return budgets, max(n / b for n, b in zip(need, budgets)), needed
    if not any(s.pure for s in stats):
        rho = zcdp_rho_for_epsilon(plan.epsilon, plan.delta)
        total = math.fsum(n * n for n in need)
        return [rho * n * n / total for n in need], math.sqrt(total / rho), needed
    budgets = _fit(plan, lambda t: at_ratio(1.0 / t))
    ratios = [n / b if s.pure else n / math.sqrt(b) for s, n, b in zip(stats, need, budgets)]
    return budgets, max(ratios), needed


def allocate(plan: Plan, *, strict: bool = True) -> Allocation:
    """Split the plan's budget by its policy (module notes), with every share's noise and expected error.

    Parameters
    ----------
    plan : Plan
    strict : bool, default True
        Under the accuracy policy with a total below what the targets need: refuse (True, what a publication does),
        or return the minimax split of that total anyway, its worst ratio above 1 (False: what a planner shows).

    Raises
    ------
    PlanError
        (A ``ValueError``.) Under the accuracy policy, when the plan's total is below what the targets need (one
        sentence with both totals).
    """
    if not isinstance(plan, Plan):
        raise TypeError(f"plan must be a Plan, got {type(plan).__name__}")
    return _allocate(plan, strict, lattice=True)


def _allocate(plan: Plan, strict: bool, lattice: bool) -> Allocation:
    stats = plan.statistics
    worst = needed = None
    if plan.policy == "accuracy":
        coefficients = [planning_coefficient(s, plan.unit, plan.confidence) for s in stats]
        budgets, worst, needed = _accuracy_budgets(plan, coefficients, strict, lattice)
    else:
        weights = [1.0] * len(stats) if plan.policy == "equal" else [s.weight for s in stats]
        budgets = _weights_budgets(plan, weights)
    _check_budgets(plan, budgets, least=False)  # before the lattice sizes its grid from them
    total = _total(plan, budgets)
    shares = _shares(plan, budgets, lattice)
    if plan.policy == "accuracy":
        worst = max(s.ratio for s in shares)
    return Allocation(plan, shares, total.epsilon, total.delta, total.accountant, worst, needed)


def error_curve(plan: Plan, totals) -> pd.DataFrame:
    """How the statistics' expected errors trade against each other as the total ε moves (the plan's δ and policy).

    One row per total and statistic: ``total epsilon``, ``statistic``, ``epsilon`` (its share), ``expected error``,
    ``error to target`` (None without a target). Under the accuracy policy each total gets its minimax split, also
    below what the targets need (ratios above 1 there). From the plan alone; the errors of the continuous noise laws
    (the lattice adds at most a few parts in 10³, which :func:`allocate` includes).

    Parameters
    ----------
    plan : Plan
    totals : sequence of float
        Total ε's, each in (0, inf); at most :data:`MAX_CURVE_TOTALS`.
    """
    totals = [float(t) for t in np.asarray(totals, dtype=np.float64).reshape(-1)]
    if not 1 <= len(totals) <= MAX_CURVE_TOTALS:
        raise ValueError(f"totals must hold 1 to {MAX_CURVE_TOTALS} values, got {len(totals)}")
    rows = []
    for total in totals:
        a = _allocate(replace(plan, epsilon=_number(total, "a total epsilon", low=0.0)), False, lattice=False)
        for share in a.shares:
            rows.append(
                {
                    "total epsilon": total,
                    "statistic": share.statistic.name,
                    "epsilon": share.epsilon,
                    "expected error": share.expected_error,
                    "error to target": share.ratio,
                }
            )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------- plan files

_STAT_FIELDS = tuple(f for f in Statistic.__dataclass_fields__)
_PLAN_FIELDS = ("version", "title", "unit", "total", "policy", "confidence", "statistics")
_UNIT_FIELDS = ("identifier", "max_rows", "max_groups", "max_rows_per_group")
#: The version of the plan file format written by :func:`plan_to_dict`.
PLAN_VERSION = 1


def _unknown(given, allowed, where: str) -> None:
    extra = sorted(set(given) - set(allowed))
    if extra:
        raise PlanError(f"{where} has an unknown entry {extra[0]!r} (allowed: {', '.join(allowed)})")


def plan_from_dict(data) -> Plan:
    """A :class:`Plan` from its file form (:func:`plan_to_dict`); an unknown or misspelt entry is refused by name."""
    if not isinstance(data, dict):
        raise PlanError(f"a plan must be a JSON object, got {type(data).__name__}")
    _unknown(data, _PLAN_FIELDS, "the plan")
    version = data.get("version", PLAN_VERSION)
    if version != PLAN_VERSION:
        raise PlanError(f"the plan's version must be {PLAN_VERSION}, got {version!r}")
    unit_data = data.get("unit") or {}
    if not isinstance(unit_data, dict):
        raise PlanError(f"the plan's unit must be an object, got {type(unit_data).__name__}")
    _unknown(unit_data, _UNIT_FIELDS, "the plan's unit")
    identifier = unit_data.get("identifier")
    bounds = {k: unit_data[k] for k in _UNIT_FIELDS[1:] if k in unit_data}
    unit = PrivacyUnit(identifier, ContributionBounds(**bounds)) if identifier is not None or bounds else PrivacyUnit()
    total = data.get("total") or {}
    if not isinstance(total, dict):
        raise PlanError(f"the plan's total must be an object with epsilon and delta, got {type(total).__name__}")
    _unknown(total, ("epsilon", "delta"), "the plan's total")
    stats = data.get("statistics")
    if not isinstance(stats, list):
        raise PlanError('the plan must list its statistics ("statistics": a list)')
    parsed = []
    for i, s in enumerate(stats):
        if not isinstance(s, dict):
            raise PlanError(f"statistic {i + 1} must be an object, got {type(s).__name__}")
        _unknown(s, _STAT_FIELDS, f"statistic {s.get('name', i + 1)!r}")
        if "name" not in s or "kind" not in s:
            raise PlanError(f'statistic {i + 1} needs a "name" and a "kind"')
        kw = dict(s)
        for key in ("domain", "keys"):
            if isinstance(kw.get(key), list):
                kw[key] = tuple(kw[key])
        if isinstance(kw.get("where"), list):
            kw["where"] = tuple(tuple(c) if isinstance(c, list) else c for c in kw["where"])
        parsed.append(Statistic(**kw))
    return Plan(
        statistics=tuple(parsed),
        unit=unit,
        epsilon=total.get("epsilon"),
        delta=total.get("delta", 0.0),
        policy=data.get("policy", "equal"),
        confidence=data.get("confidence", 0.95),
        title=data.get("title", ""),
    )


def plan_to_dict(plan: Plan) -> dict:
    """The file form of a plan (JSON-ready; defaults left out of each statistic); :func:`plan_from_dict` reads it."""
    defaults = Statistic("x", "count")
    stats = []
    for s in plan.statistics:
        entry = {}
        for name in _STAT_FIELDS:
            value = getattr(s, name)
            if name in ("name", "kind") or value != getattr(defaults, name):
                entry[name] = list(value) if isinstance(value, tuple) else value
                if name == "where":
                    entry[name] = [list(c) for c in value]
        stats.append(entry)
    b = plan.unit.bounds
    unit = {"identifier": plan.unit.identifier}
    if plan.unit.identifier is not None:
        unit.update(max_rows=b.max_rows, max_groups=b.max_groups, max_rows_per_group=b.max_rows_per_group)
    return {
        "version": PLAN_VERSION,
        "title": plan.title,
        "unit": unit,
        "total": {"epsilon": plan.epsilon, "delta": plan.delta},
        "policy": plan.policy,
        "confidence": plan.confidence,
        "statistics": stats,
    }


#: The words by which a statistic's provenance says a fact was read from the private data (the Publish page writes
#: them when it fills a list from the file). Such a fact is not declared public: issue 18's rule, nothing published is
#: chosen by the data unless it is released privately and charged.
NOT_PRIVATE = "not private"


def check_publishable(plan: Plan) -> None:
    """Refuse (:class:`PlanError`, one sentence) a plan with a fact read from the private data.

    A simulation or a preview may use such a plan; a publication may not: its categories, bounds or keys would be
    chosen by the data, and their presence alone reveals values of it.
    """
    for i, stat in enumerate(plan.statistics, start=1):
        if NOT_PRIVATE in stat.provenance.lower():
            raise PlanError(
                f"Statistic {i} ({stat.name}) has facts read from the data (its source says {NOT_PRIVATE!r}); "
                "declare them from outside the data (a codebook) before publishing."
            )
