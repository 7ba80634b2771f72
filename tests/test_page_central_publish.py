"""Central DP's Publish sections: declared facts in, one secure draw out, charged to the log before it is shown.

The three attacks of the review, run against the page's publication path: recomputing the noise from the link's
seed, combining publications at two values of ε, and subtracting two publications that once shared a draw; none
gives back the truth, and two publications of the same settings differ.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore import dp_count, dp_quantile, lattice_draw
from explorer import publishing, releases, state
from explorer.columns import numeric_values
from explorer.dataset import load_demo
from tests.apptest import open_page

CENSUS = load_demo("census")
SALT = "central"  # app_pages/central.py's salt of the session seed


@pytest.fixture(autouse=True)
def own_log(tmp_path, monkeypatch):
    """Each test publishes to a log of its own (the default budget, ε = 5, per dataset)."""
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))
    return tmp_path


def _publish(at):
    at.button(key=[b.key for b in at.button if b.key and b.key.endswith("_publish")][0]).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _published_table(at) -> pd.DataFrame:
    tables = [d.value for d in at.dataframe if list(d.value.columns) == ["label", "released value"]]
    assert tables, "no published table"
    return tables[-1]


def _exact(at) -> float:
    """The last publication's exact value, as the log keeps it (the screen rounds it to what the noise allows: an
    attack on the exact value is the stronger one)."""
    dataset = at.session_state[state.DATASET]
    return float(publishing.publication_log().releases(dataset.fingerprint or dataset.identity)[-1].values[0])


def _spent(at) -> float:
    log = publishing.publication_log()
    return log.spent(at.session_state[state.DATASET].fingerprint or at.session_state[state.DATASET].identity).epsilon


def test_publishing_a_count_shows_the_release_alone_and_charges_the_log_first():
    at = open_page("central", cen_query="Count", cen_epsilon=0.5)
    before = _spent(at)
    _publish(at)
    table = _published_table(at)
    assert table["label"].tolist() == ["value"] and len(table) == 1
    assert _spent(at) == pytest.approx(before + 0.5)  # charged in full
    shown = " ".join(s.value for s in at.success)
    assert "add/remove one record" in shown and "ε \\= 0\\.5" in shown
    # the published value is shown alone: no true count beside it in the Publish section's table
    assert "true" not in " ".join(table.columns)


def test_two_publications_of_the_same_settings_and_seed_differ_and_neither_is_the_seeded_draw():
    values, _ = numeric_values(CENSUS.frame["age"])
    truth = float(values.size)
    published = []
    for _ in range(2):
        at = open_page("central", cen_query="Count", cen_epsilon=1, seed=2017)
        published.append(_exact(_publish(at)))
    assert published[0] != published[1]
    # attack 1: recompute the noise from the link's seed, as the page's simulated release draws it, and subtract
    page_seed = [2017, sum(map(ord, SALT))]
    seeded = releases.central_query(values, "count", 1.0, page_seed)
    assert all(p != seeded.noisy_value for p in published)
    for seed in (page_seed, [2017, 0], 2017, 0):
        redrawn = lattice_draw(dp_count(values, 1.0, 0).mechanism, truth, np.random.default_rng(seed)).value
        assert all(p != redrawn for p in published)


def test_a_publication_is_not_redrawn_by_a_rerun_nor_reproduced_by_the_same_link():
    at = open_page("central", cen_query="Count", cen_epsilon=1)
    first = float(_published_table(_publish(at))["released value"][0])
    exact = _exact(at)
    at.run()  # a rerun shows what was published, never a new draw
    assert float(_published_table(at)["released value"][0]) == first
    again = open_page("central", cen_query="Count", cen_epsilon=1)  # the same link in a new tab
    assert not [d for d in again.dataframe if list(d.value.columns) == ["label", "released value"]]
    assert _exact(_publish(again)) != exact  # the exact values: the screen's whole numbers may agree by chance


def test_the_epsilon_doubling_and_shared_noise_attacks_recover_nothing():
    """2·r(ε=1) − r(ε=0.5) once gave the exact count; the difference of two conditions once gave an exact count."""
    values, _ = numeric_values(CENSUS.frame["age"])
    truth = float(values.size)
    publishing.publication_log().set_budget(CENSUS.fingerprint or CENSUS.identity, 100.0, 1e-5, reason="test")
    combos, gaps = [], []
    for _ in range(12):
        r1 = _exact(_publish(open_page("central", cen_query="Count", cen_epsilon=1)))
        r2 = _exact(_publish(open_page("central", cen_query="Count", cen_epsilon=0.5)))
        combos.append(2 * r1 - r2)
        gaps.append(r1 - truth)
    # independent Laplace noise on the exact values the log keeps: 2·r₁ − r₂ − truth has variance 4·2·1² + 2·2² = 16
    # (std 4), never exactly 0 (the values lie on a fine lattice, not on whole numbers)
    assert np.count_nonzero(np.asarray(combos) == truth) == 0
    assert np.std(np.array(combos) - truth, ddof=1) > 1.0  # std 4; below 1 has probability < 1e-6 for 12 draws
    assert np.count_nonzero(np.asarray(gaps) == 0.0) == 0


def test_publishing_needs_declared_bounds_and_says_so_in_one_sentence():
    at = open_page("central", cen_query="Sum")
    button = [b for b in at.button if b.key == "cen_pub_publish"][0]
    assert button.disabled
    assert any("declare the lower bound and the upper bound" in i.value for i in at.info)


def test_histogram_labels_come_from_the_declared_bounds_alone():
    link = {"cen_query": "Histogram", "cen_bins": 4, "cen_pub_lower_age": "0", "cen_pub_upper_age": "100"}
    labels = _published_table(_publish(open_page("central", **link)))["label"].tolist()
    assert labels == ["below 25", "[25, 50)", "[50, 75)", "75 and above"]


def test_category_counts_publish_the_declared_domain_with_absent_categories_and_other():
    domain = "Bachelors\nHS-grad\nNo such degree"
    link = {"cen_query": "Category counts", "cen_category_column": "education", "cen_pub_domain_education": domain}
    at = open_page("central", **link, cen_pub_other_education="true")
    table = _published_table(_publish(at))
    assert table["label"].tolist() == ["Bachelors", "HS-grad", "No such degree", "(other)"]


def test_most_common_chooses_among_the_declared_domain_only():
    link = {
        "cen_query": "Most common value",
        "cen_category": "race",
        "cen_pub_mode_domain_race": "Invented A\nInvented B",
    }
    chosen = _published_table(_publish(open_page("central", **link)))["released value"][0]
    assert chosen in ("Invented A", "Invented B")


def test_publishing_over_the_budget_is_refused_and_nothing_is_shown():
    at = open_page("central", cen_query="Count", cen_epsilon=10)  # the log's default budget is ε = 5
    _publish(at)
    assert any("Not published" in w.value and "budget" in w.value for w in at.warning), [w.value for w in at.warning]
    assert not [d for d in at.dataframe if list(d.value.columns) == ["label", "released value"]]


def test_two_conditions_published_at_one_epsilon_do_not_share_noise():
    """Once the difference of ``age ≥ 50`` and ``age ≥ 51`` gave the exact number of people aged 50."""
    ages, _ = numeric_values(CENSUS.frame["age"])
    exact = int(np.sum(ages == 50))
    publishing.publication_log().set_budget(CENSUS.fingerprint or CENSUS.identity, 100.0, 1e-5, reason="test")
    gaps = []
    for _ in range(6):
        counts = []
        for value in ("50", "51"):
            link = {"cen_query": "Count where…", "cen_where_column": "age", "cen_where_condition": "≥"}
            at = open_page("central", **link, cen_pub_value_age=value)
            counts.append(float(_published_table(_publish(at))["released value"][0]))
        gaps.append(counts[0] - counts[1] - exact)
    # a shared draw made every gap 0; two independent Laplace(1) noises (even rounded to whole units, as a published
    # count is) give std 2, and 6 gaps below 0.3 are below 1e-4 likely
    assert np.count_nonzero(np.asarray(gaps) == 0.0) < len(gaps)
    assert np.std(gaps, ddof=1) > 0.3


def test_the_accountant_shows_the_log_exports_it_and_offers_no_way_to_empty_it():
    at = _publish(open_page("central", cen_query="Count", cen_epsilon=0.5))
    at.switch_page("app_pages/accountant.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    logged = [d.value for d in at.dataframe if "the release holds under" in d.value.columns]
    assert len(logged) == 1 and logged[0]["ε charged"].tolist() == [0.5]
    assert not any(w in b.label.lower() for b in at.button for w in ("empty", "clear", "delete", "reset the log"))
    at.number_input(key="pub_budget_epsilon").set_value(0.2).run()  # below what was spent: refused, unchanged
    at.button(key="pub_set_budget").click().run()
    assert any("Not changed" in w.value for w in at.warning), [w.value for w in at.warning]


def test_a_publication_is_shown_under_its_own_statistic_only():
    link = {"cen_query": "Sum", "cen_pub_lower_age": "0", "cen_pub_upper_age": "100"}
    at = _publish(open_page("central", **link))
    assert len([d for d in at.dataframe if list(d.value.columns) == ["label", "released value"]]) == 1
    at.radio(key="cen_query").set_value("Mean").run()  # another statistic: its section shows nothing published yet
    assert not [d for d in at.dataframe if list(d.value.columns) == ["label", "released value"]]


@pytest.mark.parametrize("query", ["Count", "Sum", "Mean", "Histogram", "Count where…", "Category counts"])
def test_a_family_without_a_lattice_is_not_published_and_the_section_says_so_in_one_sentence(query, own_log):
    """dpcore.publish draws every released number on an exact lattice: the staircase has none (Family.lattice is None)."""
    at = open_page("central", cen_query=query, cen_mechanism="Staircase")
    assert not at.exception and not at.error, [e.value for e in at.error]
    said = [i.value for i in at.info if "simulated here and not published" in i.value]
    assert len(said) == 1 and "choose Laplace noise" in said[0] and said[0].count(". ") == 0
    assert not [b for b in at.button if b.key and b.key.endswith("_publish")]  # nothing can be drawn
    assert not list(own_log.iterdir()) or _spent(at) == 0.0  # and nothing was charged


def test_the_publications_mean_plan_reads_declared_facts_only():
    from dpcore.publish import plan_mean_epsilon

    link = {
        "cen_query": "Mean",
        "cen_epsilon": 0.5,
        "cen_pub_lower_age": "0",
        "cen_pub_upper_age": "100",
        "cen_pub_plan_n_age": "20000",
        "cen_pub_plan_accuracy_age": "0.5",
    }
    at = open_page("central", **link)
    assert not at.exception and not at.error, [e.value for e in at.error]
    (said,) = [i.value for i in at.info if "planned records" in i.value]
    expected = plan_mean_epsilon(0.5, 0.0, 100.0, 20_000)
    said = said.replace("\\", "")  # markdown escapes
    assert f"ε = **{expected:.3g}** gives ±0.5 at 95%" in said and "page's ε = 0.5" in said


# ---------------------------------------------------------------------- the quantile (the exponential mechanism)

#: A declared range for age and a fine declared grid: two independent publications share a grid point with
#: probability about 10⁻⁶ (the median falls in the interval between two ages, one year wide).
QUANTILE = {"cen_query": "Quantile", "cen_pub_lower_age": "0", "cen_pub_upper_age": "100", "cen_pub_grid_age": "1e-06"}


def _published_quantile(**link) -> float:
    return float(_published_table(_publish(open_page("central", **{**QUANTILE, **link})))["released value"][0])


def test_publishing_a_quantile_needs_a_declared_range_and_says_so():
    at = open_page("central", cen_query="Quantile")
    button = [b for b in at.button if b.key == "cen_pub_quantile_publish"][0]
    assert button.disabled
    assert any("declare the lower bound and the upper bound" in i.value for i in at.info)


def test_publishing_the_median_charges_epsilon_and_shows_a_grid_point_of_the_declared_range():
    at = open_page("central", **{**QUANTILE, "cen_epsilon": 0.5, "cen_pub_grid_age": "1"})
    before = _spent(at)
    table = _published_table(_publish(at))
    assert table["label"].tolist() == ["median"]
    value = float(table["released value"][0])
    assert 0.0 <= value <= 100.0 and value == round(value)  # on the declared grid of step 1
    assert _spent(at) == pytest.approx(before + 0.5)
    shown = " ".join(s.value for s in at.success)
    assert "add/remove one record" in shown


def test_the_three_attacks_recover_nothing_from_published_quantiles():
    """Seed recomputation, ε doubling and subtraction of two publications, against the page's publication path."""
    values, _ = numeric_values(CENSUS.frame["age"])
    truth = float(np.quantile(values, 0.5, method="averaged_inverted_cdf"))
    publishing.publication_log().set_budget(CENSUS.fingerprint or CENSUS.identity, 100.0, 1e-5, reason="test")
    # attack 1: redraw the release from the link's seed (as the page's simulated release is drawn) and others
    published = [_published_quantile(cen_epsilon=1, seed=2017) for _ in range(2)]
    assert published[0] != published[1]  # a fresh secure draw each time, from the same link and seed
    page_seed = [2017, sum(map(ord, SALT))]
    for seed in (page_seed, [2017, 0], 2017, 0):
        redrawn = dp_quantile(values, 0.5, 0.0, 100.0, 1.0, np.random.default_rng(seed)).noisy_value
        assert all(abs(p - redrawn) > 1e-6 for p in published)  # not the seeded draw, even at the grid's precision
    # attack 2: publications at ε and ε/2 combined as for additive noise (2·r₁ − r₂) give back no exact truth
    combos = []
    for _ in range(4):
        r1, r2 = _published_quantile(cen_epsilon=1), _published_quantile(cen_epsilon=0.5)
        combos.append(2 * r1 - r2)
    assert np.count_nonzero(np.asarray(combos) == truth) == 0
    # attack 3: two quantiles published from the same settings twice: their differences vary (no shared draw)
    gaps = [_published_quantile(cen_q=0.75) - _published_quantile(cen_q=0.5) for _ in range(3)]
    assert len(set(gaps)) == len(gaps)
    assert all(p != truth for p in published)


TWO = {
    "cen_query": "Count where…",
    "cen_where_column": "occupation",
    "cen_where_value_occupation": "Sales",
    "cen_where_and": "true",
    "cen_where2_column": "sex",
    "cen_where2_value_sex": "Male",
}


def test_two_conditions_publish_one_count_at_one_epsilon_once_both_values_are_declared():
    at = open_page("central", **TWO, cen_pub_value_occupation="Sales", cen_epsilon=0.5)
    button = [b for b in at.button if b.key == "cen_pub_where_publish"][0]
    assert button.disabled  # the second value is not declared yet: said in one sentence
    assert any("the value of the second condition" in i.value for i in at.info)
    at = open_page("central", **TWO, cen_pub_value_occupation="Sales", cen_pub_value2_sex="Female", cen_epsilon=0.5)
    before = _spent(at)
    table = _published_table(_publish(at))
    assert table["label"].tolist() == ["occupation is Sales and sex is Female"]  # the declared values, not the view's
    assert _spent(at) == pytest.approx(before + 0.5)  # one count, one charge


def test_the_two_way_table_publishes_every_declared_pair_and_only_those():
    link = {
        "cen_query": "Two-way table",
        "cen_table_rows": "race",
        "cen_table_columns": "sex",
        "cen_pub_rows_race": "White\nMartian",
        "cen_pub_columns_sex": "Female\nMale",
        "cen_epsilon": 0.5,
    }
    at = open_page("central", **link)
    before = _spent(at)
    table = _published_table(_publish(at))
    # the product of the declared lists, row by row, an absent pair ("Martian") included; no value of the data
    assert table["label"].tolist() == ["White × Female", "White × Male", "Martian × Female", "Martian × Male"]
    assert _spent(at) == pytest.approx(before + 0.5)  # the cells are disjoint: one count's ε for the table
    second = _published_table(_publish(at))
    assert not np.array_equal(second["released value"], table["released value"])  # fresh noise each time


def test_counts_per_month_publish_every_month_of_the_declared_years():
    at = open_page("data")
    rows = "when,score\n" + "".join(f"2023-{m:02d}-15,{m}\n" for m in (1, 1, 2, 5, 12)) + "2021-03-01,1\n"
    at.file_uploader(key="data_upload").upload("d.csv", rows.encode(), "text/csv").run()
    at.switch_page("app_pages/central.py").run()
    at.radio(key="cen_query").set_value("Per year or month").run()
    at.selectbox(key="cen_period").set_value("month").run()
    assert any("declare the first year and the last year" in i.value for i in at.info)
    at.number_input(key="cen_pub_first_year_when").set_value(2023).run()
    at.number_input(key="cen_pub_last_year_when").set_value(2024).run()
    table = _published_table(_publish(at))
    assert table["label"].tolist() == [f"{y}-{m:02d}" for y in (2023, 2024) for m in range(1, 13)]


# ---------------------------------------------- count where and category counts under a person unit (issue 20, h5)


def _person_page(query: str, m: int = 5, **widgets):
    """Central DP on the visits demo under a person unit (patient_id, at most m rows each), ε = 0.5."""
    from tests.test_unit import _central

    at = _central(m, query=query)
    for key, value in widgets.items():  # the view's choices first, then what its Publish section declares
        if not key.startswith("cen_pub_"):
            at.selectbox(key=key).set_value(value).run()
    for key, value in widgets.items():
        if key.startswith("cen_pub_"):
            (at.text_area if "domain" in key else at.number_input)(key=key).set_value(value)
    at.select_slider(key="cen_epsilon").set_value(0.5).run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    return at


def _visits_rows_meeting(m: int, at_least: float) -> float:
    """Σ over persons of min(their visits of at least ``at_least`` minutes, m): what a bounded count where keeps."""
    frame = load_demo("visits").frame
    meeting = frame.loc[frame["minutes"] >= at_least, "patient_id"].value_counts().to_numpy()
    return float(np.minimum(meeting, m).sum())


def test_a_count_where_under_a_person_unit_counts_at_most_m_rows_each_with_noise_for_m():
    # 6 s: the simulation keeps min(rows meeting, m) of each person, with Laplace scale m/ε (sensitivity m)
    from dpcore import Laplace

    at = _person_page("Count where…", cen_where_column="minutes", cen_where_condition="≥")
    value = at.number_input(key="cen_where_value_minutes").value
    assert [m.value for m in at.metric if m.label == "True answer"] == [f"{_visits_rows_meeting(5, value):,.0f}"]
    assert [m.value for m in at.metric if m.label == "Theoretical std of the error"] == [f"{Laplace(10.0).std:.4g}"]
    shown = " ".join(m.value for m in at.markdown)
    assert "sensitivity Δ = 5" in shown and "unit=person" in shown and "add/remove one person" in shown
    assert not any("protects one row only" in i.value for i in at.info)
    assert not [b for b in at.get("download_button") if b.proto.label == "Python snippet"]  # the snippet is row-level


def test_category_counts_under_a_person_unit_have_the_histogram_s_noise_for_m():
    at = _person_page("Category counts", m=7, cen_category_column="clinic")
    shown = " ".join(m.value for m in at.markdown)
    assert "sensitivity Δ = 7" in shown and "unit=person" in shown
    assert [m.value for m in at.metric if m.label == "Laplace noise std"] == [f"{np.sqrt(2) * 7 / 0.5:.4g}"]


def test_a_count_where_is_published_per_person_charged_first_with_its_condition_stated():
    from dpcore.neighbours import UNIT_PERSON

    at = _person_page("Count where…", cen_where_column="minutes", cen_where_condition="≥", cen_pub_value_minutes=30.0)
    before = _spent(at)
    _publish(at)
    dataset = at.session_state[state.DATASET]
    release = publishing.publication_log().releases(dataset.fingerprint or dataset.identity)[-1]
    assert release.unit == UNIT_PERSON and release.relation.words(release.unit) == "add/remove one person"
    assert _spent(at) == pytest.approx(before + 0.5)
    facts = {f.name: f.value for f in release.public}
    # a count_where plan: the declared condition travels in the plan's statistic and its facts
    assert facts["statistic"] == "count of rows where minutes ≥ 30" and facts["conditions"] == "minutes ≥ 30"
    assert "a missing value meets no condition" in facts["rows meeting them"]
    assert facts["contribution bounds"].startswith("at most 5 row(s) per person")
    # the count of the bounded rows meeting the condition (the same whatever rows are sampled), Laplace scale 10:
    # |noise| > 10 ln 10⁶ with probability 10⁻⁶
    assert abs(float(release.values[0]) - _visits_rows_meeting(5, 30.0)) < 10 * np.log(1e6)


def test_category_counts_are_published_per_person_over_the_declared_domain():
    from dpcore.neighbours import UNIT_PERSON

    domain = "Airport\nHarbour\nAtlantis"
    at = _person_page("Category counts", cen_category_column="clinic", cen_pub_domain_clinic=domain)
    before = _spent(at)
    table = _published_table(_publish(at))
    assert table["label"].tolist() == ["Airport", "Harbour", "Atlantis"]  # declared, an absent one included
    dataset = at.session_state[state.DATASET]
    release = publishing.publication_log().releases(dataset.fingerprint or dataset.identity)[-1]
    assert release.unit == UNIT_PERSON and _spent(at) == pytest.approx(before + 0.5)
    assert abs(float(release.values[2])) < 10 * np.log(1e6)  # Atlantis holds nobody: a noisy zero of scale m/ε = 10
