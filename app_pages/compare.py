"""Compare: several mechanisms answering the same query on the same column, side by side.

One release of each next to the truth, the distribution of each one's error over
simulated releases (one box per mechanism, on one axis), a verdict computed from
those errors, and the error against ε.
"""

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import GRR, OUE, SUE, Gaussian, Laplace, LDPMean, auto_mean, dp_mean
from dpcore.clipping import LADDER_CANDIDATES
from dpcore.empirical import empirical_error_bound
from dpcore.neighbours import REPLACE_ONE
from explorer import charts, export, frame, releases, snippets, state, widgets
from explorer.columns import numeric_values, suggest_bounds
from explorer.export import to_safe_csv
from explorer.markup import md

GRID = np.geomspace(0.05, 10, 30)
CONFIDENCE = 0.95
SALT = "compare"


def count_noise(name: str, eps: float, delta: float, k: int):
    """The mechanism answering a k-category histogram under replace-one neighbours (local DP's relation)."""
    if name.startswith(("GRR", "SUE", "OUE")):
        return {"GRR": GRR, "SUE": SUE, "OUE": OUE}[name[:3]](eps, k)
    if name.startswith("Laplace"):
        return Laplace.from_epsilon(eps, REPLACE_ONE.histogram_l1_sensitivity)
    return Gaussian.from_epsilon_delta(eps, delta, REPLACE_ONE.histogram_l2_sensitivity)


def count_std(name: str, eps: float, delta: float, true: np.ndarray, j: int | None = None) -> float:
    """Std of the count of value ``j``, or of a value with count 0 (what rare values pay) when ``j`` is None."""
    mechanism = count_noise(name, eps, delta, true.size)
    if isinstance(mechanism, (Laplace, Gaussian)):
        return mechanism.std
    if j is not None:
        return float(mechanism.std(true)[j])
    rare = np.zeros(true.size, dtype=np.int64)
    rare[0] = true.sum()
    return float(mechanism.std(rare)[1])


def count_errors(names, eps, delta, true, j, trials) -> dict:
    """Simulated errors of the count of value ``j``, per mechanism (local: the exact aggregate law)."""
    out = {}
    for name in names:
        mechanism = count_noise(name, eps, delta, true.size)
        gen = state.rng(f"{SALT}-{name}")
        if isinstance(mechanism, (Laplace, Gaussian)):
            out[name] = mechanism.simulate(float(true[j]), gen, trials=trials) - true[j]
        else:
            out[name] = mechanism.simulate(true, gen, trials=trials)[:, j] - true[j]
    return out


def verdict(bounds: dict, eps: float, what: str) -> str:
    """One sentence from the simulated 95% bounds: the tightest mechanism and how much wider the widest is."""
    ordered = sorted(bounds.items(), key=lambda item: item[1])
    (best, b), (worst, w) = ordered[0], ordered[-1]
    if len(ordered) == 1 or w <= b:
        return f"At ε = {eps:g}, 95% of {best}'s simulated errors on {what} are within **±{b:,.4g}**."
    return (
        f"At ε = {eps:g}, **{best}** is the most accurate on {what}: 95% of its simulated errors are within "
        f"**±{b:,.4g}**, where {worst} needs ±{w:,.4g}, **{w / b:,.1f}× wider**."
    )


def thin_boxes(bounds: dict) -> str:
    """Say so when some boxes are too thin to see on the shared axis (the chart cannot show both scales)."""
    widest = max(bounds.values())
    thin = [m for m, b in bounds.items() if b * 10 < widest]
    if not thin:
        return "Boxes: the middle half of the errors; whiskers: 95% of them; dotted line: no error."
    return (
        f"Boxes: the middle half of the errors; whiskers: 95%. On this shared axis {', '.join(thin)} "
        f"{'is' if len(thin) == 1 else 'are'} a thin line: more than 10× narrower than the widest (see the table)."
    )


def counts(eps: float, delta: float) -> None:
    columns = widgets.fitting_columns("categorical")
    if not columns:
        return
    column = widgets.select(
        "Column", columns, "cmp_column", "The histogram of this column is the query every mechanism answers."
    )
    chosen = st.multiselect(
        "Mechanisms",
        releases.COUNT_MECHANISMS,
        default=["GRR (local)", "OUE (local)", "Laplace (central)", "Gaussian (central)"],
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
    release = releases.compare_counts(codes, labels, chosen, eps, delta, seed)
    st.plotly_chart(
        charts.releases_against_truth(
            labels, true, {m: release[m] for m in chosen}, f"{column}: the true counts and one release of each"
        ),
        key="cmp_release",
    )
    j, trials = int(np.argmax(true)), state.trials()
    errors = count_errors(chosen, eps, delta, true, j, trials)
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
            "std (theory)": [count_std(m, eps, delta, true, j) for m in chosen],
            "95% within ±": [bounds[m] for m in chosen],
        }
    )
    right.dataframe(
        table,
        hide_index=True,
        key="cmp_count_table",
        column_config={c: st.column_config.NumberColumn(format="%.4g") for c in table.columns[1:]},
    )
    series = {m: [count_std(m, e, delta, true) for e in GRID] for m in chosen}
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
        to_safe_csv(export.simulated(release.rename(columns={"value": column}))),
        file_name="compare_simulated_releases.csv",
        mime="text/csv",
        help="One simulated release of each mechanism, no true counts: " + export.SIMULATED_HELP,
    )
    cols[1].download_button(
        "Errors and curves (CSV)",
        to_safe_csv(pd.DataFrame({"epsilon": GRID, **{f"std {m}": v for m, v in series.items()}})),
        file_name="compare_curves.csv",
        mime="text/csv",
        help="The std of a count at each ε of the chart.",
    )
    code = snippets.compare_counts(state.dataset(), column, chosen, eps, delta, seed)
    cols[2].download_button("Python snippet", code, file_name="compare_snippet.py", mime="text/x-python")


def means(eps: float, delta: float) -> None:
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
        default=list(releases.MEAN_MECHANISMS),
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
    errors = {m: mean_estimates(m, eps, delta, values, lower, upper) - truth for m in chosen}
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
        state.trials(),
        state.seed(),
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
        "heavy tail."
    )
    cols = st.columns(3)
    cols[0].download_button(
        "Simulated releases (CSV), not private",
        to_safe_csv(export.simulated(release)),
        file_name="compare_means_simulated.csv",
        mime="text/csv",
        help="One simulated release of each mechanism, no true mean: " + export.SIMULATED_HELP,
    )
    cols[1].download_button(
        "Curves (CSV)",
        to_safe_csv(pd.DataFrame({"epsilon": grid, **{f"95% bound {m}": v for m, v in curve.items()}})),
        file_name="compare_mean_curves.csv",
        mime="text/csv",
    )
    code = snippets.compare_means(state.dataset(), column, lower, upper, chosen, eps, delta, seed)
    cols[2].download_button("Python snippet", code, file_name="compare_means_snippet.py", mime="text/x-python")


@st.cache_data(max_entries=32, show_spinner="Simulating…")
def mean_curves(dataset_key, column, chosen, grid, delta, lower, upper, trials, seed, *, _values) -> dict:
    # keyed by the dataset's unique key and the column; the values themselves are not hashed. Sorted once here, so
    # that each of the ε points below skips the sorts of the LDP mean and the SVT mean (the mean is order-free)
    _values = np.sort(_values)
    truth = float(np.mean(_values))
    return {
        m: [empirical_error_bound(mean_estimates(m, e, delta, _values, lower, upper) - truth) for e in grid]
        for m in chosen
    }


def mean_estimates(name, eps, delta, values, lower, upper) -> np.ndarray:
    """Simulated noisy means of one mechanism (the session's trials)."""
    gen, trials = state.rng(f"cmp-{name}"), state.trials()
    if name.startswith("LDP"):
        return LDPMean(eps, lower, upper).simulate(values, gen, trials=trials)
    if name.startswith("SVT"):
        return auto_mean(values, LADDER_CANDIDATES, eps, gen, trials=trials).noisy_value
    kind = "laplace" if name.startswith("Laplace") else "gaussian"
    return dp_mean(values, lower, upper, eps, gen, mechanism=kind, delta=delta).simulate(trials, gen)


def render() -> None:
    st.title("Compare mechanisms")
    st.caption("The same query on the same column, answered by several mechanisms: which is most accurate at which ε?")
    c1, c2, c3 = st.columns([1, 1.4, 1])
    with c1:
        query = widgets.select(
            "Query", ["Counts of a category", "Mean of a number"], "cmp_query", "What every mechanism answers."
        )
    with c2:
        eps = widgets.epsilon_slider("cmp_epsilon")
    with c3:
        delta = widgets.delta_slider("cmp_delta", help="Only the Gaussian mechanisms use δ.")
    if query == "Counts of a category":
        counts(eps, delta)
    else:
        means(eps, delta)
    with st.expander("How the comparison is fair"):
        st.markdown(
            "All mechanisms get the same ε (and δ for the Gaussian ones). Counts compare under the replace-one "
            "neighbouring relation, the one local DP protects, so a central histogram has L1 sensitivity 2 and "
            "L2 sensitivity √2. The curves of counts are exact standard deviations (closed forms); the boxes, the "
            "verdicts and every number of the mean are the 95th percentile (or quartiles) of the error over "
            "simulated releases, drawn from each mechanism's exact law. One colour per mechanism on every page."
        )


frame.run_page(render)
