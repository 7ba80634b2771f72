"""The budget ledger against its number of entries: does a long ledger slow every rerun?

Run: python -m benchmarks.bench_ledger [--reruns N]
Prints two tables and writes benchmarks/results/ledger.md (then the README's figures).

(a) ``BudgetLedger`` at 0, 10, 100, 1,000 and 2,000 entries (a mix of Laplace, GRR, calibrated Gaussian and
PureDP releases, the app's budget and "best" accounting): ``charge()`` (the sidebar, every rerun), one more
spend, ``max_count`` (the Accountant page's "room left", every rerun) and ``explorer.budget.ledger_table``
(the Accountant page's table). Baseline, in the same run: the cost of every entry from scratch,
``ledger.cost(ledger.entries)``, which is what ``charge()`` computed before the ledger kept running totals.
(b) The app's rerun (AppTest, CPU time of ``at.run()``, median of several reruns) with an empty ledger and
with one of ``explorer.state.LEDGER_MAX_ENTRIES`` entries put into the session state, on the Accountant page
(which shows the whole ledger) and on the Local DP page (which shows the sidebar's summary). Target: the full
ledger's rerun within 1.5× of the empty one's.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

from benchmarks import readme_figures
from benchmarks.timing import median_of
from dpcore import GRR, Gaussian, Laplace
from dpcore.accounting import BudgetLedger, PureDP
from dpcore.neighbours import REPLACE_ONE
from explorer import state
from explorer.budget import ledger_table
from tests.apptest import open_page

RESULTS = pathlib.Path(__file__).with_name("results") / "ledger.md"
SIZES = (0, 10, 100, 1_000, 2_000)
PAGES = {"accountant": "Accountant page: the ledger's table, metrics and downloads", "local": "Local DP page"}
TARGET = 1.5

# small releases, so that 2,000 of them fit in the app's budget (ε = 5, δ = 1e-5) under "best" accounting
RELEASES = (
    Laplace.from_epsilon(0.001),
    GRR(0.001, 4),
    Gaussian.from_epsilon_delta(0.002, 1e-9),
    PureDP(0.001),
)


def app_ledger(entries: int, cap: int | None = state.LEDGER_MAX_ENTRIES) -> BudgetLedger:
    """A ledger as the app makes it (budget, accounting and cap), holding ``entries`` recorded releases."""
    # under replace one record, so that the local GRR entries count as they are and the central ones are converted
    ledger = BudgetLedger(epsilon=5.0, delta=1e-5, method="best", max_entries=cap, relation=REPLACE_ONE)
    for i in range(entries):
        ledger.spend(RELEASES[i % len(RELEASES)], label=f"release {i + 1}")
    return ledger


def fmt(seconds: float) -> str:
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def ledger_rows() -> list[str]:
    rows = []
    for n in SIZES:
        ledger = app_ledger(n, cap=None)  # no cap: the spend at 2,000 is measured, not refused
        t_charge = median_of(ledger.charge, 201)
        t_room = median_of(lambda led=ledger: led.max_count(RELEASES[0], limit=10**7), 21)
        t_table = median_of(lambda led=ledger: ledger_table(led), 7, warm_up=True)
        t_scratch = median_of(lambda led=ledger: led.cost(led.entries), 3 if n >= 1_000 else 11)
        spends = []
        for i in range(11):  # each a new entry: the ledger grows from n to n + 11
            start = time.perf_counter()
            ledger.spend(RELEASES[i % len(RELEASES)], label="one more")
            spends.append(time.perf_counter() - start)
        assert ledger.charge() == ledger.cost(ledger.entries)  # the running totals are the sum from scratch
        rows.append(
            f"| {n:,} | {fmt(t_charge)} | {fmt(statistics.median(spends))} | {fmt(t_room)} | {fmt(t_table)} "
            f"| {fmt(t_scratch)} |"
        )
        print(rows[-1], flush=True)
    return rows


def cpu_reruns(page: str, ledger: BudgetLedger, reruns: int) -> float:
    """Median CPU seconds of ``at.run()`` on ``page`` with ``ledger`` as the session's ledger."""
    at = open_page(page)
    at.session_state[state.LEDGER] = ledger
    at.run()  # one untimed rerun: the page's caches are warm, as on a student's second click
    times = []
    for _ in range(reruns):
        start = time.process_time()
        at.run()
        times.append(time.process_time() - start)
        assert not at.exception, [e.value for e in at.exception]
    assert len(at.session_state[state.LEDGER].entries) == len(ledger.entries)
    return statistics.median(times)


def app_rows(reruns: int) -> tuple[list[str], bool]:
    rows, met = [], True
    full = app_ledger(state.LEDGER_MAX_ENTRIES)
    for page, words in PAGES.items():
        empty_t = cpu_reruns(page, app_ledger(0), reruns)
        full_t = cpu_reruns(page, full, reruns)
        ratio = full_t / empty_t
        met &= ratio <= TARGET
        rows.append(
            f"| {page} | {words} | {fmt(empty_t)} | {fmt(full_t)} | {ratio:.2f}× | ≤ {TARGET}× "
            f"| {'yes' if ratio <= TARGET else 'NO'} |"
        )
        print(rows[-1], flush=True)
    return rows, met


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reruns", type=int, default=7)
    args = parser.parse_args()
    cap = state.LEDGER_MAX_ENTRIES
    ledger_table_lines = [
        "| entries | `charge()` | one more spend | `max_count` | `ledger_table` | baseline: the cost from scratch |",
        "|---|---|---|---|---|---|",
        *ledger_rows(),
    ]
    rows, met = app_rows(args.reruns)
    app_table_lines = [
        f"| page | what it shows of the ledger | rerun CPU, empty ledger | rerun CPU, {cap:,} entries | ratio "
        "| target | met |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ]
    text = "\n".join(
        [
            "# The budget ledger: cost against its number of entries",
            "",
            "Written by `python -m benchmarks.bench_ledger`: Python "
            f"{sys.version.split()[0]}, numpy {np.__version__}, a 2-core shared machine. The ledger is the app's "
            "(ε = 5, δ = 1e-5, best accounting) holding a mix of Laplace, GRR, calibrated Gaussian and PureDP "
            "releases.",
            "",
            "Median wall time. `charge()` runs on every rerun (the sidebar), `max_count` on every rerun of the "
            "Accountant page (the room left), `ledger_table` there too (the table and its downloads). The "
            "baseline, `ledger.cost(ledger.entries)`, sums every accounting over every entry from scratch: what "
            "`charge()` and each spend computed before the ledger kept running totals.",
            "",
            *ledger_table_lines,
            "",
            f"The app's rerun, AppTest, CPU time (`time.process_time`) of `at.run()`, median of {args.reruns} "
            f"reruns after a warm one; the ledger put into the session state. The app's ledger holds at most "
            f"{cap:,} entries (`explorer.state.LEDGER_MAX_ENTRIES`).",
            "",
            *app_table_lines,
            "",
            f"Target met: {'yes' if met else 'NO'}.",
        ]
    )
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
    readme_figures.update()
