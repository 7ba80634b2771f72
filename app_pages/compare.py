"""Compare: several mechanisms answering the same query on the same column, side by side.

One release of each next to the truth, the distribution of each one's error over
simulated releases (one box per mechanism, on one axis), a verdict computed from
those errors, and the error against ε.

This script keeps the controls the queries share (the query, ε, δ), the switch between them and the note on
fairness; each query's view lays itself out in its own module of the app package: ``explorer.compare_counts``
(every family of ``dpcore.families`` on a histogram), ``explorer.compare_means`` and ``explorer.compare_quantiles``
(the exponential mechanism against quantiles read off noisy histograms); their shared pieces are in
``explorer.compare_layout``. The declared unit of privacy (``explorer.unit``) is drawn under the title, as on the
Central and Local DP pages, and every view answers under it.
"""

import streamlit as st

from explorer import compare_counts, compare_means, compare_quantiles, frame, unit, widgets

QUERIES = ("Counts of a category", "Mean of a number", "Quantile or median")


def render() -> None:
    st.title("Compare mechanisms")
    st.caption("The same query on the same column, answered by several mechanisms: which is most accurate at which ε?")
    declared = unit.header()
    c1, c2, c3 = st.columns([1, 1.4, 1])
    with c1:
        query = widgets.select("Query", QUERIES, "cmp_query", "What every mechanism answers.")
    with c2:
        eps = widgets.epsilon_slider("cmp_epsilon")
    with c3:
        delta = widgets.delta_slider("cmp_delta", help="Only the Gaussian mechanisms use δ.")
    if query == QUERIES[0]:
        compare_counts.counts_view(eps, delta, declared)
    elif query == QUERIES[1]:
        compare_means.means_view(eps, delta, declared)
    else:
        compare_quantiles.quantiles_view(eps, delta, declared)
    with st.expander("How the comparison is fair"):
        st.markdown(
            "All mechanisms get the same ε (and δ for the Gaussian ones). Counts compare under the replace-one "
            "neighbouring relation, the one local DP protects, so a central histogram has L1 sensitivity 2 and "
            "L2 sensitivity √2. Means: the LDP mean holds under replace one record, the central means under "
            "add/remove one record. Quantiles: both ways under add/remove one record, over the range you declare. "
            "Every file row names the relation its noise was calibrated for. The curves of counts are exact standard "
            "deviations (closed forms); the boxes, the verdicts and every number of the mean and the quantile are the "
            "95th percentile (or quartiles) of the error over simulated releases, drawn from each mechanism's exact "
            "law. One colour per mechanism on every page.\n\n"
            "Under a person unit (at most m rows each) ε protects a person: central counts and means bound each "
            "person's rows to m (as Central DP does) and their noise follows the person's sensitivity (m for a count, "
            "under add/remove one person); local mechanisms take one report per person, of one random row (as Local "
            "DP does); quantiles take one random row per person for every mechanism. Errors stay against all the rows, "
            "so what the bounding drops counts."
        )


frame.run_page(render)
