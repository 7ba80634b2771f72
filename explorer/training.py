"""The Learning page's computations: the task's features and every training run, cached on plain arguments.

Each function here is a page-boundary cache shared by the sessions and bounded by bytes
(:func:`explorer.cache.bounded`) around :mod:`dpcore.learning` or
:mod:`dpcore.accounting`, or a small helper on what they return; ``app_pages/learning.py`` and its views
(``explorer/learning_*.py``) lay the results out. The prepared features travel as an unhashed argument
(``_f``) beside ``key``, the hashable identity of the arguments that made them. The training runs go
through :func:`explorer.releases.private_model`, the function the page's snippet shows.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore import learning
from dpcore.accounting import OrderGridEdgeWarning, dpsgd_epsilon, epsilon_curve, plan_dpsgd
from explorer import cache, releases
from explorer.columns import is_numeric
from explorer.features import Features, prepare_features

__all__ = [
    "MAX_ROWS",
    "HISTORY_POINTS",
    "SWEEP_ITERATIONS",
    "FRONTIER_EPS",
    "NGD_ACCOUNTINGS",
    "SGD_SIGMAS",
    "FED_SIGMAS",
    "ADVERSARY_SCALES",
    "Task",
    "record_every",
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
#: The accountings that can calibrate noisy gradient descent: the name a reader (and a link) sees -> dpcore's name.
NGD_ACCOUNTINGS = {"exact": "exact", "RDP": "rdp", "zCDP": "zcdp", "advanced": "advanced", "sequential": "basic"}
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


@cache.bounded(32 * cache.MIB, spinner="Training…")
def train(key, method, settings, seed, draws, _f) -> dict:
    """One private run through the page's release function; what the page shows of it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        result, release = releases.private_model(
            method, _f.X_train, _f.y_train, _f.feature_names, settings, list(seed), draws, _f.X_test, _f.y_test
        )
    return {
        "history": result.history,
        "release": release,
        "accuracy": np.atleast_1d(result.accuracy(_f.X_test, _f.y_test)),
        "epsilon": result.epsilon,
        "delta": result.delta,
        "privacy": result.privacy,
        "details": dict(result.details),
    }


@cache.bounded(32 * cache.MIB, spinner="Training without privacy…")
def nonprivate(key, iterations, learning_rate, _f) -> pd.DataFrame:
    return learning.nonprivate_gradient_descent(
        _f.X_train,
        _f.y_train,
        iterations=iterations,
        learning_rate=learning_rate,
        X_test=_f.X_test,
        y_test=_f.y_test,
        history_every=record_every(iterations),
    ).history


def baseline(t: Task) -> float:
    return learning.majority_baseline(t.features.y_train, t.features.y_test).accuracy


def tidy_history(**runs: pd.DataFrame) -> pd.DataFrame:
    """The histories of several models in one table, a column naming the model."""
    return pd.concat([h.assign(model=name) for name, h in runs.items()], ignore_index=True)[
        ["model", "step", "draw", "loss", "train_accuracy", "test_accuracy", "clipped_fraction"]
    ]


@cache.bounded(32 * cache.MIB)
def dpsgd_curves(sigma, q, steps, delta) -> pd.DataFrame:
    """ε against the number of steps (or rounds) of the subsampled Gaussian: PLD, RDP, and RDP's classic conversion."""
    ks = np.unique(np.r_[np.geomspace(1, max(4 * steps, 100), 40).round(), steps]).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        return pd.DataFrame(
            {
                "steps": ks,
                "PLD": dpsgd_epsilon(sigma, q, ks, delta, "pld"),
                "RDP": dpsgd_epsilon(sigma, q, ks, delta, "rdp"),
                "RDP, classic conversion (Mironov 2017)": dpsgd_epsilon(
                    sigma, q, ks, delta, "rdp", conversion="mironov"
                ),
            }
        )


@cache.bounded(8 * cache.MIB)
def published_setting() -> dict:
    """Abadi et al. (2016)'s MNIST setting, q = 0.01, σ = 4, T = 10,000, δ = 1e-5 (published: ε = 1.26), by each accountant."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        return {
            "RDP, classic conversion": dpsgd_epsilon(4.0, 0.01, 10_000, 1e-5, "rdp", conversion="mironov"),
            "RDP": dpsgd_epsilon(4.0, 0.01, 10_000, 1e-5, "rdp"),
            "PLD": dpsgd_epsilon(4.0, 0.01, 10_000, 1e-5, "pld"),
        }


@cache.bounded(32 * cache.MIB, spinner="Sweeping the number of iterations…")
def ngd_sweep(key, epsilon, delta, clip, lr, clipping, accounting, draws, seed, _f) -> tuple[pd.DataFrame, int]:
    sweep = learning.iterations_sweep(
        _f.X_train,
        _f.y_train,
        epsilon=epsilon,
        delta=delta,
        iterations=SWEEP_ITERATIONS,
        clip=clip,
        rng=np.random.default_rng(list(seed)),
        draws=draws,
        X_test=_f.X_test,
        y_test=_f.y_test,
        learning_rate=lr,
        clipping=clipping,
        accounting=accounting,
    )
    return sweep.summary, sweep.best_iterations


@cache.bounded(32 * cache.MIB, spinner="Training at every ε…")
def ngd_frontier(key, delta, iterations, clip, lr, clipping, accounting, draws, seed, _f) -> pd.DataFrame:
    table = learning.epsilon_frontier(
        _f.X_train,
        _f.y_train,
        epsilons=FRONTIER_EPS,
        delta=delta,
        iterations=iterations,
        clip=clip,
        rng=np.random.default_rng(list(seed)),
        draws=draws,
        X_test=_f.X_test,
        y_test=_f.y_test,
        learning_rate=lr,
        clipping=clipping,
        accounting=accounting,
    )
    return table.attrs["summary"]


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
    curve = pd.concat([curve, classic.assign(method="rdp, classic conversion")], ignore_index=True)
    return table, curve


@cache.bounded(32 * cache.MIB, spinner="Planning the noise…")
def planned(n, batch, epochs, epsilon, delta, method, conversion):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        return plan_dpsgd(n, batch, epochs, epsilon, delta, method=method, conversion=conversion)


@cache.bounded(32 * cache.MIB, spinner="Training at every noise level…")
def sgd_frontier(key, q, steps, delta, clip, lr, draws, seed, _f) -> pd.DataFrame:
    """Accuracy of DP-SGD at each noise multiplier of a grid, with the ε (PLD) each gives for these q and T."""
    rows = []
    for sigma in SGD_SIGMAS:
        result = learning.dp_sgd(
            _f.X_train,
            _f.y_train,
            noise_multiplier=sigma,
            sampling_rate=q,
            steps=steps,
            clip=clip,
            rng=np.random.default_rng(list(seed)),
            delta=delta,
            learning_rate=lr,
            draws=draws,
            history_every=0,
        )
        acc = result.accuracy(_f.X_test, _f.y_test)
        rows.append(
            {"sigma": sigma, "epsilon": result.epsilon, "mean": acc.mean(), "low": acc.min(), "high": acc.max()}
        )
    return pd.DataFrame(rows).sort_values("epsilon")


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


@cache.bounded(32 * cache.MIB, spinner="Training the tutorial recipe…")
def tutorial_run(key, clients, seed, rounds, local_steps, claimed, assumed, _f) -> tuple[pd.DataFrame, float]:
    parts, _ = releases.split_clients(_f.X_train, _f.y_train, _f.feature_names, clients, list(seed))
    result = learning.naive_fedavg(
        parts,
        rounds=rounds,
        local_steps=local_steps,
        epsilon=claimed,
        assumed_sensitivity=assumed,
        rng=np.random.default_rng([*seed, 2]),
        draws=1,
        X_test=_f.X_test,
        y_test=_f.y_test,
        history_every=record_every(rounds),
    )
    return result.history, float(np.atleast_1d(result.accuracy(_f.X_test, _f.y_test))[0])


@cache.bounded(32 * cache.MIB, spinner="Measuring each client's influence…")
def influence(key, clients, seed, local_steps, claimed, assumed, clip, _f) -> tuple[pd.DataFrame, pd.DataFrame]:
    parts, names = releases.split_clients(_f.X_train, _f.y_train, _f.feature_names, clients, list(seed))
    real = learning.client_influence(
        parts, local_steps=local_steps, assumed_sensitivity=assumed, epsilon=claimed, clip=clip
    ).assign(client=names)
    adversary = learning.adversarial_client_influence(
        parts,
        scales=ADVERSARY_SCALES,
        local_steps=local_steps,
        assumed_sensitivity=assumed,
        epsilon=claimed,
        clip=clip,
        X_test=_f.X_test,
        y_test=_f.y_test,
    )
    return real, adversary


@cache.bounded(32 * cache.MIB, spinner="Training at every noise level…")
def fed_frontier(key, clients, seed, rounds, rate, local_steps, clip, delta, draws, _f) -> pd.DataFrame:
    parts, _ = releases.split_clients(_f.X_train, _f.y_train, _f.feature_names, clients, list(seed))
    rows = []
    for sigma in FED_SIGMAS:
        result = learning.dp_fedavg(
            parts,
            rounds=rounds,
            client_rate=rate,
            local_steps=local_steps,
            clip=clip,
            noise_multiplier=sigma,
            rng=np.random.default_rng([*seed, 3]),
            delta=delta,
            draws=draws,
            history_every=0,
        )
        acc = result.accuracy(_f.X_test, _f.y_test)
        rows.append(
            {"sigma": sigma, "epsilon": result.epsilon, "mean": acc.mean(), "low": acc.min(), "high": acc.max()}
        )
    return pd.DataFrame(rows).sort_values("epsilon")
