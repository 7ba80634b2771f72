"""The Audit page's first view: one audit of ``dpcore.audit.CATALOGUE`` (or of one of its broken exhibits,
``BROKEN``), its controls (``aud_*``, each bound to the URL) and the runs, cached on plain arguments.

The mechanisms offered are the catalogue's keys, in its order: an audit registered in dpcore (every family of
:mod:`dpcore.families` registers its own) appears here without a change to this module. What the result shows is
in :mod:`explorer.audit_result`; every number comes from ``dpcore.audit.audit`` and ``lower_bound_curve``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

from dpcore.audit import BROKEN, CATALOGUE, audit, lower_bound_curve
from dpcore.audit.api import MAX_TRIALS
from explorer import audit_background, cache, jobs, widgets
from explorer.audit_layout import (
    CORRECT,
    CURVE_TRIALS,
    SALT,
    implementation_name,
    keyed_select,
    mechanism_name,
    mechanism_title,
    page_seed,
    set_pick,
)
from explorer.audit_result import show_result
from explorer.markup import md, plain_sentence, words

__all__ = [
    "TRIAL_CHOICES",
    "DEFAULT_TRIALS",
    "CONFIDENCES",
    "PARAMS",
    "EXAMPLES",
    "cached_audit",
    "cached_curve",
    "examples",
    "parameter_widgets",
    "audit_view",
]

#: Runs on each input: 1-3 steps per decade from dpcore's smallest audit to its largest.
TRIAL_CHOICES = tuple(v for v in (m * 10**e for e in range(2, 8) for m in (1, 3)) if v < MAX_TRIALS) + (MAX_TRIALS,)
DEFAULT_TRIALS = 100_000
CONFIDENCES = (0.8, 0.9, 0.95, 0.99, 0.999)

#: parameter -> (label, help, smallest, largest). The defaults come from the catalogue; the bounds keep a run
#: affordable (and Sparse's answered sets within 63 queries).
PARAMS = {
    "n": ("n, records in x", "x holds n records; x′ holds the same n and one more.", 1, 1_000_000),
    "lower": ("Lower clipping bound L", "Every value is clipped to [L, U] before the sum.", -1e9, 1e9),
    "upper": ("Upper clipping bound U", "Every value is clipped to [L, U] before the sum.", -1e9, 1e9),
    "split": (
        "Share of ε for the sum",
        "The mean is a noisy sum over a noisy count; the rest goes to the count.",
        0.01,
        0.99,
    ),
    "k": ("k, number of values", "The size of the domain each user reports from.", 2, 1_000),
    "candidates": ("Candidates", "How many outputs the exponential mechanism chooses among.", 2, 1_000),
    "sensitivity": ("Sensitivity Δ", "The most one record moves each score or query answer.", 0.001, 1e6),
    "queries": ("Queries", "Queries AboveThreshold reads before it must stop.", 1, 100),
    "threshold": ("Threshold T", "The public threshold the noisy answers are compared with.", -1e6, 1e6),
    "c": ("c, most positives", "Sparse stops after c queries above the threshold.", 1, 10),
    "queries_per_round": ("Queries per round", "Queries in each of the c rounds of the worst-case pair.", 1, 6),
    "rounds": ("Rounds", "Rounds of queries in the pair (the broken Sparse never stops early).", 1, 10),
    "sampling_rate": ("Sampling rate q", "Each record joins the step's batch with probability q.", 0.01, 1.0),
    "client_rate": ("Client sampling rate q", "Each client joins the round with probability q.", 0.01, 1.0),
    "clip": ("Clipping norm C", "Each gradient (update) is clipped to this L2 norm.", 0.001, 1e6),
    "q": ("Quantile q", "The quantile released: 0.5 is the median.", 0.0, 1.0),
    "share": ("Place of x's record", "x's one record sits at L + share × (U − L) of the range.", 0.0, 1.0),
}

#: (audit, parameter) -> the same four, where an audit's parameter means something else than PARAMS says: the
#: user-level audits' n counts persons, not records.
AUDIT_PARAMS = {
    ("person_count", "n"): (
        "n, persons in x",
        "x holds n persons of one row each; x′ the same and one more person with many rows.",
        1,
        1_000_000,
    ),
    **{
        (name, "n"): (
            "n, persons in each group of x",
            "x holds n persons of one row in each declared group; x′ the same and one more person with many rows in "
            "every group.",
            1,
            1_000_000,
        )
        for name in ("person_group_by", "person_group_by_selection")
    },
}

#: The range of a parameter an audit registered tomorrow takes before it has a row in PARAMS.
UNLISTED_WHOLE = (0, 1_000_000)


def _unlisted(key: str, integer: bool) -> tuple[str, str, float, float]:
    """A parameter PARAMS does not list: named in words (never its key), with a bounded range."""
    low, high = UNLISTED_WHOLE if integer else (-widgets.LARGEST_AMOUNT, widgets.LARGEST_AMOUNT)
    return words(key).capitalize(), f"The audit's {words(key)}.", low, high


EXAMPLES = (
    ("Correct Laplace count", "laplace_count", None),
    ("Sum noised for sensitivity 1", "laplace_sum", "sensitivity_one"),
    ("AboveThreshold, one noise draw", "above_threshold", "shared_query_noise"),
    ("SUE, p and q swapped (control)", "sue", "swapped_pq"),
)


#: An audit's result keeps the first 2,000 outputs of each input (33 to 41 kB pickled, whatever the runs): 4 MiB hold
#: about a hundred; a curve is twelve points (under 1 kB).
@cache.bounded(4 * cache.MIB)
def cached_audit(name: str, epsilon: float, trials: int, broken, confidence: float, params: tuple, seed: tuple):
    """``dpcore.audit.audit`` with the page's generator; its parameters as a plain dict (a mapping proxy cannot be pickled)."""
    result = audit(
        name,
        epsilon,
        trials=trials,
        rng=np.random.default_rng(list(seed)),
        broken=broken,
        confidence=confidence,
        **dict(params),
    )
    return dataclasses.replace(result, params=dict(result.params))


@cache.bounded(1 * cache.MIB)
def cached_curve(name: str, epsilon: float, trials: int, broken, confidence: float, params: tuple, seed: tuple):
    return lower_bound_curve(
        name,
        epsilon,
        trials=min(trials, CURVE_TRIALS),
        rng=np.random.default_rng(list(seed)),
        broken=broken,
        confidence=confidence,
        **dict(params),
    )


#: URL key of the implementation picker (dpcore's correct code or a broken exhibit).
BROKEN_KEY = "aud_broken"


def _pick(name: str, broken: str | None) -> None:
    set_pick(widgets.AUDIT_MECHANISM, name, next(iter(CATALOGUE)))
    set_pick(BROKEN_KEY, broken or CORRECT, CORRECT)


def _mechanism_picked(name: str) -> None:
    """Another mechanism: an exhibit of the previous one is dropped, from the link too."""
    if st.session_state.get(BROKEN_KEY, CORRECT) not in BROKEN.get(name, {}):
        set_pick(BROKEN_KEY, CORRECT, CORRECT)


def examples() -> None:
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    row.markdown("**Try:**", width="content")
    for i, (label, name, broken) in enumerate(EXAMPLES):
        row.button(
            label,
            key=f"aud_example_{i}",
            on_click=_pick,
            args=(name, broken),
            type="tertiary",
            icon=":material/check_circle:" if broken is None else ":material/bug_report:",
        )


def parameter_widgets(name: str, broken: str | None) -> tuple[float, dict]:
    """The claimed ε and the audit's parameters, each a widget bound to the URL."""
    spec = CATALOGUE[name]
    defaults = dict(spec.params)
    if broken:
        defaults.update(BROKEN[name][broken].params)
    cols = st.columns(max(4, len(defaults) + 1))
    epsilon = widgets.bound(
        cols[0].number_input,
        "Claimed ε",
        min_value=0.001,
        max_value=50.0,
        value=float(spec.default_epsilon),
        step=0.1,
        format="%g",
        key=widgets.audit_key(name, "epsilon"),
        bind="query-params",
        help="The ε the mechanism is said to satisfy; dpcore calibrates it to this ε"
        + (" (the coin flip is fixed at ε = ln 3: ε here is only the claim)." if name == "coin_flip" else "."),
    )
    params = {}
    for col, (key, default) in zip(cols[1:], defaults.items()):
        widget_key = widgets.audit_key(name, key, broken)
        with col:
            if key == "delta":
                params[key] = widgets.delta_slider(widget_key, default=default, help="δ of the (ε, δ) claim.")
                continue
            integer = isinstance(default, int) and not isinstance(default, bool)
            label, help_text, low, high = AUDIT_PARAMS.get((name, key)) or PARAMS.get(key) or _unlisted(key, integer)
            if integer:  # a link's 1e309 gets a sentence, not an overflow
                params[key] = widgets.whole_number(label, int(low), int(high), int(default), widget_key, help_text)
                continue
            params[key] = widgets.bound(
                st.number_input,
                label,
                min_value=float(low),
                max_value=float(high),
                value=float(default),
                format="%g",
                key=widget_key,
                bind="query-params",
                help=help_text,
            )
    return epsilon, params


def audit_view() -> None:
    examples()
    c1, c2, c3, c4 = st.columns([1.5, 1.4, 1, 0.9])  # an exhibit is named by the start of its bug
    with c1:
        name = keyed_select(
            "Mechanism",
            CATALOGUE,
            widgets.AUDIT_MECHANISM,
            mechanism_name,
            "Each audit runs dpcore's own code on the neighbouring pair where the mechanism is at its worst.",
            on_change=_mechanism_picked,
        )
    spec = CATALOGUE[name]
    variants = [CORRECT, *BROKEN.get(name, {})]
    with c2:
        choice = keyed_select(
            "Implementation",
            variants,
            BROKEN_KEY,
            lambda broken: implementation_name(name, broken),
            "dpcore's correct code, or a broken exhibit: the same code with one line changed."
            if len(variants) > 1
            else "This mechanism has no broken exhibit.",
            disabled=len(variants) == 1,
        )
    broken = None if choice == CORRECT else choice
    exhibit = BROKEN[name][broken] if broken else None
    with c3:
        trials = widgets.bound(
            st.select_slider,
            "Runs on each input",
            TRIAL_CHOICES,
            value=DEFAULT_TRIALS,
            key="aud_trials",
            bind="query-params",
            help="Half of the runs choose the event, the other half measure it. Separate from the sidebar's "
            "simulated trials: an audit needs many more runs.",
        )
    with c4:
        confidence = widgets.bound(
            st.select_slider,
            "Confidence",
            CONFIDENCES,
            value=0.95,
            format_func=lambda v: f"{v:g}",
            key="aud_confidence",
            bind="query-params",
            help="The probability that the bound is below the true ε, whatever the mechanism.",
        )
    line = f"**{mechanism_title(name)}**, claimed {spec.claim}."  # dpcore's own words, as the title was
    if exhibit is not None:
        tag = ":red[**Broken exhibit:**]" if exhibit.violates else "**Control:**"
        line += f" {tag} {exhibit.bug}."
    st.markdown(line)
    epsilon, params = parameter_widgets(name, broken)
    args = (name, float(epsilon), int(trials), broken, float(confidence), tuple(params.items()))
    seeds = page_seed(SALT), page_seed(SALT + "-curve")
    seconds = audit_background.estimated_seconds(name, broken, float(epsilon), int(trials), args[-1])
    if audit_background.in_background(trials, seconds):  # more than a rerun may spend: the server's pool runs it
        found = audit_background.run(args, *seeds, seconds)
        if found is None:
            return
        result, curve = found
    else:
        jobs.drop(audit_background.SLOT)
        try:
            with st.spinner(f"Running the mechanism {trials:,} times on each input…", show_time=True):
                result = cached_audit(*args, seeds[0])
                curve = cached_curve(*args, seeds[1])
        except ValueError as exc:
            st.error(md(plain_sentence(exc)))
            return
    actual = (
        exhibit.actual_epsilon(result.epsilon_claimed, result.params) if exhibit and exhibit.actual_epsilon else None
    )
    show_result(name, broken, spec, exhibit, result, curve, actual, args)
