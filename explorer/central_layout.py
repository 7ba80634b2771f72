"""The pieces the Central DP page's views share: the table of its queries, the simulated release of a family, the
"ε from the accuracy you need" planner, the release with its error distribution and downloads, and the comparison of
Laplace and the Gaussian at the same ε.

What a query is (its dpcore function, its publication, its settings, whether it answers one number or one count per
bin) is one row of :data:`QUERIES`, and what a mechanism family is comes from :mod:`dpcore.families`; every
sensitivity, noise and ε shown is read from the release objects dpcore returns (``QueryResult.mechanism``,
``MeanResult.sum``). These pieces lay out; they decide no privacy fact.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import (
    Gaussian,
    dp_category_counts,
    dp_count,
    dp_count_matching,
    dp_histogram,
    dp_mean,
    dp_quantile,
    dp_sum,
    families,
    publish,
)
from dpcore.contributions import PrivacyUnit
from dpcore.families import Family
from dpcore.lattice import lattice_mechanism
from dpcore.neighbours import ADD_REMOVE
from dpcore.queries import dp_two_way_table, mean_epsilon_for_accuracy
from dpcore.release import PublicFact
from dpcore.simulation import simulated
from explorer import budget, cache, charts, export, full_file, state, unit, widgets
from explorer.export import to_safe_csv
from explorer.markup import number, power_of_two

__all__ = [
    "CONFIDENCE",
    "EPS_GRID",
    "REFERENCE_EPSILON",
    "SALT",
    "Query",
    "QUERIES",
    "simulated_release",
    "compared_releases",
    "reference_release",
    "error_curves",
    "accuracy_popover",
    "show_release",
    "compare",
]

CONFIDENCE = 0.95
EPS_GRID = np.array(widgets.EPSILON_GRID)  # the slider's own values, so the current ε is a point of every curve
SALT = "central"
#: The ε of the error histogram's faint reference law, which also fixes its x-axis (±its 99% error), so that a move
#: of the slider widens or narrows the histogram instead of only relabelling the axis.
REFERENCE_EPSILON = 0.5
#: The two families the comparison sets side by side: pure ε-DP against (ε, δ)-DP, with the Gaussian's classic σ.
LAPLACE, GAUSSIAN = families.family("laplace"), families.family("gaussian")

_num = number  # the page's number format


def _answer(x) -> str:
    """An answer in whole units up to 10¹⁵ (a sum over a file of 10⁷ rows passes 10⁹, where :func:`number` turns
    to three significant digits and would hide the noise), else the page's format."""
    return f"{x:,.0f}" if 1e9 <= abs(x) < 1e15 else _num(x)


@dataclass(frozen=True)
class Query:
    """One query of the page: everything a view used to decide by comparing the query's label, in one row.

    ``draw(data, epsilon, rng, mechanism=, delta=, **settings)`` is the dpcore function answering it on the data a
    view prepares (the values of a column, a mask, category codes); ``publish(data, epsilon, mechanism=, delta=,
    **declared)`` is its :mod:`dpcore.publish` function (numeric queries, whose Publish section is shared).
    """

    key: str  # dpcore's name of it (QueryResult.query; releases.central_query's query)
    label: str  # the radio's option, which a link carries
    draw: Callable
    settings: tuple[str, ...] = ()  # what it takes beside the data and the noise (releases.central_query's keywords)
    unit: str | None = None  # what each noisy count of a vector answer counts ("bin"); None: one number
    ratio: bool = False  # a ratio of two noisy releases (sum over count): Monte Carlo, first-order law, two entries
    plan: Callable | None = None  # the inverse of an error with no closed form, on the data (Monte Carlo)
    audit: Callable[[Family], str] | None = None  # its audit in dpcore.audit.CATALOGUE, for a family
    publish: Callable | None = None
    noun: str = ""  # what a sentence calls it after "the" ("counts per year or month"); default: the label, lowered
    parts: tuple[str, ...] = ()  # a ratio's releases in words, one per noise (the teaching ledger's rows)

    @property
    def phrase(self) -> str:
        """The answer's name in a sentence, after "the": :attr:`noun`, or the label lowered without its "…"."""
        return self.noun or self.label.lower().rstrip("…")

    def noises(self, result) -> tuple:
        """The noise of each release the answer is made of (a mean's sum and count)."""
        return tuple(result.mechanisms) if self.ratio else (result.mechanism,)

    def part(self, result):
        """The one noisy release the comparison is about (a mean's sum)."""
        return result.sum if self.ratio else result


def _mean_plan(accuracy, values, *, lower, upper, split, mechanism, delta):
    return mean_epsilon_for_accuracy(accuracy, values, lower, upper, split=split, mechanism=mechanism, delta=delta)


#: The page's queries by the label a link carries, in the radio's order (the most common value is a view of its own).
QUERIES: dict[str, Query] = {
    q.label: q
    for q in (
        Query(
            "count",
            "Count",
            lambda v, e, rng, **kw: dp_count(v, e, rng, **kw),
            audit=lambda f: f.audit,
            publish=lambda v, e, **kw: publish.publish_count(v, e, **kw),
        ),
        Query(
            "sum",
            "Sum",
            lambda v, e, rng, lower, upper, **kw: dp_sum(v, lower, upper, e, rng, **kw),
            ("lower", "upper"),
            audit=lambda f: f"{f.key}_sum",  # the catalogue names a family's audits after its key
            publish=lambda v, e, lower, upper, **kw: publish.publish_sum(v, lower, upper, e, **kw),
        ),
        Query(
            "mean",
            "Mean",
            lambda v, e, rng, lower, upper, split, **kw: dp_mean(v, lower, upper, e, rng, split=split, **kw),
            ("lower", "upper", "split"),
            ratio=True,
            plan=_mean_plan,
            parts=("noisy sum", "noisy count"),
            audit=lambda f: f"{f.key}_mean",
            publish=lambda v, e, lower, upper, split, **kw: publish.publish_mean(v, lower, upper, e, split=split, **kw),
        ),
        Query(
            "histogram",
            "Histogram",
            lambda v, e, rng, lower, upper, bins, **kw: dp_histogram(v, bins, e, rng, lower=lower, upper=upper, **kw),
            ("lower", "upper", "bins"),
            unit="bin",
            audit=lambda f: f.audit,  # each bin is a count
            publish=lambda v, e, lower, upper, bins, **kw: publish.publish_histogram(v, bins, lower, upper, e, **kw),
        ),
        Query(
            "quantile",
            "Quantile",
            # the exponential mechanism over the declared range: no noise family, so no mechanism= or delta= taken
            lambda v, e, rng, lower, upper, q, **_: dp_quantile(v, q, lower, upper, e, rng),
            ("lower", "upper", "q"),
            audit=lambda _family: "quantile",
            publish=lambda v, e, lower, upper, q, grid=None, **_: publish.publish_quantile(
                v, q, lower, upper, e, grid=grid
            ),
        ),
        Query(
            "count_matching",
            "Count where…",
            lambda mask, e, rng, **kw: dp_count_matching(mask, e, rng, **kw),
            noun="count of the rows meeting the condition",
        ),
        Query(
            "category_counts",
            "Category counts",
            lambda codes, e, rng, k, **kw: dp_category_counts(codes, k, e, rng, **kw),
            ("k",),
            unit="category",
        ),
        Query(
            "two_way_table",
            "Two-way table",
            lambda pair, e, rng, shape, **kw: dp_two_way_table(pair[0], pair[1], shape, e, rng, **kw),
            ("shape",),
            unit="cell",
        ),
        Query(
            "period_counts",
            "Per year or month",
            lambda codes, e, rng, k, **kw: dp_category_counts(codes, k, e, rng, **kw),
            ("k",),
            unit="period",
            noun="counts per year or month",
        ),
    )
}


def simulated_release(q: Query, family: Family, released: Callable, data, epsilon, delta, seed, **settings):
    """The view's simulated release: ``released()`` (its :mod:`explorer.releases` function, on a lattice, which the
    snippet reproduces) for a family dpcore publishes; for one it only simulates (no lattice), the query's dpcore
    function drawn from the same seed with floating-point noise."""
    if family.lattice:
        return released()
    rng = np.random.default_rng(seed)
    return q.draw(data, epsilon, rng, mechanism=family.key, delta=family.delta(delta), **settings)


def compared_releases(q: Query, family: Family, result, data, epsilon, delta, **settings) -> dict:
    """The release of each family the comparison shows, at this ε and δ: Laplace, the Gaussian and the view's own.

    The view's family is its own release; the others are drawn by dpcore on the same data, only their noise is read.
    """
    shown = (LAPLACE, GAUSSIAN) if family in (LAPLACE, GAUSSIAN) else (LAPLACE, GAUSSIAN, family)
    return {
        f: result if f == family else q.draw(data, epsilon, 0, mechanism=f.key, delta=f.delta(delta), **settings)
        for f in shown
    }


def reference_release(q: Query, family: Family, data, delta, **settings):
    """The same query and noise at :data:`REFERENCE_EPSILON` (only its law is read: the histogram's fixed axis)."""
    return q.draw(data, REFERENCE_EPSILON, 0, mechanism=family.key, delta=family.delta(delta), **settings)


def error_curves(q: Query, compared: dict, data, delta, whole=None, **settings) -> dict:
    """95% error bound of each compared release at every ε of the slider (and the classic Gaussian σ's).

    ``whole``: the whole file's aggregates (:class:`explorer.full_file.Whole`) when the truths are over a file opened
    by path, not over ``data`` (a mean's error depends on its count and sum)."""
    if q.ratio:  # no closed form: dpcore's Monte-Carlo bound of each release
        keys = tuple(f.key for f in compared)
        return _mean_curves(keys, data, settings["lower"], settings["upper"], settings["split"], delta, whole)
    return _noise_curves(tuple((f.key, q.part(r).mechanism.sensitivity) for f, r in compared.items()), delta)


@cache.bounded(4 * cache.MIB)  # a few curves of 50 points: kilobytes each
def _mean_curves(keys: tuple, values, lower, upper, split, delta, whole=None) -> dict:
    def mean(e, k):
        released = dp_mean(values, lower, upper, e, 0, split=split, mechanism=k, delta=delta)
        return released if whole is None else full_file.on_whole(released, whole)

    return {families.family(k).title: [mean(e, k).error_bound(CONFIDENCE, trials=4000) for e in EPS_GRID] for k in keys}


@cache.bounded(4 * cache.MIB)
def _noise_curves(sensitivities: tuple, delta) -> dict:
    """Each family's noise at its release's sensitivity over ε; the classic σ after the Gaussian (the view's own
    family last, when it is neither)."""
    curves = {}
    for key, sensitivity in sensitivities:
        f = families.family(key)
        curves[f.title] = [f.noise(e, sensitivity, delta).error_bound(CONFIDENCE) for e in EPS_GRID]
        if f == GAUSSIAN:
            curves["Gaussian, classic σ (proven for ε < 1 only)"] = [
                Gaussian.from_epsilon_delta(e, delta, sensitivity, "classic").error_bound(CONFIDENCE)
                if e < 1
                else np.nan
                for e in EPS_GRID
            ]
    return curves


def accuracy_popover(q: Query, family: Family, delta, result, data=None, **settings) -> None:
    """ "I need ±X on this answer": the ε that gives it, from dpcore's inverse of this query's error bound."""
    if q.plan:

        def solve(x):
            return q.plan(x, data, mechanism=family.key, delta=delta, **settings)

        extra = " (Monte Carlo, as the bound shown)"
    else:
        sensitivity = result.mechanism.sensitivity  # in the family's own norm, as the release was calibrated

        def solve(x):
            return family.epsilon_for_accuracy(x, sensitivity=sensitivity, delta=delta)

        extra = f" with δ = {delta:.0e}" if family.takes_delta else ""
    what = "each count" if q.unit else f"the {q.phrase}"
    bound = float(np.max(result.error_bound(CONFIDENCE)))
    widgets.epsilon_for_accuracy("cen", "cen_epsilon", solve, float(f"{bound:.2g}"), what, extra=extra)


def show_release(
    q: Query,
    family: Family,
    column,
    result,
    code: str | None,
    labels=None,
    reference=None,
    name=None,
    grid=None,
    unit: PrivacyUnit | None = None,
) -> None:
    """The simulated release beside the truth, its error distribution, its files and the teaching ledger's button.

    ``code`` is the release's snippet (None for a family simulated here and not published: it has no snippet);
    ``reference`` the same query at :data:`REFERENCE_EPSILON` (:func:`reference_release`), whose law fixes the error
    histogram's x-axis; ``name`` what the labels of a vector answer name (default: ``column``); ``grid`` the row and
    column labels of a two-way table, shown as a table instead of bars; ``unit`` the declared unit of privacy when
    it is a person (the release's words, file, and ledger entry then say unit=person, add/remove one person).
    Every noisy number shown or written is rounded by the one rule of :func:`explorer.export.rounded`.
    """
    noises = q.noises(result)
    mech = noises[0]
    bound = result.error_bound(CONFIDENCE)
    std = result.approx_std if q.ratio else mech.std
    shown = export.rounded(result.noisy_value, std, q.key)
    how = (
        "Monte Carlo over 10,000 simulated releases"
        if q.ratio
        else f"{family.name} noise, std {_num(mech.std)}, sensitivity Δ = {mech.sensitivity:g}"
    )
    person = unit is not None and unit.identifier is not None
    if person:
        how += f"; unit=person: {ADD_REMOVE.words(unit.unit)}, at most {unit.bounds.max_rows:,} rows each"
    if q.unit:
        edges = result.bin_edges  # a histogram's bins are labelled from its edges alone
        labels = list(publish.bin_labels(edges)) if edges is not None else labels
        name = q.unit if edges is not None else (name or column)
        if grid is not None:
            _two_way(grid, result.true_value, shown, bound)
        else:
            _bars(labels, result, shown, bound, column, q.unit, family)
        if edges is not None and (result.clipped_below or result.clipped_above):
            st.caption(
                f"Clipping: {result.clipped_below:,} value(s) below {edges[0]:g} were counted in the first bin and "
                f"{result.clipped_above:,} above {edges[-1]:g} in the last. The end bins always read 'below' and 'and "
                "above', whatever the data, so no label tells whether anyone was clipped."
            )
        release = pd.DataFrame({name: labels, "noisy count": shown})
        table = pd.DataFrame({name: labels, "true": result.true_value, "noisy": shown})
    else:
        a, b, c = st.columns(3)
        a.metric("True answer", _answer(result.true_value), help="Of the clipped values for a sum or mean.")
        b.metric(
            "Noisy answer (simulated, not private)",
            _answer(shown),
            f"{shown - result.true_value:+,.4g}",
            delta_color="off",
            delta_arrow="off",
            help="Rounded to what the noise allows: a count to whole units, any other number to the largest power "
            "of ten at most a tenth of the noise's standard deviation.",
        )
        c.metric("95% error bound", f"±{_num(bound)}")
        release = pd.DataFrame({"query": [q.label.lower()], "column": [column], "noisy": [shown]})
        table = release.assign(true=[result.true_value])
        if result.unclipped_value is not None:  # a sum or a mean of clipped values
            what = "bounding each person's rows" + (" and clipping" if q.settings else "") if person else "clipping"
            st.caption(
                f"Without {what} the true {q.label.lower()} is {_answer(result.unclipped_value)}: {what} moved it by "
                f"{_answer(result.true_value - result.unclipped_value)}, a bias the error bound does not include."
            )
    st.markdown(f"With 95% probability the error is below **{_num(bound)}** ({how}).")
    if family.lattice:
        st.caption(
            f"The release is drawn on a lattice (grid {power_of_two(lattice_mechanism(mech).grid)}) with exact discrete "
            "noise of the same guarantee, so no floating-point hole can give the data away (Mironov 2012; the Audit "
            "page shows the attack); the simulations below use fast floating-point noise of the same law."
        )
    else:
        st.caption(
            f"{family.name} noise has no exact sampler on a lattice here, so it is simulated only and never published: "
            "this release and the simulations below use floating-point noise, and no snippet is offered."
        )
    left, right = st.columns([1.6, 1])
    errors = _error_histogram(q, family, result, left, labels, reference)
    right.metric("Empirical std of the error", _num(errors.std(ddof=1)))
    right.metric(
        "Theoretical std of the error",
        _num(std),
        help="Delta-method approximation for the mean (ratio of two noisy numbers); exact otherwise.",
    )
    slug = q.label.lower().replace(" ", "_").rstrip("…") + ("_per_person" if person else "")
    label = (
        simulated(
            result,
            query=q.label.lower(),
            unit=unit.unit,
            public=(PublicFact("unit of privacy", _unit_words(unit), "declared"),),
        )
        if person
        else simulated(result, query=q.label.lower())
    )
    right.download_button(
        export.SIMULATED_RELEASE,
        to_safe_csv(export.simulated(release, label)),
        file_name=f"central_{slug}_simulated_release.csv",
        mime="text/csv",
        help=export.SIMULATED_HELP,
    )
    right.download_button(
        "Teaching table (CSV)",
        to_safe_csv(table.assign(unit_of_privacy=_unit_words(unit)) if person else table),
        file_name=f"central_{slug}.csv",
        mime="text/csv",
        help="The true answer beside the noisy one, as shown. Never publish the true column.",
    )
    if code is not None:
        right.download_button("Python snippet", code, file_name="central_snippet.py", mime="text/x-python")
    with right:
        what = f"{q.phrase.capitalize()} of {column}, {family.name} ε={result.epsilon:.4g}"
        what += f", unit=person (≤ {unit.bounds.max_rows:,} rows each)" if person else ""
        parts = [f"{what}: {part}" for part in q.parts] if q.parts else what  # a mean: one row per release, named
        where = {"relation": unit.relation, "unit": unit.unit} if person else {}
        budget.record_release(list(noises), label=parts, key="cen", **where)


def _unit_words(u: PrivacyUnit) -> str:
    """The unit of a file's rows: unit=person and add/remove one person, with the column and the bound."""
    return unit.words(u)


def _bars(labels, result, shown, bound, column, unit, family: Family) -> None:
    st.plotly_chart(
        charts.true_vs_noisy_bars(
            labels,
            result.true_value,
            shown,
            bound,
            f"{column}: true and noisy count per {unit} (bars: 95% error bound)",
            mechanism=family.name,
        ),
        key="cen_bars",
    )


def _two_way(grid, true, shown, bound) -> None:
    """A two-way table's noisy counts as a table (rows × columns), the true ones under them in the simulation.

    Stacked, each the page's full width: side by side, a table of 16 columns showed 4 of them in each half."""
    rows, columns = grid
    shape = (len(rows), len(columns))
    noisy = pd.DataFrame(np.reshape(shown, shape), index=list(rows), columns=list(columns))
    exact = pd.DataFrame(np.reshape(true, shape), index=list(rows), columns=list(columns))
    st.markdown("**Noisy counts (simulated, not private)**")
    st.dataframe(noisy, key="cen_table_noisy")
    st.markdown("**True counts**")
    st.dataframe(exact, key="cen_table_true")
    st.caption(f"Every cell, empty ones included, gets the noise of one count: ±{_num(bound)} at 95%.")


def _error_histogram(q: Query, family: Family, result, where, labels, reference) -> np.ndarray:
    """The simulated errors' histogram with the noise law, on an x-axis fixed by the law at :data:`REFERENCE_EPSILON`
    (drawn faint): a smaller ε widens the histogram, a larger one narrows it. Returns the errors shown."""
    sims = result.simulate_errors(state.trials(), state.rng(SALT + "-sims"))
    j = int(np.argmax(result.true_value)) if q.unit else None
    errors = sims[:, j] if j is not None else sims
    law = result if reference is None else reference
    if q.ratio:
        half = 1.1 * law.error_bound(0.99, trials=4000)
    else:
        half = 1.1 * float(np.max(law.mechanism.error_bound(0.99)))
    grid_x = np.linspace(-half, half, 401)

    def density(r):
        return r.approx_error_pdf(grid_x) if q.ratio else r.mechanism.pdf(grid_x)

    figure = charts.error_histogram(
        errors,
        grid_x,
        density(result),
        # a count of a vector answer names its unit and quotes its label ("the bin 'below 3.3'")
        (f"Error of the count of the {q.unit} '{labels[j]}'" if j is not None else f"Error of the {q.phrase}")
        + f" over {state.trials():,} simulated releases",
        density_name=f"{'first-order law' if q.ratio else 'noise density'} at ε = {result.epsilon:.3g}",
        mechanism=family.name,
    )
    size = half / 30  # bins on the fixed axis, from below every error so that the density counts each one
    start = -half - size * np.ceil(max(0.0, -half - float(errors.min())) / size)
    figure.update_traces(xbins={"start": start, "size": size}, selector={"type": "histogram"})
    if reference is not None:
        figure.add_scatter(
            x=grid_x,
            y=density(reference),
            mode="lines",
            name=f"at ε = {REFERENCE_EPSILON:g}, for reference",
            line={"color": "rgba(120, 120, 120, 0.6)", "width": 2, "dash": "dot"},
        )
    figure.update_xaxes(range=[-half, half], autorange=False)
    where.plotly_chart(figure, key="cen_hist")
    outside = float(np.mean(np.abs(errors) > half))
    where.caption(
        f"The x-axis is fixed at ±{_num(half)}, a little beyond the 99% error at ε = {REFERENCE_EPSILON:g} (dotted), "
        "so moving ε widens or narrows the histogram."
        + (f" At this ε, {outside:.0%} of the simulated errors fall outside it." if outside >= 0.005 else "")
    )
    return errors


def compare(q: Query, epsilon, delta, compared: dict, curves: dict) -> None:
    """Laplace against the analytic and the classic Gaussian at this ε, read from their releases (a mean's sum part)."""
    st.subheader("Laplace or Gaussian at the same ε?")
    st.plotly_chart(
        charts.curves(
            EPS_GRID,
            curves,
            epsilon,
            f"95% error bound of {'each count' if q.unit else 'the ' + q.phrase} over ε (Gaussian with δ = {delta:.0e})",
            y_title="95% error bound",
            log_y=True,
        ),
        key="cen_curve",
    )
    laplace, analytic = q.part(compared[LAPLACE]).mechanism, q.part(compared[GAUSSIAN]).mechanism
    e, d = analytic.epsilon, analytic.delta
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # said below in words
        classic = Gaussian.from_epsilon_delta(e, d, analytic.sensitivity, "classic")
    calibration = classic.calibration
    a, b, c = st.columns(3)
    a.metric("Laplace noise std", _num(laplace.std))
    b.metric("Gaussian σ, analytic", _num(analytic.sigma), help="Balle & Wang 2018: the smallest σ that is (ε, δ)-DP.")
    c.metric(
        "Gaussian σ, classic formula",
        _num(classic.sigma),
        help="Δ·√(2 ln(1.25/δ))/ε, Dwork & Roth Thm A.1; proven for ε < 1.",
    )
    if not calibration.proven:
        within = "within" if calibration.guaranteed_delta <= d else "above"
        st.caption(  # a note of this comparison, whichever noise the view uses
            f"The classic formula is proven only for ε < 1 (Dwork & Roth, Theorem A.1). At ε = {e:.3g} its "
            f"σ = {_num(classic.sigma)} guarantees δ = {calibration.guaranteed_delta:.3g}, {within} the δ = {d:.3g} "
            "asked for. The analytic calibration is exact at every ε."
        )
    part = f" (the noise of the sum part: ε = {e:.3g}, δ = {d:.1e})" if q.ratio else ""
    st.markdown(
        f"At ε = {epsilon:g}{part}, the analytic Gaussian's σ is **{analytic.sigma / laplace.std:.2f}×** the Laplace "
        "std, and it also pays δ. The Gaussian pays off when many queries are composed (see the Accountant page)."
    )
