"""Queries about people, not rows: user-level count, sum and mean, and group-bys with known or unknown keys.

Every query here bounds each person's contribution first (:func:`dpcore.contributions.bound_contributions`) and
calibrates its noise to the sensitivity those bounds give under add/remove one person
(:class:`~dpcore.contributions.ContributionBounds`):

* :func:`dp_person_count`, :func:`dp_person_sum`, :func:`dp_person_mean`: at most m rows per person, then a count,
  a clipped sum, or a noisy sum over a noisy count (the budget split as :func:`dpcore.queries.split_mean_budget`).
  Each returns the :class:`~dpcore.queries.QueryResult` / :class:`~dpcore.queries.MeanResult` of the row-level
  queries, whose ``unclipped_value`` is the answer without bounds (the gap is the bias of bounding and clipping).
* :func:`group_by`: counts, sums or means per group, at most L₀ groups per person and L∞ rows per person in each.
  The groups are either **declared** (a public list of keys: a key nobody holds still gets its noisy zero, and a
  value outside the list is dropped or counted in "(other)", a rule fixed before the data is read), or **selected
  privately** from the data (:mod:`dpcore.partition_selection`: a group is released only when its count of
  distinct persons passes the mechanism's threshold, at its own (ε, δ)). What is returned is the released groups
  and the threshold, never which groups were dropped, nor how many there were.
* :func:`publish_group_by`: the same, as a publication: :class:`~dpcore.randomness.SecureGenerator` for the
  bounding, the selection and the noise, the noise on a lattice with exact discrete noise (:mod:`dpcore.lattice`),
  and a :class:`~dpcore.release.Release` under add/remove one person.

The noise of a vector over groups. A person changes at most L₀ groups by at most L∞ rows' worth each
(:meth:`~dpcore.contributions.ContributionBounds.histogram_sensitivity`). A family calibrated in ℓ2 (the Gaussian)
takes the vector's ℓ2 sensitivity ``√L₀ · L∞ · s`` at (ε, δ). A family calibrated in ℓ1 gives each group's entry
ε/L₀ at that entry's sensitivity ``L∞ · s``: the at most L₀ entries one person changes compose to ε (Dwork & Roth
2014, Theorem 3.16), which for Laplace is the same noise as ℓ1 sensitivity ``L₀ · L∞ · s`` at ε, and which stays
valid for a family whose density ratio is not additive in the shift (the staircase). The lattice release keeps each
entry's guarantee on its own (:mod:`dpcore.lattice`), so a publication by an ℓ2 family is offered for L₀ = 1 only.

Costs. A group-by with declared keys costs the aggregates' (ε, δ); with partition selection it costs the
selection's (ε, δ) (:attr:`~dpcore.partition_selection.PartitionSelection.delta_spent`) as well, by sequential
composition (Dwork & Roth 2014, Theorem 3.16). :func:`group_by_releases` gives the same releases to an accountant
(a :class:`~dpcore.accounting.BudgetLedger`): the selection as an
:class:`~dpcore.accounting.events.ApproxDP` event, the aggregates as their noise.

References
----------
- Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson (2020), "Differentially Private SQL with Bounded User
  Contribution", Proceedings on Privacy Enhancing Technologies 2020(2), Section 3 (bounded contributions, then
  thresholding on distinct users, then noisy aggregates per partition). https://arxiv.org/abs/1909.01917
- Amin, Kulesza, Muñoz Medina & Vassilvitskii (2019), "Bounding User Contributions: A Bias-Variance Trade-off in
  Differential Privacy", ICML, Section 2. https://proceedings.mlr.press/v97/amin19a.html
- Desfontaines, Voss, Gipson & Mandayam (2022), "Differentially private partition selection", Proceedings on
  Privacy Enhancing Technologies 2022(1), Section 3. https://arxiv.org/abs/2006.03684
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and Trends in Theoretical
  Computer Science 9(3–4), Theorem 3.16 (sequential composition) and Section 3.3 (histogram queries).
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore import families
from dpcore.accounting.events import ApproxDP
from dpcore.accounting.per_release import accounting_for
from dpcore.contributions import ContributionBounds, Sensitivity, bound_contributions
from dpcore.lattice import lattice_mechanism
from dpcore.limits import MAX_CATEGORIES, MAX_TABLE_ROWS
from dpcore.neighbours import ADD_REMOVE, UNIT_PERSON, UNIT_RECORD, NeighbouringRelation, check_unit
from dpcore.partition_selection import PartitionSelection
from dpcore.publish import OTHER  # the label of the declared catch-all group, one word for every publication
from dpcore.queries import MECHANISMS, MeanResult, QueryResult, noise_mechanism, split_mean_budget
from dpcore.randomness import Randomness, SecureGenerator
from dpcore.release import PublicFact, Release, as_tuple
from dpcore.validation import (
    as_generator,
    check_bounds,
    check_choice,
    check_elements,
    check_epsilon,
)

__all__ = [
    "OTHER",
    "STATISTICS",
    "SELECTION_FACT",
    "THRESHOLD_FACT",
    "dp_person_count",
    "dp_person_sum",
    "dp_person_mean",
    "GroupByResult",
    "group_by_cost",
    "group_by_releases",
    "group_by",
    "check_group_by_publication",
    "entry_noise",
    "publish_group_by",
]

#: What a group-by computes per group.
STATISTICS = ("count", "sum", "mean")
#: The names of a published group-by's facts that say how its groups were chosen (the threshold: None, no fact).
SELECTION_FACT = "partition selection"
THRESHOLD_FACT = "threshold on the noisy count of distinct persons"


# ---------------------------------------------------------------------------------------------- user-level queries


def _values(values, name: str = "values") -> np.ndarray:
    """A numeric column as float64, NaN kept (the caller drops those rows); infinities refused."""
    check_elements(int(np.size(values)), name, MAX_TABLE_ROWS)  # before any copy
    try:
        arr = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numeric, got values that cannot be read as numbers") from None
    if np.isinf(arr).any():
        raise ValueError(f"{name} must be finite, got {int(np.isinf(arr).sum())} infinite value(s)")
    return arr


def _same_length(persons, n: int) -> None:
    if np.size(persons) != n:
        raise ValueError(f"persons must give one identifier per row ({n:,} rows), got {np.size(persons):,}")


def entry_noise(family: families.Family, epsilon: float, sensitivity: Sensitivity, delta: float | None):
    """The noise of each entry: ℓ2 families at (ε, δ) and the vector's ℓ2; ℓ1 families at ε/entries and one entry's."""
    epsilon = check_epsilon(epsilon)
    if family.norm == "L2":
        return family.noise(epsilon, sensitivity.l2, delta)
    return family.noise(epsilon / sensitivity.entries, sensitivity.linf, delta)


def dp_person_count(
    persons, epsilon: float, rng, *, bounds: ContributionBounds, mechanism: str = "laplace", delta: float | None = None
) -> QueryResult:
    """Noisy number of rows, each person's rows bounded to ``m = bounds.max_rows`` (sensitivity m, add/remove one person).

    Parameters
    ----------
    persons : array_like, shape (n,)
        Each row's person identifier, no missing value.
    epsilon : float
        ε, in (0, inf).
    rng : numpy.random.Generator, int or SecureGenerator
        Draws the bounding and the noise.
    bounds : ContributionBounds
    mechanism : str, default "laplace"
        A central family's key (:data:`dpcore.queries.MECHANISMS`).
    delta : float, optional
        δ in (0, 1), required by an (ε, δ) family.

    Returns
    -------
    QueryResult
        ``true_value``: the rows kept; ``unclipped_value``: every row (the gap is the bias of the bound).

    Examples
    --------
    >>> r = dp_person_count([1] * 1_000 + [2, 3], 1.0, 0, bounds=ContributionBounds(max_rows=5))
    >>> r.true_value, r.unclipped_value, r.mechanism.scale  # Laplace scale m/ε
    (7.0, 1002.0, 5.0)
    """
    epsilon = check_epsilon(epsilon)
    rng = as_generator(rng)
    table = bound_contributions(persons, rng, bounds=bounds)
    noise = noise_mechanism(epsilon, bounds.count_sensitivity().l1, mechanism, delta)
    true = float(table.rows_kept)
    return QueryResult(
        "count", true, noise.simulate(true, rng), noise, table.rows_kept, unclipped_value=float(table.rows)
    )


def _kept_values(values, persons, lower, upper, rng, bounds):
    arr = _values(values)
    _same_length(persons, arr.size)
    lower, upper = check_bounds(lower, upper)
    present = ~np.isnan(arr)  # a missing value is left out before bounding (a rule about each row alone)
    people = np.asarray(persons)[present] if not isinstance(persons, pd.Series) else persons[present]
    table = bound_contributions(people, rng, bounds=bounds)
    kept = arr[present][table.kept]
    return arr[present], kept, lower, upper, int(np.count_nonzero(~present))


def dp_person_sum(
    values,
    persons,
    lower: float,
    upper: float,
    epsilon: float,
    rng,
    *,
    bounds: ContributionBounds,
    mechanism: str = "laplace",
    delta: float | None = None,
) -> QueryResult:
    """Noisy sum of the values clipped to ``[lower, upper]``, each person's rows bounded to m (sensitivity ``m · max(|L|, |U|)``).

    Rows whose value is missing are left out before bounding. ``unclipped_value`` is the sum of every value as it
    is: the gap to ``true_value`` is the bias of bounding and clipping together.

    Parameters
    ----------
    values : array_like, shape (n,)
        Numbers (NaN left out).
    persons : array_like, shape (n,)
        Each row's person identifier.
    lower, upper : float
        Clipping bounds, finite, ``lower < upper``.
    epsilon, rng, bounds, mechanism, delta
        As in :func:`dp_person_count`.

    Examples
    --------
    >>> r = dp_person_sum([5.0, 5.0, 5.0, 1.0], [1, 1, 1, 2], 0.0, 10.0, 1.0, 0, bounds=ContributionBounds(max_rows=2))
    >>> r.true_value, r.mechanism.sensitivity  # 2 rows of person 1, 1 of person 2; m · 10
    (11.0, 20.0)
    """
    epsilon = check_epsilon(epsilon)
    rng = as_generator(rng)
    every, kept, lower, upper, missing = _kept_values(values, persons, lower, upper, rng, bounds)
    noise = noise_mechanism(epsilon, bounds.sum_sensitivity(lower, upper).l1, mechanism, delta)
    clipped = np.clip(kept, lower, upper)
    true = float(clipped.sum())
    return QueryResult(
        "sum",
        true,
        noise.simulate(true, rng),
        noise,
        kept.size,
        missing,
        unclipped_value=float(every.sum()),
        lower=lower,
        upper=upper,
        clipped_below=int(np.count_nonzero(kept < lower)),
        clipped_above=int(np.count_nonzero(kept > upper)),
    )


def dp_person_mean(
    values,
    persons,
    lower: float,
    upper: float,
    epsilon: float,
    rng,
    *,
    bounds: ContributionBounds,
    split: float = 0.5,
    mechanism: str = "laplace",
    delta: float | None = None,
) -> MeanResult:
    """Noisy mean as a noisy clipped sum over a noisy count of the same bounded rows (sensitivities ``m·B`` and ``m``).

    The sum gets ``split · ε`` (and δ), the count the rest (:func:`dpcore.queries.split_mean_budget`); the ratio,
    floored at a count of 1 and clipped to the bounds, is post-processing.

    Parameters
    ----------
    values, persons, lower, upper, epsilon, rng, bounds, mechanism, delta
        As in :func:`dp_person_sum`.
    split : float, default 0.5
        The share of ε (and δ) for the sum, in (0, 1).

    Examples
    --------
    >>> r = dp_person_mean([5.0, 5.0, 5.0, 1.0], [1, 1, 1, 2], 0.0, 10.0, 1.0, 0, bounds=ContributionBounds(max_rows=2))
    >>> round(r.true_value, 4), r.sum.mechanism.sensitivity, r.count.mechanism.sensitivity
    (3.6667, 20.0, 2.0)
    """
    epsilon = check_epsilon(epsilon)
    family = families.family(check_choice(mechanism, "mechanism", MECHANISMS))
    budget = split_mean_budget(epsilon, split, family.delta(delta))
    rng = as_generator(rng)
    every, kept, lower, upper, missing = _kept_values(values, persons, lower, upper, rng, bounds)
    sum_sens, count_sens = bounds.mean_sensitivities(lower, upper)
    sum_noise = noise_mechanism(budget.sum_epsilon, sum_sens.l1, mechanism, budget.sum_delta)
    count_noise = noise_mechanism(budget.count_epsilon, count_sens.l1, mechanism, budget.count_delta)
    clipped = np.clip(kept, lower, upper)
    total, count = float(clipped.sum()), float(kept.size)
    s = QueryResult(
        "sum", total, sum_noise.simulate(total, rng), sum_noise, kept.size, missing, lower=lower, upper=upper
    )
    c = QueryResult("count", count, count_noise.simulate(count, rng), count_noise, kept.size, missing)
    return MeanResult(
        true_value=total / count if count else float("nan"),
        noisy_value=float(np.clip(s.noisy_value / max(c.noisy_value, 1.0), lower, upper)),
        sum=s,
        count=c,
        lower=lower,
        upper=upper,
        split=split,
        n=kept.size,
        dropped_nan=missing,
        unclipped_value=float(every.mean()) if every.size else float("nan"),
    )


# ---------------------------------------------------------------------------------------------- group-by


def _aggregate_noises(family, epsilon, statistic, bounds, lower, upper, delta, split) -> list[tuple]:
    """The noise of each noisy part of a group-by (a count or a sum; a mean's sum, then its count) and its vector's
    :class:`~dpcore.contributions.Sensitivity`: the one place a group-by's noise is calibrated (checked arguments)."""
    if statistic == "count":
        sensitivities = [(bounds.histogram_sensitivity(), epsilon, delta)]
    elif statistic == "sum":
        sensitivities = [(bounds.group_sum_sensitivity(lower, upper), epsilon, delta)]
    else:
        budget = split_mean_budget(epsilon, split, delta)
        sum_sens, count_sens = bounds.group_mean_sensitivities(lower, upper)
        sensitivities = [
            (sum_sens, budget.sum_epsilon, budget.sum_delta),
            (count_sens, budget.count_epsilon, budget.count_delta),
        ]
    return [(entry_noise(family, eps, sens, d), sens) for sens, eps, d in sensitivities]


def group_by_cost(
    epsilon: float,
    *,
    statistic: str = "count",
    mechanism: str = "laplace",
    delta: float | None = None,
    selection: PartitionSelection | None = None,
    split: float = 0.5,
) -> tuple[float, float]:
    """The (ε, δ) a group-by costs, known before anything is read or drawn: the aggregates', plus the selection's.

    The noisy aggregates cost ``(ε, δ)`` of their family (δ = 0 for a pure ε-DP family; a mean's sums and counts
    share them, :func:`dpcore.queries.split_mean_budget`); a partition selection adds its own ε and the δ it spends,
    computed from its threshold or recursion (:attr:`~dpcore.partition_selection.PartitionSelection.delta_spent`),
    by sequential composition (Dwork & Roth 2014, Theorem 3.16). :func:`group_by` and :func:`publish_group_by`
    report exactly this cost, so a publication log charged it before the draw holds what the release says.

    Parameters
    ----------
    epsilon : float
        ε of the noisy aggregates, in (0, inf).
    statistic : {"count", "sum", "mean"}, default "count"
    mechanism : str, default "laplace"
        A central family's key (:data:`dpcore.queries.MECHANISMS`).
    delta : float, optional
        δ of the aggregates in (0, 1), required by an (ε, δ) family.
    selection : PartitionSelection, optional
        The partition selection (None: declared keys, which cost nothing more).
    split : float, default 0.5
        A mean's share of ε (and δ) for the sums, in (0, 1).

    Returns
    -------
    (float, float)
        The total ε and δ under add/remove one person (or one record).

    Examples
    --------
    >>> group_by_cost(1.0)  # declared keys, Laplace noise
    (1.0, 0.0)
    >>> from dpcore.partition_selection import LaplaceThresholding
    >>> eps, delta = group_by_cost(1.0, selection=LaplaceThresholding(0.5, 1e-6))
    >>> eps, round(delta / 1e-6, 9)
    (1.5, 1.0)
    """
    epsilon = check_epsilon(epsilon)
    statistic = check_choice(statistic, "statistic", STATISTICS)
    family = families.family(check_choice(mechanism, "mechanism", MECHANISMS))
    delta = family.delta(delta)
    if selection is not None and not isinstance(selection, PartitionSelection):
        raise TypeError(f"selection must be a PartitionSelection, got {type(selection).__name__}")
    if statistic == "mean":
        budget = split_mean_budget(epsilon, split, delta)
        spent = (budget.sum_delta or 0.0) + (budget.count_delta or 0.0)
    else:
        spent = delta or 0.0
    if selection is None:
        return float(epsilon), float(spent)
    return float(epsilon + selection.epsilon), float(spent + selection.delta_spent)


def group_by_releases(
    epsilon: float,
    *,
    statistic: str = "count",
    mechanism: str = "laplace",
    delta: float | None = None,
    selection: PartitionSelection | None = None,
    split: float = 0.5,
    bounds: ContributionBounds | None = None,
    lower: float | None = None,
    upper: float | None = None,
    unit: str = UNIT_PERSON,
) -> tuple:
    """The releases a group-by is made of, for an accountant: what :func:`group_by_cost` adds up, release by release.

    In order: the partition selection (when there is one) as an :class:`~dpcore.accounting.events.ApproxDP` event at
    its ε and the δ it spends exactly (:attr:`~dpcore.partition_selection.PartitionSelection.delta_spent`), under
    add/remove one ``unit``; then each noisy part's noise over the whole vector of groups (a count's or a sum's; a
    mean's sum, then its count), calibrated as :func:`group_by` calibrates it. An ℓ2 family's noise is already the
    vector's (at its ℓ2 sensitivity); an ℓ1 family's is each entry's at ε/L₀, and one person changes at most L₀
    entries by at most one entry's sensitivity, so the vector is released as that noise for a group of L₀ steps
    (:meth:`~dpcore.accounting.per_release.ReleaseAccounting.for_group`: the Laplace noise at L₀ times the entry's
    sensitivity, exactly ε-DP; another ℓ1 family's as ``PureDP(L₀ · ε/L₀)``, Dwork & Roth 2014, Theorem 3.16).

    Under basic composition (Dwork & Roth 2014, Theorem 3.16) they cost what :func:`group_by_cost` says: the
    selection's (ε, δ) plus the noise's. Kept apart rather than one ApproxDP of the total, the noise keeps its own
    accountings (a Gaussian its exact ε at its δ, Balle & Wang 2018, no larger than its nominal ε), so a ledger never
    charges them more than the total, and says what was released. A ledger holding the ApproxDP event charges by
    basic composition only (:class:`~dpcore.accounting.events.ApproxDP`).

    Parameters
    ----------
    epsilon, statistic, mechanism, delta, selection, split
        As in :func:`group_by_cost`.
    bounds : ContributionBounds, optional
        L₀ and L∞, as given to :func:`group_by` (default: one group and one row per person, every row a person).
    lower, upper : float, optional
        The clipping bounds of a sum or a mean, as given to :func:`group_by`.
    unit : {"record", "person"}, default "person"
        The unit of privacy of the group-by's guarantee (the selection's event carries it; the ledger is told it for
        the noise, e.g. :meth:`~dpcore.accounting.BudgetLedger.spend_all` with ``unit=``).

    Returns
    -------
    tuple
        The ApproxDP event (with a selection), then one release per noisy part.

    Examples
    --------
    >>> from dpcore.accounting import BudgetLedger
    >>> from dpcore.partition_selection import LaplaceThresholding
    >>> chosen = LaplaceThresholding(0.5, 1e-6)
    >>> releases = group_by_releases(1.0, selection=chosen)
    >>> [type(r).__name__ for r in releases]
    ['ApproxDP', 'Laplace']
    >>> led = BudgetLedger(2.0, 1e-5, unit="person").spend_all(releases, unit="person")
    >>> led.spent() == group_by_cost(1.0, selection=chosen)
    True
    """
    epsilon = check_epsilon(epsilon)
    statistic = check_choice(statistic, "statistic", STATISTICS)
    family = families.family(check_choice(mechanism, "mechanism", MECHANISMS))
    delta = family.delta(delta)
    if selection is not None and not isinstance(selection, PartitionSelection):
        raise TypeError(f"selection must be a PartitionSelection, got {type(selection).__name__}")
    if bounds is None:
        bounds = ContributionBounds()
    elif not isinstance(bounds, ContributionBounds):
        raise TypeError(f"bounds must be a ContributionBounds, got {type(bounds).__name__}")
    if selection is not None and selection.max_groups != bounds.max_groups:
        raise ValueError(
            f"selection must be built for the same max_groups as the bounds (L₀ = {bounds.max_groups}), "
            f"got {selection.max_groups}"
        )
    if statistic != "count":
        lower, upper = check_bounds(lower, upper)
    unit = check_unit(unit)
    releases = []
    if selection is not None:
        releases.append(ApproxDP(selection.epsilon, selection.delta_spent, ADD_REMOVE, unit))
    for noise, sensitivity in _aggregate_noises(family, epsilon, statistic, bounds, lower, upper, delta, split):
        if family.norm != "L2" and sensitivity.entries > 1:
            noise = accounting_for(noise).for_group(noise, sensitivity.entries)
        releases.append(noise)
    return tuple(releases)


@dataclass(frozen=True, eq=False)
class GroupByResult:
    """A group-by's released groups and their noisy values (and, in a simulation, their true values beside).

    Attributes
    ----------
    statistic : {"count", "sum", "mean"}
    labels : tuple of str
        The released groups: the declared keys (and "(other)" when declared), or the groups partition selection
        kept, sorted by label. Never the groups it dropped.
    noisy_values : numpy.ndarray
        One per label.
    true_values : numpy.ndarray
        The exact value of each released group on the bounded rows (a simulation's teaching aid: never released).
    epsilon, delta : float
        What the whole release costs (aggregates and selection together), under add/remove one ``unit``.
    noise_std : float
        The standard deviation of each released count's or sum's noise (nan for a mean).
    mechanism : str
        The noise and the selection, in words.
    selection : PartitionSelection or None
        The partition selection used (None for declared keys).
    bounds : ContributionBounds
    unit : str
        "person" (with an identifier column) or "record" (each row a different person).
    relation : NeighbouringRelation
    rows, rows_kept : int
        Rows in the table and rows kept by the bounds (exact, not private: the bias of the bounds).
    """

    statistic: str
    labels: tuple[str, ...]
    noisy_values: np.ndarray
    true_values: np.ndarray
    epsilon: float
    delta: float
    noise_std: float
    mechanism: str
    selection: PartitionSelection | None
    bounds: ContributionBounds
    unit: str
    relation: NeighbouringRelation
    rows: int
    rows_kept: int

    @property
    def kept(self) -> int:
        """How many groups were released."""
        return len(self.labels)

    @property
    def threshold(self) -> float | None:
        """The selection's threshold on the noisy count of distinct persons (None: declared keys, or no threshold)."""
        return None if self.selection is None else self.selection.threshold

    def table(self) -> pd.DataFrame:
        """The released groups and their noisy values (what a release file holds)."""
        return pd.DataFrame({"group": list(self.labels), f"noisy {self.statistic}": self.noisy_values})


@dataclass(frozen=True, eq=False)
class _Prepared:
    """A group-by up to its noise: the released groups' true values and how to noise them."""

    labels: tuple[str, ...]
    parts: tuple  # (true values, noise) per noisy part: one for a count or a sum, (sum, count) for a mean
    epsilon: float
    delta: float
    selection: PartitionSelection | None
    bounds: ContributionBounds
    unit: str
    rows: int
    rows_kept: int
    statistic: str
    lower: float | None
    upper: float | None
    family: families.Family


def _declared_keys(keys) -> tuple[str, ...]:
    if isinstance(keys, str):
        raise TypeError(f"keys must be a list of group labels, got the string {keys!r}")
    if hasattr(keys, "__len__"):
        check_elements(len(keys), "keys", MAX_CATEGORIES)  # before reading them
    keys = tuple(str(k) for k in keys)
    if not keys:
        raise ValueError("keys must list at least one group, got none")
    check_elements(len(keys), "keys", MAX_CATEGORIES)
    if len(set(keys)) != len(keys) or OTHER in keys:
        raise ValueError(f"keys must be distinct and other than {OTHER}, got a repeated or reserved label")
    return keys


def _prepare(
    groups,
    epsilon,
    rng,
    *,
    statistic,
    values,
    lower,
    upper,
    persons,
    bounds,
    keys,
    other,
    selection,
    mechanism,
    delta,
    split,
) -> _Prepared:
    epsilon = check_epsilon(epsilon)
    statistic = check_choice(statistic, "statistic", STATISTICS)
    family = families.family(check_choice(mechanism, "mechanism", MECHANISMS))
    delta = family.delta(delta)
    rng = as_generator(rng)
    if (keys is None) == (selection is None):
        raise ValueError(
            "keys or selection must be given, not both: declare the list of groups (public keys), or give a "
            "partition selection to choose them from the data privately"
        )
    if selection is not None and not isinstance(selection, PartitionSelection):
        raise TypeError(f"selection must be a PartitionSelection, got {type(selection).__name__}")
    group_arr = groups if isinstance(groups, (pd.Series, pd.Categorical)) else np.asarray(groups)
    if np.ndim(group_arr) != 1:
        raise ValueError(f"groups must be one value per row (1-D), got shape {np.shape(group_arr)}")
    n = int(np.size(group_arr))
    check_elements(n, "rows", MAX_TABLE_ROWS)
    if persons is None:  # every row a different person: unit one record, every bound 1
        if bounds not in (None, ContributionBounds()):
            raise ValueError(
                "bounds must be left out when every row is a different person (give persons to bound several rows "
                f"per person), got {bounds.group_words()}"
            )
        bounds, unit, people = ContributionBounds(), UNIT_RECORD, np.arange(n)
    else:
        if not isinstance(bounds, ContributionBounds):
            raise TypeError(f"bounds must be a ContributionBounds when persons are given, got {type(bounds).__name__}")
        _same_length(persons, n)
        unit, people = UNIT_PERSON, persons
    if selection is not None and selection.max_groups != bounds.max_groups:
        raise ValueError(
            f"selection must be built for the same max_groups as the bounds (L₀ = {bounds.max_groups}), "
            f"got {selection.max_groups}"
        )
    row_values = None
    if statistic != "count":
        if values is None:
            raise ValueError(f"values must be given for a {statistic} per group, got None")
        lower, upper = check_bounds(lower, upper)
        row_values = _values(values)
        if row_values.size != n:
            raise ValueError(f"values must give one value per row ({n:,} rows), got {row_values.size:,}")
    # which rows take part: a missing value (sum, mean) and a missing group are left out, each by the row alone
    codes, uniques = pd.factorize(group_arr)
    codes = np.asarray(codes, dtype=np.int64)
    if keys is not None:
        keys = _declared_keys(keys)
        # each distinct value compared with the keys as text; outside them: "(other)" or left out
        found = pd.Index(keys).get_indexer(pd.Index(uniques).astype(str))
        outside = len(keys) if other else -1
        to_key = np.append(np.where(found >= 0, found, outside), -1).astype(np.int64)
        codes = to_key[codes]  # a missing group (code −1) maps to the appended −1
        labels_all = (*keys, OTHER) if other else keys
    else:
        check_elements(int(uniques.size), "groups (distinct values of the group column)", MAX_CATEGORIES)
        labels_all = tuple(str(u) for u in uniques)
    if row_values is not None:
        codes = np.where(np.isnan(row_values), -1, codes)
    g = len(labels_all)
    categorical = pd.Categorical.from_codes(codes, categories=pd.RangeIndex(g)) if g else None
    if g == 0:  # no group at all (private keys, every group value missing): nothing to release
        kept_rows = np.zeros(n, dtype=bool)
        distinct = np.zeros(0, dtype=np.int64)
    else:
        table = bound_contributions(people, rng, bounds=bounds, groups=categorical)
        kept_rows, distinct = table.kept, table.distinct
        codes = table.group_codes
    kept_codes = codes[kept_rows]
    counts = np.bincount(kept_codes, minlength=g).astype(np.float64)
    if selection is None:
        released = np.arange(g)
    else:
        chosen = np.flatnonzero(selection.select(distinct, rng))
        released = chosen[np.argsort(np.array([labels_all[i] for i in chosen], dtype=object), kind="stable")]
    labels = tuple(labels_all[i] for i in released)
    noises = [noise for noise, _ in _aggregate_noises(family, epsilon, statistic, bounds, lower, upper, delta, split)]
    if statistic == "count":
        parts = [(counts[released], noises[0])]
    else:
        sums = np.bincount(kept_codes, weights=np.clip(row_values[kept_rows], lower, upper), minlength=g)
        parts = [(sums[released], noises[0])]
        if statistic == "mean":
            parts.append((counts[released], noises[1]))
    total_epsilon, total_delta = group_by_cost(
        epsilon, statistic=statistic, mechanism=mechanism, delta=delta, selection=selection, split=split
    )
    return _Prepared(
        labels,
        tuple(parts),
        total_epsilon,
        total_delta,
        selection,
        bounds,
        unit,
        n,
        int(np.count_nonzero(kept_rows)),
        statistic,
        lower,
        upper,
        family,
    )


def _combine(prepared: _Prepared, noisy: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(noisy values, true values)`` of the statistic from its noisy parts (a mean: sum over count, post-processing)."""
    if prepared.statistic != "mean":
        return noisy[0], prepared.parts[0][0]
    (sums, _), (counts, _) = prepared.parts
    mean = np.clip(noisy[0] / np.maximum(noisy[1], 1.0), prepared.lower, prepared.upper)
    with np.errstate(invalid="ignore", divide="ignore"):
        true = np.where(counts > 0, sums / np.maximum(counts, 1.0), np.nan)
    return mean, true


def _words(prepared: _Prepared, noise_words: str) -> str:
    what = "declared keys" if prepared.selection is None else prepared.selection.words()
    return f"{noise_words}; groups: {what}; {prepared.bounds.group_words()}"


def group_by(
    groups,
    epsilon: float,
    rng,
    *,
    statistic: str = "count",
    values=None,
    lower: float | None = None,
    upper: float | None = None,
    persons=None,
    bounds: ContributionBounds | None = None,
    keys=None,
    other: bool = False,
    selection: PartitionSelection | None = None,
    mechanism: str = "laplace",
    delta: float | None = None,
    split: float = 0.5,
) -> GroupByResult:
    """Counts, sums or means per group, with each person's contribution bounded; a simulation (seeded noise).

    Parameters
    ----------
    groups : array_like, shape (n,)
        Each row's group; a missing group is left out.
    epsilon : float
        ε of the noisy aggregates, in (0, inf) (a partition selection adds its own).
    rng : numpy.random.Generator, int or SecureGenerator
        Draws the bounding, the selection and the noise.
    statistic : {"count", "sum", "mean"}, default "count"
    values : array_like, shape (n,), optional
        The numbers summed or averaged (required for a sum or a mean); a missing value's row is left out.
    lower, upper : float, optional
        Clipping bounds of the values, finite, ``lower < upper`` (required for a sum or a mean).
    persons : array_like, shape (n,), optional
        Each row's person identifier; None (the default) when every row is a different person.
    bounds : ContributionBounds, optional
        L₀ and L∞ (``max_groups``, ``max_rows_per_group``); required with ``persons``, left out without.
    keys : sequence, optional
        The declared groups (public keys): each is released, absent ones with a noisy zero.
    other : bool, default False
        With ``keys``: count a value outside them in "(other)" (True) or leave it out (False).
    selection : PartitionSelection, optional
        The private partition selection when the keys are not declared; its ``max_groups`` must equal the bounds'.
    mechanism : str, default "laplace"
        A central family's key (:data:`dpcore.queries.MECHANISMS`).
    delta : float, optional
        δ of the aggregates in (0, 1), required by an (ε, δ) family.
    split : float, default 0.5
        A mean's share of ε (and δ) for the sums, in (0, 1).

    Returns
    -------
    GroupByResult

    Examples
    --------
    >>> r = group_by(["a", "a", "b"], 1.0, 0, keys=["a", "b", "c"])
    >>> r.labels, r.true_values.tolist()
    (('a', 'b', 'c'), [2.0, 1.0, 0.0])
    """
    prepared = _prepare(
        groups,
        epsilon,
        rng,
        statistic=statistic,
        values=values,
        lower=lower,
        upper=upper,
        persons=persons,
        bounds=bounds,
        keys=keys,
        other=other,
        selection=selection,
        mechanism=mechanism,
        delta=delta,
        split=split,
    )
    rng = as_generator(rng)
    noisy = [
        np.asarray(noise.simulate(true, rng), dtype=np.float64).reshape(-1) if true.size else true
        for true, noise in prepared.parts
    ]
    values_out, true = _combine(prepared, noisy)
    std = prepared.parts[0][1].std if statistic != "mean" else math.nan
    return GroupByResult(
        statistic=prepared.statistic,
        labels=prepared.labels,
        noisy_values=values_out,
        true_values=true,
        epsilon=prepared.epsilon,
        delta=prepared.delta,
        noise_std=float(std),
        mechanism=_words(prepared, f"{prepared.family.name} noise (simulated, seeded)"),
        selection=prepared.selection,
        bounds=prepared.bounds,
        unit=prepared.unit,
        relation=ADD_REMOVE,
        rows=prepared.rows,
        rows_kept=prepared.rows_kept,
    )


def check_group_by_publication(mechanism: str, bounds: ContributionBounds | None = None) -> families.Family:
    """The family ``mechanism`` names if a group-by can be published with it and these bounds; else one sentence.

    A publication draws each entry on a lattice with exact discrete noise (:mod:`dpcore.lattice`), whose guarantee
    holds entry by entry: a family with no lattice (the staircase) is refused, and so is an ℓ2 family (the Gaussian)
    with more than one group per person (its noise is calibrated to the vector of a person's L₀ groups; the ℓ1
    families compose those entries, see the module notes). :func:`publish_group_by` checks this first; a page asks
    it before offering the button.

    Parameters
    ----------
    mechanism : str
        A central family's key (:data:`dpcore.queries.MECHANISMS`).
    bounds : ContributionBounds, optional
        The contribution bounds (None: one row per person, L₀ = 1).

    Returns
    -------
    dpcore.families.Family

    Raises
    ------
    ValueError
        In one sentence naming what cannot be published.

    Examples
    --------
    >>> check_group_by_publication("laplace", ContributionBounds(max_groups=3)).name
    'Laplace'
    """
    family = families.family(check_choice(mechanism, "mechanism", MECHANISMS))
    if family.lattice is None:
        raise ValueError(
            f"mechanism must be one published on a lattice, got {mechanism!r} ({family.name} noise is simulated here, "
            "not published)"
        )
    if bounds is not None and not isinstance(bounds, ContributionBounds):
        raise TypeError(f"bounds must be a ContributionBounds, got {type(bounds).__name__}")
    if family.norm == "L2" and bounds is not None and bounds.max_groups > 1:
        raise ValueError(
            f"max_groups must be 1 to publish a group-by with {family.name} noise (each entry is published on its "
            f"own lattice; several groups per person need an ℓ1 family such as Laplace), got {bounds.max_groups}"
        )
    return family


def publish_group_by(
    groups,
    epsilon: float,
    *,
    statistic: str = "count",
    values=None,
    lower: float | None = None,
    upper: float | None = None,
    persons=None,
    identifier: str | None = None,
    bounds: ContributionBounds | None = None,
    keys=None,
    other: bool = False,
    selection: PartitionSelection | None = None,
    mechanism: str = "laplace",
    delta: float | None = None,
    split: float = 0.5,
    source: str = "declared",
) -> Release:
    """Publish a group-by: secure bounding, selection and noise, on a lattice; a :class:`~dpcore.release.Release`.

    The arguments are :func:`group_by`'s, without a generator: every draw comes from
    :class:`~dpcore.randomness.SecureGenerator`, each noisy entry on a power-of-two lattice with exact discrete noise
    (:func:`dpcore.lattice.lattice_mechanism`, each entry's guarantee on its own; the ℓ1 families compose the
    L₀ entries one person changes). A family with no lattice (the staircase), or an ℓ2 family with more than one
    group per person, is refused in one sentence. ``identifier`` names the person column in the release's facts;
    ``source`` says where the bounds and keys came from.

    Returns
    -------
    Release
        ``query`` "group-by <statistic>", one value per released group (labels: the groups), the total (ε, δ)
        under add/remove one person (or one record without ``persons``), the declared facts and the threshold.
    """
    family = check_group_by_publication(mechanism, bounds)
    secure = SecureGenerator()
    prepared = _prepare(
        groups,
        epsilon,
        secure,
        statistic=statistic,
        values=values,
        lower=lower,
        upper=upper,
        persons=persons,
        bounds=bounds,
        keys=keys,
        other=other,
        selection=selection,
        mechanism=mechanism,
        delta=delta,
        split=split,
    )
    noisy, stds = [], []
    for true, noise in prepared.parts:
        lattice = lattice_mechanism(noise)
        noisy.append(np.asarray(lattice.draw(true, secure), dtype=np.float64).reshape(-1) if true.size else true)
        stds.append(lattice.noise_std)
    values_out, _ = _combine(prepared, noisy)
    facts = [PublicFact("statistic", prepared.statistic, "declared")]
    if prepared.unit == UNIT_PERSON:
        facts.append(PublicFact("person identifier", identifier or "(declared column)", "declared"))
        facts.append(PublicFact("contribution bounds", prepared.bounds.group_words(), source))
    if prepared.lower is not None:
        facts.append(PublicFact("clipping bounds", f"[{prepared.lower:g}, {prepared.upper:g}]", source))
    if prepared.selection is None:
        facts.append(PublicFact("group keys", ", ".join(k for k in prepared.labels if k != OTHER), source))
        rule = f"values outside them counted in {OTHER}" if other else "values outside them left out"
        facts.append(PublicFact("outside the keys", rule, "fixed"))
    else:
        sel = prepared.selection
        threshold = "none (each group kept with probability π(n))" if sel.threshold is None else f"{sel.threshold:.6g}"
        facts.append(PublicFact(SELECTION_FACT, sel.words(), "declared"))
        facts.append(PublicFact(THRESHOLD_FACT, threshold, "fixed"))
    grid = "lattice (exact discrete noise)"
    return Release(
        query=f"group-by {prepared.statistic}",
        value=as_tuple(values_out),
        labels=prepared.labels,
        mechanism=_words(prepared, f"{family.name} noise on a {grid}"),
        noise_std=float(stds[0]) if prepared.statistic != "mean" else math.nan,
        epsilon=prepared.epsilon,
        delta=prepared.delta,
        relation=ADD_REMOVE,
        unit=prepared.unit,
        randomness=Randomness.PUBLICATION,
        public=tuple(facts),
    )
