"""The Learning page's DP-SGD view: its controls (``lrn_sgd_*``) and its three parts, the planner from dataset size,
batch size, epochs and a target (ε, δ) to the noise multiplier (with RDP and PLD against the steps), the training run
with its release, and the accuracy against ε.

The plan comes from :func:`explorer.training.planned` (``dpcore.accounting.plan_dpsgd``); the step limits here are
about time, not privacy.

The unit of privacy is the session's (:mod:`explorer.unit`, declared on the Data page or in this view's "Protected
unit"): one row, or a person named by a column with at most m rows used each. Under a person unit the view trains
**user-level DP-SGD** (:func:`dpcore.learning.user_level_dp_sgd`, McMahan et al. 2018; the runs in
:mod:`explorer.learning_user_level`): the planner plans over persons (n persons, B expected persons per batch), each
sampled person's mean row gradient is clipped to C, and every ε is for adding or removing one person.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.accounting import PoissonSampledGaussian
from dpcore.contributions import PrivacyUnit
from dpcore.neighbours import UNIT_PERSON
from explorer import budget, charts, export, learning_user_level, state, training, unit, widgets
from explorer.export import to_safe_csv
from explorer.learning_layout import (
    CLIPS,
    RATES,
    accuracy_metrics,
    band,
    downloads,
    epsilon_steps_chart,
    frontier_chart,
    release_label,
    show_table,
)
from explorer.markup import md
from explorer.training import Task

__all__ = [
    "MAX_PLAN_STEPS",
    "MIN_EPOCHS",
    "MAX_EPOCHS",
    "MAX_TRAIN_STEPS",
    "DPSGD_CALIBRATIONS",
    "SGD_PARTS",
    "SGD_SALT",
    "SGDSettings",
    "People",
    "sgd_people",
    "sgd_controls",
    "sgd_view",
    "sgd_planner",
    "sgd_settings",
    "sgd_training",
    "sgd_frontier_part",
]

#: Steps this page plans or trains at most: the accountant's and the training's time grow with T.
MAX_PLAN_STEPS = 50_000
MAX_TRAIN_STEPS = 2_000
#: The epochs the page takes (the steps they make are bounded above, by the plan and the training).
MIN_EPOCHS, MAX_EPOCHS = 0.01, 1_000.0
#: The calibrations of DP-SGD's noise: the accounting's name (the one map's, :func:`budget.accounting_name`, and what a
#: link carries) -> dpcore's method and RDP conversion.
DPSGD_CALIBRATIONS = {
    budget.accounting_name(method, conversion): (method, conversion)
    for method, conversion in (("pld", "balle"), ("rdp", "balle"), ("rdp", "mironov"))
}


@dataclass(frozen=True, eq=False)
class People:
    """The training rows' persons under a declared person unit: what user-level DP-SGD trains on."""

    unit: PrivacyUnit
    persons: np.ndarray  # each training row's person (a code)
    counts: np.ndarray  # each person's training rows (exact, not private)

    @property
    def count(self) -> int:
        return int(self.counts.size)

    @property
    def max_rows(self) -> int:
        return int(self.unit.bounds.max_rows)

    @property
    def identifier(self) -> str:
        return str(self.unit.identifier)

    def words(self) -> str:
        """The unit as the page says it (Markdown, the column's name escaped)."""
        return f"a person (column **{md(self.identifier)}**, ≤ {self.max_rows:,} rows used per person)"


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
    max_rows: int | None = None  # m under a person unit (user-level DP-SGD); None: one row is the unit

    def plan(self, n: int, limit: int, verb: str):
        """The plan for n examples (persons at user level); refused in one sentence when it has more than ``limit``
        steps (time, not privacy)."""
        if n >= 1 and self.batch >= 1 and self.epochs > 0 and self.epochs * n / self.batch > limit:
            noun = "examples" if self.max_rows is None else "persons"
            raise ValueError(
                f"{self.epochs:g} epochs of {n:,} {noun} in batches of {self.batch:,} are about "
                f"{self.epochs * n / self.batch:,.0f} steps; this page will {verb} at most {limit:,}: raise the batch "
                "size or lower the epochs"
            )
        method, conversion = DPSGD_CALIBRATIONS[self.calibration]
        return training.planned(n, self.batch, self.epochs, self.epsilon, self.delta, method, conversion)


def sgd_people(t: Task) -> People | None:
    """The protected unit, drawn in an expander (the session's declaration, :mod:`explorer.unit`), and under a person
    unit each training row's person; ``None`` under one row. Stops the view after one sentence when the persons
    cannot be named."""
    # the label does not read the declaration: on a page's first run its widgets are not restored yet
    with st.expander("Protected unit: one row, or a person with all of their rows", icon=":material/person:"):
        declared = unit.declare()
    unit.sidebar_line(declared)
    if declared.identifier is None:
        st.caption(
            "Unit: one row (each row a different person): every ε of this view is for adding or removing one "
            "training row. Declare a person above (or on the Data page) to train at user level."
        )
        return None
    codes = unit.persons(declared)  # says in one sentence why not, when the column cannot name the persons
    if codes is None:
        st.stop()
    ds = state.dataset()
    persons = learning_user_level.training_persons(t.key, declared.identifier, codes, ds.frame, t.features)
    if persons is None:
        st.warning(
            "The training rows could not be matched to their persons in this table, so user-level DP-SGD cannot "
            "run here: declare one row per person in Protected unit above to train at record level."
        )
        st.stop()
    _, counts = learning_user_level.person_count(persons)
    if declared.identifier in t.features.columns_used:
        st.warning(
            f"{md(declared.identifier)} is also a feature of the model (one-hot encoded): the model can then learn "
            "who is who. Leave it out in Leave out columns above."
        )
    return People(declared, persons, counts)


def sgd_controls(t: Task, people: People | None = None) -> SGDSettings:
    units = t.n_train if people is None else people.count
    what = f"{t.n_train:,} training rows" if people is None else f"{people.count:,} persons of the training rows"
    c1, c2, c3 = st.columns([1.4, 1, 1])
    with c1:
        eps = widgets.epsilon_slider(
            "lrn_sgd_epsilon", label="Target ε for the whole training", default=training.DEFAULT_EPSILON
        )
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
    n_plan = widgets.bound(
        c1.number_input,
        "Dataset size n" if people is None else "Persons n",
        min_value=1.0,
        max_value=1e9,
        value=None,
        step=1000.0,
        format="%.0f",  # a float input: a link's 1e309 is out of range, not an overflow
        placeholder=f"{units:,}",
        key="lrn_sgd_n",
        bind="query-params",
        help=f"For the planner{'' if people is None else ', in persons'}. Empty: this dataset's {what}. Or plan for "
        "another size, up to a billion.",
    )
    batch = widgets.whole_number(
        "Expected batch size B" if people is None else "Expected persons per batch B",
        1,
        10_000_000,
        training.default_batch(units),
        "lrn_sgd_batch",
        ("Each example" if people is None else "Each person, with their rows,")
        + " joins each batch independently with probability q = B / n; at most n. The default, a tenth of the "
        f"{what} up to 256, follows the file's size.",
        container=c2,
        step=32,
    )
    epochs = widgets.bound(
        c3.number_input,
        "Epochs E",
        min_value=MIN_EPOCHS,
        max_value=MAX_EPOCHS,
        value=1.0,
        step=0.5,
        key="lrn_sgd_epochs",
        bind="query-params",
        help=f"Passes over the data: T = ⌈E n / B⌉ steps; from {MIN_EPOCHS:g} to {MAX_EPOCHS:,.0f}.",
    )
    clip = widgets.bound(
        c4.select_slider,
        "Clipping norm C",
        CLIPS,
        value=1.0,
        key="lrn_sgd_clip",
        bind="query-params",
        help="Each per-example gradient is clipped to norm C; the noise on the sum is σ·C.",
    )
    lr = widgets.bound(c5.select_slider, "Step size η", RATES, value=2.0, key="lrn_sgd_lr")
    n = None if n_plan is None else int(round(n_plan))
    m = None if people is None else people.max_rows
    return SGDSettings(eps, delta, calibration, n, int(batch), float(epochs), float(clip), float(lr), m)


SGD_PARTS = ("Planner", "Training run", "Accuracy against ε")
SGD_SALT = "learning-sgd"


def sgd_view(t: Task) -> None:
    people = sgd_people(t)
    if people is not None:
        st.markdown(
            f"Unit: {people.words()}. **User-level DP-SGD** (McMahan et al. 2018): at each step every person joins "
            "the batch with probability q, a sampled person's gradient is the mean of the gradients of their rows "
            f"(at most {people.max_rows:,}, a uniformly random part of a person with more), clipped to norm C, and "
            "Gaussian noise σ·C is added to the sum. Adding or removing **one person with all of their rows** moves "
            "that sum by at most C, so every ε below is for one person, from the same accountant as record-level "
            f"DP-SGD with persons in place of rows: {people.count:,} persons in the {t.n_train:,} training rows."
        )
    s = sgd_controls(t, people)
    units = t.n_train if people is None else people.count
    parts = widgets.tabs(SGD_PARTS, "lrn_sgd_part", name="Part of DP-SGD")
    replanned = s.n not in (None, units)
    if parts[0].open:
        with parts[0]:
            sgd_planner(t, s, s.plan(units if s.n is None else s.n, MAX_PLAN_STEPS, "plan"), people)
    if parts[1].open:
        with parts[1]:
            sgd_training(t, s, s.plan(units, MAX_TRAIN_STEPS, "train"), replanned, people)
    if parts[2].open:
        with parts[2]:
            sgd_frontier_part(t, s, s.plan(units, MAX_TRAIN_STEPS, "train"), people)


def sgd_planner(t: Task, s: SGDSettings, plan, people: People | None = None) -> None:
    if plan is None:  # a long plan is computed in the server's pool: the page shows where it is
        return
    who = "example" if people is None else "person"
    a, b, c, d = st.columns(4)
    a.metric("Noise multiplier σ", f"{plan.noise_multiplier:.4f}", help="The noise std on the clipped sum is σ·C.")
    b.metric(
        "Sampling rate q = B / n" if people is None else "Persons' sampling rate q = B / n",
        f"{plan.sampling_rate:.4g}",
        f"n = {plan.dataset_size:,}" + ("" if people is None else " persons"),
        delta_color="off",
        delta_arrow="off",
    )
    c.metric("Steps T = ⌈E n / B⌉", f"{plan.steps:,}")
    d.metric("Noise std on the sum, σ·C", f"{plan.noise_std(s.clip):.4g}")
    table = pd.DataFrame(
        {
            "accountant": [
                f"{budget.accounting_name('pld')} (tightest)",
                f"{budget.accounting_name('rdp')} (Balle et al. 2020 conversion)",
                f"{budget.accounting_name('rdp', 'mironov')} (Mironov 2017)",
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
        f"under that accountant{'' if people is None else ', for adding or removing one person'}. The same run is "
        f"ε = {plan.epsilon_pld:.4g} by the PLD and "
        f"{plan.epsilon_rdp_mironov:.4g} by RDP with the classic conversion: {looser / plan.epsilon_pld:.2f}× as much "
        "for the same noise."
    )
    left.info(
        f"**The guarantee is for Poisson sampling**: at every step each {who} joins the batch independently with "
        "probability q, so batch sizes vary. Shuffled fixed-size batches, what most training loops do, are not "
        "covered by this analysis.",
        icon=":material/info:",
    )
    with right:
        curves = training.dpsgd_curves(plan.noise_multiplier, plan.sampling_rate, plan.steps, s.delta)
        if curves is not None:  # long curves come from the server's pool; meanwhile the page shows where they are
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
        f"δ = 1e-5 (moments accountant). RDP with the classic conversion gives "
        f"{published[budget.accounting_name('rdp', 'mironov')]:.4g} there, with the modern conversion "
        f"{published[budget.accounting_name('rdp')]:.4g}, and the PLD {published[budget.accounting_name('pld')]:.4g}."
    )


#: What the two DP-SGD views say for each unit of privacy: the legend, what is clipped, ε's label and help, the key.
SGD_WORDS = {
    "example": ("DP-SGD", "gradients", "ε spent (PLD)", None, "lrn_sgd_history"),
    "person": (
        "user-level DP-SGD",
        "person gradients",
        "ε spent per person (PLD)",
        "For adding or removing one person with all of their rows (at most m used): user-level privacy.",
        "lrn_sgd_user_history",
    ),
}


def sgd_outcome(t: Task, s: SGDSettings, plan, run: dict, plain, unit_name: str, count: int, title: str) -> None:
    """A DP-SGD run's test accuracy against full-batch non-private descent, its figures and the ε it spent.

    ``unit_name`` is the unit of privacy (a key of :data:`SGD_WORDS`), ``count`` how many of them q samples from.
    """
    name, what, label, help_text, key = SGD_WORDS[unit_name]
    base = training.baseline(t)
    curve = band(training.spread(plain)) | {"low": None, "high": None, "colour": 2}
    right = accuracy_chart(
        f"{name} (line: mean; band: min to max of {t.draws} draws)",
        run,
        ("non-private (full-batch gradient descent, same steps)", curve),
        title,
        "step",
        base,
        key,
    )
    batch = plan.sampling_rate * count
    accuracy_metrics(
        run["accuracy"],
        float(plain["test_accuracy"].iloc[-1]),
        base,
        right,
        (plan.noise_std(s.clip), batch * s.clip, f"about {batch:,.0f} clipped {what} of norm ≤ {s.clip:g}"),
        (plan.steps, s.lr),
    )
    right.metric(
        label,
        f"{run['epsilon']:.4g}",
        f"δ = {s.delta:.0e}, add/remove one {unit_name}",
        delta_color="off",
        delta_arrow="off",
        help=help_text,
    )


def accuracy_chart(name: str, run: dict, plain: tuple[str, dict], title: str, x: str, base: float, key: str):
    """A run's test accuracy (its draws' band, legend ``name``) against ``plain`` (legend, curve) and the majority
    baseline, in the left of two columns; returns the right one."""
    left, right = st.columns([1.7, 1])
    left.plotly_chart(
        charts.band_curves(
            {name: band(training.spread(run["history"])), plain[0]: plain[1]},
            title,
            x,
            "test accuracy",
            y_format=".1%",
            hlines=[(base, f"majority baseline {base:.1%}")],
        ),
        key=key,
    )
    return right


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


def sgd_training(t: Task, s: SGDSettings, plan, replanned: bool, people: People | None = None) -> None:
    if replanned:
        what = f"{t.n_train:,} training rows" if people is None else f"{people.count:,} persons"
        st.caption(
            f"The planner is set for n = {s.n:,}; this run follows the plan for the {what}: "
            f"σ = {plan.noise_multiplier:.4f}, q = {plan.sampling_rate:.4g}, T = {plan.steps:,}."
        )
    if people is not None:
        user_training(t, s, plan, people)
        return
    settings = sgd_settings(s, plan)
    seed = state.seed_words(SGD_SALT)
    run = training.train(t.key, "DP-SGD", settings, tuple(seed), t.draws, t.features)
    plain = training.nonprivate(t.key, plan.steps, s.lr, t.features)
    if run is None or plain is None:  # computed in the server's pool: the page shows where it is
        return
    title = f"Test accuracy, DP-SGD at ε = {run['epsilon']:.3g} (PLD), δ = {s.delta:.0e} (held-out rows, for teaching)"
    sgd_outcome(t, s, plan, run, plain, "example", t.n_train, title)
    st.subheader("Simulated release")
    left, right = st.columns([1.2, 1])
    left.markdown(
        f"Simulated release: the weights of draw 1, (ε = {run['epsilon']:.4g}, δ = {s.delta:.0e})-DP for adding or removing "
        f"one example, if the {plan.steps:,} batches were Poisson samples at rate q = {plan.sampling_rate:.4g} (they "
        "are here). Each step divides the noisy sum by the expected batch size q·n, fixed before training."
    )
    history = training.tidy_history(**{"DP-SGD": run["history"], "non-private": plain})
    event = PoissonSampledGaussian(plan.noise_multiplier, plan.sampling_rate, plan.steps)
    downloads(t, run, history, "DP-SGD", settings, seed, "dp_sgd", right, release_label(t, run, "DP-SGD", event))
    with right:
        budget.record_release(
            event,
            label=f"DP-SGD, σ = {plan.noise_multiplier:.3f}, q = {plan.sampling_rate:.3g}, T = {plan.steps} "
            f"({t.target})",
            key="lrn_sgd",
        )


def sgd_frontier_part(t: Task, s: SGDSettings, plan, people: People | None = None) -> None:
    if people is not None:
        user_frontier_part(t, s, plan, people)
        return
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
    if run is None or frontier is None:  # computed in the server's pool: the page shows where it is
        return
    frontier_chart(
        frontier,
        run,
        base,
        f"DP-SGD, q = {plan.sampling_rate:.3g}, T = {plan.steps:,}, σ from {training.SGD_SIGMAS[-1]:g} (left) to "
        f"{training.SGD_SIGMAS[0]:g}",
        ("Test accuracy against ε (PLD): the privacy–utility frontier", "ε for the whole training (log)"),
        "lrn_sgd_frontier",
        "Each point trains with the same q and T and one noise multiplier σ; its ε is what the PLD accountant gives.",
    )


# --------------------------------------------------------------------------- user level: a person is the unit


def user_settings(s: SGDSettings, plan, people: People) -> dict:
    """The arguments of :func:`dpcore.learning.user_level_dp_sgd` for this plan (q over persons, m rows each)."""
    return {**sgd_settings(s, plan), "max_rows": people.max_rows}


def user_training(t: Task, s: SGDSettings, plan, people: People) -> None:
    """The user-level run: its history against the non-private model, its accuracy, and its release for one person."""
    settings = user_settings(s, plan, people)
    seed = state.seed_words(SGD_SALT + "-user")
    run = learning_user_level.train(
        t.key, people.identifier, settings, tuple(seed), t.draws, people.persons, people.counts, t.features
    )
    plain = training.nonprivate(t.key, plan.steps, s.lr, t.features)
    if run is None or plain is None:  # computed in the server's pool: the page shows where it is
        return
    title = f"Test accuracy (held-out rows), user-level DP-SGD at ε = {run['epsilon']:.3g} per person"
    sgd_outcome(t, s, plan, run, plain, "person", people.count, title)
    used = run["details"]["rows_used"]
    st.subheader("Simulated release")
    left, right = st.columns([1.2, 1])
    left.markdown(
        f"Simulated release: the weights of draw 1, (ε = {run['epsilon']:.4g}, δ = {s.delta:.0e})-DP for adding or "
        f"removing **one person with all of their rows** (column {md(people.identifier)}), if the {plan.steps:,} "
        f"batches of persons were Poisson samples at rate q = {plan.sampling_rate:.4g} (they are here). "
        f"{used:,} of the {t.n_train:,} training rows were used: at most {people.max_rows:,} per person, a uniformly "
        "random part of a person with more. Each step divides the noisy sum by the expected number of persons per "
        "batch, q·n, fixed before training."
    )
    history = training.tidy_history(**{"user-level DP-SGD": run["history"], "non-private": plain})
    event = PoissonSampledGaussian(plan.noise_multiplier, plan.sampling_rate, plan.steps)
    label = release_label(t, run, "user-level DP-SGD", event, unit=UNIT_PERSON)
    right.caption(
        "A simulation, and this view does not publish: the noise is seeded from the link. The release file says "
        "the unit, a person, on every row."
    )
    right.download_button(
        "Simulated release: weights and ε (CSV), not private",
        to_safe_csv(export.simulated(run["release"], label)),
        file_name="learning_dp_sgd_user_level_simulated_release.csv",
        mime="text/csv",
        help="The weights of draw 1 and the (ε, δ) they cost for one person, with the mechanism, the neighbouring "
        "relation and the unit on every row; no accuracy, no data. Simulated, not private.",
    )
    right.download_button(
        "Teaching table: accuracy history (CSV)",
        to_safe_csv(history),
        file_name="learning_dp_sgd_user_level_history.csv",
        mime="text/csv",
        help="Loss and accuracies at each recorded step, every draw: read from the data, never publish it.",
    )
    with right:
        budget.record_release(
            event,
            label=f"User-level DP-SGD, σ = {plan.noise_multiplier:.3f}, q = {plan.sampling_rate:.3g}, "
            f"T = {plan.steps} ({t.target}; a person: {people.identifier})",
            key="lrn_sgd",
            release_delta=s.delta,
            unit=UNIT_PERSON,
        )


def user_frontier_part(t: Task, s: SGDSettings, plan, people: People) -> None:
    base = training.baseline(t)
    settings = user_settings(s, plan, people)
    seed = tuple(state.seed_words(SGD_SALT + "-user"))
    run = learning_user_level.train(
        t.key, people.identifier, settings, seed, t.draws, people.persons, people.counts, t.features
    )
    frontier = learning_user_level.frontier(
        t.key,
        people.identifier,
        settings,
        tuple(state.seed_words(SGD_SALT + "-user-frontier")),
        t.draws,
        people.persons,
        people.counts,
        t.features,
    )
    if run is None or frontier is None:  # computed in the server's pool: the page shows where it is
        return
    frontier_chart(
        frontier,
        run,
        base,
        f"User-level DP-SGD, q = {plan.sampling_rate:.3g} of the persons, T = {plan.steps:,}, σ from "
        f"{training.SGD_SIGMAS[-1]:g} (left) to {training.SGD_SIGMAS[0]:g}",
        ("Test accuracy against ε per person (PLD): the privacy–utility frontier", "ε per person (log)"),
        "lrn_sgd_frontier",
        "Each point trains with the same q, T and m and one noise multiplier σ; its ε, for one person with all of "
        "their rows, is what the PLD accountant gives.",
    )
