"""Learning: a logistic regression trained with differential privacy on the active dataset.

Three views, each a tab that runs only when open: noisy gradient descent (full batch, σ calibrated to a
total (ε, δ) under a chosen accounting; its cost under every accounting; gradient against example
clipping; the interior optimum of the number of iterations at a fixed ε), DP-SGD (a planner from
dataset size, batch size, epochs and a target (ε, δ) to the noise multiplier; RDP and PLD against the
steps) and DP-FedAvg (client-level privacy, and the tutorial recipe whose guarantee does not hold).
Every number comes from ``dpcore.learning`` and ``dpcore.accounting``; the features are prepared by
``explorer.features`` (their scaling statistics are read from the data, not privately). Each view is
split into parts (nested tabs that also run only when open), and the training runs are cached on plain
arguments in ``explorer.training``, so a slider move recomputes one thing.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import learning
from dpcore.accounting import PoissonSampledGaussian
from explorer import budget, charts, frame, snippets, state, training, widgets
from explorer.columns import is_numeric
from explorer.export import to_safe_csv
from explorer.markup import md, sentence
from explorer.training import Task

VIEWS = ("Noisy gradient descent", "DP-SGD", "Federated averaging")
DRAW_CHOICES = (2, 3, 5, 10)
NGD_ITERATIONS = (1, 2, 5, 10, 20, 50, 100, 200)
CLIPS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
RATES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: Rounds and local steps this page trains at most (time, not privacy).
MAX_ROUNDS = 100
MAX_LOCAL_STEPS = 20
#: Steps this page plans or trains at most: the accountant's and the training's time grow with T.
MAX_PLAN_STEPS = 50_000
MAX_TRAIN_STEPS = 2_000
DPSGD_CALIBRATIONS = {
    "PLD": ("pld", "balle"),
    "RDP": ("rdp", "balle"),
    "RDP, classic conversion": ("rdp", "mironov"),
}
ASSUMED_SENSITIVITIES = (0.001, 0.01, 0.1, 1.0)


def _pct(x: float) -> str:
    return f"{x:.2%}"


def _text(value) -> str:
    """A target value as ``explorer.features`` names it (1.0 is "1")."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# --------------------------------------------------------------------------- the task: target, label, features


def task() -> Task | None:
    ds = state.dataset()
    cols = [str(c) for c in ds.frame.columns]
    c1, c2, c3, c4 = st.columns([1, 1, 1.8, 0.8])
    with c1:
        target = widgets.select(
            "Predict (target column)",
            cols,
            "lrn_target",
            "A column with two values, or a numeric column cut at a threshold. The model predicts it from the others.",
            index=cols.index(training.default_target(ds.frame)),
        )
    series = ds.frame[target]
    label: dict = {}
    with c2:
        if is_numeric(series) and series.nunique(dropna=True) > 2:
            median = float(np.nanmedian(series.to_numpy(dtype=float, na_value=np.nan)))
            label["threshold"] = st.number_input(
                "Label 1 when above",
                value=median,
                key=f"lrn_threshold_{target}",
                bind="query-params",
                help="The default, the median, is read from the data: it is not private.",
            )
        else:
            values = series.dropna()
            values = values if is_numeric(series) else values.astype(str).str.strip()
            counts = values[values != ""].value_counts()
            options = [_text(v) for v in counts.index[:50]]  # most common first
            label["positive"] = widgets.select(
                "Label 1 means",
                options,
                f"lrn_positive_{target}",
                "The class the model predicts as 1; by default the rarer of two.",
                index=1 if len(options) == 2 else 0,
            )
    with c3:
        left_out = st.multiselect(
            "Leave out columns",
            cols,
            default=[],
            key="lrn_leave_out",
            bind="query-params",
            help="Every other column is a feature: numeric ones standardized, categorical ones one-hot encoded; "
            "identifier-like and constant columns are skipped.",
        )
    with c4:
        draws = st.select_slider(
            "Noise draws",
            DRAW_CHOICES,
            value=3,
            key="lrn_draws",
            bind="query-params",
            help="Independent noise draws trained at once, to show the spread. Each is a separate private run; "
            "the release is draw 1.",
        )
    columns = tuple(c for c in cols if c != target and c not in left_out)
    split_seed = tuple(state.seed_words("learning-split"))
    positive, threshold = label.get("positive"), label.get("threshold")
    try:
        f = training.prepared(state.dataset_key(), target, positive, threshold, columns, split_seed, ds.frame)
    except ValueError as exc:
        st.error(md(sentence(exc)))
        return None
    st.caption(md(f.description) + (" " + " ".join(md(n) for n in f.notes) if f.notes else ""))
    key = (state.dataset_key(), target, positive, threshold, columns, split_seed)
    return Task(key, f, target, label, columns, split_seed, int(draws))


def assumptions() -> None:
    with st.expander("What is protected, and what is not", icon=":material/shield:"):
        st.markdown(
            "- **Neighbouring relation.** Noisy gradient descent and DP-SGD are (ε, δ)-DP for **adding or removing "
            "one example** (one row of the training set). DP-FedAvg is (ε, δ)-DP for **adding or removing one "
            "client** with all of its rows: client-level privacy.\n"
            "- **Not private: the preparation.** The means and standard deviations that scale the numeric columns, "
            "the category lists, a median threshold and the majority label are read from the data without noise, "
            "as the clipping bounds on the other pages are. A real release fixes them from public knowledge.\n"
            "- **Not a release: the accuracy curves.** Every accuracy on this page is computed on held-out test rows "
            "for teaching. Looking at them to choose T, C or the step size is itself a use of the data that the "
            "(ε, δ) does not cover.\n"
            "- **What is released:** the weights of one noise draw (draw 1), and nothing else. Each draw is a "
            "separate private run; publishing several would compose."
        )


# --------------------------------------------------------------------------- shared pieces


def band(table: pd.DataFrame, x: str = "step", scale: float = 1.0, **extra) -> dict:
    return {"x": table[x] * scale, "y": table["mean"], "low": table["low"], "high": table["high"], **extra}


def accuracy_metrics(acc: np.ndarray, plain: float, base: float, where, noise: tuple[float, float, str]) -> None:
    """The private model's accuracy (mean and range over the draws), the non-private one's and the baseline's.

    ``noise``: the noise std on each released sum, the largest that sum can be, and what the sum adds up; said in
    one sentence when the private model does not beat the baseline.
    """
    where.metric(
        "Private model, test accuracy",
        _pct(acc.mean()),
        f"{acc.min():.1%} to {acc.max():.1%} over {acc.size} draws",
        delta_color="off",
        delta_arrow="off",
        help="Mean over the noise draws, on the held-out test rows (for teaching, not a release).",
    )
    where.metric("Non-private, test accuracy", _pct(plain))
    where.metric(
        "Majority baseline",
        _pct(base),
        f"private model {100 * (acc.mean() - base):+.1f} points",
        delta_color="off",
        delta_arrow="off",
        help="Always predict the most common training label. A model that does not beat it learnt nothing.",
    )
    if acc.mean() <= base:
        std, largest, what = noise
        where.warning(
            f"Here the private model does not beat the majority baseline: the noise on each sum (std {std:,.4g}) is "
            f"{std / largest:,.3g}× the largest that sum can be ({largest:,.4g}, {what}). Raise ε, or train on more "
            "rows.",
            icon=":material/warning:",
        )


def show_table(where, table: pd.DataFrame, number: str, skip: int = 1) -> None:
    """A small table with its numbers formatted as text (a pandas Styler costs ~50 ms a rerun to send)."""
    shown = table.copy()
    for column in shown.columns[skip:]:
        shown[column] = [number.format(v) for v in shown[column]]
    where.dataframe(shown, hide_index=True, width="stretch")


def downloads(t: Task, run: dict, history: pd.DataFrame, method: str, settings: dict, seed, name: str, where) -> None:
    where.download_button(
        "Release: weights and ε (CSV)",
        to_safe_csv(run["release"]),
        file_name=f"learning_{name}_release.csv",
        mime="text/csv",
        help="What one would publish: the weights of draw 1 and the (ε, δ) they cost. No accuracy, no data.",
    )
    where.download_button(
        "Teaching table: accuracy history (CSV)",
        to_safe_csv(history),
        file_name=f"learning_{name}_history.csv",
        mime="text/csv",
        help="Loss and accuracies at each recorded step, every draw: read from the data, never publish it.",
    )
    code = snippets.private_model(
        state.dataset(), t.target, t.label, t.columns, t.split_seed, method, settings, seed, t.draws
    )
    where.download_button("Python snippet", code, file_name=f"learning_{name}.py", mime="text/x-python")


def epsilon_steps_chart(curves: pd.DataFrame, steps: int, delta: float, title: str, x_title: str, key: str) -> None:
    series = {name: (curves["steps"], curves[name]) for name in curves.columns[1:]}
    values = curves.iloc[:, 1:].to_numpy()
    wide = values.max() > 10 * values.min()  # a log axis over less than a decade shows a single tick
    st.plotly_chart(
        charts.xy_curves(
            series,
            steps,
            title,
            x_title,
            f"ε at δ = {delta:.0e}" + (" (log)" if wide else ""),
            log_x=True,
            log_y=wide,
            current_label=f"this run: {steps:,}",
            dashed=("PLD",),
        ),
        key=key,
    )


# --------------------------------------------------------------------------- noisy gradient descent


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
            default=0.03,
            help="The total privacy loss of the released model, all iterations together.",
        )
    with c2:
        delta = widgets.delta_slider("lrn_ngd_delta")
    with c3:
        iterations = st.select_slider(
            "Iterations T",
            NGD_ITERATIONS,
            value=20,
            key="lrn_ngd_iterations",
            bind="query-params",
            help="Each iteration releases one noisy gradient sum; the budget is split over all of them.",
        )
    c1, c2, c3, c4 = st.columns([1, 1, 1, 1.4])
    clip = c1.select_slider(
        "Clipping norm C",
        CLIPS,
        value=2.0,
        key="lrn_ngd_clip",
        bind="query-params",
        help="Each example's gradient (or row) is scaled to norm at most C: the sensitivity of the gradient sum.",
    )
    lr = c2.select_slider(
        "Step size η", RATES, value=2.0, key="lrn_ngd_lr", bind="query-params", help="The gradient step."
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
        clipping = st.radio(
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
    parts = st.tabs(list(NGD_PARTS), key="lrn_ngd_part", bind="query-params")
    for part, draw in zip(parts, (ngd_training, ngd_clipping, ngd_sweep_part, ngd_frontier_part)):
        if part.open:
            with part:
                draw(t, s, noise)


NGD_SALT = "learning-ngd"


def ngd_run(t: Task, s: NGDSettings, clipping: str | None = None) -> dict:
    settings = s.run_settings(clipping)
    return training.train(
        t.key, "noisy gradient descent", settings, tuple(state.seed_words(NGD_SALT)), t.draws, t.features
    )


def ngd_training(t: Task, s: NGDSettings, noise) -> None:
    run = ngd_run(t, s)
    plain = training.nonprivate(t.key, s.iterations, s.lr, t.features)
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
    )
    right.metric(
        "Noise σ on each gradient sum",
        f"{noise.sigma:,.4g}",
        f"{noise.releases} Gaussian releases, Δ = C = {noise.sensitivity:g}",
        delta_color="off",
        delta_arrow="off",
        help="T noisy gradient sums and one noisy count of the rows (the same μ = Δ/σ), calibrated by "
        f"the {s.accounting} accounting.",
    )

    table, curve = training.ngd_costs(s.epsilon, s.delta, s.iterations, s.clip, s.accounting)
    st.subheader("What the run costs, by accounting")
    left, right = st.columns([1, 1.2])
    show_table(left, table, "{:,.4g}")
    left.caption(
        f"The same {noise.releases} Gaussian releases of sensitivity {noise.sensitivity:g} counted five ways. "
        "Sequential composition adds the ε of each release; advanced composition (Dwork, Rothblum, Vadhan 2010) "
        "grows like √T; zCDP and RDP add curves; the exact accountant (Dong, Roth, Su 2019) is the tightest bound "
        "there is for Gaussian noise (a PLD would match it)."
    )
    cap = float(curve.loc[curve["method"] == "exact", "epsilon"].max()) * 30
    right.plotly_chart(
        charts.xy_curves(
            {COST_NAMES[m]: (g["k"] - 1, g["epsilon"]) for m, g in curve.groupby("method", sort=False)},
            s.iterations,
            f"ε spent after each iteration at this σ (δ = {s.delta:.0e})",
            "iterations done (the noisy count is spent before the first)",
            "ε (log)",
            log_x=False,
            log_y=True,
            current_label=f"T = {s.iterations}",
            y_max=cap,
            dashed=(COST_NAMES["exact"],),
        ),
        key="lrn_ngd_cost",
    )

    st.subheader("Release")
    left, right = st.columns([1.2, 1])
    count = float(np.atleast_1d(run["details"]["noisy_count"])[0])
    left.markdown(
        f"The released model is draw 1: {t.features.X_train.shape[1] + 1} weights, (ε = {run['epsilon']:.4g}, "
        f"δ = {run['delta']:.0e})-DP for adding or removing one example. It divided every gradient sum by a noisy "
        f"count of the rows, {count:,.1f} (the true count, {t.n_train:,}, is not released)."
    )
    history = training.tidy_history(**{f"private, {s.clipping} clipping": run["history"], "non-private": plain})
    downloads(
        t, run, history, "noisy gradient descent", s.run_settings(), state.seed_words(NGD_SALT), "noisy_gd", right
    )
    with right:
        budget.record_release(
            noise.mechanism,
            count=noise.releases,
            label=f"Noisy GD, {s.clipping} clipping, T = {s.iterations}, ε = {s.epsilon:g} ({t.target})",
            key="lrn_ngd",
        )


COST_NAMES = {
    "basic": "sequential",
    "advanced": "advanced",
    "zcdp": "zCDP",
    "rdp": "RDP",
    "exact": "exact (μ-GDP)",
    "rdp, classic conversion": "RDP, classic conversion",
}


def ngd_clipping(t: Task, s: NGDSettings, noise) -> None:
    runs = {mode: ngd_run(t, s, mode) for mode in ("gradient", "example")}
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
    right.metric("Gradient clipping, test accuracy", _pct(acc["gradient"].mean()))
    right.metric("Example clipping, test accuracy", _pct(acc["example"].mean()))
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
    st.caption(
        f"Here {better} clipping is ahead by {abs(diff):.1f} points at these settings (mean of {t.draws} draws). "
        "Example clipping shrinks the rows themselves, which also shrinks the step; gradient clipping biases only "
        "the examples it clips. Try C = 0.5 and C = 8."
    )


def ngd_sweep_part(t: Task, s: NGDSettings, noise) -> None:
    base = training.baseline(t)
    summary, best = training.ngd_sweep(
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
        why = (
            "more iterations still help at this ε: the noise is small next to the gradient"
            if best == last
            else "even one iteration leaves too little signal at this ε"
        )
        right.markdown(f"The best T of the sweep is at its edge, T = {best}: {why}. Lower ε to see an optimum inside.")
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
    right.metric("This run", _pct(run["accuracy"].mean()), f"ε = {s.epsilon:g}", delta_color="off", delta_arrow="off")
    right.markdown(
        f"At ε = {training.FRONTIER_EPS[0]:g} the model reaches {low:.1%}, {100 * (low - base):+.1f} points from the "
        f"majority baseline. From ε = {plateau:g} on, every ε of the grid is within half a point of the best "
        f"({high:.1%}): past that, more ε buys little at T = {s.iterations}."
    )


# --------------------------------------------------------------------------- DP-SGD


@dataclass(frozen=True)
class SGDSettings:
    epsilon: float
    delta: float
    calibration: str
    n: int | None
    batch: int
    epochs: float
    clip: float
    lr: float

    def plan(self, n: int, limit: int, verb: str):
        """The plan for n examples; refused in one sentence when it has more than ``limit`` steps (time, not privacy)."""
        if n >= 1 and self.batch >= 1 and self.epochs > 0 and self.epochs * n / self.batch > limit:
            raise ValueError(
                f"{self.epochs:g} epochs of {n:,} examples in batches of {self.batch:,} are about "
                f"{self.epochs * n / self.batch:,.0f} steps; this page will {verb} at most {limit:,}: raise the batch "
                "size or lower the epochs"
            )
        method, conversion = DPSGD_CALIBRATIONS[self.calibration]
        return training.planned(n, self.batch, self.epochs, self.epsilon, self.delta, method, conversion)


def sgd_controls(t: Task) -> SGDSettings:
    c1, c2, c3 = st.columns([1.4, 1, 1])
    with c1:
        eps = widgets.epsilon_slider("lrn_sgd_epsilon", label="Target ε for the whole training", default=1.0)
    with c2:
        delta = widgets.delta_slider("lrn_sgd_delta")
    with c3:
        calibration = widgets.select(
            "Calibrate σ with",
            list(DPSGD_CALIBRATIONS),
            "lrn_sgd_calibration",
            "The accountant that finds the smallest noise multiplier for the target. PLD is the tightest; RDP with "
            "the classic conversion (Mironov 2017) is what the papers of 2016–2019 report.",
        )
    c1, c2, c3, c4, c5 = st.columns(5)
    n_plan = c1.number_input(
        "Dataset size n",
        value=None,
        step=1000,
        placeholder=f"{t.n_train:,}",
        key="lrn_sgd_n",
        bind="query-params",
        help=f"For the planner. Empty: this dataset's {t.n_train:,} training rows. Or plan for another size.",
    )
    batch = c2.number_input(
        "Expected batch size B",
        value=256,
        step=32,
        key="lrn_sgd_batch",
        bind="query-params",
        help="Each example joins each batch independently with probability q = B / n.",
    )
    epochs = c3.number_input(
        "Epochs E",
        value=1.0,
        step=0.5,
        key="lrn_sgd_epochs",
        bind="query-params",
        help="Passes over the data: T = ⌈E n / B⌉ steps.",
    )
    clip = c4.select_slider(
        "Clipping norm C",
        CLIPS,
        value=1.0,
        key="lrn_sgd_clip",
        bind="query-params",
        help="Each per-example gradient is clipped to norm C; the noise on the sum is σ·C.",
    )
    lr = c5.select_slider("Step size η", RATES, value=2.0, key="lrn_sgd_lr", bind="query-params")
    n = None if n_plan is None else int(n_plan)
    return SGDSettings(eps, delta, calibration, n, int(batch), float(epochs), float(clip), float(lr))


SGD_PARTS = ("Planner", "Training run", "Accuracy against ε")
SGD_SALT = "learning-sgd"


def sgd_view(t: Task) -> None:
    s = sgd_controls(t)
    parts = st.tabs(list(SGD_PARTS), key="lrn_sgd_part", bind="query-params")
    replanned = s.n not in (None, t.n_train)
    if parts[0].open:
        with parts[0]:
            sgd_planner(t, s, s.plan(t.n_train if s.n is None else s.n, MAX_PLAN_STEPS, "plan"))
    if parts[1].open:
        with parts[1]:
            sgd_training(t, s, s.plan(t.n_train, MAX_TRAIN_STEPS, "train"), replanned)
    if parts[2].open:
        with parts[2]:
            sgd_frontier_part(t, s, s.plan(t.n_train, MAX_TRAIN_STEPS, "train"))


def sgd_planner(t: Task, s: SGDSettings, plan) -> None:
    a, b, c, d = st.columns(4)
    a.metric("Noise multiplier σ", f"{plan.noise_multiplier:.4f}", help="The noise std on the clipped sum is σ·C.")
    b.metric(
        "Sampling rate q = B / n",
        f"{plan.sampling_rate:.4g}",
        f"n = {plan.dataset_size:,}",
        delta_color="off",
        delta_arrow="off",
    )
    c.metric("Steps T = ⌈E n / B⌉", f"{plan.steps:,}")
    d.metric("Noise std on the sum, σ·C", f"{plan.noise_std(s.clip):.4g}")
    table = pd.DataFrame(
        {
            "accountant": [
                "PLD (tightest)",
                "RDP (Balle et al. 2020 conversion)",
                "RDP, classic conversion (Mironov 2017)",
            ],
            "ε for this σ": [
                plan.epsilon_pld,
                plan.epsilon_rdp_balle,
                plan.epsilon_rdp_mironov,
            ],
        }
    )
    left, right = st.columns([1, 1.3])
    show_table(left, table, "{:.4f}")
    looser = max(plan.epsilon_rdp_balle, plan.epsilon_rdp_mironov)
    left.markdown(
        f"Calibrated with {s.calibration}: σ = {plan.noise_multiplier:.4f} is the smallest noise multiplier for "
        f"which {plan.steps:,} steps at q = {plan.sampling_rate:.4g} cost ε = {s.epsilon:g} at δ = {s.delta:.0e} "
        f"under that accountant. The same run is ε = {plan.epsilon_pld:.4g} by the PLD and "
        f"{plan.epsilon_rdp_mironov:.4g} by RDP with the classic conversion: {looser / plan.epsilon_pld:.2f}× as much "
        "for the same noise."
    )
    left.info(
        "**The guarantee is for Poisson sampling**: at every step each example joins the batch independently with "
        "probability q, so batch sizes vary. Shuffled fixed-size batches, what most training loops do, are not "
        "covered by this analysis.",
        icon=":material/info:",
    )
    curves = training.dpsgd_curves(plan.noise_multiplier, plan.sampling_rate, plan.steps, s.delta)
    with right:
        epsilon_steps_chart(
            curves,
            plan.steps,
            s.delta,
            f"ε against the steps, σ = {plan.noise_multiplier:.3f}, q = {plan.sampling_rate:.3g}",
            "steps (log)",
            "lrn_sgd_curves",
        )
    published = training.published_setting()
    right.caption(
        "To recognise a published figure: Abadi et al. (2016) report ε = 1.26 for q = 0.01, σ = 4, T = 10,000, "
        f"δ = 1e-5 (moments accountant). RDP with the classic conversion gives {published['RDP, classic conversion']:.4g} "
        f"there, with the modern conversion {published['RDP']:.4g}, and the PLD {published['PLD']:.4g}."
    )


def sgd_settings(s: SGDSettings, plan) -> dict:
    return {
        "noise_multiplier": plan.noise_multiplier,
        "sampling_rate": plan.sampling_rate,
        "steps": plan.steps,
        "clip": s.clip,
        "delta": s.delta,
        "learning_rate": s.lr,
        "history_every": training.record_every(plan.steps),
    }


def sgd_training(t: Task, s: SGDSettings, plan, replanned: bool) -> None:
    if replanned:
        st.caption(
            f"The planner is set for n = {s.n:,}; this run follows the plan for the {t.n_train:,} training rows: "
            f"σ = {plan.noise_multiplier:.4f}, q = {plan.sampling_rate:.4g}, T = {plan.steps:,}."
        )
    settings = sgd_settings(s, plan)
    seed = state.seed_words(SGD_SALT)
    run = training.train(t.key, "DP-SGD", settings, tuple(seed), t.draws, t.features)
    plain = training.nonprivate(t.key, plan.steps, s.lr, t.features)
    base = training.baseline(t)
    left, right = st.columns([1.7, 1])
    left.plotly_chart(
        charts.band_curves(
            {
                f"DP-SGD (line: mean; band: min to max of {t.draws} draws)": band(training.spread(run["history"])),
                "non-private (full-batch gradient descent, same steps)": band(training.spread(plain))
                | {"low": None, "high": None, "colour": 2},
            },
            f"Test accuracy, DP-SGD at ε = {run['epsilon']:.3g} (PLD), δ = {s.delta:.0e} (held-out rows, for teaching)",
            "step",
            "test accuracy",
            y_format=".1%",
            hlines=[(base, f"majority baseline {base:.1%}")],
        ),
        key="lrn_sgd_history",
    )
    batch = plan.sampling_rate * t.n_train
    accuracy_metrics(
        run["accuracy"],
        float(plain["test_accuracy"].iloc[-1]),
        base,
        right,
        (plan.noise_std(s.clip), batch * s.clip, f"about {batch:,.0f} clipped gradients of norm ≤ {s.clip:g}"),
    )
    right.metric(
        "ε spent (PLD)",
        f"{run['epsilon']:.4g}",
        f"δ = {s.delta:.0e}, add/remove one example",
        delta_color="off",
        delta_arrow="off",
    )
    st.subheader("Release")
    left, right = st.columns([1.2, 1])
    left.markdown(
        f"Released: the weights of draw 1, (ε = {run['epsilon']:.4g}, δ = {s.delta:.0e})-DP for adding or removing "
        f"one example, if the {plan.steps:,} batches were Poisson samples at rate q = {plan.sampling_rate:.4g} (they "
        "are here). Each step divides the noisy sum by the expected batch size q·n, fixed before training."
    )
    history = training.tidy_history(**{"DP-SGD": run["history"], "non-private": plain})
    downloads(t, run, history, "DP-SGD", settings, seed, "dp_sgd", right)
    with right:
        budget.record_release(
            PoissonSampledGaussian(plan.noise_multiplier, plan.sampling_rate, plan.steps),
            label=f"DP-SGD, σ = {plan.noise_multiplier:.3f}, q = {plan.sampling_rate:.3g}, T = {plan.steps} "
            f"({t.target})",
            key="lrn_sgd",
        )


def sgd_frontier_part(t: Task, s: SGDSettings, plan) -> None:
    base = training.baseline(t)
    run = training.train(t.key, "DP-SGD", sgd_settings(s, plan), tuple(state.seed_words(SGD_SALT)), t.draws, t.features)
    frontier = training.sgd_frontier(
        t.key,
        plan.sampling_rate,
        plan.steps,
        s.delta,
        s.clip,
        s.lr,
        t.draws,
        tuple(state.seed_words(SGD_SALT + "-frontier")),
        t.features,
    )
    left, right = st.columns([1.7, 1])
    left.plotly_chart(
        charts.band_curves(
            {
                f"DP-SGD, q = {plan.sampling_rate:.3g}, T = {plan.steps:,}, σ from {training.SGD_SIGMAS[-1]:g} (left) to "
                f"{training.SGD_SIGMAS[0]:g}": band(frontier, x="epsilon"),
                "this run": {"x": [run["epsilon"]], "y": [run["accuracy"].mean()], "colour": 1},
            },
            "Test accuracy against ε (PLD): the privacy–utility frontier",
            "ε for the whole training (log)",
            "test accuracy",
            y_format=".1%",
            log_x=True,
            marks=[(run["epsilon"], f"this run: ε = {run['epsilon']:.3g}")],
            hlines=[(base, "majority baseline")],
        ),
        key="lrn_sgd_frontier",
    )
    right.metric(
        "This run", _pct(run["accuracy"].mean()), f"ε = {run['epsilon']:.3g}", delta_color="off", delta_arrow="off"
    )
    worst = frontier.iloc[0]
    right.markdown(
        f"Each point trains with the same q and T and one noise multiplier σ; its ε is what the PLD accountant gives. "
        f"The most private point, σ = {worst['sigma']:g} (ε = {worst['epsilon']:.3g}), reaches {worst['mean']:.1%}, "
        f"{100 * (worst['mean'] - base):+.1f} points from the majority baseline."
    )


# --------------------------------------------------------------------------- federated averaging


@dataclass(frozen=True)
class FedSettings:
    clients: object  # a column name, or the number m of random clients
    rounds: int
    rate: float
    local_steps: int
    clip: float
    sigma: float
    delta: float

    def run_settings(self) -> dict:
        """The arguments of :func:`dpcore.learning.dp_fedavg` (through the release function), with the clients."""
        return {
            "clients": self.clients,
            "rounds": self.rounds,
            "client_rate": self.rate,
            "local_steps": self.local_steps,
            "clip": self.clip,
            "noise_multiplier": self.sigma,
            "delta": self.delta,
            "history_every": training.record_every(max(self.rounds, 1)),
        }


def fed_controls(t: Task) -> FedSettings:
    options = ["at random", *training.client_columns(t)]
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        source = widgets.select(
            "Clients: one per value of",
            options,
            "lrn_fed_clients",
            "A categorical feature column: one client per category (all the people who share it). Or 'at random': "
            "the training rows dealt at random into m clients.",
        )
    m = c2.number_input(
        "Number of clients m",
        value=500,
        step=50,
        key="lrn_fed_m",
        bind="query-params",
        disabled=source != "at random",
        help="Only when the rows are dealt at random; at least 1 and at most the training rows.",
    )
    rate = c3.number_input(
        "Client sampling rate q",
        value=0.05,
        step=0.01,
        format="%.3f",
        key="lrn_fed_rate",
        bind="query-params",
        help="Each client takes part in a round independently with probability q, in (0, 1].",
    )
    rounds = c4.number_input(
        "Rounds T",
        value=20,
        step=5,
        max_value=MAX_ROUNDS,
        key="lrn_fed_rounds",
        bind="query-params",
        help=f"At least 1; this page trains at most {MAX_ROUNDS}.",
    )
    c1, c2, c3, c4 = st.columns(4)
    local_steps = c1.number_input(
        "Local steps",
        value=3,
        step=1,
        max_value=MAX_LOCAL_STEPS,
        key="lrn_fed_local",
        bind="query-params",
        help="Full-batch gradient steps each sampled client takes on its own rows (step size 1).",
    )
    clip = c2.number_input(
        "Update clipping norm S",
        value=1.0,
        step=0.5,
        key="lrn_fed_clip",
        bind="query-params",
        help="Each client's update is scaled to norm at most S: one client's whole influence on the sum.",
    )
    sigma = c3.number_input(
        "Noise multiplier σ",
        value=1.0,
        step=0.1,
        key="lrn_fed_sigma",
        bind="query-params",
        help="The noise on the sum of clipped updates has standard deviation σ·S; σ must be positive.",
    )
    with c4:
        delta = widgets.delta_slider("lrn_fed_delta", help="Client-level δ; keep it well below 1/m.")
    clients = int(m) if source == "at random" else source
    return FedSettings(clients, int(rounds), float(rate), int(local_steps), float(clip), float(sigma), delta)


FED_PARTS = ("Training run", "Accuracy against ε", "The tutorial recipe")
FED_SALT = "learning-fed"


def fed_view(t: Task) -> None:
    s = fed_controls(t)
    parts = st.tabs(list(FED_PARTS), key="lrn_fed_part", bind="query-params")
    for part, draw in zip(parts, (fed_training, fed_frontier_part, fed_tutorial)):
        if part.open:
            with part:
                draw(t, s)


def fed_run(t: Task, s: FedSettings) -> dict:
    return training.train(t.key, "DP-FedAvg", s.run_settings(), tuple(state.seed_words(FED_SALT)), t.draws, t.features)


def fed_training(t: Task, s: FedSettings) -> None:
    run = fed_run(t, s)
    seed = tuple(state.seed_words(FED_SALT))
    sizes, _ = training.client_sizes(t.key, s.clients, seed, t.features)
    per_round = s.rate * sizes.size
    plain = training.nonprivate(t.key, s.rounds * s.local_steps, 1.0, t.features)
    base = training.baseline(t)
    a, b, c, d = st.columns(4)
    a.metric(
        "Client-level ε (PLD)", f"{run['epsilon']:.4g}", f"δ = {s.delta:.0e}", delta_color="off", delta_arrow="off"
    )
    b.metric("Clients", f"{sizes.size:,}", f"about {per_round:,.1f} per round", delta_color="off", delta_arrow="off")
    c.metric("Rows per client (median)", f"{np.median(sizes):,.0f}")
    d.metric("Noise std on the sum, σ·S", f"{s.sigma * s.clip:.4g}")
    st.markdown(
        "DP-FedAvg (McMahan et al. 2018): each round every client is sampled with probability q, trains locally "
        "from the global model, clips its update to norm S, and the server adds Gaussian noise σ·S to the sum. "
        "Adding or removing **one client with all its rows** changes that sum by at most S: the guarantee is "
        "**client-level**, from the same Poisson-subsampled Gaussian accountant as DP-SGD."
        + (
            f" With about {per_round:.1f} clients per round the noise swamps their sum: client-level privacy "
            "needs many clients."
            if per_round < 10
            else ""
        )
    )
    left, right = st.columns([1.7, 1])
    steps = s.local_steps
    plain_rounds = plain[plain["step"] % steps == 0]
    left.plotly_chart(
        charts.band_curves(
            {
                f"DP-FedAvg (line: mean; band: min to max of {t.draws} draws)": band(training.spread(run["history"])),
                f"non-private, centralised ({steps} gradient steps per round)": {
                    "x": plain_rounds["step"] // steps,
                    "y": plain_rounds["test_accuracy"],
                    "colour": 2,
                },
            },
            f"Test accuracy, DP-FedAvg at client-level ε = {run['epsilon']:.3g} (held-out rows, for teaching)",
            "round",
            "test accuracy",
            y_format=".1%",
            hlines=[(base, f"majority baseline {base:.1%}")],
        ),
        key="lrn_fed_history",
    )
    accuracy_metrics(
        run["accuracy"],
        float(plain["test_accuracy"].iloc[-1]),
        base,
        right,
        (s.sigma * s.clip, per_round * s.clip, f"about {per_round:,.1f} clipped updates of norm ≤ {s.clip:g}"),
    )
    curves = training.dpsgd_curves(s.sigma, s.rate, s.rounds, s.delta)
    left, right = st.columns([1.7, 1])
    with left:
        epsilon_steps_chart(
            curves,
            s.rounds,
            s.delta,
            f"Client-level ε against the rounds, σ = {s.sigma:g}, q = {s.rate:g}",
            "rounds (log)",
            "lrn_fed_curves",
        )
    right.markdown(
        f"Released: the global weights of draw 1 after {s.rounds} rounds, client-level (ε = {run['epsilon']:.4g}, "
        f"δ = {s.delta:.0e})-DP, for Poisson sampling of the clients. Each round divides the noisy sum by the "
        "expected number of clients q·m, fixed before training."
    )
    history = training.tidy_history(**{"DP-FedAvg": run["history"], "non-private, centralised": plain})
    downloads(t, run, history, "DP-FedAvg", s.run_settings(), list(seed), "dp_fedavg", right)
    with right:
        budget.record_release(
            PoissonSampledGaussian(s.sigma, s.rate, s.rounds),
            label=f"DP-FedAvg (client-level), σ = {s.sigma:g}, q = {s.rate:g}, T = {s.rounds} ({t.target})",
            key="lrn_fed",
        )


def fed_frontier_part(t: Task, s: FedSettings) -> None:
    base = training.baseline(t)
    run = fed_run(t, s)
    seed = tuple(state.seed_words(FED_SALT))
    frontier = training.fed_frontier(
        t.key, s.clients, seed, s.rounds, s.rate, s.local_steps, s.clip, s.delta, t.draws, t.features
    )
    left, right = st.columns([1.7, 1])
    left.plotly_chart(
        charts.band_curves(
            {
                f"DP-FedAvg, q = {s.rate:g}, T = {s.rounds}, σ from {training.FED_SIGMAS[-1]:g} (left) to {training.FED_SIGMAS[0]:g}": band(
                    frontier, x="epsilon"
                ),
                "this run": {"x": [run["epsilon"]], "y": [run["accuracy"].mean()], "colour": 1},
            },
            "Test accuracy against client-level ε (PLD)",
            "client-level ε (log)",
            "test accuracy",
            y_format=".1%",
            log_x=True,
            marks=[(run["epsilon"], f"this run: ε = {run['epsilon']:.3g}")],
            hlines=[(base, "majority baseline")],
        ),
        key="lrn_fed_frontier",
    )
    right.metric(
        "This run", _pct(run["accuracy"].mean()), f"ε = {run['epsilon']:.3g}", delta_color="off", delta_arrow="off"
    )
    worst = frontier.iloc[0]
    right.markdown(
        f"Each point trains the same clients, rounds and sampling with one noise multiplier σ. The most private, "
        f"σ = {worst['sigma']:g} (ε = {worst['epsilon']:.3g}), reaches {worst['mean']:.1%}, "
        f"{100 * (worst['mean'] - base):+.1f} points from the majority baseline."
    )


def fed_tutorial(t: Task, s: FedSettings) -> None:
    seed = tuple(state.seed_words(FED_SALT))
    c1, c2, _ = st.columns([1, 1.3, 1])
    assumed = c1.select_slider(
        "Assumed sensitivity Δ",
        ASSUMED_SENSITIVITIES,
        value=0.01,
        key="lrn_fed_assumed",
        bind="query-params",
        help="The L1 sensitivity the recipe assumes for the average of the client models. Nothing enforces it.",
    )
    with c2:
        claimed = widgets.epsilon_slider("lrn_fed_claimed", label="Claimed ε per round", default=1.0)
    real, adversary = training.influence(t.key, s.clients, seed, s.local_steps, claimed, assumed, s.clip, t.features)
    over = int((real["ratio"] > 1).sum())
    exceed = (
        f"After one round from zero weights, **{over:,} of the {len(real):,} clients** already move the average by "
        "more than Δ."
        if over
        else f"After one round from zero weights none of the {len(real):,} honest clients moves the average by more "
        "than Δ, but nothing stops one from doing so (below)."
    )
    st.markdown(
        f"A recipe that circulates in tutorials: average the clients' locally trained models, weighted by their "
        f"sizes, and add Laplace noise of scale Δ/ε = {assumed / claimed:.4g} to each weight, with an **assumed** "
        f"sensitivity Δ = {assumed:g}, claiming ε = {claimed:g} per round. The Laplace mechanism is ε-DP only if no "
        "client can move the average by more than Δ in L1 (Dwork & Roth 2014, Theorem 3.6), and nothing here bounds "
        f"a client's model. {exceed}"
    )
    worst = real.sort_values("ratio", ascending=False).head(5)
    shown = worst[["client", "size", "influence_l1", "ratio", "epsilon_actual", "clipped_update_norm"]].rename(
        columns={
            "size": "rows",
            "influence_l1": "its L1 influence on the average",
            "ratio": "× the assumed Δ",
            "epsilon_actual": "ε the noise gives it",
            "clipped_update_norm": f"in DP-FedAvg: its clipped update, ≤ S = {s.clip:g}",
        }
    )
    show_table(st, shown, "{:,.4g}", skip=2)
    st.caption(
        "The five clients with the largest influence. For two datasets whose averages differ by v, Laplace noise of "
        f"scale b gives ε = ‖v‖₁ / b, here ε · influence / Δ with ε = {claimed:g}. In DP-FedAvg the same client moves "
        f"the noisy sum by its clipped update, at most S = {s.clip:g}, and the noise is calibrated to that."
    )
    scales = adversary["scale"].to_numpy()[1:]
    left, right = st.columns([1.4, 1])
    left.plotly_chart(
        charts.xy_curves(
            {
                "tutorial: ε the noise actually gives": (scales, adversary["epsilon_actual"].to_numpy()[1:]),
                f"tutorial: ε claimed ({claimed:g})": (scales, np.full(scales.size, claimed)),
            },
            None,
            "One client sends a model of norm s",
            "norm s of the client's model (log)",
            "ε for that client (log)",
            log_x=True,
            log_y=True,
            dashed=(f"tutorial: ε claimed ({claimed:g})",),
        ),
        key="lrn_fed_adversary",
    )
    top = adversary.iloc[-1]
    right.markdown(
        f"A client that sends a model of norm {top['scale']:,.0f} moves the average by {top['naive_influence_l1']:,.3g} "
        f"in L1: the noise gives it ε = **{top['epsilon_actual']:,.4g}**, not {claimed:g}, and the averaged model's "
        f"accuracy falls to {top['naive_accuracy']:.1%}. Clipped to S = {s.clip:g}, the same update leaves DP-FedAvg's "
        f"one-round model at {top['clipped_accuracy']:.1%}."
    )

    history, acc = training.tutorial_run(t.key, s.clients, seed, s.rounds, s.local_steps, claimed, assumed, t.features)
    run = fed_run(t, s)
    base = training.baseline(t)
    left, right = st.columns([1.7, 1])
    left.plotly_chart(
        charts.band_curves(
            {
                f"tutorial recipe (claims ε = {s.rounds * claimed:g} in total; guarantees nothing)": {
                    "x": history["step"],
                    "y": history["test_accuracy"],
                    "colour": 3,
                    "dash": True,
                },
                f"DP-FedAvg (client-level ε = {run['epsilon']:.3g})": band(training.spread(run["history"]), colour=0),
            },
            "A good model is no evidence of privacy (test accuracy, held-out rows)",
            "round",
            "test accuracy",
            y_format=".1%",
            hlines=[(base, f"majority baseline {base:.1%}")],
        ),
        key="lrn_fed_tutorial",
    )
    right.metric("Tutorial recipe, test accuracy", _pct(acc), "no guarantee", delta_color="off", delta_arrow="off")
    right.markdown(
        f"The recipe's model reaches {acc:.1%}, DP-FedAvg's {run['accuracy'].mean():.1%}. Accuracy says nothing about "
        "privacy: the recipe's Laplace noise was calibrated to a sensitivity that nothing enforces."
    )


# --------------------------------------------------------------------------- the page


def render() -> None:
    st.title("Private machine learning")
    st.caption(
        "A logistic regression trained on the active dataset with differential privacy, beside the same model "
        "trained without it and the majority-class baseline."
    )
    t = task()
    assumptions()
    if t is None:
        return
    tabs = st.tabs(list(VIEWS), key="lrn_view", bind="query-params")
    for tab, view in zip(tabs, (ngd_view, sgd_view, fed_view)):
        if tab.open:
            with tab:
                try:
                    view(t)
                except ValueError as exc:  # one sentence; the task, the other views and the session stay as they are
                    st.error(md(sentence(exc)))


frame.run_page(render)
