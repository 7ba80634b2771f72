"""The Learning page's helpers in explorer.training: the default target, the client columns, the history summaries."""

import numpy as np
import pandas as pd
import pytest

from explorer import training
from explorer.features import prepare_features


def _task(frame: pd.DataFrame, target: str) -> training.Task:
    columns = tuple(c for c in frame.columns if c != target)
    f = prepare_features(frame, target, features=list(columns), rng=0)
    return training.Task(("k",), f, target, {}, columns, (0,), 3)


@pytest.mark.parametrize(
    "frame, expected",
    [
        (pd.DataFrame({"a": [1.0, 2.0, 3.0], "income": ["x", "y", "x"]}), "income"),
        (pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "x"]}), "b"),  # the first two-valued column
        (pd.DataFrame({"c": ["x", "y", "z"], "a": [1.0, 2.0, 3.0]}), "a"),  # else the first numeric one
        (pd.DataFrame({"c": ["x", "y", "z"]}), "c"),  # else the first column (the page then says why it cannot)
    ],
)
def test_default_target(frame, expected):
    assert training.default_target(frame) == expected


def test_client_columns_are_the_one_hot_encoded_ones_and_never_ambiguous():
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame(
        {
            "job": rng.choice(["a", "b", "c"], n),
            "job=x": rng.choice(["p", "q"], n),  # its one-hot names start with "job=": "job" would be ambiguous
            "city": rng.choice(["u", "v"], n),
            "age": rng.normal(size=n),
            "y": rng.choice(["yes", "no"], n),
        }
    )
    assert training.client_columns(_task(frame, "y")) == ["job=x", "city"]
    assert training.client_columns(_task(frame.drop(columns="job=x"), "y")) == ["job", "city"]


def test_spread_is_the_mean_min_and_max_over_the_draws_per_step():
    history = pd.DataFrame({"step": [0, 0, 0, 1, 1, 1], "draw": [0, 1, 2] * 2, "test_accuracy": [1, 2, 6, 3, 3, 3.0]})
    out = training.spread(history)
    assert out.to_dict("list") == {"step": [0, 1], "mean": [3.0, 3.0], "low": [1.0, 3.0], "high": [6.0, 3.0]}


def test_record_every_keeps_about_the_chart_points():
    assert training.record_every(1) == 1
    assert training.record_every(training.HISTORY_POINTS) == 1
    assert training.record_every(102) == 6  # ceil(102 / 20): 18 points and the last
