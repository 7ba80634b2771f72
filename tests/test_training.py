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


def _wide_features():
    """The features the Learning page prepares on the widest upload (benchmarks.bench_attack.wide_csv: 999 text
    columns of 50 values and a 0/1 target, 25 MB)."""
    from benchmarks.bench_attack import wide_csv
    from explorer.dataset import load_csv

    frame = load_csv(wide_csv(), "wide.csv").frame
    target = training.default_target(frame)
    columns = [c for c in frame.columns if c != target]
    return prepare_features(frame, target, features=columns, rng=0, max_rows=training.MAX_ROWS)


def test_the_widest_uploads_features_are_read_only_as_far_as_the_budget_and_counted_in_every_estimate():
    f = _wide_features()
    # the budget of 1,000 features holds 500 columns at two one-hot columns each; the 501st is read (it does not fit),
    # the 498 after it are not read, and all 499 are said to be left out
    assert len(f.columns_used) == 500 and len(f.columns_left_out) == 499 and f.columns_left_out[0] == "c500"
    census = _task(_census(), "income").features
    assert training.features_seconds(census) <= training.FEATURES_ROOM < training.features_seconds(f)
    default = {"iterations": 20, "history_every": 1}  # the view's first run: T = 20, 3 draws
    wide_run = training.run_seconds("noisy gradient descent", default, 3, f)
    # the run alone would fit a rerun; with the preparation of its 999 columns it does not, and goes to the pool
    assert wide_run <= training.INLINE_SECONDS and not training.inline(wide_run, f)
    assert training.inline(training.run_seconds("noisy gradient descent", default, 3, census), census)


def _census() -> pd.DataFrame:
    from explorer.dataset import load_demo

    return load_demo("census").frame
