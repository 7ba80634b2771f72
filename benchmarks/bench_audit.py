"""Audits and safe release: speed against baselines timed in the same run, and how close each audit gets.

Run: python -m benchmarks.bench_audit   (prints the tables, writes benchmarks/results/audit.md)

Speed: an audit of the Laplace count with 10^6 runs per input against (a) the
cost of only drawing its 2·10^6 noisy answers and (b) a per-trial Python loop
(one release and one event check per run) timed on 10^4 runs and scaled.
Reach: every catalogue audit and every broken exhibit at 10^6 runs per input,
with, for the Gaussian, the best bound that any threshold could give at that
many runs when the probabilities are known exactly (so that the gap is seen to
be the mechanism's, not the search's). Then Mironov's attack and the exact
samplers. Benchmarks, not tests: nothing fails; the tables say what was met.
"""

from __future__ import annotations

import pathlib
import time

import numpy as np
from scipy.stats import norm

from benchmarks import readme_figures
from benchmarks.timing import best_of
from dpcore import Gaussian, Laplace, analytic_gaussian_sigma, dp_count, lattice_draw
from dpcore.audit import BROKEN, CATALOGUE, audit, floating_point_attack, lower_bound_curve
from dpcore.audit.bounds import epsilon_lower_bounds
from dpcore.discrete import sample_discrete_gaussian, sample_discrete_laplace

RESULTS = pathlib.Path(__file__).with_name("results") / "audit.md"
TRIALS = 10**6
SEEDS = (1, 2, 3)


def speed_rows() -> list[str]:
    rng = np.random.default_rng(0)
    t_audit = best_of(lambda: audit("laplace_count", 1.0, trials=TRIALS, rng=rng), 3)
    q0, q1 = dp_count(np.zeros(100), 1.0, 0), dp_count(np.zeros(101), 1.0, 0)
    t_draw = best_of(lambda: (q0.simulate(TRIALS, rng), q1.simulate(TRIALS, rng)), 3)

    def loop(n=10_000):
        hits0 = hits1 = 0
        for _ in range(n):
            hits0 += q0.mechanism.simulate(100.0, rng) < 100.0
            hits1 += q1.mechanism.simulate(101.0, rng) < 100.0
        return hits0, hits1

    t_loop = best_of(loop, 1) * TRIALS / 10_000
    t_curve = best_of(lambda: lower_bound_curve("laplace_count", 1.0, trials=TRIALS, rng=rng, points=12), 1)
    return [
        "| case | time | against |",
        "|---|---|---|",
        f"| `audit('laplace_count', trials=10**6)`: 10^6 runs per input, event search and measurement | "
        f"{t_audit * 1e3:.0f} ms | target < 1 s: {'met' if t_audit < 1 else 'NOT met'} |",
        f"| drawing the 2·10^6 noisy counts only (`QueryResult.simulate`) | {t_draw * 1e3:.0f} ms | "
        f"the audit costs {t_audit / t_draw:.1f}× the draws |",
        f"| per-trial Python loop (one release and one check per run), 10^4 runs timed, scaled to 10^6 | "
        f"{t_loop:.1f} s | the audit is {t_loop / t_audit:.0f}× faster |",
        f"| `lower_bound_curve('laplace_count', trials=10**6, points=12)` | {t_curve * 1e3:.0f} ms | |",
    ]


def gaussian_best(delta: float, trials: int) -> float:
    """The best bound a threshold event can give with ``trials/2`` measuring runs, probabilities known exactly.

    The Clopper–Pearson bounds are replaced by their normal approximation at the
    expected counts: the bound the audit would report if the search found the best
    threshold without error.
    """
    s = analytic_gaussian_sigma(1.0, delta, 1.0)
    t = np.linspace(0.0, 30.0, 20_001)
    p0, p1 = norm.sf((t - 1.0) / s), norm.sf(t / s)
    n = trials // 2
    bound, _, _ = epsilon_lower_bounds(np.round(p0 * n), n, np.round(p1 * n), n, delta)
    return float(bound.max())


def reach_rows() -> list[str]:
    lines = [
        "| audit | claim | lower bound: median (range) of 3 seeds | median / claim | event chosen (median run) | time per audit |",
        "|---|---|---|---|---|---|",
    ]
    for name, spec in CATALOGUE.items():
        eps = spec.default_epsilon
        start = time.perf_counter()
        runs = sorted((audit(name, eps, trials=TRIALS, rng=seed) for seed in SEEDS), key=lambda r: r.epsilon_lower)
        took = (time.perf_counter() - start) / len(SEEDS)
        r = runs[len(runs) // 2]  # the median of the seeds
        spread = f"{runs[0].epsilon_lower:.3f}–{runs[-1].epsilon_lower:.3f}"
        claim = f"ε = {eps:.3g}" + (f", δ = {r.delta:g}" if r.delta else "")
        lines.append(
            f"| `{name}` | {claim} | {r.epsilon_lower:.3f} ({spread}) | {r.epsilon_lower / eps:.2f} | {r.event} | "
            f"{took:.2f} s |"
        )
    best = gaussian_best(1e-5, TRIALS)
    lines.append(
        f"| best threshold for the Gaussian (ε = 1, δ = 1e-5), exact probabilities, 10^6 runs | ε = 1 | "
        f"{best:.3f} | {best:.2f} | (computed, not sampled) | |"
    )
    return lines


def broken_rows() -> list[str]:
    lines = [
        "| exhibit | bug | claim | lower bound | true ε | time |",
        "|---|---|---|---|---|---|",
    ]
    for name, table in BROKEN.items():
        for key, ex in table.items():
            start = time.perf_counter()
            r = audit(name, 1.0, trials=TRIALS, rng=1, broken=key)
            took = time.perf_counter() - start
            true = "?" if ex.actual_epsilon is None else f"{ex.actual_epsilon(1.0, dict(r.params)):.3g}"
            verdict = "refuted" if r.violated else "not refuted"
            lines.append(
                f"| `{name}` / `{key}` | {ex.bug} | 1 | {r.epsilon_lower:.3f} ({verdict}) | {true} | {took:.2f} s |"
            )
    return lines


def mironov_rows() -> list[str]:
    lines = [
        "| sampler | ε | outputs on 0 impossible on 1 | 95% interval | positive control | time for 10^5 |",
        "|---|---|---|---|---|---|",
    ]
    for sampler in ("textbook", "lattice"):
        for eps in (0.1, 1.0, 10.0):
            start = time.perf_counter()
            r = floating_point_attack(sampler, eps, trials=100_000, rng=0)
            took = time.perf_counter() - start
            lines.append(
                f"| {sampler} | {eps:g} | {r.share:.1%} | [{r.share_lower:.1%}, {r.share_upper:.1%}] | "
                f"{r.found_on_x}/{r.trials} found on 0 | {took:.2f} s |"
            )
    return lines


def sampler_rows() -> list[str]:
    rng = np.random.default_rng(0)
    n = 10**6
    rows = [
        ("numpy float Laplace (`Generator.laplace`), 10^6", lambda: rng.laplace(0.0, 1024.0, n)),
        (
            "exact discrete Laplace, scale 2^10 (the grid of ε = 1, Δ = 1), 10^6",
            lambda: sample_discrete_laplace(rng, 1024, n),
        ),
        ("numpy float Gaussian (`Generator.normal`), 10^6", lambda: rng.normal(0.0, 3820.0, n)),
        (
            "exact discrete Gaussian, σ² = 3820² (ε = 1, δ = 1e-5 on its grid), 10^6",
            lambda: sample_discrete_gaussian(rng, 3820**2, n),
        ),
        (
            "`lattice_draw` of one count, Laplace ε = 1 (grid and noise)",
            lambda: lattice_draw(Laplace.from_epsilon(1.0), 42.0, rng),
        ),
        (
            "`lattice_draw` of one count, Gaussian ε = 1, δ = 1e-5 (includes the exact-δ search)",
            lambda: lattice_draw(Gaussian.from_epsilon_delta(1.0, 1e-5), 42.0, rng),
        ),
    ]
    lines = ["| case | time |", "|---|---|"]
    for case, fn in rows:
        lines.append(f"| {case} | {best_of(fn, 3) * 1e3:.1f} ms |")
    return lines


def main() -> None:
    sections = [
        ("Speed (target: an audit with 10^6 runs per input for Laplace in under 1 s)", speed_rows()),
        ("How close each correct audit gets, 10^6 runs per input", reach_rows()),
        ("Broken exhibits, 10^6 runs per input, claimed ε = 1", broken_rows()),
        ("Mironov's attack (x = 0, x' = 1, Laplace scale 1/ε), 10^5 outputs", mironov_rows()),
        ("Exact samplers and the safe release", sampler_rows()),
    ]
    out = [
        "# Audits and safe release: measured",
        "",
        f"Written by `python -m benchmarks.bench_audit`; NumPy {np.__version__}, on the 2-core development machine "
        "(shared with other jobs: ratios mean more than seconds).",
    ]
    for title, lines in sections:
        out += ["", f"## {title}", "", *lines]
    text = "\n".join(out) + "\n"
    print(text)
    RESULTS.write_text(text)


if __name__ == "__main__":
    main()
    readme_figures.update()
