"""Shared fixtures. Tolerances live in tests/tolerances.py."""

import os
import tempfile

import numpy as np
import pytest

# Publications made by the tests go to a log of their own, never to the repository's var/ folder; set at import so
# that servers the tests start inherit it.
os.environ["DPX_DATA_DIR"] = tempfile.mkdtemp(prefix="dpx-test-publications-")


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
