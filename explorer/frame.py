"""The frame around every page: navigation, the shared sidebar, the error boundary and URL notices."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import streamlit as st

from explorer import budget, glossary, publishing, state, widgets
from explorer.dataset import Dataset
from explorer.markup import md, plain_sentence

__all__ = [
    "FAVICON",
    "navigation",
    "sidebar",
    "run_page",
    "dataset_notices",
    "other_data_notice",
    "note_ignored_url_values",
    "refused_link_value",
    "echo",
    "ECHO_LIMIT",
    "log_run_time",
]

log = logging.getLogger("dpx")

#: The page icon, served by the app itself: Streamlit fetches a ``:material/...:`` page icon from a font
#: CDN on every page view, a request that leaves the machine (and fails offline).
FAVICON = str(Path(__file__).resolve().parent / "assets" / "favicon.png")

#: Key of the sidebar container that holds the navigation links (browser tests find them by its class).
NAV_KEY = "dpx_nav"


def navigation(pages: Sequence[st.Page]):
    """``st.navigation`` over ``pages``, drawn by :func:`sidebar` as links (Streamlit's own list stays hidden)."""
    return st.navigation(list(pages), position="hidden")


def sidebar(pages: Sequence[st.Page]) -> Callable[[], None]:
    """Draw the shared sidebar; returns the function that fills in what the page may change.

    Seed and trials are widgets the page reads, so they are created before it runs
    (a link's seed applies from the first run). The active dataset and the ledger can
    change while the page runs, so their slots are filled afterwards.
    """
    with st.sidebar:
        with st.container(key=NAV_KEY):
            for page in pages:
                st.page_link(page, label=page.title, icon=page.icon)
        with st.popover(
            "Glossary",
            icon=":material/menu_book:",
            width="stretch",
            help="ε, δ, sensitivity, neighbouring datasets, RDP, zCDP, PLD, μ-GDP and more, in plain words.",
        ):
            st.markdown(glossary.markdown())
        st.divider()
        dataset_slot = st.container()
        widgets.whole_number(
            "Random seed",
            0,
            2**31 - 1,
            state.DEFAULT_SEED,
            state.SEED,
            "Fixes every simulated draw on every page, so a shared link shows the same numbers. Never the noise of a "
            "publication, which is drawn from a secure source and cannot be reproduced.",
        )
        st.caption(
            "What the pages draw is **simulated, not private**: seeded noise anyone with the link can recompute. "
            "A view's Publish section draws what may be published."
        )
        widgets.bound(
            st.select_slider,
            "Simulated trials",
            options=widgets.TRIAL_CHOICES,
            value=state.DEFAULT_TRIALS,
            key=state.TRIALS,
            bind="query-params",
            help="How many independent releases are simulated to draw error distributions.",
        )
        ledger_slot = st.container()

    def fill() -> None:
        ds = state.dataset()
        with dataset_slot:
            st.markdown("**Active dataset**")
            rows = f"{ds.n_rows:,} of {ds.total_rows:,} rows (a seeded sample)" if ds.sampled else f"{ds.n_rows:,} rows"
            st.text(f"{ds.name}\n{rows} × {ds.frame.shape[1]:,} columns")
        with ledger_slot:
            budget.ledger_summary()
            publishing.sidebar_line()

    return fill


def run_page(render: Callable[[], None]) -> None:
    """Run a page, turning any error into one sentence instead of a traceback."""
    try:
        state.init_session()  # a no-op under app.py; a safety net if Streamlit ever runs a page file alone
        render()
    except (ValueError, TypeError) as exc:
        st.error(md(plain_sentence(exc)))
    except Exception:  # noqa: BLE001 - the boundary: the user never sees a traceback
        log.exception("page failed")
        st.error(
            "Something unexpected went wrong while drawing this page. "
            "Your data and settings are unchanged; try other settings."
        )


def dataset_notices() -> None:
    """Put the active dataset's identity and the tab's token in the link, and say so when a link was made on other
    data."""
    ds = state.dataset()
    if st.query_params.get(state.DATA_PARAM) != ds.identity:
        st.query_params[state.DATA_PARAM] = ds.identity
    token = state.tab_token()
    if token and st.query_params.get(state.TAB_PARAM) != token:
        st.query_params[state.TAB_PARAM] = token  # a reload of this tab finds this session by it
    linked = state.linked_data()
    if linked and linked != ds.identity:
        st.warning(other_data_notice(linked, ds), icon=":material/link_off:")


def other_data_notice(linked: str, ds: Dataset) -> str:
    """The notice for a link made on other data than the tab's ``ds`` (Markdown; the link's part escaped).

    ``linked`` is the link's :attr:`~explorer.dataset.Dataset.identity`: ``name~fingerprint`` for a demo table,
    ``name~`` for an upload (a link carries nothing computed from an upload's contents), anything for a link typed by
    hand or made by an older version of the app (whose upload links carried a hash of the file). The notice never
    repeats the link's fingerprint: it is not a word a student reads.
    """
    name, tilde, tag = linked.rpartition("~")
    if not tilde:
        name, tag = linked, ""
    shown = md(echo(name or linked))
    upload = "" if tag else " (a link names an uploaded file by its name only, so make sure yours is the same file)"
    if name != ds.name:
        return (
            f"This link was made on **{shown}**, but this tab has **{md(ds.name)}** open, so the numbers below are not "
            f"the ones that were shared. Open the Data page and upload {shown} to see them{upload}."
        )
    return (
        f"This link was made on a different file named **{shown}** than the one this tab has open (or on an earlier "
        f"version of it), so the numbers below may not be the ones that were shared. Open the Data page and upload "
        f"the file the link was made with to see them."
    )


#: The longest part of a link the page repeats back (a key or a value); the rest is cut with "…".
ECHO_LIMIT = 40


def echo(text) -> str:
    """A value from a link as the page may repeat it: a string, cut to :data:`ECHO_LIMIT` characters."""
    text = str(text)
    return text if len(text) <= ECHO_LIMIT else text[: ECHO_LIMIT - 1] + "…"


def note_ignored_url_values(raw: dict[str, str]) -> None:
    """Say when a link carried a value a widget refused (it was out of range or unknown).

    Only widget values are compared: a link's key that names the session's own state (the dataset, the ledger) is
    not a setting, and its value is never shown. Nor a widget the last run drew: its value came from the browser, and
    a link that says otherwise lags behind the screen (:func:`explorer.widgets.sync_link` brings it up to date at the
    end of this run); only a widget drawn for the first time reads its value from the link.
    """
    drawn = st.session_state.get(state.DRAWN_LAST_RUN, frozenset())
    for key, given in raw.items():
        if key not in st.session_state or key in state.INTERNAL_KEYS or key.startswith("_") or key in drawn:
            continue
        current = st.session_state[key]
        if not isinstance(current, (bool, int, float, str)):
            continue  # not a value a widget holds: never printed
        try:
            same = float(given) == float(current)
        except (TypeError, ValueError):
            same = str(given).lower() == str(current).lower()
        if not same:
            st.info(refused_link_value(key, given, current), icon=":material/link:")


def refused_link_value(key: str, given: str, current) -> str:
    """The notice about a link's value the widget ``key`` refused: the widget's label, the value, what it takes.

    The words come from :func:`explorer.widgets.described` (the label the page shows and the range it takes, never
    the URL key); a widget drawn without them is called "a setting of this page".
    """
    if isinstance(current, float) and current.is_integer():
        current = int(current)
    label, allowed = widgets.described(key) or ("a setting of this page", "")
    what = f"left **{md(label)}** empty" if given == "" else f"set **{md(label)}** to {md(echo(given))}"
    takes = f": it takes {md(allowed)}" if allowed else ""
    # a choice named in code's form (an audit's key) is what its list shows, not words to repeat in a sentence
    shown = "the default" if isinstance(current, str) and "_" in current else md(echo(current))
    return f"The link {what}, which is not allowed here{takes}; showing {shown} instead."


def log_run_time(page: str, started: float) -> None:
    """Append this run's wall time to the file named by DPX_RUN_LOG, if set (benchmarks/bench_load.py sets it).

    Measured inside the server, it includes the wait for the interpreter behind other sessions' runs.
    """
    path = os.environ.get("DPX_RUN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{page or 'home'} {time.perf_counter() - started:.4f}\n")
