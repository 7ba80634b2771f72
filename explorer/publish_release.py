"""Publish page, the split and the release: the statistic / ε / δ / error table and the trade-off chart (both from
the plan alone, :mod:`dpcore.plan`; the preview on a public file is :mod:`explorer.publish_preview`), then one
secure publication of the whole plan, charged to the persistent log
before it is shown (:func:`dpx_publish.package.publish_package`), with its package and the plan file. A file opened
from the data folder is published from every row of the file (:mod:`dpx_publish.source`), not from its sample.

Nothing here reads the private data before Publish; the published tables are shown without any true value.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.accounting import BudgetError
from dpcore.plan import BUDGET_RANGE, Allocation, Plan, allocate, error_curve, plan_to_dict
from dpcore.plan_release import check_columns
from dpx_publish.package import FILES, error_sentence, publish_package, released_error_sentence
from dpx_publish.source import needs_rows, open_file
from explorer import charts, publishing, state
from explorer.markup import md, plain_sentence
from explorer.publish_preview import chosen_sentence

__all__ = ["split", "trade_off", "publish", "save"]

_SHOWN = "_pub_package"
#: The totals the trade-off chart draws: a decade below and above the plan's total.
CURVE_POINTS = 25


def _errors(a: Allocation) -> pd.DataFrame:
    rows = []
    for s in a.shares:
        stat = s.statistic
        rows.append(
            {
                "statistic": stat.name,
                "what": stat.words() if stat.words() != stat.name else "",
                "ε": s.epsilon,
                "δ": s.delta,
                "ρ (zCDP)": s.rho,
                f"expected error (±) at {a.plan.confidence:.0%}": s.expected_error,
                "error unit": stat.error_unit or "as the value",
                "target": stat.target,
                "error / target": s.ratio,
                "noise": "; ".join(s.noise),
            }
        )
    table = pd.DataFrame(rows).dropna(axis=1, how="all")
    return table.drop(columns="what") if not table["what"].any() else table


def split(plan: Plan) -> Allocation | None:
    """The split of the plan's total: a table that moves with the targets, weights and total. Shows and returns it
    (None, with one sentence, when the plan cannot be split: a total below what the targets need)."""
    st.subheader("2. The split")
    try:
        a = allocate(plan)
    except ValueError as exc:
        st.info(md(plain_sentence(exc)))
        return None
    st.dataframe(_errors(a), hide_index=True, key="pub_split_table", width="stretch")
    words = f"Total ε = {a.epsilon:.4g}" + (f", δ = {a.delta:.3g}" if a.delta else "")
    words += f" under {a.relation.words(plan.unit.unit)}, by {a.accountant}."
    if a.needed_epsilon is not None:
        words += f" The targets need a total of at least ε = {a.needed_epsilon:.4g}."
    st.caption(
        md(words) + " Each error is that of each published number, from the plan alone (declared bounds and "
        "planned sizes, never this file). A mean's is a worst case: at most that, whatever the values within the "
        "declared bounds, at its planned number of records; once published it is also stated at the released count."
    )
    return a


def trade_off(a: Allocation) -> None:
    """How the errors trade against each other as the total moves (same policy and δ)."""
    plan = a.plan
    low, high = BUDGET_RANGE
    totals = np.geomspace(max(a.epsilon / 10, low), min(a.epsilon * 10, high), CURVE_POINTS)
    try:
        curve = error_curve(plan, totals)
    except ValueError as exc:  # a total of the curve gives a statistic a budget outside the range: one sentence
        st.info(f"No trade-off chart for this plan: {md(plain_sentence(exc))}")
        return
    ratio = plan.policy == "accuracy"
    column = "error to target" if ratio else "expected error"
    series = {}
    for name, rows in curve.groupby("statistic", sort=False):
        series[name] = (rows["total epsilon"].to_numpy(), rows[column].to_numpy(dtype=float))
    fig = charts.xy_curves(
        series,
        current=a.epsilon,
        title="Each statistic's expected error as the total ε moves",
        x_title="total ε",
        y_title="expected error ÷ target" if ratio else "expected error (each in its own unit)",
        log_y=True,
        current_label=f"this plan, ε = {a.epsilon:.3g}",
        hline=(1.0, "target") if ratio else None,
    )
    st.plotly_chart(fig, key="pub_curve")
    if ratio:
        needed = a.needed_epsilon
        st.caption(
            "Under the accuracy split every statistic gets the same error-to-target ratio at each total, so the "
            "curves lie on one another (drawn dotted over a wider line); they cross the target line at the smallest "
            f"total meeting every target, ε = {needed:.4g}."
        )
    else:
        st.caption(
            "Each error falls as 1/ε (Laplace) or about 1/√ρ (Gaussian) of its share: the split keeps the shares "
            "fixed, so every error moves by the same factor; weights or targets change which statistic is cheaper."
        )


def _package_name(plan: Plan) -> str:
    return "release.zip"


def publish(a: Allocation, refused: str | None = None) -> None:
    """The Publish button: the whole plan drawn once with secure noise, charged to the log all or nothing first.
    ``refused`` (one sentence: a domain read from the data) disables it, and nothing is drawn or charged.

    A file opened from the data folder (:attr:`~explorer.dataset.Dataset.path`) is published from every row of the
    file, not from the table the other pages use (for a large file, a seeded sample): DuckDB computes the plan's
    aggregates where the file lies (:mod:`dpx_publish.source`), as the command line does, on this script's thread
    under a spinner (a publication is charged and shown in the same run)."""
    st.subheader("3. Publish")
    ds = state.dataset()
    fingerprint = ds.fingerprint or ds.identity
    plan = a.plan
    whole = ds.path is not None
    st.caption(
        "Publishing reads the data once: every statistic drawn with the operating system's secure generator, the "
        "plan's total charged to this data's publication log before anything is shown (all or nothing), and only "
        "the published numbers shown. Each click is a new publication with fresh noise, charged again in full."
    )
    if whole:
        rows = f" ({ds.total_rows:,} rows)" if ds.total_rows is not None else ""
        st.caption(
            f"{md(ds.name)} is published from every row of the file{rows} where it lies, by DuckDB"
            + (f", not from the seeded sample of {len(ds.frame):,} rows the other pages use" if ds.sampled else "")
            + ": the plan's exact aggregates over the whole file"
            + (
                ", each person's rows bounded first (a fresh secret seed picks the rows kept)"
                if plan.unit.identifier is not None
                else ""
            )
            + ", then noised."
        )
        rows_needed = needs_rows(a) if ds.sampled else None  # a quantile: from a table's rows only
        refused = (plain_sentence(ValueError(rows_needed)) if rows_needed else None) or refused
    else:
        refused = publishing.sampled_refusal(ds) or refused
    if refused is not None:
        st.info(md(refused))
    else:
        try:
            check_columns(a, ds.frame)
        except ValueError as exc:
            refused = plain_sentence(exc)
            st.info(md(refused))
    cost = f"ε = {a.epsilon:.4g}" + (f", δ = {a.delta:.2g}" if a.delta else "")
    if st.button(f"Publish the plan ({cost}, a new charge each time)", key="pub_publish", type="primary",
                 disabled=refused is not None) and refused is None:  # fmt: skip
        try:
            if whole:
                with st.spinner(f"Reading every row of {ds.name}…"):
                    package = _publish_file(plan, ds, fingerprint)
            else:
                package = publish_package(
                    plan, ds.frame, log=publishing.publication_log(), fingerprint=fingerprint, dataset=ds.name
                )
        except BudgetError as exc:
            st.warning(md(publishing.over_budget(exc)))
        except (ValueError, OSError) as exc:
            st.warning(f"Not published: {md(plain_sentence(exc))}")
        else:
            st.session_state[_SHOWN] = (fingerprint, package)
    try:
        st.caption(md(publishing.log_summary(fingerprint)))
    except (OSError, ValueError) as exc:
        st.warning(f"The publication log cannot be opened here: {md(plain_sentence(exc))}")
    shown = st.session_state.get(_SHOWN)
    if shown and shown[0] == fingerprint:
        _show(shown[1])


def _publish_file(plan: Plan, ds, fingerprint: str):
    """The plan published from every row of the file ``ds`` was opened from, charged under its fingerprint: refused
    (one sentence) when the file has changed since (its budget is kept under the fingerprint of what was opened)."""
    source = open_file(ds.path, ds.name)
    if source.fingerprint != fingerprint:
        raise ValueError(
            f"the file {ds.name} has changed since it was opened; open it again on the Data page before publishing"
        )
    return publish_package(plan, source, log=publishing.publication_log(), fingerprint=fingerprint, dataset=ds.name)


def _show(package) -> None:
    release = package.release
    a = release.allocation
    st.success(
        f"Published {len(release.releases)} statistics of {md(state.dataset().name)} at ε = {a.epsilon:.4g}"
        + (f", δ = {a.delta:.2g}" if a.delta else "")
        + f" under {md(a.relation.words(a.plan.unit.unit))}; charged to this data's publication log. "
        "The numbers below are the published ones alone (no true value is shown)."
    )
    table = release.table(rounded=True)
    confidence = a.plan.confidence
    at_count = release.released_errors()
    counts = release.counts or (None,) * len(a.shares)
    for i, ((name, rows), share) in enumerate(zip(table.groupby("statistic", sort=False), a.shares)):
        st.markdown(f"**{md(name)}**")
        height = 38 + 35 * min(len(rows), 40)  # every row in view up to 40 (a long domain scrolls)
        rows = rows.drop(columns="statistic")
        if at_count[i] is not None:  # a mean: its error at the released noisy count, beside the planned one
            rows.insert(3, "error at the released count (±)", [float(f"{e:.3g}") for e in at_count[i]])
            rows = rows.rename(columns={"expected error (±)": "expected error at the planned n (±)"})
        st.dataframe(rows, hide_index=True, key=f"pub_published_{i}", height=height)
        if at_count[i] is not None:
            planned = error_sentence(share.statistic, share.expected_error, confidence)
            st.caption(md(f"Error: {planned}; {released_error_sentence(at_count[i], counts[i], confidence)}."))
        elif share.statistic.kind == "most_common":  # a category: its error bounds its count's shortfall
            st.caption(md(f"Error: {chosen_sentence(share.expected_error, confidence)}."))
    st.download_button(
        "Download the package (release.zip)",
        package.zip_bytes,
        file_name=_package_name(a.plan),
        mime="application/zip",
        key="pub_zip",
        type="primary",
        help="One zip: " + ", ".join(FILES) + " (the script re-runs the plan with fresh noise, a new publication).",
    )


def save(plan: Plan) -> None:
    """The plan as a file (reopened on this page, or published by ``python -m dpx_publish publish``)."""
    st.download_button(
        "Save the plan (plan.json)",
        json.dumps(plan_to_dict(plan), ensure_ascii=False, indent=2),
        file_name="plan.json",
        mime="application/json",
        key="pub_save",
        help="No data in it: the statistics, declared facts, unit, total and policy. The link carries the plan too.",
    )
