"""Publish page, the plan: statistics with their declared public facts, the unit, the total and the split policy.

Every widget is bound to the link (keys ``pub_*``), so a link reopens the plan; a plan file
(:func:`dpcore.plan.plan_to_dict`) is reopened by writing its values into the same widgets
(:func:`open_file`). Declared facts (domains, bounds, keys, planned sizes, a count where's conditions, the years of
counts per period, the candidates of the most common value) are typed or pasted; the
only thing read from the data is the list of its columns (and which hold dates, to preselect one: a column is no
published fact), and a domain filled from the file's values
by the button that says so ("not private"). Every privacy decision is dpcore's (:mod:`dpcore.plan`).

A filled domain stays marked as read from the data (issue 18: nothing published is chosen by the data) while any
of the values the button read remain in it, so editing one line does not launder the rest: the plan is split,
saved and previewed (labelled), but Publish is refused in one sentence until the list is cleared and typed or
pasted from outside the data. The mark is the session's (``_pub_filled_<i>``, every value of the column) and the
link's (``pub_filled_<i>=1``: whoever opens the link treats every value of that list as read from the data), and a
saved plan carries it in the statistic's provenance (:data:`FILLED`), restored when the file is reopened.

A mean's planned number of records left at the page's default (:data:`DEFAULT_PLANNED`) is said to be the page's
default, not read from the data, on the page and in the report (the provenance carries
:data:`dpx_publish.package.PLANNED_DEFAULT`), never called declared.
"""

from __future__ import annotations

import json
import re

import streamlit as st

from dpcore import families
from dpcore.contributions import ContributionBounds, PrivacyUnit
from dpcore.plan import (
    MAX_CONDITIONS,
    NUMBER_CONDITIONS,
    PERIODS,
    PLAN_MECHANISMS,
    SELECTION_KINDS,
    TEXT_CONDITIONS,
    Plan,
    PlanError,
    Statistic,
    plan_from_dict,
)
from dpx_publish.package import PLANNED_DEFAULT
from explorer import domains, state, widgets
from explorer.columns import date_columns
from explorer.markup import md, plain_sentence

#: The plan's pure family (its quantiles' and a Laplace plan's): the first that takes no δ.
PURE = next(key for key in PLAN_MECHANISMS if not families.family(key).takes_delta)

__all__ = ["FILLED", "KINDS", "MAX_SLOTS", "build", "open_file", "plan_state", "from_the_data"]

#: What a slot computes, in words (dpcore.plan's kinds).
KINDS = {
    "counts": "counts per category",
    "mean": "mean",
    "count": "count of rows",
    "sum": "sum",
    "quantile": "quantile",
    "histogram": "histogram",
    "count_where": "count where…",
    "two_way": "two-way table",
    "periods": "per year or month",
    "most_common": "most common value",
}
#: The most statistics the page lays out (a larger plan file is published with the command line).
MAX_SLOTS = 8
#: A mean's planned number of records before one is typed: the page's default (said so, never "declared").
DEFAULT_PLANNED = 1_000
DEFAULT_KINDS = ("counts", "mean")
POLICY_WORDS = {"equal": "equal shares", "weights": "by weights", "accuracy": "from accuracy targets"}
NO_GROUPS = "(no groups)"
ROW, PERSON = "One row per person", "A person column"
CONFIDENCES = {"80%": 0.8, "90%": 0.9, "95%": 0.95, "99%": 0.99}
_KIND_OF = {v: k for k, v in KINDS.items()}
#: The keys of the widgets that describe a plan (what reopening a plan file resets).
_PLAN_KEY = re.compile(
    r"^pub_(n|policy|conf|noise|delta|smallest|epsilon|epsilon_typed|unit|id|max_rows|max_groups|max_rpg)$"
    r"|^pub_(kind|cat|num|domain|other|lower|upper|planned|bins|q|res|by|keys|name|target|weight|prov|filled)_\d+$"
    r"|^pub_(col2|date|period|first|last|wand|(wcol|wcond|wnum|wtext)[12])_\d+$"
)
#: How a period is said on the page (dpcore.plan.PERIODS).
PERIOD_WORDS = {p: f"per {p}" for p in PERIODS}
_PERIOD_OF = {v: k for k, v in PERIOD_WORDS.items()}
#: What the page and the report say of categories filled by the button from the file's values.
FILLED = "Categories read from this file's values: not private (the list itself reveals them); edit from a codebook."
#: The session's mark of a domain filled from the data (the values read), and the link's.
_MARK, _LINK_MARK = "_pub_filled_{}", "pub_filled_{}"


def _num(label, key, container, **kw):
    return widgets.bound(container.number_input, label, key=key, max_value=widgets.LARGEST_AMOUNT, **kw)


def _fill_domain(i: int, column: str) -> None:
    values = state.dataset().frame[column].dropna().astype(str).unique()
    st.session_state[f"pub_domain_{i}"] = "\n".join(sorted(values)[: domains.MAX_DOMAIN])
    st.session_state[_MARK.format(i)] = frozenset(values)  # every value of the column, listed or not


def _clear_domain(i: int) -> None:
    st.session_state[f"pub_domain_{i}"] = ""
    st.session_state.pop(_MARK.format(i), None)
    if _LINK_MARK.format(i) in st.query_params:
        del st.query_params[_LINK_MARK.format(i)]


def from_the_data(i: int, declared: list[str]) -> list[str]:
    """The categories of statistic ``i``'s list that were read from the data (by the fill button, here or in the
    session that made the link or the plan file); keeps the session's and the link's mark while any remain and
    drops both when none does."""
    key, flag = _MARK.format(i), _LINK_MARK.format(i)
    mark = st.session_state.get(key)
    if mark is None and st.query_params.get(flag):
        mark = frozenset(declared)  # a link made after a fill: every value it carries counts as read from the data
    left = [v for v in declared if v in (mark or ())]
    if left:
        st.session_state[key] = mark
        if st.query_params.get(flag) != "1":
            st.query_params[flag] = "1"
    else:
        st.session_state.pop(key, None)
        if flag in st.query_params:
            del st.query_params[flag]
    return left


def _first_text(columns: list[str], numeric: list[str]) -> int:
    """The index of the first categorical column that is not numeric (text), else of the first categorical one."""
    categorical = state.categorical_columns()
    text = [c for c in categorical if c not in numeric] or categorical
    return columns.index(text[0]) if text and text[0] in columns else 0


def _domain_area(i: int, box, label: str, fill: str | None) -> tuple[list[str], bool]:
    """Statistic ``i``'s declared list (key ``pub_domain_<i>``), typed or pasted; with ``fill`` (a column), the button
    filling it from that column's values (not private). A list holding values the button read is marked (see
    :func:`from_the_data`) and offers to be cleared. Returns the list and whether it is marked."""
    text = widgets.bound(
        box.text_area, label, key=f"pub_domain_{i}", height=90,
        help="From a codebook or a past release, not from this file: a category absent from the data is "
        "published as a noisy zero (or stays a candidate), and a value outside the list is left out (or counted in "
        "(other)).",
    )  # fmt: skip
    domain = domains.parse_domain(text)
    left = from_the_data(i, domain)
    if left:
        some = "These" if len(left) == len(domain) else f"{len(left):,} of these"
        box.warning(
            f"{some} categories were read from this file: not private (the list reveals them). The preview may "
            "use them; Publish is refused until you clear the list and type or paste one from a codebook.",
            icon=":material/warning:",
        )
        box.button("Clear the list", key=f"pub_clear_{i}", on_click=_clear_domain, args=(i,))
    elif fill:
        box.button(
            "Fill from the data (not private)", key=f"pub_fill_{i}", on_click=_fill_domain,
            args=(i, fill),
            help="Lists this file's values: convenient for exploring and the preview, but the list itself then "
            "comes from the private data (a category present in one person's row only would be revealed), so "
            "Publish is refused while any of them remain.",
        )  # fmt: skip
    return domain, bool(left)


def _condition(i: int, j: int, columns: list[str], numeric: list[str], left, right):
    """Condition ``j`` of statistic ``i``'s count where: its column, comparison and declared value (a number or a
    text typed, never picked from the file's values). Returns ``((column, condition, value), value)``."""
    second = "" if j == 1 else " (second)"
    column = widgets.bound(left.selectbox, f"Where column{second}", columns, key=f"pub_wcol{j}_{i}")
    number = column in numeric
    a, b = right.columns([1, 1.6])
    condition = widgets.bound(
        a.selectbox, "Condition", NUMBER_CONDITIONS if number else TEXT_CONDITIONS, key=f"pub_wcond{j}_{i}",
        help="Chosen from a list: nothing typed is evaluated.",
    )  # fmt: skip
    said = "Declared: typed, not picked from this file's values (a list read from the data would reveal who is in it)."
    if number:
        value = _num("Value", f"pub_wnum{j}_{i}", b, value=None, min_value=-widgets.LARGEST_AMOUNT, help=said)
    else:
        value = widgets.bound(b.text_input, "Value", key=f"pub_wtext{j}_{i}", max_chars=200, help=said).strip()
        value = value or None
    return (column, condition, value), value


def _slot(i: int, columns: list[str], numeric: list[str], policy: str):
    """One statistic's widgets; returns (its keyword arguments, what is still to declare or None)."""
    box = st.container(border=True)
    c1, c2, c3, c4 = box.columns([1.3, 1.2, 2.2, 1.2])
    default = DEFAULT_KINDS[i] if i < len(DEFAULT_KINDS) else "count"
    kind = widgets.bound(
        c1.selectbox, f"Statistic {i + 1}", list(KINDS.values()), index=list(KINDS).index(default),
        key=f"pub_kind_{i}", name=f"the kind of statistic {i + 1}",
    )  # fmt: skip
    kind = _KIND_OF[kind]
    kw: dict = {"kind": kind}
    need: dict = {}
    if kind in ("counts", "two_way", "most_common"):
        kw["column"] = widgets.bound(
            c2.selectbox, "Column" if kind != "two_way" else "Rows: column", columns,
            index=_first_text(columns, numeric), key=f"pub_cat_{i}",
        )  # fmt: skip
        words = {
            "two_way": "Declared categories of the rows (one per line)",
            "most_common": "Declared candidates (one per line)",
        }
        label = words.get(kind, "Declared categories (one per line)")
        kw["domain"], marked = _domain_area(i, c3, label, kw["column"] if kind == "counts" else None)
        if marked:
            kw["source"] = FILLED
        need["rows" if kind == "two_way" else "domain"] = kw["domain"] or None
        if kind == "two_way":
            kw["by"] = widgets.bound(c2.selectbox, "Columns: column", columns, key=f"pub_col2_{i}")
            kw["keys"] = domains.parse_domain(
                widgets.bound(c3.text_area, "Declared categories of the columns", key=f"pub_keys_{i}", height=90)
            )
            need["columns"] = kw["keys"] or None
        if kind != "most_common":
            kw["other"] = widgets.bound(c3.checkbox, "Count other values in (other)", key=f"pub_other_{i}")
    elif kind == "count_where":
        for j in range(1, MAX_CONDITIONS + 1):
            if j > 1 and not widgets.bound(
                c1.checkbox, "Two conditions", key=f"pub_wand_{i}",
                help="Count the rows where both hold: still one count (a row meets both or not).",
            ):  # fmt: skip
                break
            condition, value = _condition(i, j, columns, numeric, c2, c3)
            kw.setdefault("where", []).append(condition)
            need["value" if j == 1 else "second_value"] = value
    elif kind == "periods":
        dates = state.per_dataset("date_columns", lambda: date_columns(state.dataset().frame))
        kw["column"] = widgets.bound(
            c2.selectbox, "Column of dates", columns, index=columns.index(dates[0]) if dates else 0,
            key=f"pub_date_{i}", help="A date is a value whose text starts YYYY-MM (an ISO date, or a date type).",
        )  # fmt: skip
        kw["period"] = _PERIOD_OF[
            widgets.bound(c2.radio, "Count", list(PERIOD_WORDS.values()), key=f"pub_period_{i}", horizontal=True)
        ]
        a, b = c3.columns(2)
        years = {"value": None, "min_value": 1.0, "max_value": 9999.0, "step": 1.0, "format": "%.0f"}
        said = "From the study's design, never from this file: every period of the declared years is published."
        first = widgets.bound(a.number_input, "First year (declared)", key=f"pub_first_{i}", help=said, **years)
        last = widgets.bound(b.number_input, "Last year (declared)", key=f"pub_last_{i}", help=said, **years)
        kw["first_year"] = None if first is None else int(round(first))
        kw["last_year"] = None if last is None else int(round(last))
        need.update(first_year=kw["first_year"], last_year=kw["last_year"])
    elif kind != "count":
        kw["column"] = widgets.bound(c2.selectbox, "Numeric column", numeric, key=f"pub_num_{i}")
        a, b = c3.columns(2)
        kw["lower"] = _num("Declared lower bound", f"pub_lower_{i}", a, value=None, min_value=-widgets.LARGEST_AMOUNT)
        kw["upper"] = _num("Declared upper bound", f"pub_upper_{i}", b, value=None, min_value=-widgets.LARGEST_AMOUNT)
        need.update(lower=kw["lower"], upper=kw["upper"])
        if kind == "mean":
            kw["planned_n"] = widgets.whole_number(
                "Planned number of records", 1, 10**9, DEFAULT_PLANNED, f"pub_planned_{i}",
                "The size the study was designed for (typed, not read from this file): the expected error is stated "
                f"at it. {DEFAULT_PLANNED:,} is the page's default; after publication the error is also stated at "
                "the released noisy count.", c2,
            )  # fmt: skip
            if kw["planned_n"] == DEFAULT_PLANNED:
                kw["source"] = PLANNED_DEFAULT
                c2.caption(f"{DEFAULT_PLANNED:,}: the page default, not read from your data; type your study's size.")
        elif kind == "histogram":
            kw["bins"] = widgets.whole_number("Bins", 1, 1_000, 10, f"pub_bins_{i}", "Equal bins over the bounds.", c2)
        elif kind == "quantile":
            kw["q"] = widgets.bound(
                a.number_input, "q", key=f"pub_q_{i}", value=0.5, min_value=0.0, max_value=1.0, step=0.05,
                help="0.5 for the median.",
            )  # fmt: skip
            kw["resolution"] = _num(
                "Resolution of the values", f"pub_res_{i}", b, value=None, min_value=0.0,
                help="The step of the values (1 for whole years): the quantile's error bound needs it.",
            )  # fmt: skip
    if kind in ("count", "sum", "mean"):
        by = widgets.bound(c2.selectbox, "Grouped by", [NO_GROUPS, *columns], key=f"pub_by_{i}")
        if by != NO_GROUPS:
            kw["by"] = by
            kw["keys"] = domains.parse_domain(
                widgets.bound(c3.text_area, "Declared groups (one per line)", key=f"pub_keys_{i}", height=90)
            )
            need["keys"] = kw["keys"] or None
    kw["name"] = widgets.bound(c4.text_input, "Name (optional)", key=f"pub_name_{i}", max_chars=200).strip()
    if policy == "accuracy":
        kw["target"] = _num(
            "Target error (±)", f"pub_target_{i}", c4, value=None, min_value=0.0,
            help="The error each of its numbers must not exceed at the confidence (ranks for a quantile; for the "
            "most common value, how far its count may fall below the top count).",
        )  # fmt: skip
        need["target"] = kw["target"]
    elif policy == "weights":
        kw["weight"] = _num("Weight", f"pub_weight_{i}", c4, value=1.0, min_value=1e-6)
    said = widgets.bound(
        c4.text_input, "Source of the facts", key=f"pub_prov_{i}", max_chars=200,
        help="Where the declared facts come from (a codebook, a past release): printed in the report.",
    )  # fmt: skip
    kw["provenance"] = "; ".join(x for x in (kw.pop("source", ""), said.strip()) if x)[:200]  # the mark first
    return kw, domains.missing_declarations(**need)


def _unit(columns: list[str]) -> PrivacyUnit:
    c1, c2, c3, c4 = st.columns(4)
    how = widgets.bound(c1.radio, "Unit of privacy", [ROW, PERSON], key="pub_unit")
    if how == ROW:
        return PrivacyUnit()
    ident = widgets.bound(c2.selectbox, "Person column (declared)", columns, key="pub_id")
    bounds = ContributionBounds(
        max_rows=widgets.whole_number("Most rows per person", 1, 10**6, 1, "pub_max_rows", "Kept per person.", c3),
        max_groups=widgets.whole_number("Most groups per person", 1, 1_000, 1, "pub_max_groups", "L0.", c4),
        max_rows_per_group=widgets.whole_number("Most rows per group", 1, 10**6, 1, "pub_max_rpg", "L∞.", c4),
    )
    return PrivacyUnit(ident, bounds)


def build() -> tuple[Plan | None, str | None, str | None]:
    """The plan the widgets describe (or None and one sentence of what is missing or refused), and the sentence
    refusing its publication when a domain was read from the data (None when it may be published)."""
    ds = state.dataset()
    columns = [str(c) for c in ds.frame.columns]
    numeric = state.numeric_columns()
    st.subheader("1. The plan")
    c1, c2, c3 = st.columns([1.6, 1, 1.2])
    with c1:
        epsilon = widgets.epsilon_slider("pub_epsilon", "Total ε", help="The whole plan's privacy loss.")
    policy = widgets.bound(c2.radio, "Split the total", list(POLICY_WORDS.values()), key="pub_policy")
    policy = next(k for k, v in POLICY_WORDS.items() if v == policy)
    confidence = CONFIDENCES[
        widgets.bound(c3.select_slider, "Confidence of the errors", list(CONFIDENCES), value="95%", key="pub_conf")
    ]
    noise = widgets.bound(
        c3.radio,
        "Noise",
        list(PLAN_MECHANISMS),
        key="pub_noise",
        horizontal=True,
        format_func=lambda key: families.family(key).name,
    )
    smallest = False
    if policy == "accuracy":
        smallest = widgets.bound(c2.checkbox, "Smallest total meeting the targets", key="pub_smallest")
    delta = 0.0
    if families.family(noise).takes_delta:
        with c1:
            delta = widgets.delta_slider("pub_delta", help="The plan's total δ (Gaussian noise needs one).")
    unit = _unit(columns)
    n = widgets.whole_number(
        "Number of statistics", 1, MAX_SLOTS, len(DEFAULT_KINDS), "pub_n", f"Up to {MAX_SLOTS}.", st.columns(5)[0]
    )
    stats, first_missing, from_data = [], None, None
    for i in range(n):
        kw, missing = _slot(i, columns, numeric, policy)
        if missing and first_missing is None:
            first_missing = f"Statistic {i + 1}: {missing}"
        if from_data is None and kw["provenance"].startswith(FILLED):
            from_data = (
                f"The categories of statistic {i + 1} were read from the data; type or paste a list you know from "
                "outside the data (a codebook) before publishing."
            )
        # a quantile and the most common value are the exponential mechanism (pure)
        kw["mechanism"] = PURE if kw["kind"] in SELECTION_KINDS else noise
        stats.append(kw)
    if first_missing:
        return None, first_missing, from_data
    try:
        made = [Statistic(**kw) for kw in _named(stats)]
        return Plan(tuple(made), unit, None if smallest else epsilon, delta, policy, confidence), None, from_data
    except (ValueError, TypeError) as exc:
        return None, plain_sentence(exc), from_data


def _named(every: list[dict]) -> list[dict]:
    """Each statistic's keyword arguments with its name: typed, or its words (numbered when two say the same)."""
    out = [{k: v for k, v in kw.items() if v is not None and v != ""} for kw in every]
    words = [Statistic(name="x", **{k: v for k, v in kw.items() if k != "name"}).words() for kw in out]
    unnamed = [w for kw, w in zip(out, words) if not kw.get("name")]
    seen: dict[str, int] = {}
    for kw, said in zip(out, words):
        if not kw.get("name"):
            seen[said] = seen.get(said, 0) + 1
            kw["name"] = said if unnamed.count(said) == 1 else f"{said} ({seen[said]})"
    return out


def plan_state(plan: Plan) -> dict:
    """The widget values that show ``plan`` (what :func:`open_file` writes); refuses, in one sentence, what the page
    cannot lay out."""
    stats = plan.statistics
    if len(stats) > MAX_SLOTS:
        raise PlanError(
            f"the page lays out at most {MAX_SLOTS} statistics, the plan has {len(stats)}: publish it with the command line"
        )
    gaussian = any(not s.pure for s in stats)
    conf = next((k for k, v in CONFIDENCES.items() if v == plan.confidence), None)
    if conf is None:
        raise PlanError(f"the page's confidence is one of {', '.join(CONFIDENCES)}, the plan's is {plan.confidence:g}")
    values = {"pub_n": float(len(stats)), "pub_policy": POLICY_WORDS[plan.policy], "pub_conf": conf}
    values["pub_noise"] = next((s.mechanism for s in stats if not s.pure), PURE)
    if gaussian:
        if plan.delta not in widgets.DELTA_GRID:
            raise PlanError(f"the page's δ is one of 1e-10 … 1e-2 by decades, the plan's is {plan.delta:g}")
        values["pub_delta"] = plan.delta
    values["pub_smallest"] = plan.epsilon is None
    if plan.epsilon is not None:
        low, high, digits = widgets.EPSILON_GRID[0], widgets.EPSILON_GRID[-1], widgets.EPSILON_DIGITS
        if not low <= plan.epsilon <= high or plan.epsilon != float(f"{plan.epsilon:.{digits}g}"):
            raise PlanError(
                f"the page's total ε is from {low:g} to {high:g} with at most {digits} significant digits, the "
                f"plan's is {plan.epsilon!r}: publish it with the command line, or change its total"
            )
        values["pub_epsilon"] = plan.epsilon
    values["pub_unit"] = ROW if plan.unit.identifier is None else PERSON
    if plan.unit.identifier is not None:
        b = plan.unit.bounds
        values.update(pub_id=plan.unit.identifier, pub_max_rows=float(b.max_rows), pub_max_groups=float(b.max_groups))
        values["pub_max_rpg"] = float(b.max_rows_per_group)
    for i, s in enumerate(stats):
        if s.kind not in KINDS:
            raise PlanError(
                f"statistic {s.name!r} is a {s.kind}, which this page does not lay out: publish it with the command line"
            )
        if s.n_public is not None or s.split != 0.5 or (gaussian and s.pure and s.kind not in SELECTION_KINDS):
            raise PlanError(
                f"statistic {s.name!r} uses a public n, a split of its mean or a noise of its own, which this page "
                "does not lay out: publish it with the command line"
            )
        said = s.provenance.replace(PLANNED_DEFAULT, "").strip("; ")  # the page writes its own mark again
        values.update({f"pub_kind_{i}": KINDS[s.kind], f"pub_name_{i}": s.name, f"pub_prov_{i}": said})
        column = {"count": None, "count_where": None, "periods": f"pub_date_{i}"}.get(s.kind, f"pub_num_{i}")
        column = f"pub_cat_{i}" if s.kind in ("counts", "two_way", "most_common") else column
        if column:
            values[column] = s.column
        for key, value in (("lower", s.lower), ("upper", s.upper), ("q", s.q), ("res", s.resolution)):
            if value is not None:
                values[f"pub_{key}_{i}"] = float(value)
        for key, value in (("planned", s.planned_n), ("bins", s.bins), ("target", s.target)):
            if value is not None:
                values[f"pub_{key}_{i}"] = float(value)
        values[f"pub_weight_{i}"] = float(s.weight)
        if s.domain is not None:
            values[f"pub_domain_{i}"] = "\n".join(s.domain)
            values[f"pub_other_{i}"] = s.other
        if s.kind == "two_way":
            values[f"pub_col2_{i}"] = s.by
        else:
            values[f"pub_by_{i}"] = s.by or NO_GROUPS
        if s.keys is not None:
            values[f"pub_keys_{i}"] = "\n".join(s.keys)
        for j, (column, condition, value) in enumerate(s.where or (), start=1):
            kind = "wnum" if isinstance(value, float) else "wtext"
            values.update({f"pub_wcol{j}_{i}": column, f"pub_wcond{j}_{i}": condition, f"pub_{kind}{j}_{i}": value})
        if s.where is not None:
            values[f"pub_wand_{i}"] = len(s.where) > 1
        if s.period is not None:
            values[f"pub_period_{i}"] = PERIOD_WORDS[s.period]
            values[f"pub_first_{i}"], values[f"pub_last_{i}"] = float(s.first_year), float(s.last_year)
    return values


def _check_conditions(plan: Plan, numeric: list[str]) -> None:
    """Refuse, in one sentence, a count where's condition the page cannot show: it offers number conditions on this
    file's numeric columns and text ones ("is", "is not") on the others."""
    for s in plan.statistics:
        for column, condition, value in s.where or ():
            if (condition in NUMBER_CONDITIONS) != (column in numeric):
                kind = "a number" if condition in NUMBER_CONDITIONS else "a text"
                raise PlanError(
                    f"statistic {s.name!r} compares {column} with {kind} ({column} {condition} {value}), which this "
                    f"page does not lay out for this file's {column}: publish it with the command line"
                )


def open_file() -> None:
    """Reopen a saved plan.json: its values go into the page's widgets (before they are drawn), then the page runs."""
    with st.expander("Open a saved plan (plan.json)", icon=":material/folder_open:"):
        upload = st.file_uploader("plan.json", type=["json"], key="pub_plan_file")
        if upload is None or st.session_state.get("_pub_opened") == upload.file_id:
            return
        st.session_state["_pub_opened"] = upload.file_id
        try:
            plan = plan_from_dict(json.loads(upload.getvalue().decode("utf-8")))
            values = plan_state(plan)
            _check_conditions(plan, state.numeric_columns())
        except (ValueError, TypeError, UnicodeDecodeError) as exc:
            st.warning(f"This plan cannot be opened: {md(plain_sentence(exc))}")
            return
        for i, s in enumerate(plan.statistics):  # a domain the plan says was read from the data stays marked
            if s.domain is not None and s.provenance.startswith(FILLED):
                values[_MARK.format(i)] = frozenset(s.domain)
                values[f"pub_prov_{i}"] = s.provenance[len(FILLED) :].lstrip("; ")
        marked = re.compile(r"^_pub_filled_\d+$")
        for key in [k for k in st.session_state if _PLAN_KEY.match(str(k)) or marked.match(str(k))]:
            del st.session_state[key]
        for key in [k for k in st.query_params if _PLAN_KEY.match(k)]:
            del st.query_params[key]  # the link follows the opened plan, not the one before
        st.session_state.update(values)
        st.rerun()
