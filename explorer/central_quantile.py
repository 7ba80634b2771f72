"""The Central DP page's view of a quantile (the median by default): the exponential mechanism over the declared range
(``cen_q``, the range ``cen_lower_<column>``/``cen_upper_<column>`` as the Sum's, the page's ε ``cen_epsilon``).

The query's row of :data:`explorer.central_layout.QUERIES` says which dpcore function answers it
(:func:`dpcore.dp_quantile`); the law, its density, its error bounds in ranks and in values and the inverse of the
rank bound are :class:`dpcore.QuantileIntervals`'. No noise family and no δ: the page's noise chooser is not shown.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.accounting import PureDP
from dpcore.simulation import simulated
from explorer import budget, central_publish, charts, export, releases, snippets, state, widgets
from explorer.central_layout import CONFIDENCE, EPS_GRID, QUERIES, REFERENCE_EPSILON, SALT
from explorer.columns import numeric_values, suggest_bounds
from explorer.export import to_safe_csv
from explorer.markup import md, number, plain_sentence

__all__ = ["view"]

#: The colour of the exponential mechanism in the charts.
MECHANISM = "Exponential mechanism"


def _range(series, column: str) -> tuple[float, float]:
    """The declared range: the Sum's clipping bounds (the same keys, so a link and a switch of view keep them)."""
    lo, hi = suggest_bounds(series)
    b1, b2 = st.columns(2)
    lower = widgets.bound(
        b1.number_input,
        "Lower end of the range",
        value=float(lo),
        key=f"cen_lower_{column}",
        bind="query-params",
        help="Values below are raised to it. The release is always inside the range.",
    )
    upper = widgets.bound(
        b2.number_input,
        "Upper end of the range",
        value=float(hi),
        key=f"cen_upper_{column}",
        bind="query-params",
        help="Values above are lowered to it. A wider range costs accuracy only logarithmically.",
    )
    st.caption(
        f"The default range ({lo:g}, {hi:g}) is the column's minimum and 99th percentile: read from the data, it is "
        "not private. A real release fixes it from domain knowledge (the Publish section below asks for it)."
    )
    return lower, upper


def _rank_percentile(law, confidence: float) -> float:
    """The exact ``confidence`` percentile of the rank error ``|r − q·n|`` under ``law`` (its intervals' probabilities)."""
    errors, p = -law.utility, law.probabilities()
    order = np.argsort(errors)
    cumulative = np.cumsum(p[order])
    return float(errors[order][min(np.searchsorted(cumulative, confidence), errors.size - 1)])


def _value_percentile(law, confidence: float) -> float:
    """The exact ``confidence`` percentile of ``|released − true|`` under ``law``.

    ``P(|Y − t| ≤ v) = F(t + v) − F(t − v)`` with ``F`` dpcore's CDF: piecewise linear in ``v`` between the distances
    from ``t`` to the intervals' ends, so it is read at those and interpolated between the two around ``confidence``.
    """
    t = law.true_value
    ends = np.unique(np.abs(np.concatenate(([t], law.left, law.right)) - t))
    covered = law.cdf(t + ends) - law.cdf(t - ends)
    i = min(int(np.searchsorted(covered, confidence)), ends.size - 1)
    return float(ends[i] if i == 0 else np.interp(confidence, covered[i - 1 : i + 1], ends[i - 1 : i + 1]))


def _halves(law) -> tuple[float, float]:
    """The error histograms' half-widths, in value and in rank: a little beyond the 99th percentile of the error at
    :data:`REFERENCE_EPSILON` (the page's other histograms' fixed axis) or at this ε when that is wider, so a larger ε
    narrows the histogram on a fixed axis and a smaller one widens the axis with it (the bulk stays on it)."""
    laws = (law, law.at_epsilon(REFERENCE_EPSILON))
    value = max(_value_percentile(each, 0.99) for each in laws)
    rank = max(_rank_percentile(each, 0.99) for each in laws)
    width = law.mechanism.width
    return 1.1 * (value if value > 0 else width / 2), 1.1 * max(rank, 1.0)


def _tied_share(law, what: str) -> str:
    """When most releases have the ties' rank error, the sentence saying that ε barely moves them ("" otherwise)."""
    share = float(law.probabilities()[law.utility == law.utility.max()].sum())
    if share < 0.9:
        return ""
    return (
        f" At this ε, {share:.0%} of the releases fall in the intervals next to the tied {what}: moving ε barely "
        "changes the release or the histograms below, as their error is the ties', which no ε removes."
    )


def _curves(values, mechanism) -> dict:
    """Over the slider's ε: the 95% rank-error bound (capped at the largest rank error of any output) and the exact
    95th percentile of the rank error (both dpcore's)."""
    bound, exact = [], []
    for e in EPS_GRID:
        law = replace(mechanism, epsilon=float(e)).intervals(values)
        bound.append(law.rank_error_bound(CONFIDENCE))
        exact.append(_rank_percentile(law, CONFIDENCE))
    return {"95% bound on the rank error": bound, "exact 95th percentile of the rank error": exact}


def view(label: str, controls) -> None:
    """A quantile of a numeric column (the page's noise ``controls`` are not used: it has no noise family)."""
    query = QUERIES[label]
    ds = state.dataset()
    columns = widgets.fitting_columns("numeric")
    if not columns:
        return
    c1, c2, c3 = st.columns([1, 1.6, 1.2])
    with c1:
        column = widgets.select(
            "Numeric column", columns, "cen_column", "Numeric columns only; missing values are left out."
        )
    with c2:
        eps = widgets.epsilon_slider("cen_epsilon")
    with c3:
        q = widgets.bound(
            st.slider,
            "Quantile q",
            0.01,
            0.99,
            0.5,
            0.01,
            key="cen_q",
            bind="query-params",
            help="0.5 is the median; 0.9 the value 90% of the rows lie below.",
        )
    values, dropped = numeric_values(ds.frame[column])
    lower, upper = _range(ds.frame[column], column)
    if dropped:
        st.caption(f"{dropped:,} missing values were left out.")
    seed = state.seed_words(SALT)
    try:
        result = releases.quantile(values, q, lower, upper, eps, seed)  # the snippet's function: query.draw's
    except ValueError as exc:
        st.error(f"This quantile cannot be released with these settings. {md(plain_sentence(exc))}")
        return
    law = result.law
    mech = result.mechanism
    rank_bound, value_bound = law.rank_error_bound(CONFIDENCE), law.value_error_bound(CONFIDENCE)
    capped = law.rank_error_capped(CONFIDENCE)
    what = "median" if q == 0.5 else f"{q:g}-quantile"
    with c2:
        widgets.epsilon_for_accuracy(
            "cen_q",
            "cen_epsilon",
            law.epsilon_for_accuracy,
            # at the cap every ε meets the bound: ask for half of it instead
            float(f"{rank_bound / 2 if capped else rank_bound:.2g}"),
            "the rank of the released value",
            extra=f" on this file's {law.n:,} values (the bound reads the data)",
        )
    a, b, c = st.columns(3)
    a.metric(f"True {what}", number(result.true_value), help="Of the values clipped to the range.")
    b.metric(
        "Released (simulated, not private)",
        number(result.noisy_value),
        f"{result.error:+,.4g}",
        delta_color="off",
        delta_arrow="off",
    )
    c.metric(
        "95% bound on the rank error",
        f"±{rank_bound:,.1f}",
        "capped: no output is further" if capped else None,
        delta_color="off",
        delta_arrow="off",
        help=f"±{number(value_bound)} in value",
    )
    st.markdown(
        f"With 95% probability the released value has at most **{rank_bound:,.1f}** of the {law.n:,} values between "
        f"it and the target rank q·n = {law.target:,.1f}, so it lies within **±{number(value_bound)}** of the true "
        f"{what} (exponential mechanism over [{lower:g}, {upper:g}], score −|rank − q·n| with sensitivity "
        f"Δu = {mech.sensitivity:g}; McSherry & Talwar 2007, Lemma 7)."
    )
    if capped:
        st.caption(
            f"Capped: at this ε the formula gives {law.uncapped_rank_error_bound(CONFIDENCE):,.1f} ranks, more than "
            f"any output can be off: no release is further than {law.worst_rank_error:,.1f} ranks from q·n (the "
            f"range's ends, with {law.n:,} values), so that is the bound, with probability 1. The curve below "
            "flattens there."
        )
    if law.best_rank_error >= 1:
        st.caption(
            f"Ties: {law.best_rank_error:,.1f} ranks of that error come from values equal to the {what}, which no "
            "output can split (the release is a point between values, never one of them)." + _tied_share(law, what)
        )
    if law.clipped_below or law.clipped_above:
        st.caption(
            f"Clipping: {law.clipped_below:,} value(s) below {lower:g} and {law.clipped_above:,} above {upper:g} were "
            "counted at the ends of the range."
        )
    value_errors, rank_errors = law.simulate_errors(state.rng(SALT + "-sims"), state.trials())
    value_half, rank_half = _halves(law)
    grid_x = np.linspace(-value_half, value_half, 801)
    left, right = st.columns(2)
    left.plotly_chart(
        charts.error_histogram(
            value_errors,
            grid_x,
            law.pdf(grid_x + result.true_value),
            f"Error of the {what} in value over {state.trials():,} simulated releases",
            x="released − true",
            density_name="exact density",
            mechanism=MECHANISM,
            half=value_half,
        ),
        key="cen_q_hist",
    )
    # the exact law on the histogram's own bins: its few far-apart ranks (ties) drawn as points joined by lines read
    # as a slope, and a point's probability stood 10 times above its bin's density
    law_x, law_y = charts.binned_law(
        law.ranks - law.target, law.probabilities(), *charts.histogram_bins(rank_errors, 1.0, rank_half)
    )
    right.plotly_chart(
        charts.error_histogram(
            rank_errors,
            law_x,
            law_y,
            f"Error of the {what} in rank (values between it and q·n)",
            x="rank of the release − q·n",
            density_name="exact law, per bin",
            lattice=1.0,
            mechanism=MECHANISM,
            half=rank_half,
        ),
        key="cen_q_rank_hist",
    )
    outside = float(np.mean(np.abs(value_errors) > value_half))
    st.caption(
        f"The axes span ±{number(value_half)} in value and ±{number(rank_half)} in rank, a little beyond the 99% error "
        f"at ε = {REFERENCE_EPSILON:g} or at this ε if wider: a larger ε narrows the histograms, a smaller one widens "
        "them." + (f" At this ε, {outside:.0%} of the simulated errors fall outside." if outside >= 0.005 else "")
    )
    curve, side = st.columns([1.6, 1])
    rank_curves = _curves(values, mech)
    every = np.concatenate([np.asarray(v, dtype=float) for v in rank_curves.values()])
    # room above and below the lines (the exact percentile, flat at the ties' error, sat on the axis' edge); a log
    # axis only when every error is positive (a rank error of 0 would drop out of it)
    log_y = bool(np.all(every > 0))
    curve.plotly_chart(
        charts.curves(
            EPS_GRID,
            rank_curves,
            eps,
            f"Rank error of the {what} over ε",
            y_title="ranks",
            log_y=log_y,
            y_max=float(every.max()) * (1.5 if log_y else 1.1) if every.max() > 0 else 1.0,
        ),
        key="cen_q_curve",
    )
    flat = [e for e in EPS_GRID if law.at_epsilon(float(e)).rank_error_capped(CONFIDENCE)]
    if flat:
        curve.caption(
            f"The bound is flat up to ε = {flat[-1]:g}: capped at {law.worst_rank_error:,.1f} ranks, the largest rank "
            "error any output can have."
        )
    side.metric("Median |error| in value, simulated", number(float(np.median(np.abs(value_errors)))))
    release = pd.DataFrame({"query": [what], "column": [column], "released": [result.noisy_value]})
    side.download_button(
        export.SIMULATED_RELEASE,
        to_safe_csv(export.simulated(release, simulated(PureDP(eps), query=what))),
        file_name="central_quantile_simulated_release.csv",
        mime="text/csv",
        help=export.SIMULATED_HELP,
    )
    side.download_button(
        "Teaching table (CSV)",
        to_safe_csv(release.assign(true=[result.true_value])),
        file_name="central_quantile.csv",
        mime="text/csv",
        help="The true quantile beside the released one, as shown. Never publish the true column.",
    )
    side.download_button(
        "Python snippet",
        snippets.quantile(ds, column, q, lower, upper, eps, seed),
        file_name="central_quantile_snippet.py",
        mime="text/x-python",
        help="Recomputes this simulated release from the file and the link's seed (simulated, not private).",
    )
    with side:  # accounted as any ε-DP release (dpcore.accounting.PureDP)
        budget.record_release(PureDP(eps), label=f"{what.capitalize()} of {column}, exponential ε={eps:g}", key="cen_q")
        widgets.audit_link(query.audit(None), eps, q=q)
    central_publish.quantile(query, column, ds.frame[column], eps, q)
