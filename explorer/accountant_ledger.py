"""The Accountant's teaching ledger: record the releases above, see what they cost together, export, start anew.

The ledger is dpcore's :class:`~dpcore.accounting.BudgetLedger` (the tightest valid bound, under one neighbouring
relation and unit of privacy), kept per browser tab by :mod:`explorer.state`; its table and words are
:mod:`explorer.budget`'s. What a release about another unit costs, and whether it is taken at all, is the ledger's
rule (:func:`dpcore.neighbours.conversion`). This view lays out; it decides no privacy fact.
"""

from __future__ import annotations

import streamlit as st

from dpcore import accounting
from dpcore.neighbours import ADD_REMOVE, REPLACE_ONE, UNIT_CLIENT, UNIT_PERSON, UNIT_RECORD, UNITS
from explorer import budget, state, widgets
from explorer.accountant_layout import LEDGER_METHOD_NAMES
from explorer.audit_layout import keyed_select
from explorer.export import to_safe_csv
from explorer.markup import md

__all__ = ["RELATIONS", "UNIT_WORDS", "RELEASE_UNITS", "ledger_section"]

#: The relations a session's ledger may be kept under.
RELATIONS = (ADD_REMOVE, REPLACE_ONE)
#: The units of privacy a session's ledger may be kept for, in words.
UNIT_WORDS = {
    UNIT_RECORD: "one record (one row)",
    UNIT_PERSON: "one person (all their rows)",
    UNIT_CLIENT: "one client (federated learning)",
}
#: The units the mechanism above may protect when it is recorded here.
RELEASE_UNITS = (UNIT_RECORD, UNIT_PERSON)
#: The bound on rows per person offered first (the session's unit declaration starts there too).
DEFAULT_ROWS_PER_PERSON = 10


def ledger_section(mech, label, k):
    led = state.ledger()
    st.caption(
        "The ledger lives in this browser: a reload keeps it; a link opened in another browser starts an empty one. "
        "Download it to keep it."
    )
    left, right = st.columns([1, 1.4])
    with left:
        st.markdown(
            f"Record **{k:,} release(s)** of {budget.describe(mech)} (the mechanism above) in this tab's ledger."
        )
        own = st.radio(
            "Its ε protects",
            RELEASE_UNITS,
            format_func=lambda u: UNIT_WORDS[u],
            horizontal=True,
            key="acc_release_unit",
            help="One record: the noise is calibrated to one row. One person: to all of one person's (bounded) rows. "
            f"The ledger counts under {led.relation.words(led.unit)}, and converts or refuses a release about "
            "another unit.",
        )
        rows = None
        if own == UNIT_RECORD and led.unit == UNIT_PERSON:
            rows = widgets.whole_number(
                "At most m rows per person (declared)",
                1,
                100_000,
                DEFAULT_ROWS_PER_PERSON,
                "acc_rows_per_person",
                "A fact about the data the release must have enforced: a person is then at most m records, and the "
                "ledger counts the release m times (group privacy). Without it a per-record ε says nothing about a "
                "person.",
            )
        budget.record_release(mech, count=k, label=label, key="acc", unit=own, rows_per_person=rows)
        if st.button("Forget every recorded release", key="acc_reset", help="Empties the ledger; the budget stays."):
            led.reset()
        st.caption(
            f"Room left for {led.max_count(mech, limit=10**7):,} more single releases of it; "
            "a spend that would exceed the budget is refused."
        )
    with right:
        charge = led.charge()
        a, b, c = st.columns(3)
        a.metric("ε spent", f"{charge.epsilon:.4g}", help=f"Budget ε = {led.epsilon:g}.")
        b.metric("ε remaining", f"{max(0.0, led.epsilon - charge.epsilon):.4g}")
        c.metric(
            "δ spent",
            f"{charge.delta:.2g}",
            help=f"Budget δ = {led.delta:.0e}. RDP, zCDP and exact accounting measure ε at the budget's δ.",
        )
        if charge.accounting:
            others = ", ".join(
                f"{budget.accounting_name(name)} {b.epsilon:.4g}"
                for name, b in charge.candidates
                if name != charge.accounting
            )
            st.caption(
                f"Counted by {budget.charge_words(charge)}: the smallest of the valid bounds"
                + (f" (the others: {others})." if others else ".")
            )
        by_unit = led.by_unit()
        if len(by_unit) > 1 or any(t.conversions for t in by_unit):
            st.markdown(f"**By unit of privacy** (each counted under {led.relation.words(led.unit)}):")
            st.dataframe(
                budget.unit_totals(led),
                hide_index=True,
                key="acc_units",
                column_config={
                    "ε together": st.column_config.NumberColumn(format="%.4g"),
                    "δ together": st.column_config.NumberColumn(format="%.2g"),
                },
            )
        for sentence in budget.conversion_sentences(led):
            st.caption(md(sentence))
    table = budget.ledger_table(led)
    st.dataframe(
        table,
        hide_index=True,
        key="acc_entries",
        column_config={  # in pixels at 1400: the label takes the room the short columns leave
            "#": st.column_config.NumberColumn(width=40),
            "label": st.column_config.TextColumn(width=210),
            "count": st.column_config.NumberColumn(width=60),
            "release": st.column_config.TextColumn(width=130),
            "holds under": st.column_config.TextColumn(width=170),
            "converted": st.column_config.TextColumn(width=75),
            "ε on its own": st.column_config.NumberColumn(format="%.4g", width=85),
            "δ on its own": st.column_config.NumberColumn(format="%.2g", width=85),
            "counted by": st.column_config.TextColumn(width=85),
        },
    )
    if led.entries:
        r1, r2, r3, r4, _ = st.columns([1, 1, 1, 1, 2])
        remove = r1.selectbox("Entry", table["#"], key="acc_remove_entry", label_visibility="collapsed")
        if r2.button("Remove it", key="acc_remove", help="Forget one recorded entry (to correct a mistake)."):
            led.remove(int(remove) - 1)
            st.rerun()  # the table above was drawn before the removal
        r3.download_button("Ledger (CSV)", to_safe_csv(table), file_name="ledger.csv", mime="text/csv")
        r4.download_button("Ledger (JSON)", budget.ledger_json(led), file_name="ledger.json", mime="application/json")
    with st.expander("Change the total budget, the accounting, the neighbouring relation or the unit"):
        # two rows: in a fifth of the page the unit picker cut its own value ("one record (one row" at 1400 pixels)
        c1, c2, c3 = st.columns(3)
        c4, c5 = st.columns(2)
        eps = widgets.bound(
            c1.number_input,
            "Total ε",
            min_value=0.01,
            max_value=100.0,
            value=5.0,
            key="acc_budget_epsilon",
            bind="query-params",
            help="The ε the whole session may spend.",
        )
        delta = widgets.bound(
            c2.select_slider,
            "Total δ",
            widgets.DELTA_GRID,
            value=1e-5,
            format_func=lambda v: f"{v:.0e}",
            key="acc_budget_delta",
            bind="query-params",
            help="The δ the whole session may spend.",
        )
        with c3:  # plain names on screen, dpcore's key in the link
            method = keyed_select(
                "Accounting",
                accounting.LEDGER_METHODS,
                "acc_budget_method",
                LEDGER_METHOD_NAMES.__getitem__,
                "Best: the smallest of basic, RDP, zCDP and exact composition. Basic: the ε's add up. RDP, zCDP: the "
                "smaller of that accounting and basic composition.",
            )
        relation = c4.selectbox(
            "Neighbouring relation",
            RELATIONS,
            format_func=lambda r: r.words().removesuffix(" record"),  # the unit is chosen beside
            key="acc_budget_relation",
            help="Under which neighbours the total holds (of the unit beside). Add/remove one: central releases as "
            "they are; a local (replace-one) release is refused. Replace one: local releases as they are, central "
            "ones charged twice (a replacement is a removal and an addition).",
        )
        unit = c5.selectbox(
            "Unit of privacy",
            UNITS,
            format_func=lambda u: UNIT_WORDS[u],
            key="acc_budget_unit",
            help="Whom the total protects. One person: a person-level release is counted as it is, a record-level one "
            "m times for a declared bound of m rows per person (refused without one). One record: a person-level "
            "release counts twice (remove the person, add them back changed).",
        )
        if led.entries:
            st.warning(f"A new ledger forgets the {len(led.entries)} recorded release(s).")
        if st.button(
            "Start a new ledger with this budget", key="acc_new_ledger", help="Replaces the session's ledger."
        ):
            new = accounting.BudgetLedger(
                eps, delta, method, max_entries=state.LEDGER_MAX_ENTRIES, relation=relation, unit=unit
            )
            state.replace_ledger(new)
            st.rerun()  # the table and metrics above were drawn from the old ledger
