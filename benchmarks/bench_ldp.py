"""Speed of the local-DP oracles against a one-user-at-a-time baseline.

Run: python -m benchmarks.bench_ldp   (prints a table, writes benchmarks/results/ldp.md)

The baseline is measured in the same run as the vectorised code, so the ratio
holds on a shared, noisy machine even when the seconds do not.
"""

from __future__ import annotations

import pathlib

import numpy as np

from benchmarks.timing import best_of
from dpcore import GRR, OUE, SUE, LDPMean

RESULTS = pathlib.Path(__file__).with_name("results") / "ldp.md"


def oue_one_user_at_a_time(values, m: OUE, rng) -> np.ndarray:
    """Baseline as the per-user LDP libraries do it: one encode-and-flip per user."""
    support = np.zeros(m.k, dtype=np.int64)
    for v in values:
        bits = rng.random(m.k) < m.q
        bits[v] = rng.random() < m.p
        support += bits
    return m.estimate(support, len(values))


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
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Local-DP oracles: measured speed\n\n"
        "Written by `python -m benchmarks.bench_ldp`; best of 3 runs (baseline: 1 run), "
        f"NumPy {np.__version__}, on the 2-core development machine.\n\n" + table + "\n"
    )


if __name__ == "__main__":
    main()
