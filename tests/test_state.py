"""explorer.state: what is large lives with the session (the upload, what is prepared from it) and goes with it."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from explorer import cache, state
from explorer.dataset import load_demo
from tests.apptest import ROOT

GOOD = b"colour,score\n" + b"red,1\ngreen,2\nblue,3\n" * 50


def test_an_upload_is_read_for_the_session_and_kept_in_no_shared_cache():
    a = state.read_upload(GOOD, "a.csv")
    b = state.read_upload(GOOD, "a.csv")
    assert a is not b and a.frame.equals(b.frame) and a.fingerprint == b.fingerprint
    assert state.cached_upload is state.read_upload  # the Data page's name for it
    assert not any("upload" in name for name in cache.stats())  # no cache of uploads shared by the sessions


def test_the_demo_tables_are_shared_within_a_byte_budget():
    assert cache.budgets()["explorer.state.cached_demo"] == 16 * cache.MIB
    census = state.cached_demo("census")
    assert census.frame.equals(load_demo("census").frame)
    assert state.cached_demo("census") is not census  # a fresh copy each time: no session changes another's


def _script():
    import streamlit as st

    from explorer import state

    state.init_session()
    state.profile()
    state.encoded("sex")
    st.session_state["before"] = sorted(k for k in st.session_state if str(k).startswith("_per_dataset_"))
    state.activate(state.read_upload(b"colour,score\nred,1\ngreen,2\nblue,3\n", "small.csv"))
    st.session_state["after"] = sorted(k for k in st.session_state if str(k).startswith("_per_dataset_"))
    state.profile()


def test_a_new_dataset_drops_what_was_prepared_from_the_previous_one():
    at = AppTest.from_function(_script).run()
    assert not at.exception
    assert at.session_state["before"] == ["_per_dataset_codes_sex", "_per_dataset_profile"]
    assert at.session_state["after"] == []  # nothing left holding the census table
    assert at.session_state[state.DATASET].name == "small.csv"


def test_the_cache_owner_token_is_one_of_the_sessions_own_keys():
    assert cache.OWNER_KEY in state.INTERNAL_KEYS


def _owner_script():

    from explorer import state

    state.init_session()  # reads the demo through the shared cache: the session becomes one of its owners


def test_a_session_owns_what_it_read_from_the_shared_caches():
    at = AppTest.from_function(_owner_script).run()
    assert not at.exception
    token = at.session_state[cache.OWNER_KEY]
    store = state.cached_demo.store
    assert any(token.id in owners for owners in store.owners.values())


def _tab_script():
    import streamlit as st

    from explorer import state

    state.init_session()
    st.session_state["link_tab"] = st.query_params.get(state.TAB_PARAM)


def test_every_session_gets_an_unguessable_tab_token_of_its_own():
    tokens = set()
    for _ in range(3):
        at = AppTest.from_function(_tab_script).run()
        token = at.session_state[state.TAB]
        assert isinstance(token, str) and len(token) >= 22  # 16 random bytes, URL-safe
        tokens.add(token)
    assert len(tokens) == 3
    assert state.TAB in state.INTERNAL_KEYS


def test_a_link_carrying_another_sessions_token_gives_nothing_without_the_same_browser():
    at = AppTest.from_function(_tab_script)
    at.query_params[state.TAB_PARAM] = "someone-elses-token"
    at.query_params[state.DATA_PARAM] = "mine.csv~1234"
    at.run()
    assert at.session_state[state.DATASET].name.startswith(state.DEFAULT_DEMO)  # the demo, not anyone's upload
    assert at.session_state[state.TAB] != "someone-elses-token"
    assert at.session_state[state.LINKED_DATA] == "mine.csv~1234"  # the frame says the link was made on other data


def test_a_reload_takes_the_earlier_sessions_dataset_itself_and_a_copy_of_its_ledger():
    ds = state.read_upload(GOOD, "mine.csv")
    led = state.new_ledger(2.0, 1e-6)
    restored = state._restore({state.DATASET: ds, state.LEDGER: led})
    assert restored[0] is ds  # the same object: the file is not held twice
    assert restored[1] is not led and restored[1].epsilon == 2.0 and restored[1].delta == 1e-6
    assert state._restore({state.LEDGER: led}) is None  # an earlier session already emptied by the reaper
    assert state._restore({state.DATASET: ds})[1] is None


# --- What a link says about the data: an upload by its name only, a demo table by its name and fingerprint ---------

#: An upload with a rare row: one who knows every other row could test candidates for it against any function of
#: the file that a link carried (the attack that found the upload's SHA-256 in the link).
PEOPLE = b"name,country,age\n" + b"".join(b"p%d,Kenya,%d\n" % (i, 20 + i % 50) for i in range(200))
RARE = b"p200,Zanzibar,41\n"


def _link_script(raw: bytes, name: str, linked: str | None):
    import streamlit as st

    from explorer import frame, state

    state.init_session()
    state.activate(state.read_upload(raw, name))
    if linked is not None:  # as after a reload that restored this upload under a link that names other data
        st.session_state[state.LINKED_DATA] = linked
    frame.dataset_notices()


def _link(raw: bytes, name: str = "people.csv", linked: str | None = None) -> AppTest:
    at = AppTest.from_function(_link_script, args=(raw, name, linked), default_timeout=30).run()
    assert not at.exception
    return at


def _sha(raw: bytes) -> str:
    import hashlib

    return hashlib.sha256(raw).hexdigest()


def test_the_link_after_an_upload_carries_nothing_computed_from_its_contents():
    raw = PEOPLE + RARE
    at = _link(raw)
    link = {key: at.query_params[key] for key in at.query_params}
    assert link[state.DATA_PARAM] == "people.csv~"
    digest = _sha(raw)
    windows = {digest[i : i + 8] for i in range(len(digest) - 7)}  # any 8 hex digits of it, a prefix among them
    assert not any(w in str(value) for value in link.values() for w in windows)
    # The server still keeps the budget under the file's own fingerprint, as the command line does.
    assert at.session_state[state.DATASET].fingerprint == digest[:8]


def test_removing_one_row_of_an_upload_leaves_its_link_unchanged():
    with_rare, without = _link(PEOPLE + RARE), _link(PEOPLE)
    assert _sha(PEOPLE + RARE)[:8] != _sha(PEOPLE)[:8]  # the old link's fingerprint told the two apart
    assert with_rare.query_params[state.DATA_PARAM] == without.query_params[state.DATA_PARAM] == "people.csv~"
    assert with_rare.session_state[state.DATASET].fingerprint != without.session_state[state.DATASET].fingerprint


def _warnings(at: AppTest) -> list[str]:
    """The warnings on the page, as read (Markdown's escapes taken out)."""
    return [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]


def test_a_link_made_on_a_demo_table_still_opens_on_it_and_names_its_version():
    census = load_demo("census")
    assert census.identity == f"census.csv~{_sha((ROOT / 'data' / 'census.csv').read_bytes())[:8]}"  # public data
    raw = (ROOT / "data" / "census.csv").read_bytes()
    at = AppTest.from_function(_demo_link_script, default_timeout=30)
    at.query_params[state.DATA_PARAM] = census.identity
    at.run()
    assert not at.exception and not _warnings(at)  # the link made on the demo opens on the demo, without a notice
    assert at.query_params[state.DATA_PARAM] == census.identity
    at = AppTest.from_function(_demo_link_script, default_timeout=30)
    at.query_params[state.DATA_PARAM] = "census.csv~0123abcd"  # a link made on another version of the demo
    at.run()
    assert not at.exception
    assert _warnings(at) == [
        "This link was made on a different file named **census.csv** than the one this tab has open (or on an "
        "earlier version of it), so the numbers below may not be the ones that were shared. Open the Data page and "
        "upload the file the link was made with to see them."
    ]
    assert state.read_upload(raw, "census.csv").identity == "census.csv~"  # the same bytes uploaded: an upload's link


def _demo_link_script():
    from explorer import frame, state

    state.init_session()
    frame.dataset_notices()


def test_a_link_made_on_an_upload_says_so_on_a_tab_with_other_data():
    at = AppTest.from_function(_demo_link_script, default_timeout=30)
    at.query_params[state.DATA_PARAM] = "people.csv~"
    at.run()
    assert not at.exception
    assert _warnings(at) == [
        "This link was made on **people.csv**, but this tab has **census.csv** open, so the numbers below are not "
        "the ones that were shared. Open the Data page and upload people.csv to see them (a link names an uploaded "
        "file by its name only, so make sure yours is the same file)."
    ]


def test_an_old_link_with_a_hash_of_the_upload_gets_the_different_file_notice_in_words():
    raw = PEOPLE + RARE
    old = f"people.csv~{_sha(raw)[:8]}"  # what links carried before: the upload's fingerprint
    at = _link(raw, linked=old)
    (notice,) = _warnings(at)
    assert notice.startswith("This link was made on a different file named **people.csv**")
    assert _sha(raw)[:8] not in notice  # the page never repeats the hex
    assert at.query_params[state.DATA_PARAM] == "people.csv~"  # and the link is rewritten without it
    at = _link(raw, name="mine.csv", linked=old)  # another name: the notice names the file the link was made on
    (notice,) = _warnings(at)
    assert notice.startswith("This link was made on **people.csv**, but this tab has **mine.csv** open")
    assert "by its name only" not in notice  # the link named content, just not in a form this server keeps
    for odd in ("~", "people.csv", "~~~", "a~b~c", "x" * 500):  # hand-typed: a notice, never a crash
        assert _warnings(_link(raw, linked=odd))


def _stops_once(monkeypatch, where: str):
    """Streamlit's stop for a rerun the user asked for (another page clicked), raised once at the first yield point of
    kind ``where`` ("spinner": the spinner's end; "state": a read or write of the session state)."""
    import contextlib

    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

    raised = []

    def stop():
        if not raised:
            raised.append(True)
            raise RerunException(None)

    if where == "spinner":

        @contextlib.contextmanager
        def spinner(text):
            try:
                yield
            finally:  # as Streamlit's, whose end draws (clears the spinner) whatever the body did
                stop()

        monkeypatch.setattr(state.st, "spinner", spinner)
    else:
        real = state.new_upload

        def new_upload(file_id):
            stop()
            return real(file_id)

        monkeypatch.setattr(state, "new_upload", new_upload)
    return raised


@pytest.mark.parametrize("where", ["spinner", "state"])
def test_an_upload_is_the_sessions_dataset_even_when_another_page_stops_the_run(monkeypatch, where):
    """A user who clicked another page while the file was read lost the upload (found by a browser walk): Streamlit
    stops the run at its next yield point (an element drawn, the session state read or written), and the uploader,
    not drawn on the other page, forgets the file. The file is now the session's dataset, then the stop is raised."""
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

    activated, reads = [], []
    monkeypatch.setattr(state, "activate", activated.append)
    raised = _stops_once(monkeypatch, where)

    def read():
        reads.append(1)
        return b"colour,score\nred,1\ngreen,2\n"

    with pytest.raises(RerunException):
        state.take_upload(f"file-{where}", "kept.csv", read)  # an id new to the session
    assert raised and [ds.name for ds in activated] == ["kept.csv"] and len(reads) == 1  # read once, kept


def test_a_refused_upload_records_its_sentence_through_a_stop(monkeypatch):
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

    sentences = []
    monkeypatch.setattr(state, "set_upload_error", sentences.append)
    monkeypatch.setattr(state.uploads, "release", lambda file_id: None)
    _stops_once(monkeypatch, "spinner")
    with pytest.raises(RerunException):
        state.take_upload("file-2", "bad.csv", lambda: b"\x00\x01")
    assert len(sentences) == 1 and "was not loaded: The file has a header row but no data rows" in sentences[0]


def test_an_upload_whose_reading_was_stopped_for_good_is_read_by_the_next_run_of_any_page(monkeypatch):
    """With ``runner.fastReruns`` (Streamlit's default) a click on another page stops the Data page's run for good at
    its next yield point: the file id was recorded, the file never read. The next run, on whatever page, reads it
    from Streamlit's store (checked in Chromium: four uploads of 24 MB, each followed 0.2 s later by a click on
    Central DP, all four became the dataset; before, none did)."""
    import streamlit as st

    stored = {"file-left": ("left.csv", b"colour,score\nred,1\ngreen,2\n")}
    monkeypatch.setattr(state.uploads, "stored", stored.get)
    monkeypatch.setattr(state.uploads, "release_older", lambda file_id: None)
    activated = []
    monkeypatch.setattr(state, "activate", activated.append)
    st.session_state[state.LAST_UPLOAD] = "file-left"  # recorded by the stopped run
    st.session_state.pop(state.DONE_UPLOAD, None)
    assert state.take_upload_left_behind().name == "left.csv"
    assert [ds.name for ds in activated] == ["left.csv"]
    assert st.session_state[state.DONE_UPLOAD] == "file-left"
    assert state.take_upload_left_behind() is None and len(activated) == 1  # read once
    st.session_state[state.LAST_UPLOAD] = "file-gone"  # released since: nothing to read, and not asked again
    assert state.take_upload_left_behind() is None and st.session_state[state.DONE_UPLOAD] == "file-gone"
