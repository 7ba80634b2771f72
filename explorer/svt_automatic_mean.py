"""The Sparse vector page's second view, the automatic mean: a third of ε each to the bound (AboveThreshold), the
sum and the count (``dpcore.auto_mean``), its simulated error, the release, its downloads and its Publish section
(``explorer.svt_publish.automatic_mean``).

It lays out what ``dpcore`` and ``explorer.releases`` computed; it decides no privacy fact.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import auto_mean
from dpcore.accounting import PureDP
from dpcore.clipping import QUERY_SENSITIVITY
from dpcore.empirical import empirical_error_bound
from dpcore.simulation import simulated
from explorer import budget, charts, export, releases, snippets, state, svt_publish, widgets
from explorer.export import to_safe_csv

__all__ = ["automatic_mean"]


def automatic_mean(values: np.ndarray, cand: np.ndarray, eps: float, column: str) -> None:
    seed = state.seed_words("svt-mean")
    one = releases.automatic_mean(values, float(cand[-1]), cand.size, eps, seed)  # the one mean published
    sims = auto_mean(values, cand, eps, state.rng("svt-mean-sims"), trials=state.trials())
    a, b, c, d = st.columns(4)
    a.metric("True mean (no clipping)", f"{one.unclipped_value:,.3f}")
    b.metric(
        "Noisy mean, simulated",
        f"{one.noisy_value:,.3f}",
        f"{one.total_error:+,.3f}",
        delta_color="off",
        delta_arrow="off",
    )
    c.metric(
        "Bound it chose",
        f"{one.bound:g}",
        None if one.found else "none passed: largest",
        delta_color="off",
        delta_arrow="off",
    )
    spread = empirical_error_bound(sims.total_error, 0.95)  # no closed form with a random bound
    d.metric("95% of simulated errors below", f"±{spread:,.3f}")
    st.markdown(
        f"No bounds given: ε/3 picks the bound, ε/3 the noisy sum of clip(x, 0, b), ε/3 the noisy "
        f"count. In 95% of {state.trials():,} simulated releases the error (noise plus clipping bias) was below "
        f"**±{spread:,.3f}**, around a true mean of {one.unclipped_value:,.3f}."
    )
    # the same simulation at the reference ε fixes the axis (a little beyond its 99% error): ε widens the histogram
    reference = auto_mean(values, cand, charts.REFERENCE_EPSILON, state.rng("svt-mean-ref"), trials=state.trials())
    half = 1.1 * empirical_error_bound(reference.error, 0.99)
    grid = np.linspace(-half, half, 401)
    left, right = st.columns([1.6, 1])
    figure = charts.error_histogram(
        sims.error,
        grid,
        sims.approx_error_pdf(grid),
        f"Error of the automatic mean of {column} (noise only, at the chosen b)",
        x="noisy mean − clipped true mean",
        density_name=f"delta method at ε = {eps:.3g}",
        half=half,
    )
    left.plotly_chart(charts.with_reference(figure, half, grid, reference.approx_error_pdf(grid)), key="svt_mean_hist")
    left.caption(charts.reference_caption(half, sims.error, f"{half:,.4g}"))
    right.metric("Empirical std of the error", f"{sims.error.std(ddof=1):,.4f}")
    right.metric("Theoretical std (delta method)", f"{sims.approx_error_std():,.4f}")
    right.metric("Median clipping bias", f"{np.median(sims.true_value - sims.unclipped_value):+,.4f}")
    right.download_button(
        export.SIMULATED_RELEASE,
        to_safe_csv(
            export.simulated(
                pd.DataFrame(
                    {"column": [column], "epsilon": [eps], "bound": [one.bound], "noisy_mean": [one.noisy_value]}
                ),
                simulated(PureDP(eps), query="automatic mean (SVT bound, then the mean)"),
            )
        ),
        file_name="svt_auto_mean_simulated_release.csv",
        mime="text/csv",
        help=export.SIMULATED_HELP,
    )
    right.download_button(
        "Teaching table (CSV)",
        to_safe_csv(
            pd.DataFrame(
                {
                    "column": [column],
                    "true mean": [one.unclipped_value],
                    "noisy mean": [one.noisy_value],
                    "95% of simulated errors within ±": [spread],
                }
            )
        ),
        file_name="svt_auto_mean_teaching.csv",
        mime="text/csv",
    )
    code = snippets.automatic_mean(state.dataset(), column, float(cand[-1]), cand.size, eps, seed)
    right.download_button("Python snippet", code, file_name="svt_mean_snippet.py", mime="text/x-python")
    budget.record_release(PureDP(eps), label=f"SVT automatic mean ε={eps:g} on {column}", key="svt_mean")
    widgets.audit_link(
        "above_threshold", eps, label="Audit AboveThreshold, which picks the bound", sensitivity=QUERY_SENSITIVITY
    )
    svt_publish.automatic_mean(column, values, cand.size, eps)
