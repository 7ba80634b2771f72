"""The session's unit of privacy: who every release protects, declared once (issue 20, part 4).

One row (each row a different person: today's default), or a person named by an identifier column with at most m
rows each (a person's rows beyond m are dropped by uniform sampling before the query, :mod:`dpcore.contributions`).
:func:`declare` draws the declaration (the Data page below the dataset's profile, and the pages that honour it,
under their titles, by the same URL-bound keys ``unit``, ``unit_id``, ``unit_rows``); :func:`current` reads it
without drawing; :func:`sidebar_line` says it in the sidebar. Streamlit keeps a URL-bound widget's value when a page
does not draw it, so the declaration holds for the session, and every page that draws it puts it in its link.

What the unit means for each release (its sensitivities, the bounding) is :class:`dpcore.contributions.PrivacyUnit`
and :class:`~dpcore.contributions.ContributionBounds`; this module only lays out the declaration and the words.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpcore.contributions import ContributionBounds, PrivacyUnit, person_codes
from dpcore.neighbours import ADD_REMOVE
from explorer import state, widgets
from explorer.markup import md, plain_sentence

__all__ = [
    "ROW",
    "PERSON",
    "KEY",
    "ID_KEY",
    "ROWS_KEY",
    "DEFAULT_ROWS",
    "MAX_ROWS",
    "declare",
    "section",
    "header",
    "current",
    "persons",
    "words",
    "local_reports",
    "local_label",
    "ledger_unit",
    "short_words",
    "sidebar_line",
]

ROW = "One row (each row is a different person)"
PERSON = "A person, named by a column"
KEY, ID_KEY, ROWS_KEY = "unit", "unit_id", "unit_rows"
#: The bound a person unit starts with: a few rows each (the People page shows what a bound costs in bias).
DEFAULT_ROWS = 10
#: The largest bound offered (a person's rows beyond it would all be kept on the demo tables).
MAX_ROWS = 100_000


def _identifier_options() -> tuple[list[str], list[str]]:
    """Every column, the identifier-like ones first (a person identifier is a column with many distinct values), and
    the identifier-like ones."""
    profile = state.profile()
    likely = [str(c) for c in profile.loc[profile["kind"] == "identifier-like", "column"]]
    return likely + [str(c) for c in state.dataset().frame.columns if str(c) not in likely], likely


def _bounds(rows: int) -> ContributionBounds:
    """At most m rows per person. The group bounds (L₀ = 1 group of at most L∞ = m rows) are a published plan's
    (dpcore.plan); Central DP's and Compare's histograms keep at most m of each person's rows in any bins instead
    (:func:`explorer.releases.person_histogram`, the same sensitivity m)."""
    return ContributionBounds(max_rows=rows, max_groups=1, max_rows_per_group=rows)


def declare(container=None) -> PrivacyUnit:
    """Draw the declaration (in ``container``, default the page) and return the unit it declares.

    A column that cannot name the persons (a missing value) is said in one sentence by :func:`persons` where a
    page needs the persons; the declaration itself stays as typed.
    """
    where = container if container is not None else st.container()
    with where:
        c1, c2, c3 = st.columns([1.3, 1, 1])
        how = widgets.bound(
            c1.radio,
            "Who is protected",
            [ROW, PERSON],
            key=KEY,
            name="Unit of privacy",
            help="Neighbouring tables differ by one row, or by all the rows of one person. Every ε on the Central "
            "and Local DP pages then protects this unit.",
        )
        if how == ROW:
            return PrivacyUnit()
        options, likely = _identifier_options()
        ident = widgets.bound(
            c2.selectbox,
            "Person identifier column",
            options,
            key=ID_KEY,
            help="The column that names each row's person (declared: its name is public, its values are not).",
        )
        rows = widgets.whole_number(
            "At most m rows per person",
            1,
            MAX_ROWS,
            DEFAULT_ROWS,
            ROWS_KEY,
            "A person with more rows keeps m of them, sampled uniformly (seeded in a simulation, secure in a "
            "publication); a count then moves by at most m when a person is added or removed. The People page shows "
            "the bias each m costs.",
            c3,
        )
        if str(ident) not in likely:
            st.caption(
                f"{md(ident)} is not marked identifier-like in the profile (a person identifier has many distinct "
                "values): check that it names each row's person."
            )
    return PrivacyUnit(str(ident), _bounds(rows))


def section() -> PrivacyUnit:
    """The Data page's declaration: a heading, the widgets, and the sidebar's line (one call from the page)."""
    st.subheader("Who is protected")
    st.caption(
        "Say once who every release must protect: one row, or a person with many rows. The Central and Local DP "
        "pages follow it (and show it under their titles), and every label and file they make says it."
    )
    declared = declare()
    sidebar_line(declared)
    return declared


def header() -> PrivacyUnit:
    """Under a page's title: the unit in words, the declaration in an expander (the same URL-bound keys as the Data
    page's, so the page's link carries it), and the sidebar's line; returns the declared unit."""
    said = st.empty()  # filled once the widgets are drawn: a page switch may restore their values only then
    with st.expander("Who is protected (the unit of privacy)", icon=":material/person:"):
        declared = declare()
    said.markdown(f"**Protected unit:** {short_words(declared)}")
    sidebar_line(declared)
    return declared


def current() -> PrivacyUnit:
    """The declared unit, read without drawing a widget (one row when nothing was declared, or the column is gone)."""
    ss = st.session_state
    if ss.get(KEY) != PERSON:
        return PrivacyUnit()
    ident = ss.get(ID_KEY)
    if ident is None or str(ident) not in {str(c) for c in state.dataset().frame.columns}:
        return PrivacyUnit()
    try:
        rows = int(round(float(ss.get(ROWS_KEY, DEFAULT_ROWS))))
        return PrivacyUnit(str(ident), _bounds(rows))
    except (TypeError, ValueError):
        return PrivacyUnit()


def persons(unit: PrivacyUnit) -> np.ndarray | None:
    """Each row's person as a small integer code (kept per dataset), or None after one sentence saying why not."""
    return column_persons(unit.identifier)


def column_persons(column: str) -> np.ndarray | None:
    """Each row's person named by ``column`` as a small integer code (kept per dataset, shared by every page that
    names persons by it), or None after one sentence saying why the column cannot name them."""
    series = state.dataset().frame[column]
    try:
        return state.per_dataset(f"unit_codes_{column}", lambda: person_codes(series.to_numpy())[0])
    except ValueError as exc:
        missing = int(series.isna().sum())
        reason = (
            f"{missing:,} rows have no value in it; choose a column with a value on every row, or drop those rows first"
            if missing
            else plain_sentence(exc).rstrip(".")
        )
        st.warning(f"{md(column)} cannot name the persons: {md(reason)}.")
        return None


def short_words(unit: PrivacyUnit) -> str:
    """The unit in a few words, as Markdown (the column's name escaped): a person (column X, ≤ m rows each), or one row."""
    if unit.identifier is None:
        return "one row (each row a different person)"
    return f"a person (column **{md(unit.identifier)}**, ≤ {unit.bounds.max_rows:,} rows each)"


def words(unit: PrivacyUnit) -> str:
    """The neighbouring relation and unit of every release, as a label or a file says it."""
    if unit.identifier is None:
        return f"unit=record, relation {ADD_REMOVE.words(unit.unit)}"
    return (
        f"unit=person, relation {ADD_REMOVE.words(unit.unit)} (column {unit.identifier}, at most "
        f"{unit.bounds.max_rows:,} rows per person)"
    )


def sidebar_line(unit: PrivacyUnit | None = None) -> None:
    """One line in the sidebar: who the releases of this page protect."""
    unit = current() if unit is None else unit
    st.sidebar.caption(f"Protected unit: {short_words(unit)}")


def local_reports(column_values: np.ndarray, salt: str, rows: np.ndarray | None = None):
    """``(unit, values)``: under a person unit, the values of one row per person (sampled uniformly from the seed)
    and the unit, said in one sentence on the page; ``(None, values)`` under one row; ``(None, None)`` when the
    column cannot name the persons. ``rows`` is the mask of the rows ``column_values`` holds (default: all).

    Local DP's rule for a person with many rows: their device sends **one** randomized report, of one of their rows
    chosen at random, so the report's ε is the person's ε (their other rows never leave the device); the estimates
    then count persons, not rows.
    """
    u = current()
    if u.identifier is None:
        return None, column_values
    codes = persons(u)
    if codes is None:
        return None, None
    codes = codes if rows is None else codes[rows]
    from explorer import releases  # the release functions' module imports nothing of the app's pages

    kept = releases.one_row_each(codes, state.seed_words(salt))
    st.caption(
        f"Unit: {short_words(u)}. In the local model each person's device sends one report, of one of their rows "
        f"chosen at random, so ε is the person's: {int(kept.sum()):,} reports from {int(kept.size):,} rows. The "
        "estimates count persons (one row each), not rows; the bound m is not needed here. Publishing and the "
        "snippet are offered with one row per person."
    )
    return u, column_values[kept]


def local_label(u: PrivacyUnit | None) -> dict:
    """The keywords that make a local release's label say unit=person (nothing under one row)."""
    if u is None:
        return {}
    from dpcore.release import PublicFact

    return {
        "unit": u.unit,
        "public": (PublicFact("unit of privacy", f"{words(u)}; one report per person", "declared"),),
    }


def ledger_unit(u: PrivacyUnit | None) -> dict:
    """The keywords that record a release in the teaching ledger under a person unit (nothing under one row)."""
    return {} if u is None else {"unit": u.unit}
