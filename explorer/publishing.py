"""The Publish action on a page: declared facts in, one secure draw out, charged to the log before it is shown.

Every view keeps its simulated release (seeded, beside the truth, for teaching). This panel is
the other kind: it draws the statistic once with :mod:`dpcore.publish` (secure noise, nothing
chosen by the data), charges the persistent publication log of this data first, all or nothing
(:class:`explorer.publication_log.PublicationLog`), and then shows the published numbers alone,
with their privacy label and files. Publishing again is a new publication and a new charge, said
on the button. What was published is kept in the session to be shown again, never redrawn.
"""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Callable

import pandas as pd
import streamlit as st

from dpcore.accounting import BudgetError
from dpcore.neighbours import ADD_REMOVE, UNIT_RECORD, NeighbouringRelation, RelationError, convert
from dpcore.release import Release
from explorer import state
from explorer.export import published_label, published_table, rounded, to_safe_csv
from explorer.markup import md, plain_sentence
from explorer.publication_log import RaiseRefusedError

__all__ = ["section", "action", "publication_log", "log_summary", "over_budget", "budget_command", "raise_refusal"]

_SHOWN = "_published_"


def publication_log():
    """The publication log of this server (a new connection per call: SQLite connections stay in their thread)."""
    from explorer.publication_log import PublicationLog, default_path

    return PublicationLog(default_path())


def log_summary(fingerprint: str) -> str:
    """What the log says of this data, in words."""
    log = publication_log()
    spent, budget = log.spent(fingerprint), log.budget(fingerprint)
    return (
        f"This data has spent ε = {spent[0]:.4g} (δ = {spent[1]:.2g}) of its publication budget ε = {budget[0]:g} "
        f"(δ = {budget[1]:.0e}). The log is kept on the server, across tabs, reloads and restarts, and cannot be "
        "emptied from the app."
    )


def _cost_words(cost: tuple[float, float]) -> str:
    return f"ε = {cost[0]:.4g}" + (f", δ = {cost[1]:.2g}" if cost[1] else "")


def sampled_refusal(ds) -> str | None:
    """One sentence when ``ds`` is a seeded sample of a larger file (None otherwise): nothing is published from it.

    Which rows a seeded sample keeps depends on every row of the file (adding one row moves the sample's draws), so a
    statistic of the sample has no bounded sensitivity to one person: the simulations may use it, a publication may
    not. The Publish page and the command line (``python -m dpx_publish``) publish a plan from the whole file.
    """
    if not ds.sampled:
        return None
    return (
        f"Nothing is published from this data: it is a seeded sample of {len(ds.frame):,} of the file's "
        f"{ds.total_rows:,} rows, and which rows a sample keeps depends on every row, so its numbers protect no one. "
        "The Publish page and the command line (python -m dpx_publish) publish a plan from the whole file."
    )


def section(what: str):
    """The Publish expander of a view (``with publishing.section("the mean of age"):``), opened by the page so that
    the declarations the publication needs are made inside it, then :func:`action`."""
    box = st.expander(f"Publish {md(what)} (secure noise, charged to the publication log)", icon=":material/publish:")
    box.caption(
        "Everything above is a simulation: seeded noise, reproducible from the link, shown beside the truth, "
        "and not private. Publishing draws the noise once from the operating system's secure generator (every "
        "released number on an exact lattice), with every bound and category declared by you; it is charged to this data's "
        "publication log before it is shown, and this section shows the published numbers alone (the true answers "
        "above belong to the simulation)."
    )
    return box


def action(
    key: str,
    what: str,
    cost: tuple[float, float],
    draw: Callable[[], Release],
    missing: str | None,
    relation: NeighbouringRelation = ADD_REMOVE,
    unit: str = UNIT_RECORD,
) -> list[Release] | None:
    """The button and what was published, inside :func:`section`; returns the releases shown (None before any).

    ``cost`` is the (ε, δ) of the publication under its own ``relation`` and ``unit``, known before anything is
    drawn; ``draw`` makes it (a call to :mod:`dpcore.publish`); ``missing`` is the sentence of what is not declared
    yet (None when ready). When this data's earlier publications hold under another relation or unit, the charge is
    the cost converted to theirs (:func:`dpcore.neighbours.convert`), said on the page, or the publication is
    refused in the sentence of the rule.
    """
    ds = state.dataset()
    fingerprint = ds.fingerprint or ds.identity
    summary = st.empty()  # filled after the button: a publication of this run is counted in it
    missing = sampled_refusal(ds) or missing
    try:
        held = publication_log().guarantee(fingerprint)
    except OSError:
        held = None  # the summary below says the log cannot be opened
    if held and (held[0], held[1]) != (relation, unit):
        try:
            charged = convert(cost, from_relation=relation, to_relation=held[0], from_unit=unit, to_unit=held[1])
        except RelationError:
            missing = (
                f"This cannot be added to what was published from this data: those releases hold under "
                f"{held[0].words(held[1])}, and this one under {relation.words(unit)}, which says nothing about "
                f"{held[0].words(held[1])}. A data's log keeps the relation of its first publication."
            )
        else:
            st.caption(
                f"This release is {_cost_words(cost)} under {relation.words(unit)}; what was published from this data "
                f"holds under {held[0].words(held[1])}, so it is charged {_cost_words(charged)} there (group privacy)."
            )
            cost = charged
    if missing:
        st.info(md(missing))
    clicked = st.button(
        f"Publish ({_cost_words(cost)}, a new charge each time)",
        key=f"{key}_publish",
        disabled=missing is not None,
        type="primary",
        help="Each click is a new publication with fresh noise, charged again in full.",
    )
    if clicked:
        try:
            published = publication_log().publish(fingerprint, ds.name, cost, draw, label=what)
        except BudgetError as exc:
            st.warning(md(over_budget(exc)))
        except (ValueError, OSError) as exc:  # a refusal in words, or the log's folder unwritable: nothing drawn
            st.warning(f"Not published: {md(plain_sentence(exc))}")
        else:
            releases = published if isinstance(published, list) else [published]
            st.session_state[_SHOWN + key] = (fingerprint, what, releases, cost)
    try:
        summary.caption(md(log_summary(fingerprint)))
    except (OSError, ValueError) as exc:  # the data folder is not writable: say so
        summary.warning(f"The publication log cannot be opened here: {md(plain_sentence(exc))}")
    shown = st.session_state.get(_SHOWN + key)
    if shown and shown[:2] == (fingerprint, what):  # the publication of this statistic on this data, not another's
        _show(key, *shown[2:])
        return shown[2]
    return None


def over_budget(exc: BudgetError) -> str:
    """The sentence refusing a publication over this data's budget, naming the part (ε or δ) that ran out."""
    total, budget = exc.total, exc.budget
    if total.epsilon > budget.epsilon:  # say which part of the budget ran out: ε, or else δ
        over = f"ε = {total.epsilon:.4g}, over its budget of ε = {budget.epsilon:g}"
    else:
        over = f"δ = {total.delta:.3g}, over its budget of δ = {budget.delta:.3g} (ε is within budget)"
    return f"Not published: this would bring what was published from this data to {over}. Nothing was drawn and nothing was charged."


def _show(key: str, releases: list[Release], charged: tuple[float, float]) -> None:
    for i, release in enumerate(releases):
        st.success(
            f"Published: {md(release.guarantee())}; charged to this data's log: {_cost_words(charged)}. "
            f"{md(release.mechanism[0].upper() + release.mechanism[1:])}."
        )
        st.dataframe(published_table(release), hide_index=True, key=f"{key}_published_table_{i}")
        facts = "; ".join(f"{f.name}: {f.value} ({f.source})" for f in release.public)
        if facts:
            st.caption(f"Declared public facts: {md(facts)}.")
        c1, c2 = st.columns(2)
        c1.download_button(
            "Published release (CSV)",
            to_safe_csv(published_table(release)),
            file_name=f"published_{release.query.replace(' ', '_')}.csv",
            mime="text/csv",
            key=f"{key}_published_csv_{i}",
            help="The published numbers only, as drawn once.",
        )
        c2.download_button(
            "Privacy label (JSON)",
            json.dumps(published_label(release), indent=2, ensure_ascii=False),
            file_name=f"published_{release.query.replace(' ', '_')}_label.json",
            mime="application/json",
            key=f"{key}_published_label_{i}",
            help="Every parameter of the guarantee: mechanism, noise, ε, δ, relation, unit, declared facts.",
        )


def _shown_values(release) -> str:
    """A logged release's numbers as published: rounded by the one rule (the log keeps them exact), comma-separated.

    A release plan's entry has no one noise to read the step from (each statistic has its own, and the plan's
    report rounds each to it): its numbers are shown to 6 significant digits, the downloads keep every digit.
    """
    values = release.values
    if not all(isinstance(v, (int, float)) for v in values):
        return ", ".join(str(v) for v in values)  # a choice: shown as it is
    shown = rounded(list(values), release.noise_std, release.query)
    return ", ".join(_number(float(v)) for v in shown)


def _number(v: float) -> str:
    """A whole number with separators; else 6 significant digits in fixed notation (no exponent)."""
    if v.is_integer():
        return f"{int(v):,}"
    decimals = max(0, 5 - math.floor(math.log10(abs(v))))
    return f"{v:,.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{v:,.0f}"


def log_view() -> None:
    """The publication log of the active data: what was published, what it cost, its files and its budget.

    Nothing here deletes: a publication is out, and its charge stays. The budget may be lowered (never below what
    was spent), with a reason the log keeps; raising it is the operator's act (:func:`budget_command`).
    """
    ds = state.dataset()
    fingerprint = ds.fingerprint or ds.identity
    try:
        log = publication_log()
        st.caption(md(log_summary(fingerprint)))
        entries = log.entries(fingerprint)
    except (OSError, ValueError) as exc:
        st.warning(f"The publication log cannot be opened here: {md(plain_sentence(exc))}")
        return
    if entries.empty:
        st.caption("Nothing has been published from this data yet: each view's Publish section does it.")
    else:
        table = pd.DataFrame(
            {
                "time (UTC)": entries["time (UTC)"].str.slice(0, 19).str.replace("T", " "),
                "what": entries["label"],
                "ε charged": entries["epsilon"],
                "δ charged": entries["delta"],
                "the release holds under": entries["holds under"],
                "released values": [_shown_values(r) for r in log.releases(fingerprint)],
            }
        )
        st.dataframe(
            table,
            hide_index=True,
            key="pub_log_table",
            column_config={  # in pixels at 1400: the released values take the room the short columns leave
                "time (UTC)": st.column_config.TextColumn(width=150),
                "what": st.column_config.TextColumn(width=180),
                "ε charged": st.column_config.NumberColumn(width=75),
                "δ charged": st.column_config.NumberColumn(width=75),
                "the release holds under": st.column_config.TextColumn(width=170),
                "released values": st.column_config.TextColumn(width="large"),
            },
        )
        held = log.guarantee(fingerprint)
        totals = log.by_unit(fingerprint)
        per_unit = "; ".join(
            f"one {t.unit}: ε {t.epsilon:.4g}, δ {t.delta:.2g} over {t.releases:,} release(s)"
            + (f", converted with {t.converted} because {t.why}" if t.converted else "")
            for t in totals.itertuples()
        )
        st.caption(
            md(
                f"Charged under {held[0].words(held[1])}, the guarantee of the data's first publication; a release "
                f"under another relation or unit is charged its group-privacy cost there. Per unit: {per_unit}."
            )
        )
    c1, c2 = st.columns(2)
    c1.download_button(
        "Publication log (CSV)", log.to_csv(fingerprint), file_name="publication_log.csv", mime="text/csv"
    )
    c2.download_button(
        "Publication log (JSON)",
        log.to_json(fingerprint),
        file_name="publication_log.json",
        mime="application/json",
        help="The budget and its changes, what was spent, and every release with its privacy label.",
    )
    _lower_budget(ds, fingerprint, log)


def budget_command(ds, epsilon: float) -> str:
    """The command whoever runs the server types to set this data's budget to ``epsilon``: ``python -m dpx_publish
    budget`` on the data file (a data-folder file by its path, a demo table by its file in the repository's
    ``data/``, an upload by its name: the operator needs the same bytes), shell-quoted; the reason is left to them."""
    if ds.path:
        file = ds.path
    elif ds.demo is not None:
        file = f"data/{ds.name}"
    else:
        file = ds.name
    return f"python -m dpx_publish budget {shlex.quote(file)} --epsilon {epsilon:.10g} --reason '...'"


def raise_refusal(ds, current: float, epsilon: float) -> str:
    """The one sentence refusing a raise of the budget on the page, with the operator's exact command."""
    return (
        f"This page can only lower the budget (ε = {current:g} now): raising it to ε = {epsilon:.10g} is done by "
        f"whoever runs the server, with {budget_command(ds, epsilon)} on the same file."
    )


def _lower_budget(ds, fingerprint: str, log) -> None:
    """The expander that lowers this data's budget, with a reason the log keeps; a raise is the operator's act.

    Anyone who opens the page on a shared server reaches this, so the log is asked ``lower_only``: a raise is
    refused there, in the same transaction, and here in one sentence naming the command line that does it.
    """
    with st.expander("Lower this data's publication budget", icon=":material/lock:"):
        current = log.budget(fingerprint)
        st.caption(
            "Lowering is kept in the log with its reason, and never goes below what was spent. Raising a budget is "
            "done by whoever runs the server, on the command line."
        )
        c1, c2 = st.columns(2)
        epsilon = c1.number_input(
            "New budget ε (lower only)", min_value=0.01, value=float(current.epsilon), key="pub_budget_epsilon"
        )
        reason = c2.text_input("Why (kept in the log)", max_chars=200, key="pub_budget_reason")
        raising = epsilon > current.epsilon
        if raising:
            st.info(md(raise_refusal(ds, current.epsilon, epsilon)))
        if not st.button(
            "Lower the publication budget", key="pub_set_budget", disabled=raising or epsilon == current.epsilon
        ):
            return
        if not reason.strip():
            st.warning("Not changed: say why in “Why (kept in the log)”, which the log keeps with the change.")
            return
        try:
            log.set_budget(fingerprint, epsilon, current.delta, reason=reason.strip(), lower_only=True)
        except RaiseRefusedError:  # raised meanwhile by the operator, or a click on a disabled button
            st.warning(md(raise_refusal(ds, log.budget(fingerprint).epsilon, epsilon)))
        except ValueError as exc:
            st.warning(f"Not changed: {md(plain_sentence(exc))}")
        else:
            st.rerun()


def sidebar_line() -> None:
    """One line for the sidebar: what was published from the active data, against its budget."""
    ds = state.dataset()
    try:
        log = publication_log()
        fingerprint = ds.fingerprint or ds.identity
        spent, budget = log.spent(fingerprint), log.budget(fingerprint)
    except (OSError, ValueError):
        return
    st.caption(f"Published from this data (the log, all tabs): ε {spent[0]:.3g} of {budget[0]:g}")
