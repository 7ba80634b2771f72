"""People: the unit of privacy when one person has many rows (issue 20).

The user names the column that says whose row each row is; every statistic on this page then protects a whole
person (add/remove all the rows of one person), not one row. This script keeps what both views share (the
identifier column) and the switch between them; each view lays itself out in its own module of the app package:
``explorer.people_tradeoff`` (rows per person, the bias of a contribution bound against the noise it needs, and a
private choice of the bound in the Publish section) and ``explorer.people_groups`` (a group-by whose keys are not
public: how many groups private partition selection keeps).
"""

import streamlit as st

from explorer import frame, people_groups, people_tradeoff, state, widgets
from explorer.markup import md


def identifier_options() -> list[str]:
    """Every column, the identifier-like ones first (a person identifier is a column with many distinct values)."""
    profile = state.profile()
    likely = [str(c) for c in profile.loc[profile["kind"] == "identifier-like", "column"]]
    return likely + [str(c) for c in state.dataset().frame.columns if str(c) not in likely]


def render() -> None:
    st.title("People with many rows")
    st.caption(
        "When one person has many rows (visits, purchases, trips), a guarantee for one row says little about a "
        "person. Name the column that says whose row each row is: every figure here then protects all the rows of "
        "one person, by bounding what each person may contribute."
    )
    ds = state.dataset()
    options = identifier_options()
    person = widgets.select(
        "Person identifier column",
        options,
        "ppl_person",
        "The column that names each row's person. Neighbouring tables differ by all the rows of one person.",
    )
    if not (state.profile()["kind"] == "identifier-like").any():
        st.info(
            "This table has no column that looks like a person identifier (many distinct values). The Clinic visits "
            "demo on the Data page has one: patient_id, 3,000 patients with 1 to 400 visits each."
        )
    persons = people_tradeoff.person_column(ds.frame[person], person)
    if persons is None:
        return
    st.caption(f"Unit of privacy: {md(people_tradeoff.unit_words(person))}.")
    tab_bound, tab_groups = widgets.tabs(["Bias against noise", "Group-by with unknown keys"], "ppl_view")
    if tab_bound.open:
        with tab_bound:
            people_tradeoff.tradeoff_view(persons, person)
    if tab_groups.open:
        with tab_groups:
            people_groups.groups_view(persons, person)


frame.run_page(render)
