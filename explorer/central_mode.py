"""The Central DP page's view of the most common value: the exponential mechanism choosing a category by its count
(``cen_category``, its own ε slider ``cen_em_epsilon``), its chance of picking the true mode and its shortfall bound.

The score is a count, whose sensitivity is the relation's (``dpcore.queries.RELATION``); the release is
:func:`explorer.releases.most_common`, or on a large file opened by path the same draw on the counts DuckDB computes
over every row (:func:`explorer.full_file.whole_categories`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import exponential_error_bound, exponential_mechanism, exponential_probabilities
from dpcore.accounting import PureDP
from dpcore.queries import RELATION
from explorer import budget, central_publish, charts, domains, full_file, releases, snippets, state, widgets
from explorer.central_layout import CONFIDENCE, EPS_GRID, SALT
from explorer.export import to_safe_csv
from explorer.markup import md

__all__ = ["view"]

#: The score of a candidate is its count: one record moves it by at most this.
SCORE_SENSITIVITY = RELATION.counting_query_sensitivity


def view(label: str, controls) -> None:
    """The most common value of a categorical column (its own ε: the page's noise ``controls`` are not used here)."""
    state.dataset()
    columns = widgets.fitting_columns("categorical")
    if not columns:
        return
    c1, c2 = st.columns([1, 1.4])
    with c1:
        column = widgets.select(
            "Categorical column",
            columns,
            "cen_category",
            "Past 50 categories the rarest values merge into (other).",
            index=columns.index("occupation") if "occupation" in columns else 0,
        )  # census: a close race
    with c2:
        # its own slider, at the other views' ε = 1: a smaller default made the 95% shortfall bound exceed a small
        # file's row count (0.02: 460 on 300 rows); move it down to see a close race (census occupation) get uncertain
        eps = widgets.epsilon_slider("cen_em_epsilon")
    codes, labels, note = state.encoded(column)
    st.caption(domains.FROM_THE_DATA)
    if note:
        st.caption(note)
    ds = state.dataset()
    whole = full_file.whole_categories(ds, column, labels) if ds.sampled else None
    if isinstance(whole, str):
        st.caption(full_file.sample_words(ds, whole))
        whole = None
    elif whole:
        st.caption(full_file.rows_words(ds, whole))
    counts = np.asarray(whole.counts) if whole else np.bincount(codes, minlength=len(labels))
    mode, k = int(np.argmax(counts)), len(labels)
    probs = exponential_probabilities(counts, eps, SCORE_SENSITIVITY)
    seed = state.seed_words(SALT)
    if whole:  # releases.most_common's draw, on the whole file's counts (it counts the codes of a table in memory)
        chosen = int(exponential_mechanism(counts, eps, SCORE_SENSITIVITY, np.random.default_rng(seed)))
    else:
        chosen = labels.index(releases.most_common(codes, labels, eps, seed))
    picks = exponential_mechanism(counts, eps, SCORE_SENSITIVITY, state.rng(SALT + "-sims"), trials=state.trials())
    freqs = np.bincount(picks, minlength=k) / picks.size
    top = float(counts[mode])
    # the shortfall of a count below the top count is at most the top count (counts are ≥ 0): min(bound, top) holds
    # with the same probability. The top count is private: a cap for this simulation beside the truth only (a plan's
    # bound, dpcore.plan and the Publish preview, reads no data and is not capped)
    formula = exponential_error_bound(k, eps, SCORE_SENSITIVITY, CONFIDENCE)
    bound, capped = min(formula, top), formula >= top
    a, b, c = st.columns(3)
    # category values come from the user's file: metric values render Markdown, so they are escaped
    a.metric(
        "True most common value", md(labels[mode]), f"count {counts[mode]:,}", delta_color="off", delta_arrow="off"
    )
    b.metric(
        "Chosen (simulated, not private)",
        md(labels[chosen]),
        f"count {counts[chosen]:,}, {counts[mode] - counts[chosen]:,} below the top",
        delta_color="off",
        delta_arrow="off",
    )
    c.metric(
        "95% bound on the shortfall",
        f"{bound:,.1f}",
        "capped at the top count" if capped else None,
        delta_color="off",
        delta_arrow="off",
    )
    runner_up = int(np.sort(counts)[-2])
    st.markdown(
        f"With 95% probability the chosen value's count is at most **{bound:,.1f}** below the top count "
        f"(Dwork & Roth, Theorem 3.11, {k} candidates). The top two counts differ by {counts[mode] - runner_up:,}: "
        "the larger that gap is next to 2/ε, the surer the pick."
    )
    if capped:
        st.caption(
            f"Capped: at this ε the formula gives {formula:,.1f}, more than the top count {counts[mode]:,}, and no "
            "count falls below 0, so the shortfall is at most the top count, with probability 1. The top count is "
            "read from the data: a cap for this simulation only; a publication's planned bound reads no data and "
            "keeps the formula. The curve below flattens there."
        )
    st.plotly_chart(
        charts.probabilities_and_frequencies(
            labels,
            probs,
            freqs,
            mode,
            f"{column}: chance of each value being chosen (orange: the true most common)",
            state.trials(),
        ),
        key="cen_probs",
    )
    left, mid, right = st.columns([1.3, 1.3, 1])
    p_mode = [exponential_probabilities(counts, e, SCORE_SENSITIVITY)[mode] for e in EPS_GRID]
    left.plotly_chart(
        charts.curves(
            EPS_GRID,
            {"P(true most common chosen)": p_mode},
            eps,
            "Chance of picking the true most common value",
            y_title="probability",
        ),
        key="cen_em_p",
    )
    mid.plotly_chart(
        charts.curves(
            EPS_GRID,
            {
                "95% shortfall bound": [
                    min(exponential_error_bound(k, e, SCORE_SENSITIVITY, CONFIDENCE), top) for e in EPS_GRID
                ]
            },
            eps,
            "95% bound on the count shortfall",
            y_title="count",
            log_y=True,
        ),
        key="cen_em_bound",
    )
    # the ε at which the formula reaches the top count (it is ∝ 1/ε): below it, the curve is the cap
    below = exponential_error_bound(k, 1.0, SCORE_SENSITIVITY, CONFIDENCE) / top if top > 0 else np.inf
    if below > EPS_GRID[0]:
        mid.caption(f"Flat below ε = {below:.2g}: capped at the top count, {counts[mode]:,}.")
    right.metric("P(true most common chosen), theory", f"{probs[mode]:.3f}")
    right.metric("Empirical frequency", f"{freqs[mode]:.3f}", help=f"Over {state.trials():,} independent picks.")
    table = pd.DataFrame({column: labels, "true count": counts, "probability": probs, "chosen": np.arange(k) == chosen})
    right.download_button(
        "Choice and probabilities (CSV)", to_safe_csv(table), file_name="central_mode.csv", mime="text/csv"
    )
    if not whole:  # a snippet redraws the release from a table in memory: none for the counts over the whole file
        code = snippets.most_common(ds, column, eps, seed)
        right.download_button("Python snippet", code, file_name="central_mode.py", mime="text/x-python")
    with right:  # accounted as any ε-DP release (dpcore.accounting.PureDP)
        budget.record_release(PureDP(eps), label=f"Most common {column}, exponential ε={eps:g}", key="cen_em")
        widgets.audit_link("exponential", eps, candidates=k, sensitivity=SCORE_SENSITIVITY)
    central_publish.most_common(column, state.dataset().frame[column], eps)
