"""Eight sessions moving sliders at once: rerun latency and liveness under load.

Run: python -m benchmarks.bench_load [--sessions 8] [--seconds 60]

Three measurements, each on a fresh server started as the README does:

1. Protocol clients. N sessions speak Streamlit's own WebSocket protocol
   (tests/protocol_client.py): the server does everything it does for a browser, the
   clients draw nothing. The sessions are spread over the five mechanism pages and move
   each page's ε slider back and forth with no pause, so the server is never idle.
   A rerun is timed from the request to the server's "script finished". Run twice: as
   configured, and with Streamlit's default full garbage collection after every script
   run, which .streamlit/config.toml turns off (the baseline, in the same run).
2. One person's browser among them. One Chromium session on Local DP moves its ε slider
   with the keyboard next to N-1 protocol sessions as in 1. A rerun is timed from the key
   press until the shown figure changed and the page is idle: what a person sees, their
   browser's drawing included.
3. All browsers here. N Chromium sessions on Local DP, as in 2. The browsers share the
   2 cores with the server and take most of them, which a person's browser does not.

Target: every rerun under 2 s, every session alive. Prints a table and writes
benchmarks/results/load.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import statistics
import tempfile
import time

from benchmarks import readme_figures
from tests.browser import CHROMIUM_FLAGS, app_server, chromium_path
from tests.protocol_client import ProtocolSession

ROOT = pathlib.Path(__file__).resolve().parents[1]

RESULTS = pathlib.Path(__file__).with_name("results") / "load.md"
#: url path -> the key of its ε slider; protocol sessions take them in turn
SLIDERS = {
    "local": "ldp_epsilon",
    "central": "cen_epsilon",
    "svt": "svt_epsilon",
    "accountant": "acc_epsilon",
    "compare": "cmp_epsilon",
}
RERUN_TIMEOUT = 10.0  # a rerun that takes longer is a failed one
SLIDER = '[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]'  # the page's ε slider comes first
IDLE = """() => {
    const s = document.querySelector('[data-testid="stStatusWidget"]');
    return !(s && /running/i.test(s.innerText)) && document.querySelectorAll('[data-stale="true"]').length === 0;
}"""
METRIC = "() => { const m = document.querySelector('[data-testid=\"stMetricValue\"]'); return m ? m.innerText : null; }"


def _wander(options: tuple[str, ...], start: str):
    """Option after option: four steps up, four down, around ``start`` (a person trying nearby values)."""
    i, step = options.index(start), 0
    while True:
        i = min(max(i + (1 if (step // 4) % 2 == 0 else -1), 0), len(options) - 1)
        step += 1
        yield options[i]


async def protocol_session(base: str, page: str, seconds: float, index: int) -> dict:
    """Move ``page``'s ε slider for ``seconds``, each move as soon as the last rerun finished."""
    key = SLIDERS[page]
    times, errors, alive = [], 0, False
    async with ProtocolSession(base, page, f"seed={index}") as session:
        first = await asyncio.wait_for(session.open(), 60)
        if key not in first.sliders:  # seen once on a loaded machine: a first run without the page's slider
            print(f"{page} session {index}: first run without {key} ({first.errors or 'no error'}); opening again")
            first = await asyncio.wait_for(session.open(), 60)
        assert key in first.sliders, (page, index, sorted(first.sliders), first.errors, first.elements)
        shown, moves = first.digest, _wander(first.sliders[key], "1")
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            try:
                run = await asyncio.wait_for(session.set_select_slider(key, next(moves)), RERUN_TIMEOUT)
            except TimeoutError:
                errors += 1
                print(f"{page} session {index}: no rerun within {RERUN_TIMEOUT:g} s", flush=True)
                break
            times.append(run.seconds)
            # an exception, an error box, or the same results after the slider moved: a failed rerun
            errors += bool(run.errors) or run.digest == shown or run.charts == 0
            shown = run.digest
        else:
            alive = session.open_connection
    return {"times": times, "errors": errors, "lost": 0, "alive": alive}


async def browser_session(browser, base: str, seconds: float, index: int) -> dict:
    """Move Local DP's ε slider with the keyboard for ``seconds``; a rerun ends when the figure changed and all is idle."""
    context = await browser.new_context(viewport={"width": 1300, "height": 900})
    page = await context.new_page()
    await page.goto(f"{base}/local?seed={index}")
    await page.wait_for_function(f"() => ({METRIC})() !== null", timeout=60_000)
    await page.wait_for_function(IDLE, timeout=60_000)
    await page.wait_for_timeout(1_000)  # the first run's charts finish drawing before the first key press
    slider = page.locator(SLIDER).first
    times, errors, lost, step = [], 0, 0, 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        await page.wait_for_function(IDLE, timeout=30_000, polling=50)
        before = await page.evaluate(METRIC)
        value = await slider.get_attribute("aria-valuetext")
        key = "ArrowRight" if (step // 4) % 2 == 0 else "ArrowLeft"
        step += 1
        await slider.focus()
        start = time.perf_counter()
        await slider.press(key)
        try:  # the key must move the slider; a press it never sees is counted apart, a slow one is timed
            await page.wait_for_function(
                "([sel, v]) => { const e = document.querySelector(sel); return e && e.getAttribute('aria-valuetext') !== v; }",
                arg=[SLIDER, value],
                timeout=RERUN_TIMEOUT * 1000,
                polling=20,
            )
        except Exception:  # noqa: BLE001
            lost += 1
            continue
        try:
            await page.wait_for_function(
                f"(v) => ({METRIC})() !== v", arg=before, timeout=RERUN_TIMEOUT * 1000, polling=50
            )
            await page.wait_for_function(IDLE, timeout=RERUN_TIMEOUT * 1000, polling=50)
            times.append(time.perf_counter() - start)
        except Exception as exc:  # noqa: BLE001 - no rerun within the timeout is a failed rerun, counted
            errors += 1
            print(f"browser session {index}: no rerun within {RERUN_TIMEOUT:g} s of {key}: {str(exc)[:80]}", flush=True)
        errors += await page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]').count()
    alive = await page.evaluate(METRIC) is not None
    # the context stays open until the browser closes: its renderer's CPU time is read first
    return {"times": times, "errors": errors, "lost": lost, "alive": alive}


async def _warm(base: str) -> None:
    # Every page runs once, so that no timed rerun pays for a first import.
    for page in ["", *SLIDERS]:
        async with ProtocolSession(base, page) as session:
            await asyncio.wait_for(session.open(), 120)


async def _run(base: str, protocol: int, browsers: int, seconds: float) -> dict:
    pages = list(SLIDERS)
    proto = [protocol_session(base, pages[i % len(pages)], seconds, i) for i in range(protocol)]
    if not browsers:
        return {"protocol": await asyncio.gather(*proto), "browser": [], "chromium_cpu_s": 0.0}
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        clicks = [browser_session(browser, base, seconds, protocol + i) for i in range(browsers)]
        results = await asyncio.gather(*proto, *clicks)
        cpu = sum(_cpu_seconds(pid) for pid in _chromium_pids())  # every renderer is still alive
        await browser.close()
    return {"protocol": results[:protocol], "browser": results[protocol:], "chromium_cpu_s": cpu}


def run_load(protocol: int, browsers: int, seconds: float, base: str | None = None, env: dict | None = None) -> dict:
    """Run the load on the app at ``base``, or on a fresh server (``env``: extra environment).

    Returns each kind of session's results and the CPU time the Chromiums used (page loads
    included). On a fresh server also the server's script run times (logged by app.py), its
    CPU time during the load, and its memory before and after.
    """
    if base is not None:
        asyncio.run(_warm(base))
        return asyncio.run(_run(base, protocol, browsers, seconds))
    with (
        tempfile.NamedTemporaryFile(suffix=".log") as log,
        app_server(env={**(env or {}), "DPX_RUN_LOG": log.name}) as (url, proc),
    ):
        asyncio.run(_warm(url))
        memory, cpu, (busy, total) = _memory_mb(proc.pid), _cpu_seconds(proc.pid), _machine_busy()
        open(log.name, "w").close()  # only the timed runs
        result = asyncio.run(_run(url, protocol, browsers, seconds))
        busy_after, total_after = _machine_busy()
        return {
            **result,
            "server_runs": server_runs(log.name),
            "server_cpu_s": _cpu_seconds(proc.pid) - cpu,
            "machine_busy": (busy_after - busy) / (total_after - total),
            "memory_mb": (memory, _memory_mb(proc.pid)),
        }


def _memory_mb(pid: int) -> float:
    """Resident memory of a process (Linux /proc)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc); 0 if it has gone."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _machine_busy() -> tuple[float, float]:
    """(busy, total) CPU time of the whole machine so far, in clock ticks over all cores (Linux /proc/stat)."""
    ticks = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    return sum(ticks) - idle, sum(ticks)


def _chromium_pids() -> list[int]:
    pids = []
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"chrom" in (entry / "cmdline").read_bytes().split(b"\0")[0]:
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def _quantiles(times: list[float]) -> dict:
    times = sorted(times)
    if not times:
        return {"median_s": float("nan"), "p95_s": float("nan"), "max_s": float("nan")}
    return {"median_s": statistics.median(times), "p95_s": times[int(0.95 * (len(times) - 1))], "max_s": times[-1]}


def server_runs(run_log: str) -> dict:
    """Count, median, p95 and max wall time of the script runs the server logged."""
    times = [float(line.split()[1]) for line in open(run_log) if line.strip()]
    return {"runs": len(times), **_quantiles(times)}


def summarise(results: list[dict]) -> dict:
    times = [t for r in results for t in r["times"]]
    return {
        "sessions": len(results),
        "reruns": len(times),
        **_quantiles(times),
        "errors": sum(r["errors"] for r in results),
        "lost": sum(r["lost"] for r in results),
        "alive": sum(r["alive"] for r in results),
    }


def _row(name: str, s: dict, sessions: int, seconds: float) -> str:
    """One table row: ``s`` summarises the sessions measured, ``sessions`` counts all on the server."""
    met = "**yes**" if s["max_s"] < 2 and s["alive"] == s["sessions"] and not s["errors"] else "no"
    return (
        f"| {name} | {sessions} | {seconds:g} | {s['reruns']} | {s['median_s'] * 1000:.0f} ms | "
        f"{s['p95_s'] * 1000:.0f} ms | {s['max_s'] * 1000:.0f} ms | {s['errors']} | {s['lost']} | "
        f"{s['alive']}/{s['sessions']} measured | {met} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    n, seconds = args.sessions, args.seconds
    runs = [
        ("protocol clients, 5 pages, no pause", "protocol", run_load(n, 0, seconds)),
        # the baseline: Streamlit's default full gc.collect(2) after every script run (.streamlit/config.toml turns it off)
        (
            "the same with Streamlit's default post-run GC",
            "protocol",
            run_load(n, 0, seconds, env={"STREAMLIT_RUNNER_POST_SCRIPT_GC": "true"}),
        ),
        ("the one browser among them (Local DP)", "browser", run_load(n - 1, 1, seconds)),
        ("all browsers on these 2 cores (Local DP)", "browser", run_load(0, n, seconds)),
    ]
    rows, notes = [], []
    for name, kind, result in runs:
        s = summarise(result[kind])
        rows.append(_row(name, s, len(result["protocol"]) + len(result["browser"]), seconds))
        server, (before, after) = result["server_runs"], result["memory_mb"]
        chromium = (
            f"; the Chromiums {result['chromium_cpu_s']:.0f} CPU-seconds, "
            f"{result['chromium_cpu_s'] / max(s['reruns'], 1) * 1000:.0f} ms per browser rerun"
            if result["browser"]
            else ""
        )
        notes.append(
            f"- {name}: {server['runs']} script runs, median {server['median_s'] * 1000:.0f} ms, p95 "
            f"{server['p95_s'] * 1000:.0f} ms, max {server['max_s'] * 1000:.0f} ms; server memory "
            f"{before:.0f} MB before the load, {after:.0f} MB after; the server used "
            f"{result['server_cpu_s']:.0f} CPU-seconds{chromium}; the machine's cores were "
            f"{result['machine_busy']:.0%} busy."
        )
    table = (
        "| measured | sessions | seconds | reruns timed | median | p95 | max | failed reruns | lost key presses "
        "| sessions alive | every rerun < 2 s, all alive |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
        + "\n".join(rows)
    )
    text = (
        table + "\n\nThe same minutes seen from inside the server (each script run's wall time, logged by app.py "
        "with DPX_RUN_LOG; it includes waiting for the interpreter behind the other sessions):\n\n" + "\n".join(notes)
    )
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Load: concurrent sessions moving sliders\n\nWritten by `python -m benchmarks.bench_load` on a 2-core shared "
        "machine: census demo, 1,000 trials, a fresh server per row, every page run once before the clock starts. "
        "Sessions move the ε slider back and forth with no pause between reruns. Protocol clients speak Streamlit's "
        "WebSocket protocol and draw nothing; a browser rerun is timed from the key press until the figure changed "
        "and the page is idle. The second row is the first with Streamlit's default `runner.postScriptGC = true` (a full "
        "`gc.collect(2)` after every script run), the baseline for the setting in `.streamlit/config.toml`. In the third "
        "row the table counts the one browser's reruns, beside seven protocol "
        "sessions. In the last row eight Chromiums draw every rerun on the server's own two cores.\n\n" + text + "\n"
    )


if __name__ == "__main__":
    main()
    readme_figures.update()
