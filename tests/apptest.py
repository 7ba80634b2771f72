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


def fixed_histogram(at: AppTest, key: str) -> tuple[list, list]:
    """The error histogram drawn under ``key``: its traces (numbers decoded) and its x-axis range."""
    import base64
    import json

    import numpy as np

    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(f"-{key}"))
    spec = json.loads(chart.proto.spec)
    for trace in spec["data"]:
        for axis in ("x", "y"):
            y = trace.get(axis)
            if isinstance(y, dict):  # a typed array
                trace[axis] = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
    return spec["data"], spec["layout"]["xaxis"]["range"]


def assert_epsilon_widens(at: AppTest, key: str, slider: str, std_label: str) -> None:
    """Move the ε select-slider ``slider`` from where it is to 0.1: the histogram under ``key`` keeps its x-axis and
    its dotted reference law at ε = 0.5, its own law changes, and the empirical std (metric ``std_label``) grows."""
    import numpy as np

    def std() -> float:
        return float(metric(at, std_label).replace(",", ""))

    data, axis = fixed_histogram(at, key)
    before = std()
    at.select_slider(key=slider).set_value(0.1).run()
    assert_clean(at)
    after_data, after_axis = fixed_histogram(at, key)
    assert after_axis == axis, "the axis followed the slider"

    def reference(traces):
        return next(t for t in traces if str(t.get("name", "")).startswith("at ε = 0.5, for reference"))

    assert np.allclose(np.asarray(reference(data)["y"], float), np.asarray(reference(after_data)["y"], float))
    assert not np.allclose(np.asarray(data[1]["y"], float), np.asarray(after_data[1]["y"], float))
    assert std() > 3 * before  # ε from 1 to 0.1: about ten times the noise (the local mean's is about 8)
