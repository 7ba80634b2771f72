"""Speed of loading and profiling an upload, against plain pandas.read_csv in the same run.

Run: python -m benchmarks.bench_data   (prints a table, writes benchmarks/results/data.md)
Uses the census demo and, when present beside the repository, ../shared/data/adult.csv.
"""

from __future__ import annotations

import io
import pathlib

import pandas as pd

from benchmarks import readme_figures
from benchmarks.timing import median_of
from explorer import columns, dataset

ROOT = pathlib.Path(__file__).resolve().parents[1]

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
        ds = dataset.load_csv(raw, path.name)
        load = median_of(lambda: dataset.load_csv(raw, path.name))
        prof = median_of(lambda: columns.profile(ds.frame))
        base = median_of(lambda: pd.read_csv(io.BytesIO(raw)))
        lines.append(
            f"| {label} | {len(raw) / 1e6:.1f} MB | {load * 1000:.0f} ms | {prof * 1000:.0f} ms | "
            f"{base * 1000:.0f} ms | {load / base:.1f}× | load + profile ≪ 1 s |"
        )
    table = "\n".join(lines)
    print(table)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Upload loading: measured speed\n\nWritten by `python -m benchmarks.bench_data`; median of 5 runs. "
        "The loader does more than read_csv (encoding and delimiter detection, ragged rows, NA spellings, "
        "decimal commas), so the ratio is the price of that robustness.\n\n" + table + "\n"
    )


if __name__ == "__main__":
    main()
    readme_figures.update()
