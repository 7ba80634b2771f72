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

This script keeps what the views share on screen (the task: target, label, features, noise draws; what is
protected) and the switch between the views. Each view lays itself out in its own module of the app package,
named after the ``dpcore.learning`` module it trains with: ``explorer.learning_noisy_gd``,
``explorer.learning_dp_sgd``, ``explorer.learning_fedavg``; their shared pieces are in
``explorer.learning_layout``.
"""

import numpy as np
import streamlit as st

from explorer import frame, learning_dp_sgd, learning_fedavg, learning_noisy_gd, state, training, widgets
from explorer.columns import is_numeric
from explorer.markup import md, plain_sentence, sentence
from explorer.training import Task

VIEWS = ("Noisy gradient descent", "DP-SGD", "Federated averaging")
DRAW_CHOICES = (2, 3, 5, 10)


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
            label["threshold"] = widgets.bound(
                st.number_input,
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
        left_out = widgets.bound(
            st.multiselect,
            "Leave out columns",
            cols,
            default=[],
            key="lrn_leave_out",
            bind="query-params",
            help="Every other column is a feature: numeric ones standardized, categorical ones one-hot encoded; "
            "identifier-like and constant columns are skipped.",
        )
    with c4:
        draws = widgets.bound(
            st.select_slider,
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
    tabs = widgets.tabs(VIEWS, "lrn_view")
    views = (learning_noisy_gd.ngd_view, learning_dp_sgd.sgd_view, learning_fedavg.fed_view)
    for tab, view in zip(tabs, views):
        if tab.open:
            with tab:
                try:
                    view(t)
                except ValueError as exc:  # one sentence; the task, the other views and the session stay as they are
                    st.error(md(plain_sentence(exc)))


frame.run_page(render)
