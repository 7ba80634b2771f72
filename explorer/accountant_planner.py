"""The Accountant's budget planner: from a total budget to the noise of each query, and from an accuracy to the budget.

The plans are dpcore's (:func:`dpcore.accounting.plan_noise`, :func:`dpcore.accounting.plan_epsilon`), cached on
plain arguments; the noise families are the additive ones the page offers, and the accountings each is planned
under are its accounting's default ones (basic, advanced, RDP, zCDP and the tight one). This view lays out; it
decides no privacy fact.
"""

from __future__ import annotations

import warnings

import pandas as pd
import streamlit as st

from dpcore import accounting, families
from explorer import budget, cache, widgets
from explorer.accountant_layout import ADDITIVE, NAMES, accounting_of, noise_words
from explorer.export import to_safe_csv
from explorer.markup import md, plain_sentence

__all__ = ["ACCURACY_DEFAULT", "plan", "planner", "accuracy_plan", "plan_from_accuracy"]


@cache.bounded(4 * cache.MIB, spinner="Planning the noise…")  # one row per accounting
def plan(family: str, total_eps, delta, k, sensitivity, conversion, zcdp_conversion):
    """Per-query noise and 95% error for k queries within (total_eps, delta), under every accounting, and refusals."""
    rows, refusals = [], []
    for method in accounting_of(family).default_methods:
        try:
            m = accounting.plan_noise(
                families.family(family).key,
                total_eps,
                delta,
                k,
                method,
                sensitivity,
                conversion=conversion,
                zcdp_conversion=zcdp_conversion,
            )
        except ValueError as exc:  # one accounting may be unable to reach the target (RDP's conversion floor)
            refusals.append(f"{NAMES[method]}: {exc}")
            continue
        rows.append(
            {
                "accounting": NAMES[method],
                "noise per query": budget.noise_parameter(m).value,
                "95% error bound per query": m.error_bound(0.95),
            }
        )
    if not rows:
        raise ValueError(refusals[0].split(": ", 1)[1])
    return pd.DataFrame(rows), refusals


def _four_digits(table: pd.DataFrame) -> dict:
    """Every column but the first (the accounting) shown to four significant digits, formatted by the browser."""
    return {c: st.column_config.NumberColumn(format="%.4g") for c in table.columns[1:]}


def planner(delta, k, conversion, zcdp_conversion):
    c1, c2, c3 = st.columns(3)
    with c1:
        total = widgets.epsilon_slider(
            "acc_plan_epsilon", "Total ε for all k releases", help="The whole budget the k answers share."
        )
    family = widgets.bound(
        c2.selectbox,
        "Noise",
        tuple(f.name for f in ADDITIVE),
        key="acc_plan_noise",
        bind="query-params",
        help="; ".join(f"{f.name}: {noise_words(f)} for {f.norm} sensitivity" for f in ADDITIVE) + ".",
    )
    sens = widgets.bound(
        c3.number_input,
        "Sensitivity Δ of each query",
        max_value=widgets.LARGEST_AMOUNT,
        value=1.0,
        key="acc_plan_sensitivity",
        bind="query-params",
        help=f"How much one person can change one answer ({', '.join(f'{f.norm} for {f.name}' for f in ADDITIVE)}).",
    )
    try:
        table, refusals = plan(family, total, delta, k, sens, conversion, zcdp_conversion)
    except ValueError as exc:
        st.error(f"No plan for these inputs. {md(plain_sentence(exc))}")
        return
    noise = noise_words(family)
    shown = table.rename(columns={"noise per query": f"{family} {noise} per query"})
    st.dataframe(shown, column_config=_four_digits(shown), hide_index=True, key="acc_plan_table")
    for refusal in refusals:
        st.caption(f":material/block: No plan under {refusal}.")
    best, basic = table.loc[table["95% error bound per query"].idxmin()], table.iloc[0]
    st.markdown(
        f"To spend ε = {total:g}, δ = {delta:.0e} on **{k:,} queries**, {best['accounting']} accounting lets each answer "
        f"carry {family} noise with {noise} = **{best['noise per query']:,.4g}**: with 95% probability each answer is within "
        f"**±{best['95% error bound per query']:,.4g}** of the truth. Basic composition would need ±{basic['95% error bound per query']:,.4g}."
    )
    st.download_button(
        "The plan (CSV)",
        lambda: to_safe_csv(shown),  # written when clicked, not on every rerun
        file_name="accountant_plan.csv",
        mime="text/csv",
        key="acc_plan_csv",
    )
    plan_from_accuracy(family, delta, k, sens, conversion, zcdp_conversion)


@cache.bounded(4 * cache.MIB, spinner="Planning…")
def accuracy_plan(family, accuracy, k, delta, sensitivity, conversion, zcdp_conversion) -> pd.DataFrame:
    """The smallest total ε of k releases whose every answer is within ±accuracy (95%), under each accounting."""
    with warnings.catch_warnings():  # an RDP optimum on the grid's edge is valid; the curve section says so
        warnings.simplefilter("ignore", accounting.OrderGridEdgeWarning)
        table = accounting.plan_epsilon(
            families.family(family).key,
            accuracy,
            k,
            delta,
            sensitivity=sensitivity,
            conversion=conversion,
            zcdp_conversion=zcdp_conversion,
        )
    return pd.DataFrame(  # plain arrays: the table's attrs hold the mechanism, which a dataframe cannot show
        {
            "accounting": table["method"].map(NAMES).to_numpy(),
            "epsilon": table["epsilon"].to_numpy(),
            "noise": table["noise"].to_numpy(),
        }
    )


#: The accuracy the planner's inverse starts from. A constant, not the plan above's error: a keyed widget keeps its
#: value when its default moves, so a default read from the other inputs showed the sender the error of an earlier
#: plan and whoever opened the link the error of the current one (issue 24: 110 and 47 on one link).
ACCURACY_DEFAULT = 10.0


def plan_from_accuracy(family, delta, k, sens, conversion, zcdp_conversion) -> None:
    st.markdown("**The other way round: from the accuracy you need to the total ε of the plan**")
    target = widgets.bound(
        st.number_input,
        f"I need each of the {k:,} answers within ± (at 95%)",
        min_value=0.0,
        max_value=widgets.LARGEST_AMOUNT,
        value=ACCURACY_DEFAULT,
        key="acc_plan_accuracy",
        bind="query-params",
        help="In the answers' units. The table gives the smallest total ε that allows it, under each accounting.",
    )
    if target <= 0:
        st.caption("Enter an accuracy above 0.")
        return
    try:
        table = accuracy_plan(family, target, k, delta, sens, conversion, zcdp_conversion)
    except ValueError as exc:
        st.error(f"No plan for this accuracy. {md(plain_sentence(exc))}")
        return
    noise = noise_words(family)
    shown = table.rename(columns={"epsilon": f"total ε for {k:,} answers", "noise": f"{family} {noise} per answer"})
    st.dataframe(shown, column_config=_four_digits(shown), hide_index=True, key="acc_acc_table")
    best = table.loc[table["epsilon"].idxmin()]
    on_grid = [e for e in widgets.EPSILON_GRID if e >= best["epsilon"] * (1 - 1e-12)]
    st.markdown(
        f"Each answer within ±{target:,.4g} needs {family} noise with {noise} = {best['noise']:,.4g}; "
        f"counted by {best['accounting']}, the {k:,} answers then cost **ε = {best['epsilon']:.4g}** in total"
        + (
            f", where basic composition charges {table.iloc[0]['epsilon']:.4g}."
            if best["accounting"] != table.iloc[0]["accounting"]
            else "."
        )
    )
    c1, c2 = st.columns(2)
    if on_grid:
        c1.button(
            f"Set the total ε above to {on_grid[0]:g}"
            + ("" if on_grid[0] == best["epsilon"] else f" (the slider's first step ≥ {best['epsilon']:.4g})"),
            key="acc_plan_set",
            on_click=lambda: st.session_state.__setitem__("acc_plan_epsilon", on_grid[0]),
            help="The smallest total ε of the slider that meets the accuracy under the best accounting.",
        )
    c2.download_button(
        "This plan (CSV)", lambda: to_safe_csv(shown), file_name="accountant_accuracy_plan.csv", mime="text/csv"
    )
