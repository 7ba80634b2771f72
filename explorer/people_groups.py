"""People page, second view: a group-by whose keys are not public, and how many groups partition selection keeps.

A group whose key comes from the data is released only when its count of distinct persons passes a private test
(:mod:`dpcore.partition_selection`), after each person is bounded to at most L₀ groups
(:func:`dpcore.contributions.bound_contributions`). The view simulates it, seeded and labelled "simulated, not
private": how many groups are kept at the chosen ε, δ and L₀ (:func:`dpcore.groupby.group_by`), and the expected
number kept as ε, δ and L₀ move (:meth:`~dpcore.partition_selection.PartitionSelection.expected_kept`). It says how
many groups were kept and the threshold, never which ones were dropped. The simulated group-by can be recorded in the
tab's teaching ledger as the releases dpcore says it is made of (:func:`dpcore.groupby.group_by_releases`: the
selection's (ε, δ), then the counts' noise), under add/remove one person.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpcore.contributions import ContributionBounds, bound_contributions
from dpcore.groupby import group_by, group_by_cost, group_by_releases
from dpcore.limits import MAX_CATEGORIES
from dpcore.neighbours import UNIT_PERSON
from dpcore.partition_selection import SELECTIONS, selection
from explorer import budget, charts, people_publish, state, widgets
from explorer.markup import md, plain_sentence

#: The L₀'s drawn as curves (each person in at most this many groups), beside the chosen one.
L0_CURVES = (1, 2, 5, 10)
#: The ε's of the curve against ε (the slider's range, on a log grid).
EPSILONS = np.geomspace(0.01, 10.0, 31)
#: The δ's of the curve against δ.
DELTAS = np.geomspace(1e-10, 1e-2, 33)
SIMULATED = "simulated, not private"


def _distinct_counts(person: str) -> dict[str, int]:
    """The number of distinct values of every text or date column but the identifier (kept per dataset)."""
    frame = state.dataset().frame
    numeric = set(state.numeric_columns())
    counts = state.per_dataset("ppl_distinct", lambda: {str(c): int(frame[c].nunique()) for c in frame.columns})
    return {c: n for c, n in counts.items() if c != person and c not in numeric}


def group_columns(person: str) -> list[str]:
    """The columns a group-by can use: every text or date column but the identifier, with 2 to MAX_CATEGORIES values."""
    return [c for c, n in _distinct_counts(person).items() if 2 <= n <= MAX_CATEGORIES]


def too_many_keys(counts: dict[str, int]) -> str | None:
    """One sentence naming each column left out for holding more than MAX_CATEGORIES distinct keys, with its count
    (Markdown, the names escaped), or None when none is.

    Examples
    --------
    >>> print(too_many_keys({"key": 150_000, "clinic": 4}))
    key has 150,000 distinct values; a group-by takes at most 100,000.
    """
    over = [f"{md(c)} has {n:,} distinct values" for c, n in counts.items() if n > MAX_CATEGORIES]
    if not over:
        return None
    named = over[0] if len(over) == 1 else f"{', '.join(over[:-1])} and {over[-1]}"
    return f"{named}; a group-by takes at most {MAX_CATEGORIES:,}."


def _distinct(persons: np.ndarray, column: str, max_groups: int, seed: list[int]) -> np.ndarray:
    """Distinct persons per group after bounding each person to ``max_groups`` groups (seeded: a simulation)."""
    groups = state.dataset().frame[column]
    key = f"ppl_distinct_{column}_{max_groups}_{seed}"
    table = lambda: bound_contributions(  # noqa: E731
        persons, np.random.default_rng(seed), bounds=ContributionBounds(max_groups=max_groups), groups=groups
    )
    return state.per_dataset(key, lambda: table().distinct)


def groups_view(persons: np.ndarray, person: str) -> None:
    """The controls, the simulated selection at the chosen parameters, and the curves against ε, δ and L₀."""
    columns = group_columns(person)
    too_many = too_many_keys(_distinct_counts(person))
    if not columns:
        st.info(
            "This table has no other text or date column with 2 to "
            f"{MAX_CATEGORIES:,} values to group by{': ' + too_many if too_many else '.'}"
        )
        return
    if too_many:
        st.caption(f"Left out of the group columns: {too_many}")
    c1, c2 = st.columns(2)
    with c1:
        column = widgets.select(
            "Group column", columns, "ppl_group", "The key of the group-by: counts of rows per key."
        )
    with c2:
        key = widgets.select(
            "Partition selection",
            [cls.key for cls in SELECTIONS],
            "ppl_selection",
            "How a group is kept: the optimal mechanism (Desfontaines et al. 2022), or a noisy count of distinct "
            "persons against a threshold (Laplace, Gaussian).",
            format_func=lambda k: next(cls.name for cls in SELECTIONS if cls.key == k),
        )
    c1, c2, c3 = st.columns([1.4, 1, 1])
    with c1:
        eps = widgets.epsilon_slider("ppl_sel_epsilon", help="The ε of the selection (the counts take as much again).")
    with c2:
        delta = widgets.delta_slider(
            "ppl_sel_delta", help="The δ of the selection: the chance a one-person group shows."
        )
    with c3:
        l0 = widgets.whole_number(
            "L₀, most groups per person", 1, 100, 1, "ppl_l0",
            "Each person keeps at most this many of their groups (chosen at random); more groups per person means "
            "more noise per group.",
        )  # fmt: skip
    seed = state.seed_words("people_groups")
    try:
        chosen = selection(key, eps, delta, l0)
        result = group_by(
            state.dataset().frame[column], eps, np.random.default_rng(seed), persons=persons,
            bounds=ContributionBounds(max_groups=l0), selection=chosen,
        )  # fmt: skip
    except ValueError as exc:
        st.warning(f"The group-by cannot be simulated: {md(plain_sentence(exc))}")
        return
    threshold = "none (each group is kept with a probability that grows with its persons)"
    if result.threshold is not None:
        threshold = f"{result.threshold:,.4g} distinct persons"
    m1, m2, m3 = st.columns(3)
    m1.metric(f"Groups kept ({SIMULATED})", f"{result.kept:,}")
    m2.metric("Threshold", "none" if result.threshold is None else f"{result.threshold:,.4g}")
    counts_epsilon, _ = group_by_cost(eps)  # the noisy counts' part; the selection adds its own ε
    m3.metric(
        "Cost of the group-by",
        f"ε = {result.epsilon:.4g}, δ = {result.delta:.2g}",
        f"selection ε {chosen.epsilon:.4g} + counts ε {counts_epsilon:.4g}",
        delta_color="off",
        delta_arrow="off",
    )
    st.markdown(
        f"**{SIMULATED.capitalize()}:** {result.kept:,} groups of {md(column)} were kept by {md(chosen.words())}; "
        f"threshold on the noisy count of distinct persons: {md(threshold)}. A group with few persons is kept "
        f"rarely: with one person, with probability {chosen.group_delta:.2g}; with {chosen.half_size:,} or more, "
        "at least half the time. Which groups were dropped is not shown: a published group-by says how many it kept "
        "and the threshold, never what it dropped."
    )
    budget.record_release(
        list(group_by_releases(eps, selection=chosen, bounds=ContributionBounds(max_groups=l0), unit=UNIT_PERSON)),
        label=[
            f"Group-by of {column}: partition selection, L₀ = {l0} ({SIMULATED})",
            f"Group-by of {column}: noisy counts of the kept groups ({SIMULATED})",
        ],
        key="ppl_groups",
        unit=UNIT_PERSON,
    )
    curves(persons, column, key, eps, delta, l0, seed)
    people_publish.publish_section(persons, person, column, chosen, l0)


def curves(persons, column: str, key: str, eps: float, delta: float, l0: int, seed: list[int]) -> None:
    """The expected groups kept against ε and against δ, one curve per L₀ (the bounding seeded)."""
    bounds = sorted({*L0_CURVES, l0})
    distinct = {m: _distinct(persons, column, m, seed) for m in bounds}
    against_eps = {
        f"L₀ = {m}": (EPSILONS, np.array([selection(key, e, delta, m).expected_kept(distinct[m]) for e in EPSILONS]))
        for m in bounds
    }
    against_delta = {
        f"L₀ = {m}": (DELTAS, np.array([selection(key, eps, d, m).expected_kept(distinct[m]) for d in DELTAS]))
        for m in bounds
    }
    c1, c2 = st.columns(2)
    c1.plotly_chart(
        charts.xy_curves(
            against_eps, current=eps, title=f"Groups kept against ε (δ = {delta:.0e}; {SIMULATED})",
            x_title="ε of the selection", y_title="expected groups kept", current_label=f"ε = {eps:g}",
        ),
        key="ppl_groups_eps",
    )  # fmt: skip
    by_delta = charts.xy_curves(
        against_delta, current=delta, title=f"Groups kept against δ (ε = {eps:g}; {SIMULATED})",
        x_title="δ of the selection", y_title="expected groups kept", current_label=f"δ = {delta:.0e}",
    )  # fmt: skip
    ticks = [10.0**e for e in range(-10, -1, 2)]  # the 1-2-5 ticks of a log axis stop at 1e-4: one per 2 decades
    by_delta.update_xaxes(tickvals=ticks, ticktext=[f"{t:.0e}" for t in ticks], tickangle=0)
    c2.plotly_chart(by_delta, key="ppl_groups_delta")
    st.caption(
        f"{SIMULATED.capitalize()}: each person's groups bounded to L₀ by a seeded draw, then the expected number of "
        "groups kept, the sum over the groups of their chance of being kept. More groups per person (a larger L₀) "
        "keeps more of each person's rows but splits ε and δ among their groups, so each group needs more persons."
    )
