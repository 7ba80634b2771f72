"""Benchmarks for DP-SGD's accountant (dpcore.accounting.subsampled_gaussian), timed against dp_accounting.

Run as ``python -m benchmarks.bench_dpsgd``; prints markdown tables and writes
them to ``benchmarks/results/dpsgd.md``. Takes a minute or two (dp_accounting's
PLD per point is the slow part).

Cases (targets from the DP-SGD issue):

* ε against steps by PLD, 30 values of T from 10 to 10⁴: dpcore's one curve (one
  forward FFT per direction) against dp_accounting's ``PLDAccountant``
  composing each point on its own (its default grid, 1e-4), in the same run.
  Target: at least 10× faster.
* ε against steps by RDP, every T = 1..10⁴: under 100 ms. For information,
  dp_accounting's ``RdpAccountant`` per T, timed on 100 values and scaled.
* The noise multiplier for a target ε (PLD and RDP), for information.
* Agreement: ε of dpcore and dp_accounting, RDP (same orders) and PLD, at
  published and typical settings; where ε is small, dp_accounting's default
  grid (1e-4) is coarse, so it also runs on dpcore's grid.
"""

from __future__ import annotations

import logging
import sys
import warnings
from pathlib import Path

import numpy as np

from benchmarks import readme_figures
from benchmarks.timing import median_of
from dpcore.accounting import (
    DEFAULT_ORDERS,
    OrderGridEdgeWarning,
    dpsgd_epsilon,
    dpsgd_noise_multiplier,
)
from dpcore.accounting.subsampled_gaussian import _default_intervals

RESULTS = Path(__file__).resolve().parent / "results" / "dpsgd.md"


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def reference(sigma, q, steps, delta, method, interval=1e-4):
    """dp_accounting's ε of T steps of PoissonSampled(q, Gaussian(σ)), add/remove neighbours."""
    import dp_accounting

    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), int(steps)
    )
    if method == "rdp":
        accountant = dp_accounting.rdp.RdpAccountant(orders=list(DEFAULT_ORDERS))
    else:
        accountant = dp_accounting.pld.PLDAccountant(value_discretization_interval=interval)
    return accountant.compose(event).get_epsilon(delta)


def main() -> None:
    from importlib.metadata import version

    logging.getLogger("absl").setLevel(logging.ERROR)
    warnings.simplefilter("ignore", OrderGridEdgeWarning)
    lines = [
        "# DP-SGD accountant benchmarks",
        "",
        f"Python {sys.version.split()[0]}, numpy {np.__version__}, dp_accounting {version('dp-accounting')}; "
        "median wall time; dp_accounting timed in the same run.",
        "",
        "## Speed",
        "",
        "| case | dpcore | dp_accounting | ratio | target |",
        "| --- | --- | --- | --- | --- |",
    ]
    checks = []

    # ------------------------------------------------------------ PLD curve, 30 values of T up to 10⁴
    steps = np.round(np.geomspace(10, 10_000, 30)).astype(int)  # 30 distinct values of T
    assert np.unique(steps).size == 30
    for sigma, q in ((1.0, 0.01), (4.0, 0.01)):
        ours = median_of(lambda: dpsgd_epsilon(sigma, q, steps, 1e-5), 5, warm_up=True)
        theirs = median_of(lambda: [reference(sigma, q, t, 1e-5, "pld") for t in steps], 1)
        ratio = theirs / ours
        checks.append((f"PLD curve σ={sigma:g}", ratio >= 10))
        lines.append(
            f"| PLD ε against T, σ={sigma:g}, q={q:g}, δ=1e-5, {steps.size} values of T from 10 to 10⁴ | {fmt(ours)} | "
            f"{fmt(theirs)} (one accountant per T) | {ratio:.0f}× | ≥ 10× |"
        )

    # ------------------------------------------------------------ RDP curve, T = 1..10⁴
    all_steps = np.arange(1, 10_001)
    ours = median_of(lambda: dpsgd_epsilon(1.0, 0.01, all_steps, 1e-5, "rdp"), 7, warm_up=True)
    sample = all_steps[:: all_steps.size // 100]
    theirs = median_of(lambda: [reference(1.0, 0.01, t, 1e-5, "rdp") for t in sample], 1) * all_steps.size / sample.size
    checks.append(("RDP curve", ours < 0.1))
    lines.append(
        f"| RDP ε against T, σ=1, q=0.01, δ=1e-5, T = 1..10⁴ | {fmt(ours)} | {fmt(theirs)} (per T, scaled from "
        f"100 T) | {theirs / ours:.0f}× | < 100 ms |"
    )

    # ------------------------------------------------------------ noise multiplier (information)
    for method in ("pld", "rdp"):
        t = median_of(lambda m=method: dpsgd_noise_multiplier(1.0, 1e-5, 0.01, 10_000, m), 3, warm_up=False)
        lines.append(f"| noise multiplier for ε=1, δ=1e-5, q=0.01, T=10⁴, {method} | {fmt(t)} |  |  |  |")

    # ------------------------------------------------------------ agreement
    lines += [
        "",
        "## Agreement with dp_accounting",
        "",
        "ε at δ; RDP on the same 156 orders (improved conversion); PLD with dp_accounting's default grid 1e-4, "
        "and on dpcore's own (finer) grid where ε is small. Both PLDs are upper bounds on the exact ε.",
        "",
        "| σ | q | T | δ | RDP dpcore | RDP dp_acc. | diff | PLD dpcore | PLD dp_acc. (1e-4) | diff "
        "| PLD dp_acc. (dpcore's grid) | diff |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    settings = [
        (4.0, 0.01, 10_000, 1e-5),  # Abadi et al. 2016 (1.26 by the moments accountant)
        (1.1, 256 / 60_000, 14_063, 1e-5),  # MNIST, batch 256, 60 epochs
        (1.0, 0.01, 10_000, 1e-5),
        (8.0, 0.004, 100_000, 1e-5),
        (1.5, 0.05, 2_000, 1e-8),
        (0.9, 0.001, 50_000, 1e-6),
        (2.0, 0.5, 50, 1e-5),
        (0.8, 0.1, 1_000, 1e-6),  # optimum at a fractional order near 1: dp_accounting's bound is looser
        (3.6, 0.0008, 6_959, 3e-9),  # small ε: a 1e-4 grid is coarse
        (6.0, 0.00017, 13_410, 1.4e-9),
    ]
    worst_rdp = worst_pld = 0.0
    for sigma, q, t, delta in settings:
        rdp, rdp_ref = dpsgd_epsilon(sigma, q, t, delta, "rdp"), reference(sigma, q, t, delta, "rdp")
        pld, pld_ref = dpsgd_epsilon(sigma, q, t, delta), reference(sigma, q, t, delta, "pld")
        grid = min(1e-4, min(_default_intervals(sigma, q, t, delta).values()))
        fine = reference(sigma, q, t, delta, "pld", grid) if grid < 1e-4 else pld_ref
        worst_pld = max(worst_pld, abs(pld / fine - 1))
        if (sigma, q) != (0.8, 0.1):
            worst_rdp = max(worst_rdp, abs(rdp / rdp_ref - 1))
        lines.append(
            f"| {sigma:g} | {q:.3g} | {t} | {delta:g} | {rdp:.4f} | {rdp_ref:.4f} | {rdp / rdp_ref - 1:+.2%} | "
            f"{pld:.4f} | {pld_ref:.4f} | {pld / pld_ref - 1:+.2%} | "
            f"{fine:.4f}{f' (h={grid:.1g})' if grid < 1e-4 else ''} | {pld / fine - 1:+.2%} |"
        )
    checks.append(("RDP within 0.5 %", worst_rdp <= 5e-3))
    checks.append(("PLD within 1 %", worst_pld <= 1e-2))
    lines += [
        "",
        f"Largest differences: RDP {worst_rdp:.3%} (all but the σ=0.8, q=0.1 row, whose optimum is a fractional order near 1, where dp_accounting sums the absolute values of the series: a looser bound); PLD {worst_pld:.3%} "
        "(against dp_accounting on a grid at least as fine as dpcore's).",
        "",
        "Targets met: " + "; ".join(f"{name} {'yes' if ok else 'NO'}" for name, ok in checks) + ".",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
    readme_figures.update()
