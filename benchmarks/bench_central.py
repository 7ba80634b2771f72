"""Speed of the central-model mechanisms, queries and SVT against the issue's targets.

Run: python -m benchmarks.bench_central   (prints a table, writes benchmarks/results/central.md)

Each case is timed as the best of a few runs (the least disturbed one on a
shared machine). These are benchmarks, not tests: nothing fails when a target
is missed, the table says so.
"""

from __future__ import annotations

import pathlib

import numpy as np

from benchmarks import readme_figures
from benchmarks.timing import best_of
from dpcore import (
    Gaussian,
    above_threshold,
    above_threshold_trials,
    auto_mean,
    dp_histogram,
    dp_mean,
    exponential_mechanism,
    sparse_trials,
)

RESULTS = pathlib.Path(__file__).with_name("results") / "central.md"


def adult_like_ages(rng, n: int = 32_561) -> np.ndarray:
    """Ages 17..90 shaped like UCI Adult's (synthetic: benchmarks read no data file)."""
    return np.minimum(np.floor(17 + rng.gamma(2.52, 8.56, size=n)), 90.0)


def main() -> None:
    rng = np.random.default_rng(0)
    ages = adult_like_ages(rng)
    rows = []

    hist = dp_histogram(ages, 100, 1.0, rng, lower=0, upper=100)
    t = best_of(lambda: hist.simulate(10_000, rng))
    rows.append(("10^4 trials of a 100-bin Laplace histogram (`QueryResult.simulate`)", t, 0.050, "well under 50 ms"))

    answers = rng.normal(-50.0, 10.0, size=100_000)  # nothing passes: every query is examined
    t = best_of(lambda: above_threshold(answers, 0.0, 1.0, rng))
    rows.append(("AboveThreshold over 10^5 answers (one run)", t, 0.005, "a few ms"))

    cand = np.arange(1, 150, 5)
    t = best_of(lambda: auto_mean(ages, cand, 0.1, rng, trials=10_000))
    rows.append(("10^4 trials of the automatic mean (SVT bound), 32,561 rows", t, 1.0, "under 1 s"))

    t = best_of(lambda: auto_mean(ages, cand, 0.1, rng))
    rows.append(("automatic mean, one run, 32,561 rows", t, 0.050, "interactive (< 50 ms)"))

    mean = dp_mean(ages, 0, 100, 1.0, rng)
    t = best_of(lambda: mean.simulate(10_000, rng))
    rows.append(
        ("10^4 trials of the mean with fixed bounds (`MeanResult.simulate`)", t, 0.050, "interactive (< 50 ms)")
    )

    t = best_of(lambda: above_threshold_trials(answers[:30], 0.0, 0.1, rng, 10_000))
    rows.append(("`above_threshold_trials`, 30 answers × 10^4 trials", t, 0.050, "interactive (< 50 ms)"))

    t = best_of(lambda: sparse_trials(rng.normal(0, 5, size=100), 5.0, 5, 1.0, rng, 1_000))
    rows.append(("`sparse_trials`, 100 answers, c = 5, 10^3 trials", t, 0.050, "interactive (< 50 ms)"))

    t = best_of(lambda: Gaussian.from_epsilon_delta(1.0, 1e-5))
    rows.append(("analytic Gaussian calibration (one brentq solve)", t, 0.005, "interactive (< 5 ms)"))

    scores = rng.normal(0, 10, size=1_000)
    t = best_of(lambda: exponential_mechanism(scores, 1.0, 1.0, rng, trials=10_000))
    rows.append(("exponential mechanism, 1,000 candidates × 10^4 draws", t, 0.050, "interactive (< 50 ms)"))

    lines = ["| case | time | target | met |", "|---|---|---|---|"]
    for case, t, limit, target in rows:
        lines.append(f"| {case} | {t * 1000:.2f} ms | {target} | {'yes' if t < limit else 'NO'} |")
    table = "\n".join(lines)
    print(table)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Central-model mechanisms: measured speed\n\n"
        "Written by `python -m benchmarks.bench_central`; best of 5 runs, "
        f"NumPy {np.__version__}, on the 2-core development machine.\n\n" + table + "\n"
    )


if __name__ == "__main__":
    main()
    readme_figures.update()
