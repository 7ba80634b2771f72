"""Tests for dpcore.plan (the split) and dpcore.plan_release (the draw).

The split is checked against brute force on grids (random plans from fixed seeds included: cases nobody tuned the
code to), and the expected errors against 10⁴ seeded simulated publications, with tolerances from the sampling error
of a coverage proportion.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate

from dpcore.accounting.zcdp import zcdp_to_dp
from dpcore.contributions import ContributionBounds, PrivacyUnit
from dpcore.laplace import laplace_sum_pdf
from dpcore.neighbours import ADD_REMOVE
from dpcore.plan import (
    LATTICE_MARGIN,
    Plan,
    PlanError,
    Statistic,
    allocate,
    compose,
    error_coefficient,
    error_curve,
    expected_error,
    plan_from_dict,
    plan_to_dict,
    planning_coefficient,
)
from dpcore.plan_release import publish_plan, rounding_step, simulate_plan
from dpcore.randomness import Randomness
from tests.tolerances import Z

EDU = ("Bachelors", "HS-grad", "Masters", "Doctorate")


def _counts(name="edu", target=20.0, mechanism="laplace", **kw):
    return Statistic(name, "counts", column="edu", domain=EDU, other=True, target=target, mechanism=mechanism, **kw)


def _mean(name="mean age", target=0.5, mechanism="laplace", lower=17, upper=90, **kw):
    kw.setdefault("planned_n", 20_000)
    return Statistic(name, "mean", column="age", lower=lower, upper=upper, target=target, mechanism=mechanism, **kw)


# ---------------------------------------------------------------------------------------------- closed forms


def test_count_error_is_laplace_quantile():
    # P(|Lap(b)| > t) = e^{-t/b}: t = ln(1/(1-c)) / ε for a count (Δ = 1)
    s = Statistic("n", "count")
    unit = PrivacyUnit()
    assert error_coefficient(s, unit, 0.95) == pytest.approx(math.log(20.0), rel=1e-12)
    plan = Plan((s,), epsilon=0.5)
    a = allocate(plan)
    assert a.shares[0].budget == 0.5
    # on the lattice the noise is inflated by at most a few parts in 10^3
    assert a.shares[0].expected_error == pytest.approx(math.log(20.0) / 0.5, rel=3e-3)


def test_mean_tail_matches_the_density_of_a_laplace_sum():
    # the mean's error solves P(|Lap(a) + Lap(c)| > t) = 1 − c: check against the integral of laplace_sum_pdf
    stat = _mean()
    t = error_coefficient(stat, PrivacyUnit(), 0.9) * 20_000  # error × n at ε = 1: the sum's quantile
    a, c = 90 / 0.5, 90 * 1 / 0.5  # sum scale Δ_S/(sε), count scale times m = 90
    inside, _ = integrate.quad(lambda x: laplace_sum_pdf(x, a, c), -t, t, limit=200)
    assert inside == pytest.approx(0.9, abs=1e-9)
    stat = _mean(split=0.8)
    t = error_coefficient(stat, PrivacyUnit(), 0.95) * 20_000
    a, c = 90 / 0.8, 90 / 0.2
    inside, _ = integrate.quad(lambda x: laplace_sum_pdf(x, a, c), -t, t, limit=200)
    assert inside == pytest.approx(0.95, abs=1e-9)


def test_person_unit_scales_sensitivity():
    unit = PrivacyUnit("pid", ContributionBounds(max_groups=3, max_rows_per_group=2, max_rows=5))
    count = Statistic("n", "count")
    counts = _counts()
    # ungrouped: Δ = m; grouped with Laplace: each entry at ε/L₀ with Δ = L∞, scale L₀·L∞/ε
    assert error_coefficient(count, unit, 0.95) == pytest.approx(5 * math.log(20.0))
    assert error_coefficient(counts, unit, 0.95) == pytest.approx(6 * math.log(20.0))


def test_gaussian_error_from_zcdp():
    # σ = Δ/√(2ρ): the 95% error of a Gaussian count at ρ is z·Δ/√(2ρ)
    s = Statistic("n", "count", mechanism="gaussian")
    assert error_coefficient(s, PrivacyUnit(), 0.95) == pytest.approx(1.959963984540054 / math.sqrt(2.0))


def test_compose_pure_and_zcdp():
    assert compose([0.3, 0.7], [], 0.0).epsilon == pytest.approx(1.0)
    only = compose([], [0.01, 0.02], 1e-6)
    assert only.epsilon == pytest.approx(zcdp_to_dp(0.03, 1e-6))
    mixed = compose([0.5], [0.02], 1e-6)
    assert mixed.epsilon == pytest.approx(min(zcdp_to_dp(0.02 + 0.125, 1e-6), 0.5 + zcdp_to_dp(0.02, 1e-6)))


#: Mixed plans (pure ε's, zCDP ρ's, δ): a quantile-sized ε beside a Gaussian, several small ones, a large pair.
MIXED = [([0.5], [0.02], 1e-6), ([0.2, 0.3], [0.01, 0.01], 1e-6), ([1.0], [0.1], 1e-5), ([0.05] * 5, [0.005], 1e-6),
         ([2.0], [0.5], 1e-6), ([3.0], [0.001], 1e-6)]  # fmt: skip


def _pld_epsilon(eps, rhos, delta, pessimistic: bool) -> float:
    """dp_accounting's PLD of the plan's worst case: each pure part as binary randomized response at its ε (every
    ε-DP mechanism is dominated by it), each Gaussian part a Gaussian of μ = √(2ρ); composed, ε at δ."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    parts = [pld.from_randomized_response(2.0 / (1.0 + math.exp(e)), 2, pessimistic_estimate=pessimistic) for e in eps]
    parts += [pld.from_gaussian_mechanism(1.0 / math.sqrt(2.0 * r), pessimistic_estimate=pessimistic) for r in rhos]
    total = parts[0]
    for p in parts[1:]:
        total = total.compose(p)
    return total.get_epsilon_for_delta(delta)


@pytest.mark.parametrize("eps, rhos, delta", MIXED)
def test_mixed_total_is_valid_against_dp_accounting_pld_and_within_a_fifth_of_it(eps, rhos, delta):
    """The mixed total (zCDP, or pure part plus zCDP of the Gaussian part) is never below the tight PLD value
    (an optimistic PLD is a lower bound on the true ε: a total below it would be invalid), and is at most a fifth
    above the pessimistic one (what a PLD accountant would save, 0.5-17 % at these points: dpcore has no PLD of the
    discrete Gaussian the lattice draws, nor a composition of different kinds, so the plan does not claim it)."""
    ours = compose(eps, rhos, delta)
    assert ours.epsilon >= _pld_epsilon(eps, rhos, delta, pessimistic=False) * (1 - 1e-9)
    assert ours.epsilon <= _pld_epsilon(eps, rhos, delta, pessimistic=True) * 1.2
    assert "zCDP" in ours.accountant


@pytest.mark.parametrize("total", [0.5, 1.0, 3.0])
def test_mixed_plan_accuracy_split_is_never_worse_than_equal(total):
    stats = (
        Statistic("edu", "counts", column="education", domain=EDU, target=20.0),
        Statistic("age", "mean", column="age", lower=17, upper=90, planned_n=1000, mechanism="gaussian", target=0.5),
        Statistic("med", "quantile", column="age", lower=17, upper=90, q=0.5, resolution=1, target=40.0),
    )
    ratios = {}
    for policy in ("accuracy", "equal"):
        a = allocate(Plan(stats, epsilon=total, delta=1e-6, policy=policy), strict=False)
        assert a.epsilon <= total * (1 + 1e-9)
        ratios[policy] = max(s.expected_error / s.statistic.target for s in a.shares)
    assert ratios["accuracy"] <= ratios["equal"] * (1 + 1e-9)


# ---------------------------------------------------------------------------------------------- the split


def _coefficients(plan):
    # what the split plans with: the error at a unit budget, widened by the lattice's margin
    return np.array([planning_coefficient(s, plan.unit, plan.confidence) for s in plan.statistics])


def _ratio_array(plan, budgets, coefficients):
    """error/target of every statistic for each row of ``budgets`` (shape (m, k)): c/ε (pure) or c/√ρ."""
    pure = np.array([s.pure for s in plan.statistics])
    targets = np.array([s.target for s in plan.statistics])
    b = np.atleast_2d(budgets)
    return np.where(pure, coefficients / b, coefficients / np.sqrt(b)) / targets


def _total_array(plan, budgets):
    """The total ε of each row of ``budgets``, by the same bounds as :func:`dpcore.plan.compose`, vectorised."""
    pure = np.array([s.pure for s in plan.statistics])
    b = np.atleast_2d(budgets)
    eps = b[:, pure].sum(axis=1)
    if pure.all():
        return eps if plan.delta == 0 else np.minimum(eps, zcdp_to_dp((b**2 / 2).sum(axis=1), plan.delta))
    rho_g = b[:, ~pure].sum(axis=1)
    by_zcdp = zcdp_to_dp(rho_g + (b[:, pure] ** 2 / 2).sum(axis=1), plan.delta)
    if not pure.any():
        return by_zcdp
    return np.minimum(by_zcdp, eps + zcdp_to_dp(rho_g, plan.delta))


#: The kinds a random plan draws from; the explorer's count where, two-way table, counts per period and most common
#: value among them, and each of those also forced first in a plan of its own (NEW_KIND_CASES).
RANDOM_KINDS = ("count", "sum", "mean", "counts", "histogram", "count_where", "two_way", "periods", "most_common")
NEW_KINDS = ("count_where", "two_way", "periods", "most_common")


def _random_plan(seed: int, *, gaussian: bool, first: str | None = None):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 4))
    stats = []
    for i in range(k):
        kind = first if i == 0 and first is not None else rng.choice(RANDOM_KINDS)
        mech = "gaussian" if gaussian and rng.random() < 0.5 and kind != "most_common" else "laplace"
        target = float(10 ** rng.uniform(-1, 2))
        lo = float(rng.uniform(-50, 0))
        hi = lo + float(rng.uniform(1, 100))
        kw = dict(target=target, mechanism=mech)
        if kind == "count":
            stats.append(Statistic(f"s{i}", "count", **kw))
        elif kind == "sum":
            stats.append(Statistic(f"s{i}", "sum", column="x", lower=lo, upper=hi, **kw))
        elif kind == "mean":
            n = int(rng.integers(100, 10**5))
            stats.append(Statistic(f"s{i}", "mean", column="x", lower=lo, upper=hi, planned_n=n, **kw))
        elif kind == "counts":
            stats.append(Statistic(f"s{i}", "counts", column="c", domain=("a", "b"), **kw))
        elif kind == "count_where":
            stats.append(Statistic(f"s{i}", "count_where", where=(("x", "≥", lo), ("c", "is", "a")), **kw))
        elif kind == "two_way":
            stats.append(Statistic(f"s{i}", "two_way", column="c", domain=("a", "b"), by="d", keys=("u", "v"), **kw))
        elif kind == "periods":
            stats.append(
                Statistic(f"s{i}", "periods", column="t", period="month", first_year=2020, last_year=2021, **kw)
            )
        elif kind == "most_common":
            domain = tuple("abcdefgh"[: int(rng.integers(2, 9))])
            stats.append(Statistic(f"s{i}", "most_common", column="c", domain=domain, **kw))
        else:
            stats.append(Statistic(f"s{i}", "histogram", column="x", lower=lo, upper=hi, bins=5, **kw))
    if gaussian and all(s.pure for s in stats):
        i = 0 if first is None else -1  # the forced kind stays
        stats[i] = Statistic(stats[i].name, "count", target=stats[i].target, mechanism="gaussian")
    delta = 1e-6 if gaussian else 0.0
    return tuple(stats), delta


def test_vectorised_total_is_compose():
    stats, delta = _random_plan(5, gaussian=True)
    plan = Plan(stats, delta=delta, policy="accuracy")
    rng = np.random.default_rng(0)
    for budgets in rng.uniform(0.01, 1.0, size=(5, len(stats))):
        eps = [b for s, b in zip(stats, budgets) if s.pure]
        rho = [b for s, b in zip(stats, budgets) if not s.pure]
        assert _total_array(plan, budgets)[0] == pytest.approx(compose(eps, rho, delta).epsilon, rel=1e-12)


HIDDEN_SEEDS = range(8)
#: (seed, the kind forced first): the random plans, and one plan per new kind.
SPLIT_CASES = [(seed, None) for seed in HIDDEN_SEEDS] + [(40 + i, kind) for i, kind in enumerate(NEW_KINDS)]


@pytest.mark.parametrize("seed, first", SPLIT_CASES)
@pytest.mark.parametrize("gaussian", [False, True])
def test_smallest_total_meets_every_target_and_beats_a_grid(seed, first, gaussian):
    stats, delta = _random_plan(seed, gaussian=gaussian, first=first)
    plan = Plan(stats, delta=delta, policy="accuracy")
    a = allocate(plan)
    c = _coefficients(plan)
    ours = np.array([s.budget for s in a.shares])
    assert _ratio_array(plan, ours, c).max() == pytest.approx(1.0, rel=1e-9)
    assert a.epsilon == pytest.approx(a.needed_epsilon, rel=1e-12)
    # brute force: every split on a geometric grid around it (the optimum among its points) that meets every
    # target costs at least as much
    grid = np.geomspace(0.25, 4.0, 17)
    factors = np.array(list(itertools.product(grid, repeat=len(stats))))
    budgets = factors * ours
    meets = _ratio_array(plan, budgets, c).max(axis=1) <= 1.0 + 1e-12
    totals = _total_array(plan, budgets[meets])
    assert totals.min() >= a.epsilon * (1 - 1e-9)
    assert totals.min() == pytest.approx(a.epsilon, rel=1e-9)  # reached at factors 1


@pytest.mark.parametrize("seed, first", SPLIT_CASES)
@pytest.mark.parametrize("gaussian", [False, True])
def test_given_total_minimax_beats_a_grid_and_the_equal_split(seed, first, gaussian):
    stats, delta = _random_plan(100 + seed, gaussian=gaussian, first=first)
    needed = allocate(Plan(stats, delta=delta, policy="accuracy")).epsilon
    total = needed * 1.7
    plan = Plan(stats, epsilon=total, delta=delta, policy="accuracy")
    a = allocate(plan)
    c = _coefficients(plan)
    ours = _ratio_array(plan, [s.budget for s in a.shares], c).max()
    assert a.epsilon <= total * (1 + 1e-9)
    assert a.epsilon == pytest.approx(total, rel=1e-6)  # the whole budget is spent
    assert ours < 1.0
    equal = allocate(Plan(stats, epsilon=total, delta=delta, policy="equal"))
    assert ours <= _ratio_array(plan, [s.budget for s in equal.shares], c).max() * (1 + 1e-9)
    # brute force over splits on a grid: relative amounts x (ε_i = x_i·t, ρ_i = (x_i·t)²) scaled by a common t, found
    # by bisection for every grid point at once, to spend the total
    pure = np.array([s.pure for s in stats])
    # a global grid, and a geometric one around our split (x_i = ε_i or √ρ_i), which holds our split itself
    ours_x = np.array([s.budget if s.statistic.pure else math.sqrt(s.budget) for s in a.shares])
    near = np.array(list(itertools.product(np.geomspace(0.5, 2.0, 17), repeat=len(stats)))) * ours_x
    x = np.vstack([np.array(list(itertools.product(np.linspace(0.02, 1.0, 20), repeat=len(stats)))), near])

    def budgets(t):
        scaled = x * t[:, None]
        return np.where(pure, scaled, scaled**2)

    lo, hi = np.full(len(x), 1e-8), np.full(len(x), 1e8)
    for _ in range(120):
        mid = np.sqrt(lo * hi)
        fits = _total_array(plan, budgets(mid)) <= total
        lo, hi = np.where(fits, mid, lo), np.where(fits, hi, mid)
    best = _ratio_array(plan, budgets(lo), c).max(axis=1).min()
    assert ours <= best * (1 + 1e-7)
    assert best == pytest.approx(ours, rel=1e-6)  # reached at our split


def test_budget_below_the_targets_is_one_sentence():
    stats = (_counts(), _mean())
    needed = allocate(Plan(stats, policy="accuracy")).epsilon
    with pytest.raises(PlanError, match=r"total epsilon 0\.01 is below the [0-9.]+ the accuracy targets need") as e:
        allocate(Plan(stats, epsilon=0.01, policy="accuracy"))
    assert "\n" not in str(e.value)
    assert f"{needed:.4g}" in str(e.value)


def test_pure_closed_form_is_proportional_to_normalised_scale():
    stats = (_counts(target=10.0), _mean(target=0.2), Statistic("n", "count", target=5.0))
    plan = Plan(stats, epsilon=2.0, policy="accuracy")
    a = allocate(plan)
    w = [error_coefficient(s, plan.unit, 0.95) / s.target for s in stats]
    for share, wi in zip(a.shares, w):
        assert share.budget == pytest.approx(2.0 * wi / sum(w), rel=1e-12)
    assert a.worst_ratio == pytest.approx(sum(w) / 2.0, rel=3e-3)  # on the lattice


def test_weights_split():
    stats = (Statistic("a", "count", weight=3.0), Statistic("b", "count", weight=1.0))
    a = allocate(Plan(stats, epsilon=1.0, policy="weights"))
    assert [s.budget for s in a.shares] == pytest.approx([0.75, 0.25])
    g = (Statistic("a", "count", weight=3.0, mechanism="gaussian"), Statistic("b", "count", weight=1.0))
    a = allocate(Plan(g, epsilon=1.0, delta=1e-6, policy="weights"))
    rho_a, eps_b = a.shares[0].budget, a.shares[1].budget
    assert rho_a / (eps_b**2 / 2) == pytest.approx(3.0, rel=1e-9)  # shares of ρ, a pure one as ε²/2
    assert a.epsilon == pytest.approx(1.0, rel=1e-9)


# ---------------------------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: Statistic("e", "counts", column="edu"), "declared domain"),
        (lambda: Statistic("m", "mean", column="age", by="sex", lower=0, upper=1, planned_n=5), "group keys"),
        (lambda: Statistic("m", "mean", column="age", lower=0, upper=1), "planned_n"),
        (lambda: Statistic("s", "sum", column="age"), "declared bounds"),
        (lambda: Plan((Statistic("n", "count", mechanism="gaussian"),), epsilon=1.0), "delta above 0"),
        (lambda: Plan((Statistic("n", "count"),), policy="accuracy"), "target"),
        (lambda: Plan((Statistic("n", "count"),)), "total epsilon"),
        (
            lambda: Plan(
                (Statistic("q", "quantile", column="age", lower=0, upper=1, q=0.5),),
                unit=PrivacyUnit("pid", ContributionBounds(max_rows=2)),
                epsilon=1.0,
            ),
            "one row per person",
        ),
    ],
)
def test_refusals_are_one_sentence(make, words):
    with pytest.raises(ValueError, match=words) as e:
        make()
    assert "\n" not in str(e.value)


def test_plan_file_round_trip_and_typos():
    stats = (_counts(), _mean(), Statistic("q", "quantile", column="age", lower=0, upper=120, q=0.5, resolution=1))
    unit = PrivacyUnit("pid", ContributionBounds(max_rows=3))
    plan = Plan(stats[:2], unit=unit, epsilon=1.0, title="t")
    assert plan_from_dict(plan_to_dict(plan)) == plan
    plan = Plan(stats, epsilon=1.0, title="t")
    assert plan_from_dict(plan_to_dict(plan)) == plan
    data = plan_to_dict(plan)
    data["statistics"][0]["domian"] = ["x"]
    with pytest.raises(PlanError, match="unknown entry 'domian'"):
        plan_from_dict(data)


# ---------------------------------------------------------------------------------------------- the draw


def _table(n=20_000, seed=3, age=None):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "edu": rng.choice([*EDU, "Preschool"], n),
            "age": rng.integers(17, 91, n).astype(float) if age is None else np.full(n, float(age)),
            "sex": rng.choice(["F", "M"], n),
            "pid": rng.integers(0, n // 4, n),
        }
    )


def test_publication_is_fresh_labelled_and_charged_in_one_total():
    stats = (_counts(), _mean(), Statistic("hist", "histogram", column="age", lower=20, upper=80, bins=6, target=30))
    a = allocate(Plan(stats, epsilon=1.0, policy="accuracy"))
    table = _table()
    one, two = publish_plan(a, table), publish_plan(a, table)
    for r in one.releases:
        assert r.randomness is Randomness.PUBLICATION and r.relation is ADD_REMOVE and r.unit == "record"
    assert [r.labels for r in one.releases] == [r.labels for r in two.releases]
    assert one.combined.values != two.combined.values
    assert one.combined.epsilon == pytest.approx(sum(r.epsilon for r in one.releases))
    assert one.combined.epsilon <= 1.0 + 1e-12
    assert list(one.table().columns) == list(two.table().columns)


def test_labels_are_chosen_by_no_data():
    stats = (_counts(), Statistic("hist", "histogram", column="age", lower=20, upper=80, bins=6))
    a = allocate(Plan(stats, epsilon=1.0))
    table = _table(2_000)
    extra = pd.concat([table, pd.DataFrame({"edu": ["Zanzibar"], "age": [1e9], "sex": ["F"], "pid": [-1]})])
    assert [r.labels for r in publish_plan(a, table).releases] == [r.labels for r in publish_plan(a, extra).releases]


def test_missing_column_and_text_column():
    a = allocate(Plan((Statistic("m", "mean", column="salary", lower=0, upper=1, planned_n=10),), epsilon=1.0))
    with pytest.raises(PlanError, match="reads the column 'salary', which the data does not have"):
        publish_plan(a, _table(100))
    a = allocate(Plan((Statistic("m", "mean", column="edu", lower=0, upper=1, planned_n=10),), epsilon=1.0))
    with pytest.raises(PlanError, match="needs numbers in the column 'edu'"):
        publish_plan(a, _table(100))


def test_rounding_keeps_a_tenth_of_the_error_and_counts_whole():
    a = allocate(Plan((_counts(), _mean()), epsilon=1.0))
    counts, mean = a.shares
    assert rounding_step(counts) == 1.0  # a count is published in whole units
    step = rounding_step(mean)
    assert mean.expected_error / 100 < step <= mean.expected_error / 10


def _coverage_tolerance(confidence: float, trials: int) -> float:
    # a coverage proportion's standard error sqrt(c(1−c)/trials), Z of them
    return Z * math.sqrt(confidence * (1 - confidence) / trials)


TRIALS = 10_000


@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_expected_errors_match_simulated_publications(confidence):
    n = 20_000
    # every age at 99 within bounds ±100: the mean's planning assumption (the mean at the bound of largest magnitude,
    # 100) holds to 1%, and the noisy mean is rarely clipped
    table = _table(n, age=99.0)
    stats = (
        _counts(target=10.0),
        _mean(target=0.3, planned_n=n, lower=-100, upper=100),
        _mean("mean age, n public", target=0.3, n_public=n, lower=-100, upper=100),
        Statistic("hist", "histogram", column="age", lower=20, upper=100, bins=4, target=15.0),
        Statistic("sum", "sum", column="age", lower=0, upper=100, target=500.0),
        Statistic("by sex", "count", by="sex", keys=("F", "M"), target=10.0),
        Statistic("gauss", "count", mechanism="gaussian", target=8.0),
        _mean("gauss mean", target=0.3, planned_n=n, mechanism="gaussian", lower=-100, upper=100),
    )
    plan = Plan(stats, delta=1e-6, policy="accuracy", confidence=confidence)
    a = allocate(plan)
    sim = simulate_plan(a, table, 2017, TRIALS)
    assert sim.randomness is Randomness.SIMULATION
    tol = _coverage_tolerance(confidence, TRIALS)
    for share, errors in zip(a.shares, sim.errors()):
        covered = (errors <= share.expected_error).mean(axis=0)
        assert np.all(np.abs(covered - confidence) <= tol), (share.statistic.name, covered)


def test_expected_errors_person_unit_group_by():
    table = _table(20_000, age=90.0)
    unit = PrivacyUnit("pid", ContributionBounds(max_groups=2, max_rows_per_group=2, max_rows=3))
    stats = (
        Statistic("by sex", "count", by="sex", keys=("F", "M"), target=10.0),
        Statistic("sum by sex", "sum", column="age", lower=0, upper=100, by="sex", keys=("F", "M"), target=900.0),
        _counts(target=30.0),
    )
    a = allocate(Plan(stats, unit=unit, policy="accuracy"))
    sim = simulate_plan(a, table, 7, TRIALS)
    tol = _coverage_tolerance(0.95, TRIALS)
    for share, errors in zip(a.shares, sim.errors()):
        covered = (errors <= share.expected_error).mean(axis=0)
        assert np.all(np.abs(covered - 0.95) <= tol), (share.statistic.name, covered)


def test_quantile_error_is_a_bound():
    table = _table(5_000)
    stat = Statistic("median", "quantile", column="age", lower=0, upper=120, q=0.5, resolution=1.0, target=200.0)
    a = allocate(Plan((stat,), epsilon=0.05, policy="accuracy"))
    sim = simulate_plan(a, table, 11, TRIALS)
    covered = (sim.errors()[0] <= a.shares[0].expected_error).mean()
    assert covered >= 0.95 - _coverage_tolerance(0.95, TRIALS)


def test_expected_error_decreases_with_budget():
    s = _mean()
    errs = [expected_error(s, PrivacyUnit(), b, 0.95) for b in (0.1, 0.2, 0.4)]
    assert errs[0] == pytest.approx(2 * errs[1], rel=5e-3) and errs[1] == pytest.approx(2 * errs[2], rel=5e-3)


def test_error_curve_trades_errors_as_the_total_moves():
    stats = (_counts(target=10.0), _mean(target=0.2), Statistic("n", "count", target=5.0))
    plan = Plan(stats, policy="accuracy")
    needed = allocate(plan).epsilon
    curve = error_curve(Plan(stats, epsilon=1.0, policy="accuracy"), [needed / 2, needed, 2 * needed])
    worst = curve.groupby("total epsilon")["error to target"].agg(["min", "max"])
    # minimax: every ratio equal at each total; for pure ε the ratio is needed/total
    assert np.allclose(worst["min"], worst["max"], rtol=1e-9)
    # (the split plans with the lattice's margin: the continuous laws' ratios sit that much below)
    assert worst["max"].to_numpy() * LATTICE_MARGIN == pytest.approx([2.0, 1.0, 0.5], rel=1e-9)
    with pytest.raises(PlanError):
        allocate(Plan(stats, epsilon=needed / 2, policy="accuracy"))
    loose = allocate(Plan(stats, epsilon=needed / 2, policy="accuracy"), strict=False)
    assert loose.worst_ratio == pytest.approx(2.0, rel=3e-3)  # with the lattice's inflation


def test_preview_is_labelled_simulated():
    stats = (_counts(), Statistic("median", "quantile", column="age", lower=0, upper=120, q=0.5, resolution=1.0))
    a = allocate(Plan(stats, epsilon=1.0))
    table = simulate_plan(a, _table(500), 3, 1).table()
    assert set(table["randomness"]) == {Randomness.SIMULATION.words}
    assert list(table["label"]) == [*EDU, "(other)", "median"]
    assert 0 <= table["simulated value"].iloc[-1] <= 120


def test_numeric_categories_match_their_declared_text():
    table = pd.DataFrame({"grade": [9.0, 9.0, 10.0, np.nan, 12.5], "age": 1.0})
    stat = Statistic("grades", "counts", column="grade", domain=("9", "10", "12.5"), other=True)
    a = allocate(Plan((stat,), epsilon=1.0))
    sim = simulate_plan(a, table, 0, 1)
    assert sim.truths[0].tolist() == [2.0, 1.0, 1.0, 1.0]  # the missing value counted in (other)


def test_person_unit_publication_names_its_unit_and_bounds_each_person():
    table = _table(4_000)
    table.loc[:999, "pid"] = -7  # one person with 1,000 rows
    unit = PrivacyUnit("pid", ContributionBounds(max_groups=1, max_rows_per_group=3, max_rows=3))
    stats = (Statistic("rows", "count"), _counts())
    a = allocate(Plan(stats, unit=unit, epsilon=1.0))
    release = publish_plan(a, table)
    assert {r.unit for r in (*release.releases, release.combined)} == {"person"}
    # each person keeps min(rows, m = 3) rows: the person with 1,000 rows counts for 3
    sim = simulate_plan(a, table, 1, 1)
    assert sim.truths[0][0] == table.groupby("pid").size().clip(upper=3).sum()
    assert any(f.name == "contribution bounds" for f in release.releases[0].public)


@pytest.mark.parametrize("target", [0.5, 30.0, 3e3, 1e5])
def test_smallest_total_meets_every_target_on_the_lattice(target):
    # a Gaussian with a tiny ρ against its Δ is published on a coarse grid that widens it beyond the margin
    stats = (
        Statistic("g", "count", mechanism="gaussian", target=target),
        Statistic("gs", "sum", column="x", lower=0, upper=0.3, mechanism="gaussian", target=target / 10),
        Statistic("l", "count", target=target),
    )
    a = allocate(Plan(stats, delta=1e-6, policy="accuracy"))
    for share in a.shares:
        assert share.expected_error <= share.statistic.target * (1 + 1e-9)


@pytest.mark.parametrize("target", [1e-300, 1e-30, 1e15, 1e300])
@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_a_target_no_budget_can_meet_is_one_sentence_naming_it(target, mechanism):
    """A link's or plan file's extreme target (once a ZeroDivisionError, an OverflowError or 'rho must be in (0, inf),
    got 0.0') is refused before any arithmetic, naming the statistic and its target."""
    stats = (_mean(target=target, mechanism=mechanism), Statistic("n", "count", target=10.0))
    for total in (None, 1.0):
        with pytest.raises(PlanError, match=r"^statistic 'mean age': its target error .* any budget") as e:
            allocate(Plan(stats, epsilon=total, delta=1e-6, policy="accuracy"), strict=False)
        assert f"{target:g}" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("total", [1e-300, 1e-10, 2e9, 1e300])
def test_a_total_outside_the_budget_range_is_refused(total):
    with pytest.raises(ValueError, match=r"the total epsilon must be in \[1e-09, 1e\+09\]"):
        Plan((_counts(),), epsilon=total)


def test_a_share_outside_the_budget_range_is_one_sentence():
    # a weight a billion times another's gives the light statistic less than the least budget at a total of 1
    stats = (Statistic("a", "count", weight=1e12), Statistic("b", "count", weight=1.0))
    with pytest.raises(PlanError, match=r"^statistic 'b': the total ε 1 gives it an ε of 1e-12"):
        allocate(Plan(stats, epsilon=1.0, policy="weights"))


# ---------------------------------------------------------------------------------------------- the explorer's other
# central queries: count where, two-way table, counts per period, most common value


def _new_kinds(**kw):
    return (
        Statistic("old F", "count_where", where=(("age", ">=", 40), ("sex", "is", "F")), **kw),
        Statistic("sex by edu", "two_way", column="sex", domain=("F", "M"), by="edu", keys=EDU[:3], other=True, **kw),
        Statistic("per month", "periods", column="day", period="month", first_year=2020, last_year=2021, **kw),
        Statistic("top edu", "most_common", column="edu", domain=EDU, **kw),
    )


def _dated(n=20_000, seed=3):
    table = _table(n, seed)
    rng = np.random.default_rng(seed + 1)
    days = pd.Timestamp("2019-07-01") + pd.to_timedelta(rng.integers(0, 1_100, n), unit="D")
    table["day"] = pd.Series(days).dt.strftime("%Y-%m-%d").to_numpy()
    return table


@pytest.mark.parametrize("bounds", [None, ContributionBounds(max_groups=3, max_rows_per_group=2, max_rows=4)])
def test_new_kinds_error_models_are_the_laplace_quantile_and_the_exponential_bound(bounds):
    unit = PrivacyUnit() if bounds is None else PrivacyUnit("pid", bounds)
    b = ContributionBounds() if bounds is None else bounds
    where, table, periods, common = _new_kinds()
    c = 0.9
    # a count where is one count of sensitivity m; a table and periods are histograms (each entry Laplace at ε/L₀
    # with sensitivity L∞): the error at ε = 1 is the scale times ln(1/(1 − c))
    assert error_coefficient(where, unit, c) == pytest.approx(b.max_rows * math.log(1 / (1 - c)), rel=1e-12)
    for stat in (table, periods):
        scale = b.max_groups * b.max_rows_per_group
        assert error_coefficient(stat, unit, c) == pytest.approx(scale * math.log(1 / (1 - c)), rel=1e-12)
    # the most common value: (2Δu/ε)(ln k + ln(1/(1 − c))), Δu = L∞, k declared candidates (no lattice margin)
    want = 2 * b.max_rows_per_group * (math.log(len(EDU)) + math.log(1 / (1 - c)))
    assert error_coefficient(common, unit, c) == pytest.approx(want, rel=1e-12)
    assert planning_coefficient(common, unit, c) == error_coefficient(common, unit, c)
    assert expected_error(common, unit, 2.0, c) == pytest.approx(want / 2, rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_most_common_error_bound_holds_exactly_on_hidden_counts(seed):
    # not sampled: the exact probability that the chosen count is within the bound of the top count
    from dpcore.exponential import exponential_probabilities

    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 40))
    counts = np.floor(rng.pareto(1.0, k) * rng.uniform(1, 300))
    if seed % 2:  # every count but one tied just under the top: the worst shape for the bound
        counts = np.full(k, 100.0)
        counts[0] = 101.0
    stat = Statistic("m", "most_common", column="c", domain=tuple(f"v{i}" for i in range(k)))
    for eps in (0.01, 0.3, 3.0):
        for conf in (0.5, 0.95, 0.999):
            t = expected_error(stat, PrivacyUnit(), eps, conf)
            p = exponential_probabilities(counts, eps, 1.0)
            assert p[counts.max() - counts <= t].sum() >= conf - 1e-12


def test_expected_errors_of_the_new_kinds_match_simulated_publications():
    table = _dated()
    a = allocate(Plan(_new_kinds(target=30.0), policy="accuracy"))
    assert a.worst_ratio == pytest.approx(1.0, rel=1e-6)
    sim = simulate_plan(a, table, 2023, TRIALS)
    tol = _coverage_tolerance(0.95, TRIALS)
    for share, errors in zip(a.shares, sim.errors()):
        covered = (errors <= share.expected_error).mean(axis=0)
        if share.statistic.kind == "most_common":  # a bound: at least the confidence
            assert covered.min() >= 0.95 - tol, covered
        else:  # the lattice Laplace's own quantile
            assert np.all(np.abs(covered - 0.95) <= tol), (share.statistic.name, covered)
    assert set(sim.values[3].ravel()) <= set(EDU)


def test_new_kinds_truths_follow_their_declared_rules():
    table = pd.DataFrame(
        {
            "age": [50.0, 40.0, np.inf, np.nan, 39.0, 60.0, 45.0],
            "sex": ["F", "F", "F", "F", "F", None, "M"],
            "grade": [9.0, 9.0, 10.0, np.nan, 9.0, 9.0, 12.5],
            "day": pd.to_datetime(
                ["2020-01-31", "2020-02-01", None, "2021-12-31", "2019-12-31", "2020-01-01", "2020-01-02"]
            ),
            "text day": ["2020-01-31", "junk", None, "2021-12", "2020-13-01", "2020-01-05 10:00", "31/01/2020"],
        }
    )
    stats = (
        Statistic("w", "count_where", where=(("age", "≥", 40), ("sex", "is", "F"))),  # inf and missing never meet
        Statistic("not F", "count_where", where=(("sex", "is not", "F"),)),  # a missing sex is not "not F"
        Statistic("nine", "count_where", where=(("grade", "is", 9),)),  # 9.0 reads "9"
        Statistic("y", "periods", column="day", period="year", first_year=2020, last_year=2021),
        Statistic("m", "periods", column="text day", period="month", first_year=2020, last_year=2020),
        Statistic("t", "two_way", column="sex", domain=("F",), by="grade", keys=("9", "10")),
        Statistic("to", "two_way", column="sex", domain=("F",), by="grade", keys=("9", "10"), other=True),
        Statistic("mc", "most_common", column="grade", domain=("10", "9", "7")),
    )
    a = allocate(Plan(stats, epsilon=1.0))
    truths = [t.tolist() for t in simulate_plan(a, table, 0, 1).truths]
    assert truths[:3] == [[2.0], [1.0], [4.0]]
    assert truths[3] == [4.0, 1.0]  # 2019 and the missing date left out
    assert truths[4] == [2.0] + [0.0] * 11  # "junk", month 13, "2021-12" (outside) and 31/01/2020 left out
    assert truths[5] == [3.0, 1.0]
    # with (other): F × 9, F × 10, F × other (12.5 and the missing grade), other × 9 (None), other × 10, other × other
    assert truths[6] == [3.0, 1.0, 1.0, 1.0, 0.0, 1.0]
    prepared_counts = [1.0, 4.0, 0.0]  # the most common value's scores: its counts per declared category
    from dpcore.plan_release import _prepare  # noqa: PLC2701 (the scores are not released; checked here)

    assert _prepare(a, table, np.random.default_rng(0))[-1].counts.tolist() == prepared_counts


def test_new_kinds_publications_are_fresh_with_declared_labels():
    table = _dated(4_000)
    a = allocate(Plan(_new_kinds(), epsilon=4.0))
    one, two = publish_plan(a, table), publish_plan(a, table)
    for r in (*one.releases, one.combined):
        assert r.randomness is Randomness.PUBLICATION and r.relation is ADD_REMOVE
    numbers = [v for v in one.combined.values if not isinstance(v, str)]
    assert numbers != [v for v in two.combined.values if not isinstance(v, str)]  # fresh noise each time
    # labels from the declaration alone: a table full of undeclared values gives the same labels, and the most common
    # value is always a declared one, even when an undeclared value is the most common in the data
    odd = pd.concat(
        [table] + [pd.DataFrame({"edu": ["Zanzibar"] * 5_000, "sex": "X", "day": "1999-01-01", "age": 1.0})]
    )
    three = publish_plan(a, odd)
    assert (
        [r.labels for r in three.releases] == [r.labels for r in one.releases] == [s.labels for s in a.plan.statistics]
    )
    assert one.releases[1].labels[:3] == ("F × Bachelors", "F × HS-grad", "F × Masters")
    assert one.releases[2].labels[0] == "2020-01" and len(one.releases[2].labels) == 24
    assert {one.releases[3].value, three.releases[3].value} <= set(EDU)
    assert (
        one.table()["released value"].iloc[-1] in EDU
        and one.table()["error unit"].iloc[-1] == "rows below the top count"
    )
    facts = {f.name: f.value for f in one.releases[0].public}
    assert facts["conditions"] == "age ≥ 40 and sex is F"
    assert {f.name for f in one.releases[1].public} >= {"row categories", "column categories"}


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: Statistic("m", "most_common", column="edu"), "declared domain"),
        (lambda: Statistic("t", "two_way", column="sex", domain=("F",)), 'second column \\("by"\\)'),
        (lambda: Statistic("t", "two_way", column="sex", domain=("F",), by="edu"), "declared group keys"),
        (lambda: Statistic("p", "periods", column="day", period="month"), "declared years"),
        (lambda: Statistic("p", "periods", column="day", period="week", first_year=1, last_year=2), "year, month"),
        (lambda: Statistic("w", "count_where"), "declared conditions"),
        (lambda: Statistic("w", "count_where", where=(("a", "≥", "x"),)), "must be a number"),
        (lambda: Statistic("w", "count_where", where=(("a", "like", 1),)), "a condition must be one of"),
        (lambda: Statistic("w", "count_where", where=(("a", "is", 1),) * 3), "at most 2 conditions"),
        (lambda: Statistic("m", "most_common", column="e", domain=("a",), mechanism="gaussian"), "pure"),
        (lambda: Statistic("m", "most_common", column="e", domain=("a",), other=True), "leave out other"),
    ],
)
def test_new_kinds_refusals_are_one_sentence(make, words):
    with pytest.raises((ValueError, TypeError), match=words) as e:
        make()
    assert "\n" not in str(e.value)


def test_new_kinds_refuse_a_missing_column_or_text_for_a_number_in_one_sentence():
    table = _dated(200)
    for stat, words in (
        (Statistic("m", "most_common", column="school", domain=("a",)), "reads the column 'school', which the data"),
        (Statistic("w", "count_where", where=(("age", ">", 3), ("zip", "is", "7"))), "reads the column 'zip'"),
        (Statistic("t", "two_way", column="sex", domain=("F",), by="town", keys=("x",)), "reads the column 'town'"),
        (
            Statistic("w", "count_where", where=(("edu", ">", 3),)),
            "needs numbers in the column 'edu', which holds text",
        ),
    ):
        a = allocate(Plan((stat,), epsilon=1.0))
        with pytest.raises(PlanError, match=words) as e:
            publish_plan(a, table)
        assert "\n" not in str(e.value)


def test_new_kinds_plan_file_round_trip():
    plan = Plan(_new_kinds(target=20.0), policy="accuracy", unit=PrivacyUnit("pid", ContributionBounds(max_groups=2)))
    data = plan_to_dict(plan)
    assert data["statistics"][0]["where"] == [["age", "≥", 40.0], ["sex", "is", "F"]]
    import json

    assert plan_from_dict(json.loads(json.dumps(data))) == plan


# ---------------------------------------------------------------------------------------------- pure statistics at δ


#: Pure plans with a declared δ: many small ε's (zCDP wins), a few large ones (the sum wins), a mix.
PURE_WITH_DELTA = [([0.1] * 100, 1e-6), ([0.05] * 400, 1e-8), ([1.0, 2.0], 1e-6), ([0.3] * 20 + [2.0], 1e-5),
                   ([0.01] * 1000, 1e-6), ([0.5] * 8, 1e-3)]  # fmt: skip


def _cks_by_grid(rho: float, delta: float) -> float:
    """Canonne, Kamath & Steinke (2020), Corollary 13, minimised over a fine grid of α (not dpcore's solver)."""
    alpha = 1.0 + np.geomspace(1e-6, 1e5, 400_001)
    eps = alpha * rho + (math.log(1 / delta) - np.log(alpha)) / (alpha - 1) + np.log1p(-1 / alpha)
    return float(max(eps.min(), 0.0))


@pytest.mark.parametrize("eps, delta", PURE_WITH_DELTA)
def test_pure_statistics_at_a_declared_delta_take_the_smaller_of_the_sum_and_zcdp(eps, delta):
    ours = compose(eps, [], delta)
    by_grid = _cks_by_grid(sum(e * e / 2 for e in eps), delta)  # Bun & Steinke 2016, Prop 1.4, then the conversion
    assert ours.epsilon == pytest.approx(min(sum(eps), by_grid), rel=1e-6)
    assert ours.epsilon <= sum(eps) * (1 + 1e-12)
    assert ours.delta == (delta if ours.epsilon < sum(eps) else 0.0)
    assert ("zCDP" in ours.accountant) == (ours.delta > 0)
    # valid: never below the tight PLD of the worst case (each statistic binary randomized response at its ε;
    # composed up to 100 of them, the PLD's time)
    if len(eps) <= 100:
        assert ours.epsilon >= _pld_epsilon(eps, [], delta, pessimistic=False) * (1 - 1e-9)
    assert compose(eps, [], 0.0).epsilon == pytest.approx(sum(eps))  # no δ declared: the sum


def test_the_brief_figure_100_counts_at_delta_1e_6():
    assert compose([0.1] * 100, [], 0.0).epsilon == pytest.approx(10.0)
    assert compose([0.1] * 100, [], 1e-6).epsilon == pytest.approx(5.2215, abs=1e-4)


@pytest.mark.parametrize("policy", ["equal", "accuracy"])
def test_pure_plan_at_a_declared_delta_spends_its_total_and_beats_a_grid_of_splits(policy):
    # 60 counts of two targets (30 of each) at δ = 1e-6 and total ε = 3: zCDP composition binds. Brute force over
    # splits that give each half one ε (a, b) on a fine grid: none that fits the total has a smaller worst ratio
    # (accuracy) and ours spends the total (equal and accuracy)
    stats = tuple(Statistic(f"s{i}", "count", target=40.0 if i < 30 else 80.0) for i in range(60))
    plan = Plan(stats, epsilon=3.0, delta=1e-6, policy=policy)
    a = allocate(plan)
    budgets = np.array([s.budget for s in a.shares])
    assert a.epsilon == pytest.approx(3.0, rel=1e-9) and a.delta == 1e-6
    assert budgets.sum() > 3.0 * 1.3  # the sum of the ε's is well above the total: zCDP pays for them
    if policy == "equal":
        assert np.ptp(budgets) == pytest.approx(0.0, abs=1e-12)
        return
    c = _coefficients(plan)
    ours = _ratio_array(plan, budgets, c).max()
    grid = np.geomspace(0.01, 1.0, 400)
    a_, b_ = np.meshgrid(grid, grid)
    splits = np.hstack([np.repeat(a_.reshape(-1, 1), 30, axis=1), np.repeat(b_.reshape(-1, 1), 30, axis=1)])
    fits = _total_array(plan, splits) <= 3.0
    best = _ratio_array(plan, splits[fits], c).max(axis=1).min()
    assert ours <= best * (1 + 1e-9)
    assert best <= ours * 1.02  # the grid comes within its step of ours
    needed = allocate(replace_total(plan, None)).epsilon
    assert needed == pytest.approx(compose(c / np.array([s.target for s in stats]), [], 1e-6).epsilon, rel=1e-9)


def replace_total(plan, epsilon):
    from dataclasses import replace

    return replace(plan, epsilon=epsilon)


def test_most_common_draws_with_publish_most_commons_exact_selection_and_its_law():
    # the same function as dpcore.publish.publish_most_common (dpcore.exact_choice), with Δu = L∞ under a person unit:
    # 20,000 seeded draws of the plan's simulation match exp(ε u / (2Δu)) normalised within 4.5 standard errors
    from dpcore import plan_release, publish
    from dpcore.exponential import exponential_probabilities

    assert plan_release.exact_choice is publish.exact_choice
    table = _table(3_000)
    table.loc[:400, "edu"] = "Masters"
    unit = PrivacyUnit("pid", ContributionBounds(max_groups=1, max_rows_per_group=2))
    stat = Statistic("top", "most_common", column="edu", domain=EDU)
    a = allocate(Plan((stat,), unit=unit, epsilon=0.02))
    trials = 20_000
    sim = simulate_plan(a, table, 5, trials)
    from dpcore.plan_release import _prepare  # noqa: PLC2701 (the scores, with the simulation's bounding)

    counts = _prepare(a, table, np.random.default_rng(5))[0].counts
    p = exponential_probabilities(counts, 0.02, 2.0)
    seen = pd.Series(sim.values[0].ravel()).value_counts().reindex(EDU, fill_value=0).to_numpy() / trials
    assert np.all(np.abs(seen - p) <= 4.5 * np.sqrt(p * (1 - p) / trials)), (seen, p)
    assert "sampled exactly" in publish_plan(a, table).releases[0].mechanism
