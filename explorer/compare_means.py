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

Under a declared person unit (:mod:`explorer.unit`, at most m rows per person) a central mean is Central DP's
(:func:`explorer.releases.person_query`: each person's rows bounded to m, sampled uniformly, then a clipped sum of
sensitivity m·max(|L|, |U|) over a count of sensitivity m, under add/remove one person); the LDP mean takes one report
per person, of one row sampled uniformly (Local DP's rule: replace one person); the SVT mean, whose bound walk is for
one row per person, is left out with one sentence. Errors stay against the mean of all the rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import LDPMean, auto_mean, dp_mean, families
from dpcore.accounting import PureDP
from dpcore.clipping import LADDER_CANDIDATES
from dpcore.contributions import PrivacyUnit, rows_per_person
from dpcore.empirical import empirical_error_bound
from dpcore.release import Release
from dpcore.simulation import simulated
from explorer import cache, charts, export, releases, snippets, state, widgets
from explorer import unit as units
from explorer.columns import numeric_values, suggest_bounds
from explorer.compare_layout import (
    CONFIDENCE,
    GRID,
    SALT,
    PersonRows,
    labelled_file,
    person_rows,
    thin_boxes,
    verdict,
    with_unit,
)
from explorer.export import to_safe_csv
from explorer.markup import md

__all__ = ["LDP_MEAN", "SVT_MEAN", "DEFAULT", "means_view", "mean_curves", "mean_estimates", "mean_label"]

#: The two means that are not a central family's noise on a clipped mean (labels as in releases.MEAN_MECHANISMS).
LDP_MEAN, SVT_MEAN = "LDP mean (local)", "SVT automatic mean (central)"
#: The mechanisms chosen when a link names none (the staircase is offered, not chosen).
DEFAULT = (LDP_MEAN, "Laplace mean (central)", "Gaussian mean (central)", SVT_MEAN)


#: How each mean bounds a person's rows under a person unit, as its file row's label says it.
RULES = {
    LDP_MEAN: "one report per person, of one of their rows sampled uniformly (Local DP's rule)",
    "central": "at most m rows per person, sampled uniformly (Central DP's rule)",
}


def means_view(eps: float, delta: float, u: PrivacyUnit | None = None) -> None:
    """The means view under the declared unit ``u`` (default one row)."""
    u = PrivacyUnit() if u is None else u
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
    person = None
    if u.identifier is not None:
        person = person_rows(u, np.isfinite(ds.frame[column].to_numpy(dtype=np.float64, na_value=np.nan)))
        if person is None:
            return
        if SVT_MEAN in chosen:
            chosen = [m for m in chosen if m != SVT_MEAN]
            st.caption(
                "The SVT automatic mean is left out under a person unit: its bound walk protects one row, not a person."
            )
            if not chosen:
                st.info("Pick another mechanism to compare under the person unit.")
                return
        kept = int(np.minimum(rows_per_person(person.persons), person.max_rows).sum())
        st.caption(
            f"Unit: {units.short_words(u)}. The central means keep at most m = {person.max_rows:,} rows per person, "
            f"chosen at random, so **{kept:,} of {person.persons.size:,} rows are kept**, and a person moves the "
            f"clipped sum by at most m·max(|L|, |U|) and the count by m (add/remove one person). The LDP mean takes one "
            f"report per person, of one of their rows chosen at random (Local DP's rule: replace one person): {int(person.one_row.sum()):,} "
            "reports. The sampling is seeded (simulated, not private)."
        )
    lower, upper = suggest_bounds(ds.frame[column])
    st.caption(
        f"Clipping bounds [{lower:g}, {upper:g}] are taken from the data (not private); the SVT mean picks its own "
        "from a fixed ladder 1, 2, 5, 10, … at a third of its ε."
    )
    seed = state.seed_words(SALT)
    if person is None:
        release = releases.compare_means(values, lower, upper, chosen, eps, delta, seed)
    else:  # one draw of each from one stream, in the chooser's order
        rng = np.random.default_rng(seed)
        release = pd.DataFrame(
            {
                "mechanism": chosen,
                "noisy mean": [mean_estimates(m, eps, delta, values, lower, upper, rng, 1, person)[0] for m in chosen],
            }
        )
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
        m: mean_estimates(m, eps, delta, values, lower, upper, state.rng(f"cmp-{m}"), trials, person) - truth
        for m in chosen
    }
    bounds = {m: empirical_error_bound(e, CONFIDENCE) for m, e in errors.items()}
    left, right = st.columns([1.6, 1])
    left.plotly_chart(
        charts.error_boxes(
            errors,
            f"Error of the mean over {state.trials():,} releases of each "
            + ("(noise, clipping and bounding bias)" if person else "(noise and clipping bias)"),
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
        None if person is None else (u.identifier, person.max_rows),
        _values=values,
        _person=person,
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
        "releases, against the column's true mean, so clipping bias counts. "
        + (
            "The SVT mean spends a third of ε finding its bound; when its walk overshoots the data the sum gets very "
            "noisy, which gives its error a heavy tail. The LDP mean's ε holds under replace one record, the central "
            "means' under add/remove one record (each row of the file says which)."
            if person is None
            else "So does the bias of the rows each person's bound drops. The LDP mean's ε holds under replace one "
            "person, the central means' under add/remove one person (each row of the file says which)."
        )
    )
    cols = st.columns(3)
    cols[0].download_button(
        "Simulated releases (CSV), not private",
        to_safe_csv(
            labelled_file(
                {
                    m: (
                        release[release["mechanism"] == m].drop(columns="mechanism"),
                        mean_label(m, eps, delta, values, lower, upper, column, person),
                    )
                    for m in chosen
                }
            )
        ),
        file_name="compare_means_simulated.csv",
        mime="text/csv",
        help="One simulated release of each mechanism, no true mean, each row with its mechanism's label (ε, δ, the "
        "neighbouring relation, the unit of privacy): " + export.SIMULATED_HELP,
    )
    cols[1].download_button(
        "Curves (CSV)",
        to_safe_csv(pd.DataFrame({"epsilon": grid, **{f"95% bound {m}": v for m, v in curve.items()}})),
        file_name="compare_mean_curves.csv",
        mime="text/csv",
    )
    if person is not None:
        cols[2].caption("The Python snippet draws one row per person: declare one row to download it.")
        return
    code = snippets.compare_means(state.dataset(), column, lower, upper, chosen, eps, delta, seed)
    cols[2].download_button("Python snippet", code, file_name="compare_means_snippet.py", mime="text/x-python")


@cache.bounded(cache.MIB, spinner="Simulating…")  # a few numbers per mechanism and ε: a few kilobytes each
def mean_curves(
    dataset_key, column, chosen, grid, delta, lower, upper, trials, seeds, unit_key=None, *, _values, _person=None
) -> dict:
    # keyed by the dataset's unique key, the column and the person unit (its identifier and bound; None: one row); the
    # values themselves are not hashed. Sorted once here under one row, so that each of the ε points below skips the
    # sorts of the LDP mean and the SVT mean (the mean is order-free; under a person unit the rows keep their persons'
    # order). Each mechanism's draws start from its own seed words at every ε (common random numbers across ε)
    _values = np.sort(_values) if _person is None else _values
    truth = float(np.mean(_values))
    return {
        m: [
            empirical_error_bound(
                mean_estimates(m, e, delta, _values, lower, upper, np.random.default_rng(list(words)), trials, _person)
                - truth
            )
            for e in grid
        ]
        for m, words in zip(chosen, seeds)
    }


def mean_estimates(name, eps, delta, values, lower, upper, gen, trials, person: PersonRows | None = None) -> np.ndarray:
    """``trials`` simulated noisy means of one mechanism, drawn from ``gen``; under a person unit (``person``) the LDP
    mean on one row per person and a central mean on each person's rows bounded to m (Central DP's
    :func:`explorer.releases.person_query`, the bounding drawn from ``gen`` once, the noise ``trials`` times)."""
    if name == LDP_MEAN:
        values = values if person is None else values[person.one_row]
        return LDPMean(eps, lower, upper).simulate(values, gen, trials=trials)
    if name == SVT_MEAN:
        return auto_mean(values, LADDER_CANDIDATES, eps, gen, trials=trials).noisy_value
    family = families.labelled(" mean", "central")[name]  # a clipped mean with this family's noise
    if person is not None:
        result = releases.person_query(
            values, person.persons, person.max_rows, "mean", eps, gen, family.key, family.delta(delta), lower, upper
        )
        return result.simulate(trials, gen)
    return dp_mean(values, lower, upper, eps, gen, mechanism=family.key, delta=delta).simulate(trials, gen)


def mean_label(name, eps, delta, values, lower, upper, column, person: PersonRows | None = None) -> Release:
    """The label of one mechanism's simulated mean: the mechanism (or query result) that drew it says its ε, δ and
    relation (:func:`dpcore.simulation.simulated`); the SVT mean, a composite ε-DP release, as a ``PureDP`` event.
    Under a person unit (``person``) the label says unit=person (:func:`explorer.compare_layout.with_unit`)."""
    query = f"mean of {column}"
    if name == LDP_MEAN:
        label = simulated(LDPMean(eps, lower, upper), query=query)
    elif name == SVT_MEAN:
        label = simulated(PureDP(eps), query=query)
    else:
        family = families.labelled(" mean", "central")[name]
        noise = {"mechanism": family.key, "delta": family.delta(delta)}
        if person is None:
            result = dp_mean(values, lower, upper, eps, 0, **noise)
        else:  # the person-level sensitivities, m times the record's
            result = releases.person_query(
                values,
                person.persons,
                person.max_rows,
                "mean",
                eps,
                0,
                noise["mechanism"],
                noise["delta"],
                lower,
                upper,
            )
        label = simulated(result, query=query)
    if person is None:
        return label
    return with_unit(label, person.unit, RULES[LDP_MEAN if name == LDP_MEAN else "central"])
