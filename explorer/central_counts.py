"""The Central DP page's views of counts: how many rows meet a condition chosen from a list (``cen_where_*``), and
the count of every category of a categorical column (``cen_category_column``).

Their releases are :func:`explorer.releases.count_matching` and :func:`explorer.releases.category_counts` (on a
lattice) for a family dpcore publishes; their rows of :data:`explorer.central_layout.QUERIES` say which dpcore
function answers them otherwise.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from explorer import central_publish, domains, releases, snippets, state, widgets
from explorer.central_layout import (
    QUERIES,
    SALT,
    accuracy_popover,
    compare,
    compared_releases,
    error_curves,
    show_release,
    simulated_release,
)
from explorer.columns import (
    MISSING_LABEL,
    NUMBER_CONDITIONS,
    OTHER_LABEL,
    TEXT_CONDITIONS,
    condition_mask,
    is_numeric,
    suggest_bounds,
)
from explorer.markup import md

__all__ = ["condition_view", "categories_view"]


def condition_view(label: str, controls) -> None:
    """The count of the rows whose value meets a condition; ``controls`` lays out the page's noise, ε and δ."""
    q = QUERIES[label]
    frame_ = state.dataset().frame
    columns = [c for c in frame_.columns if c in set(state.categorical_columns()) | set(state.numeric_columns())]
    if not columns:
        st.info("This dataset has no column to count with a condition; upload one on the Data page.")
        return
    c1, c2, c3 = st.columns([1, 0.7, 1])
    with c1:
        column = widgets.select("Column", columns, "cen_where_column", "Count the rows whose value meets a condition.")
    series = frame_[column]
    numeric = is_numeric(series)
    with c2:
        condition = widgets.select(
            "Condition",
            NUMBER_CONDITIONS if numeric else TEXT_CONDITIONS,
            "cen_where_condition",
            "Chosen from a list: nothing typed is evaluated.",
        )
    with c3:
        if numeric:
            lo, hi = suggest_bounds(series)
            value = widgets.bound(
                st.number_input,
                "Value",
                value=float(np.round((lo + hi) / 2, 1)),
                key=f"cen_where_value_{column}",
                bind="query-params",
                help="The condition is public: fix it before looking at the data.",
            )
        else:
            _, labels, _ = state.encoded(column)
            offered = [v for v in labels if v not in (OTHER_LABEL, MISSING_LABEL)]
            value = widgets.select("Value", offered, f"cen_where_value_{column}", "One of the column's values.")
    c2, slot, c4 = st.columns([1, 1.6, 1.2])
    family, eps, delta = controls(c2, slot, c4)
    mask = condition_mask(series, condition, value)
    seed = state.seed_words(SALT)
    result = simulated_release(
        q, family, lambda: releases.count_matching(mask, eps, seed, family.key, delta), mask, eps, delta, seed
    )
    with slot:
        accuracy_popover(q, family, delta, result)
    words = f"{column} {condition} {value}"
    code = (
        snippets.count_matching(state.dataset(), column, condition, value, eps, seed, family.key, delta)
        if family.lattice
        else None
    )
    show_release(q, family, words, result, code)
    central_publish.condition_count(column, series, condition, family, eps, delta)
    compared = compared_releases(q, family, result, mask, eps, delta)
    compare(q, eps, delta, compared, error_curves(q, compared, None, delta))


def categories_view(label: str, controls) -> None:
    """The count of every category of a column; ``controls`` lays out the page's noise, ε and δ."""
    q = QUERIES[label]
    columns = widgets.fitting_columns("categorical")
    if not columns:
        return
    c1, _ = st.columns([1, 2.8])
    with c1:
        column = widgets.select(
            "Categorical column", columns, "cen_category_column", "Every category's count gets the noise of one count."
        )
    c2, slot, c4 = st.columns([1, 1.6, 1.2])
    family, eps, delta = controls(c2, slot, c4)
    codes, labels, note = state.encoded(column)
    st.caption(domains.FROM_THE_DATA)
    if note:
        st.caption(md(note))
    seed = state.seed_words(SALT)
    result = simulated_release(
        q,
        family,
        lambda: releases.category_counts(codes, labels, eps, seed, family.key, delta),
        codes,
        eps,
        delta,
        seed,
        k=len(labels),
    )
    with slot:
        accuracy_popover(q, family, delta, result)
    st.caption(
        "The same column can be released locally (Local DP page) and centrally (here): the Compare page sets "
        "them side by side at one ε."
    )
    code = snippets.category_counts(state.dataset(), column, eps, seed, family.key, delta) if family.lattice else None
    show_release(q, family, column, result, code, labels=labels)
    central_publish.category_counts(column, state.dataset().frame[column], family, eps, delta)
    compared = compared_releases(q, family, result, codes, eps, delta, k=len(labels))
    compare(q, eps, delta, compared, error_curves(q, compared, None, delta))
