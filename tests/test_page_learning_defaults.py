"""The Learning page's defaults follow the file's shape (issue 24): every view's default runs without a refusal on a
60-row, a 300-row and a 32,561-row file with a numeric and a categorical column, ε starts at 1, and a link's value
still wins over a default (an impossible one gets one sentence)."""

import time

import numpy as np
import pytest

from explorer import training
from explorer.features import prepare_features
from tests.apptest import PAGES, assert_clean, open_page

SIZES = (60, 300, 32_561)
VIEWS = (
    ({}, "Private model, test accuracy"),  # noisy gradient descent, its training run
    ({"lrn_view": "DP-SGD"}, "Noise multiplier σ"),  # the planner
    ({"lrn_view": "DP-SGD", "lrn_sgd_part": "Training run"}, "Private model, test accuracy"),
    ({"lrn_view": "Federated averaging"}, "Client-level ε (PLD)"),  # its training run
)


def _raw(n: int, seed: int = 0) -> bytes:
    """A file of n rows: a numeric column, a categorical one and a two-valued target that depends on the first."""
    rng = np.random.default_rng(seed)
    x = rng.normal(40, 10, n).round(1)
    group = rng.choice(["north", "south", "east", "west"], n)
    y = np.where(x + rng.normal(0, 10, n) > 40, "yes", "no")
    return ("x,group,y\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(x, group, y))).encode()


def _open(n: int, **link):
    at = open_page("data", timeout=180, **link)
    at.file_uploader(key="data_upload").upload(f"rows_{n}.csv", _raw(n), "text/csv").run()
    at.switch_page(PAGES["learning"]).run()
    deadline = time.monotonic() + 300
    while any(b.key and b.key.startswith("jobs_cancel_") for b in at.button):  # a run in the server's pool
        assert time.monotonic() < deadline, "the page did not get its background results"
        time.sleep(0.5)
        at.run()
    return at


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("link, shown", VIEWS, ids=("noisy GD", "DP-SGD planner", "DP-SGD run", "FedAvg run"))
def test_every_default_view_runs_without_a_refusal(n, link, shown):
    at = _open(n, **link)
    assert_clean(at)
    assert at.session_state["dataset"].name == f"rows_{n}.csv"
    assert shown in [m.label for m in at.metric]
    assert not [i.value for i in at.info if "not allowed" in i.value]  # no default was refused by its widget


@pytest.mark.parametrize("n", SIZES)
def test_the_defaults_are_read_from_the_number_of_training_rows(n):
    at = _open(n, lrn_view="Federated averaging")
    frame = at.session_state["dataset"].frame
    split = np.random.default_rng([2017, sum(map(ord, "learning-split"))])  # the page's split for the default seed
    n_train = prepare_features(frame, "y", features=["x", "group"], rng=split).y_train.size
    assert at.number_input(key="lrn_fed_m").value == training.default_clients(n_train)
    assert at.number_input(key="lrn_fed_rate").value == training.default_client_rate(n_train)
    assert [m.value for m in at.metric if m.label == "Clients"] == [f"{training.default_clients(n_train):,}"]
    sgd = _open(n, lrn_view="DP-SGD")
    assert sgd.number_input(key="lrn_sgd_batch").value == training.default_batch(n_train)
    assert sgd.select_slider(key="lrn_sgd_epsilon").value == 1.0


def test_noisy_gradient_descent_starts_at_epsilon_one():
    at = _open(300)
    assert at.select_slider(key="lrn_ngd_epsilon").value == training.DEFAULT_EPSILON == 1.0


@pytest.mark.parametrize(
    "link, said",
    [
        (
            {"lrn_view": "Federated averaging", "lrn_fed_m": 500},
            "the number of clients must be a whole number from 1 to",
        ),
        ({"lrn_view": "DP-SGD", "lrn_sgd_batch": 256}, "the batch size must be a whole number from 1 to"),
    ],
)
def test_a_links_value_wins_over_the_default_and_an_impossible_one_gets_one_sentence(link, said):
    at = _open(60, **link)
    key = next(k for k in link if k != "lrn_view")
    assert at.number_input(key=key).value == link[key]  # the link's value, not the file's default
    assert not at.exception
    assert len(at.error) == 1, [e.value for e in at.error]
    text = at.error[0].value.replace("\\", "")
    assert said in text.lower() and f"(it was {link[key]})" in text and "\n" not in text, text
    assert "_" not in text  # no internal name


@pytest.mark.parametrize("n_train", [1, 9, 10, 48, 240, 2_559, 2_560, 26_048, 125_000])
def test_default_sizes_fit_the_rows(n_train):
    batch, m, q = (
        training.default_batch(n_train),
        training.default_clients(n_train),
        training.default_client_rate(n_train),
    )
    assert 1 <= batch <= n_train and batch <= 256 and batch == min(256, max(1, n_train // 10))
    assert 1 <= m <= n_train and m <= 500
    assert 0.05 <= q <= 1 and (q == 1 or q * m >= 9.5 or q == 0.05)  # about 10 clients a round when m allows
