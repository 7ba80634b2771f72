"""Benchmarks for dpcore.accounting: is every curve fast enough to redraw on a slider move?

Run as ``python -m benchmarks.bench_accounting``; prints a markdown table and
writes it to ``benchmarks/results/accounting.md``. Takes well under a minute.

Cases (targets from the project's issue 4):

* ``epsilon_curve`` for a Gaussian (σ = 5) with methods rdp, zcdp, exact over
  k = 1..10⁴, under 200 ms in all. Baseline: the exact ε by one scalar
  solve per k (``dpcore.gaussian.analytic_gaussian_epsilon`` at σ/√k), timed on
  500 values of k and scaled to 10⁴.
* Laplace PLD curve at 20 values of k up to 1000, under 3 s. Baseline: a
  per-k recomputation (discretise, transform, power, invert for each k
  separately) on the same grid.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np

from benchmarks import readme_figures
from benchmarks.timing import median_of
from dpcore import GRR, Gaussian, Laplace
from dpcore.accounting import OrderGridEdgeWarning, epsilon_curve, pld_epsilon
from dpcore.accounting.pld import default_interval
from dpcore.gaussian import analytic_gaussian_epsilon as single_release_epsilon

RESULTS = Path(__file__).resolve().parent / "results" / "accounting.md"


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> None:
    warnings.simplefilter("ignore", OrderGridEdgeWarning)
    rows = []

    # ------------------------------------------------------------ Gaussian closed-form curves
    g = Gaussian(sigma=5.0)
    ks = np.arange(1, 10_001)
    for methods in (["rdp"], ["zcdp"], ["exact"]):
        t = median_of(lambda m=methods: epsilon_curve(g, ks, 1e-5, methods=m), 7, warm_up=True)
        rows.append((f"Gaussian σ=5, k=1..10⁴, {methods[0]}", t, "", ""))
    t_all = median_of(lambda: epsilon_curve(g, ks, 1e-5, methods=["rdp", "zcdp", "exact"]), 7, warm_up=True)
    sample = ks[:: ks.size // 500]
    t_loop = (
        median_of(lambda: [single_release_epsilon(5.0 / math.sqrt(k), 1e-5) for k in sample], 1, warm_up=True)
        * ks.size
        / sample.size
    )
    rows.append(
        (
            "Gaussian σ=5, k=1..10⁴, rdp + zcdp + exact",
            t_all,
            "< 200 ms",
            f"{t_loop / t_all:.0f}× faster than a brentq per k ({fmt(t_loop)}, scaled from 500 k)",
        )
    )
    check_all = t_all < 0.2

    # ------------------------------------------------------------ Laplace PLD curve
    pld_ks = np.linspace(50, 1000, 20).astype(int)
    check_pld = True
    for scale in (10.0, 1.0):
        lap = Laplace(scale=scale)
        h = default_interval(lap, int(pld_ks.max()), 1e-5)
        t_curve = median_of(lambda: pld_epsilon(lap, pld_ks, 1e-5, value_discretization_interval=h), 3, warm_up=True)
        t_per_k = median_of(
            lambda: [pld_epsilon(lap, int(k), 1e-5, value_discretization_interval=h) for k in pld_ks], 1, warm_up=True
        )
        rows.append(
            (
                f"Laplace ε₀={1 / scale:g} PLD, 20 k up to 1000 (h={h:.2g})",
                t_curve,
                "< 3 s",
                f"{t_per_k / t_curve:.1f}× faster than per-k recomputation ({fmt(t_per_k)})",
            )
        )
        check_pld &= t_curve < 3.0

    # ------------------------------------------------------------ for information
    t = median_of(lambda: pld_epsilon(Gaussian(5.0), pld_ks, 1e-5), 1, warm_up=True)
    rows.append(("Gaussian σ=5 PLD, 20 k up to 1000", t, "", ""))
    t = median_of(lambda: pld_epsilon(GRR(1.0, 4), pld_ks, 1e-5), 3, warm_up=True)
    rows.append(("GRR ε=1, 4 categories, PLD, 20 k up to 1000", t, "", ""))
    t = median_of(
        lambda: epsilon_curve(
            Laplace(scale=10.0), np.arange(1, 1001), 1e-5, methods=["basic", "advanced", "rdp", "zcdp"]
        ),
        5,
        warm_up=True,
    )
    rows.append(("Laplace ε₀=0.1, k=1..1000, basic + advanced + rdp + zcdp", t, "", ""))

    lines = [
        "# dpcore.accounting benchmarks",
        "",
        f"Python {sys.version.split()[0]}, numpy {np.__version__}; median wall time.",
        "",
        "| case | time | target | baseline |",
        "| --- | --- | --- | --- |",
    ]
    lines += [f"| {case} | {fmt(t)} | {target} | {baseline} |" for case, t, target, baseline in rows]
    lines += [
        "",
        f"Targets met: Gaussian curves {'yes' if check_all else 'NO'}; Laplace PLD {'yes' if check_pld else 'NO'}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
    readme_figures.update()
