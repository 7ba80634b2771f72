"""The Learning page's user-level DP-SGD: each training row's person, and the runs of
:func:`dpcore.learning.user_level_dp_sgd`, cached on plain arguments or computed in the server's pool.

When the session declares a person unit (:mod:`explorer.unit`: a person identifier column, at most m rows each), the
DP-SGD view trains at user level: persons are sampled, each person's mean row gradient is clipped, and ε is for
adding or removing one person with all of their rows. The training rows of the page's task are a seeded random part
of the table (:func:`explorer.features.prepare_features`); :func:`training_rows` finds which rows of the table they
are, so that each one gets its person.

As in :mod:`explorer.training`, a run whose estimated CPU is within :data:`explorer.training.INLINE_SECONDS` runs in
the rerun, cached; a longer one runs in the server's pool (:mod:`explorer.jobs`) and the page shows where it is.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from dpcore import learning
from dpcore.accounting import OrderGridEdgeWarning
from explorer import cache, features, jobs, training
from explorer.features import Features

__all__ = [
    "training_rows",
    "training_persons",
    "person_count",
    "run_seconds",
    "train",
    "frontier",
    "release_table",
]


def training_rows(frame: pd.DataFrame, f: Features, target, positive, threshold, split_seed) -> np.ndarray | None:
    """The positions in ``frame`` of the rows of ``f.X_train``, in their order; None when they cannot be matched.

    :func:`explorer.features.prepare_features` (called by :func:`explorer.training.prepared` with
    :data:`explorer.training.MAX_ROWS` and the split seed) keeps the rows with a target, draws a seeded subset when
    there are more than the page trains on, and splits them at random; the same seeded draws find the same rows. The
    match is checked against the labels and a numeric feature, so a change of the preparation gives None, not wrong
    persons.
    """
    found = getattr(f, "train_rows", None)  # when the preparation records them itself
    if found is not None:
        return np.asarray(found, dtype=np.int64)
    y_all, has_target, _ = features._binary_target(frame[target], positive, threshold, [])
    rows = np.flatnonzero(has_target)
    rng = np.random.default_rng(list(split_seed))
    if len(rows) > training.MAX_ROWS:
        rows = rows[np.sort(rng.choice(len(rows), size=training.MAX_ROWS, replace=False))]
    train, _ = features._split(len(rows), 0.2, rng)
    if f.rows_used < len(rows):  # the cell budget cut the rows: its draw comes next
        rows = rows[np.sort(rng.choice(len(rows), size=f.rows_used, replace=False))]
        train, _ = features._split(len(rows), 0.2, rng)
    found = rows[train]
    if found.size != f.y_train.size or not np.array_equal(y_all[found], f.y_train):
        return None
    return found if _numeric_match(frame, f, found) else None


def _numeric_match(frame: pd.DataFrame, f: Features, rows: np.ndarray) -> bool:
    """The first numeric feature of ``f`` is an increasing affine map of the frame's column on ``rows``."""
    for j, name in enumerate(f.feature_names):
        if "=" in name or name not in frame.columns:
            continue
        values = pd.to_numeric(frame[name].iloc[rows], errors="coerce").to_numpy(dtype=np.float64)
        ok = np.isfinite(values)
        if ok.sum() < 3 or np.ptp(values[ok]) == 0:
            return True
        z = f.X_train[ok, j].astype(np.float64)
        return bool(np.corrcoef(values[ok], z)[0, 1] > 1 - 1e-6)
    return True


@cache.bounded(16 * cache.MIB)
def training_persons(key, identifier, _codes, _frame, _f) -> np.ndarray | None:
    """Each training row's person (codes of :func:`explorer.unit.persons`), or None when the rows cannot be matched."""
    dataset_key, target, positive, threshold, columns, split_seed = key
    rows = training_rows(_frame, _f, target, positive, threshold, split_seed)
    return None if rows is None else np.asarray(_codes)[rows]


def person_count(persons: np.ndarray) -> tuple[int, np.ndarray]:
    """The number of persons among the training rows, and each one's rows (exact, not private: for the plan)."""
    counts = np.bincount(persons)
    counts = counts[counts > 0]
    return int(counts.size), counts


#: User-level DP-SGD's CPU per step (sampling the persons, gathering their rows, clipping), and multiply-adds per
#: CPU second of its rows' gradients: measured 0.35 to 0.65 ms a step with a few persons, and 1.9 s for 2,000 steps
#: of 256 persons (≤ 10 rows each, 3 draws) and 1.6 s for 200 steps of all 2,636 persons (≤ 100 rows) on the visits
#: demo's 116 features, on the 2-core server under load.
USER_STEP_SECONDS = 4e-4
USER_RATE = 3e8


def run_seconds(settings: dict, counts: np.ndarray, draws: int, f: Features, sigmas: int = 1) -> float:
    """Estimated CPU seconds of ``sigmas`` user-level runs: a fixed cost per step and the rows each step reads."""
    n, p = np.shape(f.X_train)
    rows = learning.user_level.expected_rows_per_step(counts, settings["max_rows"], settings["sampling_rate"])
    per_step = USER_STEP_SECONDS + draws * rows * (p + 1) / USER_RATE
    seconds = training.ACCOUNTING_SECONDS + settings["steps"] * per_step
    if settings.get("history_every", 0):
        seconds += (training.HISTORY_POINTS + 1) * draws * (n + len(f.y_test)) * (p + 1) / training.FULL_BATCH_RATE
    return sigmas * seconds


def _calls(persons, settings: dict, seed, draws, f: Features, sigmas=None) -> list:
    common = {**settings, "rng": None, "draws": draws, "X_test": f.X_test, "y_test": f.y_test}
    out = []
    for sigma in sigmas or (settings["noise_multiplier"],):
        kwargs = {**common, "noise_multiplier": sigma, "rng": np.random.default_rng(list(seed))}
        if sigmas:
            kwargs["history_every"] = 0
        out.append(jobs.Call(learning.user_level_dp_sgd, (f.X_train, f.y_train, persons), kwargs))
    return out


def release_table(result, feature_names) -> pd.DataFrame:
    """Draw 1's weights and the (ε, δ) they cost, as :func:`explorer.releases.private_model` lays a release out."""
    weights = np.atleast_2d(result.weights)[0]
    names = [*feature_names, "(intercept)"] if result.fit_intercept else list(feature_names)
    return pd.DataFrame(
        {"parameter": [*names, "epsilon", "delta"], "value": [*weights.tolist(), result.epsilon, result.delta]}
    )


def _summary(result, f: Features) -> dict:
    return {
        "history": result.history,
        "release": release_table(result, f.feature_names),
        "accuracy": np.atleast_1d(result.accuracy(f.X_test, f.y_test)),
        "epsilon": result.epsilon,
        "delta": result.delta,
        "privacy": result.privacy,
        "details": dict(result.details),
    }


def _here(calls: list) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        return jobs.run_calls(calls)


def _inline_or_pool(slot, key, seconds, label, calls, finish, inline):
    if seconds <= training.INLINE_SECONDS:
        jobs.drop(slot)
        return inline()
    found = jobs.background(slot, ("learning", *key), calls(), label=label, estimate=seconds)
    return None if found is None else finish(found)


def train(key, identifier, settings, seed, draws, _persons, _counts, _f) -> dict | None:
    """One user-level run; what the page shows of it (``None`` while it runs in the pool)."""
    items = tuple(sorted(settings.items()))
    return _inline_or_pool(
        "lrn_user_train",
        ("user train", key, identifier, items, tuple(seed), draws),
        run_seconds(settings, _counts, draws, _f),
        f"User-level DP-SGD, {settings['steps']:,} steps, {draws} draws",
        lambda: _calls(_persons, settings, seed, draws, _f),
        lambda found: _summary(found[0], _f),
        lambda: _train(key, identifier, items, tuple(seed), draws, _persons, _f),
    )


@cache.bounded(32 * cache.MIB, spinner="Training at user level…")
def _train(key, identifier, items, seed, draws, _persons, _f) -> dict:
    return _summary(_here(_calls(_persons, dict(items), seed, draws, _f))[0], _f)


def frontier(key, identifier, settings, seed, draws, _persons, _counts, _f) -> pd.DataFrame | None:
    """Accuracy of user-level DP-SGD at each noise multiplier of :data:`explorer.training.SGD_SIGMAS`, with its ε."""
    items = tuple(sorted(settings.items()))
    sigmas = training.SGD_SIGMAS
    return _inline_or_pool(
        "lrn_user_frontier",
        ("user frontier", key, identifier, items, tuple(seed), draws),
        run_seconds({**settings, "history_every": 0}, _counts, draws, _f, len(sigmas)),
        f"User-level DP-SGD at {len(sigmas)} noise levels, {settings['steps']:,} steps, {draws} draws",
        lambda: _calls(_persons, settings, seed, draws, _f, sigmas),
        lambda found: _frontier_rows(found, _f),
        lambda: _frontier(key, identifier, items, tuple(seed), draws, _persons, _f),
    )


def _frontier_rows(results, f: Features) -> pd.DataFrame:
    rows = []
    for sigma, result in zip(training.SGD_SIGMAS, results):
        acc = result.accuracy(f.X_test, f.y_test)
        rows.append(
            {"sigma": sigma, "epsilon": result.epsilon, "mean": acc.mean(), "low": acc.min(), "high": acc.max()}
        )
    return pd.DataFrame(rows).sort_values("epsilon")


@cache.bounded(32 * cache.MIB, spinner="Training at every noise level…")
def _frontier(key, identifier, items, seed, draws, _persons, _f) -> pd.DataFrame:
    return _frontier_rows(_here(_calls(_persons, dict(items), seed, draws, _f, training.SGD_SIGMAS)), _f)
