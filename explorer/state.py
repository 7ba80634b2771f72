"""The session's state: every key named once here, and one function that writes each.

Everything per user lives in ``st.session_state`` (a session is a browser tab);
nothing per user is kept at module level. Widget values (seed, trials, each
page's sliders) are written by their widgets; the keys below are written only
by the function named beside them.

What is large lives with the session and goes when it ends: the uploaded dataset (:func:`read_upload`, read
into the session's state by :func:`activate`, never into a cache shared by the sessions), what is prepared from
it (:func:`per_dataset`) and the session's share of the shared caches (:mod:`explorer.cache` drops a result
when the last session that used it has ended). :mod:`explorer.uploads` ends a session whose tab has gone
for a minute, with its files.
"""

from __future__ import annotations

import copy
import secrets
import uuid
from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import accounting
from dpcore.neighbours import ADD_REMOVE
from explorer import cache, columns, uploads
from explorer.dataset import Dataset, DatasetError, load_csv, load_demo
from explorer.markup import md

__all__ = [
    "DATASET",
    "DATASET_KEY",
    "LEDGER",
    "UPLOAD_ERROR",
    "LAST_UPLOAD",
    "SEED",
    "TRIALS",
    "DEFAULT_DEMO",
    "DEFAULT_SEED",
    "DEFAULT_TRIALS",
    "LEDGER_MAX_ENTRIES",
    "LINKED_DATA",
    "INTERNAL_KEYS",
    "DATA_PARAM",
    "TAB_PARAM",
    "TAB",
    "tab_token",
    "DRAWN_LAST_RUN",
    "init_session",
    "linked_data",
    "activate",
    "dataset",
    "dataset_key",
    "ledger",
    "new_ledger",
    "replace_ledger",
    "upload_error",
    "set_upload_error",
    "new_upload",
    "seed",
    "trials",
    "seed_words",
    "rng",
    "cached_demo",
    "read_upload",
    "cached_upload",
    "take_upload",
    "UPLOAD_WIDGET",
    "take_upload_left_behind",
    "DONE_UPLOAD",
    "per_dataset",
    "profile",
    "categorical_columns",
    "numeric_columns",
    "encoded",
]

#: The active :class:`~explorer.dataset.Dataset`; written by :func:`activate`.
DATASET = "dataset"
#: A key unique to each activation of a dataset (for caches); written by :func:`activate`.
DATASET_KEY = "dataset_key"
#: The session's :class:`~dpcore.accounting.BudgetLedger`; written by :func:`init_session` and :func:`replace_ledger`.
LEDGER = "ledger"
#: The sentence of the last refused upload; written by :func:`set_upload_error` and cleared by :func:`activate`.
UPLOAD_ERROR = "_upload_error"
#: The file id of the last upload handled, so a rerun does not read it again; written by :func:`new_upload`.
LAST_UPLOAD = "_last_upload"
#: The file id of the last upload read to its end (made the dataset, or refused); written by :func:`take_upload`.
DONE_UPLOAD = "_done_upload"
#: The dataset identity a link asked for, read on the session's first run by :func:`init_session`; cleared by
#: :func:`activate` (the user chose data since).
LINKED_DATA = "_linked_data"
#: The URL parameter that carries the active dataset's identity (:attr:`~explorer.dataset.Dataset.identity`:
#: ``name~fingerprint`` for a demo table, ``name~`` for an upload, never a function of an upload's contents).
DATA_PARAM = "data"
#: The URL parameter that carries the tab's token, by which a reload finds the session it replaces.
TAB_PARAM = "tab"
#: The session's tab token (:data:`TAB_PARAM`), an unguessable random string; written by :func:`init_session`.
TAB = "_tab"
#: The keys of the URL-bound widgets the last run drew (their values came from the browser, not from the link, in
#: this run); written by :func:`explorer.widgets.sync_link`.
DRAWN_LAST_RUN = "_bound_drawn_last_run"
#: Widget keys of the shared sidebar (written by their widgets).
SEED = "seed"
TRIALS = "trials"
#: Prefix of the per-dataset caches written by :func:`per_dataset`.
_CACHE_PREFIX = "_per_dataset_"
#: The session's own keys (not widgets): a link that names one is not a setting, and its value is never shown.
INTERNAL_KEYS = frozenset(
    {
        DATASET,
        DATASET_KEY,
        LEDGER,
        UPLOAD_ERROR,
        LAST_UPLOAD,
        DONE_UPLOAD,
        LINKED_DATA,
        DRAWN_LAST_RUN,
        TAB,
        cache.OWNER_KEY,
    }
)

DEFAULT_DEMO = "census"
DEFAULT_SEED = 2017
DEFAULT_TRIALS = 1_000


#: The most entries the session's ledger keeps: it bounds what one tab can pile into the server's memory and
#: into the Accountant page's table, far beyond what a student records by hand (a rerun with this many costs
#: under 1.5× one with none: benchmarks/results/ledger.md).
LEDGER_MAX_ENTRIES = 2_000


def init_session() -> None:
    """Give a new session its dataset and ledger: those of the session this one replaces after a reload of the
    same tab in the same browser (:func:`explorer.uploads.earlier_session`), else the demo dataset and an empty
    ledger; and a tab token of its own, which the frame puts in the link.

    A reload carries the tab's token in its link; a link shared with someone else carries it too, but their browser
    is another, so they get the demo and their own empty ledger (and the frame says the link was made on other data).
    """
    if DATASET not in st.session_state:
        linked = st.query_params.get(DATA_PARAM)  # a shared link names the data its numbers came from
        browser = uploads.browser_id()
        earlier = uploads.earlier_session(st.query_params.get(TAB_PARAM), browser)
        restored = _restore(earlier) if earlier is not None else None
        activate(restored[0] if restored else cached_demo(DEFAULT_DEMO))
        if restored and restored[1] is not None:
            replace_ledger(restored[1])
        st.session_state[LINKED_DATA] = linked
        st.session_state[TAB] = secrets.token_urlsafe(16)
        uploads.answer_to(st.session_state[TAB], browser)
    if LEDGER not in st.session_state:
        replace_ledger(new_ledger(5.0, 1e-5, "best"))


def _restore(earlier) -> tuple[Dataset, accounting.BudgetLedger | None] | None:
    """The dataset (the same object) and a copy of the ledger of an earlier session's state, if it has a dataset."""
    try:
        ds = earlier[DATASET]
    except KeyError:
        return None
    try:
        led = copy.deepcopy(earlier[LEDGER])
    except KeyError:
        led = None
    return (ds, led) if isinstance(ds, Dataset) else None


def tab_token() -> str | None:
    """This session's tab token (for the link)."""
    return st.session_state.get(TAB)


def activate(ds: Dataset) -> None:
    """Make ``ds`` the session's active dataset (a refused upload never reaches here); what was prepared from the
    previous one goes (a slot of :func:`per_dataset` left behind would keep that dataset alive)."""
    for slot in [k for k in st.session_state if str(k).startswith(_CACHE_PREFIX)]:
        del st.session_state[slot]
    st.session_state[DATASET] = ds
    st.session_state[DATASET_KEY] = uuid.uuid4().hex
    st.session_state.pop(UPLOAD_ERROR, None)
    st.session_state[LINKED_DATA] = None


def linked_data() -> str | None:
    """The identity of the data a link was made on, while the session has not chosen data itself."""
    return st.session_state.get(LINKED_DATA)


def dataset() -> Dataset:
    return st.session_state[DATASET]


def dataset_key() -> str:
    """A name unique to the active dataset, for cache keys (the frame itself is slow to hash)."""
    return st.session_state[DATASET_KEY]


def ledger() -> accounting.BudgetLedger:
    return st.session_state[LEDGER]


def new_ledger(epsilon: float, delta: float, method: str = "best", relation=ADD_REMOVE) -> accounting.BudgetLedger:
    """A session ledger with this budget under ``relation`` (one record the unit), holding at most
    :data:`LEDGER_MAX_ENTRIES` entries."""
    return accounting.BudgetLedger(epsilon, delta, method, max_entries=LEDGER_MAX_ENTRIES, relation=relation)


def replace_ledger(new: accounting.BudgetLedger) -> None:
    """Install ``new`` as the session's ledger (a new budget forgets the recorded releases)."""
    st.session_state[LEDGER] = new


def upload_error() -> str | None:
    """The sentence of the last refused upload (already escaped for Markdown), or None."""
    return st.session_state.get(UPLOAD_ERROR)


def set_upload_error(text: str) -> None:
    st.session_state[UPLOAD_ERROR] = text


def new_upload(file_id: str) -> bool:
    """Whether the upload ``file_id`` is new to this session; records it as seen."""
    if st.session_state.get(LAST_UPLOAD) == file_id:
        return False
    st.session_state[LAST_UPLOAD] = file_id
    return True


def seed() -> int:
    return int(round(st.session_state.get(SEED, DEFAULT_SEED)))  # a float input, shown without decimals


def trials() -> int:
    return int(st.session_state.get(TRIALS, DEFAULT_TRIALS))


def seed_words(salt: str) -> list[int]:
    """The seed of a page's generator: the session seed and a fixed number for the page."""
    return [seed(), sum(map(ord, salt))]


def rng(salt: str) -> np.random.Generator:
    """A generator fixed by the session's seed and the page, so a shared link redraws the same."""
    return np.random.default_rng(seed_words(salt))


@cache.bounded(16 * cache.MIB, largest=1.0)  # the census demo pickles to 6 MB, the survey to 0.1 MB
def cached_demo(name: str) -> Dataset:
    """A demo table, shared by the sessions (every new session starts on the census demo)."""
    return load_demo(name)


def read_upload(raw: bytes, name: str) -> Dataset:
    """Read an upload into a :class:`Dataset`, for :func:`activate` to keep with the session.

    Not cached across sessions: the session keeps its dataset in its state (a rerun does not read the file again:
    :func:`new_upload`), and it goes when the session ends. A process-wide cache would keep every parsed upload
    after its session had gone, and its speed would tell a session whether someone else had uploaded the same bytes.
    """
    with st.spinner("Reading the file…"):
        return load_csv(raw, name)


#: The Data page's name for :func:`read_upload` (a cache shared by the sessions before issue 23).
cached_upload = read_upload


#: The key of the Data page's uploader.
UPLOAD_WIDGET = "data_upload"


#: The key of the Data page's uploader.
UPLOAD_WIDGET = "data_upload"


def take_upload(file_id: str, name: str, read: Callable[[], bytes]) -> Dataset | None:
    """Read the Data page's upload ``file_id`` if it is new to the session and make it the session's dataset, or
    record the sentence that refuses it; the dataset read, or None (not new, or refused).

    A user who clicks another page while a file is read must not lose it (found by a browser walk: the upload
    vanished, the census demo still active). Streamlit stops the running script at its next yield point (an element
    drawn, a read or write of ``st.session_state``) and runs the other page: with ``runner.fastReruns`` (the default)
    the old run is stopped for good, otherwise it raises a rerun once. The uploader, not drawn on the other page,
    forgets the file. So the file id is recorded first (:func:`new_upload`); a step stopped by a rerun is run to its
    end (:func:`explorer.uploads.to_the_end`); and a file recorded but never read to its end is read by the next run
    of any page (:func:`take_upload_left_behind`) from Streamlit's store, where it stays until released.
    """
    stopped: list[BaseException] = []
    if not uploads.to_the_end(lambda: new_upload(file_id), stopped):
        _raise_first(stopped)
        return None
    return _read_upload(file_id, name, read, stopped)


def take_upload_left_behind() -> Dataset | None:
    """The upload whose id the session recorded but whose reading a click on another page stopped
    (:func:`take_upload`), read now from Streamlit's store, made the session's dataset (or refused in a sentence the
    Data page shows); None when there is none, or the file is gone from the store."""
    file_id = st.session_state.get(LAST_UPLOAD)
    if file_id is None or st.session_state.get(DONE_UPLOAD) == file_id:
        return None
    stored = uploads.stored(file_id)
    if stored is None:
        st.session_state[DONE_UPLOAD] = file_id  # gone (released, or the session's store trimmed): nothing to read
        return None
    name, data = stored
    return _read_upload(file_id, name, lambda: data, [])


def _read_upload(file_id: str, name: str, read: Callable[[], bytes], stopped: list[BaseException]) -> Dataset | None:
    uploads.release_older(file_id)  # files replaced or left behind: no widget uses them
    found: dict[str, Dataset] = {}

    def read_it() -> None:
        with st.spinner("Reading the file…"):
            if "dataset" not in found:  # a second pass (after a stop at the spinner's end) does not read again
                found["dataset"] = load_csv(read(), name)

    try:
        uploads.to_the_end(read_it, stopped)
    except DatasetError as exc:
        uploads.release(file_id)  # Streamlit would keep a refused file until the session ends
        sentence = f"{md(name)} was not loaded: {md(exc)} The previous dataset is still active."
        uploads.to_the_end(lambda: _done(file_id, sentence), stopped)
        _raise_first(stopped)
        return None
    uploads.to_the_end(lambda: _done(file_id, found["dataset"]), stopped)
    _raise_first(stopped)
    return found["dataset"]


def _done(file_id: str, outcome: Dataset | str) -> None:
    if isinstance(outcome, str):
        set_upload_error(outcome)
    else:
        activate(outcome)
    st.session_state[DONE_UPLOAD] = file_id


def _raise_first(stopped: list[BaseException]) -> None:
    if stopped:
        raise stopped[0]


def per_dataset(key: str, compute: Callable[[], object]):
    """``compute()`` once per active dataset, kept with the session: the data do not change when a slider moves."""
    ds = dataset()
    slot = _CACHE_PREFIX + key
    cached = st.session_state.get(slot)
    if cached is None or cached[0] is not ds:
        cached = (ds, compute())
        st.session_state[slot] = cached
    return cached[1]


def profile() -> pd.DataFrame:
    """The active dataset's column profile."""
    return per_dataset("profile", lambda: columns.profile(dataset().frame))


def categorical_columns() -> list[str]:
    """Columns the frequency oracles can take (kept per dataset: scanning them costs more than a mechanism)."""
    return per_dataset("categorical", lambda: columns.categorical_columns(dataset().frame))


def numeric_columns() -> list[str]:
    return per_dataset("numeric", lambda: columns.numeric_columns(dataset().frame))


def encoded(column: str):
    """``columns.encode_categories`` of a column of the active dataset: (codes, labels, note), kept per dataset."""
    return per_dataset(f"codes_{column}", lambda: columns.encode_categories(dataset().frame[column]))
