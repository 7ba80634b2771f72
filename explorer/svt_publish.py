"""Sparse vector's Publish sections: a clipping bound, a mean without bounds, range counts (laid out like the page).

What the walk may choose among is declared (the largest candidate bound) or fixed (the 1-2-5 ladder); the range
queries are drawn between declared bounds and compared with a declared threshold in rows, never a share of the
file's row count.
"""

from __future__ import annotations

import streamlit as st

from dpcore import publish
from explorer import domains, publishing, releases, widgets

__all__ = ["clipping_bound", "automatic_mean", "range_counts"]


def _largest(column: str):
    return widgets.bound(
        st.number_input,
        "Declared largest candidate bound (public)",
        min_value=1e-9,
        max_value=1e12,
        value=None,
        key=f"svt_pub_largest_{column}",
        bind="query-params",
        help="The candidates are evenly spaced up to it: from what you know of the data, not from this file.",
    )


def _missing(largest) -> str | None:
    return domains.missing_declarations(largest=largest)


def clipping_bound(column: str, values, n_candidates: int, eps: float) -> None:
    """Publish the clipping bound AboveThreshold chooses among candidates up to a declared largest bound."""
    what = f"a clipping bound for {column}"
    with publishing.section(what):
        largest = _largest(column)
        draw = lambda: publish.publish_clipping_bound(values, largest, n_candidates, eps)  # noqa: E731 - for the log
        publishing.action("svt_pub_walk", what, (eps, 0.0), draw, _missing(largest))


def automatic_mean(column: str, values, n_candidates: int, eps: float) -> None:
    """Publish the automatic mean: the bound chosen among candidates up to a declared largest bound."""
    what = f"the automatic mean of {column}"
    with publishing.section(what):
        largest = _largest(column)
        draw = lambda: publish.publish_automatic_mean(values, largest, n_candidates, eps)  # noqa: E731
        publishing.action("svt_pub_mean", what, (eps, 0.0), draw, _missing(largest))


def range_counts(column: str, values, n_queries: int, c: int, eps: float, seed) -> None:
    """Publish range counts above a declared threshold, the ranges drawn between declared bounds."""
    what = f"range counts of {column}"
    with publishing.section(what):
        c1, c2, c3 = st.columns(3)
        lower = widgets.bound(
            c1.number_input,
            "Declared lower end of the ranges",
            value=None,
            key=f"svt_pub_lower_{column}",
            bind="query-params",
        )
        upper = widgets.bound(
            c2.number_input,
            "Declared upper end of the ranges",
            value=None,
            key=f"svt_pub_upper_{column}",
            bind="query-params",
        )
        threshold = widgets.bound(
            c3.number_input,
            "Declared threshold (rows)",
            min_value=0.0,
            max_value=1e12,
            value=None,
            key=f"svt_pub_threshold_{column}",
            bind="query-params",
            help="A number of rows fixed in advance (not a share of this file's rows, which would read the data).",
        )
        missing = domains.missing_declarations(lower=lower, upper=upper, threshold=threshold)
        if missing is None and not lower < upper:
            missing = "To publish, declare a lower end below the upper end."
        draw = lambda: publish.publish_range_counts(  # noqa: E731
            values, releases.random_ranges(lower, upper, n_queries, seed), threshold, c, eps
        )
        publishing.action("svt_pub_ranges", what, (eps, 0.0), draw, missing)
