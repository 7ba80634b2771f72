"""The pieces the Learning page's three views share: the clipping norms and step sizes offered, a run's spread as
a band, the accuracy metrics beside the non-private model and the majority baseline, a small table formatted as text,
the three downloads of a training run, and the chart of ε against the steps.

They lay out numbers that :mod:`explorer.training` (through ``dpcore``) computed; they decide no privacy fact.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.simulation import simulated
from explorer import charts, export, snippets, state, training
from explorer.export import to_safe_csv
from explorer.training import Task

__all__ = [
    "CLIPS",
    "RATES",
    "PLAIN_WHY",
    "pct",
    "accuracy_range",
    "band",
    "accuracy_metrics",
    "show_table",
    "release_label",
    "downloads",
    "epsilon_steps_chart",
    "frontier_chart",
]

CLIPS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
RATES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def pct(x: float) -> str:
    return f"{x:.2%}"


def accuracy_range(acc: np.ndarray) -> str:
    """The draws' lowest and highest accuracy, with the decimals that tell them apart (adult.csv's three draws read
    "84.2% to 84.2%"), or that every draw gave the same accuracy."""
    low, high = float(np.min(acc)), float(np.max(acc))
    for digits in (1, 2, 3):
        if f"{low:.{digits}%}" != f"{high:.{digits}%}":
            return f"{low:.{digits}%} to {high:.{digits}%} over {np.size(acc)} draws"
    return (
        f"{high:.2%} in each of {np.size(acc)} draws"
        if low == high
        else f"{high:.3%} in each of {np.size(acc)} draws, to 3 decimals"
    )


def band(table: pd.DataFrame, x: str = "step", scale: float = 1.0, **extra) -> dict:
    return {"x": table[x] * scale, "y": table["mean"], "low": table["low"], "high": table["high"], **extra}


#: Why the non-private accuracy differs from one view to the next (issue 24: three figures, no reason given).
PLAIN_WHY = (
    "The non-private model is the same logistic regression on the same training and test rows, trained by full-batch "
    "gradient descent without clipping or noise for as many steps, of the same size, as this view's private run: "
    "each view trains it for its own steps, so its accuracy differs from view to view."
)


def accuracy_metrics(
    acc: np.ndarray, plain: float, base: float, where, noise: tuple[float, float, str], plain_steps: tuple[int, float]
) -> None:
    """The private model's accuracy (mean and range over the draws), the non-private one's and the baseline's.

    ``noise``: the noise std on each released sum, the largest that sum can be, and what the sum adds up; said in
    one sentence when the private model does not beat the baseline. ``plain_steps``: the full-batch steps and the
    step size of the non-private model, shown under its accuracy (:data:`PLAIN_WHY` says why they follow the view).
    """
    where.metric(
        "Private model, test accuracy",
        pct(acc.mean()),
        accuracy_range(acc),
        delta_color="off",
        delta_arrow="off",
        help="Mean over the noise draws, on the held-out test rows (for teaching, not a release).",
    )
    steps, size = plain_steps
    where.metric(
        "Non-private, test accuracy",
        pct(plain),
        f"{steps:,} full-batch steps of size {size:g}",
        delta_color="off",
        delta_arrow="off",
        help=PLAIN_WHY,
    )
    where.metric(
        "Majority baseline",
        pct(base),
        f"private model {100 * (acc.mean() - base):+.1f} points",
        delta_color="off",
        delta_arrow="off",
        help="Always predict the most common training label. A model that does not beat it learnt nothing.",
    )
    where.caption(PLAIN_WHY)
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


#: What each view's simulated run is, and why DP-SGD and FedAvg do not publish, by the view's file name.
NOT_PUBLISHED = {
    "noisy_gd": (
        "A simulation, not a publication: the noise is seeded from the link, and the features' scaling and the "
        "number of rows are read from this file. The Publish section of this view trains a model to publish from "
        "declared features, with secure noise."
    ),
    "dp_sgd": (
        "A simulation, and this view does not publish: DP-SGD's privacy rests on amplification by Poisson "
        "subsampling, proved here for the continuous Gaussian, and a floating-point-safe subsampled publication is "
        "not accounted here. Noisy gradient descent publishes."
    ),
    "dp_fedavg": (
        "A simulation, and this view does not publish: DP-FedAvg's privacy rests on amplification by Poisson "
        "sampling of clients, proved here for the continuous Gaussian, and a floating-point-safe subsampled "
        "publication is not accounted here. Noisy gradient descent publishes."
    ),
}


def release_label(t: Task, run: dict, method: str, mechanism, unit: str | None = None):
    """The simulated release's label (:func:`dpcore.simulation.simulated`): the mechanism that drew it, the run's
    (ε, δ), its neighbouring relation and unit, and that it is simulated, not private."""
    return simulated(
        mechanism,
        query=f"logistic regression weights predicting {t.target} ({method})",
        spent=(run["epsilon"], run["delta"]),
        unit=unit,
    )


def downloads(
    t: Task, run: dict, history: pd.DataFrame, method: str, settings: dict, seed, name: str, where, label
) -> None:
    """The three downloads of a run; ``label``: its :func:`release_label`, carried on every row of the release file."""
    where.caption(NOT_PUBLISHED[name])
    where.download_button(
        "Simulated release: weights and ε (CSV), not private",
        to_safe_csv(export.simulated(run["release"], label)),
        file_name=f"learning_{name}_simulated_release.csv",
        mime="text/csv",
        help="The weights of draw 1 and the (ε, δ) they cost, with the mechanism, the neighbouring relation and the "
        "unit on every row; no accuracy, no data. Trained from the session's seed, so anyone with the link can retrain "
        "it: simulated, not private.",
    )
    where.download_button(
        "Teaching table: accuracy history (CSV)",
        to_safe_csv(history),
        file_name=f"learning_{name}_history.csv",
        mime="text/csv",
        help="Loss and accuracies at each recorded step, every draw: read from the data, never publish it.",
    )
    code = snippets.private_model(
        state.dataset(), t.target, t.label, t.columns, t.split_seed, method, settings, seed, t.draws, training.MAX_ROWS
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
            colours={name: charts.accounting_colour(name) for name in series},  # as on the Accountant page
        ),
        key=key,
    )


def frontier_chart(
    frontier: pd.DataFrame, run: dict, base: float, name: str, titles: tuple[str, str], key: str, how: str
) -> None:
    """Test accuracy against ε over a ladder of noise multipliers, this run marked; a sentence on its most private point.

    ``titles``: the chart's title and its x axis; ``how``: what each point holds fixed, said before the sentence.
    """
    left, right = st.columns([1.7, 1])
    left.plotly_chart(
        charts.band_curves(
            {
                name: band(frontier, x="epsilon"),
                "this run": {"x": [run["epsilon"]], "y": [run["accuracy"].mean()], "colour": 1},
            },
            titles[0],
            titles[1],
            "test accuracy",
            y_format=".1%",
            log_x=True,
            marks=[(run["epsilon"], f"this run: ε = {run['epsilon']:.3g}")],
            hlines=[(base, "majority baseline")],
        ),
        key=key,
    )
    right.metric(
        "This run", pct(run["accuracy"].mean()), f"ε = {run['epsilon']:.3g}", delta_color="off", delta_arrow="off"
    )
    worst = frontier.iloc[0]
    right.markdown(
        f"{how} The most private point, σ = {worst['sigma']:g} (ε = {worst['epsilon']:.3g}), reaches "
        f"{worst['mean']:.1%}, {100 * (worst['mean'] - base):+.1f} points from the majority baseline."
    )
