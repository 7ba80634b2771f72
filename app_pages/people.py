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

CHOOSE = people_tradeoff.CHOOSE


def identifier_options() -> tuple[list[str], list[str]]:
    """The picker's options: no column, then every column, the identifier-like ones first (a person identifier is a
    column with many distinct values); and the identifier-like ones."""
    profile = state.profile()
    likely = [str(c) for c in profile.loc[profile["kind"] == "identifier-like", "column"]]
    others = [str(c) for c in state.dataset().frame.columns if str(c) not in likely]
    return [CHOOSE, *(c for c in likely + others if c != CHOOSE)], likely


def no_identifier(likely: list[str]) -> None:
    """The page's whole body while no identifier column is chosen: what one is, in one sentence (nothing is computed
    on a column that may not name persons)."""
    st.info(
        "A person identifier is the column that says whose row each row is (a patient, customer or account number, "
        "with many distinct values): choose it above to see what bounding each person's rows costs."
        + (
            ""
            if likely
            else " This table has no column that looks like one; the Clinic visits demo on the Data page has one, "
            "patient_id (3,000 patients with 1 to 400 visits each)."
        )
    )


def render() -> None:
    st.title("People with many rows")
    st.caption(
        "When one person has many rows (visits, purchases, trips), a guarantee for one row says little about a "
        "person. Name the column that says whose row each row is: every figure here then protects all the rows of "
        "one person, by bounding what each person may contribute."
    )
    ds = state.dataset()
    options, likely = identifier_options()
    person = widgets.select(
        "Person identifier column",
        options,
        "ppl_person",
        "The column that names each row's person. Neighbouring tables differ by all the rows of one person. No column "
        "is chosen unless one looks like an identifier (many distinct values).",
        index=1 if likely else 0,  # a table with an identifier-like column opens on it; any other on no column
    )
    if person != CHOOSE and person not in likely:
        st.caption(
            f"{md(person)} is not marked identifier-like in the profile (a person identifier has many distinct "
            "values): check that it names each row's person."
        )
    tab_bound, tab_groups = widgets.tabs(["Bias against noise", "Group-by with unknown keys"], "ppl_view")
    for tab, view in ((tab_bound, people_tradeoff.tradeoff_view), (tab_groups, people_groups.groups_view)):
        if not tab.open:
            continue
        with tab:
            if person == CHOOSE:
                no_identifier(likely)
                continue
            persons = people_tradeoff.person_column(ds.frame[person], person)
            if persons is None:
                continue
            st.caption(f"Unit of privacy: {md(people_tradeoff.unit_words(person))}.")
            view(persons, person)


frame.run_page(render)
