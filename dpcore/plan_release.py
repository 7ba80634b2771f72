"""Drawing a release plan on a table: every statistic of an :class:`~dpcore.plan.Allocation`, published or simulated.

:func:`publish_plan` is the publication: each person's rows bounded by securely random sampling
(:func:`dpcore.contributions.bound_contributions`), each statistic's true answer computed on the bounded rows with
the declared facts alone (clipping bounds, bins, domains, group keys: nothing published is chosen by the data), and
its noise drawn once from :class:`~dpcore.randomness.SecureGenerator` on a power-of-two lattice with exact discrete
noise (:func:`dpcore.lattice.lattice_mechanism`); a quantile by :func:`dpcore.publish.publish_quantile`. It returns
a :class:`PlanRelease`: one :class:`~dpcore.release.Release` per statistic and one for the whole plan at its
composed (ε, δ), which is what a publication log is charged (:meth:`PlanRelease.combined`).

:func:`simulate_plan` draws the same releases many times from a seeded generator, with the truth beside them, to
check the plan's expected errors: a simulation, not private.

Rules fixed before the data is read: a missing value of a numeric column leaves its row out of that statistic
(infinite values are clipped to the bounds); a value outside a declared domain or key list is counted in "(other)"
when declared, left out otherwise; a histogram clips values into its end bins; a mean is the noisy sum over the
noisy count floored at 1 (or over the declared public n), clipped to the bounds (post-processing); a count where
counts the rows meeting every declared condition (a missing value meets none; a number condition compares finite
numbers); a two-way table counts each pair of its declared domains (a row with a value outside them in its "(other)"
row or column when declared, left out otherwise); counts per period read a date as a value whose text starts
``YYYY-MM`` (ISO dates, dates and timestamps), others and dates outside the declared years left out; the most common
value is chosen among the declared domain by the exponential mechanism on the bounded counts (the selection
:func:`dpcore.publish.publish_most_common` draws with), values outside it left out.

References
----------
- Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson (2020), "Differentially Private SQL with Bounded User
  Contribution", PoPETs 2020(2), Section 3 (bound each person's rows, then aggregate). https://arxiv.org/abs/1909.01917
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS, Section 5.
  https://arxiv.org/abs/2004.00010
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from fractions import Fraction

import numpy as np
import pandas as pd

from dpcore.contributions import bound_contributions
from dpcore.exact_choice import exact_choice  # the selection dpcore.publish.publish_most_common draws with
from dpcore.lattice import LatticeMechanism, lattice_mechanism
from dpcore.neighbours import ADD_REMOVE
from dpcore.plan import (
    NUMBER_CONDITIONS,
    Allocation,
    PlanError,
    Share,
    Statistic,
    expected_error,
    noise_parts,
    selection_sensitivity,
)
from dpcore.postprocess import error_step, release_step
from dpcore.publish import publish_quantile
from dpcore.quantiles import ExponentialQuantile
from dpcore.randomness import Randomness, SecureGenerator
from dpcore.release import PublicFact, Release, as_tuple
from dpcore.validation import as_generator, check_trials

__all__ = [
    "PlanRelease",
    "SimulatedPlan",
    "publish_plan",
    "publish_from_aggregates",
    "simulate_from_aggregates",
    "simulate_plan",
    "rounding_step",
    "check_columns",
]


def _frame(table) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame, got {type(table).__name__}")
    return table


def _listing(names) -> str:
    names = [str(n) for n in names]
    shown = ", ".join(repr(n) for n in names[:12])
    return shown + (f" and {len(names) - 12:,} more" if len(names) > 12 else "")


def check_columns(allocation: Allocation, table) -> None:
    """Refuse, in one sentence, a plan reading a column the table does not have (the identifier included)."""
    frame = _frame(table)
    plan = allocation.plan
    wanted = []
    if plan.unit.identifier is not None:
        wanted.append(("the unit of privacy", plan.unit.identifier))
    for s in plan.statistics:
        for col in s.columns:
            wanted.append((f"statistic {s.name!r}", col))
    for who, col in wanted:
        if col not in frame.columns:
            raise PlanError(
                f"{who} reads the column {col!r}, which the data does not have (its columns: {_listing(frame.columns)})"
            )


def _numbers(frame: pd.DataFrame, stat: Statistic, column: str | None = None) -> np.ndarray:
    column = stat.column if column is None else column
    series = frame[column]
    if not (pd.api.types.is_numeric_dtype(series) or series.isna().all()) or pd.api.types.is_bool_dtype(series):
        raise PlanError(f"statistic {stat.name!r} needs numbers in the column {column!r}, which holds text")
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


#: Each number condition as numpy's comparison (:data:`dpcore.plan.NUMBER_CONDITIONS`, in its order).
_COMPARE = dict(zip(NUMBER_CONDITIONS, (np.greater_equal, np.greater, np.less_equal, np.less, np.equal, np.not_equal)))


def _where_mask(frame: pd.DataFrame, stat: Statistic) -> np.ndarray:
    """The rows meeting every declared condition of a count where (module notes)."""
    mask = np.ones(len(frame), dtype=bool)
    for column, condition, value in stat.where:
        if condition in NUMBER_CONDITIONS:
            numbers = _numbers(frame, stat, column)
            with np.errstate(invalid="ignore"):
                mask &= _COMPARE[condition](numbers, value) & np.isfinite(numbers)
            continue
        series = frame[column]
        equal = _category_codes(series, (value,), False) == 0
        mask &= equal if condition == "is" else series.notna().to_numpy() & ~equal
    return mask


#: A date: a value whose text starts with a four-digit year and a two-digit month (the engines' rule too).
DATE_PATTERN = "^([0-9]{4})-([0-9]{2})"


def _period_codes(series: pd.Series, stat: Statistic) -> np.ndarray:
    """Each row's index among the declared periods; −1 for a missing value, one that is not a date, or a date outside
    the declared years."""
    found = series.astype(str).str.extract(DATE_PATTERN)
    years = pd.to_numeric(found[0]).to_numpy(dtype=np.float64, na_value=np.nan)
    months = pd.to_numeric(found[1]).to_numpy(dtype=np.float64, na_value=np.nan)
    inside = series.notna().to_numpy() & (years >= stat.first_year) & (years <= stat.last_year)
    inside &= (months >= 1) & (months <= 12)
    offset = np.where(inside, years - stat.first_year, 0.0)
    codes = offset if stat.period == "year" else offset * 12 + np.where(inside, months - 1, 0.0)
    return np.where(inside, codes, -1).astype(np.int64)


def _pair_codes(frame: pd.DataFrame, stat: Statistic) -> np.ndarray:
    """Each row's cell of a two-way table, row by row (−1: a value outside the domains without "(other)")."""
    rows = _category_codes(frame[stat.column], stat.domain, stat.other)
    columns = _category_codes(frame[stat.by], stat.keys, stat.other)
    width = len(stat.keys) + stat.other
    return np.where((rows >= 0) & (columns >= 0), rows * width + columns, -1).astype(np.int64)


def _number_text(v: float) -> str:
    if not np.isfinite(v):
        return str(v)
    return str(int(v)) if float(v).is_integer() else f"{v:.15g}"


def _category_codes(series: pd.Series, labels: tuple[str, ...], other: bool) -> np.ndarray:
    """Each row's index in the declared ``labels`` (as text); outside: "(other)" when declared, else −1 (left out)."""
    index = {label: i for i, label in enumerate(labels)}
    outside = len(labels) if other else -1
    present = series.notna().to_numpy()
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        # a number matches its declared text: 9.0 (a whole-number column with missing values) is "9"
        text = np.array([_number_text(v) for v in series.to_numpy(dtype=np.float64, na_value=np.nan)], dtype=object)
    else:
        text = series.astype(str).to_numpy()
    codes = np.fromiter((index.get(t, outside) for t in text), dtype=np.int64, count=text.size)
    codes[~present] = outside  # a missing value is outside every declared category
    return codes


def _bin_codes(values: np.ndarray, stat: Statistic) -> np.ndarray:
    """Each value's bin of the declared edges (end bins take what is clipped into them); −1 for a missing value."""
    inner = stat.edges[1:-1]
    codes = np.searchsorted(inner, values, side="right").astype(np.int64)
    codes[np.isnan(values)] = -1
    return codes


@dataclass(frozen=True, eq=False)
class _Prepared:
    """One statistic's truth on the bounded rows: its additive parts ``(true, lattice)`` or a quantile's values."""

    share: Share
    parts: tuple[tuple[np.ndarray, LatticeMechanism], ...]
    counts: np.ndarray | None = None
    quantile_values: np.ndarray | None = None


def _kept(persons, present: np.ndarray, rng, bounds, groups=None) -> np.ndarray:
    """The rows kept: every present row with one row per person; else each person's rows bounded (random sampling)."""
    if persons is None:
        return present
    kept = np.zeros(present.size, dtype=bool)
    table = bound_contributions(
        persons[present], rng, bounds=bounds, groups=None if groups is None else groups[present]
    )
    kept[np.flatnonzero(present)[table.kept]] = True
    return kept


def _prepare(allocation: Allocation, table, rng) -> list[_Prepared]:
    frame = _frame(table)
    check_columns(allocation, frame)
    plan = allocation.plan
    unit = plan.unit
    persons = None if unit.identifier is None else frame[unit.identifier].to_numpy()
    out = []
    n = len(frame)
    for share in allocation.shares:
        stat = share.statistic
        if stat.kind == "quantile":
            out.append(_Prepared(share, (), None, _numbers(frame, stat)))
            continue
        values = _numbers(frame, stat) if stat.kind in ("sum", "mean", "histogram") else None
        if stat.kind == "histogram":
            codes, k = _bin_codes(values, stat), stat.bins
        elif stat.kind == "most_common":
            codes, k = _category_codes(frame[stat.column], stat.domain, False), len(stat.domain)
        elif stat.kind == "two_way":
            codes, k = _pair_codes(frame, stat), len(stat.labels)
        elif stat.kind == "periods":
            codes, k = _period_codes(frame[stat.column], stat), len(stat.labels)
        elif stat.kind == "count_where":
            codes, k = np.where(_where_mask(frame, stat), 0, -1).astype(np.int64), 1
        elif stat.kind == "counts":
            codes, k = _category_codes(frame[stat.column], stat.domain, stat.other), len(stat.labels)
        elif stat.by is not None:
            codes, k = _category_codes(frame[stat.by], stat.keys, stat.other), len(stat.labels)
        else:
            codes, k = np.zeros(n, dtype=np.int64), 1
        present = codes >= 0
        if values is not None and stat.kind != "histogram":
            present &= ~np.isnan(values)
        grouped = stat.grouped or stat.kind == "most_common"  # its counts per category: L₀ and L∞
        kept = _kept(persons, present, rng, unit.bounds, codes if grouped else None)
        counts = np.bincount(codes[kept], minlength=k).astype(np.float64)
        if stat.kind == "most_common":
            out.append(_Prepared(share, (), counts))
            continue
        sums = None
        if stat.kind in ("sum", "mean"):
            clipped = np.clip(values[kept], stat.lower, stat.upper)
            sums = np.bincount(codes[kept], weights=clipped, minlength=k).astype(np.float64)
        truths = [sums] if stat.kind == "sum" else [counts]
        if stat.kind == "mean":
            truths = [sums] if stat.n_public is not None else [sums, counts]
        lattices = [lattice_mechanism(noise) for _, noise in noise_parts(stat, unit, share.budget)]
        out.append(_Prepared(share, tuple(zip(truths, lattices)), counts))
    return out


def _finish(stat: Statistic, noisy: list[np.ndarray]) -> np.ndarray:
    """The released numbers from the noisy parts (a mean's ratio is post-processing)."""
    if stat.kind != "mean":
        return noisy[0]
    denominator = float(stat.n_public) if stat.n_public is not None else np.maximum(noisy[1], 1.0)
    return np.clip(noisy[0] / denominator, stat.lower, stat.upper)


def _facts(stat: Statistic, plan) -> tuple[PublicFact, ...]:
    from dpcore.publish import OTHER

    facts = [PublicFact("statistic", stat.words(), "declared")]
    if stat.lower is not None:
        facts.append(PublicFact("clipping bounds", f"[{stat.lower:g}, {stat.upper:g}]", "declared"))
    if stat.kind == "histogram":
        facts.append(
            PublicFact("bins", f"{stat.bins} equal bins; values outside the bounds in the end bins", "declared")
        )
    if stat.kind == "two_way":
        facts.append(PublicFact("row categories", ", ".join(stat.domain), "declared"))
        facts.append(PublicFact("column categories", ", ".join(stat.keys), "declared"))
        rule = f"counted in {OTHER}" if stat.other else "rows holding them left out"
        facts.append(PublicFact("values outside them (missing included)", rule, "fixed"))
    elif stat.domain is not None or stat.keys is not None:
        listed = stat.domain if stat.domain is not None else stat.keys
        facts.append(
            PublicFact("categories" if stat.domain is not None else "group keys", ", ".join(listed), "declared")
        )
        rule = f"counted in {OTHER}" if stat.other else "left out"
        facts.append(PublicFact("values outside them (missing included)", rule, "fixed"))
    if stat.kind == "mean":
        if stat.n_public is not None:
            facts.append(PublicFact("number of records n (divides the noisy sum)", f"{stat.n_public:,}", "declared"))
        else:
            facts.append(
                PublicFact("planned number of records (for the expected error only)", f"{stat.planned_n:,}", "declared")
            )
            facts.append(PublicFact("share of the budget for the sum", f"{stat.split:g}", "declared"))
    if stat.kind == "count_where":
        facts.append(PublicFact("conditions", stat.condition_words(), "declared"))
        facts.append(
            PublicFact("rows meeting them", "a missing value meets no condition; numbers compared when finite", "fixed")
        )
    if stat.kind == "periods":
        facts.append(PublicFact("years", f"{stat.first_year} to {stat.last_year}", "declared"))
        facts.append(
            PublicFact(
                "dates",
                "a value whose text starts YYYY-MM; others, and dates outside the declared years, left out",
                "fixed",
            )
        )
    if stat.kind == "quantile":
        facts.append(PublicFact("quantile q", f"{stat.q:g}", "declared"))
        if stat.resolution is not None:
            facts.append(PublicFact("resolution of the values", f"{stat.resolution:g}", "declared"))
    if stat.kind in ("sum", "mean", "histogram", "quantile"):
        facts.append(PublicFact("missing values", "left out", "fixed"))
    if plan.unit.identifier is not None:
        facts.append(PublicFact("person identifier", plan.unit.identifier, "declared"))
        facts.append(PublicFact("contribution bounds", plan.unit.bounds.words(), "declared"))
    return tuple(facts)


@dataclass(frozen=True, eq=False)
class PlanRelease:
    """A published plan: one release per statistic, and the plan as one release at its composed (ε, δ).

    Attributes
    ----------
    allocation : Allocation
    releases : tuple of Release
        One per statistic, in the plan's order; published numbers only.
    combined : Release
        Every number of the plan with the total (ε, δ) of :attr:`allocation` (what a log is charged).
    created : str
        UTC time of the draw, ISO 8601.
    counts : tuple
        Per statistic, a mean's released noisy counts (its denominators, floored at 1), None for any other statistic
        (and for a mean over a declared public n): released with it, under its budget.
    """

    allocation: Allocation
    releases: tuple[Release, ...]
    combined: Release
    created: str
    counts: tuple = ()

    def released_errors(self) -> tuple:
        """Per statistic, a mean's error at its released noisy count, one per label (None for any other statistic):
        :func:`dpcore.plan.expected_error` with the planned n replaced by the count released (post-processing: free),
        the same worst-case bound over tables within the declared bounds as the error at the planned n."""
        out = []
        for share, counts in zip(self.allocation.shares, self.counts or (None,) * len(self.releases)):
            if counts is None:
                out.append(None)
                continue
            stat, plan = share.statistic, self.allocation.plan
            out.append(
                tuple(
                    expected_error(
                        replace(stat, planned_n=max(1, int(round(c)))), plan.unit, share.budget, plan.confidence
                    )
                    for c in counts
                )
            )
        return tuple(out)

    def table(self, *, rounded: bool = True) -> pd.DataFrame:
        """Statistic, label, released value (rounded to :func:`rounding_step`, post-processing) and the expected
        error at the plan's confidence: the published numbers only."""
        rows = []
        for share, release, at_count in zip(self.allocation.shares, self.releases, self.released_errors()):
            for i, (label, value) in enumerate(zip(release.labels, release.values)):
                step = rounding_step(share, None if at_count is None else at_count[i]) if rounded else None
                rows.append(
                    {
                        "statistic": share.statistic.name,
                        "label": label,
                        "released value": _round(value, step),
                        "expected error (±)": _significant(share.expected_error),
                        "error unit": share.statistic.error_unit or "as the value",
                    }
                )
        return pd.DataFrame(rows)


#: The kinds of statistic that count rows (or persons): published in whole units.
COUNTING_KINDS = frozenset({"count", "histogram", "counts", "count_where", "two_way", "periods"})


def rounding_step(share: Share, released_error: float | None = None) -> float | None:
    """The step a published number is rounded to: whole units for a count (:func:`dpcore.postprocess.release_step`),
    else a power of ten at most a tenth of the smallest error stated for it (:func:`dpcore.postprocess.error_step`):
    its expected error and, for a mean, ``released_error``, its error at the released count (the noise it carries).

    Digits far below the noise carry nothing but noise; rounding is post-processing (free). A quantile is rounded to
    the power of ten at most its declared resolution (None without one: it stays on its grid).
    """
    err = share.expected_error
    if share.statistic.kind in COUNTING_KINDS:  # a count is published in whole units (the one rule: postprocess)
        return release_step(math.nan, whole=True)
    if share.statistic.kind == "most_common":  # a declared category, not a number
        return None
    if share.statistic.kind == "quantile":  # its error is in ranks: round to the declared resolution of the values
        res = share.statistic.resolution
        return None if res is None else 10.0 ** math.floor(math.log10(res))
    return error_step(err, released_error)


def _significant(x: float | None, digits: int = 3) -> float | None:
    """An expected error to ``digits`` significant digits (what a table shows)."""
    if x is None or not x > 0:
        return x
    return round(x, digits - 1 - math.floor(math.log10(x)))


def _round(value, step):
    if step is None or not isinstance(value, float):
        return value
    decimals = max(0, -int(round(math.log10(step))))
    return round(round(value / step) * step, decimals)


def publish_plan(allocation: Allocation, table) -> PlanRelease:
    """Publish every statistic of ``allocation`` on ``table`` once, with fresh secure noise (module notes).

    Parameters
    ----------
    allocation : Allocation
        From :func:`dpcore.plan.allocate`.
    table : pandas.DataFrame
        The private data, with every column the plan reads.

    Raises
    ------
    PlanError
        (A ``ValueError``.) A column the plan reads is missing, or a numeric statistic's column holds text.
    """
    if not isinstance(allocation, Allocation):
        raise TypeError(f"allocation must be an Allocation, got {type(allocation).__name__}")
    secure = SecureGenerator()
    prepared = _prepare(allocation, table, secure)
    plan = allocation.plan
    releases = []
    for p in prepared:
        stat, share = p.share.statistic, p.share
        if stat.kind == "quantile":
            drawn = publish_quantile(p.quantile_values, stat.q, stat.lower, stat.upper, share.budget)
            releases.append((replace(drawn, query=stat.name, public=(*_facts(stat, plan), *drawn.public[3:])), None))
            continue
        if stat.kind == "most_common":
            releases.append(_selection_release(share, plan, p.counts, secure, "secure bits", Randomness.PUBLICATION))
            continue
        releases.append(_lattice_release(share, plan, p.parts, secure, "secure noise", Randomness.PUBLICATION))
    return _plan_release(allocation, releases, Randomness.PUBLICATION)


def _lattice_release(share, plan, parts, rng, how: str, randomness, source: str = ""):
    """One statistic drawn on its lattices: ``parts`` pairs each true vector with its lattice mechanism. Returns the
    release and, for a mean with a noisy count, its released counts (floored at 1, as it divides), else None."""
    stat = share.statistic
    noisy = [np.asarray(lat.draw(true, rng), dtype=np.float64).reshape(-1) for true, lat in parts]
    grid = min(lat.grid for _, lat in parts)
    counts = tuple(float(c) for c in np.maximum(noisy[1], 1.0)) if stat.kind == "mean" and len(noisy) == 2 else None
    return Release(
        query=stat.name,
        value=as_tuple(_finish(stat, noisy)) if stat.grouped else float(_finish(stat, noisy)[0]),
        labels=stat.labels,
        mechanism="; ".join(share.noise)
        + f"; drawn with {how} on a lattice (grid {grid:g}, exact discrete noise)"
        + source,
        noise_std=parts[0][1].noise_std if len(parts) == 1 else math.nan,
        epsilon=share.epsilon,
        delta=share.delta,
        relation=ADD_REMOVE,
        unit=plan.unit.unit,
        randomness=randomness,
        public=_facts(stat, plan),
    ), counts


def _most_common(counts, epsilon: float, sensitivity: float, rng) -> int:
    """The index chosen with probability ∝ ``exp(−ε (max count − count_k) / (2Δu))``, drawn from that law exactly by
    :func:`dpcore.exact_choice.exact_choice` (ε and Δu read as the exact rationals they are), as
    :func:`dpcore.publish.publish_most_common` draws it (there Δu = 1)."""
    counts = np.rint(np.asarray(counts, dtype=np.float64)).astype(np.int64)
    gaps = counts.max() - counts
    base = Fraction(epsilon) / (2 * Fraction(sensitivity))
    return exact_choice(np.ones(counts.size, dtype=np.int64), gaps, (base,), rng)


def _selection_release(share, plan, counts, rng, how: str, randomness, source: str = ""):
    """The most common value: the exponential mechanism over the declared domain on the bounded ``counts`` (score:
    the count, sensitivity :func:`dpcore.plan.selection_sensitivity`), the selection publish_most_common draws with.
    Returns the release and None (no released counts)."""
    stat = share.statistic
    chosen = _most_common(counts, share.budget, selection_sensitivity(plan.unit), rng)
    release = Release(
        query=stat.name,
        value=stat.domain[chosen],
        labels=stat.labels,
        mechanism="; ".join(share.noise) + f"; its law sampled exactly from {how}" + source,
        noise_std=math.nan,
        epsilon=share.epsilon,
        delta=share.delta,
        relation=ADD_REMOVE,
        unit=plan.unit.unit,
        randomness=randomness,
        public=_facts(stat, plan),
    )
    return release, None


def _plan_release(allocation: Allocation, drawn: list, randomness) -> PlanRelease:
    """The statistics' releases (each with a mean's released counts or None) and their combination, stamped now."""
    plan, unit = allocation.plan, allocation.plan.unit
    releases = [r for r, _ in drawn]
    combined = Release(
        query="release plan" + (f": {plan.title}" if plan.title else ""),
        value=tuple(v if isinstance(v, str) else float(v) for r in releases for v in r.values),
        labels=tuple(f"{r.query}: {label}" for r in releases for label in r.labels),
        mechanism=f"{len(releases)} statistics, each with its own noise; total by {allocation.accountant}",
        noise_std=math.nan,
        epsilon=allocation.epsilon,
        delta=allocation.delta,
        relation=ADD_REMOVE,
        unit=unit.unit,
        randomness=randomness,
        public=(
            PublicFact("unit of privacy", unit.words(), "declared"),
            PublicFact("split", plan.policy, "declared"),
            PublicFact("accountant", allocation.accountant, "fixed"),
        ),
    )
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    return PlanRelease(allocation, tuple(releases), combined, stamp, tuple(c for _, c in drawn))


@dataclass(frozen=True, eq=False)
class SimulatedPlan:
    """Seeded draws of a plan with the truth beside them: simulated, not private (for checking expected errors).

    Attributes
    ----------
    allocation : Allocation
    truths : tuple of numpy.ndarray
        Per statistic, the exact answer on the bounded rows (a mean: the clipped mean; a quantile: its value).
    draws : tuple of numpy.ndarray
        Per statistic, shape ``(trials, numbers)``: the simulated release (a quantile: its rank shortfall).
    values : tuple of numpy.ndarray
        Per statistic, shape ``(trials, numbers)``: the simulated released numbers (a quantile: its value).
    randomness : Randomness
        Always SIMULATION.
    counts : tuple
        Per statistic, a mean's simulated noisy counts, shape ``(trials, numbers)`` (None for any other statistic):
        its table rounds each draw for its error at its count, as a publication's does.
    """

    allocation: Allocation
    truths: tuple[np.ndarray, ...]
    draws: tuple[np.ndarray, ...]
    values: tuple[np.ndarray, ...]
    randomness: Randomness = Randomness.SIMULATION
    counts: tuple = ()

    def errors(self) -> tuple[np.ndarray, ...]:
        """Per statistic, ``|draw − truth|`` of every number, shape ``(trials, numbers)`` (a quantile: in ranks)."""
        return self._errors

    @property
    def _errors(self):
        return tuple(np.abs(d - t) for d, t in zip(self.draws, self.truths))

    def table(self, trial: int = 0, *, rounded: bool = False) -> pd.DataFrame:
        """One simulated publication (``trial``) as the published table would look (a preview on a public file):
        statistic, label, simulated value (``rounded``: to :func:`rounding_step`, as :meth:`PlanRelease.table`
        shows a publication), expected error, and on every row that it is simulated, not private.
        """
        rows = []
        plan = self.allocation.plan
        for share, draw, counts in zip(self.allocation.shares, self.values, self.counts or (None,) * len(self.values)):
            for i, (label, value) in enumerate(zip(share.statistic.labels, draw[trial])):
                at_count = None
                if rounded and counts is not None:  # the error at this draw's count (post-processing)
                    n = max(1, int(round(counts[trial][i])))
                    at_count = expected_error(
                        replace(share.statistic, planned_n=n), plan.unit, share.budget, plan.confidence
                    )
                step = rounding_step(share, at_count) if rounded else None
                rows.append(
                    {
                        "statistic": share.statistic.name,
                        "label": label,
                        "simulated value": _round(value if isinstance(value, str) else float(value), step),
                        "expected error (±)": _significant(share.expected_error),
                        "randomness": self.randomness.words,
                    }
                )
        return pd.DataFrame(rows)


def simulate_plan(allocation: Allocation, table, rng, trials: int) -> SimulatedPlan:
    """``trials`` seeded draws of every statistic of the plan on ``table`` (exact lattice noise; not private).

    The bounding of each person's rows is drawn once (from ``rng``); the noise anew in each trial. A quantile's error
    is its rank shortfall from the best interval, ``|rank − q·n| − min |rank − q·n|`` (what its expected error
    bounds), with truth 0.
    """
    rng = as_generator(rng)
    prepared = _prepare(allocation, table, rng)
    truths, draws, values_out, counts = [], [], [], []
    for p in prepared:
        stat = p.share.statistic
        counts.append(None)
        if stat.kind == "quantile":
            values = p.quantile_values[~np.isnan(p.quantile_values)]
            mech = ExponentialQuantile(p.share.budget, stat.lower, stat.upper, stat.q, ADD_REMOVE)
            law = mech.intervals(values)
            k = law.sample_index(rng, check_trials(trials))
            values_out.append((law.left[k] + rng.random(k.shape) * (law.right[k] - law.left[k])).reshape(-1, 1))
            # the rank shortfall OPT − u of the interval drawn (what the quantile's expected error bounds)
            truths.append(np.zeros(1))
            draws.append((law.utility.max() - law.utility[k]).astype(np.float64).reshape(-1, 1))
            continue
        if stat.kind == "most_common":  # the chosen count's shortfall below the top count (what its error bounds)
            sensitivity = selection_sensitivity(allocation.plan.unit)  # each trial the publication's exact draw
            k = np.array(
                [_most_common(p.counts, p.share.budget, sensitivity, rng) for _ in range(check_trials(trials))]
            )
            truths.append(np.zeros(1))
            draws.append((p.counts.max() - p.counts[k]).reshape(-1, 1))
            values_out.append(np.asarray(stat.domain, dtype=object)[k].reshape(-1, 1))
            continue
        noisy = [
            np.asarray(lat.simulate(true, rng, trials), dtype=np.float64).reshape(trials, -1) for true, lat in p.parts
        ]
        exact = [true for true, _ in p.parts]
        if stat.kind == "mean":
            truths.append(np.clip(exact[0] / np.maximum(p.counts, 1.0), stat.lower, stat.upper))
        else:
            truths.append(exact[0])
        draws.append(_finish(stat, noisy))
        values_out.append(draws[-1])
        if stat.kind == "mean" and len(noisy) == 2:
            counts[-1] = np.maximum(noisy[1], 1.0)
    return SimulatedPlan(
        allocation, tuple(truths), tuple(draws), tuple(values_out), Randomness.SIMULATION, tuple(counts)
    )


def _checked_truths(allocation: Allocation, aggregates) -> list[list[np.ndarray]]:
    """Each statistic's true parts from an engine's aggregates, every one checked before any noise is drawn."""
    if not isinstance(allocation, Allocation):
        raise TypeError(f"allocation must be an Allocation, got {type(allocation).__name__}")
    aggregates = list(aggregates)
    if len(aggregates) != len(allocation.shares):
        raise PlanError(
            f"aggregates must give one entry per statistic ({len(allocation.shares)}), got {len(aggregates)}"
        )
    quantiles = [s.statistic.name for s in allocation.shares if s.statistic.kind == "quantile"]
    if quantiles:
        raise PlanError(f"statistic {quantiles[0]!r} is a quantile, which needs the rows: publish it with publish_plan")
    all_truths = []
    for share, found in zip(allocation.shares, aggregates):
        stat = share.statistic
        k = len(stat.domain) if stat.kind == "most_common" else len(stat.labels)  # its counts per category
        parts = {"rows": None, "total": None}
        for name in ("rows", "total") if stat.kind in ("sum", "mean") else ("rows",):
            values = np.asarray(found[name], dtype=np.float64).reshape(-1)
            if values.size != k or not np.all(np.isfinite(values)) or (name == "rows" and np.any(values < 0)):
                raise PlanError(
                    f"statistic {stat.name!r} needs {k} finite {name} (one per label, rows not negative), "
                    f"got {values.size}"
                )
            parts[name] = values
        truths = [parts["total"]] if stat.kind == "sum" else [parts["rows"]]
        if stat.kind == "mean":
            truths = [parts["total"]] if stat.n_public is not None else [parts["total"], parts["rows"]]
        all_truths.append(truths)
    return all_truths


def _from_aggregates(allocation: Allocation, all_truths, rng, randomness) -> PlanRelease:
    plan, unit = allocation.plan, allocation.plan.unit
    secure = randomness is Randomness.PUBLICATION
    how = "secure noise" if secure else "seeded noise (simulated, not private)"
    releases = []
    for share, truths in zip(allocation.shares, all_truths):
        if share.statistic.kind == "most_common":
            words = "secure bits" if secure else "seeded bits (simulated, not private)"
            source = ", on counts computed by a data engine"
            releases.append(_selection_release(share, plan, truths[0], rng, words, randomness, source))
            continue
        lattices = [lattice_mechanism(noise) for _, noise in noise_parts(share.statistic, unit, share.budget)]
        parts = list(zip(truths, lattices))
        releases.append(
            _lattice_release(share, plan, parts, rng, how, randomness, ", on aggregates computed by a data engine")
        )
    return _plan_release(allocation, releases, randomness)


def publish_from_aggregates(allocation: Allocation, aggregates) -> PlanRelease:
    """Publish a plan from exact aggregates computed where the data lives (an engine), not from its rows.

    The engine (``explorer.engine``: DuckDB in the process, or Spark) bounds each person's rows and computes each
    statistic's rows kept and clipped sum per label; here each gets its noise on the lattice from
    :class:`~dpcore.randomness.SecureGenerator`, exactly as :func:`publish_plan` draws it on the truths it computes
    itself, so memory follows the number of labels, not of rows. The bounding's sampling seed must have been fresh
    and secret (the engine's ``secret_seed``). It takes no generator and no seed: a seeded draw is
    :func:`simulate_from_aggregates`.

    Parameters
    ----------
    allocation : Allocation
    aggregates : sequence
        One per statistic, in the plan's order: a mapping (a pandas DataFrame) with ``"rows"`` (the rows kept per
        label) and, for a sum or a mean, ``"total"`` (their clipped sum per label), one number per label of
        :attr:`~dpcore.plan.Statistic.labels` (the most common value: its rows per declared category, the scores of
        the selection).

    Raises
    ------
    PlanError
        (A ``ValueError``.) A quantile (it needs the rows), or aggregates of the wrong number or length.
    """
    truths = _checked_truths(allocation, aggregates)
    return _from_aggregates(allocation, truths, SecureGenerator(), Randomness.PUBLICATION)


def simulate_from_aggregates(allocation: Allocation, aggregates, seed) -> PlanRelease:
    """One seeded draw of the plan on an engine's aggregates, as :func:`publish_from_aggregates` draws it: simulated,
    not private (for teaching and benchmarks; every release says so).

    Parameters
    ----------
    allocation, aggregates
        As :func:`publish_from_aggregates`.
    seed : int or numpy.random.Generator
        The simulation's seed (required: a simulation is reproducible).
    """
    if seed is None:
        raise TypeError(
            "seed must be an int or a numpy Generator: a simulation is seeded (publish_from_aggregates "
            "draws secure noise)"
        )
    truths = _checked_truths(allocation, aggregates)
    return _from_aggregates(allocation, truths, as_generator(seed), Randomness.SIMULATION)
