"""Memory that follows the sessions: ten sessions with large uploads on every page, then the server after they close.

Run: python -m benchmarks.bench_memory [--sessions 10] [--minutes 2] [--concurrent 2]

The server is started as the README does (``streamlit run app.py``, :func:`tests.browser.app_server`). Every page
runs once in a warm-up session (the imports and the demo's caches), then the server's resident memory (RSS,
``/proc/<pid>/status``) is read every second for ten seconds: the **baseline** is their median. Then N sessions,
each a client of Streamlit's own WebSocket protocol (:mod:`tests.protocol_client`, no browser), each:

1. opens the Data page and uploads its own CSV of about 20 MB (a legal upload, under the 25 MiB limit) the way
   the browser does: a ``file_urls_request`` on the socket, an HTTP PUT of the file to the URL the server gives
   (with the XSRF cookie and header a browser sends), then a rerun whose uploader state names the file; the run
   must say ``Loaded``. Each session's file is different (its own seed), so no cache shares one parse;
2. visits every page of the app by its URL path (the Learning page trains on the upload: 600,000 rows, a text
   column of 1,000 categories, a text column of 20, two numbers and a 0/1 target);
3. closes its socket, as a closed tab does.

``--concurrent`` sessions run at once (the others wait their turn), so the peak holds that many uploads. After the
last session closes, the RSS is read every 10 s for ``--minutes``. Target (issue 23): within 300 MB of the baseline
after 2 minutes. Prints a table, writes ``benchmarks/results/memory.md`` and updates the README's figures.

With ``DPX_MEMORY_REPORT`` set to a file, the server's reaper (:mod:`explorer.uploads`) appends what it holds at
each of its ticks (sessions, uploaded files, the byte-bounded caches, ``gc`` counts): the bench prints the last.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import pathlib
import statistics
import tempfile
import time

import numpy as np

from benchmarks import readme_figures
from tests.browser import app_server
from tests.protocol_client import ProtocolSession

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = pathlib.Path(__file__).with_name("results") / "memory.md"
#: Every page of app.py, by its URL path ("" is the Overview).
PAGES = ("", "data", "local", "central", "svt", "accountant", "compare", "audit", "learning")
#: Target of issue 23: the server's RSS this close to its baseline two minutes after the sessions closed.
TARGET_MB = 300.0
#: Seconds a page's first run may take on a 20 MB upload with other sessions running beside it.
RUN_TIMEOUT = 600.0
#: Rows of each session's upload (about 20 MB).
UPLOAD_ROWS = 820_000


def upload_csv(seed: int, rows: int = UPLOAD_ROWS) -> bytes:
    """About 20 MB of CSV: ``city`` (1,000 categories, Zipf-like), ``job`` (20), ``x`` (float), ``n`` (0-99), ``y`` (0/1)."""
    rng = np.random.default_rng([2023, seed])
    weights = 1 / np.arange(1, 1_001)
    city = rng.choice(1_000, rows, p=weights / weights.sum())
    job = rng.integers(0, 20, rows)
    x = rng.normal(40, 12, rows)
    n = rng.integers(0, 100, rows)
    y = (rng.random(rows) < 0.3).astype(np.int64)
    lines = "\n".join(
        f"city{c},job{j},{a:.3f},{b},{t}"
        for c, j, a, b, t in zip(city.tolist(), job.tolist(), x.tolist(), n.tolist(), y.tolist())
    )
    return ("city,job,x,n,y\n" + lines + "\n").encode()


class UploadingSession(ProtocolSession):
    """A :class:`ProtocolSession` that also uploads a file through the Data page's uploader, as a browser does."""

    def __init__(self, base: str, page: str = "data", query: str = "") -> None:
        super().__init__(base, page, query)
        self.base = base
        self.session_id = ""
        self.uploader_id = ""
        self.shown: list[str] = []  # success and error alert texts of the last run
        self.elements = 0  # elements the last run drew

    async def run_page(self, page: str) -> tuple[float, list[str]]:
        """Open ``page`` (its URL path) as a link does; (seconds, errors) of its first run."""
        self.page = page
        return await self._run(page_name=page)

    async def upload(self, name: str, raw: bytes) -> tuple[float, list[str]]:
        """Upload ``raw`` through the Data page's ``data_upload`` widget; (seconds of the rerun, errors)."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.Common_pb2 import FileURLs, UploadedFileInfo
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        request = BackMsg()
        request.file_urls_request.request_id = "bench"
        request.file_urls_request.file_names.append(name)
        request.file_urls_request.session_id = self.session_id
        await self.ws.send(request.SerializeToString())
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(await self.ws.recv())
            if fwd.WhichOneof("type") == "file_urls_response":
                urls = fwd.file_urls_response.file_urls[0]
                break
        await asyncio.to_thread(_put, self.base, urls.upload_url, name, raw)
        state = WidgetState(id=self.uploader_id)
        info = UploadedFileInfo(name=name, size=len(raw), file_id=urls.file_id)
        info.file_urls.CopyFrom(FileURLs(file_id=urls.file_id, upload_url=urls.upload_url, delete_url=urls.delete_url))
        state.file_uploader_state_value.uploaded_file_info.append(info)
        self.states = {"data_upload": state}
        seconds, errors = await self._run(page_script_hash=self.page_hash)
        if not any(text.startswith("Loaded") for text in self.shown):
            errors = [*errors, f"no 'Loaded' after the upload: {self.shown}"]
        self.states = {}  # the other pages do not have the uploader; the dataset is the session's now
        return seconds, errors

    async def _run(self, **page) -> tuple[float, list[str]]:
        from streamlit.proto.Alert_pb2 import Alert
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        for key, value in page.items():
            setattr(msg.rerun_script, key, value)
        msg.rerun_script.widget_states.widgets.extend(self.states.values())
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        errors, self.shown, self.elements = [], [], 0
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(await self.ws.recv())
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fwd.new_session.initialize.session_id
            elif kind == "navigation":
                self.page_hash = fwd.navigation.page_script_hash
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
            elif kind == "script_finished" and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return time.perf_counter() - start, errors


def _put(base: str, upload_url: str, name: str, raw: bytes) -> None:
    """PUT one file to Streamlit's upload route with the XSRF cookie and header a browser sends."""
    import requests
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    token = generate_xsrf_token_string()
    url = upload_url if upload_url.startswith("http") else base + upload_url
    reply = requests.put(
        url,
        files={"file": (name, raw, "text/csv")},
        headers={"X-Xsrftoken": token},
        cookies={"_streamlit_xsrf": token},
        timeout=120,
    )
    if reply.status_code != 204:
        raise RuntimeError(f"upload refused: HTTP {reply.status_code} {reply.text[:200]}")


async def one_session(base: str, index: int) -> dict:
    """Upload this session's file and visit every page; the seconds and errors of each run."""
    raw = await asyncio.to_thread(upload_csv, index)
    runs, errors = {}, []
    async with UploadingSession(base) as session:
        seconds, errs = await asyncio.wait_for(session.run_page("data"), RUN_TIMEOUT)
        seconds, errs = await asyncio.wait_for(session.upload(f"session{index}.csv", raw), RUN_TIMEOUT)
        runs["upload"] = seconds
        errors += errs
        for page in PAGES:
            seconds, errs = await asyncio.wait_for(session.run_page(page), RUN_TIMEOUT)
            runs[page or "home"] = seconds
            errors += [f"{page or 'home'}: {e}" for e in errs]
            if session.elements < 5:
                errors.append(f"{page or 'home'}: only {session.elements} element(s) drawn")
    return {"bytes": len(raw), "runs": runs, "errors": errors}


async def _sessions(base: str, n: int, concurrent: int, pid: int, peaks: list[tuple[float, float]]) -> list[dict]:
    gate = asyncio.Semaphore(concurrent)

    async def gated(i: int) -> dict:
        async with gate:
            started = time.perf_counter()
            result = await one_session(base, i)
            print(
                f"session {i}: {result['bytes'] / 1e6:.1f} MB uploaded, every page in "
                f"{time.perf_counter() - started:.0f} s, server {rss_mb(pid):.0f} MB, errors: {result['errors'] or 'none'}",
                flush=True,
            )
            return result

    async def watch(done: asyncio.Event) -> None:
        while not done.is_set():
            peaks.append((rss_mb(pid), workers_mb(pid)))
            await asyncio.sleep(1)

    done = asyncio.Event()
    watcher = asyncio.create_task(watch(done))
    try:
        return await asyncio.gather(*(gated(i) for i in range(n)))
    finally:
        done.set()
        await watcher


async def _warm(base: str) -> None:
    async with UploadingSession(base) as session:
        for page in PAGES:
            await asyncio.wait_for(session.run_page(page), RUN_TIMEOUT)


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB (Linux /proc); 0 once it has gone."""
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def workers_mb(pid: int) -> float:
    """Resident memory of the server's child processes and theirs (the worker pool of ``explorer.jobs``), in MB."""
    children: dict[int, list[int]] = {}
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0.0, list(children.get(pid, []))
    while todo:
        child = todo.pop()
        total += rss_mb(child)
        todo += children.get(child, [])
    return total


def measure(sessions: int, minutes: float, concurrent: int, env: dict | None = None) -> dict:
    """Baseline, peak and the RSS every 10 s after the sessions closed, on a fresh server."""
    with tempfile.TemporaryDirectory() as data_dir:
        report = pathlib.Path(data_dir) / "memory_report.jsonl"
        env = {"DPX_DATA_DIR": data_dir, "DPX_MEMORY_REPORT": str(report), **(env or {})}
        with app_server(env=env) as (url, proc):
            asyncio.run(_warm(url))
            samples = []
            for _ in range(10):
                time.sleep(1)
                samples.append(rss_mb(proc.pid))
            baseline = statistics.median(samples)
            print(f"baseline {baseline:.0f} MB", flush=True)
            peaks: list[tuple[float, float]] = []
            started = time.perf_counter()
            results = asyncio.run(_sessions(url, sessions, concurrent, proc.pid, peaks))
            took = time.perf_counter() - started
            closed = time.perf_counter()
            after = []
            for t in itertools.count(0, 10):
                if t > minutes * 60:
                    break
                time.sleep(max(0.0, closed + t - time.perf_counter()))
                after.append((t, rss_mb(proc.pid), workers_mb(proc.pid)))
                print(f"{t:4d} s after the sessions closed: {after[-1][1]:.0f} MB", flush=True)
            last = report.read_text().splitlines()[-1] if report.exists() and report.read_text() else ""
    return {
        "baseline": baseline,
        "peak": max((p for p, _ in peaks), default=baseline),
        "peak_workers": max((w for _, w in peaks), default=0.0),
        "after": after,
        "results": results,
        "seconds": took,
        "report": json.loads(last) if last else None,
    }


def table(m: dict) -> str:
    base = m["baseline"]
    rows = [f"| baseline (after every page ran once) | {base:.0f} MB | | | |"]
    rows.append(
        f"| peak while the sessions ran | {m['peak']:.0f} MB | {m['peak'] - base:+.0f} MB | {m['peak_workers']:.0f} MB | |"
    )
    for t, mb, workers in m["after"]:
        met = "**yes**" if mb - base <= TARGET_MB else "no"
        rows.append(
            f"| {t} s after the last session closed | {mb:.0f} MB | {mb - base:+.0f} MB | {workers:.0f} MB | {met} |"
        )
    return (
        "| server | RSS | above the baseline | job workers (RSS) | within 300 MB |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--concurrent", type=int, default=2)
    args = parser.parse_args()
    m = measure(args.sessions, args.minutes, args.concurrent)
    errors = [e for r in m["results"] for e in r["errors"]]
    runs = {page: statistics.median(r["runs"][page] for r in m["results"]) for page in m["results"][0]["runs"]}
    size = statistics.mean(r["bytes"] for r in m["results"]) / 1e6
    text = table(m)
    final = m["after"][-1][1] - m["baseline"]
    summary = (
        f"{args.sessions} sessions, {args.concurrent} at a time, each uploading its own {size:.1f} MB CSV "
        f"({UPLOAD_ROWS:,} rows) and visiting the {len(PAGES)} pages, in {m['seconds']:.0f} s; "
        f"{len(errors)} error(s) shown{': ' + '; '.join(f'{e} ({errors.count(e)}×)' for e in dict.fromkeys(errors)) if errors else ''}. "
        "Median first run per page: "
        + ", ".join(f"{page} {s:.1f} s" for page, s in runs.items())
        + f". {args.minutes:g} minutes after the last session closed the server holds {final:+.0f} MB over its "
        f"baseline: {'within' if final <= TARGET_MB else 'over'} the 300 MB target."
    )
    if m["report"]:
        report = {k: v for k, v in m["report"].items() if k != "time" and v != {}}
        summary += (
            f"\n\nThe server's own account at the reaper's last round (`DPX_MEMORY_REPORT`): `{json.dumps(report)}`."
        )
    print(text + "\n\n" + summary)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Memory: ten sessions with large uploads, then the server after they close\n\n"
        "Written by `python -m benchmarks.bench_memory` on a 2-core shared machine: the app started as the README "
        "does, every page run once before the baseline (the median of ten readings a second apart); each session "
        "speaks Streamlit's WebSocket protocol, uploads its own CSV through the Data page's uploader (a PUT to the "
        "upload route, as a browser does) and opens every page by its URL path, then closes its socket as a closed "
        "tab does. Resident memory (RSS) of the server process from `/proc`, and of its child processes (the job "
        "workers of `explorer.jobs`) apart. A closed tab's session is kept 60 s for a reconnect, then closed by the "
        "reaper of `explorer.uploads` at its next round (every 10 s): its state, files and its share of the shared "
        "caches go, the garbage is collected and the freed memory given back to the system, so the sessions closed "
        "last are released 60 to 70 s after they closed. Target (issue 23): within 300 MB of the baseline 2 minutes "
        "after the sessions closed.\n\n" + text + "\n\n" + summary + "\n"
    )


if __name__ == "__main__":
    main()
    readme_figures.update()
