"""The Central DP page's views of counts: how many rows meet a condition chosen from a list (``cen_where_*``), or two
at once (``cen_where_and``, ``cen_where2_*``), and the count of every category of a categorical column
(``cen_category_column``).

Their releases are :func:`explorer.releases.count_matching` and :func:`explorer.releases.category_counts` (on a
lattice) for a family dpcore publishes; their rows of :data:`explorer.central_layout.QUERIES` say which dpcore
function answers them otherwise.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from explorer import central_publish, domains, full_file, releases, snippets, state, widgets
from explorer.central_layout import (
    QUERIES,
    SALT,
    accuracy_popover,
    compare,
    compared_releases,
    error_curves,
    reference_release,
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


def _condition(frame_, columns: list[str], prefix: str, first: bool):
    """One condition's column, comparison and value (keys ``<prefix>_column``, ``<prefix>_condition``,
    ``<prefix>_value_<column>``): chosen from lists, or a number typed; nothing typed is evaluated."""
    c1, c2, c3 = st.columns([1, 0.7, 1])
    with c1:
        column = widgets.select(
            "Column" if first else "and column",
            columns,
            f"{prefix}_column",
            "Count the rows whose value meets a condition." if first else "The second condition must hold too.",
        )
    series = frame_[column]
    numeric = is_numeric(series)
    with c2:
        condition = widgets.select(
            "Condition",
            NUMBER_CONDITIONS if numeric else TEXT_CONDITIONS,
            f"{prefix}_condition",
            "Chosen from a list: nothing typed is evaluated.",
        )
    with c3:
        if numeric:
            lo, hi = suggest_bounds(series)
            value = widgets.bound(
                st.number_input,
                "Value",
                value=float(np.round((lo + hi) / 2, 1)),
                key=f"{prefix}_value_{column}",
                bind="query-params",
                help="The condition is public: fix it before looking at the data.",
            )
        else:
            _, labels, _ = state.encoded(column)
            offered = [v for v in labels if v not in (OTHER_LABEL, MISSING_LABEL)]
            value = widgets.select("Value", offered, f"{prefix}_value_{column}", "One of the column's values.")
    return column, series, condition, value


def condition_view(label: str, controls) -> None:
    """The count of the rows whose value meets a condition, or two at once (both must hold: one count, one noise);
    ``controls`` lays out the page's noise, ε and δ."""
    q = QUERIES[label]
    frame_ = state.dataset().frame
    columns = [c for c in frame_.columns if c in set(state.categorical_columns()) | set(state.numeric_columns())]
    if not columns:
        st.info("This dataset has no column to count with a condition; upload one on the Data page.")
        return
    column, series, condition, value = _condition(frame_, columns, "cen_where", True)
    both = widgets.bound(
        st.checkbox,
        "And a second condition",
        key="cen_where_and",
        bind="query-params",
        help="Count the rows where both hold: still one count, of sensitivity 1 (a row meets both or not).",
    )
    second = _condition(frame_, columns, "cen_where2", False) if both else None
    c2, slot, c4 = st.columns([1, 1.6, 1.2])
    family, eps, delta = controls(c2, slot, c4)
    masks = [condition_mask(series, condition, value)]
    words = f"{column} {condition} {value}"
    if second:
        masks.append(condition_mask(second[1], second[2], second[3]))
        words += f" and {second[0]} {second[2]} {second[3]}"
    mask = np.logical_and.reduce(masks)
    seed = state.seed_words(SALT)

    def released():  # the snippet's function: one condition, or every one of them
        if second:
            return releases.count_matching_all(masks, eps, seed, family.key, delta)
        return releases.count_matching(mask, eps, seed, family.key, delta)

    result = simulated_release(q, family, released, mask, eps, delta, seed)
    ds = state.dataset()
    conditions = [(column, condition, value)] + ([(second[0], second[2], second[3])] if second else [])
    whole = full_file.whole_matching(ds, conditions) if ds.sampled else None
    if isinstance(whole, str):
        st.caption(full_file.sample_words(ds, whole))
        whole = None
    elif whole:  # the same release on the whole file's count, its seeded noise around it
        st.caption(full_file.rows_words(ds, whole))
        result = full_file.drawn(full_file.on_whole(result, whole), seed, family.lattice)
    with slot:
        accuracy_popover(q, family, delta, result)
    words_of = (second[0], second[2], second[3]) if second else None
    code = (  # a snippet redraws the release from a table in memory: none for the count over the whole file
        snippets.count_matching(ds, column, condition, value, eps, seed, family.key, delta, words_of)
        if family.lattice and not whole
        else None
    )
    show_release(q, family, words, result, code, reference=reference_release(q, family, mask, delta))
    central_publish.condition_count(column, series, condition, family, eps, delta, second=second)
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
    ds = state.dataset()
    whole = full_file.whole_categories(ds, column, labels) if ds.sampled else None
    if isinstance(whole, str):
        st.caption(full_file.sample_words(ds, whole))
        whole = None
    elif whole:  # the same release on the whole file's counts of these categories, its seeded noise around them
        st.caption(full_file.rows_words(ds, whole))
        result = full_file.drawn(full_file.on_whole(result, whole), seed, family.lattice)
    with slot:
        accuracy_popover(q, family, delta, result)
    st.caption(
        "The same column can be released locally (Local DP page) and centrally (here): the Compare page sets "
        "them side by side at one ε."
    )
    # a snippet redraws the release from a table in memory: none for the counts over the whole file
    code = snippets.category_counts(ds, column, eps, seed, family.key, delta) if family.lattice and not whole else None
    reference = reference_release(q, family, codes, delta, k=len(labels))
    show_release(q, family, column, result, code, labels=labels, reference=reference)
    central_publish.category_counts(column, state.dataset().frame[column], family, eps, delta)
    compared = compared_releases(q, family, result, codes, eps, delta, k=len(labels))
    compare(q, eps, delta, compared, error_curves(q, compared, None, delta))
