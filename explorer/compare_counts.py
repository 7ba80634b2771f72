"""Compare's counts view: its controls (``cmp_column``, ``cmp_count_mechs``), one release of a categorical column's
counts by each chosen family beside the truth, the error of the most common value's count over simulated releases,
and the std of a rare value's count against ε.

Every family of :mod:`dpcore.families` is offered under its label (``"GRR (local)"``, ``"Laplace (central)"``, the
values a link carries) and answers through its :class:`~dpcore.families.Counts` under
:data:`explorer.compare_layout.RELATION` (replace one record, the relation local DP protects): its std, its
simulation, and the relation its file states, read from the same ``Counts``. The one release is drawn from each
family's exact law given the true counts (:func:`explorer.releases.compare_counts`), O(k) work however many rows; no
privacy fact is decided here.

Under a declared person unit (:mod:`explorer.unit`, at most m rows per person) the central families answer the
histogram of the bounded rows as Central DP's histogram bounds them (at most m of each person's rows, in any
categories, sampled uniformly: :func:`explorer.releases.person_histogram`), with noise calibrated to
:func:`explorer.releases.person_histogram_sensitivity` (m in ℓ1 and ℓ2) under add/remove one person; the local
families take one report per person, of one row sampled uniformly (Local DP's rule), so their ε is the person's
under replace one person. Every error is measured against the counts of all the rows, so what the bounding drops
counts as error. The one release is then drawn here from the same ``Counts`` (no snippet:
:func:`explorer.releases.compare_counts` is for one row per person).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import families
from dpcore.contributions import PrivacyUnit
from dpcore.empirical import empirical_error_bound
from dpcore.families import LOCAL, Counts
from explorer import charts, export, releases, snippets, state, unit, widgets
from explorer.compare_layout import (
    CONFIDENCE,
    GRID,
    SALT,
    PersonRows,
    count_label,
    labelled_file,
    person_rows,
    relation,
    thin_boxes,
    verdict,
)
from explorer.export import to_safe_csv
from explorer.markup import md

__all__ = [
    "DEFAULT",
    "RULES",
    "count_answers",
    "answered_counts",
    "count_std",
    "count_errors",
    "counts_file",
    "counts_view",
]

#: The families chosen when a link names none (the staircase and SUE are offered, not chosen).
DEFAULT = ("GRR (local)", "OUE (local)", "Laplace (central)", "Gaussian (central)")


#: How each kind of family bounds a person's rows under a person unit, as its file row's label says it.
RULES = {
    LOCAL: "one report per person, of one of their rows sampled uniformly (Local DP's rule)",
    "central": "at most m of each person's rows, sampled uniformly, in any categories (a person moves the counts by at "
    "most m in all)",
}


def count_answers(names, eps: float, delta: float, k: int, u: PrivacyUnit | None = None) -> dict[str, Counts]:
    """Each labelled family answering a k-category histogram at ε (δ for an (ε, δ) family) under the page's relation
    for the declared unit ``u`` (default one row). Under a person unit a central family's noise is calibrated to the
    unit's histogram sensitivity in its norm (ℓ1 for Laplace and the staircase, ℓ2 for the Gaussian); a local
    family's oracle is unchanged (one report per person)."""
    labelled = families.labelled()
    u = PrivacyUnit() if u is None else u
    out = {}
    for name in names:
        f = labelled[name]
        if u.identifier is None or f.model == LOCAL:
            out[name] = f.counts(eps, k, delta=delta, relation=relation(u))
        else:
            sensitivity = releases.person_histogram_sensitivity(u.bounds.max_rows).norm(f.norm)
            out[name] = Counts(f, f.noise(eps, sensitivity, f.delta(delta)), k, relation(u))
    return out


def counts_file(
    release: pd.DataFrame, answers: dict[str, Counts], column: str, u: PrivacyUnit | None = None
) -> pd.DataFrame:
    """The simulated releases' file: one block of rows per mechanism, each with the label of the ``Counts`` whose
    noise drew it (the relation it was calibrated for included) and the declared unit ``u`` (default one row)."""
    return labelled_file(
        {
            name: (
                pd.DataFrame({"column": column, "value": release["value"], "noisy count": release[name]}),
                count_label(answer, f"counts of {column}", u, RULES[answer.family.model]),
            )
            for name, answer in answers.items()
        }
    )


def answered_counts(codes: np.ndarray, k: int, names, person: PersonRows | None) -> tuple[dict, str]:
    """The true counts each mechanism answers, and a sentence on the rows kept (empty under one row).

    Under a person unit a central family answers the bounded rows (seeded from the page's salt: a simulation) and a
    local family the one row per person of ``person.one_row``; under one row every mechanism answers every row.
    """
    true = np.bincount(codes, minlength=k)
    if person is None:
        return dict.fromkeys(names, true), ""
    rng = np.random.default_rng(state.seed_words(f"{SALT}-bound"))
    table, bounded = releases.person_histogram(person.persons, codes, k, person.max_rows, rng)
    one_each = np.bincount(codes[person.one_row], minlength=k)
    labelled = families.labelled()
    truths = {name: one_each if labelled[name].model == LOCAL else bounded for name in names}
    said = (
        f"Unit: {unit.short_words(person.unit)}. Central noise: each person keeps at most m = {person.max_rows:,} of "
        f"their rows, chosen at random, in any categories, so **{table.rows_kept:,} of {table.rows:,} rows are "
        f"kept** ({table.persons:,} persons), and a person moves the counts by at most m in all (sensitivity "
        f"{releases.person_histogram_sensitivity(person.max_rows).l1:g}, add/remove one person). Local: one report per person, of "
        f"one of their rows chosen at random (Local DP's rule: replace one person), {int(person.one_row.sum()):,} reports. The sampling is "
        "seeded (simulated, not private). Errors are against the counts of all the rows, so dropped rows count."
    )
    return truths, said


def count_std(answer: Counts, true: np.ndarray, j: int | None = None) -> float:
    """Std of the count of value ``j``, or of a value with count 0 (what rare values pay) when ``j`` is None."""
    if j is not None:
        return float(answer.std(true)[j])
    rare = np.zeros(true.size, dtype=np.int64)
    rare[0] = true.sum()
    return float(answer.std(rare)[1])


def count_errors(answers: dict[str, Counts], true: np.ndarray, j: int, trials: int, truths=None) -> dict:
    """Simulated errors of the count of value ``j``, per mechanism (local: the exact aggregate law), each answering
    its own counts (``truths[name]``, default ``true``: what it saw under the unit) and measured against ``true``."""
    truths = truths or {}
    return {
        name: answer.simulate(truths.get(name, true), state.rng(f"{SALT}-{name}"), trials)[:, j] - true[j]
        for name, answer in answers.items()
    }


def counts_view(eps: float, delta: float, u: PrivacyUnit | None = None) -> None:
    """The counts view under the declared unit ``u`` (default one row)."""
    u = PrivacyUnit() if u is None else u
    columns = widgets.fitting_columns("categorical")
    if not columns:
        return
    column = widgets.select(
        "Column", columns, "cmp_column", "The histogram of this column is the query every mechanism answers."
    )
    chosen = st.multiselect(
        "Mechanisms",
        releases.COUNT_MECHANISMS,
        default=list(DEFAULT),
        key="cmp_count_mechs",
        bind="query-params",
        help="Pick two or more.",
    )
    if not chosen:
        st.info("Pick at least one mechanism to compare.")
        return
    codes, labels, _ = state.encoded(column)
    true = np.bincount(codes, minlength=len(labels))
    person = None
    if u.identifier is not None:
        person = person_rows(u)
        if person is None:
            return
    truths, said = answered_counts(codes, len(labels), chosen, person)
    if said:
        st.caption(said)
    seed = state.seed_words(SALT)
    answers = count_answers(chosen, eps, delta, len(labels), u)
    if person is None:
        release = releases.compare_counts(codes, labels, chosen, eps, delta, seed, relation(u).value)
    else:  # each family's exact law given the counts it answers, in the chooser's order (as compare_counts draws)
        rng = np.random.default_rng(seed)
        release = pd.DataFrame({"value": labels, **{m: answers[m].simulate(truths[m], rng, 1)[0] for m in chosen}})
    st.plotly_chart(
        charts.releases_against_truth(
            labels, true, {m: release[m] for m in chosen}, f"{column}: the true counts and one release of each"
        ),
        key="cmp_release",
    )
    j, trials = int(np.argmax(true)), state.trials()
    errors = count_errors(answers, true, j, trials, truths)
    bounds = {m: empirical_error_bound(e, CONFIDENCE) for m, e in errors.items()}
    left, right = st.columns([1.6, 1])
    left.plotly_chart(
        charts.error_boxes(
            errors,
            f"Error of the count of '{labels[j]}' over {trials:,} releases of each",
        ),
        key="cmp_boxes",
    )
    right.markdown(verdict(bounds, eps, f"the count of '{md(labels[j])}'"))
    right.caption(thin_boxes(bounds))
    table = pd.DataFrame(
        {
            "mechanism": chosen,
            "std (theory)": [count_std(answers[m], truths[m], j) for m in chosen],
            "95% within ±": [bounds[m] for m in chosen],
        }
    )
    right.dataframe(
        table,
        hide_index=True,
        key="cmp_count_table",
        column_config={c: st.column_config.NumberColumn(format="%.4g") for c in table.columns[1:]},
    )
    at_grid = [count_answers(chosen, e, delta, len(labels), u) for e in GRID]
    series = {m: [count_std(answers_at[m], truths[m]) for answers_at in at_grid] for m in chosen}
    # the n each curve answers: every row, or under a person unit one report per person (local), the rows kept
    # (central); the title said the table's 19,520 rows under curves drawn for 3,000 reports and 7,862 rows
    sizes = {answers[m].family.model: int(truths[m].sum()) for m in chosen}
    # one n when every model answers the same rows (it read "n = 344, n = 344" on penguins under one row)
    n_words = (
        f"n = {next(iter(sizes.values())):,}"
        if len(set(sizes.values())) == 1
        else ", ".join(f"n = {n:,} ({model})" for model, n in sizes.items())
    )
    st.plotly_chart(
        charts.curves(
            GRID,
            series,
            eps,
            f"Std of a rare value's count of '{column}' against ε (k = {len(labels)}, {n_words})",
            y_title="std of a count (log)",
            log_y=True,
        ),
        key="cmp_count_curve",
    )
    cols = st.columns(3)
    cols[0].download_button(
        "Simulated releases (CSV), not private",
        to_safe_csv(counts_file(release, answers, column, u)),
        file_name="compare_simulated_releases.csv",
        mime="text/csv",
        help="One simulated release of each mechanism, no true counts, each row with its mechanism's label (ε, δ, "
        "the neighbouring relation its noise was calibrated for, the unit of privacy): " + export.SIMULATED_HELP,
    )
    cols[1].download_button(
        "Errors and curves (CSV)",
        to_safe_csv(pd.DataFrame({"epsilon": GRID, **{f"std {m}": v for m, v in series.items()}})),
        file_name="compare_curves.csv",
        mime="text/csv",
        help="The std of a count at each ε of the chart.",
    )
    if person is not None:
        cols[2].caption("The Python snippet draws one row per person: declare one row to download it.")
        return
    code = snippets.compare_counts(state.dataset(), column, chosen, eps, delta, seed, relation(u).value)
    cols[2].download_button("Python snippet", code, file_name="compare_snippet.py", mime="text/x-python")
