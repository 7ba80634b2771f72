"""Tests for explorer.uploads: the per-session cap on Streamlit's store of uploads, and the files the page releases.

The guard is tested on a real ``MemoryUploadedFileManager``; the Streamlit internals it relies on are checked
one by one (so a Streamlit upgrade that moves them fails here, by name); and the real app is started and sent
more files than the cap allows, straight to its upload route, as a client without a browser would.
"""

from __future__ import annotations

import dataclasses
import inspect
import pathlib
import re
import subprocess
import sys
import threading
import time
import types
import uuid

import pytest
import requests
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext
from streamlit.runtime.state.session_state import SessionState
from streamlit.runtime.uploaded_file_manager import UploadedFileRec
from websockets.sync.client import connect

from explorer import uploads
from explorer.csv_reader import MAX_UPLOAD_BYTES
from tests.browser import running_app

ROOT = pathlib.Path(__file__).resolve().parents[1]
GOOD = b"colour,score\n" + b"red,1\ngreen,2\nblue,3\n" * 50


def _rec(file_id: str, size: int) -> UploadedFileRec:
    return UploadedFileRec(file_id=file_id, name=f"{file_id}.csv", type="text/csv", data=b"x" * size)


def _stored(manager: MemoryUploadedFileManager, session: str) -> dict[str, int]:
    return {i: len(r.data) for i, r in manager.file_storage.get(session, {}).items()}


@pytest.fixture
def manager() -> MemoryUploadedFileManager:
    return MemoryUploadedFileManager("/_stcore/upload_file")


# --- the Streamlit internals the module relies on (its docstring lists them) ---------------------------------


def test_streamlit_internals_are_as_relied_on(manager):
    from streamlit.elements.widgets import file_uploader
    from streamlit.runtime import Runtime
    from streamlit.web.server import server
    from streamlit.web.server.starlette import starlette_routes

    assert isinstance(manager.file_storage, dict) and isinstance(manager._lock, type(threading.Lock()))
    assert list(inspect.signature(manager.add_file).parameters) == ["session_id", "file"]
    assert list(inspect.signature(manager.remove_file).parameters) == ["session_id", "file_id"]
    manager.add_file("s", _rec("a", 3))
    manager.add_file("s", _rec("b", 4))
    assert _stored(manager, "s") == {"a": 3, "b": 4}  # per session, in the order added
    assert isinstance(Runtime.__dict__["uploaded_file_mgr"], property)
    assert "MemoryUploadedFileManager(" in inspect.getsource(server.Server.__init__)
    routes = inspect.getsource(starlette_routes.create_upload_routes)
    assert "from starlette.exceptions import HTTPException" in routes
    put = routes[routes.index("async def _upload_put(") : routes.index("async def _upload_delete(")]
    # the PUT checks maxUploadSize, then stores through the object's add_file, looked up when called
    assert put.index('"server.maxUploadSize"') < put.index("upload_mgr.add_file(") < put.index("status_code=204")
    reader = inspect.getsource(file_uploader._get_upload_files)
    assert "uploaded_file_mgr.get_files(" in reader and "DeletedFile(" in reader
    assert {"session_id", "uploaded_file_mgr"} <= {f.name for f in dataclasses.fields(ScriptRunContext)}


# --- the guard on a real MemoryUploadedFileManager --------------------------------------------------------------


def test_a_session_holds_at_most_four_files_and_the_fifth_is_not_stored(manager):
    """Four: the Data page's file and the one replacing it, the Publish page's plan file and its preview file (with
    two, a session with uploaded data was refused the second of the Publish page's files)."""
    guard = uploads.guard(manager)
    assert (guard.max_files, guard.max_bytes) == (4, 2 * MAX_UPLOAD_BYTES) == (4, 52_428_800)
    for name, size in (("data", 10), ("replacing", 20), ("plan", 3), ("preview", 4)):
        manager.add_file("s", _rec(name, size))
    with pytest.raises(uploads.UploadRefused) as refused:
        manager.add_file(session_id="s", file=_rec("e", 1))  # as the upload route calls it
    assert refused.value.status_code == 413
    assert _stored(manager, "s") == {"data": 10, "replacing": 20, "plan": 3, "preview": 4}
    assert manager.get_stats()["cache_memory_bytes"][0].byte_length == 37  # the manager's own count agrees
    manager.add_file("other", _rec("e", 1))  # another session has its own cap
    manager.remove_file("s", "data")  # the browser's DELETE makes room
    manager.add_file("s", _rec("f", 5))
    assert _stored(manager, "s") == {"replacing": 20, "plan": 3, "preview": 4, "f": 5}


def test_the_byte_cap_counts_what_the_session_holds_and_a_resent_file_once(manager):
    uploads.guard(manager, max_bytes=100, max_files=5)
    manager.add_file("s", _rec("a", 60))
    with pytest.raises(uploads.UploadRefused):
        manager.add_file("s", _rec("b", 41))
    manager.add_file("s", _rec("b", 40))  # 100: the cap itself is allowed
    manager.add_file("s", _rec("a", 60))  # the same file id sent again replaces itself
    with pytest.raises(uploads.UploadRefused):
        manager.add_file("s", _rec("a", 61))
    assert _stored(manager, "s") == {"a": 60, "b": 40}
    manager.remove_session_files("s")
    manager.add_file("s", _rec("c", 100))
    assert _stored(manager, "s") == {"c": 100}


def test_concurrent_uploads_cannot_both_take_the_last_slot(manager):
    uploads.guard(manager, max_bytes=10**6, max_files=2)
    outcomes, start = [], threading.Barrier(12)

    def put(i: int) -> None:
        start.wait()
        try:
            manager.add_file("s", _rec(f"f{i}", 100))
            outcomes.append("stored")
        except uploads.UploadRefused:
            outcomes.append("refused")

    threads = [threading.Thread(target=put, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["refused"] * 10 + ["stored"] * 2
    assert len(_stored(manager, "s")) == 2


def test_guarding_twice_keeps_the_first_guard(manager):
    first = uploads.guard(manager, max_bytes=10, max_files=1)
    assert uploads.guard(manager) is first and manager.add_file is first
    assert first.held("s") == (0, 0)
    manager.add_file("s", _rec("a", 10))
    assert first.held("s") == (1, 10)


def test_files_stored_before_the_guard_are_trimmed_to_the_cap_oldest_kept(manager):
    for name, size in [("a", 50), ("b", 60), ("c", 10), ("d", 10), ("e", 10)]:
        manager.add_file("s", _rec(name, size))
    manager.add_file("small", _rec("x", 1))
    uploads.guard(manager, max_bytes=100, max_files=3)
    assert _stored(manager, "s") == {"a": 50, "c": 10, "d": 10}  # b would have passed the bytes, e the files
    assert _stored(manager, "small") == {"x": 1}
    assert manager.get_stats()["cache_memory_bytes"][0].byte_length == 71


def test_guard_refuses_what_it_cannot_guard(manager):
    with pytest.raises(TypeError, match="manager must be a MemoryUploadedFileManager, got object"):
        uploads.guard(object())
    with pytest.raises(ValueError, match=r"max_files must be in \[1, inf\), got 0"):
        uploads.guard(manager, max_files=0)
    with pytest.raises(TypeError, match="max_bytes must be an int, got float"):
        uploads.guard(manager, max_bytes=1e6)
    assert "add_file" not in vars(manager)  # nothing installed by a refused call


def test_install_without_a_server_does_nothing():
    from streamlit.runtime import Runtime

    assert not Runtime.exists()
    assert uploads.install() is None


def test_release_drops_a_refused_file_and_release_older_the_files_before_the_one_read(manager, monkeypatch):
    ctx = types.SimpleNamespace(uploaded_file_mgr=manager, session_id="s")
    monkeypatch.setattr(uploads, "get_script_run_ctx", lambda: ctx)
    for name in "abcd":
        manager.add_file("s", _rec(name, 1))
    manager.add_file("other", _rec("x", 1))
    uploads.release_older("c")
    assert list(_stored(manager, "s")) == ["c", "d"]  # d came after the file read: it may be the next one
    uploads.release("c")
    uploads.release("never stored")
    uploads.release_older("never stored")
    assert list(_stored(manager, "s")) == ["d"] and list(_stored(manager, "other")) == ["x"]
    monkeypatch.setattr(uploads, "get_script_run_ctx", lambda: None)
    uploads.release("d")  # outside a script run: nothing to release
    assert list(_stored(manager, "s")) == ["d"]


# --- the real app, its upload route and a client that sends files without the page ---------------------------


class _Session:
    """One browserless session of the app on the Data page: its id, and the page's uploader driven by hand."""

    def __init__(self, base: str, ws) -> None:
        self.base, self.ws = base, ws
        self.http = requests.Session()
        self.http.get(f"{base}/_stcore/health", timeout=10).raise_for_status()  # sets the XSRF cookie, if enabled
        token = self.http.cookies.get("_streamlit_xsrf")
        if token:
            self.http.headers["X-Xsrftoken"] = token
        self.session_id = self.page_hash = self.uploader_id = self.in_use = ""
        self.run(page_name="data")

    def run(self, uploaded: tuple[str, str, int] | None = None, **page) -> list[str]:
        """Rerun the page, the uploader holding ``uploaded`` (file id, name, size); the alerts shown."""
        msg = BackMsg()
        for name, value in (page or {"page_script_hash": self.page_hash}).items():
            setattr(msg.rerun_script, name, value)
        if uploaded is not None:
            file_id, name, size = uploaded
            state = WidgetState(id=self.uploader_id)
            info = UploadedFileInfo(name=name, size=size, file_id=file_id)
            info.file_urls.file_id = file_id
            info.file_urls.upload_url = info.file_urls.delete_url = self.url(file_id)
            state.file_uploader_state_value.uploaded_file_info.append(info)
            msg.rerun_script.widget_states.widgets.append(state)
        self.ws.send(msg.SerializeToString())
        alerts = []
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(self.ws.recv(timeout=60))
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fwd.new_session.initialize.session_id
            elif kind == "navigation":
                self.page_hash = fwd.navigation.page_script_hash
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                element = fwd.delta.new_element
                if element.WhichOneof("type") == "file_uploader":
                    self.uploader_id = element.file_uploader.id
                elif element.WhichOneof("type") == "alert":
                    alerts.append(element.alert.body)
            elif kind == "script_finished" and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return alerts

    def url(self, file_id: str) -> str:
        return f"{self.base}/_stcore/upload_file/{self.session_id}/{file_id}"

    def put(self, name: str, data: bytes) -> tuple[str, int]:
        file_id = str(uuid.uuid4())
        reply = self.http.put(self.url(file_id), files={"file": (name, data, "text/csv")}, timeout=60)
        return file_id, reply.status_code

    def held_bytes(self) -> int:
        """What the server's store of uploads holds, all sessions (Streamlit's own metric)."""
        text = self.http.get(f"{self.base}/_stcore/metrics", timeout=10).text
        found = re.search(r'cache_memory_bytes\{cache_type="UploadedFileManager"[^}]*\} (\d+)', text)
        return int(found.group(1)) if found else 0


def test_the_served_app_caps_a_session_and_releases_what_the_page_refused():
    with running_app() as base:
        with connect(base.replace("http://", "ws://", 1) + "/_stcore/stream", subprotocols=["streamlit"]) as ws:
            session = _Session(base, ws)
            assert session.session_id and session.uploader_id
            _refused_by_the_reader_then_replaced(session)
            _more_files_than_the_cap(session)


def _refused_by_the_reader_then_replaced(session: _Session) -> None:
    """The page releases a file the reader refused, and the file a newer upload replaced."""
    bad = b"PK\x03\x04" + bytes(range(256)) * 4
    bad_id, status = session.put("bad.csv", bad)
    assert status == 204
    alerts = session.run(uploaded=(bad_id, "bad.csv", len(bad)))
    assert any("was not loaded" in a for a in alerts), alerts
    first_id, status = session.put("first.csv", GOOD)
    assert status == 204
    second_id, status = session.put("second.csv", GOOD)  # first.csv replaced, its DELETE lost: two files held
    assert status == 204  # had the page kept bad.csv, this would be the third file, refused
    assert any("Loaded second" in a for a in session.run(uploaded=(second_id, "second.csv", len(GOOD))))
    session.in_use = second_id


def _more_files_than_the_cap(session: _Session) -> None:
    """A client sending files without the page: what the caps leave room for is stored, the rest refused."""
    big = b"a\n" + b"1\n" * ((MAX_UPLOAD_BYTES - 4096) // 2)
    # Streamlit refuses a file over the limit itself: the reader's limit is exactly what gets through
    assert session.put("over.csv", b"1" * (MAX_UPLOAD_BYTES + 1))[1] == 413
    statuses = [session.put(f"extra{i}.csv", big)[1] for i in range(5)]
    held_files, held_bytes, expected = 1, len(GOOD), []  # second.csv, in use
    for _ in range(5):  # the caps, applied by hand: a file is stored if both the files and the bytes still fit
        fits = held_files < uploads.MAX_SESSION_FILES and held_bytes + len(big) <= uploads.MAX_SESSION_BYTES
        expected.append(204 if fits else 413)
        held_files, held_bytes = held_files + fits, held_bytes + fits * len(big)
    assert statuses == expected and 413 in expected, (statuses, expected)
    assert session.held_bytes() == held_bytes <= uploads.MAX_SESSION_BYTES
    assert session.http.delete(session.url(session.in_use), timeout=10).status_code == 204
    assert session.put("after_delete.csv", GOOD)[1] == 204  # a DELETE makes room again


# --- sessions that have ended: the reaper -------------------------------------------------------------------------


def test_streamlit_internals_the_reaper_relies_on_are_as_relied_on(manager):
    from streamlit import config
    from streamlit.runtime import Runtime
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.memory_session_storage import MemorySessionStorage

    assert isinstance(Runtime.__dict__["stopped"], property)  # a future of the run loop: its get_loop() is the loop
    for name in ("is_active_session", "close_session"):
        assert list(inspect.signature(getattr(Runtime, name)).parameters) == ["self", "session_id"], name
    assert "self._session_mgr.close_session(session_id)" in inspect.getsource(Runtime.close_session)
    # Streamlit forgets an expired session without shutting it down: the reason for the reaper
    assert "shutdown" not in inspect.getsource(MemorySessionStorage)
    assert config.get_option("server.disconnectedSessionTTL") > 0
    manager.add_file("s", _rec("a", 3))
    manager.remove_session_files("s")
    assert "s" not in manager.file_storage
    # the session's state, reached from its AppSession (weakly referenced by the reaper), emptied once it is closed
    assert isinstance(AppSession.__dict__["session_state"], property) and "__weakref__" in dir(AppSession)
    assert list(inspect.signature(Runtime.get_app_session).parameters) == ["self", "session_id"]
    state = SessionState()
    state["x"] = 1
    state.clear()
    assert "x" not in state


class _AppSession:
    """A stand-in for an ``AppSession``: its ``session_state`` (a dict has the ``clear()`` the reaper calls)."""

    def __init__(self, **state):
        self.session_state = dict(state)


class _Runtime:
    """A stand-in for the server's runtime: which sessions are connected, and its store of uploads."""

    def __init__(self, manager):
        self.uploaded_file_mgr, self.active, self.closed = manager, set(), []

    def is_active_session(self, session_id):
        return session_id in self.active


def test_the_reaper_closes_a_session_gone_past_the_reconnect_window_and_drops_files_nobody_knows(manager):
    runtime, now = _Runtime(manager), [0.0]
    reaper = uploads.Reaper(runtime, reconnect=60, close=runtime.closed.append, clock=lambda: now[0])
    sessions = {session: _AppSession(dataset=session) for session in ("stays", "blip", "gone")}
    for session in ("stays", "blip", "gone"):
        reaper.seen(session, sessions[session])
        runtime.active.add(session)
        manager.add_file(session, _rec(f"{session}-file", 10))
    manager.add_file("forgotten", _rec("old", 10))  # a session Streamlit dropped before the reaper knew it
    runtime.active -= {"blip", "gone"}  # two tabs lose their socket
    now[0] = 30.0
    assert reaper.tick()["closed"] == 0 and runtime.closed == []
    assert "forgotten" not in manager.file_storage  # no session owns it: dropped at once
    assert set(manager.file_storage) == {"stays", "blip", "gone"}
    runtime.active.add("blip")  # reconnected within the window
    now[0] = 61.0
    done = reaper.tick()
    assert runtime.closed == ["gone"] and done["closed"] == 1
    assert sessions["gone"].session_state == {} and sessions["blip"].session_state == {"dataset": "blip"}
    now[0] = 200.0
    reaper.tick()  # "gone" is closed (in Streamlit its files go with it); the others are kept while connected
    assert runtime.closed == ["gone"] and set(reaper.last_active) == {"stays", "blip"}
    assert set(manager.file_storage) == {"stays", "blip"}  # the stand-in close keeps files: the reaper dropped them


def test_the_served_app_closes_a_closed_tab_and_gives_its_upload_back():
    # Streamlit's reconnect window at 4 s: the reaper closes a session after half of it, at its next round
    with running_app(env={"STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": "4"}) as base:
        with connect(base.replace("http://", "ws://", 1) + "/_stcore/stream", subprotocols=["streamlit"]) as ws:
            session = _Session(base, ws)
            file_id, status = session.put("good.csv", GOOD)
            assert status == 204
            assert any("Loaded good" in a for a in session.run(uploaded=(file_id, "good.csv", len(GOOD))))
            assert session.held_bytes() == len(GOOD)
        deadline = time.monotonic() + 3 * uploads.REAP_SECONDS
        while session.held_bytes() and time.monotonic() < deadline:
            time.sleep(1)
        assert session.held_bytes() == 0  # closed by the reaper: Streamlit alone keeps it while the server runs


def test_arrow_is_put_on_the_system_allocator_whose_free_pages_go_back():
    # in a fresh interpreter: the pool is process-wide
    code = (
        "import pyarrow, pandas; from explorer import uploads; "
        "before = pyarrow.default_memory_pool().backend_name; uploads._arrow_on_the_system_allocator(); "
        "uploads._give_back(); print(before, pyarrow.default_memory_pool().backend_name)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split()[-1] == "system", out


# --- a reload finds its earlier session ----------------------------------------------------------------------------


def test_streamlit_internals_a_reload_relies_on_are_as_relied_on():
    import streamlit as st
    from streamlit.web.server.starlette import starlette_app_utils, starlette_routes
    from streamlit.web.server.starlette.starlette_server_config import XSRF_COOKIE_NAME

    assert XSRF_COOKIE_NAME == "_streamlit_xsrf" and hasattr(type(st.context), "cookies")
    token = b"0123456789abcdef"
    cookie = starlette_app_utils.generate_xsrf_token_string(token)
    assert starlette_app_utils.decode_xsrf_token_string(cookie)[0] == token
    # the server keeps a browser's token and masks it anew on each page load
    assert "decode_xsrf_token_string" in inspect.getsource(starlette_routes._ensure_xsrf_cookie)


def test_a_browser_is_named_by_its_xsrf_token_whatever_its_masking():
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    mine, theirs = b"a" * 16, b"b" * 16
    first, again = generate_xsrf_token_string(mine, 1), generate_xsrf_token_string(mine, 1)
    assert first != again  # masked anew
    assert uploads.browser_of(first) == uploads.browser_of(again) is not None
    assert uploads.browser_of(generate_xsrf_token_string(theirs, 1)) != uploads.browser_of(first)
    assert mine.hex() not in uploads.browser_of(first)  # a hash, not the cookie's token
    for bad in (None, "", "2|zz|yy|1", "garbage", 5):
        assert uploads.browser_of(bad) is None


def test_outside_a_server_no_earlier_session_is_found_and_nothing_is_recorded():
    assert uploads.browser_id() is None
    uploads.answer_to("token", "browser")
    assert uploads.earlier_session("token", "browser") is None


def test_the_reaper_forgets_the_tab_token_of_a_session_it_closes(manager):
    runtime, now = _Runtime(manager), [0.0]
    reaper = uploads.Reaper(runtime, reconnect=60, close=runtime.closed.append, clock=lambda: now[0])
    for session in ("reloaded", "open"):
        reaper.seen(session, _AppSession(dataset=session))
        reaper.tabs[f"token-{session}"] = (session, "browser")
    runtime.active.add("open")
    now[0] = 30.0
    reaper.tick()
    assert set(reaper.tabs) == {"token-reloaded", "token-open"}  # within the window a reload still finds it
    now[0] = 61.0
    reaper.tick()
    assert runtime.closed == ["reloaded"] and set(reaper.tabs) == {"token-open"}
