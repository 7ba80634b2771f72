"""The privacy-budget ledger on screen: the buttons that record releases and the sidebar summary."""

from __future__ import annotations

import streamlit as st

from dpcore import accounting
from explorer import state
from explorer.markup import md

__all__ = ["record_release", "ledger_summary"]


def record_release(mechanisms, count: int = 1, label: str = "", key: str = "") -> None:
    """A button that records one release (or several together, all or none) in the session's ledger.

    ``mechanisms`` is one mechanism or a sequence of mechanisms released
    together (the sum and the count of a mean). A spend over the budget is
    refused and the ledger is left unchanged.
    """
    if not st.button("Record this release in the budget", key=f"spend_{key}", help="Adds it to the sidebar's ledger."):
        return
    parts = list(mechanisms) if isinstance(mechanisms, (list, tuple)) else [mechanisms]
    try:
        state.ledger().spend_all(parts, label=label, count=count)
    except accounting.BudgetError as exc:
        st.warning(md(exc))
        return
    st.toast(f"Recorded: {md(label)}")


def ledger_summary() -> None:
    """The sidebar's view of the ledger: ε spent against the budget and what gave it."""
    led = state.ledger()
    spent = led.spent()
    st.markdown("**Privacy budget** (this session)")
    st.progress(min(1.0, spent.epsilon / led.epsilon), text=f"ε spent {spent.epsilon:.3g} of {led.epsilon:g}")
    st.caption(f"{len(led.entries)} release(s) recorded · {led.method} accounting · δ {led.delta:.0e}")
