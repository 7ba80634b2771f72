"""Sparse vector technique: test many queries against a threshold, pay only for the ones above it.

Three uses of ``dpcore.svt`` on one numeric column: the clipping-bound walk
(AboveThreshold over candidate bounds, against the naive Lap(k/ε) version), the
automatic mean (a third of ε each to the bound, the sum and the count), and
random range queries (Sparse picks at most c of them, against answering all).

This script keeps what the views share (the column, ε, and the candidate bounds of the first two) and the switch
between the views. Each view lays itself out in its own module of the app package: ``explorer.svt_clipping_bound``,
``explorer.svt_automatic_mean`` and ``explorer.svt_range_queries``; their Publish sections are in
``explorer.svt_publish``.
"""

import numpy as np
import streamlit as st

from dpcore.clipping import evenly_spaced_candidates
from explorer import frame, state, svt_automatic_mean, svt_clipping_bound, svt_range_queries, widgets
from explorer.columns import numeric_values, suggest_bounds
from explorer.markup import md, plain_sentence

N_CANDIDATES = 100


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
    largest = widgets.bound(
        st.number_input,
        "Largest candidate bound",
        max_value=1e12,
        key="svt_max_bound",
        bind="query-params",
        **given,
        help=f"The walk tries {N_CANDIDATES} evenly spaced bounds b up to this one. The default (about twice the data's "
        "99th percentile) is read from the data, so it is not private: fix it from domain knowledge in a real release.",
    )
    return evenly_spaced_candidates(largest, N_CANDIDATES)


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
    tab_walk, tab_mean, tab_ranges = widgets.tabs(
        ["Choosing a clipping bound", "Automatic mean", "Range queries"], "svt_view"
    )
    views = (
        (tab_walk, lambda cand: svt_clipping_bound.clipping_walk(values, cand, eps, column)),
        (tab_mean, lambda cand: svt_automatic_mean.automatic_mean(values, cand, eps, column)),
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
            n_queries, c = svt_range_queries.range_queries(values, column, eps)
            svt_range_queries.explain(n_queries, c, eps)


frame.run_page(render)
