"""People page, the group-by view's Publish section: a group-by about persons, published once with secure noise.

The user declares what the publication rests on: the statistic (persons or rows per group, or the sum or mean of a
numeric column within declared bounds), the contribution bounds (L₀ from the view above, L∞ here), the ε of the
values and the keys, either a declared list (typed, never read from the file: a key absent from the data is
published as a noisy zero) or the view's private partition selection. :func:`dpcore.groupby.publish_group_by` draws
everything (the rows each person keeps, the groups kept, the noise) from
:class:`~dpcore.randomness.SecureGenerator`; :func:`explorer.publishing.action` charges the publication log the cost
:func:`dpcore.groupby.group_by_cost` states before the draw, all or nothing, and shows the published table alone,
labelled add/remove one person. The section then says how many groups were kept and the threshold, never which were
dropped (nor how many groups the data holds).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import families
from dpcore.contributions import ContributionBounds
from dpcore.groupby import (
    SELECTION_FACT,
    THRESHOLD_FACT,
    check_group_by_publication,
    group_by_cost,
    publish_group_by,
)
from dpcore.limits import MAX_TABLE_ROWS
from dpcore.neighbours import ADD_REMOVE, UNIT_PERSON
from dpcore.partition_selection import PartitionSelection
from dpcore.release import Release
from explorer import domains, publishing, state, widgets
from explorer.markup import md, plain_sentence

__all__ = ["STATISTICS", "KEYS", "publish_section"]

#: What the published group-by computes per group, in words, and the dpcore statistic of each.
STATISTICS = {
    "Persons per group": "count",
    "Rows per group": "count",
    "Sum of a numeric column": "sum",
    "Mean of a numeric column": "mean",
}
#: Where the published groups come from.
KEYS = ("Kept by private partition selection (above)", "A declared list of keys")
#: The largest clipping bound a user may declare (the sum of L₀·L∞ rows of it stays a finite number).
LARGEST = 1e12


def _statistic() -> tuple[str, str]:
    """The statistic in words and dpcore's name for it."""
    words = widgets.bound(
        st.radio, "Statistic per group", list(STATISTICS), key="ppl_gb_statistic", horizontal=True,
        help="Persons: each person counted once in each of their groups (L∞ = 1). Rows, sums and means: at most "
        "L∞ rows of each person in each group.",
    )  # fmt: skip
    return words, STATISTICS[words]


def _values(statistic: str) -> tuple[dict, str | None, str]:
    """The numeric column and its declared bounds (a sum or a mean): the draw's arguments, what is missing, words."""
    numeric = state.numeric_columns()
    if not numeric:
        return {}, "To publish a sum or a mean, upload a table with a numeric column on the Data page.", ""
    c1, c2, c3 = st.columns([1.2, 1, 1])
    with c1:
        column = widgets.select("Numeric column", numeric, "ppl_gb_value", "The column summed or averaged per group.")
    lower, upper = (
        widgets.bound(
            box.number_input,
            f"Declared {word} bound (public)",
            value=None,
            key=f"ppl_gb_{word}_{column}",
            min_value=-LARGEST,
            max_value=LARGEST,
            help="From what you know of the column (a price list, a law), never from this file: each value is "
            "clipped to the declared bounds.",
        )  # fmt: skip
        for box, word in ((c2, "lower"), (c3, "upper"))
    )
    missing = domains.missing_declarations(lower=lower, upper=upper)
    if missing is None and not lower < upper:
        missing = f"To publish, declare a lower bound below the upper bound, got {lower:g} and {upper:g}."
    values = pd.to_numeric(state.dataset().frame[column], errors="coerce").to_numpy(dtype=float)
    declared = {"values": values, "lower": lower, "upper": upper}
    return declared, missing, f"{statistic} of {column}"


def _keys() -> tuple[dict, str | None]:
    """The declared keys (typed, one per line) and the rule for values outside them."""
    c1, c2 = st.columns([2, 1])
    text = c1.text_area(
        "Declared keys (public), one per line", key="ppl_gb_keys", height=110, bind="query-params",
        help="From a codebook or the study's design, never from this file (a key held by one person would reveal "
        "them). Every key is published; one absent from the data as a noisy zero.",
    )  # fmt: skip
    other = widgets.bound(
        c2.checkbox, "Count values outside the list as (other)", key="ppl_gb_other",
        help="Declared before the data is read; otherwise their rows are left out. No count decides it.",
    )  # fmt: skip
    c2.caption("No button fills this list from the file: keys read from the data would not be private.")
    try:
        keys = domains.parse_domain(text)
    except ValueError as exc:
        return {}, plain_sentence(exc)
    return {"keys": keys or None, "other": bool(other)}, domains.missing_declarations(domain=keys or None)


def _noise(container) -> tuple[str, float | None]:
    """The family of the values' noise (one published on a lattice) and its δ, in ``container``."""
    published = [f for f in families.central() if f.lattice]
    with container:
        key = widgets.select(
            "Noise on the values", [f.key for f in published], "ppl_gb_noise",
            "Laplace: pure ε-DP, any L₀. Gaussian: (ε, δ)-DP, published here for one group per person (L₀ = 1).",
            format_func=lambda k: families.family(k).name,
        )  # fmt: skip
        family = families.family(key)
        delta = None
        if family.takes_delta:
            delta = widgets.delta_slider("ppl_gb_noise_delta", help="The δ of the noise on the published values.")
    return key, family.delta(delta)


def _bounds(statistic_words: str, l0: int) -> ContributionBounds:
    """L₀ from the view above and L∞ here (1 for persons per group)."""
    if statistic_words == "Persons per group":
        st.caption(f"Each person counted once in each of at most L₀ = {l0:,} of their groups (L∞ = 1).")
        return ContributionBounds(max_groups=l0)
    linf = widgets.whole_number(
        "L∞, most rows per person in a group", 1, MAX_TABLE_ROWS, 5, "ppl_gb_linf",
        "Each person keeps at most this many of their rows in each group (chosen at random, securely): the noise "
        "grows with it, and rows beyond it are dropped (a bias).",
    )  # fmt: skip
    return ContributionBounds(max_groups=l0, max_rows_per_group=linf)


def publish_section(persons: np.ndarray, person: str, column: str, chosen: PartitionSelection, l0: int) -> None:
    """Publish this group-by of ``column`` (``persons``: each row's person code; ``chosen``: the view's selection)."""
    with publishing.section(f"this group-by of {column}"):
        st.markdown(
            f"Groups of **{md(column)}**, each person in at most L₀ = {l0:,} of them, as chosen above. Every value is "
            "declared here; the view's simulation above (its seed, its truth) plays no part."
        )
        statistic_words, statistic = _statistic()
        c1, c2 = st.columns([1.2, 1])
        with c1:
            eps = widgets.epsilon_slider("ppl_gb_epsilon", "ε of the values", help="The ε of the noisy values.")
        with c2:
            bounds = _bounds(statistic_words, l0)
        declared, missing, what = {}, None, f"the {statistic_words.split()[0].lower()} per {column}"
        if statistic != "count":
            declared, missing, value_words = _values(statistic)
            what = f"the {value_words} per {column}"
        c1, c2 = st.columns([1, 1.2])
        mechanism, delta = _noise(c1)
        keys_words = widgets.bound(
            c2.radio, "Keys", list(KEYS), key="ppl_gb_keys_from",
            help="Declared: a public list, every key published. Kept by partition selection: the data's groups, each "
            "shown only if enough distinct persons hold it.",
        )  # fmt: skip
        selection = None
        if keys_words == KEYS[1]:
            keyed, missing_keys = _keys()
            declared.update(keyed)
            missing = missing or missing_keys
        else:
            selection = chosen
            st.caption(
                f"Groups kept by {md(chosen.words())}: a group shows only if its count of distinct persons passes the "
                "test; its ε and δ are added to the cost."
            )
        try:
            check_group_by_publication(mechanism, bounds)
            cost = group_by_cost(eps, statistic=statistic, mechanism=mechanism, delta=delta, selection=selection)
        except ValueError as exc:
            st.info(md(plain_sentence(exc)))
            return
        groups = state.dataset().frame[column]
        draw = lambda: publish_group_by(  # noqa: E731 - the draw, called once by the log after it is charged
            groups, eps, statistic=statistic, persons=persons, identifier=person, bounds=bounds,
            selection=selection, mechanism=mechanism, delta=delta, **declared,
        )  # fmt: skip
        shown = publishing.action("ppl_gb", what, cost, draw, missing, ADD_REMOVE, UNIT_PERSON)
        if shown:
            _kept(shown[0])


def _kept(release: Release) -> None:
    """How many groups the publication released and its threshold (read from the release); never what was dropped."""
    facts = {f.name: f.value for f in release.public}
    kept = len(release.labels)
    if SELECTION_FACT not in facts:
        st.markdown(f"**{kept:,} groups published**: every declared key, an absent one as a noisy zero.")
        return
    threshold = facts.get(THRESHOLD_FACT, "")
    st.markdown(
        f"**{kept:,} groups kept** by {md(facts[SELECTION_FACT])}; threshold on the noisy count of distinct "
        f"persons: {md(threshold)}. The groups that were not kept are neither named nor counted: a published "
        "group-by says what it kept, never what it dropped."
    )
