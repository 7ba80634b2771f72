"""Reading uploads and computing aggregates: the upload reader before and after DuckDB, pandas, DuckDB and Spark.

Run: python -m benchmarks.bench_data [--rows N] [--no-spark]   (writes benchmarks/results/data.md)

Every measurement runs in a fresh interpreter, so that its peak memory (the process's peak resident set during the
runs, reset before them through ``/proc/self/clear_refs``, minus the resident set then) is its own; times are the median of three runs in that process (one for the
10⁷-row rows). In one run of this script:

1. Reading: the census demo, UCI Adult (``../shared/data/adult.csv``, when present beside the repository; never
   copied into it), the 24 MB limit file of ``tests/upload_corpus.heavy_csv``, the same with every text cell quoted
   (the hand-written reader's slow path), gzip-compressed, and as Parquet, and the widest upload
   (``benchmarks.bench_attack.wide_csv``): ``load_csv`` now, the hand-written reader
   before DuckDB (the module at commit ``BEFORE``, read from git), and ``pandas.read_csv`` / ``read_parquet``.
2. Aggregates on a generated Parquet file of ``--rows`` rows (10⁷ by default: 10⁶ persons, 50 keys): the plan of a
   count, a clipped sum and a group-by with per-person contribution bounding, in DuckDB over the file (target:
   under 3 s and 1 GB on 2 cores) and in Spark local mode (``--no-spark`` to leave out).
3. Opening that file, and the same written as CSV, by path from a data folder (``explorer.dataset.load_path``): a
   seeded sample of ``SAMPLE_ROWS`` rows read where the file lies.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from benchmarks import readme_figures

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = pathlib.Path(__file__).with_name("results") / "data.md"
ADULT = ROOT.parent / "shared" / "data" / "adult.csv"
#: The last commit with the hand-written reader alone (before DuckDB).
BEFORE = "9a237d2"
#: The last commit before plain CSV went through DuckDB (pandas' C parser split it, DuckDB only quoted CSV).
PREVIOUS = "486df6c"

_PROBE = r"""
import json, statistics, sys, time
sys.path.insert(0, {root!r})
{setup}


def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024


open("/proc/self/clear_refs", "w").write("5")  # resets the peak resident set (VmHWM) to the current one
base = status("VmRSS")
times, cpus = [], []
for _ in range({repeat}):
    start, cpu = time.perf_counter(), time.process_time()
    out = run()
    times.append(time.perf_counter() - start)
    cpus.append(time.process_time() - cpu)
print(json.dumps({{"seconds": statistics.median(times), "cpu": statistics.median(cpus), "mib": status("VmHWM") - base,
                   "shape": str(out)}}))
"""


def _measure(setup: str, repeat: int = 3) -> dict:
    """Run ``setup`` (which defines ``run()``) in a fresh interpreter: median seconds, peak MiB over the imports."""
    code = _PROBE.format(root=str(ROOT), setup=setup, repeat=repeat)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=3600)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1][:120]}
    last = done.stdout[done.stdout.rindex('{"seconds"') :]  # after any progress bar drawn on the same line
    return json.loads(last.splitlines()[0])


def _cell(result: dict) -> str:
    if "error" in result:
        return "refused" if "DatasetError" in result["error"] else f"error: {result['error']}"
    return f"{result['seconds']:.2f} s (CPU {result['cpu']:.2f} s), {result['mib']:.0f} MiB"


def _files(work: pathlib.Path) -> dict[str, tuple[pathlib.Path, str]]:
    """label -> (path, pandas reader) of every file read."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_attack import wide_csv
    from tests.upload_corpus import heavy_csv

    heavy = heavy_csv()
    files = {"census demo (data/census.csv)": (ROOT / "data" / "census.csv", "csv")}
    if ADULT.exists():
        files["UCI Adult (../shared/data/adult.csv)"] = (ADULT, "csv")
    (work / "wide.csv").write_bytes(wide_csv())
    files["the widest upload (999 text columns and a target, 8,738 rows)"] = (work / "wide.csv", "csv")
    (work / "heavy.csv").write_bytes(heavy)
    files["24 MB limit file (10⁶ rows, 5 columns)"] = (work / "heavy.csv", "csv")
    lines = heavy.decode().rstrip("\n").split("\n")
    quoted = [lines[0]] + [
        ",".join(f'"{c}"' if c.startswith("g") else c for c in line.split(",")) for line in lines[1:]
    ]
    while sum(map(len, quoted)) + len(quoted) > 25 * 1024 * 1024:  # whole rows dropped to stay under the limit
        del quoted[-20_000:]
    (work / "quoted.csv").write_bytes(("\n".join(quoted) + "\n").encode())
    files["the same, text cells quoted"] = (work / "quoted.csv", "csv")
    (work / "heavy.csv.gz").write_bytes(gzip.compress(heavy, 6))
    files["the same, gzip-compressed"] = (work / "heavy.csv.gz", "csv")
    import duckdb

    duckdb.sql(f"COPY (SELECT * FROM read_csv('{work / 'heavy.csv'}')) TO '{work / 'heavy.parquet'}' (FORMAT parquet)")
    files["the same, Parquet"] = (work / "heavy.parquet", "parquet")
    return files


def reading(work: pathlib.Path) -> list[str]:
    before, previous = work / "reader_before.py", work / "reader_previous.py"
    for commit, path in ((BEFORE, before), (PREVIOUS, previous)):
        source = subprocess.run(
            ["git", "show", f"{commit}:explorer/csv_reader.py"], capture_output=True, text=True, cwd=ROOT, check=True
        ).stdout
        path.write_text(source)
    lines = [
        "| file | size | load_csv (DuckDB) | profile | reader before plain CSV in DuckDB | hand-written reader (before) "
        "| pandas (baseline) | now / before |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, (path, kind) in _files(work).items():
        now = _measure(
            f"from explorer import dataset\nraw = open({str(path)!r}, 'rb').read()\n"
            f"def run():\n    return dataset.load_csv(raw, {path.name!r}).frame.shape"
        )
        profile = _measure(
            f"from explorer import dataset, columns\nframe = dataset.load_csv(open({str(path)!r}, 'rb').read()).frame\n"
            "def run():\n    return columns.profile(frame).shape"
        )
        old, prev = (
            _measure(
                f"import importlib.util\nspec = importlib.util.spec_from_file_location('before', {str(module)!r})\n"
                "before = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(before)\n"
                f"raw = open({str(path)!r}, 'rb').read()\n"
                "def run():\n    return before.read_csv(raw)[0].shape"
            )
            for module in (before, previous)
        )
        reader = "pd.read_parquet(path)" if kind == "parquet" else "pd.read_csv(path)"
        base = _measure(f"import pandas as pd\npath = {str(path)!r}\ndef run():\n    return {reader}.shape")
        ratio = f"{now['seconds'] / old['seconds']:.2f}×" if "error" not in now and "error" not in old else "—"
        lines.append(
            f"| {label} | {path.stat().st_size / 1e6:.1f} MB | {_cell(now)} | {_cell(profile)} | {_cell(prev)} | "
            f"{_cell(old)} | "
            f"{_cell(base)} | {ratio} |"
        )
    return lines


_PLAN = """
from dpcore.contributions import ContributionBounds
from explorer.engine import aggregates as agg
bounds = ContributionBounds(max_groups=5, max_rows_per_group=2, max_rows=10)
keys = [f"k{{i}}" for i in range(50)]
plan = [
    agg.count(person="pid", bounds=bounds, seed=1),
    agg.clipped_sum("value", 0.0, 100.0, person="pid", bounds=bounds, seed=1),
    agg.group_by("key", keys, "value", 0.0, 100.0, person="pid", bounds=bounds, seed=1),
]
path = {path!r}
"""


def aggregates(work: pathlib.Path, rows: int, spark: bool) -> list[str]:
    import duckdb

    path = work / "big.parquet"
    duckdb.sql(
        f"COPY (SELECT CAST(hash(i) % {max(rows // 10, 1)} AS BIGINT) AS pid, 'k' || (hash(i * 7) % 50) AS key, "
        f"(hash(i * 13) % 10000) / 100.0 AS value FROM range({rows}) t(i)) TO '{path}' (FORMAT parquet)"
    )
    lines = [
        "| plan on a Parquet file | rows | engine | time, peak memory | target |",
        "|---|---|---|---|---|",
    ]
    setup = _PLAN.format(path=str(path))
    duck = _measure(
        setup + "from explorer.engine import duckdb_engine\n"
        "def run():\n    return [len(r) for r in duckdb_engine.aggregate_plan(plan, path)]",
        repeat=1,
    )
    label = "count, clipped sum and a 50-key group-by, per-person bounding (m = 10; L₀ = 5, L∞ = 2)"
    lines.append(f"| {label} | {rows:,} | DuckDB | {_cell(duck)} | under 3 s and 1 GB at 10⁷ rows |")
    if spark:
        spk = _measure(
            setup + "from explorer.engine import spark_engine\nsession = spark_engine.local_session()\n"
            "session.sparkContext.setLogLevel('ERROR')\n"
            "def run():\n    return [len(r) for r in spark_engine.aggregate_plan(plan, path, session)]",
            repeat=1,
        )
        lines.append(f"| the same plan | {rows:,} | Spark local[2] | {_cell(spk)} (driver process only) | |")
    return lines


def by_path(work: pathlib.Path) -> list[str]:
    """Opening the generated Parquet file (and the same as CSV) by path from a data folder: a seeded sample of
    ``dataset.SAMPLE_ROWS`` rows read by DuckDB where the file lies (``explorer.dataset.load_path``)."""
    import duckdb

    duckdb.sql(f"COPY (SELECT * FROM '{work / 'big.parquet'}') TO '{work / 'big.csv'}' (HEADER, DELIMITER ',')")
    lines = [
        "| file opened by path (data folder) | size | rows used of the file's | load_path: time, peak memory |",
        "|---|---|---|---|",
    ]
    for name in ("big.parquet", "big.csv"):
        result = _measure(
            f"from explorer import dataset\nimport pathlib\nfolder = pathlib.Path({str(work)!r})\n"
            f"def run():\n    ds = dataset.load_path(folder, {name!r}, seed=2017)\n"
            "    return f'{ds.n_rows:,} of {ds.total_rows:,}'",
            repeat=1,
        )
        used = result.get("shape", "—")
        lines.append(f"| {name} | {(work / name).stat().st_size / 1e6:.0f} MB | {used} | {_cell(result)} |")
    return lines


def main(rows: int = 10_000_000, spark: bool = True) -> None:
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        read = reading(work)
        print("\n".join(read), flush=True)
        plan = aggregates(work, rows, spark)
        print("\n".join(plan), flush=True)
        opened = by_path(work)
    text = "\n".join(read) + "\n\n" + "\n".join(plan) + "\n\n" + "\n".join(opened)
    print("\n".join(opened))
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Uploads and aggregates: measured speed and memory\n\n"
        "Written by `python -m benchmarks.bench_data`; each cell in a fresh interpreter: the median time (and CPU time, "
        "every thread of the process) of 3 runs "
        "(1 for the plan) and the peak resident memory during the runs over the resident memory before them. The hand-written "
        f"reader is the module at commit {BEFORE}, before DuckDB. The machine is a shared 2-core box, so compare "
        f"cells of one run (load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end).\n\n"
        + text
        + "\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--no-spark", action="store_true")
    arguments = parser.parse_args()
    main(arguments.rows, not arguments.no_spark)
    readme_figures.update()
