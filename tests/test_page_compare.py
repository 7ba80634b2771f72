"""The Compare page: both queries run, shown numbers are dpcore's, slider moves rerun; under a declared person unit
the noise follows the person's sensitivity (m/ε for a Laplace count), and one row again gives today's numbers."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from dpcore import OUE, Gaussian, Laplace, families
from dpcore.contributions import ContributionBounds, bound_contributions, person_codes, rows_per_person
from dpcore.staircase import Staircase
from explorer import unit
from explorer.columns import encode_categories
from explorer.dataset import load_demo
from explorer.state import DEFAULT_SEED
from tests.apptest import PAGES, assert_clean, open_page


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


# --- the declared unit of privacy (issue 20, part 4): a person with at most m rows on the visits demo --------------

VISITS = load_demo("visits")


def seed_words(salt: str) -> list[int]:
    # the sidebar's default seed and the salt, as explorer.state.seed_words derives a view's seed
    return [DEFAULT_SEED, sum(map(ord, salt))]


def visits_compare(m: int | None = None, **query):
    """The Compare page on the visits demo (chosen on the Data page: a link does not load data), the unit declared
    by the URL-bound widgets under Compare's title: a person (patient_id, at most m rows each), or one row."""
    at = open_page("data", **query)
    at.button(key="demo_visits").click().run()
    at.switch_page(PAGES["compare"]).run()
    if m is not None:
        at.radio(key=unit.KEY).set_value(unit.PERSON).run()
        assert at.selectbox(key=unit.ID_KEY).value == "patient_id"  # the identifier-like column first
        at.number_input(key=unit.ROWS_KEY).set_value(float(m)).run()
    return at


def shown_stds(at) -> dict:
    table = at.dataframe[0].value
    return dict(zip(table["mechanism"], table["std (theory)"]))


@pytest.mark.parametrize("m", [1, 5, 40])
def test_under_a_person_unit_the_central_counts_noise_has_scale_m_over_epsilon(m):
    at = visits_compare(m)
    at.select_slider(key="cmp_epsilon").set_value(2.0).run()
    assert_clean(at)
    column = at.selectbox(key="cmp_column").value
    codes, labels, _ = encode_categories(VISITS.frame[column])
    k, j = len(labels), int(np.argmax(np.bincount(codes)))
    bounds = ContributionBounds(max_rows=m)  # Central's histogram rule: at most m of each person's rows, any bins
    sensitivity = bounds.rows_histogram_sensitivity()
    shown = shown_stds(at)
    # the noise is calibrated to the person's sensitivity: Laplace of scale m/ε, the Gaussian at ℓ2 = m
    assert shown["Laplace (central)"] == Laplace.from_epsilon(2.0, sensitivity=sensitivity.l1).std
    assert shown["Laplace (central)"] == Laplace(m / 2.0).std
    assert shown["Gaussian (central)"] == Gaussian.from_epsilon_delta(2.0, 1e-5, sensitivity.l2).std
    # a local oracle answers one report per person, one row of each sampled from the page's seed
    persons = person_codes(VISITS.frame["patient_id"].to_numpy())[0]
    one = bound_contributions(
        persons, np.random.default_rng(seed_words("compare-one-row")), bounds=ContributionBounds()
    )
    assert one.rows_kept == np.unique(persons).size
    assert shown["OUE (local)"] == OUE(2.0, k).std(np.bincount(codes[one.kept], minlength=k))[j]
    # the sentence says how many rows the bounding kept: dpcore's, replayed from the seed, exactly Σ min(rows, m)
    kept = bound_contributions(persons, np.random.default_rng(seed_words("compare-bound")), bounds=bounds).rows_kept
    assert kept == np.minimum(rows_per_person(persons), m).sum()
    said = " ".join(c.value for c in at.caption)
    assert f"{kept:,} of {len(VISITS.frame):,} rows are kept" in said and "add/remove one person" in said
    assert any("**Protected unit:** a person (column **patient\\_id**" in md.value for md in at.markdown)


def test_the_curves_title_names_the_n_each_model_answers():
    # under a person unit the curves are drawn for one report per person (local) and the rows kept (central): the
    # title said "n = 19,520", every row of the table
    import json

    def title(at) -> str:
        (chart,) = [c for c in at.get("plotly_chart") if c.key == "cmp_count_curve"]
        return json.loads(chart.proto.spec)["layout"]["title"]["text"]

    at = visits_compare()
    assert_clean(at)
    one_row = title(at)  # one row: every mechanism answers every row, named once (it read "n = 344, n = 344")
    assert one_row.endswith(f", n = {len(VISITS.frame):,})") and one_row.count("n = ") == 1, one_row
    at = visits_compare(10)
    assert_clean(at)
    persons = person_codes(VISITS.frame["patient_id"].to_numpy())[0]
    kept = bound_contributions(
        persons, np.random.default_rng(seed_words("compare-bound")), bounds=ContributionBounds(max_rows=10)
    ).rows_kept
    shown = title(at)
    assert f"n = {np.unique(persons).size:,} (local)" in shown and f"n = {kept:,} (central)" in shown, shown
    assert f"{len(VISITS.frame):,}" not in shown


def test_switching_back_to_one_row_restores_todays_numbers_exactly():
    at = visits_compare()
    at.run()
    assert_clean(at)
    before = at.dataframe[0].value
    # today's replace-one calibration: Laplace at L1 sensitivity 2
    assert shown_stds(at)["Laplace (central)"] == Laplace.from_epsilon(1.0, sensitivity=2.0).std
    at.radio(key=unit.KEY).set_value(unit.PERSON).run()
    assert shown_stds(at)["Laplace (central)"] == Laplace(unit.DEFAULT_ROWS / 1.0).std
    at.radio(key=unit.KEY).set_value(unit.ROW).run()
    assert_clean(at)
    pd.testing.assert_frame_equal(at.dataframe[0].value, before)
    assert not [c.value for c in at.caption if "rows are kept" in c.value]


def test_under_a_person_unit_the_means_bound_rows_and_leave_out_the_svt_mean():
    at = visits_compare(5, trials=200)
    at.selectbox(key="cmp_query").set_value("Mean of a number").run()
    at.selectbox(key="cmp_mean_column").set_value("minutes").run()
    assert_clean(at)
    table = at.dataframe[0].value
    assert "SVT automatic mean (central)" not in table["mechanism"].tolist()
    said = " ".join(c.value for c in at.caption)
    persons = person_codes(VISITS.frame["patient_id"].to_numpy())[0]
    assert f"{np.minimum(rows_per_person(persons), 5).sum():,} of {len(VISITS.frame):,} rows are kept" in said
    assert "SVT automatic mean is left out" in said


@pytest.mark.parametrize("query", ["Counts of a category", "Mean of a number", "Quantile or median"])
def test_an_identifier_with_missing_values_gets_one_sentence_and_no_comparison(query):
    at = open_page("compare", cmp_query=query, trials=100)  # census: workclass is missing on 1,844 rows
    at.radio(key=unit.KEY).set_value(unit.PERSON).run()
    at.selectbox(key=unit.ID_KEY).set_value("workclass").run()
    assert_clean(at)
    warnings = [w.value for w in at.warning if "cannot name the persons" in w.value]
    assert len(warnings) == 1 and "1,844 rows have no value in it" in warnings[0]
    assert not at.dataframe  # nothing compared under a unit that cannot be bounded


def test_a_huge_public_range_is_refused_in_one_sentence_and_the_errors_stay_finite():
    # a link set the range's upper end to 1e308: 1,000 errors near 1e308 overflowed the box chart's mean (numpy's sum,
    # "overflow encountered in reduce") and the page fell over. The range takes ±10^15 as every amount does.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        at = open_page("compare", cmp_query="Quantile or median", cmp_q_upper_age="1e308")
    assert not at.exception and not at.error
    notes = [w.value for w in at.warning] + [i.value for i in at.info]
    assert sum("Upper end of the declared range" in n and "1e308" in n for n in notes) == 1
    assert at.number_input(key="cmp_q_upper_age").value == 100.0
    boxes = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if '"box"' in c.proto.spec)
    assert all(np.isfinite(trace["mean"][0]) for trace in boxes["data"])


def test_the_box_chart_takes_the_mean_of_errors_near_the_largest_float():
    from explorer import charts

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (box,) = charts.error_boxes({"wide": np.full(1000, 1.5e308)}).data
    assert box.mean[0] == pytest.approx(1.5e308)
