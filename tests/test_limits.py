"""Every size-driving parameter of dpcore is bounded: far beyond its bound a call is refused at once, in one sentence.

Each case runs in a forked process with an address-space limit (so a regression fails this test instead of taking the
machine down), under tracemalloc, and must finish within 2 s of CPU and 1 GB: refused with a ValueError or TypeError
when the parameter is beyond its bound (:mod:`dpcore.limits`), or computed within the budget at the bound itself.
"""

from __future__ import annotations

import ast
import multiprocessing
import pathlib
import resource
import time
import tracemalloc
import warnings
from fractions import Fraction

import numpy as np
import pytest

import dpcore
from dpcore import accounting, audit, contributions, groupby, learning, limits, partition_selection
from dpcore.discrete import DiscreteGaussian, DiscreteLaplace

ROOT = pathlib.Path(__file__).resolve().parents[1]
CPU_SECONDS = 2.0
TRACED_BYTES = 1 << 30
HUGE = 10**12  # far beyond every bound


def _rng():
    return np.random.default_rng(1)


_X = np.random.default_rng(0).normal(size=(200, 3))
_Y = (_X[:, 0] > 0).astype(float)
_VALUES = np.random.default_rng(0).uniform(0, 10, 1_000)


_BOUNDS = contributions.ContributionBounds()
_MILLION = np.arange(1_000_000)


def _clients():
    return learning.split_at_random(_X, _Y, 10, _rng())


def _fedavg(**kw):
    args = dict(rounds=2, client_rate=0.5, local_steps=1, clip=1.0, noise_multiplier=1.0, rng=_rng())
    return learning.dp_fedavg(_clients(), **{**args, **kw})


#: (what, call, the word the refusal must name): every call passes one size-driving parameter far beyond its bound.
REFUSED = [
    ("epsilon_curve: a huge k", lambda: accounting.epsilon_curve(dpcore.Laplace(1.0), [HUGE], 1e-5), "ks"),
    (
        "epsilon_curve: too many ks",
        lambda: accounting.epsilon_curve(dpcore.Gaussian(1.0), np.arange(1, 10**7), 1e-5),
        "ks",
    ),
    (
        "epsilon_curve: too many PLD points",
        lambda: accounting.epsilon_curve(dpcore.Laplace(1.0), range(1, 5_000), 1e-5),
        "PLD",
    ),
    ("pld_epsilon: a huge k", lambda: accounting.pld_epsilon(dpcore.Laplace(1.0), HUGE, 1e-5), "k"),
    (
        "pld_epsilon: a tiny grid step",
        lambda: accounting.pld_epsilon(dpcore.Laplace(1.0), 10, 1e-5, value_discretization_interval=1e-12),
        "interval",
    ),
    (
        "pld_delta: a tiny grid step",
        lambda: accounting.pld_delta(dpcore.Gaussian(1.0), 10, 1.0, value_discretization_interval=1e-12),
        "interval",
    ),
    ("dpsgd_epsilon: huge steps", lambda: accounting.dpsgd_epsilon(1.0, 0.01, HUGE, 1e-5), "steps"),
    (
        "dpsgd_epsilon: too many steps values",
        lambda: accounting.dpsgd_epsilon(1.0, 0.01, np.arange(1, 10**6), 1e-5),
        "steps",
    ),
    (
        "dpsgd_epsilon: a tiny grid step",
        lambda: accounting.dpsgd_epsilon(1.0, 0.01, 10, 1e-5, value_discretization_interval=1e-12),
        "interval",
    ),
    ("dpsgd_epsilon: σ = 1e-6", lambda: accounting.dpsgd_epsilon(1e-6, 0.5, 10, 1e-5), "noise_multiplier"),
    ("dpsgd_epsilon: σ = 1e-300", lambda: accounting.dpsgd_epsilon(1e-300, 0.5, 10, 1e-5), "noise_multiplier"),
    ("dpsgd_epsilon: σ = 1e300", lambda: accounting.dpsgd_epsilon(1e300, 0.5, 10, 1e-5), "noise_multiplier"),
    ("dpsgd_epsilon: q = 1e-300", lambda: accounting.dpsgd_epsilon(1.0, 1e-300, 10, 1e-5), "sampling_rate"),
    ("dpsgd_noise_multiplier: huge steps", lambda: accounting.dpsgd_noise_multiplier(1.0, 1e-5, 0.01, HUGE), "steps"),
    (
        "dpsgd_noise_multiplier: q = 1e-300",
        lambda: accounting.dpsgd_noise_multiplier(1.0, 1e-5, 1e-300, 1_000),
        "sampling_rate",
    ),
    (
        "subsampled_gaussian_rdp: too many orders",
        lambda: accounting.subsampled_gaussian_rdp(1.0, 0.01, np.linspace(1.1, 1e6, 10**7)),
        "orders",
    ),
    ("subsampled_gaussian_rdp: a huge order", lambda: accounting.subsampled_gaussian_rdp(1.0, 0.01, [1e12]), "orders"),
    ("gaussian_epsilon: too many ks", lambda: accounting.gaussian_epsilon(1.0, np.arange(1, 10**8), 1e-5), "k"),
    ("advanced_composition: a huge k", lambda: accounting.advanced_composition(1.0, 1e-6, HUGE, 1e-6), "k"),
    ("plan_epsilon: a tiny accuracy", lambda: accounting.plan_epsilon("laplace", 1e-300, 10, 1e-5), "accuracy"),
    ("plan_epsilon: a huge accuracy", lambda: accounting.plan_epsilon("gaussian", 1e300, 10, 1e-5), "accuracy"),
    ("plan_noise: a huge k", lambda: accounting.plan_noise("gaussian", 1.0, 1e-5, HUGE), "k"),
    ("GRR: huge k", lambda: dpcore.GRR(1.0, HUGE), "k"),
    ("OUE: huge k", lambda: dpcore.OUE(1.0, HUGE), "k"),
    ("SUE: huge k", lambda: dpcore.SUE(1.0, HUGE), "k"),
    ("OUE: rows × categories", lambda: dpcore.OUE(1.0, 10**5).perturb(np.zeros(10**5, int), _rng()), "rows"),
    (
        "GRR simulate: huge trials",
        lambda: dpcore.GRR(1.0, 5).simulate(np.array([10, 20, 30, 40, 50]), _rng(), trials=HUGE),
        "trials",
    ),
    (
        "ExponentialQuantile.intervals: too many values",
        lambda: dpcore.ExponentialQuantile(1.0, 0.0, 10.0).intervals(np.broadcast_to(1.0, (HUGE,))),
        "values",
    ),
    (
        "ExponentialQuantile.simulate: huge trials",
        lambda: dpcore.ExponentialQuantile(1.0, 0.0, 10.0).simulate(_VALUES, _rng(), HUGE),
        "trials",
    ),
    (
        "exponential_mechanism: huge trials",
        lambda: dpcore.exponential_mechanism(np.arange(10.0), 1.0, 1.0, _rng(), trials=HUGE),
        "trials",
    ),
    ("dp_histogram: huge bins", lambda: dpcore.dp_histogram(_VALUES, HUGE, 1.0, _rng(), lower=0, upper=10), "bins"),
    ("dp_category_counts: huge k", lambda: dpcore.dp_category_counts(np.zeros(10, int), HUGE, 1.0, _rng()), "k"),
    (
        "above_threshold_trials: huge trials",
        lambda: dpcore.above_threshold_trials(np.arange(10.0), 5, 1.0, _rng(), HUGE),
        "trials",
    ),
    ("sparse_trials: huge trials", lambda: dpcore.sparse_trials(np.arange(10.0), 5, 2, 1.0, _rng(), HUGE), "trials"),
    ("evenly_spaced_candidates: huge n", lambda: dpcore.evenly_spaced_candidates(1.0, HUGE), "n"),
    ("one_two_five_ladder: huge decades", lambda: dpcore.one_two_five_ladder(0, HUGE), "last_decade"),
    (
        "auto_mean: huge trials",
        lambda: dpcore.auto_mean(_VALUES, dpcore.LADDER_CANDIDATES, 1.0, _rng(), trials=HUGE),
        "trials",
    ),
    (
        "choose_clipping_bound: huge trials",
        lambda: dpcore.choose_clipping_bound(_VALUES, dpcore.LADDER_CANDIDATES, 1.0, _rng(), trials=HUGE),
        "trials",
    ),
    (
        "clipping_queries: too many candidates",
        lambda: dpcore.clipping_queries(_VALUES, np.linspace(0.1, 10, 10**7)),
        "candidates",
    ),
    ("DiscreteLaplace: huge size", lambda: DiscreteLaplace(3).sample(_rng(), size=HUGE), "size"),
    ("DiscreteLaplace: huge scale", lambda: DiscreteLaplace(HUGE**3).sample(_rng(), size=10), "scale"),
    ("DiscreteGaussian: huge size", lambda: DiscreteGaussian(Fraction(4)).sample(_rng(), size=(HUGE, 2)), "size"),
    ("Laplace.sample: huge size", lambda: dpcore.Laplace(1.0).sample(_rng(), size=HUGE), "size"),
    ("Laplace.release: huge trials", lambda: dpcore.Laplace(1.0).simulate(3.0, _rng(), trials=HUGE), "trials"),
    (
        "LDPMean.simulate: huge trials",
        lambda: dpcore.LDPMean(1.0, 0, 10).simulate(_VALUES, _rng(), trials=HUGE),
        "trials",
    ),
    (
        "lattice simulate: huge trials",
        lambda: dpcore.lattice_mechanism(dpcore.Laplace(1.0)).simulate(3.0, _rng(), HUGE),
        "trials",
    ),
    (
        "noisy_gradient_descent: huge iterations",
        lambda: learning.noisy_gradient_descent(_X, _Y, epsilon=1.0, delta=1e-5, iterations=HUGE, clip=1.0, rng=_rng()),
        "iterations",
    ),
    (
        "noisy_gradient_descent: huge draws",
        lambda: learning.noisy_gradient_descent(
            _X, _Y, epsilon=1.0, delta=1e-5, iterations=10, clip=1.0, rng=_rng(), draws=HUGE
        ),
        "draws",
    ),
    (
        "noisy_gradient_descent: work",
        lambda: learning.noisy_gradient_descent(
            np.zeros((10**5, 50)),
            np.r_[np.zeros(50_000), np.ones(50_000)],
            epsilon=1.0,
            delta=1e-5,
            iterations=10_000,
            clip=1.0,
            rng=_rng(),
        ),
        "steps × draws",
    ),
    (
        "dp_sgd: huge steps",
        lambda: learning.dp_sgd(_X, _Y, noise_multiplier=1.0, sampling_rate=0.1, steps=HUGE, clip=1.0, rng=_rng()),
        "steps",
    ),
    (
        "dp_sgd: huge draws",
        lambda: learning.dp_sgd(
            _X, _Y, noise_multiplier=1.0, sampling_rate=0.1, steps=10, clip=1.0, rng=_rng(), draws=HUGE
        ),
        "draws",
    ),
    (
        "dp_sgd: σ = 1e-300",
        lambda: learning.dp_sgd(_X, _Y, noise_multiplier=1e-300, sampling_rate=0.1, steps=10, clip=1.0, rng=_rng()),
        "noise_multiplier",
    ),
    ("dp_fedavg: huge rounds", lambda: _fedavg(rounds=HUGE), "rounds"),
    ("dp_fedavg: huge local steps", lambda: _fedavg(local_steps=HUGE), "local_steps"),
    ("dp_fedavg: σ = 1e-6", lambda: _fedavg(noise_multiplier=1e-6), "noise_multiplier"),
    ("dp_fedavg: client rate 1e-300", lambda: _fedavg(client_rate=1e-300), "client_rate"),
    ("split_at_random: huge clients", lambda: learning.split_at_random(_X, _Y, HUGE, _rng()), "n_clients"),
    ("poisson_batches: huge n", lambda: learning.poisson_batches(HUGE, 0.5, 1, _rng()), "batch"),
    (
        "iterations_sweep: huge T",
        lambda: learning.iterations_sweep(_X, _Y, epsilon=1.0, delta=1e-5, iterations=[HUGE], clip=1.0, rng=_rng()),
        "iterations",
    ),
    (
        "epsilon_frontier: too many ε",
        lambda: learning.epsilon_frontier(
            _X, _Y, epsilons=np.linspace(0.1, 1, 10**6), delta=1e-5, iterations=10, clip=1.0, rng=_rng()
        ),
        "epsilons",
    ),
    ("audit: huge trials", lambda: audit.audit("laplace_count", 1.0, trials=HUGE, rng=_rng()), "trials"),
    ("audit: huge n", lambda: audit.audit("laplace_count", 1.0, trials=1_000, rng=_rng(), n=HUGE), "n"),
    (
        "audit: huge candidates",
        lambda: audit.audit("exponential", 1.0, trials=1_000, rng=_rng(), candidates=HUGE),
        "candidates",
    ),
    (
        "audit: huge queries",
        lambda: audit.audit("above_threshold", 1.0, trials=1_000, rng=_rng(), queries=HUGE),
        "queries",
    ),
    (
        "audit: runs × queries",
        lambda: audit.audit("above_threshold", 1.0, trials=10**7, rng=_rng(), queries=100),
        "runs",
    ),
    (
        "lower_bound_curve: huge points",
        lambda: audit.lower_bound_curve("laplace_count", 1.0, trials=1_000, rng=_rng(), points=HUGE),
        "points",
    ),
    ("floating_point_attack: huge trials", lambda: audit.floating_point_attack(trials=HUGE), "trials"),
    (
        "bound_contributions: huge rows",
        lambda: contributions.bound_contributions(np.broadcast_to(1, (HUGE,)), _rng(), bounds=_BOUNDS),
        "rows",
    ),
    (
        "bound_contributions: a million distinct groups",
        lambda: contributions.bound_contributions(_MILLION % 1_000, _rng(), bounds=_BOUNDS, groups=_MILLION),
        "groups",
    ),
    ("ContributionBounds: huge max_rows", lambda: contributions.ContributionBounds(max_rows=HUGE), "max_rows"),
    ("ContributionBounds: huge max_groups", lambda: contributions.ContributionBounds(max_groups=HUGE), "max_groups"),
    (
        "dp_person_sum: huge values",
        lambda: groupby.dp_person_sum(np.broadcast_to(1.0, (HUGE,)), [1], 0.0, 1.0, 1.0, _rng(), bounds=_BOUNDS),
        "values",
    ),
    (
        "group_by: a million distinct groups",
        lambda: groupby.group_by(_MILLION, 1.0, _rng(), selection=partition_selection.OptimalSelection(1.0, 1e-6)),
        "groups",
    ),
    ("group_by: huge rows", lambda: groupby.group_by(np.broadcast_to(1, (HUGE,)), 1.0, _rng(), keys=["1"]), "rows"),
    (
        "group_by: huge keys",
        lambda: groupby.group_by(["a"], 1.0, _rng(), keys=np.broadcast_to("k", (HUGE,))),
        "keys",
    ),
    (
        "OptimalSelection: huge max_groups",
        lambda: partition_selection.OptimalSelection(1.0, 1e-6, HUGE),
        "max_groups",
    ),
    (
        "OptimalSelection.simulate: huge trials",
        lambda: partition_selection.OptimalSelection(1.0, 1e-6).simulate(1, _rng(), HUGE),
        "trials",
    ),
    (
        "LaplaceThresholding.keep_probability: huge counts",
        lambda: partition_selection.LaplaceThresholding(1.0, 1e-6).keep_probability(np.broadcast_to(1, (HUGE,))),
        "distinct",
    ),
]

#: At the bound itself the work is done, within the same budget.
AT_THE_BOUND = [
    (
        "dpsgd_epsilon at the smallest σ and q, most steps",
        lambda: accounting.dpsgd_epsilon(
            limits.MIN_NOISE_MULTIPLIER, limits.MIN_SAMPLING_RATE, limits.MAX_COMPOSITIONS, 1e-5
        ),
    ),
    (
        "dpsgd_epsilon at the largest σ",
        lambda: accounting.dpsgd_epsilon(limits.MAX_NOISE_MULTIPLIER, 0.5, limits.MAX_COMPOSITIONS, 1e-5),
    ),
    (
        "pld_epsilon at the most compositions",
        lambda: accounting.pld_epsilon(dpcore.Gaussian(1.0), limits.MAX_COMPOSITIONS, 1e-5),
    ),
    (
        "OUE at the most rows × categories",
        lambda: dpcore.OUE(1.0, 1_000).perturb(np.zeros(limits.MAX_ELEMENTS // 1_000, int), _rng()),
    ),
    (
        "ExponentialQuantile.simulate at the most trials",
        lambda: dpcore.ExponentialQuantile(1.0, 0.0, 10.0).simulate(_VALUES, _rng(), limits.MAX_TRIALS),
    ),
    (
        "exponential_mechanism at the most trials",
        lambda: dpcore.exponential_mechanism(np.arange(10.0), 1.0, 1.0, _rng(), trials=limits.MAX_TRIALS),
    ),
    (
        "dp_histogram at the most bins",
        lambda: dpcore.dp_histogram(_VALUES, limits.MAX_CATEGORIES, 1.0, _rng(), lower=0, upper=10),
    ),
    (
        "above_threshold_trials at the most trials × answers",
        lambda: dpcore.above_threshold_trials(np.arange(100.0), 50, 1.0, _rng(), limits.MAX_ELEMENTS // 100),
    ),
    (
        "bound_contributions at the most rows, grouped",
        lambda: contributions.bound_contributions(
            np.arange(limits.MAX_TABLE_ROWS) % 500_000,
            _rng(),
            bounds=contributions.ContributionBounds(max_groups=2, max_rows_per_group=3),
            groups=np.arange(limits.MAX_TABLE_ROWS) % limits.MAX_CATEGORIES,
        ),
    ),
    (
        "group_by at the most groups, by private selection",
        lambda: groupby.group_by(
            np.arange(limits.MAX_CATEGORIES), 1.0, _rng(), selection=partition_selection.OptimalSelection(1.0, 1e-6)
        ),
    ),
]


#: The address space a case may add to what the process already reserves when it forks.
HEADROOM_BYTES = 4 << 30


def _address_space() -> int:
    """The process's reserved address space now (VmSize): libraries other tests loaded (DuckDB's and Spark's threads,
    Chromium's drivers) reserve gigabytes of it without using them, so the limit counts from here."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _child(call, queue) -> None:
    limit = _address_space() + HEADROOM_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))  # a regression fails here, not the machine
    warnings.simplefilter("ignore")
    tracemalloc.start()
    started = time.process_time()
    try:
        call()
        outcome = ("returned", "")
    except (ValueError, TypeError) as exc:
        outcome = ("refused", str(exc))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent as the failure it is
        outcome = (type(exc).__name__, str(exc)[:300])
    queue.put((*outcome, time.process_time() - started, tracemalloc.get_traced_memory()[1]))


def _run(call, timeout: float = 60.0):
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_child, args=(call, queue))
    process.start()
    process.join(timeout)
    if process.is_alive():
        process.kill()
        process.join()
        pytest.fail(f"still running after {timeout} s")
    assert not queue.empty(), f"the child died (exit code {process.exitcode})"
    return queue.get()


@pytest.mark.parametrize("what, call, word", REFUSED, ids=[c[0] for c in REFUSED])
def test_far_beyond_its_bound_a_call_is_refused_at_once_in_one_sentence(what, call, word):
    outcome, message, cpu, peak = _run(call)
    assert outcome == "refused", (outcome, message)
    assert word in message and "\n" not in message, message  # names the parameter, one line
    assert cpu < CPU_SECONDS and peak < TRACED_BYTES, (cpu, peak)


@pytest.mark.parametrize("what, call", AT_THE_BOUND, ids=[c[0] for c in AT_THE_BOUND])
def test_at_its_bound_a_call_is_done_within_the_budget(what, call):
    outcome, message, cpu, peak = _run(call)
    assert outcome == "returned", (outcome, message)
    assert peak < TRACED_BYTES, peak
    # CPU at the bound is a property of the bound; twice the 2 s budget leaves room for a loaded machine
    assert cpu < 2 * CPU_SECONDS, cpu


def test_the_harness_catches_an_unbounded_call():
    """Negative control: a call that allocates past the budget is reported, not passed."""
    outcome, _, _, peak = _run(lambda: np.ones(150_000_000))  # 1.2 GB, under the child's address limit
    assert outcome == "returned" and peak >= TRACED_BYTES


def test_every_bound_is_used_by_dpcore():
    """Each name of dpcore.limits is read by some module of dpcore (a bound nobody checks bounds nothing)."""
    sources = [p.read_text() for p in (ROOT / "dpcore").rglob("*.py") if p.name != "limits.py"]
    for name in limits.__all__:
        assert any(name in text for text in sources), name


def test_no_python_float_power_of_two_in_dpcore():
    """``x ** 2`` on a Python float raises OverflowError past 1e154 where ``x * x`` gives inf: dpcore multiplies."""
    offenders = []
    for path in (ROOT / "dpcore").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and isinstance(node.left, ast.Attribute):
                if isinstance(node.right, ast.Constant) and node.right.value == 2:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders
