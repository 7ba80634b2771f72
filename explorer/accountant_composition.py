"""The Accountant's composition views: ε against k under every accounting, the RDP orders, one vector or k answers.

Every number comes from :mod:`dpcore.accounting`, which also says which accounting is tight for a release
(``tight_method``) and how each is named; the heavy ones (PLD) are cached on plain arguments. These views lay out;
they decide no privacy fact.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import accounting, families
from dpcore.accounting.per_release import accounting_for, release_rdp
from explorer import budget, cache, charts
from explorer.accountant_layout import ADDITIVE, K_GRID, NAMES, accounting_of, one_release
from explorer.export import to_safe_csv

__all__ = ["curve", "composition_chart", "coincidences", "explain", "rdp_orders", "vectorised"]


@cache.bounded(16 * cache.MIB, spinner="Composing privacy loss distributions…")  # tens of kB a curve
def curve(kind, eps, delta, categories, k_top, conversion, zcdp_conversion):
    """ε against k with its notes, and vectorised vs sequential.

    Closed forms on 100 log-spaced k; PLD only on the 1-2-5 grid (an inverse FFT per k).
    """
    mech = one_release(kind, eps, delta, categories)
    tight = accounting_for(mech).tight_method
    ks = np.unique(np.r_[np.geomspace(1, k_top, 100).round(), K_GRID]).astype(int)
    ks = ks[ks <= k_top]
    closed = [m for m in accounting.methods_for(mech) if m != "pld"]  # PLD costs an inverse FFT per k
    opts = dict(conversion=conversion, zcdp_conversion=zcdp_conversion)
    with warnings.catch_warnings():  # the page shows the notes itself
        warnings.simplefilter("ignore", accounting.OrderGridEdgeWarning)
        df = accounting.epsilon_curve(mech, ks, delta, closed, **opts)
        frames = [df]
        if tight == "pld":  # where "exact" is the tight one (the Gaussian), PLD would take seconds
            frames.append(accounting.epsilon_curve(mech, [k for k in K_GRID if k <= k_top], delta, ["pld"], **opts))
        vec = (
            accounting.vectorised_vs_sequential(
                mech, ks, delta, ["basic", "rdp", tight if tight in closed else "advanced"], **opts
            )
            if families.family(kind) in ADDITIVE
            else None
        )
    return pd.concat(frames, ignore_index=True), df.attrs["notes"], vec


def composition_chart(kind, eps, delta, k, k_top, categories, conversion, zcdp_conversion):
    df, notes, vec = curve(kind, eps, delta, categories, k_top, conversion, zcdp_conversion)
    mech = one_release(kind, eps, delta, categories)
    tight = accounting_for(mech).tight_method
    series = {NAMES[m]: (g["k"], g["epsilon"]) for m, g in df.groupby("method", sort=False)}
    sane = df[df["method"] != "advanced"]["epsilon"].max() * 10  # advanced can reach 1e94: cut it at 10× the others
    st.plotly_chart(
        charts.xy_curves(
            series,
            k,
            f"{budget.describe(mech)}: total ε after k releases at δ = {delta:.0e}",
            "k, number of releases (log)",
            "total ε (log)",
            log_y=True,
            current_label=f"k = {k:,}",
            y_max=sane,
            dashed=(NAMES[tight],),
            colours={NAMES[m]: charts.ACCOUNTING_COLOURS[m] for m in df["method"].unique()},
        ),
        key="acc_curve",
    )
    coincidences(series)
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
        table,  # formatted by the browser (a pandas Styler cost ~8 ms a table on every rerun)
        column_config={
            f"ε after {k:,} releases": st.column_config.NumberColumn(format="%.4g"),
            "× the tight ε": st.column_config.NumberColumn(format="%.2f×"),
        },
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
        lambda: to_safe_csv(df.assign(accounting=df["method"].map(NAMES))),  # written when clicked, not every rerun
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


def coincidences(series: dict) -> None:
    """Say which curves of a chart lie on top of each other (:func:`explorer.charts.coinciding`), and how close."""
    for earlier, later, gap in charts.coinciding(series):
        apart = "equal to four digits" if gap < 5e-5 else f"at most {gap:.2%} apart"
        st.caption(
            f":material/stacked_line_chart: **{later}** and **{earlier}** coincide on this chart: at every k drawn they "
            f"are {apart}, so the {later} line is drawn broken (dots) over a wider {earlier} line."
        )


def rdp_orders(mech, delta, k, conversion):
    orders = accounting.DEFAULT_ORDERS
    rdp = k * release_rdp(mech, orders)  # k releases: k times one release's curve
    per_order = accounting.rdp_epsilons(orders, rdp, delta, conversion)
    eps_best, order = accounting.rdp_to_dp(orders, rdp, delta, conversion, warn=False)
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
        offered = " or ".join(f.name for f in ADDITIVE)
        st.info(
            f"This comparison is drawn for the noise whose k-vector dpcore accounts in closed form: pick {offered} above."
        )
        return
    family = families.family(kind)
    series, colours = {}, {}
    for (a, m), g in vec.groupby(["approach", "method"], sort=False):
        name = f"vectorised ({g['method'].iloc[0]})" if a == "vectorised" else f"sequential · {NAMES[m]}"
        series[name] = (g["k"], g["epsilon"])
        # each sequential line in its accounting's colour on the chart above; the vector in the marks' dark
        colours[name] = charts.MARK["color"] if a == "vectorised" else charts.ACCOUNTING_COLOURS[m]
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
            colours=colours,
        ),
        key="acc_vector",
    )
    coincidences(series)
    if accounting_of(family).tight_method == "exact":
        st.markdown(
            f"The vectorised line and the exact sequential line coincide: k {kind} answers composed exactly "
            f"*are* one {kind} answer with {family.norm} sensitivity √k Δ. Only loose accounting makes separate "
            "answers look dearer."
        )
    else:
        seq = vec[(vec["approach"] == "sequential") & (vec["method"] == "rdp")].set_index("k")["epsilon"]
        pure = vec[vec["approach"] == "vectorised"].set_index("k")["epsilon"]
        text = f"With {kind} noise the vector's {family.norm} sensitivity is k Δ, so its pure ε grows like k (the basic line)."
        if k in seq.index and k > 1:
            k0 = seq.index[seq.index <= max(1, k // 10)].max()  # a decade back (or k = 1): the growth on the chart
            slope = np.log(seq[k] / seq[k0]) / np.log(k / k0)
            text += (
                f" At k = {k:,}, RDP accounting of the same separate releases (allowing δ) gives ε = {seq[k]:.3g} "
                f"against {pure[k]:.3g}, and from k = {k0:,} to {k:,} it grew like k^{slope:.2f}"
                + (" (√k is k^0.50)." if slope < 0.9 else ", almost as fast as the pure ε.")
            )
        st.markdown(text)


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
