"""The session's unit of privacy (explorer.unit) and the pages that honour it: Central DP and Local DP.

Under a person unit with at most m rows per person, Central DP's count is the count of the bounded rows,
Σ min(rows of a person, m), with Laplace noise of scale m/ε; its labels, files and ledger entries say unit=person;
switching back to one row gives today's numbers again. Local DP takes one report per person. The histogram's
bounding (at most m of each person's rows, in any bins) is checked against the brute force of
tests/test_contributions.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import Laplace, dp_count
from dpcore.contributions import ContributionBounds, bound_contributions, rows_per_person
from dpcore.neighbours import UNIT_PERSON
from explorer import publishing, releases, state, unit
from explorer.columns import numeric_values
from explorer.dataset import load_demo
from tests.apptest import PAGES, assert_clean, metric, open_page
from tests.test_contributions import GROUPS, TABLE, _group_counts, _largest_moves, _row_outcomes

SEED = 2017  # the sidebar's default seed
VISITS = load_demo("visits")


def _num(x):
    # the page's number format
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def _visits(page: str = "data"):
    """The app on the visits demo (chosen on the Data page, as a user does: a link does not load data)."""
    at = open_page("data")
    at.button(key="demo_visits").click().run()
    if page != "data":
        at.switch_page(PAGES[page]).run()
    return at


def _central(m: int | None, epsilon: float = 0.5, query: str = "Count"):
    """Central DP's count of minutes on the visits demo, the unit declared on the Data page: a person (patient_id,
    at most m rows each), or one row when ``m`` is None."""
    at = _visits()
    if m is not None:
        at.radio(key="unit").set_value(unit.PERSON).run()
        at.number_input(key="unit_rows").set_value(float(m)).run()
    at.switch_page(PAGES["central"]).run()
    at.radio(key="cen_query").set_value(query).run()
    if query == "Count":
        at.selectbox(key="cen_column").set_value("minutes")
        at.select_slider(key="cen_epsilon").set_value(epsilon).run()
    return at


@pytest.mark.parametrize("m", [1, 5, 40])
def test_the_central_count_is_of_bounded_rows_with_laplace_scale_m_over_epsilon(m):
    at = _central(m)
    assert_clean(at)
    rows = rows_per_person(VISITS.frame["patient_id"].to_numpy())
    # the count of the kept rows does not depend on which rows are sampled: Σ min(rows, m)
    assert metric(at, "True answer") == _num(np.minimum(rows, m).sum())
    assert metric(at, "Theoretical std of the error") == _num(Laplace(m / 0.5).std)  # Laplace scale m/ε
    assert metric(at, "Laplace noise std") == _num(np.sqrt(2) * m / 0.5)
    shown = " ".join(md.value for md in at.markdown)
    assert f"sensitivity Δ = {m:g}" in shown and "unit=person" in shown and "add/remove one person" in shown


def test_the_label_file_and_ledger_say_person():
    at = _central(5)
    assert any("Protected unit: a person" in c.value for c in at.sidebar.caption)
    assert any("**Protected unit:** a person (column **patient\\_id**, ≤ 5 rows each)" == m.value for m in at.markdown)
    assert not [b for b in at.get("download_button") if b.proto.label == "Python snippet"]  # the snippet is row-level
    at.button(key="spend_cen").click().run()
    assert_clean(at)
    entries = at.session_state["ledger"].entries
    assert len(entries) == 1
    assert "unit=person" in entries[0].label
    assert entries[0].unit == UNIT_PERSON


def test_switching_back_to_one_row_restores_todays_numbers():
    at = _central(5)
    person_answer = metric(at, "True answer")
    at.radio(key="unit").set_value(unit.ROW).run()
    assert_clean(at)
    values, _ = numeric_values(VISITS.frame["minutes"])
    rng = np.random.default_rng([SEED, sum(map(ord, "central"))])
    expected = dp_count(values, 0.5, rng).on_lattice(rng)
    assert metric(at, "True answer") == _num(expected.true_value) != person_answer
    assert metric(at, "Theoretical std of the error") == _num(Laplace(1 / 0.5).std)
    plain = _central(None)
    for label in ("True answer", "Noisy answer (simulated, not private)", "95% error bound"):
        assert metric(at, label) == metric(plain, label)


def test_queries_without_a_person_rule_say_so_in_one_sentence():
    at = _central(5, query="Most common value")
    assert_clean(at)
    assert any("protects one row only" in i.value for i in at.info)
    assert not at.metric or not any(m.label == "Chosen (simulated, not private)" for m in at.metric)


def test_the_declaration_is_drawn_on_the_data_page_and_kept_across_pages():
    at = _visits()
    at.radio(key="unit").set_value(unit.PERSON).run()
    at.number_input(key="unit_rows").set_value(3.0).run()
    assert_clean(at)
    assert at.selectbox(key="unit_id").value == "patient_id"  # the identifier-like column first
    at.switch_page(PAGES["home"]).run()
    at.switch_page(PAGES["central"]).run()
    assert_clean(at)
    rows = rows_per_person(VISITS.frame["patient_id"].to_numpy())
    assert metric(at, "True answer") == _num(np.minimum(rows, 3).sum())


def test_local_dp_takes_one_report_per_person():
    at = _visits()
    at.radio(key="unit").set_value(unit.PERSON).run()
    at.switch_page(PAGES["local"]).run()
    at.selectbox(key="ldp_column").set_value("clinic").run()
    assert_clean(at)
    persons = VISITS.frame["patient_id"].nunique()
    assert any(f"{persons:,} reports from {len(VISITS.frame):,} rows" in c.value for c in at.caption)
    assert not [b for b in at.get("download_button") if b.proto.label == "Python snippet"]


def test_one_row_each_keeps_exactly_one_row_of_every_person():
    persons = VISITS.frame["patient_id"].to_numpy()
    kept = releases.one_row_each(persons, [SEED, 1])
    assert kept.sum() == len(set(persons))
    assert len(set(persons[kept])) == len(set(persons))
    np.testing.assert_array_equal(kept, releases.one_row_each(persons, [SEED, 1]))  # seeded: reproducible


def test_the_histogram_rule_keeps_an_allowed_outcome_and_its_noise_is_the_brute_force_sensitivity():
    # person_query's histogram: at most m of each person's rows, in any bins. Every bounded table it keeps is one of
    # the brute force's outcomes, whose largest move when one person leaves is the noise's Δ, dpcore's stated one.
    bins = {g: i for i, g in enumerate(GROUPS)}
    persons = np.array([p for p, _, _ in TABLE])
    values = np.array([bins[g] + 0.5 for _, g, _ in TABLE])  # bin i of [0, 3) in 3 bins holds the rows of group i
    for m in (1, 2, 3):
        outcomes = [sorted(o) for o in _row_outcomes(TABLE, m)]
        worst = _largest_moves(TABLE, outcomes, _group_counts)
        stated = ContributionBounds(max_rows=m).rows_histogram_sensitivity()
        assert releases.person_histogram_sensitivity(m) == stated
        truths = [_group_counts(TABLE, o).tolist() for o in outcomes]
        for seed in range(6):
            result = releases.person_query(values, persons, m, "histogram", 1.0, seed, lower=0.0, upper=3.0, bins=3)
            assert result.mechanism.sensitivity == stated.l1 == worst[0] == worst[1] == worst[2]
            assert result.mechanism.scale == stated.l1 / 1.0
            assert result.true_value.tolist() in truths
            assert result.n == np.minimum(rows_per_person(persons), m).sum()


@pytest.mark.parametrize("m", [5, 10])
def test_on_visits_the_histogram_keeps_every_persons_min_rows_m_at_least_as_many_as_one_bin_each(m):
    persons = VISITS.frame["patient_id"].to_numpy()
    codes = np.arange(persons.size) % 4  # any bins: the rows kept do not depend on them
    table, counts = releases.person_histogram(persons, codes, 4, m, np.random.default_rng([SEED, m]))
    assert table.rows_kept == counts.sum() == np.minimum(rows_per_person(persons), m).sum()
    one_bin = ContributionBounds(max_groups=1, max_rows_per_group=m, max_rows=m)  # the former rule, same noise
    assert one_bin.histogram_sensitivity() == releases.person_histogram_sensitivity(m)
    old = bound_contributions(persons, np.random.default_rng([SEED, m]), bounds=one_bin, groups=codes)
    assert old.rows_kept <= table.rows_kept


def test_a_person_with_1000_rows_moves_the_central_count_by_at_most_m():
    persons = np.array([0] * 1_000 + list(range(1, 51)))
    for m in (1, 7):
        for seed in range(3):
            full = releases.person_query(None, persons, m, "count", 1.0, seed)
            without = releases.person_query(None, persons[persons != 0], m, "count", 1.0, seed)
            assert full.true_value - without.true_value == m


@pytest.fixture
def own_log(tmp_path, monkeypatch):
    """A publication log of the test's own."""
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))
    return tmp_path


def test_a_person_level_count_is_published_under_add_remove_one_person_with_fresh_bounding(own_log):
    at = _central(5)
    published = []
    for _ in range(2):
        at.button(key="cen_pub_publish").click().run()
        assert_clean(at)
        dataset = at.session_state[state.DATASET]
        log = publishing.publication_log()
        release = log.releases(dataset.fingerprint or dataset.identity)[-1]
        assert release.unit == UNIT_PERSON and release.relation.words(release.unit) == "add/remove one person"
        assert release.epsilon == 0.5  # the plan's whole ε, charged before it is shown
        published.append(float(release.values[0]))
    assert log.spent(dataset.fingerprint or dataset.identity).epsilon == pytest.approx(1.0)
    rows = rows_per_person(VISITS.frame["patient_id"].to_numpy())
    truth = float(np.minimum(rows, 5).sum())
    # fresh secure bounding and noise each time (two lattice draws of Laplace scale m/ε = 10 tie with probability
    # about grid/(4·10) < 1e-3), each within the noise of the bounded count
    assert published[0] != published[1]
    assert all(abs(p - truth) < 10 * np.log(1e6) for p in published)  # P(|Lap(10)| > 10 ln 1e6) = 1e-6
    assert any("add/remove one person" in s.value for s in at.success)


def test_a_column_that_does_not_look_like_an_identifier_is_said_in_one_sentence():
    at = open_page("data")  # census: no identifier-like column
    at.radio(key="unit").set_value(unit.PERSON).run()
    assert_clean(at)
    assert any("is not marked identifier-like" in c.value for c in at.caption)
    assert any("Protected unit: a person" in c.value for c in at.sidebar.caption)  # what was declared, said as is


@pytest.mark.parametrize("page", ["central", "local"])
def test_an_identifier_with_missing_values_gets_one_sentence_and_no_release(page):
    at = open_page("data")  # census: workclass is missing on 1,844 rows
    at.radio(key="unit").set_value(unit.PERSON).run()
    at.selectbox(key="unit_id").set_value("workclass").run()
    at.switch_page(PAGES[page]).run()
    # AppTest's first run after switching straight from the page that drew a URL-bound widget gives the widget its
    # default (Chromium gives the kept value at once: checked by hand); the page is read on the next run
    at.run()
    assert_clean(at)
    warnings = [w.value for w in at.warning if "cannot name the persons" in w.value]
    assert len(warnings) == 1 and "1,844 rows have no value in it" in warnings[0]
    assert not [m for m in at.metric if m.label.startswith(("Noisy answer", "One LDP estimate"))]


# ------------------------------------------------------------------ count where and category counts under a person


def _count_where_rows(table, rows):
    return np.array([float(len(rows))])


@pytest.mark.parametrize("m", [1, 2, 3])
def test_the_count_where_rule_keeps_an_allowed_outcome_and_its_noise_is_the_brute_force_sensitivity(m):
    # a count where under a person unit: each person keeps at most m of the rows meeting the condition (value ≥ 10)
    from explorer.central_counts import person_count_matching

    persons = np.array([p for p, _, _ in TABLE])
    mask = np.array([v >= 10.0 for _, _, v in TABLE])
    meeting = [row for row, keep in zip(TABLE, mask, strict=True) if keep]
    outcomes = [sorted(o) for o in _row_outcomes(meeting, m)]
    worst = _largest_moves(meeting, outcomes, _count_where_rows)
    truths = {float(len(o)) for o in outcomes}
    for key, delta in (("laplace", None), ("gaussian", 1e-6)):
        for seed in range(4):
            result = person_count_matching(mask, persons, m, 1.0, seed, key, delta)
            assert result.mechanism.sensitivity == worst[0] == ContributionBounds(max_rows=m).count_sensitivity().l1
            assert result.true_value in truths and result.query == "count_matching"
    assert person_count_matching(mask, persons, m, 0.5, 0).mechanism.scale == m / 0.5  # Laplace scale m/ε


@pytest.mark.parametrize("m", [1, 2, 3])
def test_the_category_counts_rule_is_the_histogram_s_with_the_brute_force_sensitivity(m):
    from explorer.central_counts import person_category_counts

    persons = np.array([p for p, _, _ in TABLE])
    codes = np.array([GROUPS.index(g) for _, g, _ in TABLE])
    outcomes = [sorted(o) for o in _row_outcomes(TABLE, m)]
    worst = _largest_moves(TABLE, outcomes, _group_counts)
    stated = ContributionBounds(max_rows=m).rows_histogram_sensitivity()
    truths = [_group_counts(TABLE, o).tolist() for o in outcomes]
    for key, delta in (("laplace", None), ("gaussian", 1e-6)):  # ℓ1 and ℓ2: both m
        for seed in range(4):
            result = person_category_counts(codes, 3, persons, m, 1.0, seed, key, delta)
            assert result.mechanism.sensitivity == worst[0] == worst[1] == stated.l1 == stated.l2
            assert result.true_value.tolist() in truths and result.query == "category_counts"


def test_a_person_with_1000_rows_moves_a_count_where_and_the_category_counts_by_at_most_m():
    from explorer.central_counts import person_category_counts, person_count_matching

    persons = np.array([0] * 1_000 + list(range(1, 51)))
    meets = np.arange(persons.size) % 3 != 0  # 667 of the heavy person's rows meet the condition
    codes = np.arange(persons.size) % 4
    keep = persons != 0
    for m in (1, 7):
        for seed in range(3):
            full = person_count_matching(meets, persons, m, 1.0, seed)
            without = person_count_matching(meets[keep], persons[keep], m, 1.0, seed)
            assert full.true_value - without.true_value == m
            full = person_category_counts(codes, 4, persons, m, 1.0, seed)
            without = person_category_counts(codes[keep], 4, persons[keep], m, 1.0, seed)
            assert np.abs(full.true_value - without.true_value).sum() == m  # the heavy person's m rows, in any bins
