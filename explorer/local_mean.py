"""Local DP's mean view: its controls (``ldpm_*``), one simulated release of a numeric column's mean by the one-bit
LDP mean (each person rounds their clipped value to a bound at random, then randomizes it), the error over simulated
releases and its Publish section. Every number comes from :class:`dpcore.LDPMean`; no privacy fact is decided here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import Gaussian, LDPMean
from dpcore.simulation import simulated
from explorer import budget, charts, export, local_publish, releases, snippets, state, unit, widgets
from explorer.columns import numeric_values, suggest_bounds
from explorer.export import to_safe_csv
from explorer.markup import number

__all__ = ["mean_view"]


def mean_view() -> None:
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
    finite = np.isfinite(ds.frame[column].to_numpy(dtype=np.float64, na_value=np.nan))
    person, values = unit.local_reports(values, "ldpm-person", finite)
    if values is None:
        return
    lo, hi = suggest_bounds(ds.frame[column])
    c1, c2, c3 = st.columns([1, 1, 1.5])  # the ε slider beside the box where ε is typed
    # per-column keys: each column keeps its own bounds (and its own URL entry) when the picker moves
    lower = widgets.bound(
        c1.number_input,
        "Lower bound",
        min_value=-widgets.LARGEST_AMOUNT,
        max_value=widgets.LARGEST_AMOUNT,
        value=widgets.within(lo),
        key=f"ldpm_lower_{column}",
        help="Values below are clipped up to it.",
    )
    upper = widgets.bound(
        c2.number_input,
        "Upper bound",
        min_value=-widgets.LARGEST_AMOUNT,
        max_value=widgets.LARGEST_AMOUNT,
        value=widgets.within(hi),
        key=f"ldpm_upper_{column}",
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
    reference = LDPMean(charts.REFERENCE_EPSILON, lower, upper)  # its law fixes the axis: ε widens the histogram
    half = 1.1 * reference.error_bound(values, 0.99)
    grid = np.linspace(-half, half, 401)
    left, right = st.columns([1.6, 1])
    figure = charts.error_histogram(
        errors,
        grid,
        Gaussian(mech.std(values)).pdf(grid),
        f"Error of the LDP mean of {column} over {trials:,} releases",
        density_name=f"normal approximation at ε = {eps:.3g}",
        mechanism="LDP mean",
        half=half,
    )
    left.plotly_chart(
        charts.with_reference(figure, half, grid, Gaussian(reference.std(values)).pdf(grid)), key="ldpm_hist"
    )
    left.caption(charts.reference_caption(half, errors, number(half)))
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
                ),
                simulated(mech, query=f"mean of {column}", **unit.local_label(person)),
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
    if person is None:
        code = snippets.local_mean(state.dataset(), column, lower, upper, eps, seed)
        right.download_button("Python snippet", code, file_name="ldp_mean_snippet.py", mime="text/x-python")
    with right:
        label = f"LDP mean ε={eps:g} on {column}" + (", unit=person (one row each)" if person else "")
        budget.record_release(mech, label=label, key="ldpm", **unit.ledger_unit(person))
    widgets.audit_link("ldp_mean", eps, lower=lower, upper=upper)
    if person is None:
        local_publish.mean(column, ds.frame[column], eps)
