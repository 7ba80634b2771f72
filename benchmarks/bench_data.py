"""Speed of loading and profiling an upload, against plain pandas.read_csv in the same run.

Run: python benchmarks/bench_data.py   (prints a table, writes benchmarks/results/data.md)
Uses the census demo and, when present beside the repository, ../shared/data/adult.csv.
"""

from __future__ import annotations

import io
import pathlib
import sys

import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from timing import median_of  # noqa: E402

from dpcore import data  # noqa: E402

RESULTS = pathlib.Path(__file__).with_name("results") / "data.md"
FILES = {
    "census demo (data/census.csv)": ROOT / "data" / "census.csv",
    "UCI Adult (../shared/data/adult.csv)": ROOT.parent / "shared" / "data" / "adult.csv",
}


def main() -> None:
    lines = [
        "| file | size | load_csv | profile | pandas.read_csv (baseline) | load / baseline | target |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, path in FILES.items():
        if not path.exists():
            continue
        raw = path.read_bytes()
        ds = data.load_csv(raw, path.name)
        load = median_of(lambda: data.load_csv(raw, path.name))
        prof = median_of(lambda: data.profile(ds.frame))
        base = median_of(lambda: pd.read_csv(io.BytesIO(raw)))
        lines.append(
            f"| {label} | {len(raw) / 1e6:.1f} MB | {load * 1000:.0f} ms | {prof * 1000:.0f} ms | "
            f"{base * 1000:.0f} ms | {load / base:.1f}× | load + profile ≪ 1 s |"
        )
    table = "\n".join(lines)
    print(table)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Upload loading: measured speed\n\nWritten by `python benchmarks/bench_data.py`; median of 5 runs. "
        "The loader does more than read_csv (encoding and delimiter detection, ragged rows, NA spellings, "
        "decimal commas), so the ratio is the price of that robustness.\n\n" + table + "\n"
    )


if __name__ == "__main__":
    main()
