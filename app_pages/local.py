"""Local DP: each person randomizes their own answer (GRR, SUE, OUE; LDP mean).

This script keeps the coin-flip story and the switch between the two views; each view lays itself out in its own
module of the app package: ``explorer.local_frequencies`` (the counts of a category by a frequency oracle of
``dpcore.families.local()``) and ``explorer.local_mean`` (the one-bit LDP mean). Their Publish sections are in
``explorer.local_publish``.
"""

import streamlit as st

from dpcore import coin_flip_rr
from explorer import frame, local_frequencies, local_mean, unit, widgets


def coin_flip_story() -> None:
    m = coin_flip_rr()
    with st.expander("Randomized response: the coin-flip survey (ε = ln 3)", expanded=False):
        st.markdown(
            "Ask *“Did you cheat on an exam?”* but tell each person: flip a coin in private. **Heads**, answer truthfully. "
            "**Tails**, flip again and answer *yes* on heads, *no* on tails. Any single *yes* may be a coin, so nobody can "
            "be blamed for it, yet the share of cheaters is still estimable from many answers."
        )
        st.latex(
            r"P(\text{yes}\mid\text{yes}) = \tfrac12 + \tfrac14 = \tfrac34,\quad P(\text{yes}\mid\text{no}) = \tfrac14,"
            r"\quad \varepsilon = \ln\frac{3/4}{1/4} = \ln 3 \approx 1.0986"
        )
        st.caption(f"It is GRR with k = 2 and ε = ln 3: p = {m.p:g}, q = {m.q:g}.")
        widgets.audit_link("coin_flip", m.epsilon)


def render() -> None:
    st.title("Local differential privacy")
    st.caption(
        "Each person randomizes their own answer before it leaves their device: the collector never sees a true value."
    )
    unit.header()  # a person with many rows sends one report, of one row sampled at random
    coin_flip_story()
    # only the open tab runs: a slider move recomputes one view, and a link names the view it shows
    tab_freq, tab_mean = widgets.tabs(["Frequencies of a category", "Mean of a number"], "ldp_view")
    if tab_freq.open:
        with tab_freq:
            local_frequencies.frequencies_view()
    if tab_mean.open:
        with tab_mean:
            local_mean.mean_view()


frame.run_page(render)
