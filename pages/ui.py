"""Shared widgets, session state, cached loaders and the page error boundary.

Pages stay thin: they read widgets from here, call ``dpcore``, and draw with
``pages.charts``. Everything per user lives in ``st.session_state``; nothing
per user is kept at module level.
"""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import accounting, data

DEFAULT_DEMO = "census"
TRIAL_CHOICES = (100, 300, 1_000, 3_000, 10_000)

# eps on a log scale: 1-1.25-1.5-2-2.5-3-4-5-6-8 per decade, 0.01 .. 10
EPSILON_GRID = tuple(
    float(f"{m * 10.0**e:.4g}") for e in (-2, -1, 0) for m in (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8)
) + (10.0,)
DELTA_GRID = (1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)

log = logging.getLogger("dpx")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")


def md(value) -> str:
    """User text made safe inside Markdown: every Markdown, HTML and Streamlit directive character escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(value))


# ----------------------------------------------------------------------------- state
def init_session() -> None:
    """Give a new session its demo dataset and an empty privacy-budget ledger."""
    if "dataset" not in st.session_state:
        activate(load_demo(DEFAULT_DEMO))
    if "ledger" not in st.session_state:
        st.session_state["ledger"] = accounting.BudgetLedger(epsilon=5.0, delta=1e-5, method="rdp")


def activate(ds: data.Dataset) -> None:
    """Make ``ds`` the session's active dataset (a refused upload never reaches here)."""
    st.session_state["dataset"] = ds
    st.session_state["dataset_key"] = uuid.uuid4().hex
    st.session_state.pop("_upload_error", None)


def dataset() -> data.Dataset:
    return st.session_state["dataset"]


def dataset_key() -> str:
    """A name unique to the active dataset, for st.cache_data keys (the frame itself is slow to hash)."""
    return st.session_state["dataset_key"]


def ledger() -> accounting.BudgetLedger:
    return st.session_state["ledger"]


def seed() -> int:
    return int(st.session_state.get("seed", 2017))


def trials() -> int:
    return int(st.session_state.get("trials", 1_000))


def seed_words(salt: str) -> list[int]:
    """The seed of a page's generator: the session seed and a fixed number for the page."""
    return [seed(), sum(map(ord, salt))]


def rng(salt: str) -> np.random.Generator:
    """A generator fixed by the session's seed and the page, so a shared link redraws the same."""
    return np.random.default_rng(seed_words(salt))


def snippet(salt: str, column: str, body: str, imports: str) -> str:
    """A Python snippet that reproduces a page's release with dpcore (the column name quoted with repr)."""
    ds = dataset()
    return (
        f'"""Reproduce the DP Explorer release with dpcore (same file, same seed, same numbers)."""\n'
        f"import numpy as np\nfrom dpcore import data, {imports}\n\n"
        f"ds = data.load_csv(open({ds.name!r}, 'rb').read(), {ds.name!r})"
        f"  # or data.load_demo('census') for the demo\n"
        f"column = ds.frame[{column!r}]\n"
        f"rng = np.random.default_rng({seed_words(salt)})\n{body}\n"
    )


@st.cache_data(max_entries=4, show_spinner=False)
def load_demo(name: str) -> data.Dataset:
    return data.load_demo(name)


@st.cache_data(max_entries=16, show_spinner="Reading the file…")
def load_upload(raw: bytes, name: str) -> data.Dataset:
    return data.load_csv(raw, name)


def per_dataset(key: str, compute: Callable[[], object]):
    """``compute()`` once per active dataset, kept with the session: the data do not change when a slider moves."""
    ds = dataset()
    cached = st.session_state.get(key)
    if cached is None or cached[0] is not ds:
        cached = (ds, compute())
        st.session_state[key] = cached
    return cached[1]


def profile() -> pd.DataFrame:
    """The active dataset's column profile."""
    return per_dataset("_profile", lambda: data.profile(dataset().frame))


def categorical_columns() -> list[str]:
    """Columns the frequency oracles can take (kept per dataset: scanning them costs more than a mechanism)."""
    return per_dataset("_categorical", lambda: data.categorical_columns(dataset().frame))


def numeric_columns() -> list[str]:
    return per_dataset("_numeric", lambda: data.numeric_columns(dataset().frame))


_NO_COLUMN = {
    "categorical": "This dataset has no categorical column with 2 to 50 values; upload one on the Data page.",
    "numeric": "This dataset has no numeric column; upload one on the Data page.",
}


def fitting_columns(kind: str) -> list[str]:
    """The active dataset's ``"categorical"`` or ``"numeric"`` columns; says so on the page when there are none."""
    columns = categorical_columns() if kind == "categorical" else numeric_columns()
    if not columns:
        st.info(_NO_COLUMN[kind])
    return columns


def encoded(column: str):
    """``data.encode_categories`` of a column of the active dataset: (codes, labels, note), kept per dataset."""
    return per_dataset(f"_codes_{column}", lambda: data.encode_categories(dataset().frame[column]))


# ----------------------------------------------------------------------------- widgets
def _number_label(v: float) -> str:
    # the label is also what the URL carries: keep it the plain number
    return f"{v:g}"


def epsilon_slider(key: str, label: str = "ε, privacy loss", default: float = 1.0, help: str | None = None) -> float:
    """ε on a log scale from 0.01 (more private) to 10 (more accurate), bound to the URL."""
    return st.select_slider(
        f"{label}  ·  ← more private | more accurate →",
        options=EPSILON_GRID,
        value=default,
        format_func=_number_label,
        key=key,
        bind="query-params",
        help=help
        or "Smaller ε means more noise and stronger privacy: an observer's odds about any one person "
        "change by at most a factor e^ε.",
    )


def delta_slider(key: str, default: float = 1e-5, help: str | None = None) -> float:
    return st.select_slider(
        "δ, failure probability",
        options=DELTA_GRID,
        value=default,
        format_func=lambda v: f"{v:.0e}",
        key=key,
        bind="query-params",
        help=help or "δ is the probability the ε guarantee may fail; keep it well below 1/n.",
    )


def select(label: str, options, key: str, help: str, **kw):
    """A selectbox bound to the URL; falls back to the first option if the URL names none of them."""
    options = list(options)
    return st.selectbox(label, options, key=key, bind="query-params", help=help, **kw)


# ----------------------------------------------------------------------------- sidebar
def sidebar() -> Callable[[], None]:
    """Draw the shared sidebar; returns the function that fills in what the page may change.

    Seed and trials are widgets the page reads, so they are created before it runs
    (a link's seed applies from the first run). The active dataset and the ledger can
    change while the page runs, so their slots are filled afterwards.
    """
    with st.sidebar:
        dataset_slot = st.container()
        st.number_input(
            "Random seed",
            min_value=0,
            max_value=2**31 - 1,
            value=2017,
            step=1,
            key="seed",
            bind="query-params",
            help="Fixes every random draw on every page, so a shared link shows the same numbers.",
        )
        st.select_slider(
            "Simulated trials",
            options=TRIAL_CHOICES,
            value=1_000,
            key="trials",
            bind="query-params",
            help="How many independent releases are simulated to draw error distributions.",
        )
        ledger_slot = st.container()

    def fill() -> None:
        ds = dataset()
        with dataset_slot:
            st.markdown("**Active dataset**")
            st.text(f"{ds.name}\n{ds.n_rows:,} rows × {ds.frame.shape[1]:,} columns")
        with ledger_slot:
            _ledger_summary()

    return fill


def _ledger_summary() -> None:
    led = ledger()
    spent = led.spent()
    st.markdown("**Privacy budget** (this session)")
    st.progress(min(1.0, spent.epsilon / led.epsilon), text=f"ε spent {spent.epsilon:.3g} of {led.epsilon:g}")
    st.caption(f"{len(led.entries)} release(s) recorded · {led.method} accounting · δ {led.delta:.0e}")


def record_release(mechanism, count: int = 1, label: str = "", key: str = "") -> None:
    """A button that records a release in the session ledger, refusing one over budget."""
    if st.button("Record this release in the budget", key=f"spend_{key}", help="Adds it to the sidebar's ledger."):
        try:
            ledger().spend(mechanism, count=count, label=label)
            st.toast(f"Recorded: {md(label)}")
        except ValueError as exc:
            st.warning(md(exc))


# ----------------------------------------------------------------------------- boundary
def run_page(render: Callable[[], None]) -> None:
    """Run a page, turning any error into one sentence instead of a traceback."""
    try:
        init_session()  # a no-op under app.py; a safety net if Streamlit ever runs a page file alone
        render()
    except (ValueError, TypeError) as exc:
        st.error(md(_sentence(exc)))
    except Exception as exc:  # noqa: BLE001 - the boundary: the user never sees a traceback
        log.exception("page failed")
        st.error(
            f"Something unexpected went wrong while drawing this page ({type(exc).__name__}). "
            "Your data and settings are unchanged; try other settings."
        )


def _sentence(exc: Exception) -> str:
    text = str(exc).strip() or type(exc).__name__
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def note_ignored_url_values(raw: dict[str, str]) -> None:
    """Say when a link carried a value a widget refused (it was out of range or unknown)."""
    for key, given in raw.items():
        if key not in st.session_state:
            continue
        current = st.session_state[key]
        try:
            same = float(given) == float(current)
        except (TypeError, ValueError):
            same = str(given).lower() == str(current).lower()
        if not same:
            st.info(
                f"The link set {md(key)} = {md(str(given)[:40])}, which is not allowed here; showing {md(current)} instead.",
                icon=":material/link:",
            )


def log_run_time(page: str, started: float) -> None:
    """Append this run's wall time to the file named by DPX_RUN_LOG, if set (benchmarks/bench_load.py sets it).

    Measured inside the server, it includes the wait for the interpreter behind other sessions' runs.
    """
    path = os.environ.get("DPX_RUN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{page or 'home'} {time.perf_counter() - started:.4f}\n")
