"""The Learning page's federated averaging view: its controls (``lrn_fed_*``) and its three parts, the DP-FedAvg
training run with its client-level ε and release, the accuracy against ε, and the tutorial recipe (Laplace noise
calibrated to an assumed sensitivity) whose guarantee does not hold.

Every run, ε and influence comes from :mod:`explorer.training`; the round and local-step limits here are about time,
not privacy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from dpcore import limits
from dpcore.accounting import PoissonSampledGaussian
from dpcore.neighbours import UNIT_CLIENT
from explorer import budget, charts, state, training, unit, widgets
from explorer.learning_dp_sgd import accuracy_chart
from explorer.learning_layout import (
    accuracy_metrics,
    band,
    downloads,
    epsilon_steps_chart,
    frontier_chart,
    pct,
    release_label,
    show_table,
)
from explorer.markup import md
from explorer.training import Task

__all__ = [
    "MAX_ROUNDS",
    "MAX_LOCAL_STEPS",
    "MIN_CLIP",
    "MAX_CLIP",
    "ASSUMED_SENSITIVITIES",
    "FED_PARTS",
    "FED_SALT",
    "FedSettings",
    "fed_controls",
    "fed_view",
    "fed_unit_note",
    "fed_run",
    "fed_training",
    "fed_frontier_part",
    "fed_tutorial",
]

#: Rounds and local steps this page trains at most (time, not privacy).
MAX_ROUNDS = 100
MAX_LOCAL_STEPS = 20
#: The update clipping norms the page takes (the Audit page's DP-FedAvg round takes the same).
MIN_CLIP, MAX_CLIP = 0.001, 1e6
ASSUMED_SENSITIVITIES = (0.001, 0.01, 0.1, 1.0)


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
    m = widgets.whole_number(
        "Number of clients m",
        1,
        1_000_000,
        training.default_clients(t.n_train),
        "lrn_fed_m",
        f"Only when the rows are dealt at random; at least 1 and at most the {t.n_train:,} training rows. The "
        "default, about 10 rows per client up to 500 clients, follows the file's size.",
        container=c2,
        step=50,
        disabled=source != "at random",
    )
    rate = widgets.bound(
        c3.number_input,
        "Client sampling rate q",
        min_value=limits.MIN_SAMPLING_RATE,
        max_value=1.0,
        value=training.default_client_rate(t.n_train),
        step=0.01,
        format="%.3f",
        key="lrn_fed_rate",
        bind="query-params",
        help=f"Each client takes part in a round independently with probability q, from {limits.MIN_SAMPLING_RATE:g} "
        "to 1. The default has about 10 of the default clients take part in each round.",
    )
    rounds = widgets.whole_number(
        "Rounds T",
        1,
        MAX_ROUNDS,
        20,
        "lrn_fed_rounds",
        f"At least 1; this page trains at most {MAX_ROUNDS}.",
        container=c4,
        step=5,
    )
    c1, c2, c3, c4 = st.columns(4)
    local_steps = widgets.whole_number(
        "Local steps",
        1,
        MAX_LOCAL_STEPS,
        3,
        "lrn_fed_local",
        "Full-batch gradient steps each sampled client takes on its own rows (step size 1).",
        container=c1,
    )
    clip = widgets.bound(
        c2.number_input,
        "Update clipping norm S",
        min_value=MIN_CLIP,
        max_value=MAX_CLIP,
        value=1.0,
        step=0.5,
        key="lrn_fed_clip",
        bind="query-params",
        help=f"Each client's update is scaled to norm at most S: one client's whole influence on the sum; from "
        f"{MIN_CLIP:g} to {MAX_CLIP:,.0f}.",
    )
    sigma = widgets.bound(
        c3.number_input,
        "Noise multiplier σ",
        min_value=limits.MIN_NOISE_MULTIPLIER,
        max_value=limits.MAX_NOISE_MULTIPLIER,
        value=1.0,
        step=0.1,
        key="lrn_fed_sigma",
        bind="query-params",
        help=f"The noise on the sum of clipped updates has standard deviation σ·S; σ from {limits.MIN_NOISE_MULTIPLIER:g} "
        f"(one round then costs ε ≈ 92) to {limits.MAX_NOISE_MULTIPLIER:,.0f}.",
    )
    with c4:
        delta = widgets.delta_slider("lrn_fed_delta", help="Client-level δ; keep it well below 1/m.")
    clients = int(m) if source == "at random" else source
    return FedSettings(clients, int(rounds), float(rate), int(local_steps), float(clip), float(sigma), delta)


FED_PARTS = ("Training run", "Accuracy against ε", "The tutorial recipe")
FED_SALT = "learning-fed"


def fed_unit_note(t: Task, s: FedSettings, ident: str | None) -> None:
    """Under a declared person unit (:mod:`explorer.unit`, ``ident`` its identifier column), whether the clients are
    persons, in one or two sentences."""
    if ident is None:
        return
    name = md(ident)
    if s.clients != ident:
        chosen = "random shares of the rows" if not isinstance(s.clients, str) else f"the values of {md(s.clients)}"
        st.caption(
            f"The declared unit is a person (column {name}), but the clients here are {chosen}: a person whose rows "
            f"fall in several clients is not protected by the client-level ε. Choose {name} as the clients (when it "
            "is a feature column) to make each client one person, or train at user level in the DP-SGD view."
        )
        return
    block = [n for n in t.features.feature_names if n.startswith(ident + "=")]
    if any(n[len(ident) + 1 :] in ("(other)", "(missing)") for n in block):
        st.warning(
            f"The clients are not all persons: {name} has more values than its one-hot columns, so the rarer persons "
            "share one client, '(other)', and the client-level ε protects that whole client, not each of them. "
            "Train at user level in the DP-SGD view for privacy per person."
        )
        return
    st.info(
        f"**Clients are persons**: one client per value of {name}, with all of that person's training rows, so the "
        "client-level ε below is for adding or removing one person (user-level privacy, McMahan et al. 2018). No "
        "bound on rows per person is needed: clipping each client's update to S bounds a person's whole influence.",
        icon=":material/person:",
    )


def fed_view(t: Task) -> None:
    # drawn here, not read: a page that does not draw the declaration's widgets may not see their values
    with st.expander("Protected unit: one row, or a person with all of their rows", icon=":material/person:"):
        declared = unit.declare()
    unit.sidebar_line(declared)
    s = fed_controls(t)
    fed_unit_note(t, s, declared.identifier)
    parts = widgets.tabs(FED_PARTS, "lrn_fed_part", name="Part of federated averaging")
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
    if run is None or plain is None:  # computed in the server's pool: the page shows where it is
        return
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
    steps = s.local_steps
    plain_rounds = plain[plain["step"] % steps == 0]
    right = accuracy_chart(
        f"DP-FedAvg (line: mean; band: min to max of {t.draws} draws)",
        run,
        (
            f"non-private, centralised ({steps} gradient steps per round)",
            {"x": plain_rounds["step"] // steps, "y": plain_rounds["test_accuracy"], "colour": 2},
        ),
        f"Test accuracy, DP-FedAvg at client-level ε = {run['epsilon']:.3g} (held-out rows, for teaching)",
        "round",
        base,
        "lrn_fed_history",
    )
    accuracy_metrics(
        run["accuracy"],
        float(plain["test_accuracy"].iloc[-1]),
        base,
        right,
        (s.sigma * s.clip, per_round * s.clip, f"about {per_round:,.1f} clipped updates of norm ≤ {s.clip:g}"),
        (s.rounds * s.local_steps, 1.0),
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
        f"Simulated release: the global weights of draw 1 after {s.rounds} rounds, client-level (ε = {run['epsilon']:.4g}, "
        f"δ = {s.delta:.0e})-DP, for Poisson sampling of the clients. Each round divides the noisy sum by the "
        "expected number of clients q·m, fixed before training."
    )
    history = training.tidy_history(**{"DP-FedAvg": run["history"], "non-private, centralised": plain})
    event = PoissonSampledGaussian(s.sigma, s.rate, s.rounds)
    label = release_label(t, run, "DP-FedAvg", event, unit=UNIT_CLIENT)
    downloads(t, run, history, "DP-FedAvg", s.run_settings(), list(seed), "dp_fedavg", right, label)
    with right:
        budget.record_release(
            event,
            label=f"DP-FedAvg (client-level), σ = {s.sigma:g}, q = {s.rate:g}, T = {s.rounds} ({t.target})",
            key="lrn_fed",
            release_delta=s.delta,
            unit=UNIT_CLIENT,
        )
        st.caption(
            "The ledger counts releases about one record: this run's guarantee is about one client, and a record's "
            "change is a client removed and added back changed, so it is counted by group privacy over two clients."
        )


def fed_frontier_part(t: Task, s: FedSettings) -> None:
    base = training.baseline(t)
    run = fed_run(t, s)
    seed = tuple(state.seed_words(FED_SALT))
    frontier = training.fed_frontier(
        t.key, s.clients, seed, s.rounds, s.rate, s.local_steps, s.clip, s.delta, t.draws, t.features
    )
    if run is None or frontier is None:  # computed in the server's pool: the page shows where it is
        return
    frontier_chart(
        frontier,
        run,
        base,
        f"DP-FedAvg, q = {s.rate:g}, T = {s.rounds}, σ from {training.FED_SIGMAS[-1]:g} (left) to "
        f"{training.FED_SIGMAS[0]:g}",
        ("Test accuracy against client-level ε (PLD)", "client-level ε (log)"),
        "lrn_fed_frontier",
        "Each point trains the same clients, rounds and sampling with one noise multiplier σ.",
    )


def fed_tutorial(t: Task, s: FedSettings) -> None:
    seed = tuple(state.seed_words(FED_SALT))
    c1, c2, _ = st.columns([1, 1.3, 1])
    assumed = widgets.bound(
        c1.select_slider,
        "Assumed sensitivity Δ",
        ASSUMED_SENSITIVITIES,
        value=0.01,
        key="lrn_fed_assumed",
        bind="query-params",
        help="The L1 sensitivity the recipe assumes for the average of the client models. Nothing enforces it.",
    )
    with c2:
        claimed = widgets.epsilon_slider("lrn_fed_claimed", label="Claimed ε per round", default=1.0)
    found = training.influence(t.key, s.clients, seed, s.local_steps, claimed, assumed, s.clip, t.features)
    if found is None:  # computed in the server's pool: the page shows where it is
        return
    real, adversary = found
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

    tutorial = training.tutorial_run(t.key, s.clients, seed, s.rounds, s.local_steps, claimed, assumed, t.features)
    run = fed_run(t, s)
    if tutorial is None or run is None:  # computed in the server's pool: the page shows where it is
        return
    history, acc = tutorial
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
    right.metric("Tutorial recipe, test accuracy", pct(acc), "no guarantee", delta_color="off", delta_arrow="off")
    right.markdown(
        f"The recipe's model reaches {acc:.1%}, DP-FedAvg's {run['accuracy'].mean():.1%}. Accuracy says nothing about "
        "privacy: the recipe's Laplace noise was calibrated to a sensitivity that nothing enforces."
    )
