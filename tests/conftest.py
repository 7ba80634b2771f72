"""Shared fixtures. Tolerances live in tests/tolerances.py."""

import os
import tempfile

# One BLAS thread, set before numpy loads its BLAS: a multi-threaded matrix product may split its sums by the
# threads it gets, so a snippet run in a subprocess (which inherits these) could print a weight that differs from
# the page's in its ninth digit. With one thread both sum in the same order and the snippet tests compare exactly.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numpy as np  # noqa: E402 - after the thread settings above
import pytest  # noqa: E402

# Publications made by the tests go to a log of their own, never to the repository's var/ folder; set at import so
# that servers the tests start inherit it.
os.environ["DPX_DATA_DIR"] = tempfile.mkdtemp(prefix="dpx-test-publications-")


@pytest.fixture(scope="module")
def app_url():
    """The app started as the README does, one server per browser test module that asks for it."""
    from tests.browser import running_app

    with running_app() as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright, one per browser test module that asks for it."""
    from tests.browser import launch_browser

    with launch_browser() as b:
        yield b


@pytest.fixture
def rng():
    return np.random.default_rng(20170101)


def pytest_sessionfinish(session, exitstatus):
    """With DPX_NO_SKIPS=1 (set by .ci/run) a skipped test fails the run: in CI every check must really run."""
    if os.environ.get("DPX_NO_SKIPS") != "1" or exitstatus != 0:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped:
        reasons = sorted({str(getattr(report, "longrepr", ""))[-200:] for report in skipped})
        reporter.write_line(f"{len(skipped)} test(s) skipped, which DPX_NO_SKIPS=1 forbids: {reasons}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
