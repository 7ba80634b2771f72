"""Speed of the local-DP oracles against a one-user-at-a-time baseline, and the work bounded on the largest upload.

Run: python -m benchmarks.bench_ldp   (prints two tables, writes benchmarks/results/ldp.md)

The baseline is measured in the same run as the vectorised code, so the ratio
holds on a shared, noisy machine even when the seconds do not.

The second table is the worst case one person can ask for: a 25 MB upload
(10^6 rows of distinct floats) simulated at 10^4 trials. Every call must stay
near a second and far below 1 GB; ``LDPMean.simulate`` used to need 10^10
binomial draws and 75 GiB there, and now switches to its normal path past
2·10^7 draws (``dpcore.ldp_mean.SIMULATION_BUDGET``). Peak memory is measured
with ``tracemalloc`` (NumPy reports its buffers to it) in a run of its own.
"""

from __future__ import annotations

import pathlib
import tracemalloc

import numpy as np

from benchmarks import readme_figures
from benchmarks.timing import best_of
from dpcore import (
    GRR,
    LADDER_CANDIDATES,
    OUE,
    SUE,
    LDPMean,
    auto_mean,
    choose_clipping_bound,
    dp_histogram,
    dp_mean,
    exponential_mechanism,
    mean_epsilon_for_accuracy,
    naive_clipping_bound,
)
from dpcore.clipping import evenly_spaced_candidates
from dpcore.ldp_mean import SIMULATION_BUDGET

RESULTS = pathlib.Path(__file__).with_name("results") / "ldp.md"


def oue_one_user_at_a_time(values, m: OUE, rng) -> np.ndarray:
    """Baseline as the per-user LDP libraries do it: one encode-and-flip per user."""
    support = np.zeros(m.k, dtype=np.int64)
    for v in values:
        bits = rng.random(m.k) < m.q
        bits[v] = rng.random() < m.p
        support += bits
    return m.estimate(support, len(values))


def peak_mib(fn) -> float:
    """Peak memory traced while ``fn`` runs, in MiB."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def upload_rows(rng) -> list[tuple[str, float, float, str]]:
    """(case, seconds, peak MiB, note) for every dpcore call whose work grows with trials and the data."""
    n, trials = 10**6, 10**4
    values = rng.uniform(0.0, 100.0, size=n)  # 10^6 distinct floats
    mean = LDPMean(1.0, 0.0, 100.0)
    at_budget = rng.uniform(0.0, 100.0, size=SIMULATION_BUDGET // trials)  # trials × distinct = the budget
    candidates = evenly_spaced_candidates(100.0, 100)
    cases = [
        (
            "`LDPMean.simulate`, normal path",
            lambda: mean.simulate(values, rng, trials),
            f"Kolmogorov distance to the exact law ≤ {mean.simulation_error(values, trials):.3%}",
        ),
        (
            f"`LDPMean.simulate`, exact path at the budget ({at_budget.size:,} distinct × 10^4)",
            lambda: mean.simulate(at_budget, rng, trials),
            "2·10^7 binomial draws, exact",
        ),
        ("`LDPMean.error_bound`", lambda: mean.error_bound(values), ""),
        ("`LDPMean.epsilon_for_accuracy`", lambda: LDPMean.epsilon_for_accuracy(0.5, values, 0.0, 100.0), ""),
        (
            "`dp_mean(...).error_bound()` (10^4 simulated releases)",
            lambda: dp_mean(values, 0, 100, 1.0, rng).error_bound(),
            "",
        ),
        (
            "`mean_epsilon_for_accuracy` (10^4 releases per step)",
            lambda: mean_epsilon_for_accuracy(0.05, values, 0.0, 100.0),
            "",
        ),
        ("`auto_mean`, 21 ladder candidates", lambda: auto_mean(values, LADDER_CANDIDATES, 1.0, rng, trials), ""),
        (
            "`choose_clipping_bound`, 100 candidates",
            lambda: choose_clipping_bound(values, candidates, 1.0, rng, trials),
            "",
        ),
        (
            "`naive_clipping_bound`, 100 candidates",
            lambda: naive_clipping_bound(values, candidates, 1.0, rng, trials),
            "",
        ),
        (
            "`dp_histogram(..., 100 bins).simulate`",
            lambda: dp_histogram(values, 100, 1.0, rng, lower=0, upper=100).simulate(trials, rng),
            "output 10^4 × 100",
        ),
        (
            "`exponential_mechanism`, 10^6 candidates",
            lambda: exponential_mechanism(values, 1.0, 1.0, rng, trials=trials),
            "",
        ),
    ]
    return [(case, best_of(fn), peak_mib(fn), note) for case, fn, note in cases]


def main() -> None:
    rng = np.random.default_rng(0)
    rows = []
    n, k = 10**6, 16
    m = OUE(1.0, k)
    values = rng.integers(0, k, size=n)
    fast = best_of(lambda: m.estimate(m.support(m.perturb(values, rng)), n))
    base = best_of(lambda: oue_one_user_at_a_time(values, m, rng), repeat=1)
    rows.append(("OUE perturb→support→estimate, n=10^6, k=16", fast, f"{base:.2f} s", f"{base / fast:.0f}×", "≥ 50×"))

    counts = np.full(k, 10**9 // k)
    for cls in (GRR, SUE, OUE):
        mech = cls(1.0, k)
        t1 = best_of(lambda: mech.simulate(counts, rng, trials=1))
        rows.append((f"{cls.__name__}.simulate, n=10^9, k=16, 1 trial", t1, "", "", "milliseconds"))
        t = best_of(lambda: mech.simulate(counts, rng, trials=1000))
        rows.append((f"{cls.__name__}.simulate, n=10^9, k=16, 1,000 trials", t, "", "", "milliseconds"))

    adult_counts = rng.multinomial(32_561, np.full(15, 1 / 15))
    for cls in (GRR, SUE, OUE):
        mech = cls(1.0, 15)
        t = best_of(lambda: mech.simulate(adult_counts, rng, trials=10_000))
        rows.append((f"{cls.__name__}.simulate, n=32,561, k=15, 10^4 trials", t, "", "", "≪ 1 s"))
    ages = rng.integers(17, 91, size=32_561).astype(float)
    mean = LDPMean(1.0, 0.0, 100.0)
    t = best_of(lambda: mean.simulate(ages, rng, trials=10_000))
    rows.append(("LDPMean.simulate, 32,561 ages, 10^4 trials", t, "", "", "≪ 1 s"))

    lines = [
        "| case | time | baseline (one user at a time) | speed-up | target |",
        "|---|---|---|---|---|",
    ]
    for case, t, base_s, ratio, target in rows:
        lines.append(f"| {case} | {t * 1000:.1f} ms | {base_s} | {ratio} | {target} |")
    table = "\n".join(lines)
    print(table)

    upload = [
        "| case (10^6 distinct floats, 10^4 trials) | time | peak memory | note | target |",
        "|---|---|---|---|---|",
    ]
    for case, t, mib, note in upload_rows(rng):
        upload.append(f"| {case} | {t * 1000:.0f} ms | {mib:.0f} MiB | {note} | ≲ 1 s, ≪ 1 GB |")
    upload.append(
        "| `LDPMean.simulate` before the budget (one binomial per distinct value and trial) | not run | 75 GiB "
        "| 10^10 draws: MemoryError | |"
    )
    upload_table = "\n".join(upload)
    print()
    print(upload_table)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Local-DP oracles: measured speed\n\n"
        "Written by `python -m benchmarks.bench_ldp`; best of 3 runs (baseline: 1 run), "
        f"NumPy {np.__version__}, on the 2-core development machine.\n\n" + table + "\n\n"
        "## Bounded work: the largest upload at the most trials\n\n"
        "A 25 MB upload holds about 10^6 rows; 10^4 is the most trials the app offers. Peak memory "
        "by `tracemalloc` in a separate run.\n\n" + upload_table + "\n"
    )


if __name__ == "__main__":
    main()
    readme_figures.update()
