"""Central DP: a trusted curator answers queries on the raw data and adds the noise itself.

Shows count, clipped sum, mean and histogram released with Laplace or Gaussian
noise (``dpcore.queries``), Laplace against the analytic and classic Gaussian at
the same ε (``dpcore.gaussian``), and the exponential mechanism choosing the most
common category (``dpcore.exponential``). Neighbouring relation: add/remove one
record. Only the chosen query is computed, so a slider move stays fast.
"""

import warnings

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import (
    Gaussian,
    Laplace,
    dp_mean,
    exponential_error_bound,
    exponential_mechanism,
    exponential_probabilities,
    publish,
)
from dpcore.accounting import PureDP
from dpcore.lattice import lattice_mechanism
from dpcore.queries import RELATION, mean_epsilon_for_accuracy, noise_mechanism, split_mean_budget
from explorer import budget, central_publish, charts, domains, export, frame, releases, snippets, state, widgets
from explorer.columns import (
    MISSING_LABEL,
    NUMBER_CONDITIONS,
    OTHER_LABEL,
    TEXT_CONDITIONS,
    condition_mask,
    is_numeric,
    numeric_values,
    suggest_bounds,
)
from explorer.export import to_safe_csv
from explorer.markup import md, number, plain_sentence, power_of_two

QUERIES = ("Count", "Sum", "Mean", "Histogram", "Count where…", "Category counts", "Most common value")
#: queries whose answer is one count per bin or category (the others release one number)
VECTOR_QUERIES = ("Histogram", "Category counts")
NOISES = {"laplace": "Laplace", "gaussian": "Gaussian (analytic)"}
EPS_GRID = np.array(widgets.EPSILON_GRID)  # the slider's own values, so the current ε is a point of every curve
CONFIDENCE = 0.95
SALT = "central"


_num = number  # the page's number format


def noise_part(query, eps, delta, lower, upper, split):
    """(ε, δ, Δ) of the one noisy number the comparison is about (for the mean: its sum), as dpcore names them."""
    if query == "Mean":
        part = split_mean_budget(eps, split, delta)
        return part.sum_epsilon, part.sum_delta, RELATION.clipped_sum_sensitivity(lower, upper)
    if query == "Sum":
        return eps, delta, RELATION.clipped_sum_sensitivity(lower, upper)
    if query in VECTOR_QUERIES:
        return eps, delta, RELATION.histogram_l1_sensitivity  # = its L2 sensitivity under add/remove
    return eps, delta, RELATION.counting_query_sensitivity  # a count, or a count of the rows matching a condition


@st.cache_data(max_entries=32, show_spinner=False)
def error_curves(query, values, lower, upper, split, delta) -> dict:
    """95% error bound of ``query`` at each ε of the slider: Laplace, analytic and classic Gaussian."""
    if query == "Mean":  # no closed form: dpcore's Monte-Carlo bound of each release
        return {
            NOISES[m]: [
                dp_mean(values, lower, upper, e, 0, split=split, mechanism=m, delta=delta).error_bound(
                    CONFIDENCE, trials=4000
                )
                for e in EPS_GRID
            ]
            for m in NOISES
        }
    _, _, sens = noise_part(query, 1.0, delta, lower, upper, split)
    curves = {NOISES[m]: [noise_mechanism(e, sens, m, delta).error_bound(CONFIDENCE) for e in EPS_GRID] for m in NOISES}
    curves["Gaussian, classic σ (proven for ε < 1 only)"] = [
        Gaussian.from_epsilon_delta(e, delta, sens, "classic").error_bound(CONFIDENCE) if e < 1 else np.nan
        for e in EPS_GRID
    ]
    return curves


def numeric_query(query: str) -> None:
    ds = state.dataset()
    columns = widgets.fitting_columns("numeric")
    if not columns:
        return
    c1, c2, c3, c4 = st.columns([1, 1, 1.6, 1.2])
    with c1:
        column = widgets.select(
            "Numeric column", columns, "cen_column", "Numeric columns only; missing values are left out."
        )
    noise, eps, delta = noise_controls(c2, c3, c4)
    values, dropped = numeric_values(ds.frame[column])
    lower = upper = bins = split = None
    if query != "Count":
        lo, hi = suggest_bounds(ds.frame[column])
        b1, b2, b3 = st.columns(3)
        lower = b1.number_input(
            "Lower clipping bound",
            value=float(lo),
            key=f"cen_lower_{column}",
            bind="query-params",
            help="Values below are raised to it before the query. Fix it from domain knowledge.",
        )
        upper = b2.number_input(
            "Upper clipping bound",
            value=float(hi),
            key=f"cen_upper_{column}",
            bind="query-params",
            help="Values above are lowered to it. The sum's sensitivity is max(|lower|, |upper|).",
        )
        if query == "Histogram":
            bins = b3.slider(
                "Number of bins",
                2,
                50,
                10,
                key="cen_bins",
                bind="query-params",
                help="Equal-width bins between the bounds; each bin count gets the noise of one count.",
            )
        if query == "Mean":
            split = b3.slider(
                "Share of ε (and δ) for the sum",
                0.05,
                0.95,
                0.5,
                0.05,
                key="cen_split",
                bind="query-params",
                help="The mean is noisy sum / noisy count; the rest of the budget goes to the count.",
            )
        st.caption(
            f"The default bounds ({lo:g}, {hi:g}) are the column's minimum and 99th percentile: read from the data, "
            "they are not private. A real release fixes them from domain knowledge."
        )
    if dropped:
        st.caption(f"{dropped:,} missing values were left out.")
    options = {"noise": noise, "delta": delta if noise == "gaussian" else None, "lower": lower, "upper": upper}
    options |= {"bins": bins} if query == "Histogram" else {"split": split} if query == "Mean" else {}
    seed = state.seed_words(SALT)
    try:
        result = releases.central_query(values, query.lower(), eps, seed, **options)
        curves = error_curves(query, values if query == "Mean" else None, lower, upper, split, delta)
    except ValueError as exc:
        st.error(f"This query cannot be released with these settings. {md(plain_sentence(exc))}")
        return
    with c3:
        accuracy_popover(query, noise, delta, lower, upper, split, values, result)
    show_release(
        query, column, result, snippets.central_query(state.dataset(), column, query.lower(), eps, seed, **options)
    )
    widgets.audit_link(f"{noise}_{query.lower().replace('histogram', 'count')}", eps, **options)
    central_publish.numeric_query(query, column, ds.frame[column], noise, eps, delta, bins, split)
    compare(query, eps, delta, lower, upper, split, curves)


def accuracy_popover(query, noise, delta, lower, upper, split, values, result) -> None:
    """ "I need ±X on this answer": the ε that gives it, from dpcore's inverse of this query's error bound."""
    if query == "Mean":

        def solve(x):
            return mean_epsilon_for_accuracy(x, values, lower, upper, split=split, mechanism=noise, delta=delta)

        extra = " (Monte Carlo, as the bound shown)"
    else:
        _, _, sensitivity = noise_part(query, 1.0, delta, lower, upper, split)

        def solve(x):
            if noise == "gaussian":
                return Gaussian.epsilon_for_accuracy(x, delta=delta, sensitivity=sensitivity)
            return Laplace.epsilon_for_accuracy(x, sensitivity=sensitivity)

        extra = f" with δ = {delta:.0e}" if noise == "gaussian" else ""
    what = "each count" if query in VECTOR_QUERIES else f"the {query.lower().rstrip('…')}"
    bound = float(np.max(result.error_bound(CONFIDENCE)))
    widgets.epsilon_for_accuracy("cen", "cen_epsilon", solve, float(f"{bound:.2g}"), what, extra=extra)


def show_release(query, column, result, code: str, labels=None) -> None:
    mech = result.mechanisms[0] if query == "Mean" else result.mechanism
    bound = result.error_bound(CONFIDENCE)
    how = (
        "Monte Carlo over 10,000 simulated releases"
        if query == "Mean"
        else f"{type(mech).__name__} noise, std {_num(mech.std)}, sensitivity Δ = {mech.sensitivity:g}"
    )
    grid = lattice_mechanism(mech).grid
    if query in VECTOR_QUERIES:
        labels = list(publish.bin_labels(result.bin_edges)) if query == "Histogram" else labels
        name = "bin" if query == "Histogram" else column
        st.plotly_chart(
            charts.true_vs_noisy_bars(
                labels,
                result.true_value,
                result.noisy_value,
                bound,
                f"{column}: true and noisy count per {'bin' if query == 'Histogram' else 'category'} "
                "(bars: 95% error bound)",
                mechanism=type(mech).__name__,
            ),
            key="cen_bars",
        )
        if query == "Histogram" and (result.clipped_below or result.clipped_above):
            e = result.bin_edges
            st.caption(
                f"Clipping: {result.clipped_below:,} value(s) below {e[0]:g} were counted in the first bin and "
                f"{result.clipped_above:,} above {e[-1]:g} in the last. The end bins always read 'below' and 'and "
                "above', whatever the data, so no label tells whether anyone was clipped."
            )
        release = pd.DataFrame({name: labels, "noisy count": result.noisy_value})
        table = pd.DataFrame({name: labels, "true": result.true_value, "noisy": result.noisy_value})
    else:
        a, b, c = st.columns(3)
        a.metric("True answer", _num(result.true_value), help="Of the clipped values for a sum or mean.")
        b.metric(
            "Noisy answer (simulated, not private)",
            _num(result.noisy_value),
            f"{result.error:+,.4g}",
            delta_color="off",
            delta_arrow="off",
        )
        c.metric("95% error bound", f"±{_num(bound)}")
        release = pd.DataFrame({"query": [query.lower()], "column": [column], "noisy": [result.noisy_value]})
        table = release.assign(true=[result.true_value])
        if query in ("Sum", "Mean"):
            st.caption(
                f"Without clipping the true {query.lower()} is {_num(result.unclipped_value)}: clipping moved it by "
                f"{_num(result.true_value - result.unclipped_value)}, a bias the error bound does not include."
            )
    st.markdown(f"With 95% probability the error is below **{_num(bound)}** ({how}).")
    st.caption(
        f"The release is drawn on a lattice (grid {power_of_two(grid)}) with exact discrete noise of the same guarantee, so "
        "no floating-point hole can give the data away (Mironov 2012; the Audit page shows the attack); the "
        "simulations below use fast floating-point noise of the same law."
    )

    sims = result.simulate_errors(state.trials(), state.rng(SALT + "-sims"))
    j = int(np.argmax(result.true_value)) if query in VECTOR_QUERIES else None
    errors = sims[:, j] if j is not None else sims
    grid_x = np.linspace(errors.min(), errors.max(), 200)
    density = result.approx_error_pdf(grid_x) if query == "Mean" else mech.pdf(grid_x)
    left, right = st.columns([1.6, 1])
    left.plotly_chart(
        charts.error_histogram(
            errors,
            grid_x,
            density,
            f"Error of the {query.lower().rstrip('…').removesuffix(' where')}"
            + (f" of {labels[j]}" if j is not None else "")
            + f" over {state.trials():,} simulated releases",
            density_name="first-order law" if query == "Mean" else "noise density",
            mechanism=type(mech).__name__,
        ),
        key="cen_hist",
    )
    right.metric("Empirical std of the error", _num(errors.std(ddof=1)))
    right.metric(
        "Theoretical std of the error",
        _num(result.approx_std if query == "Mean" else mech.std),
        help="Delta-method approximation for the mean (ratio of two noisy numbers); exact otherwise.",
    )
    slug = query.lower().replace(" ", "_").rstrip("…")
    right.download_button(
        export.SIMULATED_RELEASE,
        to_safe_csv(export.simulated(release)),
        file_name=f"central_{slug}_simulated_release.csv",
        mime="text/csv",
        help=export.SIMULATED_HELP,
    )
    right.download_button(
        "Teaching table (CSV)",
        to_safe_csv(table),
        file_name=f"central_{slug}.csv",
        mime="text/csv",
        help="The true answer beside the noisy one, as shown. Never publish the true column.",
    )
    right.download_button("Python snippet", code, file_name="central_snippet.py", mime="text/x-python")
    with right:
        budget.record_release(
            list(result.mechanisms) if query == "Mean" else [mech],
            label=f"{query} of {column}, {type(mech).__name__} ε={result.epsilon:.3g}",
            key="cen",
        )


def compare(query, eps, delta, lower, upper, split, curves) -> None:
    st.subheader("Laplace or Gaussian at the same ε?")
    st.plotly_chart(
        charts.curves(
            EPS_GRID,
            curves,
            eps,
            f"95% error bound of the {query.lower()} over ε (Gaussian with δ = {delta:.0e})",
            y_title="95% error bound",
            log_y=True,
        ),
        key="cen_curve",
    )
    e, d, sens = noise_part(query, eps, delta, lower, upper, split)
    laplace, analytic = noise_mechanism(e, sens, "laplace"), noise_mechanism(e, sens, "gaussian", d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # said below in words
        classic = Gaussian.from_epsilon_delta(e, d, sens, "classic")
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
    part = f" (the noise of the sum part: ε = {e:.3g}, δ = {d:.1e})" if query == "Mean" else ""
    st.markdown(
        f"At ε = {eps:g}{part}, the analytic Gaussian's σ is **{analytic.sigma / laplace.std:.2f}×** the Laplace "
        "std, and it also pays δ. The Gaussian pays off when many queries are composed (see the Accountant page)."
    )


def noise_controls(c_noise, c_epsilon, c_delta) -> tuple[str, float, float]:
    """The noise, ε and δ widgets of every query view, in the given columns (one setting per page: the same keys)."""
    with c_noise:
        noise = widgets.select(
            "Noise",
            ("Laplace", "Gaussian"),
            "cen_mechanism",
            "Laplace gives pure ε-DP; Gaussian gives (ε, δ)-DP with the analytic calibration.",
        ).lower()
    with c_epsilon:
        eps = widgets.epsilon_slider("cen_epsilon")
    with c_delta:
        delta = widgets.delta_slider(
            "cen_delta",
            help="δ of the Gaussian mechanism (also used by the Laplace-or-Gaussian comparison); "
            "Laplace noise has δ = 0. Keep it well below 1/n.",
        )
    return noise, eps, delta


def condition_count() -> None:
    frame_ = state.dataset().frame
    columns = [c for c in frame_.columns if c in set(state.categorical_columns()) | set(state.numeric_columns())]
    if not columns:
        st.info("This dataset has no column to count with a condition; upload one on the Data page.")
        return
    c1, c2, c3 = st.columns([1, 0.7, 1])
    with c1:
        column = widgets.select("Column", columns, "cen_where_column", "Count the rows whose value meets a condition.")
    series = frame_[column]
    numeric = is_numeric(series)
    with c2:
        condition = widgets.select(
            "Condition",
            NUMBER_CONDITIONS if numeric else TEXT_CONDITIONS,
            "cen_where_condition",
            "Chosen from a list: nothing typed is evaluated.",
        )
    with c3:
        if numeric:
            lo, hi = suggest_bounds(series)
            value = st.number_input(
                "Value",
                value=float(np.round((lo + hi) / 2, 1)),
                key=f"cen_where_value_{column}",
                bind="query-params",
                help="The condition is public: fix it before looking at the data.",
            )
        else:
            _, labels, _ = state.encoded(column)
            offered = [v for v in labels if v not in (OTHER_LABEL, MISSING_LABEL)]
            value = widgets.select("Value", offered, f"cen_where_value_{column}", "One of the column's values.")
    c2, slot, c4 = st.columns([1, 1.6, 1.2])
    noise, eps, delta = noise_controls(c2, slot, c4)
    mask = condition_mask(series, condition, value)
    seed = state.seed_words(SALT)
    result = releases.count_matching(mask, eps, seed, noise, delta)
    with slot:
        accuracy_popover("Count where…", noise, delta, None, None, None, None, result)
    label = f"{column} {condition} {value}"
    code = snippets.count_matching(state.dataset(), column, condition, value, eps, seed, noise, delta)
    show_release("Count where…", label, result, code)
    central_publish.condition_count(column, series, condition, noise, eps, delta)
    compare("Count where…", eps, delta, None, None, None, error_curves("Count where…", None, None, None, None, delta))


def category_histogram() -> None:
    columns = widgets.fitting_columns("categorical")
    if not columns:
        return
    c1, _ = st.columns([1, 2.8])
    with c1:
        column = widgets.select(
            "Categorical column", columns, "cen_category_column", "Every category's count gets the noise of one count."
        )
    c2, slot, c4 = st.columns([1, 1.6, 1.2])
    noise, eps, delta = noise_controls(c2, slot, c4)
    codes, labels, note = state.encoded(column)
    st.caption(domains.FROM_THE_DATA)
    if note:
        st.caption(md(note))
    seed = state.seed_words(SALT)
    result = releases.category_counts(codes, labels, eps, seed, noise, delta)
    with slot:
        accuracy_popover("Category counts", noise, delta, None, None, None, None, result)
    st.caption(
        "The same column can be released locally (Local DP page) and centrally (here): the Compare page sets "
        "them side by side at one ε."
    )
    code = snippets.category_counts(state.dataset(), column, eps, seed, noise, delta)
    show_release("Category counts", column, result, code, labels=labels)
    central_publish.category_counts(column, state.dataset().frame[column], noise, eps, delta)
    curves = error_curves("Category counts", None, None, None, None, delta)
    compare("Category counts", eps, delta, None, None, None, curves)


def most_common() -> None:
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
        # its own slider: at the counts' default ε = 1 a census mode is certain and the chart says nothing
        eps = widgets.epsilon_slider("cen_em_epsilon", default=0.02)
    codes, labels, note = state.encoded(column)
    st.caption(domains.FROM_THE_DATA)
    if note:
        st.caption(note)
    counts = np.bincount(codes, minlength=len(labels))
    mode, k = int(np.argmax(counts)), len(labels)
    probs = exponential_probabilities(counts, eps, 1.0)
    seed = state.seed_words(SALT)
    chosen = labels.index(releases.most_common(codes, labels, eps, seed))
    picks = exponential_mechanism(counts, eps, 1.0, state.rng(SALT + "-sims"), trials=state.trials())
    freqs = np.bincount(picks, minlength=k) / picks.size
    bound = exponential_error_bound(k, eps, 1.0, CONFIDENCE)
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
    c.metric("95% bound on the shortfall", f"{bound:,.1f}")
    runner_up = int(np.sort(counts)[-2])
    st.markdown(
        f"With 95% probability the chosen value's count is at most **{bound:,.1f}** below the top count "
        f"(Dwork & Roth, Theorem 3.11, {k} candidates). The top two counts differ by {counts[mode] - runner_up:,}: "
        "the larger that gap is next to 2/ε, the surer the pick."
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
    p_mode = [exponential_probabilities(counts, e)[mode] for e in EPS_GRID]
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
            {"95% shortfall bound": [exponential_error_bound(k, e) for e in EPS_GRID]},
            eps,
            "95% bound on the count shortfall",
            y_title="count",
            log_y=True,
        ),
        key="cen_em_bound",
    )
    right.metric("P(true most common chosen), theory", f"{probs[mode]:.3f}")
    right.metric("Empirical frequency", f"{freqs[mode]:.3f}", help=f"Over {state.trials():,} independent picks.")
    table = pd.DataFrame({column: labels, "true count": counts, "probability": probs, "chosen": np.arange(k) == chosen})
    right.download_button(
        "Choice and probabilities (CSV)", to_safe_csv(table), file_name="central_mode.csv", mime="text/csv"
    )
    code = snippets.most_common(state.dataset(), column, eps, seed)
    right.download_button("Python snippet", code, file_name="central_mode.py", mime="text/x-python")
    with right:  # accounted as any ε-DP release (dpcore.accounting.PureDP)
        budget.record_release(PureDP(eps), label=f"Most common {column}, exponential ε={eps:g}", key="cen_em")
        widgets.audit_link("exponential", eps, candidates=k, sensitivity=RELATION.counting_query_sensitivity)
    central_publish.most_common(column, state.dataset().frame[column], eps)


def explain() -> None:
    with st.expander("Neighbouring relation, sensitivities and the mechanisms"):
        st.markdown(
            "Two datasets are neighbours when one is the other **plus or minus one record** (add/remove). "
            "The sensitivity Δ is the most one record can change the answer:"
        )
        st.latex(
            r"\Delta_{\text{count}} = 1,\quad \Delta_{\text{sum}} = \max(|L|, |U|),\quad "
            r"\Delta_1^{\text{hist}} = \Delta_2^{\text{hist}} = 1,\quad \widehat{\text{mean}} = "
            r"\frac{\widetilde{\textstyle\sum}\,(s\varepsilon)}{\widetilde{\text{count}}\,((1-s)\varepsilon)}"
        )
        st.latex(
            r"\text{Laplace: } b = \frac{\Delta_1}{\varepsilon};\qquad \text{Gaussian (analytic): smallest } \sigma "
            r"\text{ with } \Phi\!\left(\tfrac{\Delta_2}{2\sigma} - \tfrac{\varepsilon\sigma}{\Delta_2}\right) - "
            r"e^{\varepsilon}\,\Phi\!\left(-\tfrac{\Delta_2}{2\sigma} - \tfrac{\varepsilon\sigma}{\Delta_2}\right) \le \delta"
        )
        st.latex(
            r"\text{Exponential: } P(r) \propto \exp\!\left(\frac{\varepsilon\, u(x, r)}{2\Delta_u}\right),\quad "
            r"u = \text{count of } r,\ \Delta_u = 1;\qquad \mathrm{OPT} - u(\hat r) \le \frac{2\Delta_u}{\varepsilon}"
            r"\left(\ln k + \ln\tfrac{1}{1-0.95}\right) \text{ w.p. } 0.95"
        )
        st.caption(
            "Dwork & Roth 2014 (Thm 3.6, 3.11, A.1); Balle & Wang 2018 (analytic Gaussian). Under replace-one "
            "the sum's sensitivity would be U − L. The ledger charges the exponential mechanism as binary "
            "randomized response at the same ε, the worst case of any ε-DP mechanism."
        )


def render() -> None:
    st.title("Central differential privacy")
    st.caption(
        "A trusted curator holds the raw data, computes the exact answer and adds calibrated noise before publishing."
    )
    query = st.radio(
        "Query",
        QUERIES,
        horizontal=True,
        key="cen_query",
        bind="query-params",
        help="Only the chosen query is computed. Most common value uses the exponential mechanism.",
    )
    if query == "Most common value":
        most_common()
    elif query == "Count where…":
        condition_count()
    elif query == "Category counts":
        category_histogram()
    else:
        numeric_query(query)
    explain()


frame.run_page(render)
