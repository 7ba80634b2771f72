"""Concurrent sessions over the app's own WebSocket protocol, no browser needed.

The measurement (a minute, latency against the 2 s target) is benchmarks/bench_load.py;
here a short run checks behaviour: every session stays alive and every rerun shows new,
error-free results. The protocol client is checked first, so that a pass means something.
"""

from __future__ import annotations

import asyncio

import pytest

from benchmarks.bench_load import SLIDERS, run_load, summarise
from tests.browser import running_app
from tests.protocol_client import ProtocolSession


@pytest.fixture(scope="module")
def app_url():
    with running_app() as base:
        yield base


async def _open_and_move(base: str, page: str, query: str, moves: list[str]):
    async with ProtocolSession(base, page, query) as session:
        runs = [await asyncio.wait_for(session.open(), 120)]
        for option in moves:
            runs.append(await asyncio.wait_for(session.set_select_slider(SLIDERS[page], option), 30))
        return runs


def test_client_sees_what_a_slider_move_changes_and_reports_an_error_box(app_url):
    first, moved, same = asyncio.run(_open_and_move(app_url, "central", "seed=5", ["2", "2"]))
    assert first.charts >= 2 and not first.errors and "cen_epsilon" in first.sliders
    assert moved.digest != first.digest  # ε 1 -> 2 changes the release and its charts
    assert same.digest == moved.digest  # the same settings and seed show the same numbers
    (broken,) = asyncio.run(_open_and_move(app_url, "central", "cen_query=Sum&cen_lower_age=100&cen_upper_age=10", []))
    assert broken.errors and "lower bound must be below the upper bound" in broken.errors[0]


def test_eight_sessions_on_five_pages_stay_alive_and_every_rerun_shows_new_results(app_url):
    result = run_load(8, 0, 4.0, base=app_url)
    s = summarise(result["protocol"])
    print(f"short protocol load: {s}")
    assert s["alive"] == 8 and s["errors"] == 0
    assert all(len(r["times"]) >= 2 for r in result["protocol"])
