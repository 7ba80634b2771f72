"""The privacy-budget ledger on screen: the recording buttons, the sidebar summary, the table and its exports."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from dpcore import families
from dpcore.accounting import BudgetError, BudgetLedger, Charge
from dpcore.accounting.events import ApproxDP, PoissonSampledGaussian
from dpcore.accounting.ledger import CONVERSION_RULE, LedgerFullError
from dpcore.accounting.per_release import METHOD_NAMES
from dpcore.families import NoiseParameter
from dpcore.neighbours import RelationError
from explorer import state
from explorer.markup import md, plain_sentence

__all__ = [
    "accounting_name",
    "record_release",
    "refusal_sentence",
    "charge_words",
    "describe",
    "NoiseParameter",
    "noise_parameter",
    "ledger_summary",
    "small_number",
    "ledger_table",
    "unit_totals",
    "conversion_sentences",
    "ledger_json",
]


def accounting_name(method: str, conversion: str | None = None) -> str:
    """How an accounting method is named on every page: dpcore's one map, :data:`~dpcore.accounting.per_release.METHOD_NAMES`.

    ``conversion="mironov"`` names RDP converted to (ε, δ) by Mironov's classic bound (Mironov 2017, Proposition 3),
    beside the default, tighter one (Balle et al. 2020). ``""`` for no method (nothing charged).

    >>> accounting_name("basic"), accounting_name("exact"), accounting_name("rdp", "mironov")
    ('basic', 'exact (μ-GDP)', 'RDP, classic conversion')
    """
    if not method:
        return ""
    name = METHOD_NAMES[method]
    return f"{name}, classic conversion" if conversion == "mironov" else name


def charge_words(charge: Charge) -> str:
    """Which accounting gave a charge, in words: "RDP composition" ("" when nothing is charged)."""
    return f"{accounting_name(charge.accounting)} composition" if charge.accounting else ""


def refusal_sentence(exc: BudgetError) -> str:
    """A refused spend in words a student understands (the developer form stays in the exception)."""
    total, budget = exc.total, exc.budget
    by = f", counted by {charge_words(total)}, the tightest bound that applies" if total.accounting else ""
    if total.delta > budget.delta * (1 + 1e-9):  # no bound fits the δ (its ε is then inf): say the δ, not an ε
        what, lower = f"δ = {total.delta:.2g} at the least, over your budget of δ = {budget.delta:.0e}", "δ"
    else:
        what, lower = f"ε = {total.epsilon:.3g}{by}, over your budget of ε = {budget.epsilon:g}", "ε"
    return (
        f"Not recorded: this release would bring your total to {what}. "
        f"Lower {lower} or the number of releases, or raise the budget (the Accountant page, under the teaching "
        "ledger)."
    )


def record_release(
    mechanisms,
    count: int = 1,
    label: str = "",
    key: str = "",
    release_delta=None,
    relation=None,
    unit=None,
    rows_per_person=None,
) -> None:
    """A button that records one release (or several together, all or none) in the session's ledger.

    ``mechanisms`` is one mechanism or a sequence of mechanisms released
    together (the sum and the count of a mean). ``relation`` and ``unit`` say under which neighbouring
    relation and unit the release's guarantee holds when its kind does not (dpcore's
    ``per_release.relation_of``): a client-level FedAvg run, a replace-one histogram, a person-level count
    (``unit="person"``). ``rows_per_person`` is the declared most rows of one person, which lets a person-level
    ledger take a record-level release. The ledger converts it to its own relation and unit by group privacy
    or refuses it; a refusal, a spend over the budget, or one past the ledger's number of entries is said in
    one sentence and the ledger is left unchanged.
    """
    if not st.button(
        "Record in the teaching ledger",
        key=f"spend_{key}",
        help="Adds this simulated release to the sidebar's ledger, which lives in this tab and can be reset: for "
        "learning how releases compose. What is published is charged to the publication log.",
    ):
        return
    parts = list(mechanisms) if isinstance(mechanisms, (list, tuple)) else [mechanisms]
    where = {
        k: v for k, v in (("relation", relation), ("unit", unit), ("rows_per_person", rows_per_person)) if v is not None
    }
    try:
        state.ledger().spend_all(parts, label=label, count=count, release_delta=release_delta, **where)
    except RelationError as exc:
        st.warning(f"Not recorded: {md(plain_sentence(exc))}")
        return
    except BudgetError as exc:
        st.warning(md(refusal_sentence(exc)))
        return
    except LedgerFullError as exc:
        st.warning(
            f"Not recorded: this tab's ledger is full (it keeps at most {exc.max_entries:,} entries); download it "
            "and start a new ledger on the Accountant page to record more."
        )
        return
    st.toast(f"Recorded: {md(label if isinstance(label, str) else '; '.join(label))}")


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def small_number(x: float) -> str:
    """A δ as the pages write it: two significant digits, a power of ten below 0.001 (``10⁻⁵``, ``1.5·10⁻⁶``).

    >>> small_number(0.0), small_number(1e-5), small_number(1.46e-6), small_number(0.02)
    ('0', '10⁻⁵', '1.5·10⁻⁶', '0.02')
    """
    if x == 0 or not 0 < abs(x) < 1e-3:
        return f"{x:.2g}"
    mantissa, exponent = f"{x:.1e}".split("e")
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
    return power if float(mantissa) == 1 else f"{float(mantissa):g}·{power}"


def ledger_summary() -> None:
    """The sidebar's view of the ledger: ε spent against the budget and which accounting gave it."""
    led = state.ledger()
    charge = led.charge()
    st.markdown("**Teaching ledger** (this tab, simulated releases)")
    st.progress(min(1.0, charge.epsilon / led.epsilon), text=f"ε spent {charge.epsilon:.3g} of {led.epsilon:g}")
    how = f" · by {accounting_name(charge.accounting)}" if charge.accounting else ""
    st.caption(
        f"{len(led.entries)} simulated release(s) recorded{how} · δ = {small_number(charge.delta)} of "
        f"{small_number(led.delta)} · under "
        f"{led.relation.words(led.unit)}"
    )


#: A release of no family (an accounting event) in a few words, by its class; a family's release says itself.
_EVENT_WORDS = {
    ApproxDP: lambda event: f"(ε, δ) = ({event.epsilon:.4g}, {small_number(event.delta)})",
    PoissonSampledGaussian: lambda run: (
        f"DP-SGD run: σ = {run.noise_multiplier:g}, q = {run.sampling_rate:.3g}, T = {run.steps:,}"
    ),
}


def noise_parameter(mechanism) -> NoiseParameter | None:
    """The parameter that sets a release's noise (Laplace's scale b, the Gaussian's σ), as its family says; None for
    a release whose family has none (an oracle, the staircase) or of no family (an event)."""
    family = families.family_of(mechanism)
    return None if family is None else family.noise_parameter(mechanism)


def describe(mechanism) -> str:
    """A release in a few words, for the ledger's table: its family's words (:meth:`dpcore.families.Family.describe`),
    else an event's."""
    if (family := families.family_of(mechanism)) is not None:
        return family.describe(mechanism)
    if (words := _EVENT_WORDS.get(type(mechanism))) is not None:
        return words(mechanism)
    return f"{type(mechanism).__name__}, ε = {mechanism.epsilon:g}"


def _entry_columns(led: BudgetLedger) -> dict[str, list]:
    """The ledger's table by column: one value per recorded entry (its own cost as the ledger computed it once)."""
    entries, own = led.entries, led.entry_costs()
    return {
        "#": list(range(1, len(entries) + 1)),
        "label": [entry.label for entry in entries],
        "count": [entry.count for entry in entries],
        "release": [describe(entry.mechanism) for entry in entries],
        "holds under": [entry.relation.words(entry.unit) for entry in entries],
        "converted": [f"k = {entry.conversion.group}" if entry.converted else "" for entry in entries],
        "ε on its own": [charge.epsilon for charge in own],
        "δ on its own": [charge.delta for charge in own],
        "counted by": [accounting_name(charge.accounting) for charge in own],
    }


def ledger_table(led: BudgetLedger) -> pd.DataFrame:
    """One row per recorded entry: what it was and what it costs on its own (its tightest accounting)."""
    return pd.DataFrame(_entry_columns(led))


def unit_totals(led: BudgetLedger) -> pd.DataFrame:
    """One row per unit of privacy among the entries: how many, what they cost together (under the ledger's relation
    and unit, :meth:`~dpcore.accounting.BudgetLedger.by_unit`), and by which accounting."""
    totals = led.by_unit()
    return pd.DataFrame(
        {
            "unit": [f"one {t.unit}" for t in totals],
            "entries": [t.entries for t in totals],
            "releases": [t.releases for t in totals],
            "ε together": [t.charge.epsilon for t in totals],
            "δ together": [t.charge.delta for t in totals],
            "counted by": [accounting_name(t.charge.accounting) for t in totals],
            "converted": [", ".join(f"k = {c.group}" for c in t.conversions) for t in totals],
        }
    )


def conversion_sentences(led: BudgetLedger) -> list[str]:
    """One sentence per unit whose entries the ledger converted to its own relation and unit: why, and by which rule
    (the ledger's words, :data:`dpcore.accounting.ledger.CONVERSION_RULE`); empty when none was converted."""
    sentences = []
    for total in led.by_unit():
        for rule in total.conversions:
            sentences.append(
                f"Entries about one {total.unit} were converted to {led.relation.words(led.unit)} with k = "
                f"{rule.group}, because {rule.reason}; by {CONVERSION_RULE}."
            )
    return sentences


def ledger_json(led: BudgetLedger) -> str:
    """The ledger as JSON: its budget, what all entries cost together (and by which accounting), and each entry.

    Indented, each entry on a line of its own (a ledger may hold thousands).
    """
    charge = led.charge()
    head = json.dumps(
        {
            "budget": {"epsilon": led.epsilon, "delta": led.delta, "method": led.method},
            "neighbouring_relation": led.relation.words(led.unit),
            "unit_of_privacy": led.unit,
            "spent": {"epsilon": charge.epsilon, "delta": charge.delta, "accounting": charge.accounting},
            "candidates": {name: {"epsilon": b.epsilon, "delta": b.delta} for name, b in charge.candidates},
            "by_unit": [
                {
                    "unit": t.unit,
                    "entries": t.entries,
                    "releases": t.releases,
                    "epsilon": t.charge.epsilon,
                    "delta": t.charge.delta,
                    "accounting": t.charge.accounting,
                    "conversions": [{"k": c.group, "reason": c.reason} for c in t.conversions],
                }
                for t in led.by_unit()
            ],
            "conversion_rule": CONVERSION_RULE,
        },
        indent=2,
        ensure_ascii=False,
    )
    columns = _entry_columns(led)
    encode = json.JSONEncoder(ensure_ascii=False).encode  # one encoder for every row
    rows = [encode(dict(zip(columns, row))) for row in zip(*columns.values())]
    entries = "[\n    " + ",\n    ".join(rows) + "\n  ]" if rows else "[]"
    return head.removesuffix("\n}") + f',\n  "entries": {entries}\n}}'
