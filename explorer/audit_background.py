"""Where the Audit page runs an audit: at once in the rerun, or in the server's pool of workers (:mod:`explorer.jobs`).

A rerun may spend about 2 s of CPU (issue 23). The page's audit (``dpcore.audit.audit``) and its bound curve
(``lower_bound_curve``, on at most :data:`~explorer.audit_layout.CURVE_TRIALS` runs) cost from 0.01 s (the coin
flip) to 0.5 s (the lattice Gaussian, a DP-SGD step) per 10⁵ runs, and a run of AboveThreshold draws one noisy
answer per query (up to 1,000). So the page estimates the CPU of the two calls before it runs them, from the time
one mechanism takes to draw a pilot of runs here (a few milliseconds, remembered per setting), and computes in the
pool every audit of more than :data:`INLINE_TRIALS` runs and every one estimated above :data:`INLINE_SECONDS`.
The estimate counts what the first rerun on a setting spends besides the runs: the pilot itself and the building
of the mechanism that each of the two calls repeats (a DP-SGD step calibrates its σ by the PLD: 0.06 s a build,
0.2 s the pilot, as much as its 10⁵ runs). The numbers are the same either way: the same dpcore calls with the same
seeds.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from typing import NamedTuple

import numpy as np

from dpcore.audit import BROKEN, CATALOGUE, audit, lower_bound_curve
from explorer import jobs
from explorer.audit_layout import CURVE_TRIALS

__all__ = [
    "SLOT",
    "INLINE_TRIALS",
    "INLINE_SECONDS",
    "ENGINE_SECONDS_PER_RUN",
    "Pilot",
    "seconds_per_run",
    "pilot_seconds",
    "estimated_seconds",
    "in_background",
    "calls",
    "run",
]

#: The audit's place in the session's jobs (one audit at a time).
SLOT = "audit"
#: Runs on each input above which the audit always runs in the pool (issue 23: "audits beyond 10⁶ runs").
INLINE_TRIALS = 1_000_000
#: Estimated CPU seconds of the audit and its curve (with the pilot and the builds of the first rerun) above which
#: they run in the pool: with the page's charts (about 0.2 s), about half the 2 s a rerun may take, which leaves room
#: for a loaded server (the default DP-SGD step, estimated 1.0 s, took 2.03 s of a rerun in a full test run; issue 23).
INLINE_SECONDS = 0.8
#: CPU seconds per run of the engine's own work beside the draws, by the kind of output: real outputs (choosing the
#: event among 400 thresholds, counting it; measured 1.7·10⁻⁷ to 1.9·10⁻⁷ on 10⁶ runs of the Laplace, Gaussian and
#: staircase counts and the quantile, 3.5·10⁻⁷ once on a loaded machine), codes (counting each code: 3·10⁻⁸ to
#: 9·10⁻⁸ on the coin flip, GRR, OUE, the exponential mechanism and AboveThreshold).
ENGINE_SECONDS_PER_RUN = {"real": 2.5e-7, "codes": 1e-7}
#: The measured draw time is scaled by this (the pilot's small draws tend to overestimate the large ones already).
MARGIN = 1.0
#: Output elements (runs × elements per run) of the smaller pilot draw on each input; the larger draws 16 times as
#: many, and the difference of the two times is the cost of the runs without the cost of a call.
PILOT_ELEMENTS = 5_000
#: Pilot draws of each size; the least time of them is kept. A pilot whose first round took more than
#: :data:`PILOT_REPEAT_SECONDS` is not repeated: its time is mostly the runs', which a busy machine hardly changes.
PILOT_REPEATS = 2
PILOT_REPEAT_SECONDS = 0.02
#: Output elements the engine draws in one call (``dpcore.audit.engine.BLOCK_ELEMENTS``): each call pays the fixed cost.
BLOCK_ELEMENTS = 1 << 21


def _spec(name: str, broken: str | None):
    return BROKEN[name][broken] if broken else CATALOGUE[name]


class Pilot(NamedTuple):
    """What the pilot measured: CPU seconds of one run on both inputs and of one call of the draws, a run's elements,
    the seconds of building the mechanism once and of the whole pilot, and the kind of output."""

    per_run: float
    per_call: float
    width: int
    build: float
    spent: float
    kind: str


def seconds_per_run(name: str, broken: str | None, epsilon: float, params: tuple) -> tuple[float, float, int]:
    """CPU seconds of one run of the mechanism on both inputs and of one call of its draws, and a run's elements,
    measured on pilot draws here (remembered per setting); ``(0, 0, 1)`` if it cannot be built (the audit itself
    then says why)."""
    return _pilot(name, broken, tuple(params), float(epsilon))[:3]


def pilot_seconds(name: str, broken: str | None, epsilon: float, params: tuple) -> tuple[float, float]:
    """CPU seconds of building the mechanism once (each of the audit and its curve builds it) and of the pilot
    itself (its build and its draws), as measured when the pilot ran."""
    pilot = _pilot(name, broken, tuple(params), float(epsilon))
    return pilot.build, pilot.spent


@functools.lru_cache(maxsize=256)
def _pilot(name: str, broken: str | None, params: tuple, epsilon: float) -> Pilot:
    started = time.thread_time()
    try:
        sampler = _spec(name, broken).build(epsilon, dict(params))
        build = time.thread_time() - started
        width, kind = max(1, int(sampler.width)), str(sampler.kind)
        small = max(100, PILOT_ELEMENTS // width)
        rng = np.random.default_rng(0)
        times = [math.inf, math.inf]
        for _ in range(PILOT_REPEATS):  # the least of a few: a busy machine only ever adds time
            round_started = time.thread_time()
            for i, runs in enumerate((small, 16 * small)):
                start = time.thread_time()
                sampler.draw0(rng, runs)
                sampler.draw1(rng, runs)
                times[i] = min(times[i], time.thread_time() - start)
            if time.thread_time() - round_started > PILOT_REPEAT_SECONDS:
                break
    except Exception:  # noqa: BLE001 - a setting dpcore refuses is refused by the audit, in its own sentence
        return Pilot(0.0, 0.0, 1, 0.0, time.thread_time() - started, "codes")
    spent = time.thread_time() - started
    per_run = (times[1] - times[0]) / (15 * small)
    if per_run <= 0:  # too quick to tell apart: all of it counted as runs
        return Pilot(times[1] / (16 * small), 0.0, width, build, spent, kind)
    return Pilot(per_run, max(0.0, times[0] - per_run * small), width, build, spent, kind)


def estimated_seconds(name: str, broken: str | None, epsilon: float, trials: int, params: tuple) -> float:
    """Estimated CPU seconds of the audit of ``trials`` runs and of its curve (on at most ``CURVE_TRIALS`` runs),
    with what the first rerun on this setting spends besides: the pilot, and the two builds of the mechanism."""
    pilot = _pilot(name, broken, tuple(params), float(epsilon))
    runs = int(trials) + min(int(trials), CURVE_TRIALS)
    calls = 2 * (2 + math.ceil(int(trials) * pilot.width / BLOCK_ELEMENTS))  # both inputs, each phase and block
    engine = ENGINE_SECONDS_PER_RUN.get(pilot.kind, max(ENGINE_SECONDS_PER_RUN.values()))
    draws = runs * (MARGIN * pilot.per_run + engine) + calls * pilot.per_call
    return draws + 2 * pilot.build + pilot.spent


def in_background(trials: int, seconds: float) -> bool:
    """Whether the page computes this audit in the pool rather than in the rerun."""
    return int(trials) > INLINE_TRIALS or seconds > INLINE_SECONDS


def calls(args: tuple, seed: tuple, curve_seed: tuple) -> tuple[jobs.Call, jobs.Call]:
    """The page's two dpcore calls for ``args`` = (name, ε, runs, broken, confidence, params), as a job."""
    name, epsilon, trials, broken, confidence, params = args
    common = {"broken": broken, "confidence": confidence, **dict(params)}
    return (
        jobs.Call(audit, (name, epsilon), {"trials": trials, "rng": np.random.default_rng(list(seed)), **common}),
        jobs.Call(
            lower_bound_curve,
            (name, epsilon),
            {"trials": min(trials, CURVE_TRIALS), "rng": np.random.default_rng(list(curve_seed)), **common},
        ),
    )


def run(args: tuple, seed: tuple, curve_seed: tuple, seconds: float):
    """The audit and its curve from the pool, ``(result, curve)``, or ``None`` while the page shows where it is."""
    found = jobs.background(
        SLOT,
        ("audit", args, seed, curve_seed),
        calls(args, seed, curve_seed),
        label=f"The audit ({args[2]:,} runs on each input)",
        estimate=seconds,
    )
    if found is None:
        return None
    result, curve = found
    return dataclasses.replace(result, params=dict(result.params)), curve
