"""Helpers to drive the app with Streamlit's AppTest (no browser)."""

from __future__ import annotations

import pathlib
import time

from streamlit.testing.v1 import AppTest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = {
    "home": "app_pages/home.py",
    "data": "app_pages/data.py",
    "local": "app_pages/local.py",
    "central": "app_pages/central.py",
    "svt": "app_pages/svt.py",
    "accountant": "app_pages/accountant.py",
    "compare": "app_pages/compare.py",
    "audit": "app_pages/audit.py",
    "learning": "app_pages/learning.py",
    "people": "app_pages/people.py",
    "publish": "app_pages/publish.py",
}


def open_page(page: str, timeout: float = 60, **query) -> AppTest:
    """Run the app, switch to ``page`` and return the AppTest after the run.

    ``query`` sets URL query parameters before the first run (a shared link).
    """
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    for key, value in query.items():
        at.query_params[key] = str(value)
    at.run()
    if page != "home":
        at.switch_page(PAGES[page])
        at.run()
    return at


def assert_clean(at: AppTest) -> None:
    """No exception element and no error box on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def metric(at: AppTest, label: str) -> str:
    """The shown value of the metric with this label."""
    found = [m.value for m in at.metric if m.label == label]
    assert found, f"no metric labelled {label!r}; have {[m.label for m in at.metric]}"
    return found[0]


#: Seconds a background computation (an audit, a training run, a whole-file scan in the server's pool) may take on a
#: loaded 2-core machine before a test fails.
POOL_TIMEOUT = 300


def poll_until(at: AppTest, condition, timeout: float = POOL_TIMEOUT) -> AppTest:
    """Rerun the page (as its polling fragment would) until ``condition(at)``; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition(at):
        assert time.monotonic() < deadline, "the page did not get its background result"
        time.sleep(0.5)
        at.run()
    return at
