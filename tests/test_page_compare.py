"""The Compare page: both queries run, shown numbers are dpcore's, slider moves rerun."""

import numpy as np

from dpcore import OUE, Gaussian, Laplace, families
from dpcore.staircase import Staircase
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


def test_every_family_is_offered_and_the_default_is_as_before_the_staircase():
    at = open_page("compare")
    chooser = at.multiselect(key="cmp_count_mechs")
    assert chooser.options == list(families.labelled())
    assert chooser.value == ["GRR (local)", "OUE (local)", "Laplace (central)", "Gaussian (central)"]
    at = open_page("compare", cmp_query="Mean of a number", trials=100)
    chooser = at.multiselect(key="cmp_mean_mechs")
    assert "Staircase mean (central)" in chooser.options
    assert chooser.value == [
        "LDP mean (local)",
        "Laplace mean (central)",
        "Gaussian mean (central)",
        "SVT automatic mean (central)",
    ]


def test_the_staircase_answers_with_its_own_law_on_counts_and_means():
    # each family answers through its own Counts: the staircase's std is the staircase's, not another family's
    at = open_page("compare", cmp_epsilon=2)
    at.multiselect(key="cmp_count_mechs").set_value(["Staircase (central)", "Gaussian (central)"]).run()
    assert_clean(at)
    shown = dict(zip(*[at.dataframe[0].value[c] for c in at.dataframe[0].value.columns[:2]]))
    assert shown["Staircase (central)"] == Staircase.from_epsilon(2.0, sensitivity=2.0).std
    assert shown["Gaussian (central)"] == Gaussian.from_epsilon_delta(2.0, 1e-5, np.sqrt(2.0)).std
    assert shown["Staircase (central)"] != shown["Gaussian (central)"]
    at = open_page("compare", cmp_query="Mean of a number", cmp_mean_column="age", trials=300)
    at.multiselect(key="cmp_mean_mechs").set_value(["Staircase mean (central)", "Laplace mean (central)"]).run()
    assert_clean(at)
    assert at.dataframe[0].value["mechanism"].tolist() == ["Staircase mean (central)", "Laplace mean (central)"]
