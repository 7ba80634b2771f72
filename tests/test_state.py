"""explorer.state: what is large lives with the session (the upload, what is prepared from it) and goes with it."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from explorer import cache, state
from explorer.dataset import load_demo

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
