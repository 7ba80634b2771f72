"""The Learning page's noisy gradient descent view: its controls (``lrn_ngd_*``) and its four parts, the training
run with its cost under every accounting and its release, gradient against example clipping, the best number of
iterations T at a fixed ε, and the accuracy against ε; below them, the Publish section (``lrn_pub_*``,
:mod:`explorer.learning_publish`), the one view of the page that publishes a model.

σ comes from :func:`dpcore.learning.noisy_gd_noise`; every run and sweep from :mod:`explorer.training`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from dpcore import learning
from explorer import budget, charts, learning_publish, state, training, widgets
from explorer.learning_layout import (
    CLIPS,
    RATES,
    accuracy_metrics,
    band,
    downloads,
    pct,
    release_label,
    show_table,
)
from explorer.training import Task

__all__ = [
    "NGD_ITERATIONS",
    "NGD_PARTS",
    "NGD_SALT",
    "NGDSettings",
    "ngd_controls",
    "ngd_view",
    "ngd_run",
    "ngd_training",
    "ngd_clipping",
    "ngd_sweep_part",
    "ngd_frontier_part",
]

NGD_ITERATIONS = (1, 2, 5, 10, 20, 50, 100, 200)


@dataclass(frozen=True)
class NGDSettings:
    epsilon: float
    delta: float
    iterations: int
    clip: float
    lr: float
    accounting: str
    clipping: str

    def run_settings(self, clipping: str | None = None) -> dict:
        """The arguments of :func:`dpcore.learning.noisy_gradient_descent` (through the release function)."""
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "iterations": self.iterations,
            "clip": self.clip,
            "learning_rate": self.lr,
            "accounting": self.accounting,
            "clipping": clipping or self.clipping,
            "history_every": training.record_every(self.iterations),
        }


def ngd_controls() -> NGDSettings:
    c1, c2, c3 = st.columns([1.4, 1, 1])
    with c1:
        eps = widgets.epsilon_slider(
            "lrn_ngd_epsilon",
            label="ε for the whole training",
            default=training.DEFAULT_EPSILON,
            help="The total privacy loss of the released model, all iterations together.",
        )
    with c2:
        delta = widgets.delta_slider("lrn_ngd_delta")
    with c3:
        iterations = widgets.bound(
            st.select_slider,
            "Iterations T",
            NGD_ITERATIONS,
            value=20,
            key="lrn_ngd_iterations",
            bind="query-params",
            help="Each iteration releases one noisy gradient sum; the budget is split over all of them.",
        )
    c1, c2, c3, c4 = st.columns([1, 1, 1, 1.4])
    clip = widgets.bound(
        c1.select_slider,
        "Clipping norm C",
        CLIPS,
        value=2.0,
        key="lrn_ngd_clip",
        bind="query-params",
        help="Each example's gradient (or row) is scaled to norm at most C: the sensitivity of the gradient sum.",
    )
    lr = widgets.bound(
        c2.select_slider,
        "Step size η",
        RATES,
        value=2.0,
        key="lrn_ngd_lr",
        bind="query-params",
        help="The gradient step.",
    )
    with c3:
        accounting = widgets.select(
            "Calibrate σ with",
            list(training.NGD_ACCOUNTINGS),
            "lrn_ngd_accounting",
            "The accounting that sets the noise so that T iterations cost ε in total. The exact Gaussian accountant "
            "is the tightest (μ-GDP, Dong, Roth, Su 2019); the others ask for more noise for the same ε.",
        )
    with c4:
        clipping = widgets.bound(
            st.radio,
            "Clip each example's",
            ("gradient", "example"),
            horizontal=True,
            key="lrn_ngd_clipping",
            bind="query-params",
            help="Clip every per-example gradient to norm C at every step, or scale every row (x, 1) to norm C once. "
            "The second part below trains both side by side.",
        )
    return NGDSettings(
        eps, delta, int(iterations), float(clip), float(lr), training.NGD_ACCOUNTINGS[accounting], clipping
    )


NGD_PARTS = ("Training run", "Gradient or example clipping", "Best T at this ε", "Accuracy against ε")


def ngd_view(t: Task) -> None:
    s = ngd_controls()
    noise = learning.noisy_gd_noise(s.epsilon, s.delta, s.iterations, s.clip, accounting=s.accounting)
    parts = widgets.tabs(NGD_PARTS, "lrn_ngd_part", name="Part of noisy gradient descent")
    for part, draw in zip(parts, (ngd_training, ngd_clipping, ngd_sweep_part, ngd_frontier_part)):
        if part.open:
            with part:
                draw(t, s, noise)
    learning_publish.section(t, s.epsilon, s.delta, s.iterations, s.clip, s.lr, s.clipping)


NGD_SALT = "learning-ngd"


def ngd_run(t: Task, s: NGDSettings, clipping: str | None = None) -> dict:
    settings = s.run_settings(clipping)
    return training.train(
        t.key, "noisy gradient descent", settings, tuple(state.seed_words(NGD_SALT)), t.draws, t.features
    )


def ngd_training(t: Task, s: NGDSettings, noise) -> None:
    run = ngd_run(t, s)
    if run is None:  # computed in the server's pool: the page shows where it is, and the rerun spends nothing more
        return  # (the model without privacy is only shown beside it: asked for once the run is back)
    plain = training.nonprivate(t.key, s.iterations, s.lr, t.features)
    if plain is None:
        return
    base = training.baseline(t)
    left, right = st.columns([1.7, 1])
    left.plotly_chart(
        charts.band_curves(
            {
                f"private, {s.clipping} clipping (line: mean; band: min to max of {t.draws} draws)": band(
                    training.spread(run["history"])
                ),
                "non-private (no clipping, no noise)": band(training.spread(plain))
                | {"low": None, "high": None, "colour": 2},
            },
            f"Test accuracy, noisy gradient descent at ε = {s.epsilon:g}, δ = {s.delta:.0e} "
            "(held-out rows, for teaching)",
            "iteration",
            "test accuracy",
            y_format=".1%",
            hlines=[(base, f"majority baseline {base:.1%}")],
        ),
        key="lrn_ngd_history",
    )
    n = t.n_train
    accuracy_metrics(
        run["accuracy"],
        float(plain["test_accuracy"].iloc[-1]),
        base,
        right,
        (noise.sigma, n * s.clip, f"{n:,} clipped gradients of norm ≤ {s.clip:g}"),
        (s.iterations, s.lr),
    )
    right.metric(
        "Noise σ on each gradient sum",
        f"{noise.sigma:,.4g}",
        f"{noise.releases} Gaussian releases, Δ = C = {noise.sensitivity:g}",
        delta_color="off",
        delta_arrow="off",
        help="T noisy gradient sums and one noisy count of the rows (the same μ = Δ/σ), calibrated by "
        f"the {budget.accounting_name(s.accounting)} accounting.",
    )

    table, curve = training.ngd_costs(s.epsilon, s.delta, s.iterations, s.clip, s.accounting)
    st.subheader("What the run costs, by accounting")
    left, right = st.columns([1, 1.2])
    show_table(left, table, "{:,.4g}")
    left.caption(
        f"The same {noise.releases} Gaussian releases of sensitivity {noise.sensitivity:g} counted five ways. "
        f"{BASIC.capitalize()} composition adds the ε of each release; advanced composition (Dwork, Rothblum, Vadhan 2010) "
        f"grows like √T but starts higher: {_advanced_against_sequential(curve, s.iterations)}; zCDP and RDP add "
        "curves; the exact accountant (Dong, Roth, Su 2019) is the tightest bound there is for Gaussian noise "
        "(a PLD would match it)."
    )
    cap = float(curve.loc[curve["method"] == "exact", "epsilon"].max()) * 30
    pairs = curve[["method", "conversion"]].drop_duplicates().itertuples(index=False)
    names = {(m, c): budget.accounting_name(m, c) for m, c in pairs}  # the one map's names, as on the Accountant
    right.plotly_chart(
        charts.xy_curves(
            {names[key]: (g["k"] - 1, g["epsilon"]) for key, g in curve.groupby(["method", "conversion"], sort=False)},
            s.iterations,
            f"ε spent after each iteration at this σ (δ = {s.delta:.0e})",
            "iterations done (the noisy count is spent before the first)",
            "ε (log)",
            log_x=False,
            log_y=True,
            current_label=f"T = {s.iterations}",
            y_max=cap,
            dashed=(budget.accounting_name("exact"),),
            colours={name: charts.accounting_colour(name) for name in names.values()},  # the Accountant's
        ),
        key="lrn_ngd_cost",
    )

    st.subheader("Simulated release")
    left, right = st.columns([1.2, 1])
    count = float(np.atleast_1d(run["details"]["noisy_count"])[0])
    left.markdown(
        f"The simulated release is draw 1: {t.features.X_train.shape[1] + 1} weights, (ε = {run['epsilon']:.4g}, "
        f"δ = {run['delta']:.0e})-DP for adding or removing one example. It divided every gradient sum by a noisy "
        f"count of the rows, {count:,.1f} (the true count, {t.n_train:,}, is not released)."
    )
    history = training.tidy_history(**{f"private, {s.clipping} clipping": run["history"], "non-private": plain})
    label = release_label(t, run, "noisy gradient descent", noise.mechanism)
    downloads(
        t,
        run,
        history,
        "noisy gradient descent",
        s.run_settings(),
        state.seed_words(NGD_SALT),
        "noisy_gd",
        right,
        label,
    )
    with right:
        budget.record_release(
            noise.mechanism,
            count=noise.releases,
            label=f"Noisy GD, {s.clipping} clipping, T = {s.iterations}, ε = {s.epsilon:g} ({t.target})",
            key="lrn_ngd",
        )


def ngd_clipping(t: Task, s: NGDSettings, noise) -> None:
    runs = {mode: ngd_run(t, s, mode) for mode in ("gradient", "example")}
    if any(run is None for run in runs.values()):  # computed in the server's pool: the page shows where it is
        return
    base = training.baseline(t)
    left, right = st.columns([1.7, 1])
    left.plotly_chart(
        charts.band_curves(
            {
                f"gradient clipping (line: mean; band: min to max of {t.draws} draws)": band(
                    training.spread(runs["gradient"]["history"])
                ),
                "example clipping": band(training.spread(runs["example"]["history"]), dash=True, colour=1),
            },
            f"The same C = {s.clip:g} and σ = {noise.sigma:.4g}, two ways (ε = {s.epsilon:g})",
            "iteration",
            "test accuracy",
            y_format=".1%",
            hlines=[(base, f"majority baseline {base:.1%}")],
        ),
        key="lrn_ngd_clipping_chart",
    )
    clipped = runs["gradient"]["history"].groupby("step")["clipped_fraction"].mean().dropna()
    rows = learning.add_intercept(t.features.X_train)
    scaled = float(np.mean(np.linalg.norm(rows, axis=1) > s.clip))
    acc = {mode: r["accuracy"] for mode, r in runs.items()}
    right.metric("Gradient clipping, test accuracy", pct(acc["gradient"].mean()))
    right.metric("Example clipping, test accuracy", pct(acc["example"].mean()))
    right.markdown(
        f"Both add a vector of norm at most C = {s.clip:g} per example to each gradient sum, so both have "
        f"sensitivity C and get the same noise.\n\n"
        f"- **Gradient clipping** scales each per-example gradient to norm ≤ C at every step: "
        f"{clipped.iloc[0]:.0%} of the gradients at the first step, {clipped.iloc[-1]:.0%} at the last recorded one.\n"
        f"- **Example clipping** scales each row (x, 1) to norm ≤ C once, before training: {scaled:.0%} of the rows "
        "are scaled down, and since a logistic-loss gradient is never longer than its row, no gradient exceeds C. "
        "Mind the intercept's 1: it is part of the row that is scaled."
    )
    diff = 100 * (acc["gradient"].mean() - acc["example"].mean())
    better = "gradient" if diff > 0 else "example"
    lead = (
        f"{better} clipping is ahead by {abs(diff):.1f} points"
        if round(abs(diff), 1)
        else "the two are level (within 0.05 points)"  # not "ahead by 0.0 points" beside two equal accuracies
    )
    st.caption(
        f"Here {lead} at these settings (mean of {t.draws} draws). "
        "Example clipping shrinks the rows themselves, which also shrinks the step; gradient clipping biases only "
        "the examples it clips. Try C = 0.5 and C = 8."
    )


#: Basic composition's name (the ε's add up), as every page names it.
BASIC = budget.accounting_name("basic")


def _advanced_against_sequential(curve, iterations: int) -> str:
    """Where advanced composition drops below basic composition on the chart, said from its numbers (issue 13: no trend
    stated that the chart contradicts)."""
    by = {m: g.set_index("k")["epsilon"] for m, g in curve.groupby("method")}
    below = by["advanced"] < by["basic"]
    if below.all():
        return f"here it is below {BASIC} composition at every iteration"
    if not below.any():
        return f"at this σ it stays above {BASIC} composition for every T up to {iterations}"
    first = int(below[below].index.min()) - 1  # k counts the noisy count as the first release
    return f"here it drops below {BASIC} composition from T = {first}"


def ngd_sweep_part(t: Task, s: NGDSettings, noise) -> None:
    base = training.baseline(t)
    found = training.ngd_sweep(
        t.key,
        s.epsilon,
        s.delta,
        s.clip,
        s.lr,
        s.clipping,
        s.accounting,
        t.draws,
        tuple(state.seed_words(NGD_SALT + "-sweep")),
        t.features,
    )
    if found is None:  # computed in the server's pool: the page shows where it is
        return
    summary, best = found
    rows = summary.set_index("iterations")
    left, right = st.columns([1.7, 1])
    left.plotly_chart(
        charts.band_curves(
            {
                f"private, ε = {s.epsilon:g} in total (band: min to max of {t.draws} draws)": {
                    "x": rows.index,
                    "y": rows["mean_accuracy"],
                    "low": rows["min_accuracy"],
                    "high": rows["max_accuracy"],
                }
            },
            f"At a fixed ε = {s.epsilon:g}: test accuracy against T (σ recalibrated for each T)",
            "iterations T (log)",
            "test accuracy",
            y_format=".1%",
            log_x=True,
            marks=[(best, f"best T = {best}"), (s.iterations, f"your T = {s.iterations}")],
            hlines=[(base, "majority baseline")],
        ),
        key="lrn_ngd_sweep",
    )
    right.metric(
        "Best T at this ε",
        f"{best}",
        f"test accuracy {rows.loc[best, 'mean_accuracy']:.1%}",
        delta_color="off",
        delta_arrow="off",
    )
    first, last = training.SWEEP_ITERATIONS[0], training.SWEEP_ITERATIONS[-1]
    if best in (first, last):
        why = (  # a lower ε moves the best T down (each step noisier), a higher one up
            "more iterations still help at this ε: the noise is small next to the gradient. Lower ε to see an "
            "optimum inside"
            if best == last
            else "at this ε, splitting the budget over more iterations drowns each step in noise. Raise ε (or train "
            "on more rows) to see an optimum inside"
        )
        right.markdown(f"The best T of the sweep is at its edge, T = {best}: {why}.")
    else:
        right.markdown(
            f"At ε = {s.epsilon:g} the best number of iterations is **T = {best}** "
            f"({rows.loc[best, 'mean_accuracy']:.1%}), above both T = {first} ({rows['mean_accuracy'].iloc[0]:.1%}) "
            f"and T = {last} ({rows['mean_accuracy'].iloc[-1]:.1%}). Few iterations underfit; many split the same "
            "budget so thin that each step drowns in noise: σ grows like √(T + 1)."
        )
    sigmas = rows["sigma"]
    right.caption(
        f"σ for T = {first}: {sigmas.iloc[0]:,.4g}; for T = {last}: {sigmas.iloc[-1]:,.4g}. Choosing T by this curve "
        "reads the test rows, so the choice itself is not covered by ε (Papernot & Steinke 2022): fix T in "
        "advance, or choose it on public data."
    )


def ngd_frontier_part(t: Task, s: NGDSettings, noise) -> None:
    base = training.baseline(t)
    run = ngd_run(t, s)
    frontier = training.ngd_frontier(
        t.key,
        s.delta,
        s.iterations,
        s.clip,
        s.lr,
        s.clipping,
        s.accounting,
        t.draws,
        tuple(state.seed_words(NGD_SALT + "-frontier")),
        t.features,
    )
    if run is None or frontier is None:  # computed in the server's pool: the page shows where it is
        return
    fr = frontier.set_index("epsilon")
    left, right = st.columns([1.7, 1])
    left.plotly_chart(
        charts.band_curves(
            {
                f"private, T = {s.iterations} (band: min to max of {t.draws} draws)": {
                    "x": fr.index,
                    "y": fr["mean_accuracy"],
                    "low": fr["min_accuracy"],
                    "high": fr["max_accuracy"],
                },
                "this run": {"x": [s.epsilon], "y": [run["accuracy"].mean()], "colour": 1},
            },
            f"Test accuracy against ε, T = {s.iterations}: the privacy–utility frontier",
            "ε for the whole training (log)",
            "test accuracy",
            y_format=".1%",
            log_x=True,
            marks=[(s.epsilon, f"your ε = {s.epsilon:g}")],
            hlines=[(base, "majority baseline")],
        ),
        key="lrn_ngd_frontier",
    )
    means = fr["mean_accuracy"]
    low, high = means.iloc[0], means.max()
    plateau = means.index[means >= high - 0.005][0]  # the first ε within half a point of the best
    right.metric("This run", pct(run["accuracy"].mean()), f"ε = {s.epsilon:g}", delta_color="off", delta_arrow="off")
    right.markdown(
        f"At ε = {training.FRONTIER_EPS[0]:g} the model reaches {low:.1%}, {100 * (low - base):+.1f} points from the "
        f"majority baseline. From ε = {plateau:g} on, every ε of the grid is within half a point of the best "
        f"({high:.1%}): past that, more ε buys little at T = {s.iterations}."
    )
