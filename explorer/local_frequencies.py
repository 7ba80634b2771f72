"""Local DP's frequencies view: its controls (``ldp_*``), one simulated release of a categorical column's counts by
a frequency oracle, the error of one count over simulated releases, and which oracle wins at which ε.

The oracles are the registry's local families (:func:`dpcore.families.local`): the chooser lists them by name (the
value a link carries, ``?ldp_mechanism=OUE``) and everything below asks the chosen family's :class:`Counts` (its
std, error bound, simulation) and its oracle (p, q, the density of its error). No privacy fact is decided here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import GRR, families
from dpcore.families import Counts, Family
from dpcore.neighbours import REPLACE_ONE
from dpcore.simulation import simulated
from explorer import budget, charts, domains, export, local_publish, releases, snippets, state, unit, widgets
from explorer.export import to_safe_csv
from explorer.markup import md

__all__ = ["EPSILONS", "frequencies_view", "which_oracle"]

#: The ε's of the curves comparing the oracles.
EPSILONS = np.geomspace(0.05, 10, 60)


def _name(family: Family) -> str:
    # the chooser's label, which is also what a link carries: the family's name, as before the registry
    return family.name


#: The picker's key (and the link's).
MECHANISM = "ldp_mechanism"
#: Session key: the user picked an oracle other than the one dpcore finds best (else the picker follows dpcore's).
CHOSEN = "_ldp_mechanism_chosen"


def _key(family) -> str | None:
    return getattr(family, "key", None)


def _picked(best: str) -> None:
    """The user moved the picker: keep their oracle unless it is the one dpcore would pick anyway."""
    st.session_state[CHOSEN] = _key(st.session_state.get(MECHANISM)) != best


def mechanism_picker(k: int, n: int, eps: float) -> Family:
    """The oracle picker, preselecting the oracle whose rare counts vary least at this ε and k among those whose
    reports of the column's n people dpcore draws (:func:`dpcore.families.lowest_variance_local`, what "Which oracle,
    at which ε?" says below).

    The preselection is the picker's default, so a link leaves it out and reproduces it from its column and ε; until
    the user picks another oracle it follows the column and ε. A link naming another oracle counts as its choice.
    """
    best = families.lowest_variance_local(eps, k, reports=n)
    anyway = families.lowest_variance_local(eps, k)
    why = (
        f"{best.name}, the smallest variance of a rare count here (see “Which oracle, at which ε?”)"
        if best is anyway
        else f"{best.name}: {anyway.name} would vary less, but its reports of {n:,} people are more than this page "
        "simulates"
    )
    options = list(families.local())
    if CHOSEN not in st.session_state:  # the first draw in this session: a link's oracle is the sender's choice
        linked = st.query_params.get(MECHANISM)
        st.session_state[CHOSEN] = linked in [f.name for f in options] and linked != best.name
    default = {"index": options.index(best)}
    if not st.session_state[CHOSEN] and _key(st.session_state.get(MECHANISM, best)) != best.key:
        # set, not deleted: a deleted key redraws the server's value at the new default while the browser's picker
        # keeps showing the old oracle (its link then left out an oracle the screen contradicted); a value set
        # through the session state is sent to the browser, and a widget given one takes no default this run
        st.session_state[MECHANISM] = best
        default = {}
    return widgets.select(
        "Mechanism",
        options,
        MECHANISM,
        "All three are ε-LDP. GRR: k-ary randomized response, one value per report. SUE: basic RAPPOR, "
        "a perturbed bit per value. OUE: optimised unary encoding, the lowest variance for many values. "
        f"Preselected: {why}.",
        format_func=_name,
        on_change=_picked,
        args=(best.key,),
        **default,
    )


def frequencies_view() -> None:
    state.dataset()
    columns = widgets.fitting_columns("categorical")
    if not columns:
        return
    c1, c2, c3 = st.columns([1, 0.7, 1.7])  # the ε slider and its typed box want the room; GRR, SUE, OUE little
    with c1:
        column = widgets.select(
            "Column",
            columns,
            "ldp_column",
            "Categorical columns only; past 50 categories the rarest values merge into (other).",
        )
    codes, labels, note = state.encoded(column)
    person, codes = unit.local_reports(codes, "ldp-person")
    if codes is None:
        return
    with c3:
        eps = widgets.epsilon_slider("ldp_epsilon")
    with c2:
        family = mechanism_picker(len(labels), codes.size, eps)
    kind = family.name
    st.caption(domains.FROM_THE_DATA)
    if note:
        st.caption(md(note))
    k, n = len(labels), codes.size
    answer = family.counts(eps, k)
    mech = answer.mechanism
    true = np.bincount(codes, minlength=k)
    bound = answer.error_bound(true, 0.95)
    project = widgets.bound(
        st.toggle,
        "Show as a valid histogram (post-processing)",
        key="ldp_project",
        help="Projects the estimates onto non-negative counts summing to n (Norm-Sub). Free in privacy, but biased.",
    )
    with c3:
        widgets.epsilon_for_accuracy(
            "ldp",
            "ldp_epsilon",
            lambda x: family.epsilon_for_accuracy(x, true_counts=true),
            float(f"{bound.max():.2g}"),
            "every count",
        )
    seed = state.seed_words("ldp-release")
    release = releases.local_counts(codes, labels, kind, eps, seed, valid_histogram=project)
    shown = release["noisy count"].to_numpy()

    st.caption(family.title)
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

    sims = answer.simulate(true, state.rng("ldp-sims"), trials=state.trials())
    j = int(np.argmax(true))
    errors = sims[:, j] - true[j]
    reference = family.counts(charts.REFERENCE_EPSILON, k)  # its law fixes the axis: ε widens the histogram
    half = 1.1 * float(reference.error_bound(true, 0.99)[j])
    grid = np.linspace(-half, half, 401)
    left, right = st.columns([1.6, 1])
    figure = charts.error_histogram(
        errors,
        grid,
        mech.error_pdf(grid, true)[:, j],
        f"Error of the count of '{labels[j]}' over {state.trials():,} releases",
        density_name=f"normal approximation at ε = {eps:.3g}",
        lattice=1 / mech.p_minus_q,
        mechanism=kind,
        half=half,
    )
    left.plotly_chart(
        charts.with_reference(figure, half, grid, reference.mechanism.error_pdf(grid, true)[:, j]), key="ldp_hist"
    )
    left.caption(charts.reference_caption(half, errors, f"{half:,.0f}"))
    right.metric("Empirical std of the error", f"{errors.std(ddof=1):,.1f}")
    right.metric("Theoretical std (exact variance)", f"{answer.std(true)[j]:,.1f}")
    right.download_button(
        export.SIMULATED_RELEASE,
        to_safe_csv(
            export.simulated(
                release.rename(columns={"value": column}),
                simulated(mech, query=f"counts of {column}", **unit.local_label(person)),
            )
        ),
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
    if person is None:
        code = snippets.local_counts(state.dataset(), column, kind, eps, seed, project)
        right.download_button("Python snippet", code, file_name="ldp_snippet.py", mime="text/x-python")
    label = f"{kind} ε={eps:g} on {column}" + (", unit=person (one row each)" if person else "")
    budget.record_release(mech, label=label, key="ldp", **unit.ledger_unit(person))
    widgets.audit_link(family.audit, eps, k=k)
    if person is None:
        local_publish.counts(column, state.dataset().frame[column], family, eps, project)
    which_oracle(answer, n, eps)


def which_oracle(answer: Counts, n: int, eps: float) -> None:
    """Every local family's std of a rare value's count against ε, beside the same histogram released centrally."""
    k, kind = answer.k, answer.family.name
    st.subheader("Which oracle, at which ε?")
    typical = np.zeros(k, dtype=np.int64)
    typical[0] = n  # the variance of a value with count 0 out of n: what rare values pay
    series = {f.name: [f.counts(e, k).std(typical)[1] for e in EPSILONS] for f in families.local()}
    # local and central compared under replace-one, the relation local DP protects (a histogram's Δ₁ = 2)
    laplace = families.family("laplace")
    central = laplace.histogram_sensitivity(REPLACE_ONE)
    series[f"central Laplace (Δ = {central:g})"] = [
        laplace.counts(e, k, relation=REPLACE_ONE).std(typical)[0] for e in EPSILONS
    ]
    st.plotly_chart(
        charts.curves(
            EPSILONS, series, eps, f"Std of one count, n = {n:,}, k = {k}", y_title="std of a count", log_y=True
        ),
        key="ldp_curve",
    )
    cross = GRR.grr_crossover_epsilon(k)
    gap = answer.std(typical)[1] / laplace.counts(eps, k, relation=REPLACE_ONE).std(typical)[0]
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
