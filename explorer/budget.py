"""The privacy-budget ledger on screen: the recording buttons, the sidebar summary, the table and its exports."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from dpcore import Gaussian, Laplace
from dpcore.accounting import BudgetError, BudgetLedger, Charge
from explorer import state
from explorer.markup import md

__all__ = [
    "ACCOUNTING_WORDS",
    "record_release",
    "refusal_sentence",
    "charge_words",
    "describe",
    "ledger_summary",
    "ledger_table",
    "ledger_json",
]

#: How each accounting is named to a reader.
ACCOUNTING_WORDS = {
    "basic": "basic composition (the ε's add up)",
    "rdp": "RDP composition",
    "zcdp": "zCDP composition",
    "exact": "exact Gaussian composition (μ-GDP)",
}


def charge_words(charge: Charge) -> str:
    """Which accounting gave a charge, in words ("" when nothing is charged)."""
    return ACCOUNTING_WORDS.get(charge.accounting, charge.accounting)


def refusal_sentence(exc: BudgetError) -> str:
    """A refused spend in words a student understands (the developer form stays in the exception)."""
    total, budget = exc.total, exc.budget
    over = (
        f"over your budget of ε = {budget.epsilon:g}"
        if total.epsilon > budget.epsilon
        else f"over your budget of δ = {budget.delta:.0e} (it would use δ = {total.delta:.2g})"
    )
    by = f", counted by {charge_words(total)}, the tightest bound that applies" if total.accounting else ""
    return (
        f"Not recorded: this release would bring your total to ε = {total.epsilon:.3g}{by}, {over}. "
        "Lower ε or the number of releases, or raise the budget on the Accountant page."
    )


def record_release(mechanisms, count: int = 1, label: str = "", key: str = "", release_delta=None) -> None:
    """A button that records one release (or several together, all or none) in the session's ledger.

    ``mechanisms`` is one mechanism or a sequence of mechanisms released
    together (the sum and the count of a mean). A spend over the budget is
    refused in one sentence and the ledger is left unchanged.
    """
    if not st.button("Record this release in the budget", key=f"spend_{key}", help="Adds it to the sidebar's ledger."):
        return
    parts = list(mechanisms) if isinstance(mechanisms, (list, tuple)) else [mechanisms]
    try:
        state.ledger().spend_all(parts, label=label, count=count, release_delta=release_delta)
    except BudgetError as exc:
        st.warning(md(refusal_sentence(exc)))
        return
    st.toast(f"Recorded: {md(label)}")


def ledger_summary() -> None:
    """The sidebar's view of the ledger: ε spent against the budget and which accounting gave it."""
    led = state.ledger()
    charge = led.charge()
    st.markdown("**Privacy budget** (this tab)")
    st.progress(min(1.0, charge.epsilon / led.epsilon), text=f"ε spent {charge.epsilon:.3g} of {led.epsilon:g}")
    how = f" · by {charge.accounting}" if charge.accounting else ""
    st.caption(f"{len(led.entries)} release(s) recorded{how} · δ {charge.delta:.1g} of {led.delta:.0e}")


def describe(mechanism) -> str:
    """A release in a few words, for the ledger's table."""
    if isinstance(mechanism, Laplace):
        return f"Laplace, b = {mechanism.scale:.4g}"
    if isinstance(mechanism, Gaussian):
        return f"Gaussian, σ = {mechanism.sigma:.4g}"
    if hasattr(mechanism, "noise_multiplier"):
        return f"DP-SGD run: σ = {mechanism.noise_multiplier:g}, q = {mechanism.sampling_rate:.3g}, T = {mechanism.steps:,}"
    if hasattr(mechanism, "k"):
        return f"{type(mechanism).__name__}, ε = {mechanism.epsilon:g}, {mechanism.k} categories"
    return f"{type(mechanism).__name__}, ε = {mechanism.epsilon:g}"


def ledger_table(led: BudgetLedger) -> pd.DataFrame:
    """One row per recorded entry: what it was and what it costs on its own (its tightest accounting)."""
    rows = []
    for i, entry in enumerate(led.entries):
        own = led.entry_cost(i)
        rows.append(
            {
                "#": i + 1,
                "label": entry.label,
                "count": entry.count,
                "release": describe(entry.mechanism),
                "ε on its own": own.epsilon,
                "δ on its own": own.delta,
                "counted by": own.accounting,
            }
        )
    columns = ["#", "label", "count", "release", "ε on its own", "δ on its own", "counted by"]
    return pd.DataFrame(rows, columns=columns)


def ledger_json(led: BudgetLedger) -> str:
    """The ledger as JSON: its budget, what all entries cost together (and by which accounting), and each entry."""
    charge = led.charge()
    table = ledger_table(led)
    return json.dumps(
        {
            "budget": {"epsilon": led.epsilon, "delta": led.delta, "method": led.method},
            "spent": {"epsilon": charge.epsilon, "delta": charge.delta, "accounting": charge.accounting},
            "candidates": {name: {"epsilon": b.epsilon, "delta": b.delta} for name, b in charge.candidates},
            "entries": json.loads(table.to_json(orient="records", force_ascii=False)),
        },
        indent=2,
        ensure_ascii=False,
    )
