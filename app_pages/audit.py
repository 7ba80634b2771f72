"""Audit: test a privacy claim from the outside, with an empirical lower bound on ε.

The first view runs an audit of ``dpcore.audit.CATALOGUE`` (or one of its broken
exhibits, ``BROKEN``) with ``dpcore.audit.audit`` and ``lower_bound_curve``: the
outputs on two neighbouring inputs, the event that separates them best, the
claimed ε against the lower bound, and the bound as the runs grow. The second
shows Mironov's floating-point attack (``floating_point_attack``) on textbook
Laplace noise against the lattice release (``dpcore.lattice``).
"""

import dataclasses

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import Laplace
from dpcore.audit import BROKEN, CATALOGUE, audit, floating_point_attack, lower_bound_curve
from dpcore.audit.api import MAX_TRIALS
from dpcore.lattice import lattice_mechanism
from explorer import charts, frame, state, widgets
from explorer.export import to_safe_csv
from explorer.markup import md, sentence

SALT = "audit"
CORRECT = "correct"
#: Runs on each input: 1-3 steps per decade from dpcore's smallest audit to its largest.
TRIAL_CHOICES = tuple(v for v in (m * 10**e for e in range(2, 8) for m in (1, 3)) if v < MAX_TRIALS) + (MAX_TRIALS,)
DEFAULT_TRIALS = 100_000
CONFIDENCES = (0.8, 0.9, 0.95, 0.99, 0.999)
#: The curve keeps every run of both inputs in memory: up to 10⁶ runs (16 MB) rather than dpcore's 10⁷ per session.
CURVE_TRIALS = 10**6
#: Outputs with their own bar when the output is discrete (the most frequent, and the event's).
TOP_OUTPUTS = 25

CAN_AND_CANNOT = (
    "An audit runs a mechanism many times on two neighbouring inputs and turns what it sees into a **lower "
    "bound on ε**: a bound above the claimed ε **refutes** the claim (at the stated confidence), but a bound "
    "below it proves nothing, since a pair of inputs or an event the audit did not try might do better. "
    "An audit can refute a privacy claim; it never proves one."
)

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
}

EXAMPLES = (
    ("Correct Laplace count", "laplace_count", None),
    ("Sum noised for sensitivity 1", "laplace_sum", "sensitivity_one"),
    ("AboveThreshold, one noise draw", "above_threshold", "shared_query_noise"),
    ("SUE, p and q swapped (control)", "sue", "swapped_pq"),
)

#: Where the explorer uses the lattice release, and where it keeps floating-point noise (one home for the sentence).
LATTICE_IN_THE_EXPLORER = (
    "**In this explorer.** The answers a page publishes with Laplace or Gaussian noise (the noisy count, sum, "
    "mean and histogram of Central DP, the answers of the range queries and the automatic mean of Sparse "
    "vector) are released on a lattice with exact integer noise (`dpcore.lattice.lattice_draw`). The simulations "
    "of many releases that draw the error histograms, and the audits of the first view, keep numpy's fast "
    "floating-point sampling: their outputs are never published (the `lattice_…` audits run the lattice release "
    "itself). Local DP reports and the exponential mechanism's choice are discrete outputs, with no such holes."
)


def _seed(salt: str) -> tuple[int, ...]:
    return tuple(state.seed_words(salt))


@st.cache_data(max_entries=32, show_spinner=False)
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


@st.cache_data(max_entries=32, show_spinner=False)
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


@st.cache_data(max_entries=32, show_spinner=False)
def cached_attack(sampler: str, epsilon: float, outputs: int, seed: tuple):
    return floating_point_attack(sampler, epsilon, trials=outputs, rng=np.random.default_rng(list(seed)))


# ---------------------------------------------------------------------- the audit view


def _pick(name: str, broken: str | None) -> None:
    st.session_state[widgets.AUDIT_MECHANISM] = name
    st.session_state["aud_broken"] = broken or CORRECT


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
    epsilon = cols[0].number_input(
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
            label, help_text, low, high = PARAMS.get(key, (key, None, None, None))
            integer = isinstance(default, int) and not isinstance(default, bool)
            if integer and low is not None and high is not None:  # a link's 1e309 gets a sentence, not an overflow
                params[key] = widgets.whole_number(label, int(low), int(high), int(default), widget_key, help_text)
                continue
            params[key] = st.number_input(
                label,
                min_value=None if low is None else (int(low) if integer else float(low)),
                max_value=None if high is None else (int(high) if integer else float(high)),
                value=int(default) if integer else float(default),
                step=1 if integer else None,
                format=None if integer else "%g",
                key=widget_key,
                bind="query-params",
                help=help_text,
            )
    return epsilon, params


def verdict(result, exhibit, actual) -> None:
    bound, claimed, conf = result.epsilon_lower, result.epsilon_claimed, result.confidence
    if result.violated:
        text = (
            f":red-background[**Refuted.**] With {conf:.4g} confidence the true ε is at least **{bound:.3f}**, "
            f"above the claimed ε = {claimed:g}."
        )
        if exhibit is None:
            text += (
                " For dpcore's own code this means the claim is below the mechanism's true ε, or chance: at this "
                f"confidence a true claim is refuted at most {1 - conf:.3g} of the time."
            )
    else:
        share = f" ({bound / claimed:.0%} of it)" if bound > 0 else ""
        text = (
            f":green-background[**Not refuted.**] The lower bound **{bound:.3f}** is at or below the claimed "
            f"ε = {claimed:g}{share}: consistent with the claim, which this does not prove."
        )
        if exhibit is not None and exhibit.violates:
            truth = "" if actual is None else f" (its true ε is {actual:g})"
            text += f" This exhibit is broken{truth}, but these runs do not show it: try more runs."
        elif exhibit is not None:
            text += " As expected: this bug breaks the estimates, not the privacy (a control)."
    st.markdown(text)


def outputs_chart(result):
    title = f"Outputs on x and on x′ (the first {result.outputs0.size:,} runs of each)"
    if result.event_kind in (">=", "<"):
        return charts.audit_histograms(
            result.outputs0,
            result.outputs1,
            result.event_kind,
            result.event_value,
            result.event,
            title,
            result.output_name,
        )
    codes, counts0 = np.unique(result.outputs0, return_counts=True)
    codes1, counts1 = np.unique(result.outputs1, return_counts=True)
    every = np.union1d(np.union1d(codes, codes1), [result.event_value])
    share0 = np.zeros(every.size)
    share1 = np.zeros(every.size)
    share0[np.searchsorted(every, codes)] = counts0 / result.outputs0.size
    share1[np.searchsorted(every, codes1)] = counts1 / result.outputs1.size
    keep = np.argsort(-(share0 + share1), kind="stable")[:TOP_OUTPUTS]
    event_at = int(np.searchsorted(every, result.event_value))
    if event_at not in keep:
        keep = np.append(keep[: TOP_OUTPUTS - 1], event_at)
    keep = np.sort(keep)
    labels = [(result.output_labels or {}).get(int(c), str(c)) for c in every[keep]]
    if every.size > keep.size:
        title += f"; {keep.size} of the {every.size} outputs seen"
    return charts.audit_output_bars(labels, share0[keep], share1[keep], int(np.flatnonzero(keep == event_at)[0]), title)


def counts_table(result) -> pd.DataFrame:
    """The counts behind the bound: the measuring runs of each input, and the Clopper–Pearson bound used on each."""
    big = result.larger

    def bound(side: int) -> str:
        return f"≥ {result.p_lower:.4g}" if side == big else f"≤ {result.p_upper:.4g}"

    return pd.DataFrame(
        {
            "": ["runs measured", "outputs in S", "share in S", "P[output in S]"],
            "x": [f"{result.trials0:,}", f"{result.hits0:,}", f"{result.rate0:.4g}", bound(0)],
            "x′": [f"{result.trials1:,}", f"{result.hits1:,}", f"{result.rate1:.4g}", bound(1)],
        }
    )


def numbers_csv(name, broken, spec, result, seed) -> bytes:
    row = {
        "mechanism": name,
        "implementation": broken or CORRECT,
        "claim": spec.claim,
        "epsilon_claimed": result.epsilon_claimed,
        "delta": result.delta,
        "confidence": result.confidence,
        "runs_per_input": result.trials,
        "seed": " ".join(map(str, seed)),
        "event": result.event,
        "event_kind": result.event_kind,
        "event_value": result.event_value,
        "more_likely_on": "x" if result.larger == 0 else "x′",
        "selection_runs_per_input": result.trials - result.trials0,
        "measuring_runs_x": result.trials0,
        "hits_x": result.hits0,
        "measuring_runs_x_prime": result.trials1,
        "hits_x_prime": result.hits1,
        "p_lower": result.p_lower,
        "p_upper": result.p_upper,
        "epsilon_lower": result.epsilon_lower,
        "refuted": result.violated,
        **{f"param_{k}": v for k, v in result.params.items()},
    }
    return to_safe_csv(pd.DataFrame([row]))


def reproduce(name, epsilon, trials, broken, confidence, params, seed) -> str:
    """The audit above as Python: the same call, the same generator."""
    args = [repr(name), repr(epsilon), f"trials={trials}", f"rng=np.random.default_rng({list(seed)})"]
    args += [f"broken={broken!r}"] if broken else []
    args += [f"confidence={confidence!r}"] + [f"{k}={v!r}" for k, v in params]
    return (
        "import numpy as np\n\nfrom dpcore.audit import audit\n\n"
        f"result = audit({', '.join(args)})\nprint(result.summary)\n"
    )


def audit_view() -> None:
    examples()
    c1, c2, c3, c4 = st.columns([1.3, 1.2, 1, 1])
    with c1:
        name = st.selectbox(
            "Mechanism",
            list(CATALOGUE),
            key=widgets.AUDIT_MECHANISM,
            bind="query-params",
            help="Each audit runs dpcore's own code on the neighbouring pair where the mechanism is at its worst.",
        )
    spec = CATALOGUE[name]
    variants = [CORRECT, *BROKEN.get(name, {})]
    with c2:
        choice = st.selectbox(
            "Implementation",
            variants,
            key="aud_broken",
            bind="query-params",
            disabled=len(variants) == 1,
            help="dpcore's correct code, or a broken exhibit: the same code with one line changed."
            if len(variants) > 1
            else "This mechanism has no broken exhibit.",
        )
    broken = None if choice == CORRECT else choice
    exhibit = BROKEN[name][broken] if broken else None
    with c3:
        trials = st.select_slider(
            "Runs on each input",
            TRIAL_CHOICES,
            value=DEFAULT_TRIALS,
            key="aud_trials",
            bind="query-params",
            help="Half of the runs choose the event, the other half measure it. Separate from the sidebar's "
            "simulated trials: an audit needs many more runs.",
        )
    with c4:
        confidence = st.select_slider(
            "Confidence",
            CONFIDENCES,
            value=0.95,
            format_func=lambda v: f"{v:g}",
            key="aud_confidence",
            bind="query-params",
            help="The probability that the bound is below the true ε, whatever the mechanism.",
        )
    line = f"**{spec.title}**, claimed {spec.claim}."
    if exhibit is not None:
        tag = ":red[**Broken exhibit:**]" if exhibit.violates else "**Control:**"
        line += f" {tag} {exhibit.bug}."
    st.markdown(line)
    epsilon, params = parameter_widgets(name, broken)
    args = (name, float(epsilon), int(trials), broken, float(confidence), tuple(params.items()))
    try:
        with st.spinner(f"Running the mechanism {trials:,} times on each input…", show_time=True):
            result = cached_audit(*args, _seed(SALT))
            curve = cached_curve(*args, _seed(SALT + "-curve"))
    except ValueError as exc:
        st.error(md(sentence(exc)))
        return
    actual = (
        exhibit.actual_epsilon(result.epsilon_claimed, result.params) if exhibit and exhibit.actual_epsilon else None
    )
    show_result(name, broken, spec, exhibit, result, curve, actual, args)


def show_result(name, broken, spec, exhibit, result, curve, actual, args) -> None:
    verdict(result, exhibit, actual)
    claim = f"ε = {result.epsilon_claimed:g}" + (f", δ = {result.delta:.0e}" if result.delta else "")
    a, b, c = st.columns(3)
    a.metric("Claimed", claim, help=f"{spec.claim}, the claim audited.")
    b.metric(
        "Lower bound on ε",
        f"{result.epsilon_lower:.3f}",
        f"{result.epsilon_lower - result.epsilon_claimed:+.3f} against the claim",
        delta_color="inverse",
        help=f"Holds with probability {result.confidence:.4g}: ln((P[M(x) ∈ S] − δ) / P[M(x′) ∈ S]) with "
        "Clopper–Pearson bounds on both probabilities, measured on runs that did not choose S.",
    )
    c.metric("Bound / claim", f"{result.epsilon_lower / result.epsilon_claimed:.1%}")
    st.plotly_chart(
        charts.audit_gauge(
            result.epsilon_claimed,
            result.epsilon_lower,
            result.confidence,
            actual,
            f"Claimed ε against the audit's lower bound (shaded: where the true ε lies with {result.confidence:.4g} confidence)",
        ),
        key="aud_gauge",
    )
    left, right = st.columns([1.35, 1])
    left.plotly_chart(outputs_chart(result), key="aud_outputs")
    with right:
        st.markdown(f"**The pair.** {md(result.neighbours)}")
        st.markdown(
            f"**The event that separates them best:** S = {{{md(result.event)}}}, chosen on the first "
            f"{result.trials - result.trials0:,} runs of each input among {md(CATALOGUE[name].events)}; "
            f"measured on the other {result.trials0:,}."
        )
        st.dataframe(counts_table(result), hide_index=True, key="aud_counts")
        st.caption(md(result.summary))
    st.plotly_chart(
        charts.audit_bound_curve(
            curve.trials,
            curve.epsilon_lower,
            result.epsilon_claimed,
            (result.trials, result.epsilon_lower),
            actual,
            "The lower bound as the runs grow",
        ),
        key="aud_curve",
    )
    first, last = curve.epsilon_lower[0], curve.epsilon_lower[-1]
    st.caption(
        f"Each point audits the first n of {int(curve.trials[-1]):,} runs on each input (event chosen on the first "
        "half, measured on the second): each is an honest bound on its own, and they share runs. From "
        f"{int(curve.trials[0]):,} to {int(curve.trials[-1]):,} runs the bound went from {first:.3f} to {last:.3f}. "
        "The star is the audit above, on runs of its own."
        + (" The curve stops at 10⁶ runs: it keeps every run in memory." if result.trials > CURVE_TRIALS else "")
        + (
            " Some points lie above the claim while the audit above does not: each point alone holds at the stated "
            "confidence, but picking the highest of several looks is not an audit (each look is another chance of "
            "a false alarm). The verdict rests on the star's runs only."
            if not result.violated and np.any(curve.epsilon_lower > result.epsilon_claimed)
            else ""
        )
    )
    seed = _seed(SALT)
    d1, d2, d3 = st.columns([1, 1, 2])
    d1.download_button(
        "Audit numbers (CSV)",
        numbers_csv(name, broken, spec, result, seed),
        file_name=f"audit_{name}.csv",
        mime="text/csv",
        help="The claim, the event, the four counts, the Clopper–Pearson bounds and the lower bound, with the seed.",
    )
    d2.download_button(
        "Bound curve (CSV)",
        to_safe_csv(pd.DataFrame({"runs_per_input": curve.trials, "epsilon_lower": curve.epsilon_lower})),
        file_name=f"audit_{name}_curve.csv",
        mime="text/csv",
    )
    with d3.expander("Reproduce in Python"):
        st.code(reproduce(*args, seed), language="python")
    explain()


def explain() -> None:
    with st.expander("How the audit works, and why a correct mechanism's bound stays below its claim"):
        st.markdown(
            "If a mechanism M is (ε, δ)-DP then for neighbouring inputs x, x′ and every set of outputs S, "
            "P[M(x) ∈ S] ≤ e^ε · P[M(x′) ∈ S] + δ (Dwork & Roth 2014, Definition 2.4). The audit estimates the "
            "two probabilities from runs, replaces them by exact Clopper–Pearson confidence bounds, and reports"
        )
        st.latex(r"\varepsilon \;\ge\; \ln\frac{\underline{p}_{\,x} - \delta}{\overline{p}_{\,x'}}")
        st.markdown(
            "which holds with the chosen confidence (union bound over the two one-sided bounds). The event S and "
            "its direction are chosen on half of the runs and measured on the other half, so trying many events "
            "costs no confidence (Jagielski, Ullman & Oprea 2020, Algorithm 2; Ding et al. 2018, Section 4)."
        )
        st.markdown(
            "**How close it can get.** Pure ε-DP mechanisms whose worst event is likely (Laplace on a count or a "
            "sum, GRR, SUE, OUE, the LDP mean) come within a few percent of the claim at 10⁶ runs. The Gaussian "
            "with a small δ stays lower: its e^ε likelihood ratio is reached only in a tail of probability about δ. "
            "AboveThreshold and Sparse need a long run of queries below a high noisy threshold, a rare event; the "
            "mean is a ratio of two noisy numbers that no single threshold inverts; the exponential mechanism with "
            "m candidates reaches at most ln(m e^ε / (e^ε + m − 1)). Measured in `benchmarks/results/audit.md`."
        )


# ---------------------------------------------------------------------- the floating-point view

FP_EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 10.0)
FP_CURVE_OUTPUTS = 10_000
FP_OUTPUTS = (1_000, 10_000, 100_000)


def floating_point_view() -> None:
    st.markdown(
        "The textbook Laplace sampler releases **y = x + b·ln u** (with a random sign) computed in doubles. "
        "Mironov (2012) saw that the doubles b·ln u form a sparse, irregular set, and that shifting it by x and "
        "rounding gives a set that barely overlaps the one for a neighbouring x′: most outputs on x **cannot** "
        "occur on x′. One such output tells x from x′ with certainty, so no finite ε holds, whatever the "
        "noise scale. Below, for each output on x = 0, dpcore decides exactly (by bisection over the doubles) "
        "whether any draw of the same sampler on x′ = 1 gives the same double."
    )
    c1, c2 = st.columns([1.4, 1])
    with c1:
        eps = widgets.epsilon_slider("aud_fp_epsilon", help="The Laplace noise has scale 1/ε (x and x′ are 1 apart).")
    with c2:
        outputs = st.select_slider(
            "Outputs drawn on x = 0",
            FP_OUTPUTS,
            value=10_000,
            key="aud_fp_outputs",
            bind="query-params",
            help="Each output is checked exactly: about a second per 10⁵ outputs for the textbook sampler.",
        )
    with st.spinner("Checking every output…"):
        text = cached_attack("textbook", float(eps), int(outputs), _seed(SALT + "-fp-textbook"))
        safe = cached_attack("lattice", float(eps), int(outputs), _seed(SALT + "-fp-lattice"))
        curve = {
            sampler: [cached_attack(sampler, e, FP_CURVE_OUTPUTS, _seed(f"{SALT}-fp-{sampler}")) for e in FP_EPSILONS]
            for sampler in ("textbook", "lattice")
        }
    a, b = st.columns(2)
    a.metric(
        "Textbook sampler: outputs on x = 0 that x′ = 1 cannot produce",
        f"{text.share:.1%}",
        "implied ε = ∞" if text.impossible else "none found",
        delta_color="inverse" if text.impossible else "off",
        delta_arrow="off",
    )
    b.metric(
        "Lattice release: outputs on x = 0 that x′ = 1 cannot produce",
        f"{safe.share:.1%}",
        "implied ε = ∞" if safe.impossible else "none: every output is possible on x′",
        delta_color="inverse" if safe.impossible else "normal",
        delta_arrow="off",
    )
    st.markdown(
        f"Of {text.trials:,} outputs of the textbook sampler on x = 0 at ε = {eps:g}, **{text.impossible:,}** "
        f"({text.share:.1%}; 95% interval {text.share_lower:.1%} to {text.share_upper:.1%}) cannot come out on "
        f"x′ = 1. The lattice release: **{safe.impossible:,}** of {safe.trials:,}. Check of the search: run "
        f"against x itself it finds every output possible ({text.found_on_x:,} of {text.trials:,} textbook, "
        f"{safe.found_on_x:,} of {safe.trials:,} lattice)."
    )
    left, right = st.columns([1.5, 1])
    series = {
        "textbook x + b·ln u in doubles": tuple(
            [getattr(r, f) for r in curve["textbook"]] for f in ("share", "share_lower", "share_upper")
        ),
        "lattice release, exact integer noise": tuple(
            [getattr(r, f) for r in curve["lattice"]] for f in ("share", "share_lower", "share_upper")
        ),
    }
    left.plotly_chart(
        charts.impossible_shares(
            FP_EPSILONS,
            series,
            eps,
            f"Outputs on x = 0 impossible on x′ = 1 ({FP_CURVE_OUTPUTS:,} per point, 95% bars)",
        ),
        key="aud_fp_curve",
    )
    with right:
        if text.examples:
            st.markdown("**Outputs on x = 0 that x′ = 1 can never produce** (every digit):")
            st.dataframe(
                pd.DataFrame({"output y": [repr(v) for v in text.examples]}), hide_index=True, key="aud_fp_examples"
            )
        lattice = lattice_mechanism(Laplace.from_epsilon(eps, sensitivity=abs(safe.x_prime - safe.x)))
        st.markdown(
            f"**The lattice at ε = {eps:g}.** The answer is rounded to a power-of-two grid and exact discrete "
            "Laplace noise in whole grid steps is added, so every grid point can come out of every answer. What it "
            f"costs: {md(lattice.cost)}. Exact integer sampling also takes longer, about 30× numpy's float Laplace "
            "per draw (`benchmarks/results/audit.md`)."
        )
    st.markdown(LATTICE_IN_THE_EXPLORER)


def render() -> None:
    st.title("Audit a privacy claim")
    st.markdown(CAN_AND_CANNOT)
    # only the open tab runs: a slider move recomputes one view, and a link names the view it shows
    tab_audit, tab_fp = st.tabs(["Audit a mechanism", "Floating-point attack"], key="aud_view", bind="query-params")
    if tab_audit.open:
        with tab_audit:
            audit_view()
    if tab_fp.open:
        with tab_fp:
            floating_point_view()


frame.run_page(render)
