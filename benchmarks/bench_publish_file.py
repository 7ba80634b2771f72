"""The command line publishing a plan from a file by path: ``python -m dpx_publish publish plan.json FILE`` on a
10⁷-row Parquet file (and the same rows as CSV), timed as a user runs it.

Run: python -m benchmarks.bench_publish_file [--rows N] [--no-csv]   (writes benchmarks/results/publish_file.md)

The files are generated into a temporary folder (removed after) as in :mod:`benchmarks.bench_engine`: ``--rows``
rows (10⁷ by default), persons numbered by a 64-bit integer with 10 rows each on average, 50 keys, values in
[0, 100). The plan is bench_engine's (a count with m = 10, a clipped sum, a mean, a 50-key group-by sum and category
counts, every statistic bounded per person: L₀ = 5 keys, L∞ = 2 rows per key). Each run is a fresh process (the
command line, as a user types it), measured by ``os.wait4``: wall time, CPU time (user + system, every thread) and
peak resident memory (the process's whole, Python and DuckDB included). The machine is a shared 2-core box: each row
gives the load average (1 min) before and after it.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = pathlib.Path(__file__).with_name("results") / "publish_file.md"
KEYS = [f"k{i}" for i in range(50)]
PLAN = {
    "version": 1,
    "title": "bench_publish_file",
    "unit": {"identifier": "pid", "max_groups": 5, "max_rows_per_group": 2, "max_rows": 10},
    "total": {"epsilon": 1.0, "delta": 0},
    "statistics": [
        {"name": "rows", "kind": "count"},
        {"name": "total", "kind": "sum", "column": "value", "lower": 0, "upper": 100},
        {"name": "mean", "kind": "mean", "column": "value", "lower": 0, "upper": 100, "planned_n": 1_000_000},
        {
            "name": "total per key",
            "kind": "sum",
            "column": "value",
            "lower": 0,
            "upper": 100,
            "by": "key",
            "keys": KEYS,
        },
        {"name": "rows per key", "kind": "counts", "column": "key", "domain": KEYS},
    ],
}


def _generate(folder: pathlib.Path, rows: int, csv: bool) -> list[pathlib.Path]:
    import duckdb

    con = duckdb.connect(config={"threads": 2, "memory_limit": "1GB"})
    con.execute("SET enable_progress_bar = false")
    persons = max(rows // 10, 1)
    select = (
        f"SELECT CAST(hash(i) % {persons} AS BIGINT) AS pid, 'k' || (hash(i * 7) % 50) AS key, "
        f"(hash(i * 13) % 10000) / 100.0 AS value FROM range({rows}) t(i)"
    )
    paths = [folder / "table.parquet"]
    con.execute(f"COPY ({select}) TO '{paths[0]}' (FORMAT parquet)")
    if csv:
        paths.append(folder / "table.csv")
        con.execute(f"COPY (SELECT * FROM read_parquet('{paths[0]}')) TO '{paths[1]}' (HEADER, DELIMITER ',')")
    con.close()
    return paths


def _run(plan: pathlib.Path, data: pathlib.Path, folder: pathlib.Path) -> dict:
    load = os.getloadavg()[0]
    cmd = [sys.executable, "-m", "dpx_publish", "publish", str(plan), str(data)]
    cmd += ["--out", str(folder / f"{data.stem}.zip"), "--log", str(folder / "log.db")]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        return {"error": err.strip()}
    return {
        "seconds": seconds,
        "cpu": usage.ru_utime + usage.ru_stime,
        "mib": usage.ru_maxrss / 1024,
        "load": (load, os.getloadavg()[0]),
    }


def main(rows: int, csv: bool) -> None:
    lines = [
        "| file | rows | size | wall time | CPU time | peak memory | load average (before → after) |",
        "|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-publish-file-") as name:
        folder = pathlib.Path(name)
        plan = folder / "plan.json"
        plan.write_text(json.dumps(PLAN))
        for data in _generate(folder, rows, csv):
            result = _run(plan, data, folder)
            size = f"{data.stat().st_size / 2**20:.0f} MiB"
            if "error" in result:
                lines.append(f"| {data.suffix[1:]} | {rows:,} | {size} | {result['error']} | | | |")
            else:
                lines.append(
                    f"| {data.suffix[1:]} | {rows:,} | {size} | {result['seconds']:.1f} s | {result['cpu']:.1f} s | "
                    f"{result['mib']:.0f} MiB | {result['load'][0]:.1f} → {result['load'][1]:.1f} |"
                )
            print(lines[-1], flush=True)
    RESULTS.write_text(
        "# The command line publishing a 5-statistic plan from a file by path\n\n"
        "`python -m dpx_publish publish plan.json FILE` in a fresh process (benchmarks/bench_publish_file.py): the "
        "file opened where it lies, the plan's columns read by the app's cell rules, DuckDB's aggregates with "
        "per-person bounding, the log charged and the package written. Peak memory is the whole process's.\n\n"
        + "\n".join(lines)
        + "\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--no-csv", action="store_true")
    args = parser.parse_args()
    main(args.rows, not args.no_csv)
