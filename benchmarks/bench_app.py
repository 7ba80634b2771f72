"""Rerun latency of every page after a slider move, measured with AppTest.

Run: python -m benchmarks.bench_app [--reruns N]
Prints a table and writes benchmarks/results/app.md. Target: median under 300 ms
on the 32,561-row census demo with 1,000 simulated trials (the sidebar default).
The baseline is the same page's rerun with nothing changed, measured in the same
run: the difference is what a slider move costs beyond Streamlit's own overhead.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import time

from benchmarks import readme_figures
from tests.apptest import open_page

ROOT = pathlib.Path(__file__).resolve().parents[1]

RESULTS = pathlib.Path(__file__).with_name("results") / "app.md"

#: page -> (widget kind, key, values the slider cycles through)
MOVES = {
    "home": None,
    "data": None,
    "local": ("select_slider", "ldp_epsilon", [0.5, 1.0, 2.0, 4.0]),
    "central": ("select_slider", "cen_epsilon", [0.5, 1.0, 2.0, 4.0]),
    "svt": ("select_slider", "svt_epsilon", [0.5, 1.0, 2.0, 4.0]),
    "accountant": ("select_slider", "acc_epsilon", [0.5, 1.0, 2.0, 4.0]),
    "compare": ("select_slider", "cmp_epsilon", [0.5, 1.0, 2.0, 4.0]),
    # every move a claim not audited before: a fresh audit and curve of 10^5 runs per input, no cache hit
    "audit": (
        "number_input",
        "aud_laplace_count_epsilon",
        [0.5, 0.6, 0.7, 0.8, 0.9, 1.1, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0],
    ),
    "learning": ("select_slider", "lrn_ngd_epsilon", [0.02, 0.03, 0.05, 0.1]),
    # the Learning page trains models: rows where every move is to a value not seen before (nothing cached)
    "learning, every ε new": (
        "select_slider",
        "lrn_ngd_epsilon",
        [0.01, 0.04, 0.06, 0.08, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6],
    ),
    "learning · DP-SGD, every ε new": (
        "select_slider",
        "lrn_sgd_epsilon",
        [0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1.25, 1.5, 2.0, 2.5, 3.0],
    ),
    "learning · FedAvg, every σ new": (
        "number_input",
        "lrn_fed_sigma",
        [0.6, 0.7, 0.8, 0.9, 1.1, 1.2, 1.3, 1.4, 1.6, 1.7, 1.8, 1.9],
    ),
}
#: rows measured on a view a link names: row -> (page, query parameters)
LINKS = {
    "learning, every ε new": ("learning", {}),
    "learning · DP-SGD, every ε new": ("learning", {"lrn_view": "DP-SGD", "lrn_sgd_part": "Training run"}),
    "learning · FedAvg, every σ new": ("learning", {"lrn_view": "Federated averaging"}),
}
#: the rerun target of a row, when it is not the common one
TARGETS = {"audit": "< 1 s", **{row: "< 500 ms" for row in MOVES if row.startswith("learning")}}


def time_reruns(page: str, reruns: int) -> tuple[list[float], list[float]]:
    name, query = LINKS.get(page, (page, {}))
    at = open_page(name, **query)
    idle, moved = [], []
    for i in range(reruns):
        start = time.perf_counter()
        at.run()
        idle.append(time.perf_counter() - start)
        move = MOVES[page]
        if move is None:
            continue
        kind, key, values = move
        getattr(at, kind)(key=key).set_value(values[i % len(values)])
        start = time.perf_counter()
        at.run()
        moved.append(time.perf_counter() - start)
        assert not at.exception, (page, [e.value for e in at.exception])
    return idle, moved


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reruns", type=int, default=12)
    args = parser.parse_args()
    lines = [
        "| page | slider moved | median rerun after the move | p90 | median rerun, nothing changed | target |",
        "|---|---|---|---|---|---|",
    ]
    for page, move in MOVES.items():
        idle, moved = time_reruns(page, args.reruns)
        med_idle = statistics.median(idle) * 1000
        if moved:
            ms = sorted(t * 1000 for t in moved)
            p90 = ms[int(0.9 * (len(ms) - 1))]
            lines.append(
                f"| {page} | `{move[1]}` | {statistics.median(ms):.0f} ms | {p90:.0f} ms | {med_idle:.0f} ms "
                f"| {TARGETS.get(page, '< 300 ms')} |"
            )
        else:
            lines.append(f"| {page} | — | — | — | {med_idle:.0f} ms | < 300 ms |")
        print(lines[-1], flush=True)
    table = "\n".join(lines)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Page reruns: measured latency\n\nWritten by `python -m benchmarks.bench_app`: AppTest, census demo "
        f"(32,561 rows), 1,000 trials, {args.reruns} reruns per page, 2-core shared machine.\n\n" + table + "\n"
    )
    print(table)


if __name__ == "__main__":
    main()
    readme_figures.update()
