"""Start the app as the README does and drive it in Debian's Chromium with Playwright."""

from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The sidebar's navigation links (explorer.frame draws them in a container keyed "dpx_nav").
NAV_LINK = '[data-testid="stSidebar"] .st-key-dpx_nav a'
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_app(timeout: float = 60, env: dict | None = None):
    """``streamlit run app.py`` headless on a free loopback port; yields the base URL."""
    with app_server(timeout, env) as (base, _):
        yield base


@contextlib.contextmanager
def app_server(timeout: float = 60, env: dict | None = None):
    """As :func:`running_app`, yielding ``(base URL, server process)``: a benchmark reads the server's memory."""
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
    ]
    # the server's output goes to a file: an unread pipe would block the server once full
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                log.seek(0)
                out = log.read().decode(errors="replace")
                raise RuntimeError(f"the app did not start on {base}: {out[-2000:]}")
            time.sleep(0.3)
        yield base, proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@contextlib.contextmanager
def launch_browser():
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    if path is None:
        raise RuntimeError("Chromium is not installed (apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def wait_for_page(page, timeout: float = 30_000) -> None:
    """Wait until Streamlit has finished the run (no running indicator) and the page has content."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_function(
        """() => {
            const main = document.querySelector('[data-testid="stMain"]');
            const status = document.querySelector('[data-testid="stStatusWidget"]');
            const busy = status && /running/i.test(status.innerText);
            const skeletons = document.querySelectorAll('[data-testid="stSkeleton"]').length;
            const stale = document.querySelectorAll('[data-stale="true"]').length;
            const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
            const drawn = charts.every(c => c.querySelector('.main-svg'));
            return main && main.innerText.length > 20 && !busy && skeletons === 0 && stale === 0 && drawn;
        }""",
        timeout=timeout,
        polling=200,
    )
    page.wait_for_timeout(800)  # let Plotly finish its first draw


def full_page_screenshot(page, path) -> None:
    """Screenshot the whole page: Streamlit scrolls inside its main block, so grow the viewport to fit it."""
    width = page.viewport_size["width"] if page.viewport_size else 1400
    height = page.evaluate(
        """() => {
            const main = document.querySelector('[data-testid="stMain"]');
            const side = document.querySelector('[data-testid="stSidebarContent"]');
            return Math.max(main ? main.scrollHeight : 0, side ? side.scrollHeight : 0, 600);
        }"""
    )
    page.set_viewport_size({"width": width, "height": min(int(height) + 40, 12_000)})
    page.wait_for_timeout(500)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size({"width": width, "height": 900})


def require_browser_or_skip() -> None:
    """Skip the calling test module with a message where Chromium or Playwright is missing; with
    DPX_REQUIRE_BROWSER=1 (set by .ci/run) a missing browser fails instead."""
    import pytest

    try:
        import playwright.sync_api  # noqa: F401

        have_playwright = True
    except ImportError:
        have_playwright = False
    if not (have_playwright and chromium_path()):
        reason = (
            "browser tests need Debian's chromium and Playwright's Python client (pip install -r requirements-dev.txt)"
        )
        if os.environ.get("DPX_REQUIRE_BROWSER") == "1":
            raise RuntimeError(reason + "; DPX_REQUIRE_BROWSER=1 makes them mandatory")
        pytest.skip(reason, allow_module_level=True)
