"""Local DP's Publish sections: the estimate from reports randomized with secure bits (laid out like the page).

Publishing a local estimate here plays every device's part at once: each person's value (from the uploaded
file) is randomized with the operating system's secure generator, exactly as their device would, and only the
aggregator's estimate is published. The categories or bounds are declared; the number of reports is public
under the local model's relation (replace one record).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dpcore import publish
from dpcore.families import Family
from dpcore.neighbours import REPLACE_ONE
from explorer import domains, publishing, widgets

__all__ = ["counts", "mean"]


def counts(column: str, series, oracle: Family, eps: float, valid_histogram: bool) -> None:
    """Publish the counts of a categorical column estimated from local reports by ``oracle`` (a local family)."""
    what = f"the {oracle.name} estimate of the counts of {column}"
    with publishing.section(what):
        text = st.text_area(  # any text is taken: a list a link carries is never refused
            "Declared categories (public), one per line",
            key=f"ldp_pub_domain_{column}",
            bind="query-params",
            help="Every value a person could report, from a codebook: each device reports one of them (or (other)).",
        )
        try:
            domain = domains.parse_domain(text) or None
        except ValueError as exc:
            st.warning(str(exc)[0].upper() + str(exc)[1:] + ".")
            domain = None
        st.caption(
            "Every person reports, so that the number of reports is the number of rows (public under replace one "
            "record): a value outside the list, or a missing one, reports (other)."
        )
        draw = lambda: publish.publish_local_counts(  # noqa: E731 - the draw, for the log
            domains.encode_in_domain(series, domain, True, every_row=True),
            domain,
            oracle.key,
            eps,
            valid_histogram=valid_histogram,
        )
        publishing.action(
            "ldp_pub", what, (eps, 0.0), draw, domains.missing_declarations(domain=domain), relation=REPLACE_ONE
        )


def mean(column: str, series, eps: float) -> None:
    """Publish the local estimate of a numeric column's mean between declared bounds."""
    what = f"the local estimate of the mean of {column}"
    values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)  # missing ones report the midpoint
    with publishing.section(what):
        c1, c2 = st.columns(2)
        # through widgets.bound, as every URL-bound input: a link's refused value is named by its label
        lower = widgets.bound(
            c1.number_input,
            "Declared lower bound (public)",
            value=None,
            key=f"ldpm_pub_lower_{column}",
            help="From what you know of the data (a questionnaire's range, a law, a plan), never from this file.",
        )
        upper = widgets.bound(
            c2.number_input,
            "Declared upper bound (public)",
            value=None,
            key=f"ldpm_pub_upper_{column}",
            help="Each value is clipped to the declared bounds on its device before it is randomized.",
        )
        draw = lambda: publish.publish_local_mean(values, lower, upper, eps)  # noqa: E731
        publishing.action(
            "ldpm_pub",
            what,
            (eps, 0.0),
            draw,
            domains.missing_declarations(lower=lower, upper=upper),
            relation=REPLACE_ONE,
        )
