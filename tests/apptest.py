"""Helpers to drive the app with Streamlit's AppTest (no browser)."""

from __future__ import annotations

import pathlib

import streamlit.testing.v1.app_test as _app_test
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest


class _ServedPagesManager(PagesManager):
    """The page manager of a server past its first run.

    AppTest builds a new PagesManager for every run and first resets Streamlit's
    legacy ``pages/`` discovery flag, as if each run were a fresh server's first.
    A real server decides once, and the first run of ``app.py`` switches the
    discovery off (``explorer.frame.leave_legacy_discovery``) by a rerun, which
    in AppTest would swallow every button click. The fresh server's first
    visit is tested with the real discovery in ``test_app.py`` (AppTest) and
    ``test_browser.py`` (Chromium, a server of its own).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        PagesManager.uses_pages_directory = False


_app_test.PagesManager = _ServedPagesManager

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = {
    "home": "pages/home.py",
    "data": "pages/data.py",
    "local": "pages/local.py",
    "central": "pages/central.py",
    "svt": "pages/svt.py",
    "accountant": "pages/accountant.py",
    "compare": "pages/compare.py",
    "audit": "pages/audit.py",
    "learning": "pages/learning.py",
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
