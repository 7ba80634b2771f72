"""Compare's counts view: its controls (``cmp_column``, ``cmp_count_mechs``), one release of a categorical column's
counts by each chosen family beside the truth, the error of the most common value's count over simulated releases,
and the std of a rare value's count against ε.

Every family of :mod:`dpcore.families` is offered under its label (``"GRR (local)"``, ``"Laplace (central)"``, the
values a link carries) and answers through its :class:`~dpcore.families.Counts` under
:data:`explorer.compare_layout.RELATION` (replace one record, the relation local DP protects): its std, its
simulation, and the relation its file states, read from the same ``Counts``. The one release is drawn from each
family's exact law given the true counts (:func:`explorer.releases.compare_counts`), O(k) work however many rows; no
privacy fact is decided here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import families
from dpcore.empirical import empirical_error_bound
from dpcore.families import Counts
from explorer import charts, export, releases, snippets, state, widgets
from explorer.compare_layout import CONFIDENCE, GRID, RELATION, SALT, count_label, labelled_file, thin_boxes, verdict
from explorer.export import to_safe_csv
from explorer.markup import md

__all__ = ["DEFAULT", "count_answers", "count_std", "count_errors", "counts_file", "counts_view"]

#: The families chosen when a link names none (the staircase and SUE are offered, not chosen).
DEFAULT = ("GRR (local)", "OUE (local)", "Laplace (central)", "Gaussian (central)")


def count_answers(names, eps: float, delta: float, k: int) -> dict[str, Counts]:
    """Each labelled family answering a k-category histogram at ε (δ for an (ε, δ) family) under the page's relation."""
    labelled = families.labelled()
    return {name: labelled[name].counts(eps, k, delta=delta, relation=RELATION) for name in names}


def counts_file(release: pd.DataFrame, answers: dict[str, Counts], column: str) -> pd.DataFrame:
    """The simulated releases' file: one block of rows per mechanism, each with the label of the ``Counts`` whose
    noise drew it (the relation it was calibrated for included)."""
    return labelled_file(
        {
            name: (
                pd.DataFrame({"column": column, "value": release["value"], "noisy count": release[name]}),
                count_label(answer, f"counts of {column}"),
            )
            for name, answer in answers.items()
        }
    )


def count_std(answer: Counts, true: np.ndarray, j: int | None = None) -> float:
    """Std of the count of value ``j``, or of a value with count 0 (what rare values pay) when ``j`` is None."""
    if j is not None:
        return float(answer.std(true)[j])
    rare = np.zeros(true.size, dtype=np.int64)
    rare[0] = true.sum()
    return float(answer.std(rare)[1])


def count_errors(answers: dict[str, Counts], true: np.ndarray, j: int, trials: int) -> dict:
    """Simulated errors of the count of value ``j``, per mechanism (local: the exact aggregate law)."""
    return {
        name: answer.simulate(true, state.rng(f"{SALT}-{name}"), trials)[:, j] - true[j]
        for name, answer in answers.items()
    }


def counts_view(eps: float, delta: float) -> None:
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
    seed = state.seed_words(SALT)
    release = releases.compare_counts(codes, labels, chosen, eps, delta, seed, RELATION.value)
    st.plotly_chart(
        charts.releases_against_truth(
            labels, true, {m: release[m] for m in chosen}, f"{column}: the true counts and one release of each"
        ),
        key="cmp_release",
    )
    j, trials = int(np.argmax(true)), state.trials()
    answers = count_answers(chosen, eps, delta, len(labels))
    errors = count_errors(answers, true, j, trials)
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
            "std (theory)": [count_std(answers[m], true, j) for m in chosen],
            "95% within ±": [bounds[m] for m in chosen],
        }
    )
    right.dataframe(
        table,
        hide_index=True,
        key="cmp_count_table",
        column_config={c: st.column_config.NumberColumn(format="%.4g") for c in table.columns[1:]},
    )
    at_grid = [count_answers(chosen, e, delta, len(labels)) for e in GRID]
    series = {m: [count_std(answers_at[m], true) for answers_at in at_grid] for m in chosen}
    st.plotly_chart(
        charts.curves(
            GRID,
            series,
            eps,
            f"Std of a rare value's count of '{column}' against ε (k = {len(labels)}, n = {true.sum():,})",
            y_title="std of a count (log)",
            log_y=True,
        ),
        key="cmp_count_curve",
    )
    cols = st.columns(3)
    cols[0].download_button(
        "Simulated releases (CSV), not private",
        to_safe_csv(counts_file(release, answers, column)),
        file_name="compare_simulated_releases.csv",
        mime="text/csv",
        help="One simulated release of each mechanism, no true counts, each row with its mechanism's label (ε, δ, "
        "the neighbouring relation its noise was calibrated for): " + export.SIMULATED_HELP,
    )
    cols[1].download_button(
        "Errors and curves (CSV)",
        to_safe_csv(pd.DataFrame({"epsilon": GRID, **{f"std {m}": v for m, v in series.items()}})),
        file_name="compare_curves.csv",
        mime="text/csv",
        help="The std of a count at each ε of the chart.",
    )
    code = snippets.compare_counts(state.dataset(), column, chosen, eps, delta, seed, RELATION.value)
    cols[2].download_button("Python snippet", code, file_name="compare_snippet.py", mime="text/x-python")
