"""Every page and view on the heaviest upload the Data page accepts: first run, rerun after a move, CPU, memory.

Run: python -m benchmarks.bench_heavy [--firsts N] [--moves N] [--only NAME ...] [--by-path [--rows N]]
Prints a table and writes benchmarks/results/heavy.md (``--by-path``: heavy_path.md). Takes about half an hour.

Issue 13 asks that the app stay responsive on the largest upload it accepts. The data:
:func:`tests.upload_corpus.heavy_csv`, :data:`explorer.dataset.MAX_ROWS` (1,000,000) rows under the
25 MB limit (``MAX_UPLOAD_BYTES``, ``server.maxUploadSize`` in ``.streamlit/config.toml``), two columns of
all-distinct floats, a text column of 50 categories (the oracles' and the features' limit), a whole-number
column and a 0/1 target. It is uploaded through the Data page's file widget in AppTest, as the tests do,
and the sidebar's simulated trials are at their largest, 10,000 (``explorer.widgets.TRIAL_CHOICES``).

Each view (every page of ``tests/apptest.py``, and every tab, query or part a link can name) is measured
in a fresh Python process, so that one view's memory does not lie under the next:

* **first run**: a new session uploads the file, opens the view by its link and runs it, with every
  cache the sessions share emptied (``explorer.cache.clear``; the parsed upload lives with its session, never
  in a shared cache: a visitor's first look; the Data page's first run is the upload itself, parsed anew each time);
* **rerun after a move**: the view's main slider (ε, or the seed where there is none) set to a value
  not seen before in the session, so no cache answers it;
* **CPU**: ``time.process_time`` over the run (every thread: Streamlit runs the script in one);
* **peak MB**: the larger of ``tracemalloc``'s peak (Python and numpy allocations, in one extra traced
  first run and one extra traced move, since tracing slows the run) and the rise of the peak resident
  memory over the resident memory before the run (``resource.getrusage`` ``ru_maxrss``, the high-water
  mark reset through ``/proc/self/clear_refs`` before each run; without that reset the rise only shows
  runs that beat every earlier peak, and the table says so).

Target (issue 13): a rerun after a move under about 2 s of CPU and 1 GB on every page and view.

``--by-path`` (issue 22: every page on a file of 10⁷ rows opened by path): the same columns as the heavy upload,
:data:`PATH_ROWS` rows, written once as Parquet by DuckDB (:func:`write_heavy_parquet`) into a temporary folder that
the child processes share through ``DPX_DATA_FOLDER``; each session opens it through the Data page's data-folder
listing (:func:`bring_in`, the one function that brings the dataset in, by upload or by path), so the views work on
its seeded sample of :data:`explorer.dataset.SAMPLE_ROWS` rows, except Central DP's count, sum, mean, histogram,
count where…, category counts and most common value, whose true answers DuckDB computes over every row of the file
(:mod:`explorer.full_file`: the first run scans, a rerun reads the shared cache); the Data page's first run is the
opening itself.
The table goes to ``benchmarks/results/heavy_path.md``.

A view whose work is estimated above what a rerun may spend computes it in the server's pool of workers
(:mod:`explorer.jobs`, issue 23): its timed run is the rerun that submits the job; the benchmark then reruns the
page until the result is shown (not timed, as the page's polling fragment does) and the verdict says how long the
result took. ``benchmarks/bench_attack.py`` measures the worst link of each heavy page, before and after the pool.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import pathlib
import platform
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc

from benchmarks import readme_figures, timing

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = pathlib.Path(__file__).with_name("results") / "heavy.md"
RESULTS_BY_PATH = RESULTS.with_name("heavy_path.md")
#: Rows of the file opened by path (issue 22), and its name in the data folder.
PATH_ROWS = 10_000_000
PATH_NAME = "heavy.parquet"

#: Target of a rerun after a move (issue 13).
CPU_TARGET_S = 2.0
MEMORY_TARGET_MB = 1_000.0
#: The sidebar's largest number of simulated trials (explorer.widgets.TRIAL_CHOICES[-1]).
TRIALS = 10_000
#: Seconds AppTest waits for one run before it gives up.
RUN_TIMEOUT = 900

#: ε values of the shared ε slider (explorer.widgets.EPSILON_GRID), none of them a page's default
_EPS = (0.5, 2.0, 4.0, 0.25, 8.0, 0.4, 6.0)
_EPS_LOW = (0.01, 0.02, 0.05, 0.1, 0.2, 0.0125, 0.04)  # the Learning page's noisy GD (default 0.03) and the mode
_SEEDS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0)


@dataclasses.dataclass(frozen=True)
class View:
    """A page opened by a link, and the widget a visitor moves on it: (kind, key, values new to the session)."""

    page: str
    query: dict
    move: tuple[str, str, tuple]
    person: tuple[str, int] | None = None  # a person unit declared on the Data page: (identifier column, m rows)


def _eps(key: str, values=_EPS) -> tuple[str, str, tuple]:
    return ("select_slider", key, values)


_SEED_MOVE = ("number_input", "seed", _SEEDS)
#: DP-SGD trains at most 2,000 steps (explorer/learning_dp_sgd.py MAX_TRAIN_STEPS): one epoch of the 800,000 training rows
#: at the default batch of 256 is refused in one sentence, so the training views are opened at the largest run the
#: page trains, batch 400 (T = 2,000).
_SGD_AT_LIMIT = {"lrn_view": "DP-SGD", "lrn_sgd_batch": 400}

VIEWS: dict[str, View] = {
    "home": View("home", {}, _SEED_MOVE),
    "data": View("data", {}, _SEED_MOVE),
    "local · Frequencies of a category": View("local", {}, _eps("ldp_epsilon")),
    "local · Mean of a number": View("local", {"ldp_view": "Mean of a number"}, _eps("ldpm_epsilon")),
    **{
        f"central · {q}": View("central", {"cen_query": q}, _eps("cen_epsilon"))
        for q in ("Count", "Sum", "Mean", "Histogram", "Count where…", "Category counts")
    },
    # n as the person, at most 3 rows each: on a file opened by path the engine bounds each person's rows over every
    # row of it (explorer.full_file; a window over the rows, the costliest first scan of the page)
    "central · Sum, person n": View("central", {"cen_query": "Sum"}, _eps("cen_epsilon"), person=("n", 3)),
    "central · Most common value": View(
        "central", {"cen_query": "Most common value"}, _eps("cen_em_epsilon", _EPS_LOW)
    ),
    **{
        f"svt · {v}": View("svt", {"svt_view": v}, _eps("svt_epsilon"))
        for v in ("Choosing a clipping bound", "Automatic mean", "Range queries")
    },
    "accountant": View("accountant", {}, _eps("acc_epsilon")),
    "compare · Counts of a category": View("compare", {}, _eps("cmp_epsilon")),
    "compare · Mean of a number": View("compare", {"cmp_query": "Mean of a number"}, _eps("cmp_epsilon")),
    "audit · Audit a mechanism": View(
        "audit", {}, ("number_input", "aud_laplace_count_epsilon", (0.5, 0.6, 0.7, 0.8, 0.9, 1.1, 1.2))
    ),
    "audit · Floating-point attack": View("audit", {"aud_view": "Floating-point attack"}, _eps("aud_fp_epsilon")),
    **{
        f"learning · NGD · {part}": View("learning", {"lrn_ngd_part": part}, _eps("lrn_ngd_epsilon", _EPS_LOW))
        for part in ("Training run", "Gradient or example clipping", "Best T at this ε", "Accuracy against ε")
    },
    "learning · DP-SGD · Planner": View("learning", {"lrn_view": "DP-SGD"}, _eps("lrn_sgd_epsilon")),
    **{
        f"learning · DP-SGD · {part} (B = 400, T = 2,000)": View(
            "learning", {**_SGD_AT_LIMIT, "lrn_sgd_part": part}, _eps("lrn_sgd_epsilon")
        )
        for part in ("Training run", "Accuracy against ε")
    },
    **{
        f"learning · FedAvg · {part}": View(
            "learning",
            {"lrn_view": "Federated averaging", "lrn_fed_part": part},
            ("number_input", "lrn_fed_sigma", (0.6, 0.7, 0.8, 0.9, 1.1, 1.2, 1.3)),
        )
        for part in ("Training run", "Accuracy against ε")
    },
    "learning · FedAvg · The tutorial recipe": View(
        "learning", {"lrn_view": "Federated averaging", "lrn_fed_part": "The tutorial recipe"}, _eps("lrn_fed_claimed")
    ),
    "people · Bias against noise": View("people", {}, _eps("ppl_epsilon")),
    # n as the person: 100 persons of about 10,000 rows each in 10^6 (2,000 in a 200,000-row sample)
    "people · Bias against noise, person n": View("people", {"ppl_person": "n"}, _eps("ppl_epsilon")),
    "people · Group-by with unknown keys, person n": View(
        "people", {"ppl_person": "n", "ppl_view": "Group-by with unknown keys"}, _eps("ppl_sel_epsilon")
    ),
    "publish": View("publish", {}, _eps("pub_epsilon")),
    "publish · 50 declared categories and a mean": View(
        "publish",
        {"pub_domain_0": "\n".join(f"g{i}" for i in range(50)), "pub_lower_1": 0, "pub_upper_1": 1_000},
        _eps("pub_epsilon"),
    ),
}


# --------------------------------------------------------------------------- measuring one run


def _status_mb(field: str) -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise LookupError(field)


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def _reset_peak_rss() -> bool:
    """Reset this process's resident-memory high-water mark (Linux ≥ 4.0); False where that is not allowed."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _clear_caches() -> None:
    """Empty every cache the sessions share: :mod:`explorer.cache`'s bounded caches (the demo tables among them,
    :func:`explorer.cache.clear`) and any ``st.cache_data`` left.

    The upload is not among them: :func:`explorer.state.read_upload` parses it for its session only (issue 23), so
    there is no cached upload to drop: a view's first run keeps the session's own parsed file (as a visitor's would),
    and the Data page's first run, the upload itself, reads the file anew.
    """
    import streamlit as st

    from explorer import cache

    cache.clear()
    st.cache_data.clear()


def timed_run(at, trace: bool = False) -> dict:
    """Run ``at`` once: wall and CPU seconds, tracemalloc's peak (if ``trace``) and the peak resident memory's rise."""
    gc.collect()
    reset = _reset_peak_rss()
    before = _status_mb("VmRSS") if reset else _maxrss_mb()
    if trace:
        tracemalloc.start()
    cpu, wall = time.process_time(), time.perf_counter()
    at.run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    traced = tracemalloc.get_traced_memory()[1] / 2**20 if trace else None
    tracemalloc.stop()
    assert not at.exception, [e.value for e in at.exception]
    figures = {
        "wall": wall,
        "cpu": cpu,
        "traced_mb": traced,
        "rss_rise_mb": max(0.0, _maxrss_mb() - before),
        "reset": reset,
    }
    figures["pool_s"] = await_jobs(at)
    figures["errors"] = [e.value for e in at.error]
    return figures


def await_jobs(at, timeout: float = RUN_TIMEOUT) -> float | None:
    """Rerun a page whose work went to the server's pool until its result is shown: the seconds it took (``None``
    when the rerun computed everything itself)."""
    if not any(b.key and b.key.startswith("jobs_cancel_") for b in at.button):
        return None
    start = time.perf_counter()
    while any(b.key and b.key.startswith("jobs_cancel_") for b in at.button):
        if time.perf_counter() - start > timeout:
            raise TimeoutError("the background job did not finish")
        time.sleep(0.5)
        at.run()
    return time.perf_counter() - start


@dataclasses.dataclass(frozen=True)
class Source:
    """The dataset a session brings in: the heavy upload (``raw``, its bytes), or ``name`` in the data folder named by
    ``DPX_DATA_FOLDER``, opened by path (``raw`` None); ``rows`` is the file's number of rows."""

    name: str
    rows: int
    raw: bytes | None = dataclasses.field(default=None, repr=False)

    @property
    def by_path(self) -> bool:
        return self.raw is None

    def sidebar_rows(self) -> str:
        """How the sidebar states the active dataset's rows (a seeded sample above ``SAMPLE_ROWS`` by path)."""
        from explorer.dataset import SAMPLE_ROWS

        if self.by_path and self.rows > SAMPLE_ROWS:
            return f"{SAMPLE_ROWS:,} of {self.rows:,} rows (a seeded sample)"
        return f"{self.rows:,} rows"


def upload_source() -> Source:
    from explorer.dataset import MAX_ROWS
    from tests.upload_corpus import HEAVY_NAME, heavy_csv

    return Source(HEAVY_NAME, MAX_ROWS, heavy_csv())


def path_source(name: str = PATH_NAME) -> Source:
    """The file ``name`` of the data folder, its rows counted from the Parquet metadata."""
    import duckdb

    from explorer.dataset import data_folder

    folder = data_folder()
    if folder is None:
        raise RuntimeError("DPX_DATA_FOLDER does not name a folder")
    path = str(folder / name).replace("'", "''")
    return Source(name, int(duckdb.sql(f"SELECT count(*) FROM read_parquet('{path}')").fetchall()[0][0]))


def bring_in(at, source: Source) -> None:
    """Set the Data page of ``at`` so that its next run brings ``source`` in, as a visitor does: the file uploaded
    through the file widget, or chosen in the data folder's listing and opened."""
    if source.by_path:
        at.selectbox(key="data_folder_file").set_value(source.name)
        at.button(key="data_folder_open").click()
    else:
        at.file_uploader(key="data_upload").upload(source.name, source.raw, "text/csv")


def write_heavy_parquet(folder: pathlib.Path, rows: int = PATH_ROWS, name: str = PATH_NAME) -> pathlib.Path:
    """The heavy upload's table at ``rows`` rows, written by DuckDB from ``range()`` as Parquet: ``x`` and ``z``
    all-distinct floats (k / 10,000 for k < rows, in two orders: k·a mod rows with a prime a not dividing rows),
    ``group`` 50 texts of the same Zipf-like frequencies (1/k, drawn through a 1,000-slot table), ``n`` whole
    numbers 0 to 99, ``label`` 0/1 with 30% ones; the draws are hashes of the row number, so every run writes the
    same table. Returns the file's path."""
    import duckdb
    import numpy as np

    from explorer.columns import MAX_CATEGORIES_FOR_ORACLES as K

    multipliers = [a for a in (7_919, 104_729, 15_485_863, 32_452_843) if np.gcd(a, rows) == 1][:2]
    if len(multipliers) < 2:
        raise ValueError(f"rows must be coprime with two of 7919, 104729, 15485863 and 32452843, got {rows}")
    weights = 1 / np.arange(1, K + 1)
    slots = np.searchsorted(np.cumsum(weights / weights.sum()), (np.arange(1_000) + 0.5) / 1_000)
    table = "[" + ",".join(str(int(g)) for g in np.minimum(slots, K - 1)) + "]"
    a, b = multipliers
    target = (pathlib.Path(folder) / name).resolve()
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(
        f"""COPY (
            SELECT (i * {a}) % {rows} / 10000.0 AS x,
                   (i * {b}) % {rows} / 10000.0 AS z,
                   'g' || {table}[CAST(1 + hash(i, 1) % 1000 AS BIGINT)] AS "group",
                   CAST(hash(i, 2) % 100 AS BIGINT) AS n,
                   CAST(hash(i, 3) % 10 < 3 AS BIGINT) AS label
            FROM range({int(rows)}) t(i)
        ) TO '{str(target).replace("'", "''")}' (FORMAT parquet)"""
    )
    con.close()
    return target


def _session(view: View, source: Source, first_timed: bool, trace: bool = False):
    """A new session with ``source`` brought in, on ``view``; returns the AppTest and its first run's figures."""
    from tests.apptest import PAGES, open_page

    at = open_page("data", timeout=RUN_TIMEOUT, trials=TRIALS)
    bring_in(at, source)
    first = None
    if view.page == "data":  # the Data page's first run brings the file in: read anew, nothing cached
        if first_timed:
            _clear_caches()
            first = timed_run(at, trace)
        else:
            at.run()
    else:
        at.run()
        if view.person is not None:  # declared as a visitor does, on the Data page, then the view chosen on its page
            from explorer import unit  # (a link's parameters set before the switch would reset the declaration)

            at.radio(key="unit").set_value(unit.PERSON).run()
            at.selectbox(key="unit_id").set_value(view.person[0]).run()
            at.number_input(key="unit_rows").set_value(float(view.person[1])).run()
            at.switch_page(PAGES[view.page]).run()
            for key, value in view.query.items():  # the view's radios
                at.radio(key=key).set_value(value)
        else:
            for key, value in view.query.items():
                at.query_params[key] = str(value)
            at.switch_page(PAGES[view.page])
        _clear_caches()
        if first_timed:
            first = timed_run(at, trace)
        else:
            at.run()
    shown = " ".join(t.value for t in at.sidebar.text)
    assert source.name in shown and source.sidebar_rows() in shown, f"{source.name} is not the active dataset: {shown}"
    assert at.session_state["trials"] == TRIALS, at.session_state["trials"]
    return at, first


def _move(at, view: View, i: int) -> None:
    kind, key, values = view.move
    widget = getattr(at, kind)(key=key)
    widget.set_value(values[i % len(values)])


def measure(name: str, firsts: int, moves: int, by_path: bool = False) -> dict:
    """Every figure of one view, in this process (on the file of the data folder opened by path if ``by_path``)."""
    view = VIEWS[name]
    source = path_source() if by_path else upload_source()
    first_runs, move_runs = [], []
    for _ in range(firsts):
        at, first = _session(view, source, first_timed=True)
        first_runs.append(first)
        del at
    traced_first = _session(view, source, first_timed=True, trace=True)[1]
    at, _ = _session(view, source, first_timed=False)
    for i in range(moves):
        _move(at, view, i)
        move_runs.append(timed_run(at))
    _move(at, view, moves)
    traced_move = timed_run(at, trace=True)
    return {
        "name": name,
        "move": view.move[1],
        "first": first_runs,
        "moves": move_runs,
        "traced_first": traced_first,
        "traced_move": traced_move,
    }


# --------------------------------------------------------------------------- the table


def _s(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.0f} s"


def row(result: dict) -> tuple[str, bool]:
    """One line of the table, and whether the view meets the target."""
    page, _, view = result["name"].partition(" · ")
    first_wall = [r["wall"] for r in result["first"]]
    move_wall = [r["wall"] for r in result["moves"]]
    first_cpu = statistics.median(r["cpu"] for r in result["first"])
    move_cpu = statistics.median(r["cpu"] for r in result["moves"])
    runs = [*result["first"], *result["moves"], result["traced_first"], result["traced_move"]]
    traced = max(r["traced_mb"] for r in (result["traced_first"], result["traced_move"]))
    rss = max(r["rss_rise_mb"] for r in runs)
    peak = max(traced, rss)
    ok = move_cpu < CPU_TARGET_S and peak < MEMORY_TARGET_MB
    shown = {e for r in runs for e in r["errors"]}
    verdict = "meets" if ok else "misses"
    pooled = [r["pool_s"] for r in runs if r.get("pool_s") is not None]
    if pooled:
        verdict += f" (in the pool: the result {_s(statistics.median(pooled))} after the rerun, median)"
    if shown:
        verdict += " (the page says: " + " / ".join(e.replace("|", "\\|")[:90] for e in sorted(shown)) + ")"
    return (
        f"| {page} | {view or '—'} | {_s(statistics.median(first_wall))} / {_s(max(first_wall))} "
        f"| `{result['move']}`: {_s(statistics.median(move_wall))} / {_s(max(move_wall))} "
        f"| {_s(first_cpu)} / {_s(move_cpu)} | {traced:,.0f} / {rss:,.0f} "
        f"| < {CPU_TARGET_S:g} s CPU, < {MEMORY_TARGET_MB / 1000:g} GB | {verdict} |",
        ok,
    )


HEADER = (
    "| page | view | first run, median / max | rerun after a move, median / max | CPU, first / rerun (median) "
    "| peak MB, tracemalloc / RSS rise | target (rerun) | verdict |\n|---|---|---|---|---|---|---|---|"
)


def run_child(name: str, firsts: int, moves: int, by_path: bool = False) -> dict:
    """``measure`` in a fresh interpreter (its memory is the view's alone); with ``by_path`` it opens the file of the
    data folder its environment names (``DPX_DATA_FOLDER``, inherited)."""
    command = [sys.executable, "-m", "benchmarks.bench_heavy", "--child", name, "--firsts", str(firsts)]
    command += ["--moves", str(moves), *(["--by-path"] if by_path else [])]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=7200)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode or not lines:
        raise RuntimeError(f"{name} failed:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT ") :])


def _failed_row(name: str, error: RuntimeError) -> str:
    """The table's line of a view whose child process failed: the last line of its error."""
    page, _, view = name.partition(" · ")
    last = [line for line in str(error).splitlines() if line.strip()][-1].replace("|", "\\|")[:160]
    return f"| {page} | {view or '—'} | — | — | — | — | < {CPU_TARGET_S:g} s CPU, < {MEMORY_TARGET_MB / 1000:g} GB | fails: {last} |"


def _measure_all(
    names: list[str], args, by_path: bool, results: pathlib.Path
) -> tuple[list[str], list[str], bool, float, list[str]]:
    """The table's lines, the views missing the target, whether every run reset the memory high-water mark, the
    minutes taken, and the views whose rows were kept from an earlier run (with ``--only``: every view not measured
    that the results file has, in the order of :data:`VIEWS`)."""
    kept = timing.kept_rows(results, [n for n in VIEWS if n not in names]) if args.only else {}
    lines, missed, resets = [HEADER], [], True
    measured = {}
    print(HEADER, flush=True)
    started = time.perf_counter()
    for name in names:
        try:
            result = run_child(name, args.firsts, args.moves, by_path)
        except RuntimeError as error:
            line, ok = _failed_row(name, error), False
            print(error, file=sys.stderr, flush=True)
        else:
            line, ok = row(result)
            resets &= all(r["reset"] for r in [*result["first"], *result["moves"]])
        measured[name] = line
        print(line, flush=True)
        if not ok:
            missed.append(name)
    for name in VIEWS:  # the table in the order of VIEWS, with an earlier run's rows for the views not measured
        if name in measured or name in kept:
            lines.append(measured.get(name) or kept[name])
            if name in kept and ("| misses" in kept[name] or "| fails" in kept[name]):
                missed.append(name)
    return lines, missed, resets, (time.perf_counter() - started) / 60, list(kept)


def _rss_note(resets: bool) -> str:
    return (
        "RSS rise: the peak resident memory during the run (its high-water mark reset before it) less the resident "
        "memory before it."
        if resets
        else "RSS rise: `ru_maxrss` after the run less before it (the high-water mark could not be reset here, so a "
        "run below an earlier peak shows 0)."
    )


def _kept_note(names: list[str], kept: list[str]) -> str:
    """What a run with ``--only`` measured, and that the other rows are an earlier run's (the text above them, its
    load and minutes, is this run's)."""
    if not kept:
        return ""
    return (
        f" This run (`--only`) measured {len(names)} view(s): {', '.join(names)}; the table's other {len(kept)} "
        "row(s) are kept from an earlier run of the same benchmark (the load, minutes and CPU above are this run's)."
    )


def main_upload(args, names: list[str]) -> None:
    from explorer.dataset import MAX_ROWS, MAX_UPLOAD_BYTES
    from tests.upload_corpus import heavy_csv

    lines, missed, resets, minutes, kept = _measure_all(names, args, False, RESULTS)
    size = len(heavy_csv())
    text = (
        "# Every page on the heaviest upload: measured cost\n\n"
        f"Written by `python -m benchmarks.bench_heavy`: AppTest, one fresh process per view; the file "
        f"`tests.upload_corpus.heavy_csv()` ({MAX_ROWS:,} rows, {size / 1e6:.1f} MB of the {MAX_UPLOAD_BYTES / 1e6:g} MB "
        f"limit: two columns of all-distinct floats, 50 categories, a whole-number column, a 0/1 target) uploaded "
        f"through the Data page; {TRIALS:,} simulated trials; {args.firsts} first runs (each a new session, the "
        f"shared caches emptied; the parsed upload lives with its session) and {args.moves} reruns after a move to a value new to the session per view. "
        f"Python {platform.python_version()}, {os.cpu_count()} cores shared with other work (load average "
        f"{os.getloadavg()[0]:.1f} at the end), {minutes:.0f} min in all. "
        f"The Data page's first run is the upload itself. {_rss_note(resets)}{_kept_note(names, kept)}\n\n"
        + "\n".join(lines)
        + "\n"
    )
    if missed:
        text += "\nMissing the target: " + ", ".join(missed) + ".\n"
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text)
    readme_figures.update()
    print(text)


def main_by_path(args, names: list[str]) -> None:
    """Issue 22: every view on a generated Parquet file of ``args.rows`` rows opened by path from a data folder."""
    import tempfile

    from explorer import full_file
    from explorer.dataset import DATA_FOLDER_VARIABLE, SAMPLE_ROWS

    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="dpx_heavy_path_") as folder:
        cpu, wall = time.process_time(), time.perf_counter()
        path = write_heavy_parquet(pathlib.Path(folder), args.rows)
        written = (time.perf_counter() - wall, time.process_time() - cpu, path.stat().st_size)
        os.environ[DATA_FOLDER_VARIABLE] = folder  # the children inherit it
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        lines, missed, resets, minutes, kept = _measure_all(names, args, True, RESULTS_BY_PATH)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children_cpu = (after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime) / 60
    load_end = os.getloadavg()
    left = [n for n in VIEWS if n not in names and n not in kept]
    measured = (
        f"every view of the upload benchmark ({len(names) + len(kept)})"
        if not left
        else f"{len(names) + len(kept)} of the {len(VIEWS)} views (a representative subset, `--only`): the table's rows; not "
        f"measured: {', '.join(left)}"
    )
    text = (
        "# Every page on a file of 10⁷ rows opened by path: measured cost\n\n"
        f"Written by `python -m benchmarks.bench_heavy --by-path` (issue 22): a Parquet file of {args.rows:,} rows "
        f"({written[2] / 1e6:.0f} MB) with the columns of the heavy upload (`tests.upload_corpus.heavy_csv`: two "
        f"columns of all-distinct floats, 50 categories of Zipf-like frequencies, a whole-number column, a 0/1 target), "
        f"generated once by DuckDB `COPY ... TO ... (FORMAT parquet)` from `range()` ({written[0]:.1f} s, "
        f"{written[1]:.1f} s CPU in this process) into a temporary folder named to every child by `DPX_DATA_FOLDER`; "
        f"each session opens it through the Data page's data-folder listing (button `data_folder_open`), and the "
        f"views work on its seeded sample of {SAMPLE_ROWS:,} rows (`explorer.dataset.SAMPLE_ROWS`, said on the Data "
        f'page as "Rows used: {SAMPLE_ROWS:,} of {args.rows:,}"). AppTest, one fresh process per view; '
        f"{TRIALS:,} simulated trials; {args.firsts} first runs (each a new session that opens the file anew, the "
        f"shared caches emptied) and {args.moves} reruns after a move to a value new to the session per view. "
        f"The Data page's first run is the opening of the file itself (the sample drawn by DuckDB and the profile). "
        f"Central DP's count, sum, mean, histogram, count where…, category counts and most common value take their "
        f"true answers from DuckDB over every row of the file (`explorer.full_file`): their first run includes that "
        f"scan (the shared caches are emptied before it), a rerun after an ε move reads the aggregates back from the "
        f"shared cache; a scan estimated above {full_file.INLINE_SECONDS:g} s of CPU (`explorer.full_file.in_pool`: "
        f"a sum or mean under a person unit, its rows bounded by a window over every row, on a file above about "
        f"{full_file.INLINE_SECONDS / full_file.SECONDS_PER_ROW['window'] / 1e6:.1f} million rows) runs in the "
        f"server's pool instead, so its first run is the rerun that submits it and shows the sample meanwhile. Every other "
        f"view computes on the sample's rows, so the file's size shows in the opening and a view's cost is that of a "
        f"{SAMPLE_ROWS:,}-row table. "
        f"Measured: {measured}. The machine's {os.cpu_count()} cores were shared with other work: load average "
        f"{load_start[0]:.1f} / {load_start[1]:.1f} / {load_start[2]:.1f} (1 / 5 / 15 min) at the start and "
        f"{load_end[0]:.1f} / {load_end[1]:.1f} / {load_end[2]:.1f} at the end, so wall times are inflated; judge by "
        f"the CPU column (`time.process_time`, every thread of the process). {minutes:.0f} min in all, "
        f"{children_cpu:.0f} min of CPU in the child processes. Python {platform.python_version()}. "
        f"{_rss_note(resets)}{_kept_note(names, kept)}\n\n" + "\n".join(lines) + "\n"
    )
    text += (
        "\nMissing the target: " + ", ".join(missed) + ".\n" if missed else "\nEvery measured view meets the target.\n"
    )
    RESULTS_BY_PATH.parent.mkdir(exist_ok=True)
    RESULTS_BY_PATH.write_text(text)
    print(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--firsts", type=int, default=3, help="timed first runs per view (each a new session)")
    parser.add_argument("--moves", type=int, default=5, help="timed reruns after a move per view")
    parser.add_argument("--only", nargs="*", default=None, help="views to measure (names as in the table)")
    parser.add_argument(
        "--by-path", action="store_true", help="open a generated Parquet file by path (heavy_path.md), not the upload"
    )
    parser.add_argument("--rows", type=int, default=PATH_ROWS, help="rows of the --by-path file")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print("RESULT " + json.dumps(measure(args.child, args.firsts, args.moves, args.by_path)), flush=True)
        return
    names = list(VIEWS) if not args.only else [n for n in VIEWS if n in args.only]
    unknown = set(args.only or ()) - set(VIEWS)
    if unknown:
        parser.error(f"--only names no view: {', '.join(sorted(unknown))}")
    (main_by_path if args.by_path else main_upload)(args, names)


if __name__ == "__main__":
    main()
