"""Wall-clock timing shared by the benchmarks (run on demand, never in the tests)."""

from __future__ import annotations

import pathlib
import statistics
import time


def wall_times(fn, repeat: int, warm_up: bool = False) -> list[float]:
    """Seconds taken by each of ``repeat`` calls of ``fn`` (after one untimed call if ``warm_up``)."""
    if warm_up:
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def best_of(fn, repeat: int = 3) -> float:
    """Smallest wall time of ``repeat`` calls: the run least disturbed by a shared machine."""
    return min(wall_times(fn, repeat))


def median_of(fn, repeat: int = 5, warm_up: bool = False) -> float:
    """Median wall time of ``repeat`` calls."""
    return statistics.median(wall_times(fn, repeat, warm_up))


def kept_rows(results: pathlib.Path, names) -> dict[str, str]:
    """The rows of an earlier run's table in ``results`` for the rows named ``names`` (``"page · view"``, a view of
    none written ``—``), so that ``--only`` measures some rows again and keeps the others."""
    if not results.exists():
        return {}
    rows = [line for line in results.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]
    found = {}
    for name in names:
        page, _, view = name.partition(" · ")
        for line in rows:
            if line.startswith(f"| {page} | {view or '—'} |"):
                found[name] = line
    return found
