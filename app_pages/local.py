"""Local DP: each person randomizes their own answer (GRR, SUE, OUE; LDP mean)."""

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import GRR, OUE, SUE, Gaussian, Laplace, LDPMean, coin_flip_rr
from dpcore.neighbours import REPLACE_ONE
from explorer import budget, charts, domains, export, frame, local_publish, releases, snippets, state, widgets
from explorer.columns import numeric_values, suggest_bounds
from explorer.export import to_safe_csv
from explorer.markup import md, number

ORACLES = {"GRR": GRR, "SUE": SUE, "OUE": OUE}
ORACLE_NAMES = {
    "GRR": "GRR · k-ary randomized response",
    "SUE": "SUE · basic RAPPOR",
    "OUE": "OUE · optimised unary encoding",
}


def frequencies() -> None:
    state.dataset()
    columns = widgets.fitting_columns("categorical")
    if not columns:
        return
    c1, c2, c3 = st.columns([1, 1, 1.4])
    with c1:
        column = widgets.select(
            "Column",
            columns,
            "ldp_column",
            "Categorical columns only; past 50 categories the rarest values merge into (other).",
        )
    with c2:
        kind = widgets.select(
            "Mechanism",
            list(ORACLES),
            "ldp_mechanism",
            "All three are ε-LDP. GRR: k-ary randomized response, one value per report. SUE: basic RAPPOR, "
            "a perturbed bit per value. OUE: optimised unary encoding, the lowest variance for many values.",
        )
    with c3:
        eps = widgets.epsilon_slider("ldp_epsilon")
    codes, labels, note = state.encoded(column)
    st.caption(domains.FROM_THE_DATA)
    if note:
        st.caption(md(note))
    k, n = len(labels), codes.size
    mech = ORACLES[kind](eps, k)
    true = np.bincount(codes, minlength=k)
    bound = mech.error_bound(true, 0.95)
    project = st.toggle(
        "Show as a valid histogram (post-processing)",
        key="ldp_project",
        bind="query-params",
        help="Projects the estimates onto non-negative counts summing to n (Norm-Sub). Free in privacy, but biased.",
    )
    with c3:
        widgets.epsilon_for_accuracy(
            "ldp",
            "ldp_epsilon",
            lambda x: ORACLES[kind].epsilon_for_accuracy(x, true),
            float(f"{bound.max():.2g}"),
            "every count",
        )
    seed = state.seed_words("ldp-release")
    release = releases.local_counts(codes, labels, kind, eps, seed, valid_histogram=project)
    shown = release["noisy count"].to_numpy()

    st.caption(ORACLE_NAMES[kind])
    st.plotly_chart(
        charts.true_vs_noisy_bars(
            labels, true, shown, bound, f"{column}: true counts and one {kind} release", mechanism=kind
        ),
        key="ldp_bars",
    )
    st.markdown(
        f"With 95% probability each estimated count is within **±{bound.max():,.0f}** of the truth "
        f"(normal approximation, {n:,} users, p = {mech.p:.4g}, q = {mech.q:.4g})."
    )

    sims = mech.simulate(true, state.rng("ldp-sims"), trials=state.trials())
    j = int(np.argmax(true))
    errors = sims[:, j] - true[j]
    grid = np.linspace(errors.min(), errors.max(), 200)
    left, right = st.columns([1.6, 1])
    left.plotly_chart(
        charts.error_histogram(
            errors,
            grid,
            mech.error_pdf(grid, true)[:, j],
            f"Error of the count of '{labels[j]}' over {state.trials():,} releases",
            density_name="normal approximation",
            lattice=1 / mech.p_minus_q,
            mechanism=kind,
        ),
        key="ldp_hist",
    )
    right.metric("Empirical std of the error", f"{errors.std(ddof=1):,.1f}")
    right.metric("Theoretical std (exact variance)", f"{mech.std(true)[j]:,.1f}")
    right.download_button(
        export.SIMULATED_RELEASE,
        to_safe_csv(export.simulated(release.rename(columns={"value": column}))),
        file_name="ldp_simulated_release.csv",
        mime="text/csv",
        help=export.SIMULATED_HELP,
    )
    right.download_button(
        "Teaching table (CSV)",
        to_safe_csv(pd.DataFrame({column: labels, "true": true, "noisy": shown})),
        file_name="ldp_counts.csv",
        mime="text/csv",
        help="The true counts beside the noisy ones, as on the chart. Never publish the true column.",
    )
    code = snippets.local_counts(state.dataset(), column, kind, eps, seed, project)
    right.download_button("Python snippet", code, file_name="ldp_snippet.py", mime="text/x-python")
    budget.record_release(mech, label=f"{kind} ε={eps:g} on {column}", key="ldp")
    widgets.audit_link(kind.lower(), eps, k=k)
    local_publish.counts(column, state.dataset().frame[column], kind, eps, project)

    st.subheader("Which oracle, at which ε?")
    grid_eps = np.geomspace(0.05, 10, 60)
    typical = np.zeros(k, dtype=np.int64)
    typical[0] = n  # the variance of a value with count 0 out of n: what rare values pay
    series = {name: [np.sqrt(cls(e, k).variance(typical)[1]) for e in grid_eps] for name, cls in ORACLES.items()}
    central = REPLACE_ONE.histogram_l1_sensitivity  # local and central compared under replace-one: Δ₁ = 2
    series[f"central Laplace (Δ = {central:g})"] = [Laplace.from_epsilon(e, central).std for e in grid_eps]
    st.plotly_chart(
        charts.curves(
            grid_eps, series, eps, f"Std of one count, n = {n:,}, k = {k}", y_title="std of a count", log_y=True
        ),
        key="ldp_curve",
    )
    cross = GRR.grr_crossover_epsilon(k)
    gap = mech.std(typical)[1] / Laplace.from_epsilon(eps, central).std
    winner = (
        f"For k = {k} ≤ 5, GRR has the smallest variance at every ε. "
        if k <= 5
        else f"For k = {k}, GRR has the smallest variance once ε > ln((k−2)/3) = **{cross:.2f}**; below it OUE wins. "
    )
    st.markdown(
        winner + "The central curve is the same histogram released by a trusted curator with Laplace noise: "
        f"at ε = {eps:g} its error is about **{gap:,.0f}× smaller** than {kind}'s, the price of trusting no one."
    )
    with st.expander("The formulas"):
        st.latex(
            r"\hat c_v = \frac{\mathrm{support}_v - n q}{p - q},\qquad \operatorname{Var}[\hat c_v] = \frac{n q (1-q)}{(p-q)^2} + \frac{c_v(1-p-q)}{p-q}"
        )
        st.latex(
            r"\text{GRR: } p=\frac{e^\varepsilon}{e^\varepsilon+k-1},\ q=\frac{1}{e^\varepsilon+k-1};\quad "
            r"\text{SUE: } p=\frac{e^{\varepsilon/2}}{e^{\varepsilon/2}+1},\ q=\frac{1}{e^{\varepsilon/2}+1};\quad "
            r"\text{OUE: } p=\tfrac12,\ q=\frac{1}{e^\varepsilon+1}"
        )
        st.caption(
            "Wang, Blocki, Li, Jha 2017, Locally Differentially Private Protocols for Frequency Estimation. "
            "Central comparison under the replace-one relation, where a histogram has L1 sensitivity 2."
        )


def coin_flip_story() -> None:
    m = coin_flip_rr()
    with st.expander("Randomized response: the coin-flip survey (ε = ln 3)", expanded=False):
        st.markdown(
            "Ask *“Did you cheat on an exam?”* but tell each person: flip a coin in private. **Heads**, answer truthfully. "
            "**Tails**, flip again and answer *yes* on heads, *no* on tails. Any single *yes* may be a coin, so nobody can "
            "be blamed for it, yet the share of cheaters is still estimable from many answers."
        )
        st.latex(
            r"P(\text{yes}\mid\text{yes}) = \tfrac12 + \tfrac14 = \tfrac34,\quad P(\text{yes}\mid\text{no}) = \tfrac14,"
            r"\quad \varepsilon = \ln\frac{3/4}{1/4} = \ln 3 \approx 1.0986"
        )
        st.caption(f"It is GRR with k = 2 and ε = ln 3: p = {m.p:g}, q = {m.q:g}.")
        widgets.audit_link("coin_flip", m.epsilon)


def ldp_mean() -> None:
    ds = state.dataset()
    columns = widgets.fitting_columns("numeric")
    if not columns:
        return
    column = widgets.select(
        "Numeric column",
        columns,
        "ldpm_column",
        "Each person rounds their value to one of the bounds at random, then applies randomized response.",
    )
    values, dropped = numeric_values(ds.frame[column])
    lo, hi = suggest_bounds(ds.frame[column])
    c1, c2, c3 = st.columns(3)
    # per-column keys: each column keeps its own bounds (and its own URL entry) when the picker moves
    lower = c1.number_input(
        "Lower bound",
        value=float(lo),
        key=f"ldpm_lower_{column}",
        bind="query-params",
        help="Values below are clipped up to it.",
    )
    upper = c2.number_input(
        "Upper bound",
        value=float(hi),
        key=f"ldpm_upper_{column}",
        bind="query-params",
        help="Values above are clipped down to it.",
    )
    with c3:
        eps = widgets.epsilon_slider("ldpm_epsilon")
    mech = LDPMean(eps, lower, upper)
    trials = state.trials()
    seed = state.seed_words("ldpm-release")
    estimate = releases.local_mean(values, lower, upper, eps, seed)
    true_clipped = mech.clipped_mean(values)
    bound = mech.error_bound(values)
    with c3:
        widgets.epsilon_for_accuracy(
            "ldpm",
            "ldpm_epsilon",
            lambda x: LDPMean.epsilon_for_accuracy(x, values, lower, upper),
            float(f"{bound:.2g}"),
            "the mean",
        )
    a, b, c = st.columns(3)
    a.metric("True mean (clipped)", f"{true_clipped:,.3f}")
    b.metric(
        "One LDP estimate (simulated, not private)",
        f"{estimate:,.3f}",
        f"{estimate - true_clipped:+,.3f}",
        delta_color="off",
        delta_arrow="off",
    )
    c.metric("95% error bound", f"±{bound:,.3f}")
    st.caption(
        "Bounds suggested from the data are themselves not private; fix them from domain knowledge in a real release."
        + (f" {dropped:,} missing values were left out." if dropped else "")
    )
    errors = mech.simulate(values, state.rng("ldpm"), trials=trials) - true_clipped
    grid = np.linspace(errors.min(), errors.max(), 200)
    left, right = st.columns([1.6, 1])
    left.plotly_chart(
        charts.error_histogram(
            errors,
            grid,
            Gaussian(mech.std(values)).pdf(grid),
            f"Error of the LDP mean of {column} over {trials:,} releases",
            density_name="normal approximation",
            mechanism="LDP mean",
        ),
        key="ldpm_hist",
    )
    with np.errstate(over="ignore"):  # bounds near 1e308 give errors whose squares overflow: the std is then ∞
        right.metric("Empirical std of the error", number(float(errors.std(ddof=1))))
    right.metric("Theoretical std (exact variance)", number(mech.std(values)))
    approximation = mech.simulation_error(values, trials)
    if approximation > 0:
        right.caption(
            f"Simulated from a normal approximation of how many people round up (too many distinct values to "
            f"simulate exactly): any probability of it differs from the exact law by at most {approximation:.2%} "
            "(Berry–Esseen bound)."
        )
    right.download_button(
        export.SIMULATED_RELEASE,
        to_safe_csv(
            export.simulated(
                pd.DataFrame(
                    {"column": [column], "lower": [lower], "upper": [upper], "epsilon": [eps], "noisy mean": [estimate]}
                )
            )
        ),
        file_name="ldp_mean_simulated_release.csv",
        mime="text/csv",
        help="What the collector would publish: the estimate, no true mean.",
    )
    right.download_button(
        "Teaching table (CSV)",
        to_safe_csv(
            pd.DataFrame(
                {
                    "column": [column],
                    "true clipped mean": [true_clipped],
                    "noisy mean": [estimate],
                    "95% error bound": [bound],
                }
            )
        ),
        file_name="ldp_mean.csv",
        mime="text/csv",
    )
    code = snippets.local_mean(state.dataset(), column, lower, upper, eps, seed)
    right.download_button("Python snippet", code, file_name="ldp_mean_snippet.py", mime="text/x-python")
    with right:
        budget.record_release(mech, label=f"LDP mean ε={eps:g} on {column}", key="ldpm")
    widgets.audit_link("ldp_mean", eps, lower=lower, upper=upper)
    local_publish.mean(column, ds.frame[column], eps)


def render() -> None:
    st.title("Local differential privacy")
    st.caption(
        "Each person randomizes their own answer before it leaves their device: the collector never sees a true value."
    )
    coin_flip_story()
    # only the open tab runs: a slider move recomputes one view, and a link names the view it shows
    tab_freq, tab_mean = st.tabs(["Frequencies of a category", "Mean of a number"], key="ldp_view", bind="query-params")
    if tab_freq.open:
        with tab_freq:
            frequencies()
    if tab_mean.open:
        with tab_mean:
            ldp_mean()


frame.run_page(render)
