"""Overview: what the explorer shows and where to start."""

import numpy as np
import streamlit as st

from dpcore import GRR, Laplace
from explorer import charts, frame, state
from explorer.markup import md

EPS = np.geomspace(0.05, 10, 40)


def price_of_trust(n: int) -> None:
    """The first chart a visitor sees: one count's 95% error against ε, trusted curator or none.

    It also has the browser load the charting code while the Overview is read, so the
    first mechanism page opens as fast as a warm one.
    """
    half = np.array([n // 2, n - n // 2])  # a yes/no question answered yes by half the people
    series = {
        "central Laplace (trusted curator)": [Laplace.from_epsilon(e).error_bound() for e in EPS],
        "GRR, local (nobody trusted)": [float(GRR(e, half.size).error_bound(half)[0]) for e in EPS],
    }
    left, right = st.columns([1.5, 1])
    left.plotly_chart(
        charts.curves(
            EPS,
            series,
            1.0,
            f"95% error of one count of {n:,} people, against ε",
            y_title="± count (log)",
            log_y=True,
            current_label="ε = 1",
        ),
        key="home_price",
    )
    gap = float(GRR(1.0, half.size).error_bound(half)[0]) / Laplace.from_epsilon(1.0).error_bound()
    right.markdown(
        f"**The price of privacy, in one picture.** Smaller ε (left) means more noise. At every ε, randomizing "
        f"each person's answer (local) costs far more accuracy than letting a trusted curator add the noise "
        f"(central): about **{gap:,.0f}×** at ε = 1 for {n:,} people, because every answer carries "
        "its own noise. The pages below show why, and what to do about it."
    )


def render() -> None:
    st.title("DP Explorer")
    st.markdown(
        "Differential privacy adds calibrated randomness so that no single person's data changes what is released "
        "by much. **ε** measures how much: smaller ε, more noise, more privacy. This explorer lets you *see* the price "
        "on real columns: the noisy answer against the true one, how the error is distributed, and how the privacy "
        "loss adds up when you release many times."
    )
    ds = state.dataset()
    st.info(
        f"Active dataset: {md(ds.name)} ({ds.n_rows:,} rows). Upload your own CSV on the Data page.",
        icon=":material/table_view:",
    )
    price_of_trust(ds.n_rows)
    c1, c2, c3 = st.columns(3)
    with c1:
        st.subheader("Local or central?")
        st.markdown(
            "**Local DP**: each person randomizes before sending (randomized response, OUE). "
            "**Central DP**: a trusted curator adds noise to the answer (Laplace, Gaussian)."
        )
        st.page_link("app_pages/local.py", label="Local DP", icon=":material/casino:")
        st.page_link("app_pages/central.py", label="Central DP", icon=":material/bar_chart:")
    with c2:
        st.subheader("Many questions")
        st.markdown("The **sparse vector technique** answers only the queries that matter and pays for those alone.")
        st.page_link("app_pages/svt.py", label="Sparse vector", icon=":material/manage_search:")
    with c3:
        st.subheader("The running total")
        st.markdown(
            "Every release spends budget. The **accountant** shows how ε grows with k releases under "
            "five ways of counting, from the naive sum to the exact value."
        )
        st.page_link("app_pages/accountant.py", label="Accountant", icon=":material/calculate:")
        st.page_link("app_pages/compare.py", label="Compare mechanisms", icon=":material/compare_arrows:")
        st.page_link("app_pages/audit.py", label="Audit a privacy claim", icon=":material/policy:")
        st.page_link("app_pages/learning.py", label="Train a model privately", icon=":material/model_training:")
    with st.expander("Which mechanism, at which ε? Rules of thumb the pages let you check", expanded=True):
        st.markdown(
            "- **Is there a curator you trust with the raw data?** Then release centrally: the error of a count is "
            "about 1/ε instead of about √n/ε for local randomization (*Local DP*, the central curve).\n"
            "- **No trusted curator:** for k categories use **GRR** when k < 3e^ε + 2, otherwise **OUE** "
            "(*Local DP*, the variance curves).\n"
            "- **One or a few answers:** **Laplace** (pure ε-DP). **Many answers composed:** **Gaussian**, counted with "
            "RDP, zCDP or the exact accountant: while each release is weak, the total grows roughly like √k rather than "
            "k (*Accountant* shows the numbers for your k).\n"
            "- **Many yes/no questions, few yeses:** the **sparse vector technique** pays only for the yeses "
            "(*Sparse vector*).\n"
            "- **Training a model:** clip each person's gradient and add Gaussian noise (noisy gradient descent, "
            "DP-SGD); sampling a small batch each step makes every step cheaper to count (*Learning*).\n"
            "- **Choosing ε:** read the 95% error bound each page prints, in your data's units, and take the smallest "
            "ε whose error you can live with; then check the total with the *Accountant* for all your releases."
        )
    st.caption(
        "Every number on these pages is computed by the dpcore package, whose docstrings cite the paper "
        "behind each formula. Demo datasets are synthetic."
    )


frame.run_page(render)
