"""The Audit page's second view: Mironov's (2012) floating-point attack (``dpcore.audit.floating_point_attack``)
on textbook Laplace noise, against the lattice release (``dpcore.lattice``), with its control ``aud_fp_*``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import Laplace
from dpcore.audit import floating_point_attack
from dpcore.lattice import lattice_mechanism
from dpcore.postprocess import round_up
from explorer import cache, charts, widgets
from explorer.audit_layout import SALT, page_seed

__all__ = [
    "FP_EPSILONS",
    "FP_CURVE_OUTPUTS",
    "FP_OUTPUTS",
    "LATTICE_IN_THE_EXPLORER",
    "cached_attack",
    "floating_point_view",
]

FP_EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 10.0)
FP_CURVE_OUTPUTS = 10_000
FP_OUTPUTS = (1_000, 10_000, 100_000)

#: Where the explorer uses the lattice release, and where it keeps floating-point noise (one home for the sentence).
LATTICE_IN_THE_EXPLORER = (
    "**In this explorer.** The answers a page publishes with Laplace or Gaussian noise (the noisy count, sum, "
    "mean and histogram of Central DP, the answers of the range queries and the automatic mean of Sparse "
    "vector) are released on a lattice with exact integer noise. The simulations of many releases that draw the "
    "error histograms, and the audits of the first view, keep numpy's fast floating-point sampling: their outputs "
    "are never published (the first view's audits of a *safe release of a count on a grid* run the lattice release "
    "itself). Local DP reports and the exponential mechanism's choice are discrete outputs, with no such holes."
)


@cache.bounded(1 * cache.MIB)  # shares, intervals and five example outputs: under 1 kB a result
def cached_attack(sampler: str, epsilon: float, outputs: int, seed: tuple):
    return floating_point_attack(sampler, epsilon, trials=outputs, rng=np.random.default_rng(list(seed)))


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
        outputs = widgets.bound(
            st.select_slider,
            "Outputs drawn on x = 0",
            FP_OUTPUTS,
            value=10_000,
            key="aud_fp_outputs",
            bind="query-params",
            help="Each output is checked exactly: about a second per 10⁵ outputs for the textbook sampler.",
        )
    with st.spinner("Checking every output…"):
        text = cached_attack("textbook", float(eps), int(outputs), page_seed(SALT + "-fp-textbook"))
        safe = cached_attack("lattice", float(eps), int(outputs), page_seed(SALT + "-fp-lattice"))
        curve = {
            sampler: [
                cached_attack(sampler, e, FP_CURVE_OUTPUTS, page_seed(f"{SALT}-fp-{sampler}")) for e in FP_EPSILONS
            ]
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
            f"costs: {_lattice_cost(lattice)}. Exact integer sampling also takes longer, about 30× numpy's float Laplace "
            "per draw (`benchmarks/results/audit.md`)."
        )
    st.markdown(LATTICE_IN_THE_EXPLORER)


def _lattice_cost(lattice) -> str:
    """What the lattice changes, in plain words and the digits that matter (``LatticeMechanism.cost`` has them all)."""
    ratio = lattice.sensitivity_units / (lattice.source.sensitivity / lattice.grid)
    units = f"{lattice.sensitivity_units:,} grid steps" + ("" if ratio == 1.0 else f" (rounded up ×{ratio:.4g})")
    change = (lattice.noise_inflation - 1.0) * 100
    noise = "the same noise standard deviation" if abs(change) < 0.005 else f"a noise standard deviation {change:.2g}% "
    noise += "" if abs(change) < 0.005 else ("larger" if change > 0 else "smaller")
    step = f"1/{1 / lattice.grid:,.0f}" if lattice.grid < 1 else f"{lattice.grid:,.0f}"
    return (
        f"a grid of steps of 2^{int(np.log2(lattice.grid))} = {step}, a sensitivity of {units}, {noise}, and "
        f"ε = {round_up(lattice.epsilon):g} (at most the float mechanism's {lattice.source.epsilon:g}), δ = 0"
    )
