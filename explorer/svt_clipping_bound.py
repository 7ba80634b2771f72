"""The Sparse vector page's first view, the clipping-bound walk: AboveThreshold over the candidate bounds
(``dpcore.clipping.choose_clipping_bound``) against the naive Lap(k/ε) version, the simulated choices of both, the
release, its downloads and its Publish section (``explorer.svt_publish.clipping_bound``).

It lays out what ``dpcore`` and ``explorer.releases`` computed; the noise scales are ``dpcore.svt``'s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import choose_clipping_bound, clipping_queries, naive_clipping_bound
from dpcore.accounting import PureDP
from dpcore.clipping import QUERY_SENSITIVITY
from dpcore.simulation import simulated
from dpcore.svt import above_threshold_scales, naive_scale
from explorer import budget, charts, export, releases, snippets, state, svt_publish, widgets
from explorer.export import to_safe_csv

__all__ = ["clipping_walk"]


def clipping_walk(values: np.ndarray, cand: np.ndarray, eps: float, column: str) -> None:
    answers = clipping_queries(values, cand)
    seed = state.seed_words("svt-bound")
    chosen = releases.clipping_bound(values, float(cand[-1]), cand.size, eps, seed)
    scales = above_threshold_scales(eps, QUERY_SENSITIVITY)
    naive = naive_scale(eps, cand.size, QUERY_SENSITIVITY)  # ε/k to each of the k queries
    fig = charts.curves(
        cand,
        {"q(b) (exact, sensitivity 1)": answers},
        chosen,
        "The walk: q(b) against the candidate bound b",
        "candidate bound b",
        "q(b) ≈ −(records above b)",
        log_x=False,
        current_label=f"chosen b = {chosen:g}",
        hline=(0.0, "threshold 0"),
    )
    left, right = st.columns([1.6, 1])
    left.plotly_chart(fig, key="svt_walk")
    right.metric("Chosen bound, simulated (AboveThreshold)", f"{chosen:g}")
    right.markdown(
        f"Each candidate asks *does clipping at b lose anything?* AboveThreshold compares every noisy q(b) "
        f"(noise Lap(4/ε), scale **{scales.query:.3g}**) with one noisy threshold (Lap(2/ε), scale "
        f"**{scales.threshold:.3g}**) and stops at the first pass; the cost is ε however many bounds it "
        f"tries. The naive way answers all {cand.size} with Lap(k/ε), scale **{naive:.3g}**, "
        "and takes the first noisy answer at or above 0."
    )
    trials = state.trials()
    svt_b = choose_clipping_bound(values, cand, eps, state.rng("svt-bound-sims"), trials=trials)
    naive_b = naive_clipping_bound(values, cand, eps, state.rng("svt-naive-sims"), trials=trials)
    lossless = cand[answers >= 0]  # exact: the smallest b that clips nothing (not private, shown for reference)
    ideal = lossless[0] if lossless.size else np.inf  # none lossless: every choice clips
    marks = {f"smallest lossless b = {ideal:g}": ideal} if lossless.size else {}
    left, right = st.columns([1.6, 1])
    left.plotly_chart(
        charts.overlaid_histograms(
            {"SVT": svt_b, "naive": naive_b},
            f"Chosen b over {trials:,} releases at ε = {eps:g}",
            "chosen bound b",
            cand[1] - cand[0],
            marks,
        ),
        key="svt_choices",
    )
    for name, chosen_b in (("SVT", svt_b), ("Naive", naive_b)):
        right.metric(
            f"{name}: releases that clip records",
            f"{np.mean(chosen_b < ideal):.1%}",
            f"median b {np.median(chosen_b):g}",
            delta_color="off",
            delta_arrow="off",
        )
    right.caption(
        "A b below the smallest lossless bound clips records (bias); a b far above it inflates the noise "
        "of the sum. The lossless bound is read from the data, for reference only."
    )
    right.download_button(
        export.SIMULATED_RELEASE,
        to_safe_csv(
            export.simulated(
                pd.DataFrame({"column": [column], "epsilon": [eps], "chosen bound": [chosen]}),
                simulated(PureDP(eps), query="clipping bound (SVT over candidate bounds)"),
            )
        ),
        file_name="svt_bound_simulated_release.csv",
        mime="text/csv",
        help=export.SIMULATED_HELP,
    )
    right.download_button(
        "The walk (CSV)",
        to_safe_csv(pd.DataFrame({"candidate b": cand, "q(b) (exact)": answers, "chosen": cand == chosen})),
        file_name="svt_walk.csv",
        mime="text/csv",
        help="Every candidate with its exact q(b), as on the chart. The q(b) are read from the data: never publish them.",
    )
    code = snippets.clipping_bound(state.dataset(), column, float(cand[-1]), cand.size, eps, seed)
    right.download_button("Python snippet", code, file_name="svt_bound_snippet.py", mime="text/x-python")
    with right:
        budget.record_release(PureDP(eps), label=f"SVT clipping bound ε={eps:g} on {column}", key="svt_walk")
    widgets.audit_link("above_threshold", eps, label="Audit AboveThreshold at this ε", sensitivity=QUERY_SENSITIVITY)
    svt_publish.clipping_bound(column, values, cand.size, eps)
