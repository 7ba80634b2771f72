"""Sparse vector technique: test many queries against a threshold, pay only for the ones above it.

Three uses of ``dpcore.svt`` on one numeric column: the clipping-bound walk
(AboveThreshold over candidate bounds, against the naive Lap(k/ε) version), the
automatic mean (a third of ε each to the bound, the sum and the count), and
random range queries (Sparse picks at most c of them, against answering all).
"""

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import (
    Laplace,
    auto_mean,
    choose_clipping_bound,
    clipping_queries,
    naive_clipping_bound,
    svt_noise_scales,
)
from dpcore.accounting import PureDP
from dpcore.clipping import QUERY_SENSITIVITY, evenly_spaced_candidates
from dpcore.empirical import empirical_error_bound
from dpcore.svt import above_threshold_scales, naive_scale, svt_epsilon_for_accuracy
from explorer import budget, charts, export, frame, releases, snippets, state, svt_publish, widgets
from explorer.columns import numeric_values, suggest_bounds
from explorer.export import to_safe_csv
from explorer.markup import md, plain_sentence

N_CANDIDATES = 100
EPS_GRID = np.geomspace(0.01, 10, 60)


def candidate_bounds(column: str) -> np.ndarray:
    ds = state.dataset()
    top = max(2 * suggest_bounds(ds.frame[column])[1], 1.0)
    digit = 10.0 ** np.floor(np.log10(top))  # round up to one significant digit, so the steps are round numbers
    default = float(np.ceil(top / digit) * digit)
    source = f"{ds.name}:{column}"
    if st.session_state.get("_svt_bounds_source", source) != source:
        st.session_state["svt_max_bound"] = default  # a new column gets its own default, not the last column's bound
    st.session_state["_svt_bounds_source"] = source
    given = {} if "svt_max_bound" in st.session_state else {"value": default}  # value= beside a set state warns
    largest = st.number_input(
        "Largest candidate bound",
        max_value=1e12,
        key="svt_max_bound",
        bind="query-params",
        **given,
        help=f"The walk tries {N_CANDIDATES} evenly spaced bounds b up to this one. The default (about twice the data's "
        "99th percentile) is read from the data, so it is not private: fix it from domain knowledge in a real release.",
    )
    return evenly_spaced_candidates(largest, N_CANDIDATES)


def clipping_walk(values: np.ndarray, cand: np.ndarray, eps: float, column: str) -> None:
    answers = clipping_queries(values, cand)
    seed = state.seed_words("svt-bound")
    chosen = releases.clipping_bound(values, float(cand[-1]), cand.size, eps, seed)
    scales = above_threshold_scales(eps, QUERY_SENSITIVITY)
    naive = naive_scale(eps, cand.size, QUERY_SENSITIVITY)  # ε/k to each of the k queries
    fig = charts.curves(
        cand,
        {"q_b (exact, sensitivity 1)": answers},
        chosen,
        "The walk: q_b against the candidate bound b",
        "candidate bound b",
        "q_b ≈ −(records above b)",
        log_x=False,
        current_label=f"chosen b = {chosen:g}",
        hline=(0.0, "threshold 0"),
    )
    left, right = st.columns([1.6, 1])
    left.plotly_chart(fig, key="svt_walk")
    right.metric("Chosen bound, simulated (AboveThreshold)", f"{chosen:g}")
    right.markdown(
        f"Each candidate asks *does clipping at b lose anything?* AboveThreshold compares every noisy q_b "
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
        to_safe_csv(export.simulated(pd.DataFrame({"column": [column], "epsilon": [eps], "chosen bound": [chosen]}))),
        file_name="svt_bound_simulated_release.csv",
        mime="text/csv",
        help=export.SIMULATED_HELP,
    )
    right.download_button(
        "The walk (CSV)",
        to_safe_csv(pd.DataFrame({"candidate b": cand, "q_b (exact)": answers, "chosen": cand == chosen})),
        file_name="svt_walk.csv",
        mime="text/csv",
        help="Every candidate with its exact q_b, as on the chart. The q_b are read from the data: never publish them.",
    )
    code = snippets.clipping_bound(state.dataset(), column, float(cand[-1]), cand.size, eps, seed)
    right.download_button("Python snippet", code, file_name="svt_bound_snippet.py", mime="text/x-python")
    with right:
        budget.record_release(PureDP(eps), label=f"SVT clipping bound ε={eps:g} on {column}", key="svt_walk")
    widgets.audit_link("above_threshold", eps, label="Audit AboveThreshold at this ε", sensitivity=QUERY_SENSITIVITY)
    svt_publish.clipping_bound(column, values, cand.size, eps)


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
    grid = np.linspace(sims.error.min(), sims.error.max(), 200)
    left, right = st.columns([1.6, 1])
    left.plotly_chart(
        charts.error_histogram(
            sims.error,
            grid,
            sims.approx_error_pdf(grid),
            f"Error of the automatic mean of {column} (noise only, at the chosen b)",
            x="noisy mean − clipped true mean",
            density_name="delta method",
        ),
        key="svt_mean_hist",
    )
    right.metric("Empirical std of the error", f"{sims.error.std(ddof=1):,.4f}")
    right.metric("Theoretical std (delta method)", f"{sims.approx_error_std():,.4f}")
    right.metric("Median clipping bias", f"{np.median(sims.true_value - sims.unclipped_value):+,.4f}")
    right.download_button(
        export.SIMULATED_RELEASE,
        to_safe_csv(
            export.simulated(
                pd.DataFrame(
                    {"column": [column], "epsilon": [eps], "bound": [one.bound], "noisy_mean": [one.noisy_value]}
                )
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


def range_queries(values: np.ndarray, column: str, eps: float) -> tuple[int, int]:
    c1, c2, c3 = st.columns(3)
    c = c1.slider(
        "c, most positives",
        1,
        10,
        3,
        key="svt_c",
        bind="query-params",
        help="Sparse stops after c queries pass; each of its c rounds runs at ε/(2c), each answer at ε/(2c).",
    )
    share = c2.slider(
        "Threshold T, % of the rows",
        1,
        99,
        25,
        key="svt_threshold",
        bind="query-params",
        help="Queries whose count is above T are the interesting ones. T is public; set as a share of the "
        "row count, which is treated as public here.",
    )
    n_queries = c3.slider(
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
    true, threshold = table["true count"].to_numpy(), table.attrs["threshold"]
    passed_svt, passed_naive = int(table["passed SVT"].sum()), int(table["passed naive"].sum())
    st.plotly_chart(
        charts.answers_against_threshold(
            table["range"],
            true,
            {"SVT answer": table["SVT answer"], "naive answer": table["naive answer"]},
            threshold,
            f"{n_queries} range counts of {column}: which passed",
        ),
        key="svt_ranges",
    )
    scales = svt_noise_scales(n_queries, c, eps)
    svt_err, naive_err = Laplace(scales.answer).error_bound(), Laplace(scales.naive).error_bound()
    a, b, c_ = st.columns(3)
    a.metric("SVT answer noise scale 2c/ε", f"{scales.answer:,.3g}")
    b.metric("Naive answer noise scale n/ε", f"{scales.naive:,.3g}")
    c_.metric("Queries passed: SVT / naive", f"{passed_svt} / {passed_naive}")
    st.markdown(
        f"With 95% probability each SVT answer is within **±{svt_err:,.1f}** of the true count, each naive one within "
        f"**±{naive_err:,.1f}**. SVT found at most c = {c} queries and pays only for those; the naive release answers "
        f"all {n_queries} and keeps those above T. SVT wins whenever 2c < n."
    )
    st.dataframe(
        table,
        hide_index=True,
        key="svt_table",
        column_config={name: st.column_config.NumberColumn(format="%.1f") for name in ("SVT answer", "naive answer")},
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
        to_safe_csv(export.simulated(release)),
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


def render() -> None:
    st.title("Sparse vector technique")
    st.caption("Ask many questions of the form *is this above T?* and pay only for the few answered *yes*.")
    ds = state.dataset()
    columns = widgets.fitting_columns("numeric")
    if not columns:
        return
    c1, c2 = st.columns([1, 1.4])
    with c1:
        column = widgets.select(
            "Numeric column",
            columns,
            "svt_column",
            "The column the three views read; negative values count as 0 when clipping.",
        )
    with c2:
        eps = widgets.epsilon_slider(
            "svt_epsilon", help="The total ε of each release on this page (the walk, the mean, the range queries)."
        )
    values, dropped = numeric_values(ds.frame[column])
    if dropped:
        st.caption(f"{dropped:,} missing values were left out.")
    # only the open tab runs: a slider move recomputes one view, and a link names the view it shows
    tab_walk, tab_mean, tab_ranges = st.tabs(
        ["Choosing a clipping bound", "Automatic mean", "Range queries"], key="svt_view", bind="query-params"
    )
    views = (
        (tab_walk, lambda cand: clipping_walk(values, cand, eps, column)),
        (tab_mean, lambda cand: automatic_mean(values, cand, eps, column)),
    )
    for tab, view in views:
        if tab.open:
            with tab:
                try:
                    view(candidate_bounds(column))
                except ValueError as exc:  # a bad candidate grid stops this view only
                    st.error(f"The candidate bounds cannot be used. {md(plain_sentence(exc))}")
    if tab_ranges.open:
        with tab_ranges:
            n_queries, c = range_queries(values, column, eps)
            explain(n_queries, c, eps)


frame.run_page(render)
