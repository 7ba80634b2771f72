"""Eight sessions walking like people: each uploads a CSV, switches pages and moves what each page offers.

Run: python -m benchmarks.bench_load [--sessions 8] [--minutes 3] [--profile]

The server is started as the README does (``streamlit run app.py``, :func:`tests.browser.app_server`) and every page
runs once before the clock starts (the imports and the demo's caches). Then N sessions, each a client of Streamlit's
own WebSocket protocol (no browser: the clients draw nothing, so the 2 cores are the server's), each:

1. opens the Data page and uploads its own small CSV (300 rows, seeded per session: two numeric columns, two
   categorical ones and a 0/1 target) the way a browser does: a ``file_urls_request`` on the socket, an HTTP PUT
   with the XSRF cookie and header (:class:`benchmarks.bench_memory.UploadingSession`), then a rerun whose uploader
   state names the file; the run must say ``Loaded``;
2. walks the pages a person explores (:data:`WALK`: Local DP, Central DP, SVT, Accountant, Compare, Learning), in a
   shuffled order of its own, round after round until the time is up; on each page it moves :data:`MOVES_PER_PAGE`
   different controls the page shows (sliders and select sliders one step, select boxes, radio buttons, segmented
   controls and tabs to another option; never a button, a checkbox or a typed number: nothing is published or
   started), each chosen at random among those the last run drew;
3. pauses between actions as a person reads: 0.4 to 2.5 s, uniform (seeded per session).

Every rerun is timed, from the request to the server's ``script_finished``: the upload, each page switch and each
move. A **failed rerun** is one that raised, showed an error box, or did not finish within 10 s. A **lost key
press** is a move the page did not keep: after the rerun the control is gone, or the page set it to another value
than the one the session sent (Streamlit sends a control's value back only when the page changed it). Target (issue 23):
p95 under 1 s, no failed rerun, no lost key press.

The machine's load average is read before and after (other work on the machine makes every rerun slower: a
measurement on a loaded machine says so). With ``--profile`` py-spy samples the server during the walk (every
thread holding the interpreter; ``pip install py-spy``) and the app's functions on the most samples are printed, to
find the view behind the slow reruns. Prints a table, writes benchmarks/results/load.md and updates the README's rows.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import math
import os
import pathlib
import random
import re
import signal
import statistics
import subprocess
import tempfile
import time

import numpy as np

from benchmarks import readme_figures
from benchmarks.bench_memory import UploadingSession, _put  # noqa: F401 - _put: the upload's PUT, reused
from tests.browser import CHROMIUM_FLAGS, app_server, chromium_path

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = pathlib.Path(__file__).with_name("results") / "load.md"
#: The pages a person walks through, by URL path (the Data page is visited once, for the upload).
WALK = ("local", "central", "svt", "accountant", "compare", "learning")
#: Controls moved on each visit of a page.
MOVES_PER_PAGE = 4
#: A person's pause between two actions, seconds (uniform).
PAUSE = (0.4, 2.5)
#: Rows of each session's upload.
UPLOAD_ROWS = 300
RERUN_TIMEOUT = 10.0  # a rerun that takes longer is a failed one
TARGET_P95_S = 1.0
#: Controls a walk leaves alone: the sidebar's simulation settings (the same on every page), the Learning target
#: (the file's question, chosen once; most columns of a file are not a 0/1 target and are refused in one sentence)
#: and anything that publishes (a person exploring does not publish).
SKIP = ("seed", "trials", "lrn_target")
SKIP_PARTS = ("_pub", "publish", "_release")


def walk_csv(seed: int, rows: int = UPLOAD_ROWS) -> bytes:
    """A small table of its own per session: ``age`` (17-90), ``hours`` (1-99), ``sex``, ``education``, ``income`` (0/1)."""
    rng = np.random.default_rng([2024, seed])
    age = rng.integers(17, 91, rows)
    hours = np.clip(rng.normal(40, 12, rows).round(), 1, 99).astype(int)
    sex = rng.choice(["Female", "Male"], rows)
    education = rng.choice(["HS-grad", "Some-college", "Bachelors", "Masters", "Doctorate"], rows)
    income = (rng.random(rows) < 0.15 + 0.004 * (age - 17)).astype(int)
    lines = (f"{a},{h},{s},{e},{y}" for a, h, s, e, y in zip(age, hours, sex, education, income))
    return ("age,hours,sex,education,income\n" + "\n".join(lines) + "\n").encode()


@dataclasses.dataclass
class Control:
    """A control the last run drew, bound to the link under ``param``."""

    param: str
    kind: str  # select_slider, slider, selectbox, radio, button_group, tabs
    id: str
    options: tuple[str, ...] = ()
    default: object = None
    low: float = 0.0
    high: float = 0.0
    step: float = 0.0
    integer: bool = False


class WalkingSession(UploadingSession):
    """An :class:`UploadingSession` that also reads the controls each run draws, the link, and the charts."""

    def __init__(self, base: str) -> None:
        super().__init__(base)
        self.controls: dict[str, Control] = {}
        self.query_string = ""
        self.set_values: dict[str, object] = {}  # param -> the value this session set on this page
        self.drawn: dict[str, object] = {}  # param -> the value the page set the control to in the last run, or None

    async def move(self, control: Control, rng: random.Random) -> tuple[float, list[str], bool]:
        """Move ``control`` as a person would; (seconds, errors, '' if the page kept the move or why it did not)."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        state = WidgetState(id=control.id)
        current = self.set_values.get(control.param, control.default)
        if control.kind in ("select_slider", "slider") and control.options:
            i = control.options.index(current) if current in control.options else 0
            j = i + rng.choice((-1, 1)) if 0 < i < len(control.options) - 1 else (1 if i == 0 else i - 1)
            value = control.options[j]
            state.string_array_value.data.append(value)
        elif control.kind == "slider":
            v = float(current)
            value = v + control.step * (
                rng.choice((-1, 1)) if control.low < v < control.high else (1 if v <= control.low else -1)
            )
            value = min(max(value, control.low), control.high)
            value = int(round(value)) if control.integer else round(value, 10)
            state.double_array_value.data.append(float(value))
        else:
            value = rng.choice([o for o in control.options if o != current] or list(control.options))
            if control.kind == "button_group":
                state.string_array_value.data.append(value)
            else:  # selectbox, radio, tabs: the option's label
                state.string_value = value
        self.states[control.param] = state
        self.set_values[control.param] = value
        seconds, errors = await self._run(page_script_hash=self.page_hash)
        return seconds, errors, self._kept(control, value)

    def _kept(self, control: Control, value) -> str:
        """'' if the run kept the move; else why not (the control gone, or set by the page to another value)."""
        if control.param not in self.drawn:
            return f"not drawn after the move ({self.elements} elements)"
        echo = self.drawn[control.param]
        if echo is None:  # the page left the control alone: it holds what the session sent
            return ""
        try:
            same = float(echo) == float(value)
        except (TypeError, ValueError):
            same = str(echo) == str(value)
        return "" if same else f"set to {echo} after the move to {value}"

    async def switch(self, page: str) -> tuple[float, list[str]]:
        """Open ``page`` from the navigation, as a click in the sidebar does: the last page's controls are gone."""
        self.states, self.set_values = {}, {}
        return await self.run_page(page)

    async def _run(self, **page) -> tuple[float, list[str]]:
        from streamlit.proto.Alert_pb2 import Alert
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        msg.rerun_script.query_string = self.query_string if "page_script_hash" in page else ""
        for key, value in page.items():
            setattr(msg.rerun_script, key, value)
        msg.rerun_script.widget_states.widgets.extend(self.states.values())
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        errors, self.shown, self.elements, controls, self.drawn = [], [], 0, {}, {}
        tabs: dict[tuple, Control] = {}  # the delta path of a tab container -> its control
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(await self.ws.recv())
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fwd.new_session.initialize.session_id
            elif kind == "navigation":
                self.page_hash = fwd.navigation.page_script_hash
            elif kind == "page_info_changed":
                self.query_string = fwd.page_info_changed.query_string
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "add_block":
                block, path = fwd.delta.add_block, tuple(fwd.metadata.delta_path)
                if block.WhichOneof("type") == "tab_container" and block.tab_container.query_param_key:
                    c = block.tab_container
                    self.drawn[c.query_param_key] = None
                    tabs[path] = Control(c.query_param_key, "tabs", c.id, default=c.default_tab_label)
                elif block.WhichOneof("type") == "tab" and path[:-1] in tabs:
                    tabs[path[:-1]].options += (block.tab.label,)
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                element = fwd.delta.new_element
                which = element.WhichOneof("type")
                self.elements += 1
                if which == "file_uploader" and element.file_uploader.id.endswith("data_upload"):
                    self.uploader_id = element.file_uploader.id
                elif which == "exception":
                    errors.append(f"{element.exception.type}: {element.exception.message}")
                elif which == "alert":
                    self.shown.append(element.alert.body)
                    if element.alert.format == Alert.ERROR:
                        errors.append(element.alert.body)
                else:
                    if (control := _control(element, which)) is not None:
                        controls[control.param] = control
                    if (drawn := _drawn(element, which)) is not None:
                        self.drawn[drawn[0]] = drawn[1]
            elif kind == "script_finished" and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                for control in tabs.values():
                    if len(control.options) > 1:
                        controls[control.param] = control
                self.controls = controls
                return time.perf_counter() - start, errors


def _drawn(element, which: str) -> tuple[str, object] | None:
    """(link parameter, the value the page set it to, or None if the page left it alone) of a bound control."""
    if which not in ("slider", "selectbox", "radio", "button_group", "number_input", "checkbox"):
        return None
    w = getattr(element, which)
    if not w.query_param_key:
        return None
    if not w.set_value:
        return w.query_param_key, None
    if which == "slider" and w.options:  # a select slider sends the option's label back (raw_value)
        value = w.raw_value[0] if len(w.raw_value) == 1 else tuple(w.raw_value)
    elif which == "slider":
        value = w.value[0] if len(w.value) == 1 else tuple(w.value)
    elif which == "button_group":
        value = w.raw_values[0] if len(w.raw_values) else None
    elif which in ("selectbox", "radio"):
        value = w.raw_value
    else:
        value = w.value
    return w.query_param_key, value


def _control(element, which: str) -> Control | None:
    """The control an element draws, if a walk may move it (bound to the link, not disabled, not skipped)."""
    if which not in ("slider", "selectbox", "radio", "button_group"):
        return None
    w = getattr(element, which)
    param = w.query_param_key
    if not param or w.disabled or param in SKIP or any(part in param for part in SKIP_PARTS):
        return None
    if which == "slider":
        if w.options:  # a select slider: its default holds indices
            options = tuple(w.options)
            return Control(param, "select_slider", w.id, options, options[int(w.default[0])])
        from streamlit.proto.Slider_pb2 import Slider

        if len(w.default) != 1:
            return None  # a range slider: not walked
        integer = w.data_type == Slider.INT
        default = int(w.default[0]) if integer else w.default[0]
        return Control(param, "slider", w.id, (), default, w.min, w.max, w.step, integer)
    if which == "button_group":
        options = tuple(o.content for o in w.options)
        default = options[w.default[0]] if len(w.default) else None
    else:
        options = tuple(w.options)
        default = options[w.default] if w.HasField("default") and 0 <= w.default < len(options) else None
    return Control(param, which, w.id, options, default) if len(options) > 1 else None


async def walk(base: str, index: int, seconds: float) -> dict:
    """One person's walk for ``seconds``: upload, then page after page, moving controls with pauses."""
    rng = random.Random(index)
    raw = walk_csv(index)
    runs, errors, lost, pages = [], [], [], list(WALK)
    gave_up = []  # a rerun that did not finish: the person leaves (its late messages would be read as the next run's)

    async def timed(what: str, action) -> None:
        try:
            result = await asyncio.wait_for(action, RERUN_TIMEOUT)
        except TimeoutError:
            errors.append(f"{what}: no rerun within {RERUN_TIMEOUT:g} s")
            gave_up.append(what)
            return
        seconds, errs, *kept = result
        runs.append((what, seconds))
        errors.extend(f"{what}: {e}" for e in errs)
        if kept and kept[0]:
            lost.append(f"{what}: {kept[0]}")

    async with WalkingSession(base) as session:
        await asyncio.wait_for(session.run_page("data"), 60)  # the session's first page: a link opened
        await asyncio.sleep(rng.uniform(*PAUSE))
        await timed("data: upload", session.upload(f"walk{index}.csv", raw))
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline and not gave_up:
            rng.shuffle(pages)
            for page in pages:
                if time.perf_counter() >= deadline or gave_up:
                    break
                await asyncio.sleep(rng.uniform(*PAUSE))
                await timed(f"{page}: open", session.switch(page))
                moved = set()
                for _ in range(MOVES_PER_PAGE):
                    choices = sorted(set(session.controls) - moved)
                    if not choices or time.perf_counter() >= deadline or gave_up:
                        break
                    control = session.controls[rng.choice(choices)]
                    moved.add(control.param)
                    await asyncio.sleep(rng.uniform(*PAUSE))
                    await timed(f"{page}: {control.param}", session.move(control, rng))
        alive = session.open_connection and not gave_up
    return {"runs": runs, "errors": errors, "lost": lost, "alive": alive}


async def _warm(base: str) -> None:
    """Every page once, on the demo and on an upload, so that no timed rerun pays for a first import."""
    async with WalkingSession(base) as session:
        await asyncio.wait_for(session.run_page("data"), 120)
        await asyncio.wait_for(session.upload("warm.csv", walk_csv(1_000)), 120)
        for page in WALK:
            await asyncio.wait_for(session.switch(page), 120)


def _quantiles(times: list[float]) -> dict:
    times = sorted(times)
    if not times:
        return {"median_s": float("nan"), "p95_s": float("nan"), "max_s": float("nan")}
    p95 = times[max(0, math.ceil(0.95 * len(times)) - 1)]  # nearest rank: 95% of the reruns took at most this
    return {"median_s": statistics.median(times), "p95_s": p95, "max_s": times[-1]}


def summarise(results: list[dict]) -> dict:
    times = [s for r in results for _, s in r["runs"]]
    return {
        "sessions": len(results),
        "reruns": len(times),
        **_quantiles(times),
        "failed": sum(len(r["errors"]) for r in results),
        "lost": sum(len(r["lost"]) for r in results),
        "alive": sum(r["alive"] for r in results),
    }


def by_action(results: list[dict]) -> list[tuple[str, int, dict]]:
    """Reruns grouped by page and kind (upload, page switch, each control moved), slowest p95 first."""
    groups: dict[str, list[float]] = {}
    for r in results:
        for what, s in r["runs"]:
            page, action = what.split(": ", 1)
            groups.setdefault(f"{page}: {'open' if action == 'open' else action}", []).append(s)
    rows = [(name, len(ts), _quantiles(ts)) for name, ts in groups.items()]
    return sorted(rows, key=lambda row: -row[2]["p95_s"])


def by_page(results: list[dict]) -> list[tuple[str, int, dict]]:
    groups: dict[str, list[float]] = {}
    for r in results:
        for what, s in r["runs"]:
            groups.setdefault(what.split(": ", 1)[0], []).append(s)
    return sorted(((p, len(ts), _quantiles(ts)) for p, ts in groups.items()), key=lambda row: -row[2]["p95_s"])


def run_load(
    sessions: int,
    seconds: float,
    base: str | None = None,
    profile: str | None = None,
    browsers: int = 0,
    env: dict | None = None,
    browser_moves: int = 0,
) -> dict:
    """``sessions`` people for ``seconds`` on the app at ``base``, or on a fresh server (``env``: its extra environment).

    ``browsers`` of them are Chromium sessions moving Local DP's ε with the keyboard (:func:`browser_session`), the
    others protocol walkers (:func:`walk`); each browser makes at least ``browser_moves`` key presses, past ``seconds``
    if its reruns are slow (a test asks for a few whatever the machine's load). Returns ``walks`` and ``browser`` (each session's runs, failures, lost
    presses). On a fresh server also the server's script run times (logged by app.py), its CPU time, the machine's
    load average and busy share over the walk. ``profile``: a file py-spy writes the server's sampled stacks to
    (every thread holding the interpreter, 50 samples a second, the walk only).
    """
    if base is not None:
        asyncio.run(_warm(base))
        return asyncio.run(_gather(base, sessions, seconds, browsers, browser_moves))
    with (
        tempfile.NamedTemporaryFile(suffix=".log") as log,
        app_server(env={**(env or {}), "DPX_RUN_LOG": log.name}) as (url, proc),
    ):
        asyncio.run(_warm(url))
        cpu, (busy, total), load_before = _cpu_seconds(proc.pid), _machine_busy(), os.getloadavg()
        open(log.name, "w").close()  # only the timed runs
        spy = _py_spy(proc.pid, profile) if profile else None
        result = asyncio.run(_gather(url, sessions, seconds, browsers, browser_moves))
        if spy is not None:
            spy.send_signal(signal.SIGINT)  # py-spy writes what it sampled and exits
            spy.wait(60)
        busy_after, total_after = _machine_busy()
        return {
            **result,
            "server_runs": server_runs(log.name),
            "server_cpu_s": _cpu_seconds(proc.pid) - cpu,
            "machine_busy": (busy_after - busy) / (total_after - total),
            "load": (load_before, os.getloadavg()),
        }


async def _gather(base: str, sessions: int, seconds: float, browsers: int = 0, browser_moves: int = 0) -> dict:
    async def started(i: int) -> dict:
        await asyncio.sleep(i * 0.5)  # people do not arrive on the same millisecond
        return await walk(base, i, seconds)

    walkers = [started(i) for i in range(sessions - browsers)]
    if not browsers:
        return {"walks": await asyncio.gather(*walkers), "browser": []}
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        clicks = [browser_session(browser, base, seconds, sessions + i, browser_moves) for i in range(browsers)]
        results = await asyncio.gather(*walkers, *clicks)
        await browser.close()
    return {"walks": results[: sessions - browsers], "browser": results[sessions - browsers :]}


SLIDER = '[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]'  # the page's ε slider comes first
IDLE = """() => {
    const s = document.querySelector('[data-testid="stStatusWidget"]');
    return !(s && /running/i.test(s.innerText)) && document.querySelectorAll('[data-stale="true"]').length === 0;
}"""
METRIC = "() => { const m = document.querySelector('[data-testid=\"stMetricValue\"]'); return m ? m.innerText : null; }"


async def browser_session(browser, base: str, seconds: float, index: int, moves: int = 0) -> dict:
    """A person's browser among the walkers: Local DP's ε moved with the keyboard, a pause between presses.

    A rerun is timed from the key press until the shown figure changed and the page is idle (what the person sees,
    their browser's drawing included); a press the slider never shows is a lost key press. It presses for ``seconds``
    and at least ``moves`` times.
    """
    rng = random.Random(index)
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    await page.goto(f"{base}/local")
    await page.wait_for_function(f"() => ({METRIC})() !== null", timeout=60_000)
    await page.wait_for_function(IDLE, timeout=60_000)
    slider = page.locator(SLIDER).first
    runs, errors, lost, step = [], [], [], 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or step < moves:
        await page.wait_for_timeout(rng.uniform(*PAUSE) * 1000)
        await page.wait_for_function(IDLE, timeout=30_000, polling=50)
        before = await page.evaluate(METRIC)
        value = await slider.get_attribute("aria-valuetext")
        key = "ArrowRight" if (step // 4) % 2 == 0 else "ArrowLeft"
        step += 1
        await slider.focus()
        start = time.perf_counter()
        await slider.press(key)
        try:  # the key must move the slider; a press it never shows is lost
            await page.wait_for_function(
                "([sel, v]) => { const e = document.querySelector(sel); return e && e.getAttribute('aria-valuetext') !== v; }",
                arg=[SLIDER, value],
                timeout=RERUN_TIMEOUT * 1000,
                polling=20,
            )
        except Exception:  # noqa: BLE001
            lost.append(f"local: {key} from ε = {value}")
            continue
        try:
            await page.wait_for_function(
                f"(v) => ({METRIC})() !== v", arg=before, timeout=RERUN_TIMEOUT * 1000, polling=50
            )
            await page.wait_for_function(IDLE, timeout=RERUN_TIMEOUT * 1000, polling=50)
            runs.append(("local: ε by keyboard (browser)", time.perf_counter() - start))
        except Exception as exc:  # noqa: BLE001 - no rerun within the timeout is a failed rerun, counted
            errors.append(f"local: no new figure within {RERUN_TIMEOUT:g} s of {key}: {str(exc)[:80]}")
        shown = page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]')
        errors.extend(f"local: {t}" for t in await shown.all_inner_texts())
    alive = await page.evaluate(METRIC) is not None
    await context.close()
    return {"runs": runs, "errors": errors, "lost": lost, "alive": alive}


def _py_spy(pid: int, out: str) -> subprocess.Popen:
    """Sample the server's stacks with py-spy (``pip install py-spy``) until interrupted; collapsed stacks to ``out``."""
    cmd = ["py-spy", "record", "--pid", str(pid), "--rate", "50", "--gil", "--format", "raw", "--output", out]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


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


def server_runs(run_log: str) -> dict:
    """Count, median, p95 and max wall time of the script runs the server logged."""
    times = [float(line.split()[1]) for line in open(run_log) if line.strip()]
    return {"runs": len(times), **_quantiles(times)}


def _ms(x: float) -> str:
    return f"{x * 1000:,.0f} ms"


def row(name: str, result: dict, seconds: float) -> str:
    """One row of the results table: ``name``, the sessions on the server, and the measured ones' reruns."""
    measured = result["browser"] or result["walks"]
    s = summarise(measured)
    met = s["p95_s"] < TARGET_P95_S and not s["failed"] and not s["lost"] and s["alive"] == s["sessions"]
    sessions = len(result["walks"]) + len(result["browser"])
    return (
        f"| {name} | {sessions} | {seconds:g} | {s['reruns']} | {_ms(s['median_s'])} | {_ms(s['p95_s'])} | "
        f"{_ms(s['max_s'])} | {s['failed']} | {s['lost']} | {s['alive']}/{s['sessions']} | "
        f"{result['load'][0][0]:.2f} | {'**yes**' if met else 'no'} |"
    )


HEADER = (
    "| measured | sessions | seconds | reruns timed | median | p95 | max | failed reruns | lost key presses "
    "| sessions alive | load average before | p95 < 1 s, none failed or lost |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def details(name: str, result: dict, seconds: float) -> str:
    """What a row's minutes looked like inside the server, and its failures and lost presses."""
    (l1, _, _), (l1_after, l5_after, _) = result["load"]
    server = result["server_runs"]
    lines = [
        f"- {name}: {server['runs']} script runs, median {_ms(server['median_s'])}, p95 {_ms(server['p95_s'])}, "
        f"max {_ms(server['max_s'])}; the server used {result['server_cpu_s']:.0f} CPU-seconds in {seconds:g} s; the "
        f"machine's two cores were {result['machine_busy']:.0%} busy; load average {l1:.2f} before, {l1_after:.2f} "
        f"(1 min) and {l5_after:.2f} (5 min) after."
    ]
    measured = result["walks"] + result["browser"]
    failures = [e for r in measured for e in r["errors"]]
    lost = [w for r in measured for w in r["lost"]]
    lines += [f"  - failed: {e}" for e in failures[:10]] + [f"  - not kept: {w}" for w in lost[:10]]
    return "\n".join(lines)


def breakdown(walks: list[dict]) -> str:
    """The walkers' reruns by page, and the ten slowest kinds of rerun."""
    return "\n".join(
        [
            "| page | reruns | median | p95 | max |",
            "|---|---|---|---|---|",
            *(
                f"| {p} | {n} | {_ms(q['median_s'])} | {_ms(q['p95_s'])} | {_ms(q['max_s'])} |"
                for p, n, q in by_page(walks)
            ),
            "",
            "The ten slowest kinds of rerun, by p95 (`open` is a page switch, otherwise the control moved, by its link "
            "parameter):",
            "",
            "| page: action | reruns | median | p95 | max |",
            "|---|---|---|---|---|",
            *(
                f"| {a} | {n} | {_ms(q['median_s'])} | {_ms(q['p95_s'])} | {_ms(q['max_s'])} |"
                for a, n, q in by_action(walks)[:10]
            ),
        ]
    )


def profile_summary(path: str, top: int = 25) -> str:
    """The app's own functions (explorer, dpcore, app_pages) by the share of the server's samples they were on.

    ``path`` holds py-spy's collapsed stacks (``frame;frame;... count``); a function counts once per stack
    (inclusive time: its own and what it called). Only samples holding the interpreter were taken (``--gil``).
    """
    counts: dict[str, int] = {}
    total = 0
    for line in open(path, encoding="utf-8", errors="replace"):
        stack, _, n = line.rstrip().rpartition(" ")
        if not n.isdigit():
            continue
        total += int(n)
        seen = set()
        for frame in stack.split(";"):
            where = re.search(r"\((?:.*/)?((?:explorer|dpcore|app_pages)/[^:]+):\d+\)", frame)
            if where:
                name = f"{where[1]} {frame.split(' (')[0].strip()}"
                if name not in seen:
                    seen.add(name)
                    counts[name] = counts.get(name, 0) + int(n)
    rows = sorted(counts.items(), key=lambda item: -item[1])[:top]
    return "\n".join(f"{n / max(total, 1):6.1%}  {name}" for name, n in rows) + f"\n({total} samples)"


def main() -> bool:
    """Run, print, and write the results (unless ``--no-write``); whether they were written."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--minutes", type=float, default=3)
    parser.add_argument("--profile", action="store_true", help="sample the server with py-spy and print its hot spots")
    parser.add_argument("--walk-only", action="store_true", help="only the first row (no GC baseline, no browser)")
    parser.add_argument("--no-write", action="store_true", help="print only (a trial run)")
    args = parser.parse_args()
    n, seconds = args.sessions, args.minutes * 60
    profile = tempfile.mktemp(prefix="load_profile", suffix=".txt") if args.profile else None
    walking = f"{n} people walking: upload, {len(WALK)} pages, {MOVES_PER_PAGE} controls a visit"
    runs = [(walking, run_load(n, seconds, profile=profile))]
    if not args.walk_only:
        # the baseline: Streamlit's default full gc.collect(2) after every script run (.streamlit/config.toml: off)
        gc = {"STREAMLIT_RUNNER_POST_SCRIPT_GC": "true"}
        runs.append(("the same with Streamlit's default post-run GC", run_load(n, seconds, env=gc)))
        runs.append(("one person's browser among them (Local DP ε by keyboard)", run_load(n, seconds, browsers=1)))
    table = HEADER + "\n" + "\n".join(row(name, result, seconds) for name, result in runs)
    text = (
        table
        + "\n\nThe walkers' reruns of the first row, by page (its switches and moves together):\n\n"
        + breakdown(runs[0][1]["walks"])
        + "\n\nThe same minutes inside the server (each script run's wall time, logged by app.py with DPX_RUN_LOG; it "
        "includes waiting for the interpreter behind the other sessions), and every failed rerun or lost key press:\n\n"
        + "\n".join(details(name, result, seconds) for name, result in runs)
    )
    print(text)
    if profile:
        print("\nThe app's functions by share of the server's samples holding the interpreter (py-spy, the walk):\n")
        print(profile_summary(profile))
    if args.no_write:
        return False
    l1 = runs[0][1]["load"][0][0]
    loaded = (
        f" **The machine was shared while this ran** (load average {l1:.2f} on 2 cores when the first walk began; other "
        "work competed with the server for the cores, so every figure is slower than on a machine of its own)."
        if l1 > 1.0
        else f" The machine was otherwise quiet (load average {l1:.2f} on 2 cores when the first walk began)."
    )
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Load: eight sessions walking like people\n\n"
        "Written by `python -m benchmarks.bench_load` on a 2-core machine: a fresh server per row, every page run once "
        f"before the clock starts. {n} sessions speak Streamlit's WebSocket protocol (no browser: the clients draw "
        f"nothing); each uploads its own {UPLOAD_ROWS}-row CSV through the Data page's uploader (the browser's PUT "
        f"with the XSRF token), then walks {', '.join(WALK)} in a shuffled order of its own, round after round, moving "
        f"{MOVES_PER_PAGE} different controls per visit (sliders one step, select boxes, radios, segmented controls, "
        f"tabs), pausing {PAUSE[0]:g}–{PAUSE[1]:g} s between actions. Every rerun is timed from the request to the "
        "server's `script_finished`: the upload, the page switches and the moves. A failed rerun raised, showed an "
        f"error box or took over {RERUN_TIMEOUT:g} s; a lost key press is a move the page did not keep (the control "
        "gone after the rerun, or set to another value). The second row runs the same walk with Streamlit's default "
        "`runner.postScriptGC = true` (a full `gc.collect(2)` after every script run), the baseline for the setting in "
        "`.streamlit/config.toml`. In the third, one of the eight is a Chromium moving Local DP's ε with the keyboard "
        "beside seven walkers, timed from the key press until the figure changed and the page is idle (the table "
        "counts its reruns)." + loaded + "\n\n" + text + "\n"
    )
    return True


if __name__ == "__main__":
    if main():
        readme_figures.update()
