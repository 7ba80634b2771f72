"""DP quantiles: dpcore's exponential mechanism over the intervals against OpenDP's over candidates, on UCI Adult's age.

Run: python -m benchmarks.bench_quantiles [path/to/adult.csv] [--tumult-python PATH]   (prints the table, writes
benchmarks/results/quantiles.md, then the README's figures). The data file is read where it lies (by default
``/work/shared/data/adult.csv``, or ``$DPX_ADULT_CSV``), never copied into the repository; without it the benchmark
says so and writes nothing.

Both sides release the q-quantile of the 32,561 ages at the same ε, under the same relation (add/remove one
record: OpenDP's symmetric distance, d_in = 1) over the same declared range [0, 100]:

* **dpcore**: :func:`dpcore.dp_quantile` (Smith 2011's intervals; the output is any real in the range) seeded, and
  :func:`dpcore.publish.publish_quantile` (secure, rounded to a grid of 2⁻¹³);
* **OpenDP** (``opendp`` 0.16, ``make_private_quantile``: candidates scored by ``make_quantile_score_candidates``,
  then noisy max, its scale found by ``binary_search_param`` so that ``map(1) ≤ ε``) over the whole years 0..100
  and over the tenths 0.0..100.0;
* **Tumult Analytics** (``tmlt.analytics``, its ``QueryBuilder.quantile``), when ``--tumult-python PATH`` (or
  ``$DPX_TUMULT_PYTHON``) names the interpreter of an environment where it is installed: it pins its own PySpark
  and pandas, so it runs apart, through :mod:`benchmarks.peer_tumult_quantiles`.

Every case runs on all ages and on a seeded sample of 200 of them, where the noise, not the ties, sets the error.

Time per release: the median wall time of 30 calls after a warm one, data passed as each library takes it (a
numpy array for dpcore, a Python list for OpenDP, whose conversion is part of its call). Error: the median and the
95th percentile of |release − true quantile| over 1,000 releases (the true quantile: numpy's
``averaged_inverted_cdf``, the usual median). Ages are whole years: a release of OpenDP on the whole-year candidates
can hit the true median exactly, while dpcore's lies between two ages (the interval (36, 37) or (37, 38)); that is
the price of outputs that need no candidate list, and rounding dpcore's to whole years is post-processing. The
notes under the table say what the numbers show.
"""

from __future__ import annotations

import os
import pathlib
import sys

import numpy as np
import pandas as pd

from benchmarks import readme_figures
from benchmarks.timing import median_of
from dpcore import ExponentialQuantile, dp_quantile, publish

RESULTS = pathlib.Path(__file__).with_name("results") / "quantiles.md"
DEFAULT_CSV = pathlib.Path(os.environ.get("DPX_ADULT_CSV", "/work/shared/data/adult.csv"))
LOWER, UPPER = 0.0, 100.0
RELEASES = 1_000
REPEAT = 30
#: (data, q, ε): "adult" is every age; "sample" a seeded draw of SAMPLE of them, where ε visibly moves the error.
CASES = (("adult", 0.5, 1.0), ("adult", 0.5, 0.1), ("adult", 0.9, 1.0), ("sample", 0.5, 1.0), ("sample", 0.5, 0.1))
SAMPLE = 200
#: Releases per case for Tumult Analytics, whose every release is a Spark job of seconds.
TUMULT_RELEASES = 20
PEER = pathlib.Path(__file__).with_name("peer_tumult_quantiles.py")
#: What the table shows (written after reading a run's table; rerun and reread when the mechanisms change).
NOTES = (
    "On all ages (whole years, about 900 people per year near the median) every mechanism finds the right place at "
    "every ε (the noise moves the rank by tens, a year holds hundreds), and what is left is how each treats ties. "
    "OpenDP scores a candidate c by the values below and above it, leaving out those equal to c, so it can return "
    "a tied value itself: the median 37 exactly, on whole years or tenths. dpcore's intervals (and Tumult's) return "
    "a point between two ages, uniform in a one-year interval next to the quantile (median error about half a "
    "year). At q = 0.9 OpenDP's score, weighing the values below by 0.1 and above by 0.9, prefers 57 to the true "
    "58 on every release (whole years), or lands half a year off on tenths. On the sample of 200 ε matters: at "
    "ε = 1 every mechanism still lands within about a year, at ε = 0.1 the median error grows to 1–2 years and the "
    "95th percentile to 6–7.5 years for all three libraries alike (Tumult's percentiles rest on 20 releases). "
    "Tumult answers in about a second or two per release because each is a Spark job; dpcore's time includes "
    "sorting the column; OpenDP's includes reading a Python list; all vary with the machine's load.\n"
)


def read_ages(path: pathlib.Path) -> np.ndarray | None:
    """The age column of UCI Adult (its header says ``Age`` or ``age``), or None when the file is absent."""
    if not path.exists():
        return None
    frame = pd.read_csv(path, skipinitialspace=True)
    column = next(c for c in frame.columns if c.strip().lower() == "age")
    return frame[column].to_numpy(dtype=np.float64)


def fmt_time(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.1f} ms"


def errors_row(name: str, data: str, q: float, eps: float, seconds: float, released: np.ndarray, truth: float) -> tuple:
    err = np.abs(np.asarray(released, dtype=np.float64) - truth)
    return (name, data, q, eps, fmt_time(seconds), f"{np.median(err):.3g}", f"{np.quantile(err, 0.95):.3g}")


def opendp_quantile(q: float, eps: float, candidates: list[float]):
    """OpenDP's private quantile over ``candidates`` at ε, under the symmetric distance (add/remove one record)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()

    def make(scale):
        return dp.m.make_private_quantile(*space, dp.max_divergence(), candidates=candidates, alpha=q, scale=scale)

    measurement = make(dp.binary_search_param(make, d_in=1, d_out=eps))
    assert measurement.map(1) <= eps  # the same ε as dpcore's
    return measurement


def tumult_releases(python: str, values: dict) -> dict | None:
    """Tumult Analytics' releases for every case (:mod:`benchmarks.peer_tumult_quantiles`, run by ``python``, the
    interpreter of an environment where ``tmlt.analytics`` is installed), or None when it cannot run."""
    import json
    import subprocess
    import tempfile

    job = {
        "cases": [{"data": d, "q": q, "eps": eps} for d, q, eps in CASES],
        "values": {name: v.tolist() for name, v in values.items()},
        "releases": TUMULT_RELEASES,
        "low": LOWER,
        "high": UPPER,
    }
    try:
        done = subprocess.run(
            [python, str(PEER)],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=3600,
            check=True,
            cwd=tempfile.gettempdir(),  # Spark leaves a spark-warehouse folder where it runs
        )
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"Tumult Analytics did not run ({exc}); its rows are left out.")
        return None
    return json.loads(done.stdout)


def main(argv: list[str]) -> None:
    tumult_python = os.environ.get("DPX_TUMULT_PYTHON")
    if "--tumult-python" in argv:
        i = argv.index("--tumult-python")
        tumult_python, argv = argv[i + 1], argv[:i] + argv[i + 2 :]
    path = pathlib.Path(argv[0]) if argv else DEFAULT_CSV
    ages = read_ages(path)
    if ages is None:
        print(f"UCI Adult not found at {path}: nothing measured (give its path as the first argument).")
        return
    try:
        import opendp  # noqa: F401
    except ImportError:
        print("OpenDP is not installed (pip install opendp): nothing measured.")
        return
    rows = []
    data = {"adult": ages, "sample": np.random.default_rng(2017).choice(ages, SAMPLE, replace=False)}
    peer = tumult_releases(tumult_python, data) if tumult_python else None
    for case, (name, q, eps) in enumerate(CASES):
        ages = data[name]
        listed = ages.tolist()
        shown = f"{ages.size:,} ages" + (" (all)" if name == "adult" else " (seeded sample)")
        truth = float(np.quantile(ages, q, method="averaged_inverted_cdf"))
        rng = np.random.default_rng(2017)
        t = median_of(lambda: dp_quantile(ages, q, LOWER, UPPER, eps, rng), REPEAT, warm_up=True)
        law = ExponentialQuantile(eps, LOWER, UPPER, q).intervals(ages)
        rows.append(
            errors_row("dpcore `dp_quantile` (intervals)", shown, q, eps, t, law.simulate(rng, RELEASES), truth)
        )
        t = median_of(lambda: publish.publish_quantile(ages, q, LOWER, UPPER, eps), REPEAT, warm_up=True)
        published = [publish.publish_quantile(ages, q, LOWER, UPPER, eps).value for _ in range(RELEASES)]
        rows.append(errors_row("dpcore `publish_quantile` (secure, grid 2⁻¹³)", shown, q, eps, t, published, truth))
        for label, candidates in (
            ("whole years", [float(c) for c in range(101)]),
            ("tenths", [c / 10 for c in range(1001)]),
        ):
            measurement = opendp_quantile(q, eps, candidates)
            t = median_of(lambda m=measurement: m(listed), REPEAT, warm_up=True)
            released = [measurement(listed) for _ in range(RELEASES)]
            rows.append(errors_row(f"OpenDP `make_private_quantile`, {label}", shown, q, eps, t, released, truth))
        if peer is not None:
            got = peer["results"][case]
            label = f"Tumult Analytics {peer['version']} `quantile` ({TUMULT_RELEASES} releases)"
            rows.append(errors_row(label, shown, q, eps, got["seconds"], got["released"], truth))
        print(f"{name}, q = {q}, ε = {eps}: done", flush=True)
    header = (
        "| release | data | q | ε | time per release | median abs error | 95th pct abs error |\n"
        "|---|---|---|---|---|---|---|"
    )
    table = header + "\n" + "\n".join("| " + " | ".join(str(c) for c in row) + " |" for row in rows)
    peer_words = (
        f"Tumult Analytics {peer['version']} ran in its own environment ({TUMULT_RELEASES} releases a case: each is a "
        "Spark job; its time includes the job)."
        if peer is not None
        else "Tumult Analytics was not run (give `--tumult-python` the interpreter of an environment where "
        "`tmlt.analytics` is installed)."
    )
    text = (
        "# DP quantiles: dpcore against OpenDP and Tumult Analytics on UCI Adult's age\n\n"
        f"UCI Adult's {data['adult'].size:,} ages, and a seeded sample of {SAMPLE} of them (where ε visibly moves the "
        f"error), declared range [{LOWER:g}, {UPPER:g}], add/remove one record on every side; errors over "
        f"{RELEASES:,} releases against the true quantile (numpy's averaged inverted CDF); time: the median of "
        f"{REPEAT} calls. {peer_words} Written by `python -m benchmarks.bench_quantiles`.\n\n" + table + "\n\n" + NOTES
    )
    print(text)
    RESULTS.write_text(text, encoding="utf-8")
    readme_figures.update()


if __name__ == "__main__":
    main(sys.argv[1:])
