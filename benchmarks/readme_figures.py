"""The README's speed figures: chosen rows of ``benchmarks/results/*.md``, copied between two markers.

Run: python -m benchmarks.readme_figures   (every ``bench_<name>`` also calls :func:`update` after writing
its results, so the README shows the figures of the last run and never a number typed by hand).
"""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RESULTS = ROOT / "benchmarks" / "results"
START = "<!-- speed figures: written by python -m benchmarks.readme_figures from benchmarks/results -->"
END = "<!-- end of speed figures -->"

#: results file -> the rows the README shows, each named by the start of the row (its first cells).
HEADLINES: dict[str, tuple[str, ...]] = {
    "ldp.md": ("OUE perturb", "`LDPMean.simulate`, normal path"),
    "central.md": ("10^4 trials of a 100-bin", "AboveThreshold over 10^5"),
    "publish.md": ("100-bin histogram, Laplace", "100-bin histogram, Gaussian |", "100-bin histogram, Gaussian, fresh"),
    "accounting.md": ("Gaussian σ=5, k=1..10⁴, rdp + zcdp + exact", "Laplace ε₀=0.1 PLD"),
    "ledger.md": ("2,000 |", "accountant |"),
    "dpsgd.md": ("PLD ε against T, σ=1,", "PLD ε against T, σ=4,", "RDP ε against T", "4 | 0.01 | 10000"),
    "quantiles.md": (
        "dpcore `dp_quantile` (intervals) | 32,561 ages (all) | 0.5 | 1.0",
        "OpenDP `make_private_quantile`, whole years | 32,561 ages (all) | 0.5 | 1.0",
        "dpcore `publish_quantile` (secure, grid 2⁻¹³) | 200 ages (seeded sample) | 0.5 | 0.1",
        "OpenDP `make_private_quantile`, whole years | 200 ages (seeded sample) | 0.5 | 0.1",
    ),
    "dpsgd_planner.md": ("DP-SGD planner, PLD calibration", "DP-SGD planner, RDP calibration"),
    "learning.md": (
        "majority class",
        "noisy gradient descent, gradient clipping C = 2",
        "DP-SGD, σ = 1.1",
        "DP-FedAvg, 500 random",
        "DP-SGD, 300 steps, batch 256, 1 draw",
    ),
    "audit.md": ("`audit('laplace_count'", "per-trial Python loop", "textbook | 1 |", "lattice | 1 |"),
    "data.md": ("census demo", "UCI Adult"),
    "app.md": ("local |", "accountant |", "learning, every ε new", "learning · DP-SGD"),
    "browser.md": ("First chart page", "The same page, warm", "A new session landing"),
    "load.md": ("8 people walking",),
    "memory.md": (
        "baseline (after every page ran once)",
        "peak while the sessions ran",
        "120 s after the last session",
    ),
    "heavy.md": (
        "data |",
        "local | Mean of a number",
        "compare | Mean of a number",
        "learning | NGD · Gradient or example clipping",
        "learning | DP-SGD · Training run",
    ),
    "attack.md": (
        "audit | 10⁷ runs of the lattice Gaussian",
        "learning | DP-SGD frontier",
        "learning | FedAvg frontier",
        "data | the widest upload, read",
        "data | the largest upload, read",
    ),
    "contributions.md": (
        "contribution bounding, 10⁶ rows, m = 10 rows per person",
        "group-by with partition selection, counts",
    ),
    "engine.md": ("DuckDB: 50-key group-by with bounding", "DuckDB: the plan (5 statistics"),
}


def _tables(text: str) -> list[tuple[str, list[str]]]:
    """Each markdown table of ``text``: its header (two lines) and its rows."""
    tables, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s|:-]+\|$", lines[i + 1]):
            rows, j = [], i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append(lines[j])
                j += 1
            tables.append((lines[i] + "\n" + lines[i + 1], rows))
            i = j
        else:
            i += 1
    return tables


def section() -> str:
    """The README's speed figures, built from the results files as they are now."""
    parts = []
    for name, wanted in HEADLINES.items():
        path = RESULTS / name
        if not path.exists():
            parts.append(f"- `benchmarks/results/{name}`: not measured yet.")
            continue
        text = path.read_text(encoding="utf-8")
        title = text.splitlines()[0].lstrip("# ").strip()
        chosen: dict[str, list[str]] = {}
        for prefix in wanted:
            found = [(h, r) for h, rows in _tables(text) for r in rows if r.startswith("| " + prefix)]
            if not found:
                raise LookupError(f"no row starting {prefix!r} in benchmarks/results/{name}")
            header, row = found[0]
            chosen.setdefault(header, []).append(row)
        parts.append(f"**{title}** ([all figures](benchmarks/results/{name}))\n")
        parts.extend(header + "\n" + "\n".join(rows) + "\n" for header, rows in chosen.items())
    return "\n".join(parts)


def update(readme: pathlib.Path = README) -> None:
    """Rewrite the README's speed figures from the results files."""
    text = readme.read_text(encoding="utf-8")
    before, start, rest = text.partition(START)
    _, end, after = rest.partition(END)
    if not start or not end:
        raise LookupError(f"{readme.name} has no speed-figure markers")
    readme.write_text(before + START + "\n\n" + section() + "\n" + END + after, encoding="utf-8")


if __name__ == "__main__":
    update()
