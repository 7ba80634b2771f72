"""Benchmark of the DP-SGD planner (``dpcore.accounting.plan_dpsgd``, what the Learning page's DP-SGD view calls).

Run as ``python -m benchmarks.bench_dpsgd_planner``; prints markdown tables and writes them to
``benchmarks/results/dpsgd_planner.md``. Takes a few minutes (the previous implementation and dp_accounting's PLD
are the slow part).

A plan is the noise multiplier σ calibrated to a target (ε, δ) for T steps at sampling rate q
(``dpsgd_noise_multiplier``), then every accountant's ε at that σ. Target (issue 19): under 1 s per plan for
q = 10⁻⁴ … 0.5 and T up to 10⁵.

* Rows: q ∈ {10⁻⁴, 10⁻³, 10⁻², 0.1, 0.5} × T ∈ {10, 10³, 10⁴, 10⁵} at ε = 1, δ = 10⁻⁵, calibrated by the PLD (the
  page's default) and by RDP; plus random hidden points, drawn afresh at every run from the page's ranges (q
  log-uniform in [10⁻⁴, 0.5], T in [10, 10⁵], ε and δ from the page's sliders: 0.01 … 10 and 10⁻¹⁰ … 10⁻²), their
  seed printed. A target no σ in dpcore's range [0.1, 10⁴] answers is refused with a ValueError: timed too.
* Time per plan: median wall time of three, beside the previous implementation (commit :data:`BASELINE`, run from a
  ``git archive`` of it in a subprocess, one run per point) in the same run.
* Correctness: the PLD ε at the planned σ against the target (never above it), and beside it dp_accounting's PLD
  accountant's ε at the same σ (``PLDAccountant`` on a grid of 10⁻⁴, an upper bound like dpcore's), when installed.
"""

from __future__ import annotations

import json
import logging
import math
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks import readme_figures
from benchmarks.timing import wall_times
from dpcore.accounting import OrderGridEdgeWarning, plan_dpsgd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results" / "dpsgd_planner.md"
#: The commit whose planner is the baseline: the last one before the planner was bounded (issue 19).
BASELINE = "f800d3b"
#: The page's ε and δ choices (explorer.widgets.EPSILON_GRID, DELTA_GRID), for the hidden points.
EPSILONS = (0.01, 0.0125, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4)
EPSILONS += (0.5, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
DELTAS = (1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)
GRID_Q = (1e-4, 1e-3, 1e-2, 0.1, 0.5)
GRID_T = (10, 1_000, 10_000, 100_000)
HIDDEN = 6
N = 10**7  # examples: q = B / N with B a whole number of examples


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def plan_arguments(q: float, steps: int) -> tuple[int, int, float]:
    """(n, B, E) giving sampling rate q = B/n and T = ⌈E n / B⌉ steps."""
    b = max(1, round(q * N))
    return N, b, steps * b / N


def ours(q, steps, epsilon, delta, method):
    """(seconds, plan or the refusal)."""
    n, b, epochs = plan_arguments(q, steps)

    def run():
        try:
            return plan_dpsgd(n, b, epochs, epsilon, delta, method=method)
        except ValueError as exc:
            return str(exc)

    out = run()
    return statistics.median(wall_times(run, 3)), out


BASELINE_CODE = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from dpcore.accounting import plan_dpsgd
out = []
for n, b, epochs, epsilon, delta, method in json.loads(sys.stdin.read()):
    start = time.perf_counter()
    try:
        plan = plan_dpsgd(n, b, epochs, epsilon, delta, method=method)
        out.append([time.perf_counter() - start, plan.noise_multiplier, plan.epsilon_pld])
    except ValueError as exc:
        out.append([time.perf_counter() - start, None, str(exc)])
print(json.dumps(out))
"""


def previous(points) -> list:
    """[seconds, σ, PLD ε] of the baseline commit's plan_dpsgd for each point, in a subprocess."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", BASELINE, "dpcore"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        args = [[*plan_arguments(q, t), eps, delta, method] for q, t, eps, delta, method in points]
        done = subprocess.run(
            [sys.executable, "-c", BASELINE_CODE],
            input=json.dumps(args),
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp,
            env={"PYTHONPATH": tmp, "PATH": "/usr/bin:/bin"},
        )
    return json.loads(done.stdout)


def peer_epsilon(sigma, q, steps, delta):
    """dp_accounting's PLD ε of T steps of PoissonSampled(q, Gaussian(σ)) and its time; None without it."""
    try:
        import dp_accounting
    except ImportError:
        return None, None
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), int(steps)
    )
    start = time.perf_counter()
    eps = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4).compose(event).get_epsilon(delta)
    return eps, time.perf_counter() - start


def main() -> None:
    from importlib.metadata import PackageNotFoundError, version

    logging.getLogger("absl").setLevel(logging.ERROR)
    warnings.simplefilter("ignore", OrderGridEdgeWarning)
    seed = secrets.randbits(32)
    rng = np.random.default_rng(seed)
    hidden = [
        (
            float(np.exp(rng.uniform(math.log(1e-4), math.log(0.5)))),
            int(np.exp(rng.uniform(math.log(10), math.log(1e5)))),
            float(rng.choice(EPSILONS)),
            float(rng.choice(DELTAS)),
        )
        for _ in range(HIDDEN)
    ]
    grid = [(q, t, 1.0, 1e-5, m) for m in ("pld", "rdp") for q in GRID_Q for t in GRID_T]
    points = grid + [(*h, m) for m in ("pld", "rdp") for h in hidden]
    before = previous(points)
    try:
        peer = f"dp_accounting {version('dp-accounting')}"
    except PackageNotFoundError:
        peer = "dp_accounting not installed"
    lines = [
        "# DP-SGD planner benchmarks",
        "",
        f"Python {sys.version.split()[0]}, numpy {np.__version__}, {peer}; median wall time of 3 plans "
        f"(`plan_dpsgd`: σ for the target, then every accountant's ε at σ); the previous implementation (commit "
        f"{BASELINE}) timed once per point in the same run; hidden points drawn with seed {seed}; load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start.",
        "",
        "## Every plan",
        "",
        "| calibrated by | q | T | target ε | δ | σ | time | previous | ε at σ (calibrating accountant) "
        "| ε / target − 1 | PLD ε at σ | dp_accounting's PLD ε at σ | its time |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    times = {"pld": [], "rdp": []}
    previous_times = {"pld": [], "rdp": []}
    over = []
    for i, ((q, steps, epsilon, delta, method), (old_t, old_sigma, _)) in enumerate(zip(points, before)):
        t, plan = ours(q, steps, epsilon, delta, method)
        times[method].append(t)
        previous_times[method].append(old_t)
        label = f"{method.upper()}{' (hidden)' if i >= len(grid) else ''}"
        if isinstance(plan, str):
            lines.append(
                f"| {label} | {q:.3g} | {steps} | {epsilon:g} | {delta:g} | refused: {plan[:90]}… | {fmt(t)} "
                f"| {fmt(old_t)} | | | | | |"
            )
            continue
        eps = plan.epsilon_pld if method == "pld" else plan.epsilon_rdp_balle
        if eps > epsilon:
            over.append((q, steps, epsilon, delta, method))
        their, their_t = peer_epsilon(plan.noise_multiplier, q, plan.steps, delta) if method == "pld" else (None,) * 2
        lines.append(
            f"| {label} | {q:.3g} | {plan.steps} | {epsilon:g} | {delta:g} | {plan.noise_multiplier:.6g} "
            f"(previous {'refused' if old_sigma is None else f'{old_sigma:.6g}'}) | {fmt(t)} | {fmt(old_t)} | {eps:.6g} "
            f"| {eps / epsilon - 1:+.1e} | {plan.epsilon_pld:.6g} | {'' if their is None else f'{their:.6g}'} "
            f"| {'' if their_t is None else fmt(their_t)} |"
        )
    lines += [
        "",
        "## Summary",
        "",
        "| planner | slowest of all its plans | median | previous implementation: slowest | median | target |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for method in ("pld", "rdp"):
        lines.append(
            f"| DP-SGD planner, {method.upper()} calibration, {len(times[method])} plans (q = 1e-4 … 0.5, "
            f"T ≤ 1e5, {HIDDEN} hidden) | {fmt(max(times[method]))} | {fmt(statistics.median(times[method]))} "
            f"| {fmt(max(previous_times[method]))} | {fmt(statistics.median(previous_times[method]))} | < 1 s |"
        )
    slowest = max(max(v) for v in times.values())
    lines += [
        "",
        f"Targets met: every plan under 1 s {'yes' if slowest < 1 else 'NO'} (slowest {fmt(slowest)}); "
        f"no plan's ε above its target {'yes' if not over else f'NO: {over}'}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
    readme_figures.update()
