"""What a person feels in a real browser: the first chart page of a new session, and a slider walk.

Run: python -m benchmarks.bench_browser [--repeats N]
Prints a table and writes benchmarks/results/browser.md.

1. First paint. A new browser context (its own empty cache, a new session) opens the Overview, reads it for
   two seconds, then follows the navigation to Local DP: the time until its charts are
   drawn, against the same page opened again warm (Compare, then back to Local DP), in the
   same run. Target: the first at most 1.5× the warm one. For contrast, a new
   context landing directly on Local DP (a deep link: nothing could have been loaded before).
2. Slider walk. Twenty presses of the arrow key on Local DP's ε slider, as fast as the
   keyboard sends them: the time until the page is idle on the last value, and how many
   script runs the server started and finished for them (from DPX_RUN_LOG). Streamlit
   interrupts a run when a newer one is asked for, so they must not queue.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import tempfile
import time

from benchmarks import readme_figures
from tests.browser import NAV_LINK, launch_browser, running_app, wait_for_page

RESULTS = pathlib.Path(__file__).with_name("results") / "browser.md"
BUSY = """() => { const s = document.querySelector('[data-testid="stStatusWidget"]');
                  return !(s && /running/i.test(s.innerText)); }"""


def _charts_drawn(page) -> None:
    page.wait_for_function(
        "() => { const c = [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')];"
        " return c.length > 0 && c.every(e => e.querySelector('.main-svg')); }",
        timeout=60_000,
        polling=50,
    )


def _follow(page, label: str) -> float:
    start = time.perf_counter()
    page.locator(NAV_LINK, has_text=label).first.click()
    page.wait_for_function(BUSY, timeout=60_000)
    _charts_drawn(page)
    return time.perf_counter() - start


def first_paint(browser, base: str) -> tuple[float, float, float]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(base)
    wait_for_page(page)
    page.wait_for_timeout(2000)  # the Overview is read
    first = _follow(page, "Local DP")
    _follow(page, "Compare")
    warm = _follow(page, "Local DP")
    context.close()
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(f"{base}/local")
    _charts_drawn(page)
    deep = time.perf_counter() - start
    context.close()
    return first, warm, deep


def slider_walk(browser, base: str, run_log: pathlib.Path) -> tuple[float, int]:
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.goto(f"{base}/local")
    wait_for_page(page)
    before = len(run_log.read_text().splitlines()) if run_log.exists() else 0
    thumb = page.locator('[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]').first
    thumb.focus()
    start = time.perf_counter()
    for _ in range(20):
        page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => location.search.includes('ldp_epsilon=0.01')", timeout=60_000)
    page.wait_for_function(BUSY, timeout=60_000)
    page.wait_for_timeout(300)  # a rerun that starts late would show here
    page.wait_for_function(BUSY, timeout=60_000)
    took = time.perf_counter() - start - 0.3
    runs = len(run_log.read_text().splitlines()) - before
    page.context.close()
    return took, runs


def main(repeats: int) -> None:
    log = pathlib.Path(tempfile.mkdtemp()) / "runs.log"
    paints, walks = [], []
    with running_app(env={"DPX_RUN_LOG": str(log)}) as base, launch_browser() as browser:
        warm_up = browser.new_context().new_page()
        warm_up.goto(f"{base}/local")
        wait_for_page(warm_up)
        warm_up.context.close()
        for _ in range(repeats):
            paints.append(first_paint(browser, base))  # each context has its own empty cache: a new visitor
            walks.append(slider_walk(browser, base, log))
    med = [statistics.median(x) for x in zip(*paints)]
    walk = statistics.median(w for w, _ in walks)
    runs = statistics.median(r for _, r in walks)
    rows = [
        (
            "First chart page of a new session (after the Overview)",
            f"{med[0]:.2f} s",
            f"{med[0] / med[1]:.2f}× warm",
            "≤ 1.5× warm",
        ),
        ("The same page, warm", f"{med[1]:.2f} s", "1.00×", ""),
        ("A new session landing on it directly (deep link)", f"{med[2]:.2f} s", f"{med[2] / med[1]:.2f}× warm", ""),
        ("Slider walk: 20 arrow presses, until idle", f"{walk:.2f} s", f"{runs:.0f} script runs finished", "no queue"),
    ]
    lines = [
        "# What a person feels in the browser",
        "",
        f"Written by `python -m benchmarks.bench_browser`: Debian's Chromium, headless, on the 2-core shared machine, "
        f"median of {repeats} repeats. Each first paint uses a new browser context (its own empty cache and session).",
        "",
        "| measured | time | against | target |",
        "|---|---|---|---|",
        *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows],
        "",
        "The Overview draws a small chart, so the browser loads and parses the charting code (Streamlit's 4.7 MB "
        "Plotly bundle) while it is read; a deep link to a chart page must load it first.",
    ]
    text = "\n".join(lines) + "\n"
    RESULTS.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    main(parser.parse_args().repeats)
    readme_figures.update()
