"""People page, first view: rows per person, and the bias of a contribution bound against the noise it needs.

Every number is computed by :mod:`dpcore.bound_tradeoff` (the exact bias, sampling spread and noise of keeping at
most m rows per person, for every m) and :mod:`dpcore.contributions`; this module lays them out. The curve is read
from everybody's rows, so choosing m by looking at it is not private: the Publish section chooses m privately
(:func:`dpcore.bound_tradeoff.publish_private_bound`), charged to the publication log before it is shown.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.bound_tradeoff import count_tradeoff, mean_tradeoff, publish_private_bound, sum_tradeoff
from dpcore.neighbours import ADD_REMOVE, UNIT_PERSON
from explorer import charts, publishing, state, unit, widgets
from explorer.columns import suggest_bounds
from explorer.markup import md, plain_sentence

QUERIES = ("Count of rows", "Sum of a numeric column", "Mean of a numeric column")
#: The largest clipping bound a user may declare (a sum's noise for m rows of it stays a finite number).
LARGEST = 1e12
#: The first option of the page's identifier picker: no column chosen (the page says what an identifier is, and stops).
CHOOSE = "(choose a column)"


def unit_words(column: str) -> str:
    """The neighbouring relation of every release on the page, in words."""
    return f"{ADD_REMOVE.words(UNIT_PERSON)}, all the rows with one value of {column}"


def person_column(series: pd.Series, column: str) -> np.ndarray | None:
    """Each row's person as a small integer code, or None after one sentence saying why not (:mod:`explorer.unit`'s
    rule, the same codes the declared unit uses)."""
    return unit.column_persons(column)


#: The rows-per-person chart's count axis is logarithmic only when its largest bar is over this many times its
#: smallest (a linear axis would flatten the small ones); its lower end is then below 1, so a bar of 1 person shows.
LOG_SPAN = 100
LOG_FLOOR = 0.5


def rows_histogram(rows: np.ndarray) -> object:
    """Bars: how many persons have each number of rows. A linear count axis, or a log one from
    :data:`LOG_FLOOR` when the counts span more than :data:`LOG_SPAN` times (on a log axis starting at 1 a bar of
    one person had no height: Adult's ages with one row each were invisible)."""
    sizes, persons = np.unique(rows, return_counts=True)
    trace = {
        "type": "bar",
        "x": sizes,
        "y": persons,
        "name": "persons",
        "marker": {"color": charts.NOISY},
        "hovertemplate": charts.Hover(charts.Field("y"), " persons with ", charts.Field("x"), " rows"),
    }
    log = persons.max() > LOG_SPAN * persons.min()
    yaxis = (
        {
            "type": "log",
            "exponentformat": "power",
            "dtick": 1,
            "range": [np.log10(LOG_FLOOR), np.log10(persons.max()) + 0.1],
        }
        if log
        else {"rangemode": "tozero"} | ({"dtick": 1} if persons.max() <= 5 else {})  # whole persons, no 0.5 tick
    )
    return charts._figure(
        [trace],
        "Rows per person (exact, not private)",
        "rows of one person",
        "persons (log scale)" if log else "persons",
        height=380,
        xaxis={"dtick": 1} if sizes.max() - sizes.min() <= 10 else None,  # whole rows (one bar read 0.6 to 1.4)
        yaxis=yaxis,
        showlegend=False,
    )


def _query(persons: np.ndarray) -> tuple[str, tuple] | None:
    """The query the curve is about: ``("count", ())``, or ``("sum", …)`` / ``("mean", …)`` with ``(values, finite,
    lower, upper, column, split)`` (the mean's share of ε for the sum; None for a sum)."""
    c1, c2, c3, c4 = st.columns([1.3, 1.2, 1, 1])
    query = widgets.bound(
        c1.radio, "Query", QUERIES, key="ppl_query", help="What is released about the people: rows, a sum or a mean."
    )
    if query == QUERIES[0]:
        return "count", ()
    numeric = state.numeric_columns()
    if not numeric:
        st.info("This table has no numeric column to sum or average; the count of rows is shown instead.")
        return "count", ()
    with c2:
        column = widgets.select("Numeric column", numeric, "ppl_value", "The column summed over the kept rows.")
    lo, hi = suggest_bounds(state.dataset().frame[column])
    lower = widgets.bound(
        c3.number_input, "Declared lower bound", value=float(min(lo, 0.0)), key=f"ppl_lower_{column}",
        min_value=-LARGEST, max_value=LARGEST,
        help="Each value is clipped to the declared bounds (the default is read from the data: not private).",
    )  # fmt: skip
    upper = widgets.bound(
        c4.number_input, "Declared upper bound", value=float(hi), key=f"ppl_upper_{column}",
        min_value=-LARGEST, max_value=LARGEST,
        help="Each value is clipped to the declared bounds (the default is read from the data: not private).",
    )  # fmt: skip
    split = None
    if query == QUERIES[2]:
        split = widgets.bound(
            st.slider, "Share of ε for the sum", 0.05, 0.95, 0.5, 0.05, key="ppl_split",
            help="The mean is a noisy sum over a noisy count of the same kept rows; the rest of ε goes to the count.",
        )  # fmt: skip
    values = pd.to_numeric(state.dataset().frame[column], errors="coerce").to_numpy(dtype=float)
    finite = np.isfinite(values)
    if not finite.all():
        st.caption(f"{int((~finite).sum()):,} rows with no number in {md(column)} are left out.")
    kind = "sum" if split is None else "mean"
    return kind, (values[finite], finite, float(lower), float(upper), column, split)


def tradeoff_view(persons: np.ndarray, column: str) -> None:
    """Rows per person, the bias/noise curve against the bound m, and the Publish section."""
    rows = state.per_dataset(f"ppl_rows_{column}", lambda: np.bincount(persons))
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Persons", f"{rows.size:,}")
    c2.metric("Rows", f"{int(rows.sum()):,}")
    c3.metric("Median rows per person", f"{np.median(rows):g}")
    c4.metric("Most rows of one person", f"{int(rows.max()):,}")
    st.plotly_chart(rows_histogram(rows), key="ppl_rows_chart")
    st.caption("Exact counts from the data, not private: shown to understand the trade-off below, not to be published.")
    eps = widgets.epsilon_slider("ppl_epsilon", help="The ε of the count or sum released with at most m rows a person.")
    kind, args = _query(persons)
    try:
        if kind == "count":
            tradeoff = count_tradeoff(persons, eps)
            what = "count of rows"
        elif kind == "sum":
            values, finite, lower, upper, value_column, _ = args
            tradeoff = sum_tradeoff(persons[finite], values, lower, upper, eps)
            what = f"sum of {value_column}"
        else:
            values, finite, lower, upper, value_column, split = args
            tradeoff = mean_tradeoff(persons[finite], values, lower, upper, eps, split=split)
            what = f"mean of {value_column}"
    except ValueError as exc:
        st.warning(f"The trade-off cannot be computed: {md(plain_sentence(exc))}")
        return
    best = tradeoff.best_index
    if tradeoff.bounds.size == 1:  # every person has one row: one bound, no curve to draw
        st.markdown(
            f"Every person has one row, so the only bound is **m = {tradeoff.bounds[0]:,}**, which keeps every row: "
            f"the {md(what)} has total error {tradeoff.rmse[0]:,.4g} (bias {tradeoff.bias[0]:,.4g}, noise std "
            f"{tradeoff.noise_std[0]:,.4g}), and no curve of error against m to draw."
        )
        publish_section(persons, column)
        return
    total = "total error (RMSE)"
    noise = "noise std (first-order, sum over count)" if kind == "mean" else "noise std"
    series = {
        "|bias| (rows dropped)": (tradeoff.bounds, np.abs(tradeoff.bias)),
        noise: (tradeoff.bounds, tradeoff.noise_std),
        total: (tradeoff.bounds, tradeoff.rmse),
    }
    if kind != "count":
        series["sampling std (which rows are kept)"] = (tradeoff.bounds, tradeoff.sampling_std)
    figure = charts.xy_curves(
        series,
        current=float(tradeoff.bounds[best]),
        title=f"Error of the {what} against the bound m (Laplace noise, ε = {eps:g})",
        x_title="m, rows kept per person (log scale)",
        y_title="error (log scale)",
        log_x=True,
        log_y=True,
        current_label=f"smallest error: m = {tradeoff.bounds[best]:,}",
        dashed=(total,),  # the total lies on the bias where the bias dominates: dashed, the bias shows through
    )
    st.plotly_chart(figure, key="ppl_tradeoff_chart")
    st.markdown(
        f"With at most **m = {tradeoff.bounds[best]:,}** rows per person the {md(what)} has its smallest total error, "
        f"{tradeoff.rmse[best]:,.4g} (bias {tradeoff.bias[best]:,.4g}, noise std {tradeoff.noise_std[best]:,.4g}). "
        "A small m drops the rows of the people with many (bias); a large m needs noise for m rows' worth of one "
        "person (Amin et al. 2019)."
    )
    st.warning(
        "Choosing m by looking at this curve is not private: the curve is computed from everybody's rows, and the "
        "m it marks tells something about the people with the most rows. Choose m from domain knowledge, or "
        "privately below."
    )
    publish_section(persons, column)


def publish_section(persons: np.ndarray, column: str) -> None:
    """A private choice of m: a DP quantile of the rows per person, charged to the log before it is shown."""
    what = f"a bound on rows per person ({column})"
    with publishing.section(what):
        st.markdown(
            "The bound m is the q-quantile of the rows per person, drawn by the exponential mechanism over the "
            "declared range [1, largest bound]: each person is one value of that table, so the ε holds for persons."
        )
        c1, c2 = st.columns(2)
        q = widgets.bound(
            c1.number_input, "Quantile q of rows per person", min_value=0.5, max_value=0.99, value=0.9, step=0.01,
            key="ppl_pub_q", help="m keeps all the rows of this share of the persons.",
        )  # fmt: skip
        largest = widgets.whole_number(
            "Declared largest bound", 2, 100_000, 1_000, "ppl_pub_max",
            "Declared, not read from the data: the exponential mechanism chooses m in [1, this].", c2,
        )  # fmt: skip
        eps = widgets.epsilon_slider("ppl_pub_epsilon", "ε of the bound", default=0.5)
        draw = lambda: publish_private_bound(persons, eps, q=q, max_bound=largest, identifier=column)  # noqa: E731
        publishing.action("ppl_pub_bound", what, (eps, 0.0), draw, None, ADD_REMOVE, UNIT_PERSON)
