"""Audit: test a privacy claim from the outside, with an empirical lower bound on ε.

The first view runs an audit of ``dpcore.audit.CATALOGUE`` (or one of its broken
exhibits, ``BROKEN``) with ``dpcore.audit.audit`` and ``lower_bound_curve``: the
outputs on two neighbouring inputs, the event that separates them best, the
claimed ε against the lower bound, and the bound as the runs grow. The second
shows Mironov's floating-point attack (``floating_point_attack``) on textbook
Laplace noise against the lattice release (``dpcore.lattice``).

This script keeps what the page says of every audit and the switch between the views. Each view lays itself out
in its own module of the app package: ``explorer.audit_mechanism`` (its controls and runs; what a result shows is in
``explorer.audit_result``) and ``explorer.audit_floating_point``; their shared pieces are in ``explorer.audit_layout``.
"""

import streamlit as st

from explorer import audit_floating_point, audit_mechanism, frame, widgets

CAN_AND_CANNOT = (
    "An audit runs a mechanism many times on two neighbouring inputs and turns what it sees into a **lower "
    "bound on ε**: a bound above the claimed ε **refutes** the claim (at the stated confidence), but a bound "
    "below it proves nothing, since a pair of inputs or an event the audit did not try might do better. "
    "An audit can refute a privacy claim; it never proves one."
)


def render() -> None:
    st.title("Audit a privacy claim")
    st.markdown(CAN_AND_CANNOT)
    # only the open tab runs: a slider move recomputes one view, and a link names the view it shows
    tab_audit, tab_fp = widgets.tabs(["Audit a mechanism", "Floating-point attack"], "aud_view")
    if tab_audit.open:
        with tab_audit:
            audit_mechanism.audit_view()
    if tab_fp.open:
        with tab_fp:
            audit_floating_point.floating_point_view()


frame.run_page(render)
