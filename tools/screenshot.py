"""Start the app as the README does and save full-page screenshots of pages.

Usage: python -m tools.screenshot [url_path[?query] ...]   (default: every page)
Writes PNGs to test-artifacts/screens/. Needs Debian's chromium and Playwright's
Python client (requirements-dev.txt); no browser is downloaded.
"""

from __future__ import annotations

import pathlib
import re
import sys

from tests.browser import full_page_screenshot, launch_browser, running_app, wait_for_page

ROOT = pathlib.Path(__file__).resolve().parents[1]

OUT = ROOT / "test-artifacts" / "screens"
DEFAULT = ["", "data", "local", "central", "svt", "accountant", "compare", "audit", "learning"]


def main(paths: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with running_app() as base, launch_browser() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        for path in paths or DEFAULT:
            page.goto(f"{base}/{path}")
            wait_for_page(page)
            name = re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_") or "home"
            target = OUT / f"{name}.png"
            full_page_screenshot(page, target)
            print(target)


if __name__ == "__main__":
    main(sys.argv[1:])
