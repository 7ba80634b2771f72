"""Compare's means view: its controls (``cmp_mean_column``, ``cmp_mean_mechs``), one release of a numeric column's
mean by each chosen mechanism beside the truth, the error over simulated releases (noise and clipping bias), and the
95% bound of that error against ε.

The mechanisms are the LDP mean, a clipped mean with the noise of each central family of :mod:`dpcore.families`
(``"Laplace mean (central)"``, …, the values a link carries) and the SVT automatic mean; every number is the
empirical bound of simulated errors (:func:`dpcore.empirical.empirical_error_bound`). Each row of the simulated
releases' file carries the label of the mechanism that drew it (:func:`dpcore.simulation.simulated`): the LDP mean's
ε holds under replace one record, the central means' under add/remove one record (their clipped sum and count are
calibrated under :data:`dpcore.queries.RELATION`), the SVT mean's as every SVT release of the app. The curves are
cached for every session within a budget in bytes (:func:`explorer.cache.bounded`). No privacy fact is decided here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import LDPMean, auto_mean, dp_mean, families
from dpcore.accounting import PureDP
from dpcore.clipping import LADDER_CANDIDATES
from dpcore.empirical import empirical_error_bound
from dpcore.release import Release
from dpcore.simulation import simulated
from explorer import cache, charts, export, releases, snippets, state, widgets
from explorer.columns import numeric_values, suggest_bounds
from explorer.compare_layout import CONFIDENCE, GRID, SALT, labelled_file, thin_boxes, verdict
from explorer.export import to_safe_csv
from explorer.markup import md

__all__ = ["LDP_MEAN", "SVT_MEAN", "DEFAULT", "means_view", "mean_curves", "mean_estimates", "mean_label"]

#: The two means that are not a central family's noise on a clipped mean (labels as in releases.MEAN_MECHANISMS).
LDP_MEAN, SVT_MEAN = "LDP mean (local)", "SVT automatic mean (central)"
#: The mechanisms chosen when a link names none (the staircase is offered, not chosen).
DEFAULT = (LDP_MEAN, "Laplace mean (central)", "Gaussian mean (central)", SVT_MEAN)


def means_view(eps: float, delta: float) -> None:
    ds = state.dataset()
    columns = widgets.fitting_columns("numeric")
    if not columns:
        return
    column = widgets.select(
        "Numeric column", columns, "cmp_mean_column", "The mean of this column is the query every mechanism answers."
    )
    chosen = st.multiselect(
        "Mechanisms",
        releases.MEAN_MECHANISMS,
        default=list(DEFAULT),
        key="cmp_mean_mechs",
        bind="query-params",
        help="Pick two or more.",
    )
    if not chosen:
        st.info("Pick at least one mechanism to compare.")
        return
    values, _ = numeric_values(ds.frame[column])
    lower, upper = suggest_bounds(ds.frame[column])
    st.caption(
        f"Clipping bounds [{lower:g}, {upper:g}] are taken from the data (not private); the SVT mean picks its own "
        "from a fixed ladder 1, 2, 5, 10, … at a third of its ε."
    )
    seed = state.seed_words(SALT)
    release = releases.compare_means(values, lower, upper, chosen, eps, delta, seed)
    truth = float(np.mean(values))
    st.plotly_chart(
        charts.values_against_truth(
            dict(zip(release["mechanism"], release["noisy mean"])),
            truth,
            f"The true mean of {column} (dashed) and one release of each",
            y=f"mean of {column}",
        ),
        key="cmp_mean_release",
    )
    trials = state.trials()
    errors = {
        m: mean_estimates(m, eps, delta, values, lower, upper, state.rng(f"cmp-{m}"), trials) - truth for m in chosen
    }
    bounds = {m: empirical_error_bound(e, CONFIDENCE) for m, e in errors.items()}
    left, right = st.columns([1.6, 1])
    left.plotly_chart(
        charts.error_boxes(
            errors,
            f"Error of the mean over {state.trials():,} releases of each (noise and clipping bias)",
            y="noisy − true mean",
        ),
        key="cmp_mean_boxes",
    )
    right.markdown(verdict(bounds, eps, f"the mean of {md(column)}"))
    right.caption(thin_boxes(bounds))
    right.dataframe(
        pd.DataFrame({"mechanism": chosen, "95% within ±": [bounds[m] for m in chosen]}),
        hide_index=True,
        key="cmp_mean_table",
        column_config={"95% within ±": st.column_config.NumberColumn(format="%.4g")},
    )
    grid = GRID[::3]
    curve = mean_curves(
        state.dataset_key(),
        column,
        tuple(chosen),
        tuple(grid),
        delta,
        lower,
        upper,
        trials,
        tuple(tuple(state.seed_words(f"cmp-{m}")) for m in chosen),
        _values=values,
    )
    st.plotly_chart(
        charts.curves(
            grid,
            curve,
            eps,
            f"95% of simulated errors of the mean of '{column}' within ± (log), against ε",
            y_title="error bound (log)",
            log_y=True,
        ),
        key="cmp_mean_curve",
    )
    st.caption(
        f"Every number here is the 95th percentile of |noisy − true mean| over {state.trials():,} simulated "
        "releases, against the column's true mean, so clipping bias counts. The SVT mean spends a third of ε "
        "finding its bound; when its walk overshoots the data the sum gets very noisy, which gives its error a "
        "heavy tail. The LDP mean's ε holds under replace one record, the central means' under add/remove one record "
        "(each row of the file says which)."
    )
    cols = st.columns(3)
    cols[0].download_button(
        "Simulated releases (CSV), not private",
        to_safe_csv(
            labelled_file(
                {
                    m: (
                        release[release["mechanism"] == m].drop(columns="mechanism"),
                        mean_label(m, eps, delta, values, lower, upper, column),
                    )
                    for m in chosen
                }
            )
        ),
        file_name="compare_means_simulated.csv",
        mime="text/csv",
        help="One simulated release of each mechanism, no true mean, each row with its mechanism's label (ε, δ, the "
        "neighbouring relation): " + export.SIMULATED_HELP,
    )
    cols[1].download_button(
        "Curves (CSV)",
        to_safe_csv(pd.DataFrame({"epsilon": grid, **{f"95% bound {m}": v for m, v in curve.items()}})),
        file_name="compare_mean_curves.csv",
        mime="text/csv",
    )
    code = snippets.compare_means(state.dataset(), column, lower, upper, chosen, eps, delta, seed)
    cols[2].download_button("Python snippet", code, file_name="compare_means_snippet.py", mime="text/x-python")


@cache.bounded(cache.MIB, spinner="Simulating…")  # a few numbers per mechanism and ε: a few kilobytes each
def mean_curves(dataset_key, column, chosen, grid, delta, lower, upper, trials, seeds, *, _values) -> dict:
    # keyed by the dataset's unique key and the column; the values themselves are not hashed. Sorted once here, so
    # that each of the ε points below skips the sorts of the LDP mean and the SVT mean (the mean is order-free). Each
    # mechanism's draws start from its own seed words at every ε (the view's, common random numbers across ε)
    _values = np.sort(_values)
    truth = float(np.mean(_values))
    return {
        m: [
            empirical_error_bound(
                mean_estimates(m, e, delta, _values, lower, upper, np.random.default_rng(list(words)), trials) - truth
            )
            for e in grid
        ]
        for m, words in zip(chosen, seeds)
    }


def mean_estimates(name, eps, delta, values, lower, upper, gen, trials) -> np.ndarray:
    """``trials`` simulated noisy means of one mechanism, drawn from ``gen``."""
    if name == LDP_MEAN:
        return LDPMean(eps, lower, upper).simulate(values, gen, trials=trials)
    if name == SVT_MEAN:
        return auto_mean(values, LADDER_CANDIDATES, eps, gen, trials=trials).noisy_value
    family = families.labelled(" mean", "central")[name]  # a clipped mean with this family's noise
    return dp_mean(values, lower, upper, eps, gen, mechanism=family.key, delta=delta).simulate(trials, gen)


def mean_label(name, eps, delta, values, lower, upper, column) -> Release:
    """The label of one mechanism's simulated mean: the mechanism (or query result) that drew it says its ε, δ and
    relation (:func:`dpcore.simulation.simulated`); the SVT mean, a composite ε-DP release, as a ``PureDP`` event."""
    query = f"mean of {column}"
    if name == LDP_MEAN:
        return simulated(LDPMean(eps, lower, upper), query=query)
    if name == SVT_MEAN:
        return simulated(PureDP(eps), query=query)
    family = families.labelled(" mean", "central")[name]
    result = dp_mean(values, lower, upper, eps, 0, mechanism=family.key, delta=family.delta(delta))
    return simulated(result, query=query)
