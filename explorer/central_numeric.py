"""The Central DP page's view of a numeric column: its count, clipped sum, mean (noisy sum over noisy count) or
histogram, with the clipping bounds, the number of bins or the mean's budget split the query takes (``cen_*`` keys).

The query's row of :data:`explorer.central_layout.QUERIES` says what it takes and which dpcore function answers it;
the release is :func:`explorer.releases.central_query` (on a lattice) for a family dpcore publishes.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from dpcore.neighbours import ADD_REMOVE
from explorer import central_publish, full_file, releases, snippets, state, unit, widgets
from explorer.central_layout import (
    LAPLACE,
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
from explorer.columns import numeric_values, suggest_bounds
from explorer.markup import md, number, plain_sentence

__all__ = ["view", "person_query", "sum_noise_words"]


def person_query(q: Query, persons: np.ndarray, max_rows: int) -> Query:
    """``q`` under add/remove one person: its draw bounds each person's rows to ``max_rows`` first
    (:func:`explorer.releases.person_query`); no ε-from-accuracy inverse (the mean's is for one row per person)."""

    def draw(values, epsilon, rng, mechanism="laplace", delta=None, **settings):
        return releases.person_query(values, persons, max_rows, q.key, epsilon, rng, mechanism, delta, **settings)

    return replace(q, draw=draw, plan=None)


def sum_noise_words(std: float, n: int) -> str:
    """Under the comparison of a mean: that its noise figures are the sum's, and what they are on the mean."""
    return (
        f"On a mean, the Laplace noise std and the Gaussian σ above are the noise added to the **sum** of the clipped "
        f"values (in the column's units, over {n:,} rows), not to the mean: the mean is that noisy sum divided by "
        f"the noisy count, so a Laplace noise std of {number(std)} on the sum is about {number(std / max(n, 1))} on "
        "the mean. The mean's own error is the one shown with its release above."
    )


def _settings(q: Query, series, column: str) -> dict:
    """The clipping bounds and the number of bins or the mean's split, as the query takes them (a count: none)."""
    if not q.settings:
        return {}
    lo, hi = suggest_bounds(series)
    b1, b2, b3 = st.columns(3)
    settings = {
        "lower": widgets.bound(
            b1.number_input,
            "Lower clipping bound",
            min_value=-widgets.LARGEST_AMOUNT,
            max_value=widgets.LARGEST_AMOUNT,
            value=widgets.within(lo),
            key=f"cen_lower_{column}",
            bind="query-params",
            help="Values below are raised to it before the query. Fix it from domain knowledge.",
        ),
        "upper": widgets.bound(
            b2.number_input,
            "Upper clipping bound",
            min_value=-widgets.LARGEST_AMOUNT,
            max_value=widgets.LARGEST_AMOUNT,
            value=widgets.within(hi),
            key=f"cen_upper_{column}",
            bind="query-params",
            help="Values above are lowered to it. The sum's sensitivity is max(|lower|, |upper|).",
        ),
    }
    if "bins" in q.settings:
        settings["bins"] = widgets.bound(
            b3.slider,
            "Number of bins",
            2,
            50,
            10,
            key="cen_bins",
            bind="query-params",
            help="Equal-width bins between the bounds; each bin count gets the noise of one count.",
        )
    if "split" in q.settings:
        settings["split"] = widgets.bound(
            b3.slider,
            "Share of ε (and δ) for the sum",
            0.05,
            0.95,
            0.5,
            0.05,
            key="cen_split",
            bind="query-params",
            help="The mean is noisy sum / noisy count; the rest of the budget goes to the count.",
        )
    st.caption(
        f"The default bounds ({lo:g}, {hi:g}) are the column's minimum and 99th percentile: read from the data, "
        "they are not private. A real release fixes them from domain knowledge."
    )
    return settings


def _whole(ds, column: str, q: Query, settings: dict, u, seed) -> full_file.Whole | None:
    """The query's exact aggregates over every row of a file opened by path and sampled (None otherwise, or when a
    view of it stays on the sample: said on the page)."""
    if not ds.sampled:
        return None
    person = u.identifier is not None
    whole = full_file.whole_numeric(ds, column, q.key, settings, u if person else None, seed)
    if whole is None:  # computing in the server's pool: where it is was drawn above
        st.caption(full_file.pending_words(ds))
        return None
    if isinstance(whole, str):
        st.caption(full_file.sample_words(ds, whole))
        return None
    st.caption(full_file.rows_words(ds, whole, person))
    return whole


def view(label: str, controls) -> None:
    """The count, sum, mean or histogram of a numeric column; ``controls`` lays out the page's noise, ε and δ."""
    q = QUERIES[label]
    ds = state.dataset()
    columns = widgets.fitting_columns("numeric")
    if not columns:
        return
    c1, c2, c3, c4 = st.columns([1, 1, 1.6, 1.2])
    with c1:
        column = widgets.select(
            "Numeric column", columns, "cen_column", "Numeric columns only; missing values are left out."
        )
    family, eps, delta = controls(c2, c3, c4)
    values, dropped = numeric_values(ds.frame[column])
    settings = _settings(q, ds.frame[column], column)
    noise = {"noise": family.key, "delta": family.delta(delta)}
    seed = state.seed_words(SALT)
    u = unit.current()
    person = {}
    if u.identifier is not None:
        codes = unit.persons(u)
        if codes is None:
            return
        finite = np.isfinite(ds.frame[column].to_numpy(dtype=np.float64, na_value=np.nan))
        person = {"persons": codes[finite], "max_rows": u.bounds.max_rows}
        q = person_query(q, **person)
        how = (
            "at most m of their rows, chosen at random, in any bins, so a person moves the bins by at most m in all"
            if q.unit
            else "at most m of their rows, chosen at random, so a person moves a count by at most m and a sum by at "
            "most m·max(|lower|, |upper|)"
        )
        published = (
            ", keeping one of each person's bins with at most m rows in it (the same noise, fewer rows)"
            if q.unit
            else ""
        )
        st.caption(
            f"Unit: {unit.short_words(u)}. Each person keeps {how} ({md(ADD_REMOVE.words(u.unit))}). The sampling is "
            f"seeded here; a publication draws it securely{published}."
        )
    try:
        result = simulated_release(
            q,
            family,
            lambda: (releases.central_person_query if person else releases.central_query)(
                values, q.key, eps, seed, **noise, **settings, **person
            ),
            values,
            eps,
            delta,
            seed,
            **settings,
        )
        whole = _whole(ds, column, q, settings, u, seed)  # once dpcore has taken the settings
        dropped = (whole.file_rows - whole.every_rows) if whole else dropped
        if dropped:
            st.caption(f"{dropped:,} missing values were left out.")
        if whole:  # the same release on the whole file's truths, its seeded noise drawn around them
            result = full_file.drawn(full_file.on_whole(result, whole), seed, family.lattice)
        compared = compared_releases(q, family, result, values, eps, delta, **settings)
        reference = reference_release(q, family, values, delta, **settings)
        if whole:  # only the laws are read from these, a mean's on the whole file's count and sum
            compared = {f: r if f == family else full_file.on_whole(r, whole) for f, r in compared.items()}
            reference = full_file.on_whole(reference, whole)
        curves = error_curves(q, compared, values, delta, whole=whole, **settings) if not (person and q.ratio) else None
    except ValueError as exc:
        st.error(f"This query cannot be released with these settings. {md(plain_sentence(exc))}")
        return
    if person:
        if not q.ratio:  # the noise's own inverse, at the person-level sensitivity of this release
            with c3:
                accuracy_popover(q, family, delta, result)
        show_release(q, family, column, result, None, reference=reference, unit=u)
        central_publish.person_query(q, column, ds.frame, u, family, eps, delta, settings)
        if curves is not None:
            compare(q, eps, delta, compared, curves)
        return
    with c3:
        if whole and q.plan:
            st.caption(
                "ε from the accuracy you need: not offered for a mean over the whole file (its planner is a "
                "Monte Carlo over the rows)."
            )
        else:
            accuracy_popover(q, family, delta, result, values, **settings)
    # a snippet redraws the release from a table in memory: none for the truths over the whole file
    code = (
        snippets.central_query(ds, column, q.key, eps, seed, **noise, **settings)
        if family.lattice and not whole
        else None
    )
    show_release(q, family, column, result, code, reference=reference)
    widgets.audit_link(q.audit(family), eps, delta=family.delta(delta), **settings)
    central_publish.numeric_query(q, column, ds.frame[column], family, eps, delta, settings)
    compare(q, eps, delta, compared, curves)
    if q.ratio:
        st.caption(sum_noise_words(q.part(compared[LAPLACE]).mechanism.std, result.n))
