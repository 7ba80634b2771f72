"""Concurrent sessions over the app's own WebSocket protocol, no browser needed.

The measurement (eight people walking for minutes, latency against the 1 s p95 target) is benchmarks/bench_load.py;
here a short run checks behaviour: the walking client uploads, switches pages and moves controls of every kind, sees
what a move changes and what the page refuses, and every walker stays alive with every rerun kept and error-free.
"""

from __future__ import annotations

import asyncio
import random

from benchmarks.bench_load import WALK, WalkingSession, run_load, summarise, walk_csv


async def _walk_by_hand(base: str):
    """Upload, open Central DP, move a select box, a radio and a select slider; then a link the page refuses."""
    async with WalkingSession(base) as session:
        await asyncio.wait_for(session.run_page("data"), 120)
        upload = await asyncio.wait_for(session.upload("mine.csv", walk_csv(7)), 60)
        opened = await asyncio.wait_for(session.switch("central"), 60)
        controls = dict(session.controls)
        moves = {}
        for param in ("cen_column", "cen_query", "cen_epsilon"):
            moves[param] = await asyncio.wait_for(session.move(session.controls[param], random.Random(1)), 60)
        kept = dict(session.set_values)
    return upload, opened, controls, moves, kept


def test_the_walking_client_uploads_switches_and_moves_every_kind_of_control(app_url):
    upload, opened, controls, moves, kept = asyncio.run(_walk_by_hand(app_url))
    assert not upload[1] and not opened[1]  # the upload said "Loaded" (checked by the client) and Central drew
    assert controls["cen_column"].options == ("age", "hours", "income")  # the upload's numeric columns, not the demo's
    kinds = {c.kind for c in controls.values()}
    assert {"selectbox", "radio", "select_slider"} <= kinds, kinds
    for param, (seconds, errors, not_kept) in moves.items():
        assert seconds > 0 and not errors and not_kept == "", (param, errors, not_kept)
    assert kept["cen_column"] != controls["cen_column"].default and kept["cen_query"] != "Count"


def test_the_client_counts_a_move_the_page_did_not_keep():
    session = WalkingSession("http://127.0.0.1:1")
    control = next(iter(_controls()))
    session.drawn = {}  # the control is gone after the move
    assert session._kept(control, "2").startswith("not drawn")
    session.drawn = {control.param: "0.5"}  # the page set it to another value
    assert session._kept(control, "2") == "set to 0.5 after the move to 2"
    session.drawn = {control.param: None}  # the page left it alone
    assert session._kept(control, "2") == ""


def _controls():
    from benchmarks.bench_load import Control

    yield Control("cen_epsilon", "select_slider", "id", ("0.5", "1", "2"), "1")


def test_eight_walkers_stay_alive_and_every_rerun_is_kept_and_error_free(app_url):
    result = run_load(8, 15.0, base=app_url)
    s = summarise(result["walks"])
    print(f"short walk: {s}")
    assert s["alive"] == 8 and s["failed"] == 0 and s["lost"] == 0, [r["errors"] + r["lost"] for r in result["walks"]]
    assert s["reruns"] >= 8 * 3  # each walker uploaded and moved at least twice
    pages = {what.split(": ")[0] for r in result["walks"] for what, _ in r["runs"]}
    assert "data" in pages and len(pages & set(WALK)) >= 2, pages  # the upload, then at least two pages walked


def test_the_client_reads_the_value_a_page_sends_back():
    from streamlit.proto.Element_pb2 import Element

    from benchmarks.bench_load import _drawn

    element = Element()
    s = element.slider
    s.query_param_key, s.options[:] = "acc_epsilon", ["0.5", "0.8", "1"]
    assert _drawn(element, "slider") == ("acc_epsilon", None)  # the page left it alone
    s.set_value, s.raw_value[:] = True, ["0.8"]  # a select slider's value comes back as its option's label
    assert _drawn(element, "slider") == ("acc_epsilon", "0.8")
    element.selectbox.query_param_key, element.selectbox.set_value, element.selectbox.raw_value = (
        "cen_query",
        True,
        "Sum",
    )
    assert _drawn(element, "selectbox") == ("cen_query", "Sum")
