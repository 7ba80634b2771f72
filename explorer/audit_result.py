"""What the Audit page shows of one audit: the verdict, the claimed ε against the lower bound, the outputs on the
two inputs with the event that separates them, the counts behind the bound, the bound as the runs grow, the
downloads, the Python that reproduces it and how the audit works.

It lays out a ``dpcore.audit`` result and curve; it decides no privacy fact.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.audit import CATALOGUE
from explorer import charts
from explorer.audit_layout import CORRECT, CURVE_TRIALS, SALT, page_seed
from explorer.export import to_safe_csv
from explorer.markup import md

__all__ = [
    "TOP_OUTPUTS",
    "verdict",
    "outputs_chart",
    "counts_table",
    "numbers_csv",
    "reproduce",
    "show_result",
    "explain",
]

#: Outputs with their own bar when the output is discrete (the most frequent, and the event's).
TOP_OUTPUTS = 25


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
    # one argument a line: on one line the call ran past the code box (adult.csv's screenshot, test-artifacts/real)
    call = "".join(f"    {a},\n" for a in args)
    return f"import numpy as np\n\nfrom dpcore.audit import audit\n\nresult = audit(\n{call})\nprint(result.summary)\n"


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
    seed = page_seed(SALT)
    d1, d2 = st.columns(2)
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
    with st.expander("Reproduce in Python"):  # the page's width: in a half column the call was cut
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
