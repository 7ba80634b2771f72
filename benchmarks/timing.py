"""Wall-clock timing shared by the benchmarks (run on demand, never in the tests)."""

from __future__ import annotations

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
