"""Compare's quantiles view: a quantile (the median by default) of a numeric column by the exponential mechanism over
the declared range (:mod:`dpcore.quantiles`, Smith 2011) and read off a noisy histogram of declared bins with each
central family's noise (:mod:`dpcore.histogram_quantile`), at the same ε: one release of each beside the truth, the
error over simulated releases, the 95% bound of that error against ε, and the exponential mechanism's stated bound.

Its controls: ``cmp_q_column``, ``cmp_q`` (q), ``cmp_q_bins`` (the histograms' bins), the range
``cmp_q_lower_<column>`` / ``cmp_q_upper_<column>`` (typed, never read from the data: :data:`DEFAULT_RANGE` until
the user types one) and ``cmp_q_mechs``. The one release of each is :func:`explorer.releases.compare_quantiles`' (the snippet's). Both ways hold under add/remove one record (the exponential mechanism's
:data:`dpcore.quantiles.RELATION`, the histogram's :data:`dpcore.queries.RELATION`); each file row says so, read
from the mechanism that drew it. The work of a rerun is bounded whatever the upload: the exponential mechanism's law
is built once per setting and moved along ε without sorting again (:meth:`dpcore.QuantileIntervals.at_epsilon`), and
the histogram methods simulate at most :data:`MAX_CELLS` noisy counts (:data:`CURVE_CELLS` per point of the curve),
fewer trials when there are many bins, said on the page. No privacy fact is decided here.

Under a declared person unit (:mod:`explorer.unit`) the rule is **one row per person**: every mechanism answers the
quantile of one row per person, sampled uniformly from the page's seed (:func:`explorer.releases.one_row_each`, the
contribution bounding of Wilson et al. 2020, Section 3, with at most one row per person). Adding or removing a person
then adds or removes one row of the sampled table, so the record-level calibrations hold unchanged under add/remove
one person (the rank score's sensitivity 1, the histogram's 1); the bound m is not used (a rank moved by m rows would
widen the exponential mechanism's error m-fold). The errors stay against the quantile of all the rows, so what the
sampling moves counts; the exponential mechanism's stated bound is about the sampled rows' quantile.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import families
from dpcore.accounting import PureDP
from dpcore.contributions import PrivacyUnit
from dpcore.empirical import empirical_error_bound
from dpcore.histogram_quantile import dp_histogram_quantile
from dpcore.quantiles import ExponentialQuantile
from dpcore.simulation import simulated
from explorer import cache, charts, export, releases, snippets, state, unit, widgets
from explorer.columns import numeric_values
from explorer.compare_layout import CONFIDENCE, GRID, SALT, labelled_file, person_rows, thin_boxes, verdict, with_unit
from explorer.export import to_safe_csv
from explorer.markup import md, number, plain_sentence

__all__ = [
    "EXPONENTIAL",
    "HISTOGRAMS",
    "MECHANISMS",
    "DEFAULT",
    "BINS",
    "DEFAULT_RANGE",
    "MAX_CELLS",
    "CURVE_CELLS",
    "quantiles_view",
    "quantile_curves",
]

#: The exponential mechanism, as the chooser and the charts name it.
EXPONENTIAL = "Exponential mechanism (central)"
#: A quantile read off a noisy histogram, one per central family (its plain name, never its key).
HISTOGRAMS = {f"{f.name} histogram's CDF (central)": f for f in families.central()}
MECHANISMS = (EXPONENTIAL, *HISTOGRAMS)
#: Chosen when a link names none: the first two central families of the registry (Laplace and the Gaussian; the
#: staircase's histogram is offered, not chosen).
DEFAULT = (EXPONENTIAL, *list(HISTOGRAMS)[:2])
#: How every mechanism here bounds a person's rows under a person unit, as its file row's label says it.
RULE = "one row per person, sampled uniformly (Wilson et al. 2020, Section 3): the record-level calibration holds"
#: The histograms' bins (declared, equal width over the range).
BINS = (10, 20, 50, 100, 200, 500, 1000)
#: The range until the user types one: fixed by the software, never read from the data.
DEFAULT_RANGE = (0.0, 100.0)
#: The most noisy counts one simulation of a histogram method draws (trials × bins), and per point of its curve.
MAX_CELLS, CURVE_CELLS = 2_000_000, 200_000
_CURVE_GRID = GRID[::3]


def _declared_range(column: str) -> tuple[float, float]:
    b1, b2 = st.columns(2)
    lower = widgets.bound(
        b1.number_input,
        "Lower end of the declared range",
        value=DEFAULT_RANGE[0],
        key=f"cmp_q_lower_{column}",
        min_value=-widgets.LARGEST_AMOUNT,  # beyond, errors near 1e308 overflow a sum and leave what Plotly can draw
        max_value=widgets.LARGEST_AMOUNT,
        help="A public fact you type, never read from the data. Values below are counted at it.",
    )
    upper = widgets.bound(
        b2.number_input,
        "Upper end of the declared range",
        value=DEFAULT_RANGE[1],
        key=f"cmp_q_upper_{column}",
        min_value=-widgets.LARGEST_AMOUNT,  # beyond, errors near 1e308 overflow a sum and leave what Plotly can draw
        max_value=widgets.LARGEST_AMOUNT,
        help="A public fact you type, never read from the data. Values above are counted at it.",
    )
    return float(lower), float(upper)


def _label(name, eps, release, what):
    """The label of one mechanism's simulated release: ε, δ and relation from the mechanism that drew it."""
    if name == EXPONENTIAL:  # an ε-DP selection, under the relation its score's sensitivity was computed for
        label = simulated(PureDP(eps, relation=release.relation), query=what)
        return replace(label, mechanism="exponential mechanism over the declared range (Smith 2011)")
    return simulated(release.histogram, query=f"{what}, read off a noisy histogram")


def quantiles_view(eps: float, delta: float, u: PrivacyUnit | None = None) -> None:
    """The quantiles view under the declared unit ``u`` (default one row: see the module's notes for a person)."""
    u = PrivacyUnit() if u is None else u
    ds = state.dataset()
    columns = widgets.fitting_columns("numeric")
    if not columns:
        return
    c1, c2, c3 = st.columns([1.2, 1, 1])
    with c1:
        column = widgets.select("Numeric column", columns, "cmp_q_column", "Missing values are left out.")
    with c2:
        q = widgets.bound(
            st.slider,
            "Quantile q",
            0.01,
            0.99,
            0.5,
            0.01,
            key="cmp_q",
            help="0.5 is the median; 0.9 the value 90% lie below.",
        )
    with c3:
        bins = widgets.bound(
            st.select_slider,
            "Bins of the histograms",
            options=BINS,
            value=100,
            key="cmp_q_bins",
            help="Declared, equal width over the range: more bins locate the quantile finer, but sum more noise.",
        )
    lower, upper = _declared_range(column)
    chosen = st.multiselect(
        "Mechanisms",
        MECHANISMS,
        default=list(DEFAULT),
        key="cmp_q_mechs",
        bind="query-params",
        help="Pick two or more.",
    )
    if not chosen:
        st.info("Pick at least one mechanism to compare.")
        return
    values, dropped = numeric_values(ds.frame[column])
    person, shift = None, 0.0
    if u.identifier is not None:
        person = person_rows(u, np.isfinite(ds.frame[column].to_numpy(dtype=np.float64, na_value=np.nan)))
        if person is None:
            return
        every_row, values = values, values[person.one_row]
    try:
        law = ExponentialQuantile(eps, lower, upper, q).intervals(values)
        if person is not None:  # the errors stay against the quantile of all the rows (clipped to the range)
            shift = law.true_value - ExponentialQuantile(eps, lower, upper, q).intervals(every_row).true_value
    except ValueError as exc:
        st.error(f"This quantile cannot be computed with this range. {md(plain_sentence(exc))}")
        return
    what = "median" if q == 0.5 else f"{q:g}-quantile"
    if person is not None:
        st.caption(
            f"Unit: {unit.short_words(u)}. Every mechanism here takes **one row per person**, chosen at random "
            f"(seeded: simulated, not private), so **{values.size:,} of {every_row.size:,} rows are kept**; a person "
            "then adds or removes one row, and each calibration holds under add/remove one person (Wilson et al. 2020, "
            f"Section 3). The bound m is not used. Errors are against the {what} of all the rows: the sampling moves "
            f"it by {number(shift)}."
        )
    st.caption(
        f"The range [{lower:g}, {upper:g}] is a public fact you type, never read from the data (until you type one, "
        f"the software's [{DEFAULT_RANGE[0]:g}, {DEFAULT_RANGE[1]:g}]): {law.clipped_below:,} value(s) below it and "
        f"{law.clipped_above:,} above were counted at its ends"
        + (f"; {dropped:,} missing value(s) left out." if dropped else ".")
    )
    seed = state.seed_words(SALT + "-q")
    release = releases.compare_quantiles(values, q, lower, upper, bins, chosen, eps, delta, seed)  # the snippet's
    drawn = {}  # each mechanism (its law, for the simulations and the label) and its one release
    for m, value in zip(release["mechanism"], release["released"]):
        if m == EXPONENTIAL:
            drawn[m] = law.mechanism, value
        else:
            f = HISTOGRAMS[m]
            drawn[m] = (
                dp_histogram_quantile(values, q, lower, upper, bins, eps, 0, mechanism=f.key, delta=f.delta(delta)),
                value,
            )
    truth = law.true_value - shift
    st.plotly_chart(
        charts.values_against_truth(
            {m: v for m, (_, v) in drawn.items()},
            truth,
            f"The true {what} of {column} (dashed) and one release of each",
            y=column,
        ),
        key="cmp_q_release",
    )
    trials = min(state.trials(), MAX_CELLS // bins)
    errors = {}
    for m, (release, _) in drawn.items():
        gen = state.rng(f"{SALT}-q-{m}")
        errors[m] = (
            law.simulate_errors(gen, trials)[0] + shift if m == EXPONENTIAL else release.simulate(trials, gen) - truth
        )
    bounds = {m: empirical_error_bound(e, CONFIDENCE) for m, e in errors.items()}
    left, right = st.columns([1.4, 1])
    left.plotly_chart(
        charts.error_boxes(errors, f"Error of the {what} over {trials:,} releases of each", y="released − true"),
        key="cmp_q_boxes",
    )
    right.markdown(verdict(bounds, eps, f"the {what} of {md(column)}"))
    right.caption(thin_boxes(bounds))
    stated = law.value_error_bound(CONFIDENCE)
    table = pd.DataFrame(
        {
            "mechanism": chosen,
            "simulated 95% ±": [bounds[m] for m in chosen],
            "stated 95% ±": [f"{stated:.6g}" if m == EXPONENTIAL else "none (no closed form)" for m in chosen],
        }
    )
    if law.n and np.all(law.sorted_values == np.round(law.sorted_values)):
        right.caption(
            "Whole numbers: the exponential mechanism returns a point uniform between two neighbouring values, so it "
            "stays up to one unit off however large ε; a histogram's interpolation can land inside the tied values."
        )
    if trials < state.trials():
        right.caption(
            f"{trials:,} simulated releases of each, not the sidebar's {state.trials():,}: with {bins:,} bins a "
            f"rerun simulates at most {MAX_CELLS:,} noisy counts."
        )
    st.dataframe(
        table,
        hide_index=True,
        key="cmp_q_table",
        column_config={"simulated 95% ±": st.column_config.NumberColumn(format="%.4g")},
    )
    curve_trials = min(trials, CURVE_CELLS // bins)
    seeds = tuple(tuple(state.seed_words(f"{SALT}-q-{m}")) for m in chosen)
    unit_key = None if person is None else (u.identifier, tuple(state.seed_words(f"{SALT}-one-row")))
    curve = quantile_curves(
        state.dataset_key(),
        column,
        q,
        lower,
        upper,
        bins,
        tuple(chosen),
        delta,
        curve_trials,
        seeds,
        shift,
        unit_key,
        _law=law,
    )
    stated_name = "Exponential mechanism: dpcore's stated 95% bound"
    st.plotly_chart(
        charts.curves(
            _CURVE_GRID,
            curve,
            eps,
            f"95% of simulated errors of the {what} of '{column}' within ± (log), against ε",
            y_title="error bound (log)",
            log_y=True,
            dashed=(stated_name,),
        ),
        key="cmp_q_curve",
    )
    st.caption(
        f"Every number is the 95th percentile of |released − true {what}| over simulated releases ({curve_trials:,} "
        f"per point of the curve), against the {what} of {'all ' if person else ''}the values clipped to the range. "
        f"Both ways spend the same ε (the Gaussian histogram also δ) under add/remove one "
        f"{'person (one row each)' if person else 'record'}. A histogram of {bins:,} bins locates the "
        f"{what} no closer than a bin ({number((upper - lower) / bins)} wide), however large ε, and its cumulative "
        "counts sum the noise of many bins; the exponential mechanism's error grows only with the logarithm of the "
        "range (Smith 2011)."
    )
    cols = st.columns(3)
    rows = {
        m: (
            pd.DataFrame({"column": [column], "quantile q": [q], "released": [v]}),
            with_unit(_label(m, eps, release, what), u, RULE),
        )
        for m, (release, v) in drawn.items()
    }
    cols[0].download_button(
        "Simulated quantiles (CSV), not private",
        to_safe_csv(labelled_file(rows)),
        file_name="compare_quantiles_simulated.csv",
        mime="text/csv",
        help="One simulated release of each mechanism, no true value, each row with its mechanism's label (ε, δ, the "
        "neighbouring relation, the unit of privacy): " + export.SIMULATED_HELP,
    )
    cols[1].download_button(
        "Curves (CSV)",
        to_safe_csv(pd.DataFrame({"epsilon": _CURVE_GRID, **{f"95% bound {m}": v for m, v in curve.items()}})),
        file_name="compare_quantile_curves.csv",
        mime="text/csv",
    )
    if person is not None:
        cols[2].caption("The Python snippet draws one row per person: declare one row to download it.")
        return
    code = snippets.compare_quantiles(ds, column, q, lower, upper, bins, chosen, eps, delta, seed)
    cols[2].download_button("Python snippet", code, file_name="compare_quantiles_snippet.py", mime="text/x-python")


@cache.bounded(cache.MIB, spinner="Simulating…")  # a few numbers per mechanism and ε: kilobytes
def quantile_curves(
    dataset_key, column, q, lower, upper, bins, chosen, delta, trials, seeds, shift=0.0, unit_key=None, *, _law
) -> dict:
    """Per mechanism, the 95% bound of its simulated errors at each ε of the curve; the exponential mechanism's stated
    bound beside them. ``_law`` is the exponential mechanism's law on the column (keyed by the dataset, the column, the
    range and q, and under a person unit by ``unit_key``: the identifier and the seed of the one row per person); each
    mechanism's draws start from its own seed words at every ε. ``shift`` is the law's truth minus the truth the
    errors are against (0 under one row)."""
    truth, values = _law.true_value - shift, _law.sorted_values
    out, stated = {}, []
    for m, words in zip(chosen, seeds):
        points, f = [], HISTOGRAMS.get(m)
        # one pass over the values per histogram method; each ε then only recalibrates its noise
        base = f and dp_histogram_quantile(values, q, lower, upper, bins, 1.0, 0, mechanism=f.key, delta=f.delta(delta))
        for e in _CURVE_GRID:
            gen = np.random.default_rng(list(words))
            if m == EXPONENTIAL:
                law = _law.at_epsilon(float(e))
                errors = law.simulate_errors(gen, trials)[0] + shift
                stated.append(law.value_error_bound(CONFIDENCE))
            else:
                errors = base.at_epsilon(float(e), gen, delta=f.delta(delta)).simulate(trials, gen) - truth
            points.append(empirical_error_bound(errors, CONFIDENCE))
        out[m] = points
    if stated:
        out["Exponential mechanism: dpcore's stated 95% bound"] = stated
    return out
