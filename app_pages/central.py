"""Central DP: a trusted curator answers queries on the raw data and adds the noise itself.

Shows count, clipped sum, mean and histogram released with the noise of any central family of
``dpcore.families`` (Laplace, the analytic Gaussian, the staircase), Laplace against the analytic and
classic Gaussian at the same ε (``dpcore.gaussian``), and the exponential mechanism choosing the most
common category (``dpcore.exponential``). Neighbouring relation: add/remove one record, or add/remove one person
when a person unit is declared (``explorer.unit``: count, sum, mean, histogram, count where… and category counts
bound each person's rows first).
Only the chosen query is computed, so a slider move stays fast. On a large file opened by path (a seeded sample),
count, sum, mean, histogram, count where…, category counts and most common value take their true answers from
DuckDB over every row of the file (``explorer.full_file``, cached per query: an ε move scans nothing); the others
say they use the sample.

This script keeps what the views share on screen (the noise, ε and δ, laid out by each view in its own
row) and the switch between the views. Each view lays itself out in its own module of the app package:
``explorer.central_numeric`` (count, sum, mean, histogram of a numeric column), ``explorer.central_counts``
(a count where one or two conditions hold, the counts of categories), ``explorer.central_tables`` (a two-way
table, counts per year or month of a column of dates), ``explorer.central_mode`` (the most common
value); their shared pieces, with the table of queries, are in ``explorer.central_layout``, and their
Publish sections in ``explorer.central_publish``.
"""

import streamlit as st

from dpcore import families
from dpcore.families import Family
from explorer import (
    central_counts,
    central_mode,
    central_numeric,
    central_quantile,
    central_tables,
    frame,
    full_file,
    unit,
    widgets,
)
from explorer.markup import md

#: The queries that honour a person unit (each person's rows bounded first); the others protect one row only.
PERSON_QUERIES = ("Count", "Sum", "Mean", "Histogram", "Count where…", "Category counts")

#: The switch between the views: each query, by the label a link carries, to the view that lays it out.
VIEWS = {
    **dict.fromkeys(("Count", "Sum", "Mean", "Histogram"), central_numeric.view),
    "Quantile": central_quantile.view,
    "Count where…": central_counts.condition_view,
    "Category counts": central_counts.categories_view,
    "Two-way table": central_tables.two_way_view,
    "Per year or month": central_tables.periods_view,
    "Most common value": central_mode.view,
}


def noise_controls(c_noise, c_epsilon, c_delta) -> tuple[Family, float, float]:
    """The noise, ε and δ widgets of every query view, in the given columns (one setting per page: the same keys).

    The noise is any central family of the registry, chosen by its name (what a link carries).
    """
    with c_noise:
        name = widgets.select(
            "Noise",
            [f.name for f in families.central()],
            "cen_mechanism",
            "Laplace gives pure ε-DP; Gaussian gives (ε, δ)-DP with the analytic calibration. Staircase is the pure "
            "ε-DP noise of least variance (simulated here, not published).",
        )
    with c_epsilon:
        eps = widgets.epsilon_slider("cen_epsilon")
    with c_delta:
        delta = widgets.delta_slider(
            "cen_delta",
            help="δ of the Gaussian mechanism (also used by the Laplace-or-Gaussian comparison); "
            "Laplace noise has δ = 0. Keep it well below 1/n.",
        )
    return families.family(name), eps, delta


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
        st.latex(  # two aligned lines: on one, the page's width cut it before "w.p. 0.95"
            r"\begin{aligned}&\text{Exponential: } P(r) \propto \exp\!\left(\frac{\varepsilon\, u(x, r)}{2\Delta_u}"
            r"\right),\quad u = \text{count of } r,\ \Delta_u = 1;\\ &\mathrm{OPT} - u(\hat r) \le "
            r"\frac{2\Delta_u}{\varepsilon}\left(\ln k + \ln\tfrac{1}{1-0.95}\right) \text{ w.p. } 0.95\end{aligned}"
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
    declared = unit.header()
    query = widgets.bound(
        st.radio,
        "Query",
        tuple(VIEWS),
        horizontal=True,
        key="cen_query",
        bind="query-params",
        help="Only the chosen query is computed. Most common value uses the exponential mechanism.",
    )
    if declared.identifier is not None and query not in PERSON_QUERIES:
        st.info(
            f"{md(query)} protects one row only here; under the declared unit, a person, choose "
            f"{', '.join(PERSON_QUERIES[:-1])} or {PERSON_QUERIES[-1]}, or declare one row per person above."
        )
        return
    full_file.sample_note(query)
    VIEWS[query](query, noise_controls)
    explain()


frame.run_page(render)
