"""Compare: several mechanisms answering the same query on the same column, error against ε."""

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import GRR, OUE, SUE, Gaussian, Laplace, LDPMean, auto_mean, dp_mean
from dpcore.clipping import LADDER_CANDIDATES
from dpcore.empirical import empirical_error_bound
from dpcore.neighbours import REPLACE_ONE
from explorer import charts, frame, state, widgets
from explorer.columns import numeric_values, suggest_bounds

GRID = np.geomspace(0.05, 10, 30)
COUNT_MECHANISMS = ("GRR (local)", "SUE (local)", "OUE (local)", "Laplace (central)", "Gaussian (central)")
MEAN_MECHANISMS = (
    "LDP mean (local)",
    "Laplace mean (central)",
    "Gaussian mean (central)",
    "SVT automatic mean (central)",
)


def count_std(name: str, eps: float, delta: float, true: np.ndarray) -> float:
    """Std of one count (a value with count 0: what rare values pay), under replace-one neighbours."""
    k = true.size
    rare = np.zeros(k, dtype=np.int64)
    rare[0] = true.sum()
    if name.startswith(("GRR", "SUE", "OUE")):
        cls = {"GRR": GRR, "SUE": SUE, "OUE": OUE}[name[:3]]
        return float(cls(eps, k).std(rare)[1])
    if name.startswith("Laplace"):
        return Laplace.from_epsilon(eps, REPLACE_ONE.histogram_l1_sensitivity).std
    return Gaussian.from_epsilon_delta(eps, delta, REPLACE_ONE.histogram_l2_sensitivity).std


def counts(delta: float) -> None:
    state.dataset()
    columns = widgets.fitting_columns("categorical")
    if not columns:
        return
    column = widgets.select(
        "Column", columns, "cmp_column", "The histogram of this column is the query every mechanism answers."
    )
    chosen = st.multiselect(
        "Mechanisms",
        COUNT_MECHANISMS,
        default=["GRR (local)", "OUE (local)", "Laplace (central)", "Gaussian (central)"],
        key="cmp_count_mechs",
        bind="query-params",
        help="Pick two or more.",
    )
    codes, labels, _ = state.encoded(column)
    true = np.bincount(codes, minlength=len(labels))
    eps = st.session_state["cmp_epsilon"]
    series = {m: [count_std(m, e, delta, true) for e in GRID] for m in chosen}
    st.plotly_chart(
        charts.curves(
            GRID,
            series,
            eps,
            f"Std of one count of '{column}' (k = {len(labels)}, n = {true.sum():,})",
            y_title="std of a count (log)",
            log_y=True,
        ),
        key="cmp_count_curve",
    )
    table = pd.DataFrame(
        {"mechanism": chosen, "std of a count at this ε": [count_std(m, eps, delta, true) for m in chosen]}
    )
    best = table.loc[table.iloc[:, 1].idxmin(), "mechanism"] if chosen else None
    st.dataframe(table.style.format({"std of a count at this ε": "{:,.1f}"}), hide_index=True, key="cmp_count_table")
    if best:
        st.markdown(
            f"At ε = {eps:g} the most accurate of these is **{best}**. Local mechanisms pay roughly √n more: "
            "they protect people even from the collector."
        )


def means(delta: float) -> None:
    ds = state.dataset()
    columns = widgets.fitting_columns("numeric")
    if not columns:
        return
    column = widgets.select(
        "Numeric column", columns, "cmp_mean_column", "The mean of this column is the query every mechanism answers."
    )
    chosen = st.multiselect(
        "Mechanisms",
        MEAN_MECHANISMS,
        default=list(MEAN_MECHANISMS),
        key="cmp_mean_mechs",
        bind="query-params",
        help="Pick two or more.",
    )
    values, _ = numeric_values(ds.frame[column])
    lower, upper = suggest_bounds(ds.frame[column])
    st.caption(
        f"Clipping bounds [{lower:g}, {upper:g}] are taken from the data (not private); the SVT mean picks its own from a fixed ladder 1, 2, 5, 10, … at a third of its ε."
    )
    eps = st.session_state["cmp_epsilon"]
    grid = GRID[::3]
    bounds = mean_curves(
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
            grid, bounds, eps, f"95% error bound of the mean of '{column}'", y_title="error bound (log)", log_y=True
        ),
        key="cmp_mean_curve",
    )
    now = pd.DataFrame(
        {
            "mechanism": chosen,
            "95% error bound at this ε": [mean_error_bound(m, eps, delta, values, lower, upper) for m in chosen],
        }
    )
    st.dataframe(now.style.format({"95% error bound at this ε": "{:,.4g}"}), hide_index=True, key="cmp_mean_table")
    st.caption(
        f"Each bound is the 95th percentile of |noisy − true mean| over {state.trials():,} simulated releases, "
        "against the column's true mean, so clipping bias counts. The SVT mean spends a third of ε finding its "
        "bound; when its walk overshoots the data the sum gets very noisy, which gives its error a heavy tail."
    )


@st.cache_data(max_entries=32, show_spinner="Simulating…")
def mean_curves(dataset_key, column, chosen, grid, delta, lower, upper, trials, seed, *, _values) -> dict:
    # keyed by the dataset's unique key and the column; the values themselves are not hashed
    return {m: [mean_error_bound(m, e, delta, _values, lower, upper) for e in grid] for m in chosen}


def mean_error_bound(name, eps, delta, values, lower, upper) -> float:
    """95th percentile of |noisy mean − true mean of the column| (clipping bias included), simulated."""
    gen, trials = state.rng(f"cmp-{name}"), state.trials()
    truth = float(np.mean(values))
    if name.startswith("LDP"):
        estimates = LDPMean(eps, lower, upper).simulate(values, gen, trials=trials)
    elif name.startswith("SVT"):
        estimates = auto_mean(values, LADDER_CANDIDATES, eps, gen, trials=trials).noisy_value
    else:
        kind = "laplace" if name.startswith("Laplace") else "gaussian"
        res = dp_mean(values, lower, upper, eps, gen, mechanism=kind, delta=delta if kind == "gaussian" else None)
        estimates = res.simulate(trials, gen)
    return empirical_error_bound(estimates - truth, 0.95)


def render() -> None:
    st.title("Compare mechanisms")
    st.caption("The same query on the same column, answered by several mechanisms: which is most accurate at which ε?")
    c1, c2, c3 = st.columns([1, 1.4, 1])
    with c1:
        query = widgets.select(
            "Query", ["Counts of a category", "Mean of a number"], "cmp_query", "What every mechanism answers."
        )
    with c2:
        widgets.epsilon_slider("cmp_epsilon")
    with c3:
        delta = widgets.delta_slider("cmp_delta", help="Only the Gaussian mechanisms use δ.")
    if query == "Counts of a category":
        counts(delta)
    else:
        means(delta)
    with st.expander("How the comparison is fair"):
        st.markdown(
            "All mechanisms get the same ε (and δ for the Gaussian ones). Counts compare under the replace-one "
            "neighbouring relation, the one local DP protects, so a central histogram has L1 sensitivity 2 and "
            "L2 sensitivity √2. Errors are exact standard deviations where dpcore has them in closed form, and "
            "root mean squared errors over simulated releases otherwise."
        )


frame.run_page(render)
