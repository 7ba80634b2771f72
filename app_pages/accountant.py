"""Accountant: how ε grows with the number of releases k, under six accountings, and the session's budget.

Sections: ε against k for one mechanism (basic, advanced, RDP, zCDP and the tight
one: exact for the Gaussian, PLD for Laplace, the staircase and GRR); RDP's ε against the order α;
one k-dimensional release against k separate ones; a planner from a total budget
to per-query noise; the session's budget ledger. Every number comes from
``dpcore.accounting``, which also says which accounting is tight; the mechanisms
offered come from the registry (:mod:`dpcore.families`). This script keeps the
shared controls; the views are ``explorer/accountant_*.py``.
"""

import streamlit as st

from dpcore import accounting, families
from explorer import accountant_composition, accountant_ledger, accountant_planner, budget, frame, publishing, widgets
from explorer.accountant_layout import (
    CONVERSION_NAMES,
    FAMILIES,
    FAMILY_NAMES,
    K_GRID,
    ZCDP_CONVERSION_NAMES,
    one_release,
)
from explorer.audit_layout import keyed_select

#: Which of the offered families are pure ε-DP and which (ε, δ)-DP, for the mechanism picker's help.
_PURE = " and ".join(f.name for f in FAMILIES if not f.takes_delta)
_APPROXIMATE = " and ".join(f.name for f in FAMILIES if f.takes_delta)


def render() -> None:
    st.title("Privacy accountant")
    st.caption(
        "Releasing k answers costs more privacy than one; how much more depends on the accounting as much as on the noise."
    )
    c1, c2, c3, c4 = st.columns([1, 1.4, 1.2, 1.2])
    with c1:
        kind = widgets.select(
            "Mechanism", FAMILY_NAMES, "acc_mechanism", f"{_PURE}: pure ε-DP. {_APPROXIMATE}: (ε, δ)-DP."
        )
    with c2:
        eps = widgets.epsilon_slider(
            "acc_epsilon",
            "ε of one release",
            help="Laplace: b = Δ/ε. Staircase: the one of least variance at this ε (Geng & Viswanath). GRR: this ε. "
            "Gaussian: the analytic σ that makes one release exactly (ε, δ)-DP at the δ beside.",
        )
    with c3:
        delta = widgets.delta_slider(
            "acc_delta",
            help="The total δ at which every curve reports ε (and the Gaussian's per-release calibration δ).",
        )
    k = widgets.bound(
        c4.select_slider,
        "k, releases",
        K_GRID,
        value=100,
        key="acc_k",
        bind="query-params",
        help="The number of releases marked on the charts, planned for and recorded.",
    )
    with st.expander("Chart range and conversions"):
        o1, o2, o3, o4 = st.columns(4)
        k_max = widgets.bound(
            o1.select_slider,
            "Largest k on the chart",
            (10, 100, 1_000, 10_000),
            value=1_000,
            key="acc_kmax",
            bind="query-params",
            help="PLD costs one FFT per k and grows with k: 10,000 takes a moment.",
        )
        categories = widgets.whole_number(
            "GRR categories",
            2,
            1_000,
            2,
            "acc_categories",
            "k-ary randomized response; 2 is binary RR (how SUE, OUE and LDP means are accounted).",
            container=o2,
        )
        with o3:  # plain names on screen, dpcore's key in the link
            conversion = keyed_select(
                "RDP → (ε, δ)",
                accounting.CONVERSIONS,
                "acc_conversion",
                CONVERSION_NAMES.__getitem__,
                "Balle et al. 2020 is tighter; Mironov 2017 (Prop. 3) is the conversion of older papers.",
            )
        with o4:
            zcdp_conv = keyed_select(
                "zCDP → (ε, δ)",
                accounting.ZCDP_CONVERSIONS,
                "acc_zcdp_conversion",
                ZCDP_CONVERSION_NAMES.__getitem__,
                "Canonne, Kamath, Steinke 2020 is tighter; Bun & Steinke 2016 is ρ + 2√(ρ ln 1/δ).",
            )
    mech = one_release(kind, eps, delta, int(categories))
    if families.family(kind).takes_delta:
        noise = budget.noise_parameter(mech)
        st.caption(
            f"{noise.symbol} = {noise.value:.4g} (analytic calibration, Balle & Wang 2018) for Δ = 1: one release is exactly ({eps:g}, {delta:.0e})-DP."
        )
    vec = accountant_composition.composition_chart(
        kind, eps, delta, k, max(k, k_max), int(categories), conversion, zcdp_conv
    )
    accountant_composition.explain()
    st.subheader("RDP: which order α?")
    accountant_composition.rdp_orders(mech, delta, k, conversion)
    st.subheader("One vector or k separate answers?")
    accountant_composition.vectorised(kind, vec, k)
    st.subheader("Budget planner: from a total budget to the noise of each query")
    accountant_planner.planner(delta, k, conversion, zcdp_conv)
    st.subheader("This tab's teaching ledger (simulated releases)")
    accountant_ledger.ledger_section(mech, f"{kind} ε={eps:g} × {k:,} (Accountant)", k)
    st.subheader("The publication log of this data")
    publishing.log_view()


frame.run_page(render)
