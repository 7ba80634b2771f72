"""The Learning page's computations: the task's features and every training run, cached on plain arguments.

Each function here is a page-boundary cache shared by the sessions and bounded by bytes
(:func:`explorer.cache.bounded`) around :mod:`dpcore.learning` or
:mod:`dpcore.accounting`, or a small helper on what they return; ``app_pages/learning.py`` and its views
(``explorer/learning_*.py``) lay the results out. The prepared features travel as an unhashed argument
(``_f``) beside ``key``, the hashable identity of the arguments that made them. The training runs go
through :func:`explorer.releases.private_model`, the function the page's snippet shows.

A rerun may spend about 2 s of CPU (issue 23). Each training run, sweep and frontier is a short list of calls of
dpcore (and of :mod:`explorer.releases`), with an estimate of its CPU from the sizes it trains on (rows × features ×
steps × draws at rates measured on the 2-core server, ``benchmarks/bench_attack.py``; the float64 design each run
builds, and the recorded history), with the features' own preparation when it is costly (:func:`features_seconds`,
which the first rerun on a task spends before any training): at most :data:`INLINE_SECONDS` it runs in the rerun,
cached as before; above, in the server's pool of workers (:mod:`explorer.jobs`), and the function returns ``None``
while the page shows where the job is. Both run the same calls, so the numbers are the same either way.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore import learning
from dpcore.accounting import OrderGridEdgeWarning, dpsgd_epsilon, epsilon_curve, plan_dpsgd
from explorer import budget, cache, jobs, releases
from explorer.columns import is_numeric
from explorer.features import Features, prepare_features

__all__ = [
    "MAX_ROWS",
    "HISTORY_POINTS",
    "SWEEP_ITERATIONS",
    "FRONTIER_EPS",
    "NGD_METHODS",
    "NGD_ACCOUNTINGS",
    "SGD_SIGMAS",
    "FED_SIGMAS",
    "ADVERSARY_SCALES",
    "Task",
    "record_every",
    "DEFAULT_EPSILON",
    "default_batch",
    "default_clients",
    "default_client_rate",
    "INLINE_SECONDS",
    "run_seconds",
    "features_seconds",
    "inline",
    "prepared",
    "default_target",
    "spread",
    "tidy_history",
    "baseline",
    "train",
    "nonprivate",
    "dpsgd_curves",
    "published_setting",
    "ngd_sweep",
    "ngd_frontier",
    "ngd_costs",
    "planned",
    "sgd_frontier",
    "client_columns",
    "client_sizes",
    "tutorial_run",
    "influence",
    "fed_frontier",
]


#: The iterations of noisy gradient descent swept at a fixed ε (the page marks the best).
SWEEP_ITERATIONS = (1, 2, 5, 10, 20, 50)
#: The total ε of the noisy-gradient-descent frontier.
FRONTIER_EPS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
#: The accountings that can calibrate noisy gradient descent, in the chooser's order (dpcore's keys).
NGD_METHODS = ("exact", "rdp", "zcdp", "advanced", "basic")
#: Their names a reader (and a link) sees -> dpcore's key; the names are the one map's (:func:`budget.accounting_name`).
NGD_ACCOUNTINGS = {budget.accounting_name(m): m for m in NGD_METHODS}
#: Noise multipliers of the DP-SGD and DP-FedAvg frontiers (each point's ε is what the PLD gives for it).
SGD_SIGMAS = (0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0)
FED_SIGMAS = (0.5, 0.7, 1.0, 1.5, 2.5)
#: Norms of the model a single client sends in the tutorial demonstration.
ADVERSARY_SCALES = (0.0, 1.0, 10.0, 100.0, 1000.0)
#: Points of a history chart: each reads the training and test rows once.
HISTORY_POINTS = 20
#: Rows the page trains and tests on at most (a seeded random subset of a larger table, noted on the page): full-batch
#: gradient descent costs rows × features per step, and a slider move must stay near 2 s of server CPU
#: (benchmarks/bench_heavy.py measures it on the largest upload).
MAX_ROWS = 125_000


def record_every(steps: int) -> int:
    """Record the history every this many steps: about :data:`HISTORY_POINTS` points."""
    return max(1, math.ceil(steps / HISTORY_POINTS))


#: The ε every view of the page starts at (a link's value wins): a common target of published DP training runs, and
#: the middle of the slider's 0.01 to 10.
DEFAULT_EPSILON = 1.0
#: The largest default batch (DP-SGD) and number of random clients (DP-FedAvg), reached from 2,560 and 5,000
#: training rows up; the clients sampled per round by default, at least.
MAX_DEFAULT_BATCH, MAX_DEFAULT_CLIENTS, CLIENTS_PER_ROUND = 256, 500, 10


def default_batch(n_train: int) -> int:
    """DP-SGD's default expected batch size for ``n_train`` training rows: a tenth of them, at least 1 and at most
    :data:`MAX_DEFAULT_BATCH` (so q = B / n is at most 0.1 and one epoch is at least 10 steps on any file).

    A shape fact, for the simulation's default only (DP-SGD does not publish here); a link's value wins."""
    return int(min(MAX_DEFAULT_BATCH, max(1, n_train // 10)))


def default_clients(n_train: int) -> int:
    """DP-FedAvg's default number of random clients: about 10 training rows each, at least 1 and at most
    :data:`MAX_DEFAULT_CLIENTS` (a shape fact, for the simulation's default only; a link's value wins)."""
    return int(min(MAX_DEFAULT_CLIENTS, max(1, n_train // 10)))


def default_client_rate(n_train: int) -> float:
    """DP-FedAvg's default client sampling rate: about :data:`CLIENTS_PER_ROUND` of the default clients per round,
    at least 0.05 and at most 1, to two decimals."""
    return float(min(1.0, max(0.05, round(CLIENTS_PER_ROUND / default_clients(n_train), 2))))


@dataclass(frozen=True)
class Task:
    """The prepared arrays and the arguments that made them (``key`` identifies them in the caches)."""

    key: tuple
    features: Features
    target: str
    label: dict
    columns: tuple
    split_seed: tuple
    draws: int

    @property
    def n_train(self) -> int:
        return int(self.features.y_train.size)


@cache.bounded(256 * cache.MIB, spinner="Preparing the features…", largest=0.5)
def prepared(dataset_key, target, positive, threshold, columns, split_seed, _frame) -> Features:
    return prepare_features(
        _frame,
        target,
        positive=positive,
        threshold=threshold,
        features=list(columns),
        rng=np.random.default_rng(list(split_seed)),
        max_rows=MAX_ROWS,
    )


def default_target(frame: pd.DataFrame) -> str:
    """``income`` when there is one (the census demo, Adult), else the first two-valued column, else the first
    numeric one (cut at its median), else the first column."""
    if "income" in frame.columns:
        return "income"
    counts = {str(c): frame[c].nunique(dropna=True) for c in frame.columns}
    two = [c for c, k in counts.items() if k == 2]
    numeric = [c for c, k in counts.items() if k > 2 and is_numeric(frame[c])]
    return (two or numeric or [str(frame.columns[0])])[0]


def spread(history: pd.DataFrame, column: str = "test_accuracy") -> pd.DataFrame:
    """Mean, min and max over the noise draws of a history column, per step."""
    g = history.groupby("step")[column]
    return pd.DataFrame({"mean": g.mean(), "low": g.min(), "high": g.max()}).reset_index()


def train(key, method, settings, seed, draws, _f) -> dict | None:
    """One private run through the page's release function; what the page shows of it (``None`` while it runs in
    the pool)."""
    label = f"{method[0].upper()}{method[1:]}, {_steps_words(method, settings)}, {draws} draws"
    return _inline_or_pool(
        "lrn_train_" + "_".join(re.findall(r"[a-z]+", f"{method} {settings.get('clipping', '')}".lower())),
        ("train", key, method, tuple(sorted(settings.items())), tuple(seed), draws),
        run_seconds(method, settings, draws, _f),
        label,
        lambda: _train(key, method, settings, seed, draws, _f),
        lambda: _train_calls(method, settings, seed, draws, _f),
        lambda found: _train_summary(*found[0], _f),
        _f,
    )


def _train_calls(method, settings, seed, draws, f) -> list:
    args = (method, f.X_train, f.y_train, f.feature_names, settings, list(seed), draws, f.X_test, f.y_test)
    return [jobs.Call(releases.private_model, args)]


def _train_summary(result, release, f) -> dict:
    return {
        "history": result.history,
        "release": release,
        "accuracy": np.atleast_1d(result.accuracy(f.X_test, f.y_test)),
        "epsilon": result.epsilon,
        "delta": result.delta,
        "privacy": result.privacy,
        "details": dict(result.details),
    }


@cache.bounded(32 * cache.MIB, spinner="Training…")
def _train(key, method, settings, seed, draws, _f) -> dict:
    return _train_summary(*_here(_train_calls(method, settings, seed, draws, _f))[0], _f)


def nonprivate(key, iterations, learning_rate, _f) -> pd.DataFrame | None:
    """The same model without privacy (full-batch gradient descent): its history (``None`` while in the pool)."""
    n, p = _size(_f)
    return _inline_or_pool(
        "lrn_nonprivate",
        ("nonprivate", key, iterations, learning_rate),
        _design_seconds(_f) + _history_seconds(1, _f) + iterations * n * p / FULL_BATCH_RATE,
        f"The model without privacy, {iterations:,} steps",
        lambda: _nonprivate(key, iterations, learning_rate, _f),
        lambda: _nonprivate_calls(iterations, learning_rate, _f),
        lambda found: found[0].history,
        _f,
    )


def _nonprivate_calls(iterations, learning_rate, f) -> list:
    kwargs = {
        "iterations": iterations,
        "learning_rate": learning_rate,
        "X_test": f.X_test,
        "y_test": f.y_test,
        "history_every": record_every(iterations),
    }
    return [jobs.Call(learning.nonprivate_gradient_descent, (f.X_train, f.y_train), kwargs)]


@cache.bounded(32 * cache.MIB, spinner="Training without privacy…")
def _nonprivate(key, iterations, learning_rate, _f) -> pd.DataFrame:
    return _here(_nonprivate_calls(iterations, learning_rate, _f))[0].history


def baseline(t: Task) -> float:
    return learning.majority_baseline(t.features.y_train, t.features.y_test).accuracy


def tidy_history(**runs: pd.DataFrame) -> pd.DataFrame:
    """The histories of several models in one table, a column naming the model."""
    return pd.concat([h.assign(model=name) for name, h in runs.items()], ignore_index=True)[
        ["model", "step", "draw", "loss", "train_accuracy", "test_accuracy", "clipped_fraction"]
    ]


def dpsgd_curves(sigma, q, steps, delta) -> pd.DataFrame | None:
    """ε against the number of steps (or rounds) of the subsampled Gaussian: PLD, RDP, and RDP's classic conversion."""
    return _inline_or_pool(
        "lrn_sgd_curves",
        ("sgd curves", sigma, q, steps, delta),
        steps * CURVE_SECONDS_PER_STEP,
        f"ε against the steps, up to {4 * steps:,}",
        lambda: _dpsgd_curves(sigma, q, steps, delta),
        lambda: _curves_calls(sigma, q, steps, delta),
        lambda found: _curves_table(steps, found),
    )


def _curves_calls(sigma, q, steps, delta) -> list:
    ks = _curve_steps(steps)
    return [
        jobs.Call(dpsgd_epsilon, (sigma, q, ks, delta, "pld")),
        jobs.Call(dpsgd_epsilon, (sigma, q, ks, delta, "rdp")),
        jobs.Call(dpsgd_epsilon, (sigma, q, ks, delta, "rdp"), {"conversion": "mironov"}),
    ]


def _curve_steps(steps) -> np.ndarray:
    return np.unique(np.r_[np.geomspace(1, max(4 * steps, 100), 40).round(), steps]).astype(int)


def _curves_table(steps, found) -> pd.DataFrame:
    pld, rdp, classic = found
    name = budget.accounting_name
    return pd.DataFrame(
        {
            "steps": _curve_steps(steps),
            name("pld"): pld,
            name("rdp"): rdp,
            f"{name('rdp', 'mironov')} (Mironov 2017)": classic,
        }
    )


@cache.bounded(32 * cache.MIB)
def _dpsgd_curves(sigma, q, steps, delta) -> pd.DataFrame:
    return _curves_table(steps, _here(_curves_calls(sigma, q, steps, delta)))


@cache.bounded(8 * cache.MIB)
def published_setting() -> dict:
    """Abadi et al. (2016)'s MNIST setting, q = 0.01, σ = 4, T = 10,000, δ = 1e-5 (published: ε = 1.26), by each accountant."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        return {
            budget.accounting_name(method, conversion): dpsgd_epsilon(
                4.0, 0.01, 10_000, 1e-5, method, conversion=conversion
            )
            for method, conversion in (("rdp", "mironov"), ("rdp", "balle"), ("pld", "balle"))
        }


def ngd_sweep(key, epsilon, delta, clip, lr, clipping, accounting, draws, seed, _f) -> tuple[pd.DataFrame, int] | None:
    """Noisy gradient descent at every T of :data:`SWEEP_ITERATIONS` at a fixed ε: the summary and the best T."""
    args = (epsilon, delta, clip, lr, clipping, accounting, draws, tuple(seed))
    n, p = _size(_f)
    return _inline_or_pool(
        "lrn_ngd_sweep",
        ("ngd sweep", key, *args),
        _design_seconds(_f) + sum(SWEEP_ITERATIONS) * draws * n * p / FULL_BATCH_RATE,
        f"The sweep of T at ε = {epsilon:g}, {draws} draws",
        lambda: _ngd_sweep(key, *args, _f),
        lambda: _ngd_sweep_calls(*args, _f),
        lambda found: (found[0].summary, found[0].best_iterations),
        _f,
    )


def _ngd_sweep_calls(epsilon, delta, clip, lr, clipping, accounting, draws, seed, f) -> list:
    kwargs = {
        "epsilon": epsilon,
        "delta": delta,
        "iterations": SWEEP_ITERATIONS,
        "clip": clip,
        "rng": np.random.default_rng(list(seed)),
        "draws": draws,
        "X_test": f.X_test,
        "y_test": f.y_test,
        "learning_rate": lr,
        "clipping": clipping,
        "accounting": accounting,
    }
    return [jobs.Call(learning.iterations_sweep, (f.X_train, f.y_train), kwargs)]


@cache.bounded(32 * cache.MIB, spinner="Sweeping the number of iterations…")
def _ngd_sweep(key, epsilon, delta, clip, lr, clipping, accounting, draws, seed, _f) -> tuple[pd.DataFrame, int]:
    sweep = _here(_ngd_sweep_calls(epsilon, delta, clip, lr, clipping, accounting, draws, seed, _f))[0]
    return sweep.summary, sweep.best_iterations


def ngd_frontier(key, delta, iterations, clip, lr, clipping, accounting, draws, seed, _f) -> pd.DataFrame | None:
    """Noisy gradient descent at every ε of :data:`FRONTIER_EPS`: the summary per ε."""
    args = (delta, iterations, clip, lr, clipping, accounting, draws, tuple(seed))
    n, p = _size(_f)
    return _inline_or_pool(
        "lrn_ngd_frontier",
        ("ngd frontier", key, *args),
        _design_seconds(_f) + len(FRONTIER_EPS) * iterations * draws * n * p / FULL_BATCH_RATE,
        f"Training at {len(FRONTIER_EPS)} values of ε, T = {iterations}, {draws} draws",
        lambda: _ngd_frontier(key, *args, _f),
        lambda: _ngd_frontier_calls(*args, _f),
        lambda found: found[0].attrs["summary"],
        _f,
    )


def _ngd_frontier_calls(delta, iterations, clip, lr, clipping, accounting, draws, seed, f) -> list:
    kwargs = {
        "epsilons": FRONTIER_EPS,
        "delta": delta,
        "iterations": iterations,
        "clip": clip,
        "rng": np.random.default_rng(list(seed)),
        "draws": draws,
        "X_test": f.X_test,
        "y_test": f.y_test,
        "learning_rate": lr,
        "clipping": clipping,
        "accounting": accounting,
    }
    return [jobs.Call(learning.epsilon_frontier, (f.X_train, f.y_train), kwargs)]


@cache.bounded(32 * cache.MIB, spinner="Training at every ε…")
def _ngd_frontier(key, delta, iterations, clip, lr, clipping, accounting, draws, seed, _f) -> pd.DataFrame:
    calls = _ngd_frontier_calls(delta, iterations, clip, lr, clipping, accounting, draws, seed, _f)
    return _here(calls)[0].attrs["summary"]


@cache.bounded(32 * cache.MIB)
def ngd_costs(epsilon, delta, iterations, clip, accounting) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The run's cost under every accounting (same σ), the σ each would need, and ε against the iterations."""
    noise = learning.noisy_gd_noise(epsilon, delta, iterations, clip, accounting=accounting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        privacy = noise.privacy().set_index("method")["epsilon"]
        table = pd.DataFrame(
            {
                "accounting": list(NGD_ACCOUNTINGS),
                f"ε of this run (σ = {noise.sigma:.4g})": [privacy[m] for m in NGD_ACCOUNTINGS.values()],
                f"σ it needs for ε = {epsilon:g}": [
                    learning.noisy_gd_noise(epsilon, delta, iterations, clip, accounting=m).sigma
                    for m in NGD_ACCOUNTINGS.values()
                ],
            }
        )
        ks = np.arange(1, noise.releases + 1)  # releases: the noisy count, then one per iteration
        methods = ["basic", "advanced", "zcdp", "rdp", "exact"]
        curve = epsilon_curve(noise.mechanism, ks, delta, methods)
        classic = epsilon_curve(noise.mechanism, ks, delta, ["rdp"], conversion="mironov")
    # each row's RDP conversion (the one every accounting uses by default, and the classic one drawn beside RDP)
    curve = pd.concat([curve.assign(conversion="balle"), classic.assign(conversion="mironov")], ignore_index=True)
    return table, curve


def planned(n, batch, epochs, epsilon, delta, method, conversion):
    """The DP-SGD plan for these sizes and this target (``None`` while a long one is planned in the pool)."""
    args = (n, batch, epochs, epsilon, delta, method, conversion)
    steps = math.ceil(epochs * n / batch) if n >= 1 and batch >= 1 and epochs > 0 else 0
    return _inline_or_pool(
        "lrn_sgd_plan",
        ("sgd plan", *args),
        steps * PLAN_SECONDS_PER_STEP,
        f"The plan for {steps:,} steps",
        lambda: _planned(*args),
        lambda: [jobs.Call(plan_dpsgd, args[:5], {"method": method, "conversion": conversion})],
        lambda found: found[0],
    )


@cache.bounded(32 * cache.MIB, spinner="Planning the noise…")
def _planned(n, batch, epochs, epsilon, delta, method, conversion):
    call = jobs.Call(plan_dpsgd, (n, batch, epochs, epsilon, delta), {"method": method, "conversion": conversion})
    return _here([call])[0]


def sgd_frontier(key, q, steps, delta, clip, lr, draws, seed, _f) -> pd.DataFrame | None:
    """Accuracy of DP-SGD at each noise multiplier of a grid, with the ε (PLD) each gives for these q and T."""
    args = (q, steps, delta, clip, lr, draws, tuple(seed))
    settings = {"sampling_rate": q, "steps": steps}
    return _inline_or_pool(
        "lrn_sgd_frontier",
        ("sgd frontier", key, *args),
        len(SGD_SIGMAS) * run_seconds("DP-SGD", settings, draws, _f),
        f"DP-SGD at {len(SGD_SIGMAS)} noise levels, {steps:,} steps, {draws} draws",
        lambda: _sgd_frontier(key, *args, _f),
        lambda: _sgd_frontier_calls(*args, _f),
        lambda found: _frontier_rows(SGD_SIGMAS, found, _f),
        _f,
    )


def _sgd_frontier_calls(q, steps, delta, clip, lr, draws, seed, f) -> list:
    return [
        jobs.Call(
            learning.dp_sgd,
            (f.X_train, f.y_train),
            {
                "noise_multiplier": sigma,
                "sampling_rate": q,
                "steps": steps,
                "clip": clip,
                "rng": np.random.default_rng(list(seed)),
                "delta": delta,
                "learning_rate": lr,
                "draws": draws,
                "history_every": 0,
            },
        )
        for sigma in SGD_SIGMAS
    ]


def _frontier_rows(sigmas, results, f) -> pd.DataFrame:
    """One row per noise multiplier: its ε and the accuracy over the draws."""
    rows = []
    for sigma, result in zip(sigmas, [r for r in results if r is not None]):
        acc = result.accuracy(f.X_test, f.y_test)
        rows.append(
            {"sigma": sigma, "epsilon": result.epsilon, "mean": acc.mean(), "low": acc.min(), "high": acc.max()}
        )
    return pd.DataFrame(rows).sort_values("epsilon")


@cache.bounded(32 * cache.MIB, spinner="Training at every noise level…")
def _sgd_frontier(key, q, steps, delta, clip, lr, draws, seed, _f) -> pd.DataFrame:
    return _frontier_rows(SGD_SIGMAS, _here(_sgd_frontier_calls(q, steps, delta, clip, lr, draws, seed, _f)), _f)


def client_columns(t: Task) -> list[str]:
    """The one-hot encoded feature columns, whose categories can name the clients.

    A column is left out when another feature column's name starts with its name and ``=``: its one-hot block
    (the features named ``column=category``) would then be ambiguous.
    """
    names = t.features.feature_names
    encoded = [c for c in t.columns if any(name.startswith(c + "=") for name in names)]
    return [c for c in encoded if not any(o != c and o.startswith(c + "=") for o in t.columns)]


@cache.bounded(32 * cache.MIB)
def client_sizes(key, clients, seed, _f) -> tuple[np.ndarray, list[str]]:
    parts, names = releases.split_clients(_f.X_train, _f.y_train, _f.feature_names, clients, list(seed))
    return np.array([len(p[1]) for p in parts]), names


def _split_call(clients, seed, f) -> jobs.Call:
    """The clients, as a call whose result the next calls train on (it does not come back from the pool)."""
    return jobs.Call(releases.split_clients, (f.X_train, f.y_train, f.feature_names, clients, list(seed)), keep=False)


def tutorial_run(key, clients, seed, rounds, local_steps, claimed, assumed, _f) -> tuple[pd.DataFrame, float] | None:
    """The tutorial recipe (Laplace noise for an assumed sensitivity): its history and its accuracy."""
    args = (clients, tuple(seed), rounds, local_steps, claimed, assumed)
    n, p = _size(_f)
    m = _clients(clients, _f)
    seconds = _history_seconds(1, _f) + rounds * m * (CLIENT_SECONDS + VISIT_SECONDS)
    seconds += rounds * local_steps * n * p / FED_RATE
    return _inline_or_pool(
        "lrn_fed_tutorial",
        ("fed tutorial", key, *args),
        seconds + m * SPLIT_SECONDS,
        f"The tutorial recipe, {rounds} rounds of {m:,} clients",
        lambda: _tutorial_run(key, *args, _f),
        lambda: _tutorial_calls(*args, _f),
        lambda found: _tutorial_result(found, _f),
        _f,
    )


def _tutorial_calls(clients, seed, rounds, local_steps, claimed, assumed, f) -> list:
    kwargs = {
        "rounds": rounds,
        "local_steps": local_steps,
        "epsilon": claimed,
        "assumed_sensitivity": assumed,
        "rng": np.random.default_rng([*seed, 2]),
        "draws": 1,
        "X_test": f.X_test,
        "y_test": f.y_test,
        "history_every": record_every(rounds),
    }
    return [_split_call(clients, seed, f), jobs.Call(learning.naive_fedavg, (jobs.Ref(0, 0),), kwargs)]


def _tutorial_result(found, f) -> tuple[pd.DataFrame, float]:
    result = found[1]
    return result.history, float(np.atleast_1d(result.accuracy(f.X_test, f.y_test))[0])


@cache.bounded(32 * cache.MIB, spinner="Training the tutorial recipe…")
def _tutorial_run(key, clients, seed, rounds, local_steps, claimed, assumed, _f) -> tuple[pd.DataFrame, float]:
    return _tutorial_result(_here(_tutorial_calls(clients, seed, rounds, local_steps, claimed, assumed, _f)), _f)


def influence(key, clients, seed, local_steps, claimed, assumed, clip, _f) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """Each client's influence on the tutorial's average, and an adversarial client's at growing norms."""
    args = (clients, tuple(seed), local_steps, claimed, assumed, clip)
    n, p = _size(_f)
    m = _clients(clients, _f)
    seconds = INFLUENCE_BASE_SECONDS + m * (INFLUENCE_SECONDS + SPLIT_SECONDS)
    seconds += (1 + len(ADVERSARY_SCALES)) * local_steps * n * p / FED_RATE
    return _inline_or_pool(
        "lrn_fed_influence",
        ("fed influence", key, *args),
        seconds,
        f"Each client's influence, {m:,} clients",
        lambda: _influence(key, *args, _f),
        lambda: _influence_calls(*args, _f),
        lambda found: (found[1].assign(client=client_sizes(key, clients, seed, _f)[1]), found[2]),
        _f,
    )


def _influence_calls(clients, seed, local_steps, claimed, assumed, clip, f) -> list:
    common = {"local_steps": local_steps, "assumed_sensitivity": assumed, "epsilon": claimed, "clip": clip}
    adversary = {"scales": ADVERSARY_SCALES, **common, "X_test": f.X_test, "y_test": f.y_test}
    return [
        _split_call(clients, seed, f),
        jobs.Call(learning.client_influence, (jobs.Ref(0, 0),), common),
        jobs.Call(learning.adversarial_client_influence, (jobs.Ref(0, 0),), adversary),
    ]


@cache.bounded(32 * cache.MIB, spinner="Measuring each client's influence…")
def _influence(key, clients, seed, local_steps, claimed, assumed, clip, _f) -> tuple[pd.DataFrame, pd.DataFrame]:
    found = _here(_influence_calls(clients, seed, local_steps, claimed, assumed, clip, _f))
    return found[1].assign(client=client_sizes(key, clients, seed, _f)[1]), found[2]


def fed_frontier(key, clients, seed, rounds, rate, local_steps, clip, delta, draws, _f) -> pd.DataFrame | None:
    """Accuracy of DP-FedAvg at each noise multiplier of a grid, with the client-level ε (PLD) each gives."""
    args = (clients, tuple(seed), rounds, rate, local_steps, clip, delta, draws)
    settings = {"clients": clients, "rounds": rounds, "client_rate": rate, "local_steps": local_steps}
    return _inline_or_pool(
        "lrn_fed_frontier",
        ("fed frontier", key, *args),
        len(FED_SIGMAS) * run_seconds("DP-FedAvg", settings, draws, _f),
        f"DP-FedAvg at {len(FED_SIGMAS)} noise levels, {rounds} rounds, {draws} draws",
        lambda: _fed_frontier(key, *args, _f),
        lambda: _fed_frontier_calls(*args, _f),
        lambda found: _frontier_rows(FED_SIGMAS, found, _f),
        _f,
    )


def _fed_frontier_calls(clients, seed, rounds, rate, local_steps, clip, delta, draws, f) -> list:
    runs = [
        jobs.Call(
            learning.dp_fedavg,
            (jobs.Ref(0, 0),),
            {
                "rounds": rounds,
                "client_rate": rate,
                "local_steps": local_steps,
                "clip": clip,
                "noise_multiplier": sigma,
                "rng": np.random.default_rng([*seed, 3]),
                "delta": delta,
                "draws": draws,
                "history_every": 0,
            },
        )
        for sigma in FED_SIGMAS
    ]
    return [_split_call(clients, seed, f), *runs]


@cache.bounded(32 * cache.MIB, spinner="Training at every noise level…")
def _fed_frontier(key, clients, seed, rounds, rate, local_steps, clip, delta, draws, _f) -> pd.DataFrame:
    calls = _fed_frontier_calls(clients, seed, rounds, rate, local_steps, clip, delta, draws, _f)
    return _frontier_rows(FED_SIGMAS, _here(calls), _f)


# --------------------------------------------------------------------------- in the rerun, or in the pool

#: Estimated CPU seconds above which a computation of the page runs in the server's pool (a part of a view makes
#: up to three, within the 2 s a rerun may take).
INLINE_SECONDS = 0.8
#: Multiply-adds per CPU second of full-batch logistic gradients (noisy and non-private gradient descent; measured
#: 1.9·10⁹ to 4.2·10⁹ on 100,000 rows × 53 features of the heaviest upload).
FULL_BATCH_RATE = 2.5e9
#: Cells (rows × weights, training and test rows) per CPU second of the design a full-batch run builds before its
#: first step: the float32 features read as float64, checked finite, the intercept's column appended, the rows' norms
#: (measured 0.9·10⁸ to 1.9·10⁸ on the widest upload's 8,738 rows × 1,001 weights, on a loaded machine and not).
DESIGN_RATE = 1e8
#: The features' preparation (:func:`explorer.features.prepare_features`): CPU seconds per column it reads, per
#: column and row, and per cell of the arrays it fills (measured: 0.39 s for the widest upload's 501 text columns
#: read of 999, 8,738 rows, 8.7·10⁶ cells; 0.06 s for 125,000 rows of the heaviest upload's few columns).
FEATURE_COLUMN_SECONDS = 4e-4
FEATURE_COLUMN_ROW_SECONDS = 3e-8
FEATURE_CELL_SECONDS = 1e-8
#: The preparation of features that :data:`INLINE_SECONDS` leaves room for (a table of a few dozen columns: the
#: census demo's, estimated 0.04 s, the heaviest upload's 125,000 rows, 0.08 s); a costlier one is counted whole in
#: the estimate of every computation on those features (:func:`inline`).
FEATURES_ROOM = 0.1
#: Multiply-adds per CPU second of DP-SGD's per-example gradients, their norms and their clipping (measured
#: 1.9·10⁸ to 2.4·10⁸), and the seconds per row of its Poisson sampling at each step.
PER_EXAMPLE_RATE = 2e8
ROW_SECONDS = 2e-10
#: The ε of a DP-SGD or DP-FedAvg run, from the PLD of the subsampled Gaussian (measured 0.05 to 0.08 s).
ACCOUNTING_SECONDS = 0.08
#: The DP-SGD planner (a search of σ by the PLD of T steps) and its curves of ε against up to 4T steps, per step T:
#: measured up to 1.2 s and 2.5 s at T = 50,000 (ε = 0.1, batches of 2 from 100,000 rows), with a margin.
PLAN_SECONDS_PER_STEP = 3e-5
CURVE_SECONDS_PER_STEP = 6e-5
#: DP-FedAvg: multiply-adds per CPU second of the clients' local steps, seconds per client and round (sampling and
#: bookkeeping), per client taking part in a round for one draw, per client dealt or grouped, and per client whose
#: influence is measured; and the fixed start of the influence measures (measured on 500 to 50,000 clients of the
#: heaviest upload).
FED_RATE = 8e8
CLIENT_SECONDS = 5e-7
VISIT_SECONDS = 1.5e-6
SPLIT_SECONDS = 3.5e-6
INFLUENCE_SECONDS = 2.5e-5
INFLUENCE_BASE_SECONDS = 0.2


def _size(f: Features) -> tuple[int, int]:
    """Training rows, and the weights of the model (the features and the intercept)."""
    n, p = np.shape(f.X_train)
    return int(n), int(p) + 1


def _clients(clients, f: Features) -> int:
    """How many clients: m dealt at random, or the categories of a column (at most its one-hot block)."""
    if isinstance(clients, str):
        return sum(1 for name in f.feature_names if name.startswith(clients + "="))
    return int(clients)


def _steps_words(method: str, settings: dict) -> str:
    if method == "noisy gradient descent":
        return f"T = {settings['iterations']:,}"
    if method == "DP-SGD":
        return f"{settings['steps']:,} steps"
    return f"{settings['rounds']:,} rounds"


def _design_seconds(f: Features) -> float:
    """The float64 design (training and test rows, intercept appended) a full-batch run builds from the features."""
    n, p = _size(f)
    return (n + np.shape(f.X_test)[0]) * p / DESIGN_RATE


def features_seconds(f: Features) -> float:
    """Estimated CPU seconds of preparing these features: what the first rerun on a task spends before any training
    (each column read, each row of it, each cell of the arrays)."""
    columns = len(f.columns_used) + (1 if f.columns_left_out else 0)  # the first left out is read, not those after
    return (
        columns * (FEATURE_COLUMN_SECONDS + f.rows_used * FEATURE_COLUMN_ROW_SECONDS) + f.cells * FEATURE_CELL_SECONDS
    )


def inline(seconds: float, f: Features | None = None) -> bool:
    """Whether a computation estimated at ``seconds`` runs in the rerun: within :data:`INLINE_SECONDS`, counting the
    preparation of the features it trains on (``f``) when that takes more than :data:`FEATURES_ROOM` (the widest
    upload's 999 text columns: an estimated 0.42 s, half the budget, before any training)."""
    features = features_seconds(f) if f is not None else 0.0
    return seconds + (features if features > FEATURES_ROOM else 0.0) <= INLINE_SECONDS


def _history_seconds(draws: int, f: Features) -> float:
    """A recorded history: each of its points reads the training and the test rows once per draw."""
    n, p = _size(f)
    return (HISTORY_POINTS + 1) * draws * (n + np.shape(f.X_test)[0]) * p / FULL_BATCH_RATE


def run_seconds(method: str, settings: dict, draws: int, f: Features) -> float:
    """Estimated CPU seconds of one private run of ``method`` with these settings on these features."""
    n, p = _size(f)
    seconds = _history_seconds(draws, f) if settings.get("history_every", 0) else 0.0
    if method == "noisy gradient descent":  # DP-SGD's and DP-FedAvg's rates below already cover their designs
        return seconds + _design_seconds(f) + settings["iterations"] * draws * n * p / FULL_BATCH_RATE
    seconds += ACCOUNTING_SECONDS  # the ε of a Poisson-subsampled run, by its PLD
    if method == "DP-SGD":
        per_step = settings["sampling_rate"] * n * p / PER_EXAMPLE_RATE + n * ROW_SECONDS
        return seconds + settings["steps"] * draws * per_step
    m, rounds, rate = _clients(settings["clients"], f), settings["rounds"], settings["client_rate"]
    seconds += m * SPLIT_SECONDS + rounds * m * (CLIENT_SECONDS + rate * draws * VISIT_SECONDS)
    return seconds + rounds * settings["local_steps"] * draws * rate * n * p / FED_RATE


def _here(calls: list) -> list:
    """The calls, run in this rerun (dpcore's warnings about its order grid are not the reader's concern)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        return jobs.run_calls(calls)


def _inline_or_pool(slot, key, seconds, label, here, calls, finish, f: Features | None = None):
    """``here()`` when the estimate, with the preparation of the features ``f`` it trains on, is within
    :data:`INLINE_SECONDS` (:func:`inline`); else the job of ``calls()`` in the pool, ``finish``-ed once its results
    are back, and ``None`` meanwhile (the page shows where it is)."""
    if inline(seconds, f):
        jobs.drop(slot)
        return here()
    found = jobs.background(slot, ("learning", *key), calls(), label=label, estimate=seconds)
    return None if found is None else finish(found)
