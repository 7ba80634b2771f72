"""The Central DP page's views of counts: how many rows meet a condition chosen from a list (``cen_where_*``), or two
at once (``cen_where_and``, ``cen_where2_*``), and the count of every category of a categorical column
(``cen_category_column``).

Their releases are :func:`explorer.releases.count_matching` and :func:`explorer.releases.category_counts` (on a
lattice) for a family dpcore publishes; their rows of :data:`explorer.central_layout.QUERIES` say which dpcore
function answers them otherwise. Under a declared person unit (at most m rows per person) both bound each person's
rows first, by dpcore's rules (:func:`person_query`): a count where is dpcore's person count of the rows meeting the
condition, category counts a histogram with at most m of each person's rows in any bins.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from dpcore import families
from dpcore.contributions import ContributionBounds
from dpcore.groupby import dp_person_count
from dpcore.neighbours import ADD_REMOVE
from dpcore.queries import QueryResult, noise_mechanism
from explorer import central_publish, domains, full_file, releases, snippets, state, unit, widgets
from explorer.central_layout import (
    QUERIES,
    SALT,
    Query,
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

__all__ = ["condition_view", "categories_view", "person_count_matching", "person_category_counts", "person_query"]


def person_count_matching(mask, persons, max_rows, epsilon, rng, mechanism="laplace", delta=None) -> QueryResult:
    """How many rows meet a condition, under add/remove one person: dpcore's person count
    (:func:`dpcore.groupby.dp_person_count`) of the rows that meet it, each person keeping at most m = ``max_rows`` of
    them (sampled uniformly from ``rng``), so a person moves the count by at most m (its sensitivity)."""
    mask = np.asarray(mask, dtype=bool)
    bounds = ContributionBounds(max_rows=max_rows)
    result = dp_person_count(persons[mask], epsilon, rng, bounds=bounds, mechanism=mechanism, delta=delta)
    return replace(result, query="count_matching")


def person_category_counts(codes, k, persons, max_rows, epsilon, rng, mechanism="laplace", delta=None) -> QueryResult:
    """The count of every category (``codes`` in [0, k)) under add/remove one person: a histogram of at most m =
    ``max_rows`` of each person's rows, in any categories (:func:`explorer.releases.person_histogram`), with the noise
    of its sensitivity m in ℓ1 and ℓ2 (:meth:`dpcore.contributions.ContributionBounds.rows_histogram_sensitivity`),
    as the histogram under a person unit."""
    table, counts = releases.person_histogram(persons, np.asarray(codes), k, max_rows, rng)
    sensitivity = releases.person_histogram_sensitivity(max_rows).norm(families.family(mechanism).norm)
    noise = noise_mechanism(epsilon, sensitivity, mechanism, delta)
    true = counts.astype(np.float64)
    return QueryResult("category_counts", true, noise.simulate(true, rng), noise, table.rows_kept)


def person_query(q: Query, persons: np.ndarray, max_rows: int) -> Query:
    """``q`` (a count where, or category counts) under add/remove one person: its draw bounds each person's rows to
    ``max_rows`` first (:func:`person_count_matching`, :func:`person_category_counts`)."""

    def draw(data, epsilon, rng, mechanism="laplace", delta=None, k=None):
        if q.key == "count_matching":
            return person_count_matching(data, persons, max_rows, epsilon, rng, mechanism, delta)
        return person_category_counts(data, k, persons, max_rows, epsilon, rng, mechanism, delta)

    return replace(q, draw=draw, plan=None)


def _person(q: Query, what: str, moves: str):
    """Under a declared person unit: ``(q bounded per person, the unit, the persons)`` after one caption saying the
    rule; ``(q, None, None)`` under one row; None when the column cannot name the persons (said in one sentence)."""
    u = unit.current()
    if u.identifier is None:
        return q, None, None
    codes = unit.persons(u)
    if codes is None:
        return None
    st.caption(
        f"Unit: {unit.short_words(u)}. Each person keeps at most m of their rows{what}, chosen at random, so a person "
        f"moves {moves} by at most m ({md(ADD_REMOVE.words(u.unit))}). The sampling is seeded here; a publication "
        "draws it securely."
    )
    return person_query(q, codes, u.bounds.max_rows), u, codes


def _on_lattice(q: Query, data, epsilon, seed, family, delta, **settings):
    """The person-level release drawn from the seed, on a lattice as a publication's is (central_person_query's
    rule)."""
    rng = np.random.default_rng(seed)
    result = q.draw(data, epsilon, rng, mechanism=family.key, delta=family.delta(delta), **settings)
    return result.on_lattice(rng)


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
    personal = _person(q, " meeting the condition", "the count")
    if personal is None:
        return
    q, u, _ = personal

    def released():  # the snippet's function: one condition, or every one of them
        if u is not None:  # no snippet under a person unit: the release is drawn as the page's person rule says
            return _on_lattice(q, mask, eps, seed, family, delta)
        if second:
            return releases.count_matching_all(masks, eps, seed, family.key, delta)
        return releases.count_matching(mask, eps, seed, family.key, delta)

    result = simulated_release(q, family, released, mask, eps, delta, seed)
    ds = state.dataset()
    conditions = [(column, condition, value)] + ([(second[0], second[2], second[3])] if second else [])
    whole = None
    if ds.sampled and u is not None:
        st.caption(full_file.sample_words(ds, "under a person unit each person's rows are bounded on the sample"))
    elif ds.sampled:
        whole = full_file.whole_matching(ds, conditions)
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
        if family.lattice and not whole and u is None
        else None
    )
    show_release(q, family, words, result, code, reference=reference_release(q, family, mask, delta), unit=u)
    central_publish.condition_count(column, series, condition, family, eps, delta, second=second, unit=u, frame=frame_)
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
    personal = _person(q, ", in any categories", "the counts in all")
    if personal is None:
        return
    q, u, _ = personal
    result = simulated_release(
        q,
        family,
        lambda: (
            _on_lattice(q, codes, eps, seed, family, delta, k=len(labels))
            if u is not None
            else releases.category_counts(codes, labels, eps, seed, family.key, delta)
        ),
        codes,
        eps,
        delta,
        seed,
        k=len(labels),
    )
    ds = state.dataset()
    whole = None
    if ds.sampled and u is not None:
        st.caption(full_file.sample_words(ds, "under a person unit each person's rows are bounded on the sample"))
    elif ds.sampled:
        whole = full_file.whole_categories(ds, column, labels)
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
    offered = family.lattice and not whole and u is None
    code = snippets.category_counts(ds, column, eps, seed, family.key, delta) if offered else None
    reference = reference_release(q, family, codes, delta, k=len(labels))
    show_release(q, family, column, result, code, labels=labels, reference=reference, unit=u)
    central_publish.category_counts(column, ds.frame[column], family, eps, delta, unit=u, frame=ds.frame)
    compared = compared_releases(q, family, result, codes, eps, delta, k=len(labels))
    compare(q, eps, delta, compared, error_curves(q, compared, None, delta))
