"""Central DP's Publish sections: each view's statistic published with declared facts (laid out like the page).

Each function opens :func:`explorer.publishing.section`, asks for what the publication must not take
from the data (bounds, categories, the value of a condition), and hands :func:`explorer.publishing.action`
the cost (known before the draw, the family's (ε, δ): :meth:`dpcore.families.Family.privacy`) and the draw, a call
to :mod:`dpcore.publish`. Bounds and categories typed here are public by declaration; the simulation's defaults
above, read from the file, are not used. :mod:`dpcore.publish` draws every released number on an exact lattice, so
a family without one (``Family.lattice`` is None: the staircase) is simulated on the page and not published here.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpcore import families, publish
from dpcore.families import Family
from dpcore.plan import Plan, Statistic, allocate
from dpcore.plan_release import publish_plan
from explorer import domains, publishing, widgets
from explorer.columns import condition_mask, is_numeric, numeric_values, period_codes
from explorer.markup import md, plain_sentence

__all__ = [
    "numeric_query",
    "person_query",
    "condition_count",
    "category_counts",
    "two_way_table",
    "period_counts",
    "most_common",
    "quantile",
]


def _not_published(family: Family, what: str) -> bool:
    """Say so, in one sentence, when ``family`` is simulated here and not published (it has no exact lattice)."""
    if family.lattice:
        return False
    # the published family of the same kind of guarantee (pure ε-DP for the staircase: Laplace)
    instead = next(f for f in families.central() if f.lattice and f.takes_delta == family.takes_delta)
    st.info(
        f"The {family.name.lower()} mechanism is simulated here and not published: to publish {md(what)}, "
        f"choose {instead.name} noise."
    )
    return True


def _bounds(column: str) -> tuple[float | None, float | None]:
    c1, c2 = st.columns(2)
    lower = widgets.bound(
        c1.number_input,
        "Declared lower bound (public)",
        value=None,
        key=f"cen_pub_lower_{column}",
        bind="query-params",
        help="From what you know of the data (a questionnaire's range, a law, a plan), never from this file.",
    )
    upper = widgets.bound(
        c2.number_input,
        "Declared upper bound (public)",
        value=None,
        key=f"cen_pub_upper_{column}",
        bind="query-params",
        help="Values outside the declared bounds are clipped to them before the noise is added.",
    )
    return lower, upper


def numeric_query(q, column: str, series, family: Family, eps: float, delta: float, settings: dict) -> None:
    """Publish a count, sum, mean or histogram of a numeric column (``q``, its row of the page's queries).

    The bounds are declared here; the number of bins and the mean's split are the view's ``settings``.
    """
    what = f"the {q.label.lower()} of {column}"
    values, _ = numeric_values(series)
    with publishing.section(what):
        if _not_published(family, what):
            return
        declared = _declared(q, column)
        if q.plan:
            _plan_mean(column, declared, family, delta, settings.get("split", 0.5), eps)
        chosen = {k: v for k, v in settings.items() if k not in declared}  # the bins or the split
        options = {"mechanism": family.key, "delta": family.delta(delta)}
        draw = lambda: q.publish(values, eps, **declared, **chosen, **options)  # noqa: E731 - the draw, for the log
        missing = domains.missing_declarations(**declared)
        publishing.action("cen_pub", what, family.privacy(eps, delta), draw, missing)


def _declared(q, column: str) -> dict:
    """The clipping bounds the publication of ``q`` needs, declared by the user (none for a count)."""
    declared = {}
    if "lower" in q.settings:
        declared["lower"], declared["upper"] = _bounds(column)
    return declared


def person_query(q, column: str, frame, unit, family: Family, eps: float, delta: float, settings: dict) -> None:
    """Publish a count, sum, mean or histogram under a person unit: a plan of one statistic (:mod:`dpcore.plan`).

    :func:`dpcore.plan_release.publish_plan` bounds each person's rows with a
    :class:`~dpcore.randomness.SecureGenerator` (m rows; a histogram one bin of at most m rows), draws the noise on a
    lattice, and labels the release add/remove one person; its cost, the plan's total, is known before the draw.
    """
    what = f"the {q.label.lower()} of {column} per person"
    with publishing.section(what):
        if _not_published(family, what):
            return
        declared = _declared(q, column)
        missing = domains.missing_declarations(**declared)
        allocation = None
        if missing is None:
            statistic = Statistic(
                name=f"{q.label.lower()} of {column}",
                kind=q.key,
                column=column,
                bins=settings.get("bins"),
                split=settings.get("split", 0.5),
                mechanism=family.key,
                **declared,
            )
            try:
                allocation = allocate(Plan((statistic,), unit, eps, family.delta(delta) or 0.0))
            except ValueError as exc:
                missing = plain_sentence(exc)
        st.caption(
            "Each person's rows are bounded by a secure draw (never the seed), so the published numbers differ from "
            "the simulation above by the sampling as well as the noise."
        )
        cost = (allocation.epsilon, allocation.delta) if allocation is not None else family.privacy(eps, delta)

        def draw():  # the plan's one statistic, published under add/remove one person
            return list(publish_plan(allocation, frame).releases)

        publishing.action("cen_pub", what, cost, draw, missing, unit.relation, unit.unit)


def _person_plan(statistic, unit, family: Family, eps: float, delta: float):
    """``(allocation, sentence)``: the plan of one statistic under the person ``unit`` (:func:`dpcore.plan.allocate`),
    or None and the one sentence saying why it cannot be made."""
    try:
        return allocate(Plan((statistic(),), unit, eps, family.delta(delta) or 0.0)), None
    except ValueError as exc:
        return None, plain_sentence(exc)


def _person_caption() -> None:
    st.caption(
        "Each person's rows are bounded by a secure draw (never the seed), so the published numbers differ from the "
        "simulation above by the sampling as well as the noise."
    )


def _plan_mean(column: str, declared: dict, family: Family, delta: float, split: float, eps: float) -> None:
    """ε for the accuracy a published mean needs, from the declared bounds and a declared planned size."""
    st.caption(
        "The view's 'ε from the accuracy you need' simulates the mean on this file (its size and values): an ε "
        "chosen with it depends on the data. Plan the publication's ε here from declared facts instead."
    )
    c1, c2 = st.columns(2)
    planned = widgets.bound(
        c1.number_input,
        "Planned number of records (public)",
        min_value=1.0,  # a float input: a link's -inf is out of range, not an overflow (widgets.whole_number)
        max_value=10_000_000.0,
        value=None,
        step=1.0,
        format="%.0f",
        key=f"cen_pub_plan_n_{column}",
        bind="query-params",
        help="The size the study was designed for, not the size of this file.",
    )
    accuracy = widgets.bound(
        c2.number_input,
        "Accuracy you need (±, at 95%)",
        min_value=0.0,
        value=None,
        key=f"cen_pub_plan_accuracy_{column}",
        bind="query-params",
    )
    if planned is None or accuracy is None or declared.get("lower") is None or declared.get("upper") is None:
        return
    planned = int(round(planned))
    try:
        needed = publish.plan_mean_epsilon(
            accuracy,
            declared["lower"],
            declared["upper"],
            planned,
            split=split,
            mechanism=family.key,
            delta=family.delta(delta),
        )
    except ValueError as exc:
        st.warning(md(plain_sentence(exc)))
        return
    st.info(
        f"From the declared bounds and {planned:,} planned records: ε = **{needed:.3g}** gives ±{accuracy:g} at 95% "
        f"for any data of that size within the bounds. This publication uses the page's ε = {eps:g}."
    )


def _declared_value(column: str, series, key: str, label: str):
    """The value of a condition, declared: a number typed, or a text typed (never picked from the file's values)."""
    if is_numeric(series):
        return widgets.bound(st.number_input, label, value=None, key=key, bind="query-params")
    return (
        st.text_input(
            label,
            key=key,
            bind="query-params",
            help="Typed, not picked from the file's values: a list read from the data would reveal who is in it.",
        ).strip()
        or None
    )


def condition_count(
    column: str, series, condition: str, family: Family, eps: float, delta: float, second=None, unit=None, frame=None
) -> None:
    """Publish how many rows meet a condition whose value is declared (typed, not picked from the file); with
    ``second`` (its column, the column's values, its condition, and the simulation's value, not used), how many meet
    both: one count of sensitivity 1, whatever the number of conditions.

    Under a person ``unit`` (with the whole ``frame``): a plan of one count where (kind ``count_where``,
    :func:`dpcore.plan_release.publish_plan`), the declared conditions in the plan and the release's facts, each
    person keeping at most m of the rows meeting them by a secure draw (sensitivity m, add/remove one person)."""
    what = f"the count where {column} {condition} …" + (f" and {second[0]} {second[2]} …" if second else "")
    with publishing.section(what):
        if _not_published(family, what):
            return
        value = _declared_value(column, series, f"cen_pub_value_{column}", "Declared value of the condition (public)")
        masks = [lambda: condition_mask(series, condition, value)]
        words = f"{column} {condition} {value}"
        declared = {"value": value}
        conditions = [(column, condition, value)]
        if second:
            other, other_series, other_condition = second[:3]
            declared["second_value"] = _declared_value(
                other, other_series, f"cen_pub_value2_{other}", f"Declared value of the second condition ({other})"
            )
            masks.append(lambda: condition_mask(other_series, other_condition, declared["second_value"]))
            words += f" and {other} {other_condition} {declared['second_value']}"
            conditions.append((other, other_condition, declared["second_value"]))
        missing = domains.missing_declarations(**declared)
        if unit is not None and unit.identifier is not None:
            _person_count_where(words, tuple(conditions), frame, unit, family, eps, delta, missing)
            return
        draw = lambda: publish.publish_count_matching(  # noqa: E731
            np.logical_and.reduce([m() for m in masks]),
            words,
            eps,
            mechanism=family.key,
            delta=family.delta(delta),
        )
        publishing.action("cen_pub_where", f"the count where {words}", family.privacy(eps, delta), draw, missing)


def _person_count_where(words: str, conditions, frame, unit, family: Family, eps: float, delta: float, missing) -> None:
    """The count where, published under a person unit: a plan of one ``count_where`` statistic carrying the declared
    ``conditions`` (``(column, condition, value)``), so that they travel in the plan and the report."""
    allocation = None
    if missing is None:
        statistic = lambda: Statistic(  # noqa: E731
            name=f"count where {words}", kind="count_where", where=conditions, mechanism=family.key
        )
        allocation, missing = _person_plan(statistic, unit, family, eps, delta)
    _person_caption()
    cost = (allocation.epsilon, allocation.delta) if allocation is not None else family.privacy(eps, delta)

    def draw():  # the persons' rows meeting the conditions (dpcore's rule), each person bounded to m of them
        return publish_plan(allocation, frame).releases

    what = f"the count where {words} per person"
    publishing.action("cen_pub_where", what, cost, draw, missing, unit.relation, unit.unit)


def _domain(key: str, label: str = "Declared categories (public), one per line") -> list[str] | None:
    text = st.text_area(
        label,
        key=key,
        bind="query-params",
        help="Every category that could occur, from a codebook or a questionnaire: absent ones are published too "
        "(as noisy zeros), and a category missing from the list can never appear in the release.",
    )
    try:
        return domains.parse_domain(text) or None
    except ValueError as exc:
        st.warning(str(exc)[0].upper() + str(exc)[1:] + ".")
        return None


def category_counts(column: str, series, family: Family, eps: float, delta: float, unit=None, frame=None) -> None:
    """Publish the count of every declared category of a column.

    Under a person ``unit`` (with the whole ``frame``): a plan of one statistic, category counts over the declared
    domain (:func:`dpcore.plan_release.publish_plan`: each person keeps one category of at most m rows, by a secure
    draw; sensitivity m, add/remove one person), as the histogram under a person unit is published."""
    person = unit is not None and unit.identifier is not None
    what = f"the counts of {column}" + (" per person" if person else "")
    with publishing.section(what):
        if _not_published(family, what):
            return
        domain = _domain(f"cen_pub_domain_{column}")
        other = widgets.bound(
            st.checkbox,
            "Count values outside the list as (other)",
            key=f"cen_pub_other_{column}",
            bind="query-params",
            help="Declared before the data is read; otherwise they are left out. No count decides it.",
        )
        missing = domains.missing_declarations(domain=domain)
        if person:
            allocation = None
            if missing is None:
                statistic = lambda: Statistic(  # noqa: E731
                    name=f"counts of {column}", kind="counts", column=column, domain=tuple(domain), other=other,
                    mechanism=family.key,
                )  # fmt: skip
                allocation, missing = _person_plan(statistic, unit, family, eps, delta)
            _person_caption()
            cost = (allocation.epsilon, allocation.delta) if allocation is not None else family.privacy(eps, delta)
            draw = lambda: list(publish_plan(allocation, frame).releases)  # noqa: E731
            publishing.action("cen_pub_counts", what, cost, draw, missing, unit.relation, unit.unit)
            return
        draw = lambda: publish.publish_category_counts(  # noqa: E731
            domains.encode_in_domain(series, domain, other),
            domain,
            eps,
            other=other,
            mechanism=family.key,
            delta=family.delta(delta),
        )
        publishing.action("cen_pub_counts", what, family.privacy(eps, delta), draw, missing)


def two_way_table(rows: str, columns: str, frame, family: Family, eps: float, delta: float) -> None:
    """Publish the count of every pair of two declared domains (absent pairs as noisy zeros)."""
    what = f"the two-way table of {rows} by {columns}"
    with publishing.section(what):
        if _not_published(family, what):
            return
        c1, c2 = st.columns(2)
        with c1:
            row_domain = _domain(f"cen_pub_rows_{rows}", f"Declared categories of {md(rows)} (public), one per line")
        with c2:
            column_domain = _domain(
                f"cen_pub_columns_{columns}", f"Declared categories of {md(columns)} (public), one per line"
            )
        other = widgets.bound(
            st.checkbox,
            "Count values outside the lists as (other)",
            key=f"cen_pub_other_{rows}_{columns}",
            bind="query-params",
            help="Declared before the data is read; otherwise the rows holding them are left out.",
        )

        def draw():
            r, c = domains.encode_pairs_in_domains(frame[rows], frame[columns], row_domain, column_domain, other)
            return publish.publish_two_way_table(
                r, c, row_domain, column_domain, eps, other=other, mechanism=family.key, delta=family.delta(delta)
            )

        missing = domains.missing_declarations(rows=row_domain, columns=column_domain)
        publishing.action("cen_pub_table", what, family.privacy(eps, delta), draw, missing)


def period_counts(column: str, dates, period: str, family: Family, eps: float, delta: float) -> None:
    """Publish the count per year or month of a declared range of years (``dates``: the column read as dates)."""
    what = f"the counts per {period} of {column}"
    with publishing.section(what):
        if _not_published(family, what):
            return
        c1, c2 = st.columns(2)
        first, last = (
            widgets.bound(
                box.number_input,
                f"Declared {word} year (public)",
                min_value=1,
                max_value=9999,
                value=None,
                step=1,
                key=f"cen_pub_{word}_year_{column}",
                bind="query-params",
                help="From the study's design (when data was collected), never from this file. Dates outside the "
                "declared years are left out; every period inside is published, empty ones as noisy zeros.",
            )
            for box, word in ((c1, "first"), (c2, "last"))
        )
        missing = domains.missing_declarations(first_year=first, last_year=last)
        if missing is None and last < first:
            missing = f"To publish, declare a last year at or after the first year, got {last} before {first}."

        def draw():
            codes, labels = period_codes(dates, period, first, last)
            return publish.publish_category_counts(codes, labels, eps, mechanism=family.key, delta=family.delta(delta))

        publishing.action("cen_pub_periods", what, family.privacy(eps, delta), draw, missing)


def most_common(column: str, series, eps: float) -> None:
    """Publish the most common declared category by the exponential mechanism."""
    what = f"the most common {column}"
    with publishing.section(what):
        domain = _domain(f"cen_pub_mode_domain_{column}")
        draw = lambda: publish.publish_most_common(domains.encode_in_domain(series, domain, False), domain, eps)  # noqa: E731
        publishing.action("cen_pub_mode", what, (eps, 0.0), draw, domains.missing_declarations(domain=domain))


def quantile(q, column: str, series, eps: float, quantile_q: float) -> None:
    """Publish a quantile of a numeric column (``q``, its row of the page's queries) over a declared range.

    The range is declared here (the simulation's, read from the file, is not used); the grid of the published value
    may be declared too, else it is fixed from the declared range alone (:func:`dpcore.publish.publish_quantile`).
    """
    what = f"the {'median' if quantile_q == 0.5 else f'{quantile_q:g}-quantile'} of {column}"
    values, _ = numeric_values(series)
    with publishing.section(what):
        lower, upper = _bounds(column)
        grid = widgets.bound(
            st.number_input,
            "Declared grid of the published value (optional)",
            min_value=0.0,
            value=None,
            key=f"cen_pub_grid_{column}",
            bind="query-params",
            help="The release is rounded to a multiple of it from the lower bound (1 for whole years). Left empty: a "
            "power of two near a millionth of the range.",
        )
        draw = lambda: q.publish(values, eps, lower, upper, quantile_q, grid=grid or None)  # noqa: E731
        missing = domains.missing_declarations(lower=lower, upper=upper)
        publishing.action("cen_pub_quantile", what, (eps, 0.0), draw, missing)
