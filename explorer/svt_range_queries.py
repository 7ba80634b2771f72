"""The Sparse vector page's third view, random range queries: Sparse picks at most c of them against answering
all (``dpcore.svt``), its controls (``svt_c``, ``svt_threshold``, ``svt_queries``), the release, its downloads, its
Publish section (``explorer.svt_publish.range_counts``) and how the sparse vector technique works.

It lays out what ``dpcore`` and ``explorer.releases`` computed; the noise scales are ``dpcore.svt``'s.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpcore import Laplace, svt_noise_scales
from dpcore.accounting import PureDP
from dpcore.simulation import simulated
from dpcore.svt import svt_epsilon_for_accuracy
from explorer import budget, charts, export, releases, snippets, state, svt_publish, widgets
from explorer.columns import suggest_bounds
from explorer.export import to_safe_csv

__all__ = ["EPS_GRID", "range_queries", "stopped_after", "explain"]

EPS_GRID = np.geomspace(0.01, 10, 60)


def stopped_after(passed: np.ndarray, c: int) -> int:
    """How many queries Sparse asked: up to its c-th positive, or all of them when it found fewer."""
    positives = np.flatnonzero(passed)
    return int(positives[c - 1]) + 1 if positives.size >= c else len(passed)


def range_queries(values: np.ndarray, column: str, eps: float) -> tuple[int, int]:
    c1, c2, c3 = st.columns(3)
    c = widgets.bound(
        c1.slider,
        "c, most positives",
        1,
        10,
        3,
        key="svt_c",
        bind="query-params",
        help="Sparse stops after c queries pass; each of its c rounds runs at ε/(2c), each answer at ε/(2c).",
    )
    share = widgets.bound(
        c2.slider,
        "Threshold T, % of the rows",
        1,
        99,
        25,
        key="svt_threshold",
        bind="query-params",
        help="Queries whose count is above T are the interesting ones. T is public; set as a share of the "
        "row count, which is treated as public here.",
    )
    n_queries = widgets.bound(
        c3.slider,
        "Number of random range queries",
        5,
        100,
        20,
        key="svt_queries",
        bind="query-params",
        help="Ranges [a, b] drawn at random (page seed) between the column's minimum and 99th percentile: read from "
        "the data, so the ranges are not public and this view is a simulation, not a publication.",
    )
    lo, hi = suggest_bounds(state.dataset().frame[column])
    answer_bound = Laplace(svt_noise_scales(n_queries, c, eps).answer).error_bound()
    widgets.epsilon_for_accuracy(
        "svt",
        "svt_epsilon",
        lambda x: svt_epsilon_for_accuracy(x, n_queries, c),
        float(f"{answer_bound:.2g}"),
        "each answered count",
        extra=f" (c = {c}: the answers share ε/2)",
    )
    seeds = [state.seed_words(salt) for salt in ("svt-ranges", "svt-release", "svt-naive")]
    table = releases.range_queries(values, lo, hi, n_queries, share, c, eps, seeds)
    scales = svt_noise_scales(n_queries, c, eps)  # the answers come in whole units (releases.range_queries)
    true, threshold = table["true count"].to_numpy(), table.attrs["threshold"]
    passed_svt, passed_naive = int(table["passed SVT"].sum()), int(table["passed naive"].sum())
    asked = stopped_after(table["passed SVT"].to_numpy(), c)
    st.plotly_chart(
        charts.answers_against_threshold(
            table["range"],
            true,
            {"SVT answer": table["SVT answer"], "naive answer": table["naive answer"]},
            threshold,
            f"{n_queries} range counts of {column}: which passed",
            stopped_after=asked,
            stop_label=f"Sparse stops: c = {c} found",
        ),
        key="svt_ranges",
    )
    svt_err, naive_err = Laplace(scales.answer).error_bound(), Laplace(scales.naive).error_bound()
    a, b, c_ = st.columns(3)
    a.metric("SVT answer noise scale 2c/ε", f"{scales.answer:,.3g}")
    b.metric("Naive answer noise scale n/ε", f"{scales.naive:,.3g}")
    c_.metric("Queries passed: SVT / naive", f"{passed_svt} / {passed_naive}")
    st.markdown(
        f"With 95% probability each SVT answer is within **±{svt_err:,.1f}** of the true count, each naive one within "
        f"**±{naive_err:,.1f}**. SVT found at most c = {c} queries and pays only for those; the naive release answers "
        f"all {n_queries} and keeps those above T. SVT wins whenever 2c < n."
        + (
            f" Here Sparse stopped at query {asked} of {n_queries}, its c-th positive (dotted line): the "
            f"{n_queries - asked} after it were never asked, so they are unticked whatever their counts."
            if asked < n_queries
            else f" Here Sparse asked all {n_queries} queries and found {passed_svt} of at most {c}."
        )
    )
    st.dataframe(
        table,
        hide_index=True,
        key="svt_table",
        column_config={name: st.column_config.NumberColumn(format="%d") for name in ("SVT answer", "naive answer")},
    )
    left, right = st.columns([1.6, 1])
    left.plotly_chart(
        charts.curves(
            EPS_GRID,
            {
                f"SVT (c = {c})": [Laplace(svt_noise_scales(n_queries, c, e).answer).error_bound() for e in EPS_GRID],
                f"naive (n = {n_queries})": [
                    Laplace(svt_noise_scales(n_queries, c, e).naive).error_bound() for e in EPS_GRID
                ],
            },
            eps,
            "95% error of one released range count",
            y_title="error bound (count)",
            log_y=True,
        ),
        key="svt_curve",
    )
    release = table[["range", "passed SVT", "SVT answer"]]  # the SVT release alone: no true counts, no naive answers
    right.download_button(
        "Simulated SVT release (CSV), not private",
        to_safe_csv(export.simulated(release, simulated(PureDP(eps), query="range counts (SVT)"))),
        file_name="svt_ranges_simulated.csv",
        mime="text/csv",
        help=export.SIMULATED_HELP,
    )
    code = snippets.range_queries(state.dataset(), column, lo, hi, n_queries, share, c, eps, seeds)
    right.download_button("Python snippet", code, file_name="svt_snippet.py", mime="text/x-python")
    with right:
        budget.record_release(PureDP(eps), label=f"SVT {n_queries} range queries ε={eps:g} on {column}", key="svt")
    right.caption(
        "Recorded as a generic ε-DP release (binary randomized response at ε: the worst case among ε-DP "
        "mechanisms under RDP and zCDP, Bun & Steinke 2016, Prop. 3.3)."
    )
    widgets.audit_link("sparse", eps, label="Audit Sparse with this c and ε", c=c)
    svt_publish.range_counts(column, values, n_queries, c, eps, seeds[0])
    return n_queries, c


def explain(n: int, c: int, eps: float) -> None:
    scales = svt_noise_scales(n, c, eps)
    with st.expander("How the sparse vector technique works, and how it goes wrong"):
        st.markdown(
            "**AboveThreshold** (Dwork & Roth 2014, Algorithm 1, Theorem 3.23), queries of sensitivity Δ: ε-DP "
            "however many queries it reads, because only the index of the first pass comes out."
        )
        st.latex(
            r"\hat T = T + \mathrm{Lap}(2\Delta/\varepsilon),\qquad \text{return the first } i \text{ with } "
            r"f_i(x) + \mathrm{Lap}(4\Delta/\varepsilon) \ge \hat T"
        )
        st.markdown(
            "**Sparse** (Algorithm 2): c rounds of AboveThreshold at ε/c, a fresh noisy threshold after each "
            "positive. Answering the c positives with fresh noise at ε/(2c) each, with Sparse at ε/2:"
        )
        st.latex(
            r"\underbrace{\mathrm{Lap}(4c\Delta/\varepsilon)}_{\text{threshold}},\ "
            r"\underbrace{\mathrm{Lap}(8c\Delta/\varepsilon)}_{\text{comparison}},\ "
            r"\underbrace{\mathrm{Lap}(2c\Delta/\varepsilon)}_{\text{answer}}\quad\text{vs naive}\quad "
            r"\mathrm{Lap}(n\Delta/\varepsilon)"
        )
        st.caption(
            f"Here (n = {n}, c = {c}, ε = {eps:g}, Δ = 1): threshold {scales.threshold:.3g}, comparison "
            f"{scales.query:.3g}, answer {scales.answer:.3g}; naive {scales.naive:.3g}. SVT's cost depends on c, "
            "not on n: the queries below the threshold are free."
        )
        st.markdown(
            "**Pitfalls** (Lyu, Su & Li 2017, *Understanding the Sparse Vector Technique*): variants that add "
            "no noise to the queries, whose query noise does not grow with c, that never refresh the threshold, "
            "or that release the noisy value used in the comparison are **not** ε-DP, some for no finite ε. "
            "dpcore uses only the private versions and answers with fresh noise."
        )
