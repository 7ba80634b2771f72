"""Every cache the sessions share is bounded by bytes: no ``st.cache_data`` or ``st.cache_resource`` in the app.

Streamlit's caches keep a number of entries whatever their size, for every session, for the server's life (issue 23:
32 training runs or audit outputs per function); :func:`explorer.cache.bounded` keeps each function's results within
a budget of bytes and drops a result once the sessions that used it have ended. Only ``explorer/cache.py`` may name
Streamlit's caches (its docstring compares them).
"""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The one module that may name Streamlit's own caches.
ALLOWED = {"explorer/cache.py"}
#: Places not converted yet, each with who converts it: this may only shrink (empty since 527a03b converted
#: compare_means.py's simulation; the audits' were converted in 91920f4).
LEFT: dict[str, str] = {}
STREAMLIT_CACHE = re.compile(r"\bst\s*\.\s*cache_(data|resource)\b|\bcache_(data|resource)\s*\(")


def _uses() -> dict[str, list[str]]:
    found = {}
    for folder in ("app_pages", "explorer"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name in ALLOWED:
                continue
            lines = [
                line.strip() for line in path.read_text(encoding="utf-8").splitlines() if STREAMLIT_CACHE.search(line)
            ]
            if lines:
                found[name] = lines
    return found


def test_no_page_or_view_uses_streamlits_entry_counted_caches():
    found = {name: lines for name, lines in _uses().items() if name not in LEFT}
    assert not found, f"use explorer.cache.bounded (a budget in bytes) instead: {found}"


def test_the_places_left_are_still_there():
    # an entry of LEFT whose cache has gone is removed from the list, so that the test stays strict
    assert set(LEFT) <= set(_uses()), sorted(set(LEFT) - set(_uses()))


def test_the_check_sees_every_spelling():
    for line in ("@st.cache_data(max_entries=32)", "@st.cache_resource", "f = st.cache_data(show_spinner=False)(g)"):
        assert STREAMLIT_CACHE.search(line), line
    assert not STREAMLIT_CACHE.search("@cache.bounded(4 * cache.MIB)")
