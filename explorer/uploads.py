"""A cap on what one session may keep in Streamlit's store of uploaded files, and the release of files the app is done with.

Streamlit keeps every file PUT to ``/_stcore/upload_file/<session id>/<file id>`` in its uploaded-file manager
until the session ends or the browser DELETEs that file, whether or not any widget refers to it, and has no
setting that bounds how many files or bytes one session may keep (``server.maxUploadSize`` bounds one file):
thirty PUTs of 25 MiB to one session hold 750 MiB until the tab closes. :func:`install` puts a
:class:`SessionUploadGuard` in front of the manager's ``add_file``, once per server process (``app.py`` calls it
on every run; the second call finds the guard and does nothing), so a session holds at most
:data:`MAX_SESSION_FILES` files and :data:`MAX_SESSION_BYTES` bytes: the Data page's file in use and the one
replacing it (the browser uploads the new file and deletes the old one in two requests, in either order), and the
Publish page's plan file and public preview file (small files: the bytes stay those of two files at the limit). An upload that
would pass the cap is refused with HTTP 413 and not stored; the uploader shows an error on that file. Files
stored before the guard (a server's first run installs it a moment after the session can upload) are trimmed
to the cap when it is installed.

Refuse, don't evict. The guard runs in the server's request handler, where which files a widget refers to is
known only from the session's widget state, written by the script thread at the same time. So the page, which
knows, releases files: :func:`release` drops a file the reader refused, and :func:`release_older` drops the
session's files stored before the one it has just read (a replaced file whose DELETE was lost, or one left
behind when the Data page was left and its uploader forgotten). A person's session then keeps one file between
uploads and the cap is never in their way; a client that PUTs files without the page fills the slots of its own
session and is refused from then on. :func:`release_older` also drops the Publish page's plan and preview files
stored before a new Data upload (a plan is for a dataset: the Publish page asks for them again).

Streamlit internals relied on (there is no public interface; ``tests/test_uploads.py`` checks each one):

* ``streamlit.runtime.Runtime.instance().uploaded_file_mgr`` is the server's one
  ``streamlit.runtime.memory_uploaded_file_manager.MemoryUploadedFileManager`` (made in
  ``streamlit/web/server/server.py``), and ``get_script_run_ctx().uploaded_file_mgr`` is the same object.
* Its ``file_storage`` maps a session id to a dict of file id to ``UploadedFileRec`` (``.data`` the bytes), in
  the order the files were added; ``_lock`` is the ``threading.Lock`` its methods hold while they touch it;
  ``add_file(session_id, file)`` and ``remove_file(session_id, file_id)`` store and drop one file.
* The upload route (``create_upload_routes`` in ``streamlit/web/server/starlette/starlette_routes.py``) checks
  ``server.maxUploadSize``, then calls ``upload_mgr.add_file(session_id=..., file=...)`` on that same object, the
  method looked up when called (so an instance attribute shadows it), and a
  ``starlette.exceptions.HTTPException`` raised there becomes the response's status.
* ``st.file_uploader`` reads its files with ``get_files``: a file dropped from the manager makes the widget
  return None (Streamlit's ``DeletedFile``), not fail.
* A rerun asked for while the script runs (another page clicked) is raised as
  ``streamlit.runtime.scriptrunner_utils.exceptions.RerunException`` at the script's next yield point (an element
  drawn, a read or write of ``st.session_state``), once: the request then returns to CONTINUE
  (``ScriptRequests.on_scriptrunner_yield``), so a step run again goes through (:func:`to_the_end`).

**Sessions that have ended.** When a tab closes, Streamlit keeps its session for a reconnect
(``server.disconnectedSessionTTL``, 120 s by default), then only forgets it: its storage drops an expired session
the next time another session disconnects, without shutting it down, so its uploaded files stay in the store
for as long as the server runs, and its state (the dataset, what was prepared from it) until that next disconnect and
a full garbage collection, which ``runner.postScriptGC = false`` leaves to chance. :func:`install` also starts a
:class:`Reaper`, one thread per server process, that every :data:`REAP_SECONDS` closes, with Streamlit's own
``Runtime.close_session`` (its files, media and state go), every session whose socket has been gone for
:data:`RECONNECT_SECONDS` (a network blip reconnects well within it; a lower ``disconnectedSessionTTL`` wins),
drops the files of sessions Streamlit no longer knows, then collects the garbage, drops the shared caches' results
no session uses any more (:func:`explorer.cache.collect`) and hands the freed memory back to the system
(glibc's ``malloc_trim``; Arrow, which holds pandas' text columns, is put on the system allocator when the reaper
starts, since its own pool keeps freed pages). It learns of a session from its
script runs (:func:`install` is called on each) and keeps its id and a weak reference to it, nothing of its data.
With ``DPX_MEMORY_REPORT`` set to a file it appends, at each round, one JSON line of what the server holds (for
``benchmarks/bench_memory.py`` and an operator; under ``PYTHONTRACEMALLOC=1`` also the lines that allocated what
is still held).

**A reload.** A reload is a new Streamlit session with an empty state. Each session answers to a tab token, an
unguessable random string (:func:`secrets.token_urlsafe`, 128 bits; never the content's fingerprint, which anyone
holding the same file could compute) that :mod:`explorer.state` puts in the link (``?tab=``), and is recorded here
with the browser it came from (a hash of the token of Streamlit's own XSRF cookie, which the browser sends with the
socket of each of its tabs and which another browser does not have). A new session whose link carries a token
recorded from the same browser takes, through :func:`earlier_session`, the earlier session's dataset and ledger (the
same objects, no copy of the file) and gets a token of its own. Nothing is written to disk and nothing is held
beside the sessions: the earlier session is what holds the file, until the reaper closes it once its socket has
been gone for :data:`RECONNECT_SECONDS` (a reload takes a second) and forgets its token. A link shared with another
person carries the token, but their browser's cookie differs, so nothing comes back to them; without XSRF
protection (``server.enableXsrfProtection = false``) no browser can be told apart and nothing comes back at all.

Also relied on for the reaper (``tests/test_uploads.py`` checks them): ``Runtime.is_active_session(session_id)``
(thread-safe), ``Runtime.close_session(session_id)`` (to be called on the server's event loop, reached as
``Runtime.stopped.get_loop()``; it shuts down a session that is connected or kept for a reconnect, and does
nothing for one already forgotten), ``MemoryUploadedFileManager.remove_session_files(session_id)`` and
``get_script_run_ctx().session_id``, and ``Runtime.get_app_session(session_id).session_state``, the session's
``SessionState``, whose ``clear()`` the reaper calls once it has closed the session: Streamlit's run loop keeps the
last session it sent messages to in a loop variable (``Runtime._loop_coroutine``'s ``active_session_info``) until
another session is served, so a closed session's dataset would otherwise stay until the next visitor.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import hashlib
import hmac
import json
import logging
import os
import sys
import threading
import time
import tracemalloc
import weakref

import streamlit as st
from starlette.exceptions import HTTPException
from streamlit import config
from streamlit.runtime import Runtime
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.uploaded_file_manager import UploadedFileRec
from streamlit.web.server.starlette.starlette_app_utils import decode_xsrf_token_string
from streamlit.web.server.starlette.starlette_server_config import XSRF_COOKIE_NAME

from explorer import cache
from explorer.csv_reader import MAX_UPLOAD_BYTES

__all__ = [
    "MAX_SESSION_FILES",
    "MAX_SESSION_BYTES",
    "UploadRefused",
    "SessionUploadGuard",
    "guard",
    "install",
    "release",
    "stored",
    "to_the_end",
    "release_older",
    "REAP_SECONDS",
    "RECONNECT_SECONDS",
    "REPORT_VARIABLE",
    "Reaper",
    "reaper",
    "browser_id",
    "browser_of",
    "answer_to",
    "earlier_session",
]

#: Files one session may hold: the Data page's file in use and the one replacing it, the Publish page's plan file and
#: its public preview file (with two, a session that had uploaded data could not add both: the third was refused).
MAX_SESSION_FILES = 4
#: Bytes one session may hold: two files at the upload limit (2 x 25 MiB = 52,428,800 bytes).
MAX_SESSION_BYTES = 2 * MAX_UPLOAD_BYTES

#: Seconds between two rounds of the reaper.
REAP_SECONDS = 10.0
#: Seconds a session whose socket has gone is kept for a reconnect before the reaper closes it (a network blip
#: reconnects within seconds; a tab closed for good holds its dataset this long, not Streamlit's two minutes).
RECONNECT_SECONDS = 60.0
#: The environment variable naming a file the reaper appends one JSON line to at each round.
REPORT_VARIABLE = "DPX_MEMORY_REPORT"

_LOGGER = logging.getLogger(__name__)
_INSTALLING = threading.Lock()


class UploadRefused(HTTPException):
    """An upload that would take its session past the cap; Starlette answers it with HTTP 413."""

    def __init__(self, detail: str) -> None:
        super().__init__(status_code=413, detail=detail)


class SessionUploadGuard:
    """The ``add_file`` of ``manager``, refusing a file that would take its session past the cap.

    Parameters
    ----------
    manager : MemoryUploadedFileManager
        The store to guard; its own ``add_file`` stores what is let through.
    max_bytes : int
        Bytes a session may hold, must be in [1, inf).
    max_files : int
        Files a session may hold, must be in [1, inf).
    """

    def __init__(self, manager: MemoryUploadedFileManager, max_bytes: int, max_files: int) -> None:
        for name, value in (("max_bytes", max_bytes), ("max_files", max_files)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {type(value).__name__}")
            if value < 1:
                raise ValueError(f"{name} must be in [1, inf), got {value}")
        self.manager, self.max_bytes, self.max_files = manager, max_bytes, max_files
        self._store = manager.add_file  # the manager's own method, bound before the guard shadows it
        self._lock = threading.Lock()  # one check-and-store at a time, so two uploads cannot both fit

    def held(self, session_id: str) -> tuple[int, int]:
        """The files and bytes ``session_id`` holds now."""
        with self.manager._lock:
            data = [rec.data for rec in self.manager.file_storage.get(session_id, {}).values()]
        return len(data), sum(map(len, data))

    def trim(self) -> None:
        """Drop, in every session, the files the guard would have refused: those stored before it was installed.

        A session can upload between its first script run's start (when it learns its id) and the line of
        ``app.py`` that installs the guard, on a server's first run only; this keeps no more of that than the cap.
        """
        with self.manager._lock:
            sessions = {
                s: [(i, len(r.data)) for i, r in files.items()] for s, files in self.manager.file_storage.items()
            }
        for session_id, files in sessions.items():
            kept = size = 0
            for file_id, length in files:
                if kept < self.max_files and size + length <= self.max_bytes:
                    kept, size = kept + 1, size + length
                else:
                    self.manager.remove_file(session_id, file_id)

    def __call__(self, session_id: str, file: UploadedFileRec) -> None:
        with self._lock:
            with self.manager._lock:
                others = [r.data for i, r in self.manager.file_storage.get(session_id, {}).items() if i != file.file_id]
            files, size = len(others) + 1, sum(map(len, others)) + len(file.data)  # a file sent again replaces itself
            if files > self.max_files or size > self.max_bytes:
                raise UploadRefused(
                    f"This session already holds {len(others)} uploaded file(s); at most {self.max_files} files and "
                    f"{self.max_bytes:,} bytes are kept. Remove a file before uploading another."
                )
            self._store(session_id=session_id, file=file)


def guard(
    manager: MemoryUploadedFileManager, max_bytes: int = MAX_SESSION_BYTES, max_files: int = MAX_SESSION_FILES
) -> SessionUploadGuard:
    """Put a :class:`SessionUploadGuard` in front of ``manager.add_file``, or return the one already there."""
    if not isinstance(manager, MemoryUploadedFileManager):
        raise TypeError(f"manager must be a MemoryUploadedFileManager, got {type(manager).__name__}")
    with _INSTALLING:
        current = vars(manager).get("add_file")
        if isinstance(current, SessionUploadGuard):
            return current
        installed = SessionUploadGuard(manager, max_bytes, max_files)
        manager.add_file = installed  # an instance attribute: the upload route's upload_mgr.add_file finds it first
        installed.trim()
        return installed


def install() -> SessionUploadGuard | None:
    """Guard the running server's store of uploads and start its :class:`Reaper` (idempotent; the session running
    this script is recorded for the reaper); None without a server (AppTest, ``python app.py``).

    A store of another kind (Streamlit changed) is logged as an error and left unguarded, rather than stopping
    the app; ``tests/test_uploads.py`` fails on it.
    """
    if not Runtime.exists():
        return None
    runtime = Runtime.instance()
    manager = runtime.uploaded_file_mgr
    try:
        installed = guard(manager)
    except TypeError:
        if not _UNGUARDED:  # said once per process (AppTest's store is a mock on every run)
            _LOGGER.error(
                "Uploads are not capped per session: Streamlit's uploaded-file manager is a %s", type(manager)
            )
        _UNGUARDED.add(type(manager))
        return None
    ctx = get_script_run_ctx()
    if ctx is not None:  # a served session (AppTest's runtime is a mock, refused by the guard above)
        reaper(runtime).seen(ctx.session_id, runtime.get_app_session(ctx.session_id))
    return installed


def _arrow_on_the_system_allocator() -> None:
    """Make Arrow, which holds the text columns of pandas' ``str`` dtype, allocate with the system's ``malloc``.

    Its default pool, mimalloc, keeps what the script threads freed in its own arenas (a 1 GiB reservation) even
    after ``release_unused()``: 140 MB of a server's RSS after six 20 MB uploads had gone, against 6 MB with the
    system allocator, whose free pages :func:`_give_back` returns (``benchmarks/bench_memory.py``). What was
    allocated before is freed to the pool it came from.
    """
    arrow = sys.modules.get("pyarrow")
    if arrow is not None and arrow.default_memory_pool().backend_name != "system":
        arrow.set_memory_pool(arrow.system_memory_pool())


#: Kinds of upload store found unguardable in this process (process-wide, not per user: only quiets the log).
_UNGUARDED: set[type] = set()


def _session_store() -> tuple[MemoryUploadedFileManager, str] | None:
    ctx = get_script_run_ctx()
    if ctx is None or not isinstance(ctx.uploaded_file_mgr, MemoryUploadedFileManager):
        return None
    return ctx.uploaded_file_mgr, ctx.session_id


def to_the_end(step, stopped: list) -> object:
    """``step()``, run again (it must be idempotent) if Streamlit stopped it for a rerun the user asked for meanwhile
    (another page clicked while an upload is read); the stop is appended to ``stopped`` for the caller to raise once
    the upload is kept (:func:`explorer.state.take_upload`)."""
    try:
        return step()
    except RerunException as exc:
        stopped.append(exc)
        return step()


def stored(file_id: str) -> tuple[str, bytes] | None:
    """The name and bytes of the current session's upload ``file_id`` in Streamlit's store, or None if it is not
    there (released, or trimmed to the cap)."""
    found = _session_store()
    if found is None:
        return None
    manager, session_id = found
    with manager._lock:
        record = manager.file_storage.get(session_id, {}).get(file_id)
    return None if record is None else (record.name, record.data)


def release(file_id: str) -> None:
    """Drop the current session's upload ``file_id`` from Streamlit's store (a file the reader refused)."""
    found = _session_store()
    if found is not None:
        manager, session_id = found
        manager.remove_file(session_id, file_id)


def release_older(file_id: str) -> None:
    """Drop the current session's uploads stored before ``file_id``: the page has read ``file_id``, so none is in use."""
    found = _session_store()
    if found is None:
        return
    manager, session_id = found
    with manager._lock:
        stored = list(manager.file_storage.get(session_id, {}))
    if file_id in stored:
        for older in stored[: stored.index(file_id)]:
            manager.remove_file(session_id, older)


# --------------------------------------------------------------------------- sessions that have ended


def _give_back() -> None:
    """Give freed memory back to the system: glibc's heap (``malloc_trim``) and Arrow's pool, which holds the text
    columns of pandas' ``str`` dtype (mimalloc keeps freed pages for reuse: 77 MB after three 20 MB uploads)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        arrow.default_memory_pool().release_unused()


def _load_libc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
        return libc
    except (OSError, AttributeError):  # not glibc (musl, macOS): its allocator returns memory its own way
        return None


_LIBC = _load_libc()


class Reaper:
    """Close the sessions whose socket has been gone for ``reconnect`` seconds, and give their memory back.

    Parameters
    ----------
    runtime : streamlit.runtime.Runtime
        The server's runtime (a stand-in with ``is_active_session``, ``close_session``, ``uploaded_file_mgr`` in
        tests).
    reconnect : float
        Seconds a disconnected session is kept for a reconnect, in [0, inf).
    close : callable, optional
        ``close(session_id)``: how a session is closed (default: ``runtime.close_session`` on the server's event
        loop, unless the session has reconnected meanwhile; it returns once that has run).
    clock : callable, default time.monotonic
    """

    def __init__(self, runtime, reconnect: float = RECONNECT_SECONDS, close=None, clock=time.monotonic) -> None:
        self.runtime, self.reconnect, self.clock = runtime, float(reconnect), clock
        self.close = close if close is not None else self._close_on_event_loop
        self.last_active: dict[str, float] = {}  # session id -> when it was last seen connected
        self.sessions: dict[str, weakref.ref] = {}  # session id -> its AppSession, not kept alive by the reaper
        self.tabs: dict[str, tuple[str, str]] = {}  # tab token -> (session id, browser id) of the session it names
        self.lock = threading.Lock()
        self.closed = 0
        self.thread: threading.Thread | None = None

    def seen(self, session_id: str, session=None) -> None:
        """Record that ``session_id`` ran the script just now, and its ``AppSession`` (whose ``session_state`` is
        emptied when it is closed)."""
        with self.lock:
            self.last_active[session_id] = self.clock()
            if session is not None and session_id not in self.sessions:
                self.sessions[session_id] = weakref.ref(session)

    def _close_on_event_loop(self, session_id: str) -> None:
        runtime, done = self.runtime, threading.Event()

        def close_if_still_gone() -> None:  # on the event loop, where a reconnect happens too: no race with one
            try:
                if not runtime.is_active_session(session_id):
                    runtime.close_session(session_id)
            finally:
                done.set()

        loop = runtime.stopped.get_loop()  # the future of the server's run loop lives on its event loop
        loop.call_soon_threadsafe(close_if_still_gone)
        done.wait(REAP_SECONDS)  # closed before the reaper collects what it held

    def tick(self) -> dict:
        """One round: close the sessions gone for longer than ``reconnect``, drop the files of sessions nobody
        knows, and, if anything went, collect the garbage, the caches' orphaned results and the free heap."""
        now = self.clock()
        ended = []
        with self.lock:
            for session_id, last in list(self.last_active.items()):
                if self.runtime.is_active_session(session_id):
                    self.last_active[session_id] = now
                elif now - last >= self.reconnect:
                    ended.append((session_id, self.sessions.pop(session_id, None)))
                    del self.last_active[session_id]
            gone = {session_id for session_id, _ in ended}
            for token in [t for t, (session_id, _) in self.tabs.items() if session_id in gone]:
                del self.tabs[token]  # a reload now starts anew
            known = set(self.last_active)
        for session_id, session in ended:
            self.close(session_id)
            session = session() if session is not None else None
            if session is not None:  # the closed session's data go even if something still holds the session
                session.session_state.clear()
        manager = self.runtime.uploaded_file_mgr
        orphans = []
        if isinstance(manager, MemoryUploadedFileManager):
            with manager._lock:
                holders = list(manager.file_storage)
            orphans = [s for s in holders if s not in known and not self.runtime.is_active_session(s)]
            for session_id in orphans:
                manager.remove_session_files(session_id)
        self.closed += len(ended)
        if ended or orphans:
            gc.collect()  # a session's state is held in cycles; without postScriptGC nothing else collects them soon
        freed = cache.collect()  # the results whose every session has ended (their owner tokens went in the gc)
        if ended or orphans or freed:
            _give_back()
        return {"closed": len(ended), "orphan_files": len(orphans), "cache_bytes_freed": freed}

    def _run(self) -> None:
        while True:
            time.sleep(REAP_SECONDS)
            try:
                done = self.tick()
                path = os.environ.get(REPORT_VARIABLE)
                if path:
                    with open(path, "a", encoding="utf-8") as f:
                        f.write(json.dumps(self.report(done)) + "\n")
            except Exception:  # noqa: BLE001 - the reaper must outlive a bad round; said in the log
                _LOGGER.exception("The session reaper's round failed")

    def report(self, done: dict) -> dict:
        """What the server holds now: sessions, uploaded files, the shared caches, the garbage collector."""
        manager = self.runtime.uploaded_file_mgr
        files = size = 0
        if isinstance(manager, MemoryUploadedFileManager):
            with manager._lock:
                data = [len(r.data) for f in manager.file_storage.values() for r in f.values()]
            files, size = len(data), sum(data)
        caches = cache.stats()
        with self.lock:
            sessions = len(self.last_active)
        return {
            "time": time.time(),
            **done,
            "sessions_known": sessions,
            "sessions_closed": self.closed,
            "upload_files": files,
            "upload_bytes": size,
            "cache_entries": sum(n for n, _ in caches.values()),
            "cache_bytes": sum(b for _, b in caches.values()),
            "caches": {name.removeprefix("explorer."): kept for name, kept in caches.items() if kept[0]},
            "cache_owners": cache.owners(),
            "gc_objects": len(gc.get_objects()),
            "sessions_alive": sum(type(o).__name__ == "AppSession" for o in gc.get_objects()),
            "traced": _traced(),
        }

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="dpx-session-reaper", daemon=True)
        self.thread.start()


def _traced(top: int = 12) -> dict:
    """When the server runs under ``tracemalloc`` (``PYTHONTRACEMALLOC=1``): the MB it traces and the lines that
    allocated most of what is still held (an operator's view of what holds memory); else {}."""
    if not tracemalloc.is_tracing():
        return {}
    snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
    stats = snapshot.statistics("lineno")
    return {
        "mb": round(sum(s.size for s in stats) / 1e6, 1),
        "top": [
            f"{s.size / 1e6:.1f} MB {s.count} {s.traceback[0].filename}:{s.traceback[0].lineno}" for s in stats[:top]
        ],
    }


_REAPERS: dict[int, Reaper] = {}  # one per runtime (per server process; keyed by the runtime's id)


def reaper(runtime) -> Reaper:
    """The reaper of ``runtime``, started on the first call."""
    with _INSTALLING:
        found = _REAPERS.get(id(runtime))
        if found is None or found.runtime is not runtime:
            _arrow_on_the_system_allocator()
            ttl = float(config.get_option("server.disconnectedSessionTTL"))
            found = _REAPERS[id(runtime)] = Reaper(runtime, reconnect=min(RECONNECT_SECONDS, ttl / 2))
            found.start()
        return found


# --------------------------------------------------------------------------- a reload finds its earlier session


def browser_id() -> str | None:
    """A name of the browser running this session: a hash of the token of Streamlit's XSRF cookie (the same in
    every tab of one browser, kept across reloads, unknown to another browser), or None without that cookie (XSRF
    protection off, AppTest).

    Relied on: ``st.context.cookies`` (the cookies of the socket's opening request), the cookie's name
    ``streamlit.web.server.starlette.starlette_server_config.XSRF_COOKIE_NAME`` and
    ``starlette_app_utils.decode_xsrf_token_string`` (a masked cookie to its token bytes; Streamlit keeps the token
    and re-masks it on each page load).
    """
    try:
        cookie = st.context.cookies.get(XSRF_COOKIE_NAME)
    except Exception:  # noqa: BLE001 - no request behind this run (AppTest, a bare script)
        return None
    return browser_of(cookie)


def browser_of(cookie: str | None) -> str | None:
    """The browser named by the value of Streamlit's XSRF cookie (the same for every masking of its token), or
    None for a missing or unreadable cookie."""
    if not isinstance(cookie, str) or not cookie:
        return None
    try:
        token, _ = decode_xsrf_token_string(cookie)
    except Exception:  # noqa: BLE001 - a cookie the browser made up: no browser known
        return None
    return hashlib.sha256(b"dpx-browser:" + token).hexdigest() if token else None


def answer_to(token: str, browser: str | None) -> None:
    """Record that the session running this script answers to the tab token ``token``, opened in ``browser``."""
    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists() or browser is None:
        return
    runtime = Runtime.instance()
    if not isinstance(runtime.uploaded_file_mgr, MemoryUploadedFileManager):
        return  # AppTest's runtime: no server, no reload
    keeper = reaper(runtime)
    keeper.seen(ctx.session_id, runtime.get_app_session(ctx.session_id))
    with keeper.lock:
        keeper.tabs[token] = (ctx.session_id, browser)


def earlier_session(token: str, browser: str | None):
    """The session state (``SafeSessionState``) of the earlier session of this tab: the one that answered to
    ``token`` in the same ``browser`` and that the server still holds; None otherwise (another browser, a token
    never given or forgotten, no server)."""
    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists() or browser is None or not isinstance(token, str):
        return None
    runtime = Runtime.instance()
    keeper = _REAPERS.get(id(runtime))
    if keeper is None:
        return None
    with keeper.lock:
        session_id, owner = keeper.tabs.get(token, (None, ""))
        ref = keeper.sessions.get(session_id) if session_id else None
    if ref is None or session_id == ctx.session_id or not hmac.compare_digest(owner, browser):
        return None
    session = ref()
    return session.session_state if session is not None else None
