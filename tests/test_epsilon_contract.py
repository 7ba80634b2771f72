"""The common contract of every public dpcore callable that takes ε: one domain, one message.

Every function, class and classmethod/staticmethod reachable from the ``__all__``
of ``dpcore``, ``dpcore.accounting`` and each public submodule, with a
parameter named ``epsilon`` or starting with it (``epsilon0``, ``epsilon_bar``,
``epsilons``), is called with ε = 0, NaN, ∞ and ``True``, all other arguments
valid, and must answer in the house form (diffprivlib, dp_accounting)::

    ValueError: epsilon must be in (0, inf), got 0.0
    TypeError:  epsilon must be a real number in (0, inf), got True

A few ε are rightly allowed to be 0 (a privacy profile δ(ε) at ε = 0; basic
composition of 0-DP releases): their domain is ``[0, inf)``, stated in
:data:`ZERO_ALLOWED`, and then ε = 0 must succeed. :data:`CALLS` holds one
call per (callable, parameter); the first test fails when a new ε-taking
callable appears without an entry, or an entry outlives its callable.
"""

import importlib
import inspect
import math
import pkgutil
import re

import numpy as np
import pytest

import dpcore
from dpcore import (
    GRR,
    OUE,
    SUE,
    AutoMeanResult,
    ExponentialQuantile,
    Gaussian,
    GaussianCalibration,
    Laplace,
    LDPMean,
    above_threshold,
    above_threshold_scales,
    above_threshold_trials,
    analytic_gaussian_sigma,
    auto_mean,
    choose_clipping_bound,
    classic_gaussian_sigma,
    dp_category_counts,
    dp_count,
    dp_count_matching,
    dp_histogram,
    dp_mean,
    dp_median,
    dp_quantile,
    dp_sum,
    exponential_error_bound,
    exponential_mechanism,
    exponential_probabilities,
    gaussian_delta,
    naive_clipping_bound,
    naive_range_query,
    naive_scale,
    publish,
    range_query_svt,
    sparse,
    sparse_scales,
    sparse_trials,
    split_mean_budget,
    svt_noise_scales,
)
from dpcore.accounting import (
    ApproxDP,
    BudgetLedger,
    PureDP,
    advanced_composition,
    basic_composition,
    gaussian_sigma_for_epsilon,
    plan_noise,
    pld_delta,
    pure_dp_to_zcdp,
    randomized_response_rdp,
    zcdp_rho_for_epsilon,
)
from dpcore.accounting.composition import advanced_composition_curve
from dpcore.accounting.pld import (
    connect_the_dots_interval,
    laplace_loss_variance,
    laplace_privacy_loss,
    randomized_response_privacy_loss,
    staircase_privacy_loss,
)
from dpcore.accounting.privacy_loss import staircase_loss_masses
from dpcore.accounting.subsampled_gaussian import dpsgd_noise_multiplier, plan_dpsgd
from dpcore.audit import audit, floating_point_attack, lower_bound_curve
from dpcore.bound_tradeoff import (
    count_tradeoff,
    mean_tradeoff,
    private_bound,
    publish_private_bound,
    sum_tradeoff,
)
from dpcore.contributions import ContributionBounds
from dpcore.families import family, lowest_variance_local
from dpcore.gdp import gdp_delta, gdp_mu_for_epsilon
from dpcore.groupby import (
    dp_person_count,
    dp_person_mean,
    dp_person_sum,
    entry_noise,
    group_by,
    group_by_cost,
    group_by_releases,
    publish_group_by,
)
from dpcore.histogram_quantile import dp_histogram_quantile
from dpcore.learning import (
    adversarial_client_influence,
    client_influence,
    epsilon_frontier,
    iterations_sweep,
    naive_fedavg,
    noisy_gd_noise,
    noisy_gradient_descent,
)
from dpcore.learning.published import lattice_gd_noise, lattice_gradient_descent
from dpcore.partition_selection import (
    GaussianThresholding,
    LaplaceThresholding,
    OptimalSelection,
    PartitionSelection,
    selection,
)
from dpcore.publish import publish_two_way_table
from dpcore.queries import dp_count_matching_all, dp_two_way_table, noise_mechanism
from dpcore.staircase import Staircase, optimal_gamma
from dpcore.svt import exact_above_threshold_scales

COLUMN = [1.0, 2.0, 5.0, 7.0]
ANSWERS = [0.0, 3.0, 1.0]
CANDIDATES = [1.0, 2.0, 5.0, 10.0]

#: One call per (callable, ε-like parameter), every other argument valid.
FEATURES = np.random.default_rng(0).normal(size=(20, 2))
LABELS = np.arange(20) % 2
CLIENTS = [(FEATURES[:10], LABELS[:10]), (FEATURES[10:], LABELS[10:])]
PERSONS = [1, 1, 2, 3]  # one identifier per value of COLUMN
PERSON_BOUNDS = ContributionBounds(max_rows=2)

CALLS = {
    # central queries
    "dpcore.queries.dp_count": {"epsilon": lambda e: dp_count(COLUMN, e, 0)},
    "dpcore.queries.dp_sum": {"epsilon": lambda e: dp_sum(COLUMN, 0.0, 10.0, e, 0)},
    "dpcore.queries.dp_mean": {"epsilon": lambda e: dp_mean(COLUMN, 0.0, 10.0, e, 0)},
    "dpcore.queries.dp_histogram": {"epsilon": lambda e: dp_histogram(COLUMN, 3, e, 0, lower=0.0, upper=9.0)},
    "dpcore.queries.dp_count_matching": {"epsilon": lambda e: dp_count_matching([True, False, True], e, 0)},
    "dpcore.queries.dp_category_counts": {"epsilon": lambda e: dp_category_counts([0, 2, 1], 3, e, 0)},
    "dpcore.quantiles.ExponentialQuantile": {"epsilon": lambda e: ExponentialQuantile(e, 0.0, 10.0)},
    "dpcore.quantiles.dp_quantile": {"epsilon": lambda e: dp_quantile(COLUMN, 0.25, 0.0, 10.0, e, 0)},
    "dpcore.quantiles.dp_median": {"epsilon": lambda e: dp_median(COLUMN, 0.0, 10.0, e, 0)},
    # the unit of privacy, quantiles off histograms, two conditions and two-way tables, release plans
    "dpcore.bound_tradeoff.count_tradeoff": {"epsilon": lambda e: count_tradeoff(["a", "a", "b"], e)},
    "dpcore.bound_tradeoff.sum_tradeoff": {"epsilon": lambda e: sum_tradeoff(["a", "a", "b"], [1, 2, 3], 0, 5, e)},
    "dpcore.bound_tradeoff.mean_tradeoff": {"epsilon": lambda e: mean_tradeoff(["a", "a", "b"], [1, 2, 3], 0, 5, e)},
    "dpcore.bound_tradeoff.private_bound": {"epsilon": lambda e: private_bound(["a", "a", "b"], e, max_bound=5, rng=0)},
    "dpcore.bound_tradeoff.publish_private_bound": {
        "epsilon": lambda e: publish_private_bound(["a", "a", "b"], e, max_bound=5)
    },
    "dpcore.families.lowest_variance_local": {"epsilon": lambda e: lowest_variance_local(e, 4)},
    "dpcore.histogram_quantile.dp_histogram_quantile": {
        "epsilon": lambda e: dp_histogram_quantile(COLUMN, 0.5, 0.0, 10.0, 5, e, 0)
    },
    "dpcore.queries.dp_count_matching_all": {
        "epsilon": lambda e: dp_count_matching_all([[True, False, True], [True, True, False]], e, 0)
    },
    "dpcore.queries.dp_two_way_table": {"epsilon": lambda e: dp_two_way_table([0, 1, 1], [1, 0, 1], (2, 2), e, 0)},
    "dpcore.publish.publish_two_way_table": {
        "epsilon": lambda e: publish_two_way_table([0, 1, 1], [1, 0, 1], ["a", "b"], ["x", "y"], e)
    },
    # publication (secure noise: the contract is the same)
    "dpcore.publish.publish_count": {"epsilon": lambda e: publish.publish_count(COLUMN, e)},
    "dpcore.publish.publish_logistic_regression": {
        "epsilon": lambda e: publish.publish_logistic_regression(
            np.eye(4)[:, :2], np.array([0.0, 1.0, 0.0, 1.0]), ["a", "b"], epsilon=e, delta=1e-5, iterations=2, clip=1.0
        )
    },
    "dpcore.learning.published.lattice_gd_noise": {"epsilon": lambda e: lattice_gd_noise(e, 1e-5, 5, 1.0, 3)},
    "dpcore.learning.published.lattice_gradient_descent": {
        "epsilon": lambda e: lattice_gradient_descent(
            np.eye(4)[:, :2], np.array([0.0, 1.0, 0.0, 1.0]), epsilon=e, delta=1e-5, iterations=2, clip=1.0, rng=0
        )
    },
    "dpcore.publish.publish_sum": {"epsilon": lambda e: publish.publish_sum(COLUMN, 0.0, 10.0, e)},
    "dpcore.publish.publish_mean": {"epsilon": lambda e: publish.publish_mean(COLUMN, 0.0, 10.0, e)},
    "dpcore.publish.publish_histogram": {"epsilon": lambda e: publish.publish_histogram(COLUMN, 3, 0.0, 9.0, e)},
    "dpcore.publish.publish_count_matching": {
        "epsilon": lambda e: publish.publish_count_matching([True, False], "x", e)
    },
    "dpcore.publish.publish_category_counts": {"epsilon": lambda e: publish.publish_category_counts([0, 1], "ab", e)},
    "dpcore.publish.publish_most_common": {"epsilon": lambda e: publish.publish_most_common([0, 1, 1], "ab", e)},
    "dpcore.publish.publish_local_counts": {"epsilon": lambda e: publish.publish_local_counts([0, 1], "ab", "OUE", e)},
    "dpcore.publish.publish_local_mean": {"epsilon": lambda e: publish.publish_local_mean(COLUMN, 0.0, 10.0, e)},
    "dpcore.publish.publish_clipping_bound": {"epsilon": lambda e: publish.publish_clipping_bound(COLUMN, 20.0, 10, e)},
    "dpcore.publish.publish_automatic_mean": {"epsilon": lambda e: publish.publish_automatic_mean(COLUMN, 20.0, 10, e)},
    "dpcore.publish.publish_quantile": {"epsilon": lambda e: publish.publish_quantile(COLUMN, 0.5, 0.0, 10.0, e)},
    "dpcore.publish.publish_range_counts": {
        "epsilon": lambda e: publish.publish_range_counts(COLUMN, [[0.0, 5.0]], 1.0, 1, e)
    },
    "dpcore.queries.noise_mechanism": {"epsilon": lambda e: noise_mechanism(e, 1.0)},
    "dpcore.queries.split_mean_budget": {"epsilon": lambda e: split_mean_budget(e, 0.5, 1e-6)},
    # noise
    "dpcore.laplace.Laplace.from_epsilon": {"epsilon": lambda e: Laplace.from_epsilon(e, 2.0)},
    "dpcore.staircase.Staircase": {"epsilon": lambda e: Staircase(e, 2.0)},
    "dpcore.staircase.Staircase.from_epsilon": {"epsilon": lambda e: Staircase.from_epsilon(e, 2.0)},
    "dpcore.staircase.optimal_gamma": {"epsilon": lambda e: optimal_gamma(e)},
    "dpcore.gaussian.Gaussian.from_epsilon_delta": {"epsilon": lambda e: Gaussian.from_epsilon_delta(e, 1e-5)},
    "dpcore.gaussian.Gaussian.from_rdp": {"epsilon_bar": lambda e: Gaussian.from_rdp(2.0, e)},
    "dpcore.gaussian.GaussianCalibration": {
        "epsilon": lambda e: GaussianCalibration("analytic", epsilon=e, delta=1e-5),
        "epsilon_bar": lambda e: GaussianCalibration("rdp", alpha=2.0, epsilon_bar=e),
    },
    "dpcore.gaussian.analytic_gaussian_sigma": {"epsilon": lambda e: analytic_gaussian_sigma(e, 1e-5)},
    "dpcore.gaussian.classic_gaussian_sigma": {"epsilon": lambda e: classic_gaussian_sigma(e, 1e-5)},
    "dpcore.gaussian.gaussian_delta": {"epsilon": lambda e: gaussian_delta(2.0, e)},
    "dpcore.gdp.gdp_delta": {"epsilon": lambda e: gdp_delta(0.5, e)},
    "dpcore.gdp.gdp_mu_for_epsilon": {"epsilon": lambda e: gdp_mu_for_epsilon(e, 1e-5)},
    "dpcore.exponential.exponential_probabilities": {"epsilon": lambda e: exponential_probabilities(ANSWERS, e)},
    "dpcore.exponential.exponential_mechanism": {"epsilon": lambda e: exponential_mechanism(ANSWERS, e, 1.0, 0)},
    "dpcore.exponential.exponential_error_bound": {"epsilon": lambda e: exponential_error_bound(5, e)},
    # local model
    "dpcore.randomized_response.GRR": {"epsilon": lambda e: GRR(e, 3)},
    "dpcore.unary_encoding.SUE": {"epsilon": lambda e: SUE(e, 3)},
    "dpcore.unary_encoding.OUE": {"epsilon": lambda e: OUE(e, 3)},
    "dpcore.ldp_mean.LDPMean": {"epsilon": lambda e: LDPMean(e, 0.0, 10.0)},
    # sparse vector technique and clipping bounds
    "dpcore.svt.above_threshold": {"epsilon": lambda e: above_threshold(ANSWERS, 1.0, e, 0)},
    "dpcore.svt.above_threshold_trials": {"epsilon": lambda e: above_threshold_trials(ANSWERS, 1.0, e, 0, 3)},
    "dpcore.svt.sparse": {"epsilon": lambda e: sparse(ANSWERS, 1.0, 2, e, 0)},
    "dpcore.svt.sparse_trials": {"epsilon": lambda e: sparse_trials(ANSWERS, 1.0, 2, e, 0, 3)},
    "dpcore.svt.range_query_svt": {"epsilon": lambda e: range_query_svt(ANSWERS, 1.0, 2, e, 0)},
    "dpcore.svt.exact_above_threshold_scales": {"epsilon": lambda e: exact_above_threshold_scales(e)},
    "dpcore.svt.naive_range_query": {"epsilon": lambda e: naive_range_query(ANSWERS, 1.0, e, 0)},
    "dpcore.svt.above_threshold_scales": {"epsilon": lambda e: above_threshold_scales(e)},
    "dpcore.svt.sparse_scales": {"epsilon": lambda e: sparse_scales(e, 3)},
    "dpcore.svt.naive_scale": {"epsilon": lambda e: naive_scale(e, 10)},
    "dpcore.svt.svt_noise_scales": {"epsilon": lambda e: svt_noise_scales(10, 2, e)},
    "dpcore.clipping.choose_clipping_bound": {"epsilon": lambda e: choose_clipping_bound(COLUMN, CANDIDATES, e, 0)},
    "dpcore.clipping.naive_clipping_bound": {"epsilon": lambda e: naive_clipping_bound(COLUMN, CANDIDATES, e, 0)},
    "dpcore.clipping.auto_mean": {"epsilon": lambda e: auto_mean(COLUMN, CANDIDATES, e, 0)},
    "dpcore.clipping.AutoMeanResult": {
        "epsilon": lambda e: AutoMeanResult(
            bound=5.0,
            found=True,
            true_value=3.0,
            noisy_value=3.2,
            unclipped_value=3.75,
            epsilon=e,
            n=4,
            dropped_nan=0,
            candidates=np.array(CANDIDATES),
            answers=np.zeros(4),
        )
    },
    # accounting
    "dpcore.accounting.composition.basic_composition": {"epsilons": lambda e: basic_composition([0.5, e])},
    "dpcore.accounting.composition.advanced_composition": {"epsilon": lambda e: advanced_composition(e, 0.0, 10, 1e-5)},
    "dpcore.accounting.composition.advanced_composition_curve": {
        "epsilon": lambda e: advanced_composition_curve(e, [1, 10], 1e-5)
    },
    "dpcore.accounting.rdp.randomized_response_rdp": {"epsilon": lambda e: randomized_response_rdp(e, 3)},
    "dpcore.accounting.zcdp.pure_dp_to_zcdp": {"epsilon": lambda e: pure_dp_to_zcdp(e)},
    "dpcore.accounting.zcdp.zcdp_rho_for_epsilon": {"epsilon": lambda e: zcdp_rho_for_epsilon(e, 1e-5)},
    "dpcore.accounting.gaussian_exact.gaussian_sigma_for_epsilon": {
        "epsilon": lambda e: gaussian_sigma_for_epsilon(e, 10, 1e-5)
    },
    "dpcore.accounting.curves.plan_noise": {"epsilon": lambda e: plan_noise("laplace", e, 1e-5, 10, "basic")},
    "dpcore.accounting.pld.pld_delta": {"epsilon": lambda e: pld_delta(Laplace(1.0), 2, e)},
    "dpcore.accounting.pld.laplace_privacy_loss": {"epsilon0": lambda e: laplace_privacy_loss(e, 0.1)},
    "dpcore.accounting.pld.randomized_response_privacy_loss": {
        "epsilon": lambda e: randomized_response_privacy_loss(e, 3)
    },
    "dpcore.accounting.pld.staircase_privacy_loss": {"epsilon": lambda e: staircase_privacy_loss(e, 0.5)},
    "dpcore.accounting.privacy_loss.staircase_loss_masses": {"epsilon": lambda e: staircase_loss_masses(e, 0.5)},
    "dpcore.accounting.events.PureDP": {"epsilon": lambda e: PureDP(e)},
    "dpcore.accounting.events.ApproxDP": {"epsilon": lambda e: ApproxDP(e, 1e-6)},
    "dpcore.audit.api.audit": {"epsilon": lambda e: audit("laplace_count", e, trials=200, rng=0)},
    "dpcore.audit.api.lower_bound_curve": {
        "epsilon": lambda e: lower_bound_curve("laplace_count", e, trials=400, rng=0, points=2)
    },
    "dpcore.audit.floating_point.floating_point_attack": {
        "epsilon": lambda e: floating_point_attack("lattice", e, trials=200, rng=0)
    },
    "dpcore.learning.noisy_gd.noisy_gd_noise": {"epsilon": lambda e: noisy_gd_noise(e, 1e-5, 2, 1.0)},
    "dpcore.learning.noisy_gd.noisy_gradient_descent": {
        "epsilon": lambda e: noisy_gradient_descent(
            FEATURES, LABELS, epsilon=e, delta=1e-5, iterations=2, clip=1.0, rng=0
        )
    },
    "dpcore.learning.noisy_gd.iterations_sweep": {
        "epsilon": lambda e: iterations_sweep(
            FEATURES, LABELS, epsilon=e, delta=1e-5, iterations=[1, 2], clip=1.0, rng=0, draws=1
        )
    },
    "dpcore.learning.noisy_gd.epsilon_frontier": {
        "epsilons": lambda e: epsilon_frontier(
            FEATURES, LABELS, epsilons=[0.5, e], delta=1e-5, iterations=2, clip=1.0, rng=0, draws=1
        )
    },
    "dpcore.learning.fedavg.naive_fedavg": {
        "epsilon": lambda e: naive_fedavg(CLIENTS, rounds=1, local_steps=1, epsilon=e, assumed_sensitivity=1.0, rng=0)
    },
    "dpcore.learning.fedavg.client_influence": {
        "epsilon": lambda e: client_influence(CLIENTS, local_steps=1, assumed_sensitivity=1.0, epsilon=e)
    },
    "dpcore.learning.fedavg.adversarial_client_influence": {
        "epsilon": lambda e: adversarial_client_influence(
            CLIENTS, scales=[1.0], local_steps=1, assumed_sensitivity=1.0, epsilon=e, clip=1.0
        )
    },
    "dpcore.accounting.pld.connect_the_dots_interval": {"epsilon_ref": lambda e: connect_the_dots_interval(10, e, 1.0)},
    "dpcore.accounting.pld.laplace_loss_variance": {"epsilon0": lambda e: laplace_loss_variance(e)},
    "dpcore.accounting.subsampled_gaussian.dpsgd_noise_multiplier": {
        "epsilon": lambda e: dpsgd_noise_multiplier(e, 1e-5, 0.01, 100, method="rdp")
    },
    "dpcore.accounting.subsampled_gaussian.plan_dpsgd": {
        "epsilon": lambda e: plan_dpsgd(1000, 10, 1, e, 1e-5, method="rdp")
    },
    "dpcore.accounting.ledger.BudgetLedger": {"epsilon": lambda e: BudgetLedger(e, 1e-6)},
    # the unit of privacy: user-level queries, group-bys, partition selection
    "dpcore.groupby.dp_person_count": {"epsilon": lambda e: dp_person_count([1, 1, 2], e, 0, bounds=PERSON_BOUNDS)},
    "dpcore.groupby.dp_person_sum": {
        "epsilon": lambda e: dp_person_sum(COLUMN, PERSONS, 0.0, 10.0, e, 0, bounds=PERSON_BOUNDS)
    },
    "dpcore.groupby.dp_person_mean": {
        "epsilon": lambda e: dp_person_mean(COLUMN, PERSONS, 0.0, 10.0, e, 0, bounds=PERSON_BOUNDS)
    },
    "dpcore.groupby.group_by": {"epsilon": lambda e: group_by(["a", "b", "a"], e, 0, keys=["a", "b"])},
    "dpcore.groupby.entry_noise": {
        "epsilon": lambda e: entry_noise(family("laplace"), e, PERSON_BOUNDS.histogram_sensitivity(), None)
    },
    "dpcore.groupby.group_by_cost": {"epsilon": lambda e: group_by_cost(e)},
    "dpcore.groupby.group_by_releases": {"epsilon": lambda e: group_by_releases(e)},
    "dpcore.groupby.publish_group_by": {"epsilon": lambda e: publish_group_by(["a", "b", "a"], e, keys=["a", "b"])},
    "dpcore.partition_selection.PartitionSelection": {"epsilon": lambda e: PartitionSelection(e, 1e-5)},
    "dpcore.partition_selection.LaplaceThresholding": {"epsilon": lambda e: LaplaceThresholding(e, 1e-5)},
    "dpcore.partition_selection.LaplaceThresholding.from_threshold": {
        "epsilon": lambda e: LaplaceThresholding.from_threshold(e, 10.0)
    },
    "dpcore.partition_selection.GaussianThresholding": {"epsilon": lambda e: GaussianThresholding(e, 1e-5, 2)},
    "dpcore.partition_selection.OptimalSelection": {"epsilon": lambda e: OptimalSelection(e, 1e-5, 2)},
    "dpcore.partition_selection.selection": {"epsilon": lambda e: selection("optimal", e, 1e-5)},
}

#: (callable, parameter) whose domain is [0, inf): ε = 0 is a meaningful input there.
ZERO_ALLOWED = {
    ("dpcore.gdp.gdp_delta", "epsilon"),  # δ_μ(0) = 2Φ(μ/2) − 1, the total variation distance
    ("dpcore.accounting.pld.pld_delta", "epsilon"),  # the same read off a privacy loss distribution
    ("dpcore.accounting.composition.basic_composition", "epsilons"),  # 0-DP releases compose to 0
    ("dpcore.accounting.composition.advanced_composition_curve", "epsilon"),  # a Gaussian whose δ suffices
}

#: Callables with an ε-named parameter that is not a privacy parameter to check, and why.
EXEMPT = {
    "dpcore.learning.published.LatticeGDNoise": "a record of a calibration, made by lattice_gd_noise, which checks",
    "dpcore.accounting.ledger.Budget": "an (ε, δ) amount spent or remaining, where 0 is the natural value",
    "dpcore.release.Release": "a record of a release, made by the functions of dpcore.publish, which check",
    "dpcore.accounting.subsampled_gaussian.DPSGDPlan": "a record of a plan's results, made by plan_dpsgd, which checks",
    "dpcore.accounting.ledger.Charge": "an (ε, δ) amount charged, where 0 is the natural value",
    "dpcore.audit.engine.AuditResult": "a record of an audit, made by audit(), which checks",
    "dpcore.audit.engine.BoundCurve": "a record of audits, made by lower_bound_curve(), which checks",
    "dpcore.audit.floating_point.FloatingPointAttack": "a record of an attack, made by floating_point_attack()",
    "dpcore.audit.broken.above_threshold_variant": "a broken exhibit, run only by audit() with checked arguments",
    "dpcore.audit.broken.sparse_variant": "a broken exhibit, run only by audit() with checked arguments",
    "dpcore.lattice.LatticeMechanism": "a record of a lattice calibration, made by lattice_mechanism(), which checks",
    "dpcore.learning.noisy_gd.NoisyGDNoise": "a record of a calibration, made by noisy_gd_noise, which checks",
    "dpcore.learning.result.TrainingResult": "a record of what a trainer spent, made by the trainers, which check",
    "dpcore.groupby.GroupByResult": "a record of a group-by, made by group_by, which checks",
    "dpcore.plan.Plan": "a plan's total may be None (the smallest total meeting the targets): PlanError names it",
    "dpcore.plan.Allocation": "a record of a split, made by allocate(), which checks",
    "dpcore.plan.Share": "a record of one statistic's share, made by allocate(), which checks",
    "dpcore.plan.Composition": "a record of a plan's total, made by compose(), which checks",
    "dpcore.plan.compose": "the total of shares allocate() made and checked (a Gaussian part's ε is 0 there)",
}


def public_modules():
    names = ["dpcore", "dpcore.accounting"]
    for info in pkgutil.walk_packages(dpcore.__path__, "dpcore."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return [importlib.import_module(name) for name in sorted(set(names))]


def epsilon_parameters(fn) -> list[str]:
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return []
    return [p for p in parameters if p.startswith("epsilon")]


def discover() -> dict[str, list[str]]:
    """Every public callable with an ε-like parameter, keyed by where it is defined."""
    found = {}
    for module in public_modules():
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                candidates = [(f"{obj.__module__}.{obj.__qualname__}", obj)]
            elif inspect.isclass(obj) and obj.__module__.startswith("dpcore"):
                candidates = [(f"{obj.__module__}.{obj.__qualname__}", obj)]
                for attr, raw in vars(obj).items():
                    if not attr.startswith("_") and isinstance(raw, (classmethod, staticmethod)):
                        candidates.append((f"{obj.__module__}.{obj.__qualname__}.{attr}", getattr(obj, attr)))
            else:
                continue
            for key, fn in candidates:
                params = epsilon_parameters(fn)
                if params:
                    found[key] = params
    return found


CASES = [(key, param) for key, calls in CALLS.items() for param in calls]


def test_every_epsilon_callable_has_an_entry():
    found = discover()
    missing = sorted(set(found) - set(CALLS) - set(EXEMPT))
    assert not missing, f"new callables taking epsilon need an entry in CALLS (or EXEMPT): {missing}"
    stale = sorted((set(CALLS) | set(EXEMPT)) - set(found))
    assert not stale, f"entries for callables that no longer exist or no longer take epsilon: {stale}"
    for key, calls in CALLS.items():
        assert sorted(calls) == sorted(found[key]), f"{key}: entries for {sorted(calls)}, parameters {found[key]}"
    assert len(found) >= 50  # negative control: the discovery sees the whole package


def domain(key, param) -> str:
    return "[0, inf)" if (key, param) in ZERO_ALLOWED else "(0, inf)"


@pytest.mark.parametrize("key, param", CASES, ids=[f"{k.removeprefix('dpcore.')}:{p}" for k, p in CASES])
def test_epsilon_contract(key, param):
    call = CALLS[key][param]
    call(0.5)  # positive control: with a valid ε the other arguments are valid, so a failure below is ε's
    lo = re.escape(domain(key, param))
    if (key, param) in ZERO_ALLOWED:
        call(0.0)
    else:
        with pytest.raises(ValueError) as info:
            call(0.0)
        assert re.fullmatch(rf"{param} must be in {lo}, got 0\.0", str(info.value)), str(info.value)
    for value, shown in ((math.nan, "nan"), (math.inf, "inf")):
        with pytest.raises(ValueError) as info:
            call(value)
        assert re.fullmatch(rf"{param} must be in {lo}, got {shown}", str(info.value)), str(info.value)
    with pytest.raises(TypeError) as info:
        call(True)
    assert re.fullmatch(rf"{param} must be a real number in {lo}, got True", str(info.value)), str(info.value)
