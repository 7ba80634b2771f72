"""Accountant: how ε grows with the number of releases k, under six accountings, and the session's budget.

Sections: ε against k for one mechanism (basic, advanced, RDP, zCDP and the tight
one: exact for the Gaussian, PLD for Laplace and GRR); RDP's ε against the order α;
one k-dimensional release against k separate ones; a planner from a total budget
to per-query noise; the session's budget ledger. Every number comes from
``dpcore.accounting``; the heavy ones (PLD) are cached on plain arguments.
"""

import warnings

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import GRR, Gaussian, Laplace, accounting
from dpcore.neighbours import ADD_REMOVE, REPLACE_ONE
from explorer import budget, charts, frame, publishing, state, widgets
from explorer.export import to_safe_csv
from explorer.markup import md, plain_sentence

MECHANISMS = ("Laplace", "Gaussian", "GRR")
K_GRID = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000)
NAMES = {
    "basic": "basic",
    "advanced": "advanced (DRV)",
    "rdp": "RDP",
    "zcdp": "zCDP",
    "exact": "exact (μ-GDP)",
    "pld": "PLD",
}
RDP_CURVE = {
    "Laplace": lambda m: accounting.laplace_rdp(m.scale),
    "Gaussian": lambda m: accounting.gaussian_rdp(m.sigma),
    "GRR": lambda m: accounting.randomized_response_rdp(m.epsilon, m.k),
}


def mechanism(kind: str, eps: float, delta: float, categories: int):
    """One release at per-release ε, sensitivity 1 (only Δ/b and Δ/σ matter for privacy)."""
    if kind == "Laplace":
        return Laplace.from_epsilon(eps)
    if kind == "Gaussian":
        return Gaussian.from_epsilon_delta(eps, delta)  # analytic σ: one release is exactly (ε, δ)-DP
    return GRR(eps, categories)


@st.cache_data(max_entries=64, show_spinner="Composing privacy loss distributions…")
def curve(kind, eps, delta, categories, k_top, conversion, zcdp_conversion):
    """ε against k with its notes, and vectorised vs sequential.

    Closed forms on 100 log-spaced k; PLD only on the 1-2-5 grid (an inverse FFT per k).
    """
    mech = mechanism(kind, eps, delta, categories)
    ks = np.unique(np.r_[np.geomspace(1, k_top, 100).round(), K_GRID]).astype(int)
    ks = ks[ks <= k_top]
    closed = [m for m in accounting.methods_for(mech) if m != "pld"]
    opts = dict(conversion=conversion, zcdp_conversion=zcdp_conversion)
    with warnings.catch_warnings():  # the page shows the notes itself
        warnings.simplefilter("ignore", accounting.OrderGridEdgeWarning)
        df = accounting.epsilon_curve(mech, ks, delta, closed, **opts)
        frames = [df]
        if kind != "Gaussian":  # for the Gaussian "exact" is the tight one, and PLD would take seconds
            frames.append(accounting.epsilon_curve(mech, [k for k in K_GRID if k <= k_top], delta, ["pld"], **opts))
        vec = (
            accounting.vectorised_vs_sequential(
                mech, ks, delta, ["basic", "rdp", "exact" if kind == "Gaussian" else "advanced"], **opts
            )
            if kind != "GRR"
            else None
        )
    return pd.concat(frames, ignore_index=True), df.attrs["notes"], vec


@st.cache_data(max_entries=32, show_spinner="Planning the noise…")
def plan(family: str, total_eps, delta, k, sensitivity, conversion, zcdp_conversion):
    """Per-query noise and 95% error for k queries within (total_eps, delta), under every accounting, and refusals."""
    methods = (
        ("basic", "advanced", "rdp", "zcdp", "exact")
        if family == "Gaussian"
        else ("basic", "advanced", "rdp", "zcdp", "pld")
    )
    rows, refusals = [], []
    for method in methods:
        try:
            m = accounting.plan_noise(
                family.lower(),
                total_eps,
                delta,
                k,
                method,
                sensitivity,
                conversion=conversion,
                zcdp_conversion=zcdp_conversion,
            )
        except ValueError as exc:  # one accounting may be unable to reach the target (RDP's conversion floor)
            refusals.append(f"{NAMES[method]}: {exc}")
            continue
        rows.append(
            {
                "accounting": NAMES[method],
                "noise per query": m.scale if family == "Laplace" else m.sigma,
                "95% error bound per query": m.error_bound(0.95),
            }
        )
    if not rows:
        raise ValueError(refusals[0].split(": ", 1)[1])
    return pd.DataFrame(rows), refusals


def composition_chart(kind, eps, delta, k, k_top, categories, conversion, zcdp_conversion):
    df, notes, vec = curve(kind, eps, delta, categories, k_top, conversion, zcdp_conversion)
    tight = "exact" if kind == "Gaussian" else "pld"
    series = {NAMES[m]: (g["k"], g["epsilon"]) for m, g in df.groupby("method", sort=False)}
    sane = df[df["method"] != "advanced"]["epsilon"].max() * 10  # advanced can reach 1e94: cut it at 10× the others
    st.plotly_chart(
        charts.xy_curves(
            series,
            k,
            f"{budget.describe(mechanism(kind, eps, delta, categories))}: total ε after k releases at δ = {delta:.0e}",
            "k, number of releases (log)",
            "total ε (log)",
            log_y=True,
            current_label=f"k = {k:,}",
            y_max=sane,
            dashed=(NAMES[tight],),
        ),
        key="acc_curve",
    )
    at_k = df[df["k"] == k].set_index("method")["epsilon"]
    best = at_k[tight]
    table = pd.DataFrame(
        {
            "accounting": [NAMES[m] for m in at_k.index],
            f"ε after {k:,} releases": at_k.values,
            "× the tight ε": at_k.values / best,
        }
    )
    left, right = st.columns([1.2, 1])
    left.dataframe(
        table.style.format({f"ε after {k:,} releases": "{:,.4g}", "× the tight ε": "{:,.2f}×"}),
        hide_index=True,
        key="acc_table",
    )
    right.metric(
        f"ε after {k:,} releases, {NAMES[tight]}",
        f"{best:,.4g}",
        help="The tight value: no accountant can report less.",
    )
    right.metric(
        "Basic composition says",
        f"{at_k['basic']:,.4g}",
        f"{at_k['basic'] / best:,.1f}× the tight value",
        delta_color="off",
        delta_arrow="off",
    )
    right.caption("Same mechanism, same data, same releases: only the accounting differs.")
    right.download_button(
        "The curves (CSV)",
        to_safe_csv(df.assign(accounting=df["method"].map(NAMES))),
        file_name="accountant_curves.csv",
        mime="text/csv",
        help="ε after k releases under every accounting, as on the chart.",
    )
    top = df.loc[df["method"] == "advanced", "epsilon"].max()
    if top > sane:
        st.caption(
            f"Advanced composition runs off the top of the chart: it reaches ε = {top:.3g} at k = {k_top:,} "
            "(its k ε₀(e^ε₀ − 1) term explodes when one release is already weak). The y axis is cut at 10× the other curves."
        )
    for note in notes:
        st.caption(f":material/info: {note.replace('rdp:', 'RDP:', 1)}.")
    return vec


def rdp_orders(kind, eps, delta, k, categories, conversion):
    mech = mechanism(kind, eps, delta, categories)
    orders = accounting.DEFAULT_ORDERS
    per_order = accounting.rdp_epsilons(orders, k * RDP_CURVE[kind](mech), delta, conversion)
    eps_best, order = accounting.rdp_to_dp(orders, k * RDP_CURVE[kind](mech), delta, conversion, warn=False)
    st.plotly_chart(
        charts.xy_curves(
            {"ε from order α": (orders, per_order)},
            order,
            f"RDP after k = {k:,}: the ε each order α gives at δ = {delta:.0e}",
            "RDP order α (log)",
            "ε (log)",
            log_y=True,
            current_label=f"best α = {order:g}",
            y_max=10 * max(eps_best, 1e-3),
        ),
        key="acc_orders",
    )  # a decade above the best: the dip stays visible
    st.markdown(
        f"RDP reports the smallest: **ε = {eps_best:.4g}** at order **α = {order:g}**. Small α pays "
        "ln(1/δ)/(α−1); large α pays the Rényi divergence, which grows with α."
    )
    if order in (orders.min(), orders.max()):
        st.info(
            f"The best order is on the edge of the grid ({orders.min():g} to {orders.max():g}): the ε is valid, "
            "but a wider grid might give a smaller one."
            + (
                " For a pure ε-DP mechanism and few releases the optimum is α → ∞, where RDP becomes the pure ε."
                if order == orders.max()
                else ""
            ),
            icon=":material/info:",
        )


def vectorised(kind, vec: pd.DataFrame | None, k):
    if vec is None:
        st.info("This comparison is about noise added to numeric queries: pick Laplace or Gaussian above.")
        return
    series = {
        (f"vectorised ({g['method'].iloc[0]})" if a == "vectorised" else f"sequential · {NAMES[m]}"): (
            g["k"],
            g["epsilon"],
        )
        for (a, m), g in vec.groupby(["approach", "method"], sort=False)
    }
    vname = next(iter(series))
    series[vname] = series.pop(vname)  # drawn last, dashed, so it shows where it lies on a sequential line
    st.plotly_chart(
        charts.xy_curves(
            series,
            k,
            f"One k-dimensional {kind} release vs k separate ones (same noise per coordinate)",
            "k, number of queries (log)",
            "total ε (log)",
            log_y=True,
            current_label=f"k = {k:,}",
            dashed=(vname,),
        ),
        key="acc_vector",
    )
    if kind == "Gaussian":
        st.markdown(
            "The vectorised line and the exact sequential line coincide: k Gaussian answers composed exactly "
            "*are* one Gaussian answer with L2 sensitivity √k Δ. Only loose accounting makes separate answers look dearer."
        )
    else:
        seq = vec[(vec["approach"] == "sequential") & (vec["method"] == "rdp")].set_index("k")["epsilon"]
        pure = vec[vec["approach"] == "vectorised"].set_index("k")["epsilon"]
        text = "With Laplace noise the vector's L1 sensitivity is k Δ, so its pure ε grows like k (the basic line)."
        if k in seq.index and k > 1:
            k0 = seq.index[seq.index <= max(1, k // 10)].max()  # a decade back (or k = 1): the growth on the chart
            slope = np.log(seq[k] / seq[k0]) / np.log(k / k0)
            text += (
                f" At k = {k:,}, RDP accounting of the same separate releases (allowing δ) gives ε = {seq[k]:.3g} "
                f"against {pure[k]:.3g}, and from k = {k0:,} to {k:,} it grew like k^{slope:.2f}"
                + (" (√k is k^0.50)." if slope < 0.9 else ", almost as fast as the pure ε.")
            )
        st.markdown(text)


def planner(delta, k, conversion, zcdp_conversion):
    c1, c2, c3 = st.columns(3)
    with c1:
        total = widgets.epsilon_slider(
            "acc_plan_epsilon", "Total ε for all k releases", help="The whole budget the k answers share."
        )
    family = c2.selectbox(
        "Noise",
        ("Laplace", "Gaussian"),
        key="acc_plan_noise",
        bind="query-params",
        help="Laplace: scale b for L1 sensitivity; Gaussian: σ for L2 sensitivity.",
    )
    sens = c3.number_input(
        "Sensitivity Δ of each query",
        value=1.0,
        key="acc_plan_sensitivity",
        bind="query-params",
        help="How much one person can change one answer (L1 for Laplace, L2 for Gaussian).",
    )
    try:
        table, refusals = plan(family, total, delta, k, sens, conversion, zcdp_conversion)
    except ValueError as exc:
        st.error(f"No plan for these inputs. {md(plain_sentence(exc))}")
        return
    noise = "scale b" if family == "Laplace" else "σ"
    shown = table.rename(columns={"noise per query": f"{family} {noise} per query"})
    st.dataframe(shown.style.format("{:,.4g}", subset=list(shown.columns[1:])), hide_index=True, key="acc_plan_table")
    for refusal in refusals:
        st.caption(f":material/block: No plan under {refusal}.")
    best, basic = table.loc[table["95% error bound per query"].idxmin()], table.iloc[0]
    st.markdown(
        f"To spend ε = {total:g}, δ = {delta:.0e} on **{k:,} queries**, {best['accounting']} accounting lets each answer "
        f"carry {family} noise with {noise} = **{best['noise per query']:,.4g}**: with 95% probability each answer is within "
        f"**±{best['95% error bound per query']:,.4g}** of the truth. Basic composition would need ±{basic['95% error bound per query']:,.4g}."
    )
    st.download_button(
        "The plan (CSV)", to_safe_csv(shown), file_name="accountant_plan.csv", mime="text/csv", key="acc_plan_csv"
    )
    plan_from_accuracy(family, delta, k, sens, best["95% error bound per query"], conversion, zcdp_conversion)


@st.cache_data(max_entries=32, show_spinner="Planning…")
def accuracy_plan(family, accuracy, k, delta, sensitivity, conversion, zcdp_conversion) -> pd.DataFrame:
    """The smallest total ε of k releases whose every answer is within ±accuracy (95%), under each accounting."""
    with warnings.catch_warnings():  # an RDP optimum on the grid's edge is valid; the curve section says so
        warnings.simplefilter("ignore", accounting.OrderGridEdgeWarning)
        table = accounting.plan_epsilon(
            family.lower(),
            accuracy,
            k,
            delta,
            sensitivity=sensitivity,
            conversion=conversion,
            zcdp_conversion=zcdp_conversion,
        )
    return pd.DataFrame(  # plain arrays: the table's attrs hold the mechanism, which a dataframe cannot show
        {
            "accounting": table["method"].map(NAMES).to_numpy(),
            "epsilon": table["epsilon"].to_numpy(),
            "noise": table["noise"].to_numpy(),
        }
    )


def plan_from_accuracy(family, delta, k, sens, default, conversion, zcdp_conversion) -> None:
    st.markdown("**The other way round: from the accuracy you need to the total ε of the plan**")
    target = st.number_input(
        f"I need each of the {k:,} answers within ± (at 95%)",
        min_value=0.0,
        value=float(f"{default:.2g}"),
        key="acc_plan_accuracy",
        bind="query-params",
        help="In the answers' units. The table gives the smallest total ε that allows it, under each accounting.",
    )
    if target <= 0:
        st.caption("Enter an accuracy above 0.")
        return
    try:
        table = accuracy_plan(family, target, k, delta, sens, conversion, zcdp_conversion)
    except ValueError as exc:
        st.error(f"No plan for this accuracy. {md(plain_sentence(exc))}")
        return
    noise = "scale b" if family == "Laplace" else "σ"
    shown = table.rename(columns={"epsilon": f"total ε for {k:,} answers", "noise": f"{family} {noise} per answer"})
    st.dataframe(shown.style.format("{:,.4g}", subset=list(shown.columns[1:])), hide_index=True, key="acc_acc_table")
    best = table.loc[table["epsilon"].idxmin()]
    on_grid = [e for e in widgets.EPSILON_GRID if e >= best["epsilon"] * (1 - 1e-12)]
    st.markdown(
        f"Each answer within ±{target:,.4g} needs {family} noise with {noise} = {best['noise']:,.4g}; "
        f"counted by {best['accounting']}, the {k:,} answers then cost **ε = {best['epsilon']:.4g}** in total"
        + (
            f", where basic composition charges {table.iloc[0]['epsilon']:.4g}."
            if best["accounting"] != table.iloc[0]["accounting"]
            else "."
        )
    )
    c1, c2 = st.columns(2)
    if on_grid:
        c1.button(
            f"Set the total ε above to {on_grid[0]:g}"
            + ("" if on_grid[0] == best["epsilon"] else f" (the slider's first step ≥ {best['epsilon']:.4g})"),
            key="acc_plan_set",
            on_click=lambda: st.session_state.__setitem__("acc_plan_epsilon", on_grid[0]),
            help="The smallest total ε of the slider that meets the accuracy under the best accounting.",
        )
    c2.download_button("This plan (CSV)", to_safe_csv(shown), file_name="accountant_accuracy_plan.csv", mime="text/csv")


def ledger_section(mech, label, k):
    led = state.ledger()
    st.caption(
        "The ledger lives in this browser tab only: reloading the page or opening a link in a new tab starts an "
        "empty one. Download it to keep it."
    )
    left, right = st.columns([1, 1.4])
    with left:
        st.markdown(
            f"Record **{k:,} release(s)** of {budget.describe(mech)} (the mechanism above) in this tab's ledger."
        )
        budget.record_release(mech, count=k, label=label, key="acc")
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
            others = ", ".join(f"{name} {b.epsilon:.4g}" for name, b in charge.candidates if name != charge.accounting)
            st.caption(
                f"Counted by {budget.charge_words(charge)}: the smallest of the valid bounds"
                + (f" (the others: {others})." if others else ".")
            )
        table = budget.ledger_table(led)
        st.dataframe(
            table,
            hide_index=True,
            key="acc_entries",
            column_config={
                "ε on its own": st.column_config.NumberColumn(format="%.4g"),
                "δ on its own": st.column_config.NumberColumn(format="%.2g"),
            },
        )
        if led.entries:
            r1, r2, r3, r4 = st.columns([1, 1, 1, 1])
            remove = r1.selectbox("Entry", table["#"], key="acc_remove_entry", label_visibility="collapsed")
            if r2.button("Remove it", key="acc_remove", help="Forget one recorded entry (to correct a mistake)."):
                led.remove(int(remove) - 1)
                st.rerun()  # the table above was drawn before the removal
            r3.download_button("Ledger (CSV)", to_safe_csv(table), file_name="ledger.csv", mime="text/csv")
            r4.download_button(
                "Ledger (JSON)", budget.ledger_json(led), file_name="ledger.json", mime="application/json"
            )
    with st.expander("Change the total budget, the accounting or the neighbouring relation"):
        c1, c2, c3, c4 = st.columns(4)
        eps = c1.number_input(
            "Total ε",
            min_value=0.01,
            max_value=100.0,
            value=5.0,
            key="acc_budget_epsilon",
            bind="query-params",
            help="The ε the whole session may spend.",
        )
        delta = c2.select_slider(
            "Total δ",
            widgets.DELTA_GRID,
            value=1e-5,
            format_func=lambda v: f"{v:.0e}",
            key="acc_budget_delta",
            bind="query-params",
            help="The δ the whole session may spend.",
        )
        method = c3.selectbox(
            "Accounting",
            accounting.LEDGER_METHODS,
            index=0,
            key="acc_budget_method",
            bind="query-params",
            help="best: the smallest of basic, RDP, zCDP and exact composition; basic: ε's add up; rdp and zcdp: "
            "the smaller of that accounting and basic composition.",
        )
        relation = c4.selectbox(
            "Neighbouring relation",
            RELATIONS,
            format_func=lambda r: r.value,
            key="acc_budget_relation",
            help="Under which neighbours the total holds. Add/remove one record: central releases as they are; a "
            "local (replace-one) release is refused. Replace one record: local releases as they are, central ones "
            "charged twice (a replacement is a removal and an addition).",
        )
        if led.entries:
            st.warning(f"A new ledger forgets the {len(led.entries)} recorded release(s).")
        if st.button(
            "Start a new ledger with this budget", key="acc_new_ledger", help="Replaces the session's ledger."
        ):
            state.replace_ledger(state.new_ledger(eps, delta, method, relation))
            st.rerun()  # the table and metrics above were drawn from the old ledger


#: The relations a session's ledger may be kept under.
RELATIONS = (ADD_REMOVE, REPLACE_ONE)


def render() -> None:
    st.title("Privacy accountant")
    st.caption(
        "Releasing k answers costs more privacy than one; how much more depends on the accounting as much as on the noise."
    )
    c1, c2, c3, c4 = st.columns([1, 1.4, 1.2, 1.2])
    with c1:
        kind = widgets.select(
            "Mechanism", MECHANISMS, "acc_mechanism", "Laplace and GRR are pure ε-DP; the Gaussian is (ε, δ)-DP."
        )
    with c2:
        eps = widgets.epsilon_slider(
            "acc_epsilon",
            "ε of one release",
            help="Laplace: b = Δ/ε. GRR: this ε. Gaussian: the analytic "
            "σ that makes one release exactly (ε, δ)-DP at the δ beside.",
        )
    with c3:
        delta = widgets.delta_slider(
            "acc_delta",
            help="The total δ at which every curve reports ε (and the Gaussian's per-release calibration δ).",
        )
    k = c4.select_slider(
        "k, releases",
        K_GRID,
        value=100,
        key="acc_k",
        bind="query-params",
        help="The number of releases marked on the charts, planned for and recorded.",
    )
    with st.expander("Chart range and conversions"):
        o1, o2, o3, o4 = st.columns(4)
        k_max = o1.select_slider(
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
        conversion = o3.selectbox(
            "RDP → (ε, δ)",
            accounting.CONVERSIONS,
            key="acc_conversion",
            bind="query-params",
            help="balle: Balle et al. 2020 (tighter); mironov: Mironov 2017 Prop. 3 (older papers).",
        )
        zcdp_conv = o4.selectbox(
            "zCDP → (ε, δ)",
            accounting.ZCDP_CONVERSIONS,
            key="acc_zcdp_conversion",
            bind="query-params",
            help="cks: Canonne, Kamath, Steinke 2020 (tighter); bun-steinke: ρ + 2√(ρ ln 1/δ).",
        )
    mech = mechanism(kind, eps, delta, int(categories))
    if kind == "Gaussian":
        st.caption(
            f"σ = {mech.sigma:.4g} (analytic calibration, Balle & Wang 2018) for Δ = 1: one release is exactly ({eps:g}, {delta:.0e})-DP."
        )
    vec = composition_chart(kind, eps, delta, k, max(k, k_max), int(categories), conversion, zcdp_conv)
    explain()
    st.subheader("RDP: which order α?")
    rdp_orders(kind, eps, delta, k, int(categories), conversion)
    st.subheader("One vector or k separate answers?")
    vectorised(kind, vec, k)
    st.subheader("Budget planner: from a total budget to the noise of each query")
    planner(delta, k, conversion, zcdp_conv)
    st.subheader("This tab's teaching ledger (simulated releases)")
    ledger_section(mech, f"{kind} ε={eps:g} × {k:,} (Accountant)", k)
    st.subheader("The publication log of this data")
    publishing.log_view()


def explain() -> None:
    with st.expander("How each accounting works, and what “exact” means"):
        st.markdown(
            "**Basic** and **advanced** composition (Dwork, Rothblum, Vadhan 2010) only use each release's (ε₀, δ₀):"
        )
        st.latex(
            r"\varepsilon_{\text{basic}} = k\,\varepsilon_0,\qquad "
            r"\varepsilon_{\text{adv}} = \sqrt{2k\ln(1/\delta')}\,\varepsilon_0 + k\,\varepsilon_0\,(e^{\varepsilon_0}-1),\quad \delta = k\delta_0+\delta'"
        )
        st.markdown(
            "**RDP** adds the Rényi divergences order by order, then converts (Balle et al. 2020), taking the best order:"
        )
        st.latex(
            r"r_k(\alpha) = k\,r(\alpha),\qquad \varepsilon = \min_\alpha\; r_k(\alpha) + \ln\tfrac{\alpha-1}{\alpha} - \frac{\ln\delta + \ln\alpha}{\alpha-1}"
        )
        st.markdown(
            "**zCDP** adds one number ρ (Gaussian: Δ²/(2σ²); pure ε₀-DP: ε₀²/2), converted by Canonne–Kamath–Steinke 2020 "
            "(or Bun–Steinke's simpler bound):"
        )
        st.latex(
            r"\rho_k = k\rho,\qquad \varepsilon = \min_{\alpha>1}\; \alpha\rho_k + \frac{\ln(1/\delta)-\ln\alpha}{\alpha-1} + \ln\!\left(1-\tfrac1\alpha\right)\ \ \le\ \rho_k + 2\sqrt{\rho_k\ln(1/\delta)}"
        )
        st.markdown(
            "**Exact (Gaussian)**: k Gaussian releases are exactly μ-GDP with μ = √k Δ/σ (Dong, Roth, Su 2019); ε solves"
        )
        st.latex(
            r"\delta = \Phi\!\left(-\frac{\varepsilon}{\mu}+\frac{\mu}{2}\right) - e^{\varepsilon}\,\Phi\!\left(-\frac{\varepsilon}{\mu}-\frac{\mu}{2}\right)"
        )
        st.markdown(
            "**PLD** (Laplace, GRR) tracks the whole privacy loss L = ln P(o)/Q(o): composing k releases convolves its law "
            "k times (by FFT), and δ(ε) is read off exactly:"
        )
        st.latex(r"\delta(\varepsilon) = \mathbb{E}\big[(1-e^{\varepsilon-L_1-\dots-L_k})_+\big]")
        st.markdown(
            "**Exact** means no slack: no accountant can report a smaller ε for these releases. The μ-GDP curve is exact; "
            "PLD is exact up to its grid (an upper bound within about 0.2 %). Every other method is a valid but looser upper "
            "bound, so it sits above. The lesson: the same k releases can be reported as ε = 2 or ε = 20, so always "
            "ask *which accounting* produced a privacy claim."
        )
        st.caption(
            "Laplace in RDP: Mironov 2017 Prop. 6; Gaussian: Prop. 7; GRR: the Rényi divergence of k-ary randomized response. "
            "For the Gaussian, basic and advanced charge each release δ/k (resp. δ/(2k)) and its exact ε at that δ."
        )


frame.run_page(render)
