"""Contribution bounding and a group-by with private partition selection on 10⁶ rows of 10⁵ persons, beside pandas.

Run: python -m benchmarks.bench_contributions   (prints the tables, writes benchmarks/results/contributions.md, then
the README's figures)

The table: 10⁵ persons and 10⁶ rows, heavy-tailed (every person one row, the other 900,000 shared by Pareto(1.3)
weights capped at 400 times the smallest: most persons a few rows, some hundreds, the heaviest about a thousand); each row in one of 20,000 groups
drawn by a Zipf law (a few popular groups, a long tail of rare ones) and a log-normal amount. Target (issue 20):
contribution bounding and a group-by with partition selection in under 1 s.

Timed, median wall time (and CPU time) of :data:`REPEAT` calls after a warm one, in the same run:

* ``dpcore.contributions.bound_contributions``: m = 10 rows per person; L₀ = 3 groups per person and L∞ = 2 rows per
  group (the group-by's bounding), seeded and with ``SecureGenerator``;
* ``dpcore.groupby.group_by``: counts per group with the optimal partition selection (ε = 1, δ = 10⁻⁶, L₀ = 3) on
  the distinct persons and Laplace noise (ε = 1); sums per group; and ``publish_group_by`` (secure, on a lattice);
* beside each, a pandas baseline doing the same work the usual way: shuffle the rows (``DataFrame.sample(frac=1)``)
  and keep each person's first m (``groupby.head``); for the group-by, shuffle the (person, group) pairs, keep each
  person's first L₀, keep each kept pair's first L∞ rows, then ``groupby(group)`` for the distinct persons, the rows
  and the sums, numpy's Laplace noise on the distinct counts against the threshold, and noise on the kept counts.
  ``DataFrameGroupBy.sample(n=m)`` is no baseline: it refuses a person with fewer than m rows.

These are benchmarks, not tests: nothing fails when a target is missed, the table says so.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
import pandas as pd

from benchmarks import readme_figures
from dpcore.contributions import ContributionBounds, bound_contributions, rows_per_person
from dpcore.groupby import group_by, publish_group_by
from dpcore.partition_selection import LaplaceThresholding, OptimalSelection
from dpcore.randomness import SecureGenerator

RESULTS = os.path.join(os.path.dirname(__file__), "results", "contributions.md")
PERSONS, ROWS, GROUPS = 100_000, 1_000_000, 20_000
REPEAT = 7
TARGET = 1.0
SEED = 2020
ROW_BOUND = ContributionBounds(max_rows=10)
GROUP_BOUND = ContributionBounds(max_groups=3, max_rows_per_group=2)
EPSILON, DELTA = 1.0, 1e-6


def heavy_tailed_table(rng: np.random.Generator) -> pd.DataFrame:
    """10⁵ persons, 10⁶ rows: one row each, the rest shared by Pareto weights; Zipf groups; log-normal amounts."""
    weights = np.minimum(rng.pareto(1.3, PERSONS) + 1.0, 400.0)  # capped: the heaviest person about a thousand rows
    rows = 1 + rng.multinomial(ROWS - PERSONS, weights / weights.sum())
    person = np.repeat(rng.permutation(PERSONS), rows)
    group = np.minimum(rng.zipf(1.3, ROWS), GROUPS) - 1
    amount = rng.lognormal(3.0, 1.0, ROWS)
    order = rng.permutation(ROWS)  # rows of a person are not adjacent in a real file
    return pd.DataFrame({"person": person[order], "group": group[order], "amount": amount[order]})


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


# ---------------------------------------------------------------------------------------------- pandas baselines


def pandas_bound_rows(df: pd.DataFrame, m: int, seed: int) -> pd.DataFrame:
    """Up to m uniformly random rows per person: shuffle, then each person's first m."""
    return df.sample(frac=1.0, random_state=seed).groupby("person", sort=False).head(m)


def pandas_bound_groups(df: pd.DataFrame, l0: int, linf: int, seed: int) -> pd.DataFrame:
    """Up to L₀ uniformly random groups per person, then up to L∞ uniformly random rows in each."""
    pairs = df[["person", "group"]].drop_duplicates().sample(frac=1.0, random_state=seed)
    kept_pairs = pairs.groupby("person", sort=False).head(l0)
    rows = df.merge(kept_pairs, on=["person", "group"])
    return rows.sample(frac=1.0, random_state=seed + 1).groupby(["person", "group"], sort=False).head(linf)


def pandas_group_by(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The group-by: bound, count distinct persons and rows per group, Laplace thresholding, noisy counts."""
    rng = np.random.default_rng(seed)
    bounded = pandas_bound_groups(df, GROUP_BOUND.max_groups, GROUP_BOUND.max_rows_per_group, seed)
    per_group = bounded.groupby("group").agg(persons=("person", "nunique"), rows=("person", "size"))
    selection = LaplaceThresholding(EPSILON, DELTA, GROUP_BOUND.max_groups)
    noisy_persons = per_group["persons"] + rng.laplace(scale=selection.scale, size=len(per_group))
    kept = per_group[noisy_persons > selection.threshold]
    scale = GROUP_BOUND.histogram_sensitivity().l1 / EPSILON
    return kept.assign(noisy=kept["rows"] + rng.laplace(scale=scale, size=len(kept)))


# ---------------------------------------------------------------------------------------------- the runs


def rows_of(df: pd.DataFrame) -> list[str]:
    person, group, amount = df["person"].to_numpy(), df["group"].to_numpy(), df["amount"].to_numpy()
    selection = OptimalSelection(EPSILON, DELTA, GROUP_BOUND.max_groups)
    cases = [
        (
            "contribution bounding, 10⁶ rows, m = 10 rows per person",
            lambda: bound_contributions(person, SEED, bounds=ROW_BOUND),
            lambda: pandas_bound_rows(df, ROW_BOUND.max_rows, SEED),
            True,
        ),
        (
            "contribution bounding, 10⁶ rows, m = 10, SecureGenerator",
            lambda: bound_contributions(person, SecureGenerator(), bounds=ROW_BOUND),
            lambda: pandas_bound_rows(df, ROW_BOUND.max_rows, SEED),
            True,
        ),
        (
            "contribution bounding for a group-by, L₀ = 3 groups, L∞ = 2 rows",
            lambda: bound_contributions(person, SEED, bounds=GROUP_BOUND, groups=group),
            lambda: pandas_bound_groups(df, GROUP_BOUND.max_groups, GROUP_BOUND.max_rows_per_group, SEED),
            True,
        ),
        (
            "group-by with partition selection, counts (optimal selection, Laplace noise)",
            lambda: group_by(group, EPSILON, SEED, persons=person, bounds=GROUP_BOUND, selection=selection),
            lambda: pandas_group_by(df, SEED),
            True,
        ),
        (
            "group-by with partition selection, sums clipped to [0, 100]",
            lambda: group_by(
                group,
                EPSILON,
                SEED,
                statistic="sum",
                values=amount,
                lower=0.0,
                upper=100.0,
                persons=person,
                bounds=GROUP_BOUND,
                selection=selection,
            ),
            None,
            False,
        ),
        (
            "publish_group_by: counts, SecureGenerator, lattice noise",
            lambda: publish_group_by(group, EPSILON, persons=person, bounds=GROUP_BOUND, selection=selection),
            lambda: pandas_group_by(df, SEED),
            True,
        ),
    ]
    out = []
    for name, ours, theirs, targeted in cases:
        t_ours, cpu_ours = wall_and_cpu(ours)
        t_theirs, cpu_theirs = wall_and_cpu(theirs) if theirs is not None else (float("nan"), float("nan"))
        ratio = f"{t_theirs / t_ours:.1f}×" if theirs is not None else ""
        target = "< 1 s" if targeted else ""
        met = ("yes" if t_ours < TARGET else "NO") if targeted else ""
        pandas_cell = f"{fmt(t_theirs)} ({fmt(cpu_theirs)})" if theirs is not None else "(as above)"
        out.append(f"| {name} | {fmt(t_ours)} ({fmt(cpu_ours)}) | {pandas_cell} | {ratio} | {target} | {met} |")
        print(out[-1], flush=True)
    return out


def wall_and_cpu(fn) -> tuple[float, float]:
    """Median wall time and median CPU time of :data:`REPEAT` calls after a warm one (CPU: this process only)."""
    fn()
    walls, cpus = [], []
    for _ in range(REPEAT):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def page_rows() -> list[str]:
    """The People page's two views on the visits demo (AppTest, in this process): wall and CPU of each rerun after a
    slider move, against issue 20's target of 500 ms for the bias/noise view."""
    from tests.apptest import PAGES, open_page

    def opened(**link):
        at = open_page("data")
        at.button(key="demo_visits").click().run()
        for key, value in link.items():
            at.session_state[key] = value
        at.switch_page(PAGES["people"])
        at.run()
        return at

    out = []
    views = [
        ("bias against noise: ε moved", {}, "ppl_epsilon", (0.5, 2.0, 1.0, 4.0, 0.25, 1.0)),
        (
            "group-by with unknown keys: δ moved",
            {"ppl_view": "Group-by with unknown keys"},
            "ppl_sel_delta",
            (1e-6, 1e-4, 1e-5, 1e-7, 1e-6, 1e-4),
        ),
    ]
    for name, link, key, values in views:
        at = opened(**link)
        walls, cpus = [], []
        for value in values:
            w, c = time.perf_counter(), time.process_time()
            at.select_slider(key=key).set_value(value).run()
            walls.append(time.perf_counter() - w)
            cpus.append(time.process_time() - c)
        if at.exception or at.error:
            raise RuntimeError(f"the People page failed in {name}")
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        met = "yes" if wall < 0.5 else "NO"
        out.append(f"| People page, {name} | {fmt(wall)} ({fmt(cpu)}) | {fmt(max(walls))} | < 500 ms | {met} |")
        print(out[-1], flush=True)
    return out


def facts_of(df: pd.DataFrame) -> list[str]:
    person, group = df["person"].to_numpy(), df["group"].to_numpy()
    per_person = rows_per_person(person)
    rows = bound_contributions(person, SEED, bounds=ROW_BOUND)
    grouped = bound_contributions(person, SEED, bounds=GROUP_BOUND, groups=group)
    selection = OptimalSelection(EPSILON, DELTA, GROUP_BOUND.max_groups)
    result = group_by(group, EPSILON, SEED, persons=person, bounds=GROUP_BOUND, selection=selection)
    laplace = LaplaceThresholding(EPSILON, DELTA, GROUP_BOUND.max_groups)
    q = np.percentile(per_person, [50, 90, 99])
    return [
        f"| rows per person: median, 90th, 99th percentile, largest | {q[0]:.0f}, {q[1]:.0f}, {q[2]:.0f}, "
        f"{per_person.max():,} |",
        f"| distinct groups in the table | {int(np.unique(group).size):,} |",
        f"| rows kept at m = 10 | {rows.rows_kept:,} of {rows.rows:,} |",
        f"| rows kept at L₀ = 3, L∞ = 2 | {grouped.rows_kept:,} of {grouped.rows:,} |",
        f"| groups released (optimal selection, one seeded run) | {result.kept:,} |",
        f"| groups expected: optimal selection / Laplace thresholding | {selection.expected_kept(grouped.distinct):,.1f} "
        f"/ {laplace.expected_kept(grouped.distinct):,.1f} |",
        f"| threshold of Laplace thresholding (ε = 1, δ = 10⁻⁶, L₀ = 3) | {laplace.threshold:.2f} distinct persons |",
        f"| optimal selection: kept with probability ½ from / always from | {selection.half_size} / "
        f"{selection.certain_from} distinct persons |",
    ]


def main() -> None:
    started = time.perf_counter()
    load = os.getloadavg()[0]
    df = heavy_tailed_table(np.random.default_rng(0))
    timing = rows_of(df)
    facts = facts_of(df)
    pages = page_rows()
    text = "\n".join(
        [
            "# Contribution bounding and a group-by with partition selection",
            "",
            f"Written by `python -m benchmarks.bench_contributions`: Python {sys.version.split()[0]}, numpy "
            f"{np.__version__}, pandas {pd.__version__}, {os.cpu_count()} cores (load average {load:.1f} at the "
            f"start, {os.getloadavg()[0]:.1f} at the end; {time.perf_counter() - started:.0f} s in all). Median wall "
            f"time of {REPEAT} calls after a warm one, and in brackets their median CPU time (on a loaded shared "
            "machine the wall time waits for the other processes; the CPU time does not). 10⁵ persons, 10⁶ rows, "
            "heavy-tailed (every person one row, 900,000 more shared by capped Pareto(1.3) weights), 20,000 "
            "Zipf-distributed groups; ε = 1 for the aggregates, (ε, δ) = (1, 10⁻⁶) for the selection.",
            "",
            "dpcore draws a uniform permutation of the rows and sorts them by group and person with stable 16-bit "
            "radix passes (numpy's radix sort), so each person's rows, and each (person, group) pair's, sit together "
            "in a random order: no Python loop over persons and no hash join. The pandas baseline shuffles, hashes "
            "and joins (`sample`, `drop_duplicates`, `merge`, `groupby.head`). With `SecureGenerator` the "
            "permutation is 64-bit secure keys sorted (a tie, probability below n²/2⁶⁵, draws them all again).",
            "",
            "| task | dpcore, wall (CPU) | pandas baseline, same run, wall (CPU) | pandas / dpcore | target | met |",
            "|---|---|---|---|---|---|",
            *timing,
            "",
            "## The People page's reruns on the visits demo",
            "",
            "Six slider moves per view in Streamlit's AppTest (the script run in this process, no browser): median "
            "wall time and, in brackets, CPU time of the rerun, and the slowest.",
            "",
            "| view | median rerun, wall (CPU) | slowest | target | met |",
            "|---|---|---|---|---|",
            *pages,
            "",
            "## The table and what the bounds keep",
            "",
            "| fact | value |",
            "|---|---|",
            *facts,
        ]
    )
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
    readme_figures.update()
