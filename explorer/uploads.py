"""A cap on what one session may keep in Streamlit's store of uploaded files, and the release of files the app is done with.

Streamlit keeps every file PUT to ``/_stcore/upload_file/<session id>/<file id>`` in its uploaded-file manager
until the session ends or the browser DELETEs that file, whether or not any widget refers to it, and has no
setting that bounds how many files or bytes one session may keep (``server.maxUploadSize`` bounds one file):
thirty PUTs of 25 MiB to one session hold 750 MiB until the tab closes. :func:`install` puts a
:class:`SessionUploadGuard` in front of the manager's ``add_file``, once per server process (``app.py`` calls it
on every run; the second call finds the guard and does nothing), so a session holds at most
:data:`MAX_SESSION_FILES` files and :data:`MAX_SESSION_BYTES` bytes: the file in use and the one replacing it
(the browser uploads the new file and deletes the old one in two requests, in either order). An upload that
would pass the cap is refused with HTTP 413 and not stored; the uploader shows an error on that file. Files
stored before the guard (a server's first run installs it a moment after the session can upload) are trimmed
to the cap when it is installed.

Refuse, don't evict. The guard runs in the server's request handler, where which files a widget refers to is
known only from the session's widget state, written by the script thread at the same time. So the page, which
knows, releases files: :func:`release` drops a file the reader refused, and :func:`release_older` drops the
session's files stored before the one it has just read (a replaced file whose DELETE was lost, or one left
behind when the Data page was left and its uploader forgotten). A person's session then keeps one file between
uploads and the cap is never in their way; a client that PUTs files without the page fills two slots of its own
session and is refused from then on. :func:`release_older` assumes the Data page's uploader is the app's only
one (a second upload widget would lose its files to it).

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
"""

from __future__ import annotations

import logging
import threading

from starlette.exceptions import HTTPException
from streamlit.runtime import Runtime
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.uploaded_file_manager import UploadedFileRec

from explorer.csv_reader import MAX_UPLOAD_BYTES

__all__ = [
    "MAX_SESSION_FILES",
    "MAX_SESSION_BYTES",
    "UploadRefused",
    "SessionUploadGuard",
    "guard",
    "install",
    "release",
    "release_older",
]

#: Files one session may hold: the one in use and the one replacing it.
MAX_SESSION_FILES = 2
#: Bytes one session may hold: two files at the upload limit (2 x 25 MiB = 52,428,800 bytes).
MAX_SESSION_BYTES = MAX_SESSION_FILES * MAX_UPLOAD_BYTES

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
    """Guard the running server's store of uploads (idempotent); None without a server (AppTest, ``python app.py``).

    A store of another kind (Streamlit changed) is logged as an error and left unguarded, rather than stopping
    the app; ``tests/test_uploads.py`` fails on it.
    """
    if not Runtime.exists():
        return None
    manager = Runtime.instance().uploaded_file_mgr
    try:
        return guard(manager)
    except TypeError:
        if not _UNGUARDED:  # said once per process (AppTest's store is a mock on every run)
            _LOGGER.error(
                "Uploads are not capped per session: Streamlit's uploaded-file manager is a %s", type(manager)
            )
        _UNGUARDED.add(type(manager))
        return None


#: Kinds of upload store found unguardable in this process (process-wide, not per user: only quiets the log).
_UNGUARDED: set[type] = set()


def _session_store() -> tuple[MemoryUploadedFileManager, str] | None:
    ctx = get_script_run_ctx()
    if ctx is None or not isinstance(ctx.uploaded_file_mgr, MemoryUploadedFileManager):
        return None
    return ctx.uploaded_file_mgr, ctx.session_id


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
