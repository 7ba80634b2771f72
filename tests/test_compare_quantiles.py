"""Compare's quantiles view: the exponential mechanism against quantiles read off noisy histograms, at the same ε,
over a range the user declares; shown numbers are dpcore's, the stated bound holds in simulation, names are plain."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore import families
from dpcore.contributions import ContributionBounds, bound_contributions, person_codes
from dpcore.quantiles import ExponentialQuantile
from explorer import compare_quantiles, unit
from explorer.columns import numeric_values
from explorer.dataset import load_demo
from explorer.markup import number
from tests.apptest import assert_clean, open_page
from tests.test_compare_files import csv, downloads, seed_words  # noqa: F401 (a fixture)
from tests.test_page_compare import VISITS, visits_compare
from tests.test_snippets import run_snippet

QUERY = {"cmp_query": "Quantile or median"}


def table(at) -> dict:
    frame = at.dataframe[0].value
    return {row["mechanism"]: row for _, row in frame.iterrows()}


def ages():
    return numeric_values(load_demo("census").frame["age"])[0]


def test_the_view_shows_dpcores_stated_bound_and_a_simulated_one_within_it():
    at = open_page("compare", **QUERY, cmp_q_column="age", cmp_epsilon=0.5)
    assert_clean(at)
    shown = table(at)
    assert list(shown) == list(compare_quantiles.DEFAULT)
    lower, upper = compare_quantiles.DEFAULT_RANGE
    law = ExponentialQuantile(0.5, lower, upper, 0.5).intervals(ages())
    row = shown[compare_quantiles.EXPONENTIAL]
    assert float(row["stated 95% ±"]) == float(f"{law.value_error_bound(0.95):.6g}")  # shown to 6 digits
    # the stated bound holds with probability ≥ 95%: the simulated 95th percentile is at or below it (1,000 trials;
    # the stated bound is loose here, so no sampling error reaches it)
    assert row["simulated 95% ±"] <= law.value_error_bound(0.95)
    assert all(r["stated 95% ±"].startswith("none") for m, r in shown.items() if m != compare_quantiles.EXPONENTIAL)


def test_the_stated_bound_covers_95_percent_of_simulated_errors_at_every_epsilon():
    # P(|error| ≤ stated) ≥ 0.95 (McSherry & Talwar 2007, Lemma 7); over 4,000 draws the fraction within may fall
    # below 0.95 by sampling error only: 3σ = 3·√(0.95·0.05/4000) ≈ 0.0103
    values = ages()
    law = ExponentialQuantile(1.0, 0.0, 100.0, 0.5).intervals(values)
    for eps in (0.01, 0.05, 0.2, 1.0):
        moved = law.at_epsilon(eps)
        errors = moved.simulate_errors(np.random.default_rng(11), 4_000)[0]
        within = np.mean(np.abs(errors) <= moved.value_error_bound(0.95))
        assert within >= 0.95 - 0.0103, (eps, within)


def test_at_epsilon_is_the_law_built_afresh_at_that_epsilon():
    values = ages()
    base = ExponentialQuantile(1.0, 0.0, 100.0, 0.3).intervals(values)
    for eps in (0.05, 3.0):
        fresh = ExponentialQuantile(eps, 0.0, 100.0, 0.3).intervals(values)
        moved = base.at_epsilon(eps)
        assert np.allclose(moved.probabilities(), fresh.probabilities(), rtol=1e-12, atol=1e-300)
        assert moved.value_error_bound(0.95) == fresh.value_error_bound(0.95)


def test_every_mechanism_has_a_plain_name_and_every_central_family_is_offered():
    at = open_page("compare", **QUERY)
    chooser = at.multiselect(key="cmp_q_mechs")
    assert chooser.options == list(compare_quantiles.MECHANISMS)
    assert len(chooser.options) == 1 + len(families.central())
    for option in chooser.options:  # names on screen, never a key such as "laplace" or "laplace_count"
        assert "_" not in option and option[0].isupper()
    assert {f.name for f in families.central()} <= {o.split(" ")[0] for o in chooser.options}


@pytest.mark.parametrize("column", ["age", "hours-per-week", "capital-gain"])
def test_the_declared_range_is_never_read_from_the_data(column):
    at = open_page("compare", **QUERY, cmp_q_column=column, trials=100)
    assert_clean(at)
    lower = at.number_input(key=f"cmp_q_lower_{column}").value
    upper = at.number_input(key=f"cmp_q_upper_{column}").value
    assert (lower, upper) == compare_quantiles.DEFAULT_RANGE  # the same whatever the column holds


def test_a_typed_range_is_used_and_less_epsilon_widens_the_histograms_errors():
    at = open_page("compare", **QUERY, cmp_q_column="age", trials=300)
    at.number_input(key="cmp_q_upper_age").set_value(30.0).run()
    assert_clean(at)
    above = int(np.sum(ages() > 30))  # the values the typed range clips, counted at its upper end
    assert any(f"{above:,} above were counted at its ends" in c.value for c in at.caption)
    at.number_input(key="cmp_q_upper_age").set_value(100.0).run()
    before = table(at)
    at.select_slider(key="cmp_epsilon").set_value(0.01).run()
    assert_clean(at)
    after = table(at)
    # a histogram's cumulative counts carry noise of scale 1/ε: 100× less ε, wider errors for every family
    histograms = [m for m in after if m != compare_quantiles.EXPONENTIAL]
    assert histograms and all(after[m]["simulated 95% ±"] > before[m]["simulated 95% ±"] for m in histograms)


def test_a_range_that_is_not_a_range_is_refused_in_one_plain_sentence():
    at = open_page("compare", **QUERY, cmp_q_column="age", trials=100)
    at.number_input(key="cmp_q_lower_age").set_value(200.0).run()
    assert not at.exception
    [message] = [e.value for e in at.error]
    assert "range" in message and "_" not in message and "Traceback" not in message


def test_the_link_carries_the_view():
    at = open_page("compare", **QUERY, cmp_q_column="age", cmp_q="0.9", cmp_q_bins="20", trials=100)
    assert_clean(at)
    assert at.slider(key="cmp_q").value == 0.9 and at.select_slider(key="cmp_q_bins").value == 20
    assert any("0.9-quantile" in m.value for m in at.markdown)


def test_the_snippet_prints_the_releases_the_file_holds(downloads, tmp_path):  # noqa: F811 (the fixture)
    at = open_page("compare", **QUERY, cmp_q_column="hours-per-week", cmp_q="0.25", cmp_epsilon=0.5, trials=100)
    at.multiselect(key="cmp_q_mechs").set_value(list(compare_quantiles.MECHANISMS)).run()
    assert_clean(at)
    page = csv(downloads["Simulated quantiles (CSV), not private"])
    printed = csv(run_snippet(downloads["Python snippet"], tmp_path))
    assert printed["mechanism"].tolist() == page["released by"].tolist() == list(compare_quantiles.MECHANISMS)
    assert printed["released"].tolist() == page["released"].tolist()  # the same draws, to the last bit


def test_under_a_person_unit_every_mechanism_takes_one_row_per_person_and_says_person(downloads):  # noqa: F811
    # the rule: one row per person, sampled from the page's seed; each calibration then holds under add/remove one
    # person unchanged, and the errors stay against the quantile of all the rows
    at = visits_compare(trials=200)
    at.selectbox(key="cmp_query").set_value("Quantile or median").run()
    at.selectbox(key="cmp_q_column").set_value("cost").run()
    at.select_slider(key="cmp_epsilon").set_value(0.5).run()
    before = at.dataframe[0].value
    at.radio(key=unit.KEY).set_value(unit.PERSON).run()
    assert_clean(at)
    page = csv(downloads["Simulated quantiles (CSV), not private"])
    assert (page["unit_of_privacy"] == "person").all()
    assert (page["neighbouring_relation"] == "add/remove one person").all()
    values = numeric_values(VISITS.frame["cost"])[0]
    persons = person_codes(VISITS.frame["patient_id"].to_numpy())[0]
    one = bound_contributions(
        persons, np.random.default_rng(seed_words("compare-one-row")), bounds=ContributionBounds()
    )
    lower, upper = compare_quantiles.DEFAULT_RANGE
    law = ExponentialQuantile(0.5, lower, upper, 0.5).intervals(values[one.kept])
    every_row = ExponentialQuantile(0.5, lower, upper, 0.5).intervals(values)
    row = table(at)[compare_quantiles.EXPONENTIAL]
    assert float(row["stated 95% ±"]) == float(f"{law.value_error_bound(0.95):.6g}")  # dpcore's, on one row each
    said = " ".join(c.value for c in at.caption)
    assert f"{np.unique(persons).size:,} of {values.size:,} rows are kept" in said
    assert f"moves it by {number(law.true_value - every_row.true_value)}" in said
    at.radio(key=unit.KEY).set_value(unit.ROW).run()
    pd.testing.assert_frame_equal(at.dataframe[0].value, before)
