"""The Compare page: both queries run, shown numbers are dpcore's, slider moves rerun."""

import numpy as np

from dpcore import OUE, Laplace
from explorer.columns import encode_categories
from explorer.dataset import load_demo
from tests.apptest import assert_clean, open_page


def test_counts_view_shows_dpcore_stds():
    at = open_page("compare", cmp_epsilon=2)
    assert_clean(at)
    table = at.dataframe[0].value
    column = at.selectbox(key="cmp_column").value
    codes, labels, _ = encode_categories(load_demo("census").frame[column])
    true = np.bincount(codes, minlength=len(labels))
    shown = dict(zip(table["mechanism"], table.iloc[:, 1]))
    # the std of the count the boxes show (the most common value), and the central histogram under replace-one
    # (L1 sensitivity 2); OUE's variance grows with the count, so a rare value's std would differ (control)
    j = int(np.argmax(true))
    assert shown["OUE (local)"] == OUE(2.0, len(labels)).std(true)[j]
    assert shown["OUE (local)"] > OUE(2.0, len(labels)).std(np.eye(len(labels), dtype=np.int64)[0] * codes.size)[1]
    assert shown["Laplace (central)"] == Laplace.from_epsilon(2.0, sensitivity=2.0).std


def test_slider_move_changes_the_table():
    at = open_page("compare")
    before = at.dataframe[0].value.iloc[:, 1].tolist()
    at.select_slider(key="cmp_epsilon").set_value(0.1).run()
    assert_clean(at)
    after = at.dataframe[0].value.iloc[:, 1].tolist()
    assert all(a > b for a, b in zip(after, before))  # less ε, more noise, for every mechanism


def test_mean_view_runs_and_orders_central_before_local():
    at = open_page("compare", cmp_query="Mean of a number", cmp_mean_column="age", trials=300)
    assert_clean(at)
    shown = dict(zip(*[at.dataframe[0].value[c] for c in at.dataframe[0].value.columns]))
    assert shown["Laplace mean (central)"] < shown["LDP mean (local)"]


def test_no_mechanism_selected_is_not_an_error():
    at = open_page("compare")
    at.multiselect(key="cmp_count_mechs").set_value([]).run()
    assert_clean(at)
