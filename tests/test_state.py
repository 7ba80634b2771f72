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
