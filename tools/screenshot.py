"""Start the app as the README does and save full-page screenshots of pages.

Usage:
  python -m tools.screenshot [url_path[?query] ...]      every page's default view (or the paths given), without
                                                         data of one's own, into test-artifacts/screens/
  python tools/screenshot.py --upload FILE --out DIR [--url http://127.0.0.1:8501] [--trials N] [--open-expanders]
                                                         FILE uploaded on the Data page, then every page of app.py
                                                         and every view switch of each page (tabs, Central's query
                                                         radio, Compare's query select: the walks of
                                                         tests/test_browser_links.PAGES) into DIR/<page>[-view].png

Both use Debian's chromium through Playwright's Python client (requirements-dev.txt), a 1400 × 900 viewport and
full-page screenshots; no browser is downloaded. With --url the app already running there is used, else one is
started on a free loopback port and stopped at the end. Every step waits for Streamlit's own idle state (a run that
finished after the click, every chart drawn, no stale element and no background job), never a fixed sleep.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script (python tools/screenshot.py): the repository's packages
    sys.path.insert(0, str(ROOT))

from tests.browser import NAV_LINK, full_page_screenshot, launch_browser, running_app, wait_for_page  # noqa: E402

OUT = ROOT / "test-artifacts" / "screens"
DEFAULT = ["", "data", "local", "central", "svt", "accountant", "compare", "audit", "learning", "people", "publish"]
VIEWPORT = {"width": 1400, "height": 900}
#: The sidebar link of each page, by its URL path (app.py's page titles).
TITLES = {
    "": "Overview",
    "data": "Data",
    "local": "Local DP",
    "central": "Central DP",
    "svt": "Sparse vector",
    "accountant": "Accountant",
    "compare": "Compare",
    "audit": "Audit",
    "learning": "Learning",
    "people": "People",
    "publish": "Publish",
}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def main(paths: list[str]) -> None:
    """Every page's default view (or the paths given) without data of one's own: the tool's first use."""
    OUT.mkdir(parents=True, exist_ok=True)
    with running_app() as base, launch_browser() as browser:
        page = browser.new_page(viewport=VIEWPORT)
        for path in paths or DEFAULT:
            page.goto(f"{base}/{path}")
            wait_for_page(page)
            name = re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_") or "home"
            target = OUT / f"{name}.png"
            full_page_screenshot(page, target)
            print(target)


def switch(p, how) -> str:
    """Switch to the view ``how`` (as tests/test_browser_links.switch_view does) and return its name for a file:
    the tab's, the radio option's or the chosen option's label."""
    from tests.test_browser_links import act, switch_view

    main_block = p.locator('[data-testid="stMain"]')
    if how[0] == "select":  # the option's label is read from the open list, before the click closes it
        main_block.locator(f".st-key-{how[1]} [data-testid='stSelectbox']").click()
        option = p.locator('[role="option"]').nth(how[2])
        label = option.inner_text()
        act(p, option.click)
        return slug(label)
    switch_view(p, how)
    if how[0] == "tab":
        return slug(main_block.locator('[role="tablist"]').first.locator('[role="tab"]').nth(how[1]).inner_text())
    return slug(how[2])


def open_all_expanders(p) -> int:
    """Open every closed expander of the page body (drawn in the browser, no rerun); returns how many it opened."""
    closed = p.locator('[data-testid="stMain"] [data-testid="stExpander"] details:not([open]) > summary')
    count = closed.count()
    for _ in range(count):
        closed.first.click()
    p.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return count


def upload_and_walk(
    base: str, upload: pathlib.Path, out: pathlib.Path, trials: int | None = None, open_expanders: bool = False
) -> list[pathlib.Path]:
    """Upload ``upload`` on the Data page, then shoot every page and every view of it; returns the PNGs written.

    ``open_expanders``: also a ``<page>[-view]-open.png`` with every expander of the view opened."""
    from tests.test_browser_links import PAGES, act, new_page, open_url, settle

    out.mkdir(parents=True, exist_ok=True)
    written = []
    query = f"?trials={trials}" if trials else ""
    with launch_browser() as browser:
        p = new_page(browser)  # counts the server's finished runs: the idle state of tests/test_browser_links
        open_url(p, f"{base}/data{query}")
        before = p.evaluate("() => window.__dpxRuns || 0")
        p.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(upload))
        p.wait_for_function(
            "(name) => document.querySelector('[data-testid=\"stSidebarContent\"]').innerText.includes(name)",
            arg=upload.name,
            timeout=600_000,
        )
        settle(p, before)
        for path, views in PAGES.items():
            started = time.perf_counter()
            act(p, p.locator(NAV_LINK, has_text=TITLES[path]).first.click)
            page_name = path or "home"
            for how in views:
                name = page_name if how is None else f"{page_name}-{switch(p, how)}"
                if upload.name not in p.locator('[data-testid="stSidebarContent"]').inner_text():
                    raise RuntimeError(f"{name}: the page lost the uploaded file {upload.name}")
                target = out / f"{name}.png"
                full_page_screenshot(p, target)
                written.append(target)
                print(target, flush=True)
                if open_expanders and open_all_expanders(p):
                    target = out / f"{name}-open.png"
                    full_page_screenshot(p, target)
                    written.append(target)
                    print(target, flush=True)
            print(f"  {page_name}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        p.context.close()
    return written


def cli(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="URL paths to shoot without an upload (default: every page)")
    parser.add_argument("--upload", type=pathlib.Path, help="a CSV file to upload on the Data page first")
    parser.add_argument("--out", type=pathlib.Path, help="the folder for the PNGs of --upload")
    parser.add_argument("--url", help="the base URL of an app already running (default: start one)")
    parser.add_argument("--trials", type=int, help="simulated trials per figure (default: the app's)")
    parser.add_argument(
        "--open-expanders", action="store_true", help="also shoot each view with every expander opened (-open.png)"
    )
    args = parser.parse_args(argv)
    if args.upload is None:
        if args.out or args.url or args.trials or args.open_expanders:
            parser.error("--out, --url, --trials and --open-expanders go with --upload")
        main(args.paths)
        return
    if args.paths:
        parser.error("--upload walks every page: give no URL paths with it")
    if not args.upload.is_file():
        parser.error(f"--upload: no file at {args.upload}")
    out = args.out or ROOT / "test-artifacts" / "real" / slug(args.upload.stem)
    if args.url:
        upload_and_walk(args.url.rstrip("/"), args.upload, out, args.trials, args.open_expanders)
    else:
        with running_app() as base:
            upload_and_walk(base, args.upload, out, args.trials, args.open_expanders)


if __name__ == "__main__":
    cli(sys.argv[1:])
