"""The Central DP page's views of tables: a two-way table of two categorical columns (``cen_table_rows``,
``cen_table_columns``) and the counts per year or month of a column of dates (``cen_date_column``, ``cen_period``,
the range of years ``cen_first_year_<column>``/``cen_last_year_<column>``).

Both are histograms (every cell or period gets the noise of one count, :func:`dpcore.queries.dp_two_way_table`,
:func:`dpcore.queries.dp_category_counts`); their releases are :func:`explorer.releases.two_way_table` and
:func:`explorer.releases.category_counts` (on a lattice) for a family dpcore publishes. The simulation's keys are
read from the data (said on the page); a publication's are declared in its Publish section.
"""

from __future__ import annotations

import streamlit as st

from explorer import central_publish, columns, domains, releases, snippets, state, widgets
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
from explorer.markup import md, plain_sentence

__all__ = ["two_way_view", "periods_view"]

#: The most cells the simulation shows (every one a count): 50 categories by 50.
MAX_CELLS = 2_500


def two_way_view(label: str, controls) -> None:
    """The count of every pair of two categorical columns; ``controls`` lays out the page's noise, ε and δ."""
    q = QUERIES[label]
    found = widgets.fitting_columns("categorical")
    if len(found) < 2:
        if found:
            st.info("A two-way table needs two categorical columns; this dataset has one.")
        return
    c1, c2, _ = st.columns([1, 1, 1.8])
    with c1:
        rows = widgets.select("Rows", found, "cen_table_rows", "The categories of the table's rows.")
    with c2:
        others = [c for c in found if c != rows]
        cols = widgets.select("Columns", others, "cen_table_columns", "The categories of the table's columns.")
    c2, slot, c4 = st.columns([1, 1.6, 1.2])
    family, eps, delta = controls(c2, slot, c4)
    row_codes, row_labels, _ = state.encoded(rows)
    column_codes, column_labels, _ = state.encoded(cols)
    shape = (len(row_labels), len(column_labels))
    st.caption(domains.FROM_THE_DATA)
    pair = (row_codes, column_codes)
    seed = state.seed_words(SALT)
    result = simulated_release(
        q,
        family,
        lambda: releases.two_way_table(row_codes, column_codes, shape, eps, seed, family.key, delta),
        pair,
        eps,
        delta,
        seed,
        shape=shape,
    )
    with slot:
        accuracy_popover(q, family, delta, result)
    labels = [f"{r} × {c}" for r in row_labels for c in column_labels]
    code = snippets.two_way_table(state.dataset(), rows, cols, eps, seed, family.key, delta) if family.lattice else None
    reference = reference_release(q, family, pair, delta, shape=shape)
    words = f"{rows} by {cols}"
    show_release(
        q,
        family,
        words,
        result,
        code,
        labels=labels,
        reference=reference,
        name="cell",
        grid=(row_labels, column_labels),
    )
    central_publish.two_way_table(rows, cols, state.dataset().frame, family, eps, delta)
    compared = compared_releases(q, family, result, pair, eps, delta, shape=shape)
    compare(q, eps, delta, compared, error_curves(q, compared, None, delta))


def _years(column: str, dates) -> tuple[int, int]:
    """The range of years counted: two numbers bound to the link, by default the years of the data (not private)."""
    present = dates.dropna()
    lo, hi = (int(present.dt.year.min()), int(present.dt.year.max())) if not present.empty else (2000, 2000)
    b1, b2, _ = st.columns([1, 1, 1.8])
    first, last = (
        widgets.bound(
            box.number_input,
            f"{word.capitalize()} year",
            min_value=1,
            max_value=9999,
            value=default,
            step=1,
            key=f"cen_{word}_year_{column}",
            bind="query-params",
            help="Every period from the first year to the last is counted, empty ones too; dates outside are left out.",
        )
        for box, word, default in ((b1, "first", lo), (b2, "last", hi))
    )
    st.caption(
        f"The default years ({lo}–{hi}) are the first and last of the column: read from the data, they are not "
        "private. A publication declares its years (the Publish section below asks for them)."
    )
    return int(first), int(last)


def periods_view(label: str, controls) -> None:
    """The count of the rows per year or per month of a column of dates; ``controls`` lays out the noise, ε and δ."""
    q = QUERIES[label]
    frame = state.dataset().frame
    found = state.per_dataset("date_columns", lambda: columns.date_columns(frame))
    if not found:
        st.info(
            "This dataset has no column of dates (such as 2024-01-31, 2024/01/31, 31/01/2024 or 31.01.2024); "
            "upload one on the Data page."
        )
        return
    c1, c2, _ = st.columns([1, 1, 1.8])
    with c1:
        column = widgets.select("Date column", found, "cen_date_column", "Text read as dates, one format per column.")
    with c2:
        period = widgets.select("Count per", columns.PERIODS, "cen_period", "A count for every year or every month.")
    dates = state.per_dataset(f"dates_{column}", lambda: columns.parse_dates(frame[column]))
    first, last = _years(column, dates)
    c2, slot, c4 = st.columns([1, 1.6, 1.2])
    family, eps, delta = controls(c2, slot, c4)
    try:
        codes, labels = columns.period_codes(dates, period, first, last)
        if len(labels) > domains.MAX_DOMAIN:
            raise ValueError(f"the periods must be at most {domains.MAX_DOMAIN:,}, got {len(labels):,}")
    except ValueError as exc:
        st.error(f"These years cannot be counted. {md(plain_sentence(exc))}")
        return
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
    code = (
        snippets.period_counts(state.dataset(), column, period, first, last, eps, seed, family.key, delta)
        if family.lattice
        else None
    )
    reference = reference_release(q, family, codes, delta, k=len(labels))
    show_release(q, family, column, result, code, labels=labels, reference=reference, name=period)
    central_publish.period_counts(column, dates, period, family, eps, delta)
    compared = compared_releases(q, family, result, codes, eps, delta, k=len(labels))
    compare(q, eps, delta, compared, error_curves(q, compared, None, delta))
