"""The People page on the visits demo: every number shown is dpcore's, the bound is published charged, groups kept."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from dpcore import accounting
from dpcore.bound_tradeoff import count_tradeoff, sum_tradeoff
from dpcore.contributions import ContributionBounds, bound_contributions, person_codes
from dpcore.groupby import group_by, group_by_cost, group_by_releases
from dpcore.neighbours import ADD_REMOVE, UNIT_PERSON
from dpcore.partition_selection import selection
from dpcore.publish import publish_count
from explorer import people_groups, people_publish, people_tradeoff, publishing, state
from explorer.budget import small_number
from explorer.dataset import load_demo
from explorer.export import rounded
from tests.apptest import PAGES, assert_clean, metric, open_page

VISITS = load_demo("visits")
PERSONS = person_codes(VISITS.frame["patient_id"].to_numpy())[0]
GROUPS_VIEW = "Group-by with unknown keys"


@pytest.fixture(autouse=True)
def own_log(tmp_path, monkeypatch):
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))


def open_people(demo: str = "visits", **link):
    at = open_page("data")
    if demo != "census":  # every session starts on the census demo
        at.button(key=f"demo_{demo}").click().run()
    for key, value in link.items():  # the widgets' values, set before the page first draws them
        at.session_state[key] = value
    at.switch_page(PAGES["people"])
    at.run()
    assert_clean(at)
    return at


def _best(at) -> tuple[int, float]:
    text = next(m.value for m in at.markdown if "has its smallest total error" in m.value)
    found = re.search(r"m = ([\d,]+)\*\* rows per person .*? smallest total error, ([\d.,e+-]+)", text)
    return int(found.group(1).replace(",", "")), float(found.group(2).replace(",", ""))


def _fingerprint(at) -> str:
    ds = at.session_state[state.DATASET]
    return ds.fingerprint or ds.identity


def test_rows_per_person_are_the_data_s():
    at = open_people()
    rows = np.bincount(PERSONS)
    assert metric(at, "Persons") == f"{rows.size:,}" == "3,000"
    assert metric(at, "Rows") == f"{int(rows.sum()):,}" == "19,520"
    assert metric(at, "Median rows per person") == f"{np.median(rows):g}"
    assert metric(at, "Most rows of one person") == f"{int(rows.max()):,}"
    assert any("not private" in c.value for c in at.caption)


@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0])
def test_the_marked_minimum_is_dpcore_s_and_a_brute_force_search_s(eps):
    at = open_people(ppl_epsilon=eps)
    shown, rmse = _best(at)
    tradeoff = count_tradeoff(PERSONS, eps)
    assert shown == tradeoff.best_bound
    # brute force: the total error of every bound m from 1 to the largest rows per person, Laplace scale m/ε
    rows = np.bincount(PERSONS)
    errors = [np.hypot(np.clip(rows - m, 0, None).sum(), np.sqrt(2) * m / eps) for m in range(1, rows.max() + 1)]
    assert shown == 1 + int(np.argmin(errors))
    assert rmse == pytest.approx(min(errors), rel=1e-3)  # shown to 4 significant digits
    assert any("not private" in w.value for w in at.warning)


def test_the_bias_line_shows_where_the_total_error_lies_on_it():
    # on visits the total error equals the |bias| for every m below ~300: drawn solid on top, it hid the bias line
    import base64
    import json

    def values(y):  # Plotly sends arrays as {"dtype", "bdata"}
        return np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"]) if isinstance(y, dict) else np.array(y)

    at = open_people()
    (chart,) = [c for c in at.get("plotly_chart") if c.key == "ppl_tradeoff_chart"]
    lines = {t["name"]: t for t in json.loads(chart.proto.spec)["data"]}
    names = list(lines)
    bias, total = lines["|bias| (rows dropped)"], lines["total error (RMSE)"]
    close = np.isclose(values(bias["y"]), values(total["y"]), rtol=0.02)
    assert close.mean() > 0.5  # the case the chart must handle: the two lie on each other over most bounds
    assert names.index("total error (RMSE)") > names.index("|bias| (rows dropped)")  # the total is drawn over it
    assert total["line"].get("dash") not in (None, "solid")  # so it is broken and the bias shows through


def test_a_sum_s_minimum_is_dpcore_s_for_the_declared_bounds():
    at = open_people(ppl_query="Sum of a numeric column", ppl_value="cost", ppl_lower_cost=0, ppl_upper_cost=300)
    shown, _ = _best(at)
    cost = VISITS.frame["cost"].to_numpy(dtype=float)
    assert shown == sum_tradeoff(PERSONS, cost, 0.0, 300.0, 1.0).best_bound


def test_the_private_bound_is_charged_before_it_is_shown_and_holds_for_persons():
    at = open_people(ppl_pub_epsilon=0.5, ppl_pub_max=500)
    assert not at.success  # nothing published yet
    at.button(key="ppl_pub_bound_publish").click().run()
    assert_clean(at)
    log = publishing.publication_log()
    assert log.spent(_fingerprint(at)).epsilon == pytest.approx(0.5)
    assert log.guarantee(_fingerprint(at)) == (ADD_REMOVE, UNIT_PERSON)
    table = next(d.value for d in at.dataframe if list(d.value.columns) == ["label", "released value"])
    m = float(table["released value"][0])
    assert m == int(m) and 1 <= m <= 500
    assert any("under add/remove one person" in s.value for s in at.success)
    at.button(key="ppl_pub_bound_publish").click().run()  # a new publication, charged again in full
    assert log.spent(_fingerprint(at)).epsilon == pytest.approx(1.0)


def test_a_person_release_on_a_record_level_log_is_charged_by_group_privacy():
    at = open_people(ppl_pub_epsilon=0.5)
    fingerprint = _fingerprint(at)
    count = lambda: publish_count(VISITS.frame["minutes"] > 30, 0.25)  # noqa: E731 - a record-level publication
    publishing.publication_log().publish(fingerprint, "visits.csv", (0.25, 0.0), count)
    at.run()
    assert any("(group privacy)" in c.value and "ε = 1" in c.value for c in at.caption)
    at.button(key="ppl_pub_bound_publish").click().run()
    # add/remove one person gives add/remove one record at k = 2: remove the record's person, add them back
    assert publishing.publication_log().spent(fingerprint).epsilon == pytest.approx(0.25 + 2 * 0.5)


@pytest.mark.parametrize("key", ["optimal", "laplace_thresholding", "gaussian_thresholding"])
def test_groups_kept_and_threshold_are_dpcore_s_and_no_group_is_named(key):
    at = open_people(ppl_view=GROUPS_VIEW, ppl_selection=key, ppl_l0=2, ppl_sel_epsilon=2, ppl_sel_delta=1e-6)
    chosen = selection(key, 2.0, 1e-6, 2)
    seed = [state.DEFAULT_SEED, sum(map(ord, "people_groups"))]
    result = group_by(
        VISITS.frame["visit_date"], 2.0, np.random.default_rng(seed), persons=PERSONS,
        bounds=ContributionBounds(max_groups=2), selection=chosen,
    )  # fmt: skip
    assert metric(at, "Groups kept (simulated, not private)") == f"{result.kept:,}"
    assert 0 < result.kept < VISITS.frame["visit_date"].nunique()  # some dropped: the page must not say which
    threshold = "none" if chosen.threshold is None else f"{chosen.threshold:,.4g}"
    assert metric(at, "Threshold") == threshold
    shown = " ".join(e.value for e in (*at.markdown, *at.caption, *at.info, *at.warning))
    assert not re.search(r"2024-\d\d-\d\d", shown)  # no date (group) named, kept or dropped
    assert "simulated, not private" in shown.lower()


def test_the_group_by_s_cost_says_the_selection_s_and_the_counts_parts():
    # the slider's ε is the selection's and the counts take as much again: a cost of 2ε beside a slider at ε must
    # say where each part goes (it read "ε = 4" under a slider at 2, with no word of the counts)
    at = open_people(ppl_view=GROUPS_VIEW, ppl_selection="optimal", ppl_l0=1, ppl_sel_epsilon=2, ppl_sel_delta=1e-5)
    chosen = selection("optimal", 2.0, 1e-5, 1)
    total, delta = group_by_cost(2.0, selection=chosen)
    counts, _ = group_by_cost(2.0)
    cost = next(m for m in at.metric if m.label == "Cost of the group-by")
    assert cost.value == f"ε = {total:.4g}, δ = {delta:.2g}"
    assert cost.delta == f"selection ε {chosen.epsilon:.4g} + counts ε {counts:.4g}"
    assert chosen.epsilon + counts == pytest.approx(total)


def _recorded_group_by(at, key: str, eps: float, delta: float, l0: int):
    """Click the group-by's teaching-ledger button; the releases dpcore says the simulated group-by is made of."""
    at.button(key="spend_ppl_groups").click().run()
    assert_clean(at)
    chosen = selection(key, eps, delta, l0)
    return chosen, group_by_releases(eps, selection=chosen, bounds=ContributionBounds(max_groups=l0))


@pytest.mark.parametrize("key, l0", [("optimal", 1), ("gaussian_thresholding", 2)])
def test_the_group_by_is_recorded_in_the_teaching_ledger_at_its_cost_and_listed_in_plain_words(key, l0):
    at = open_people(ppl_view=GROUPS_VIEW, ppl_selection=key, ppl_l0=l0, ppl_sel_epsilon=1.5, ppl_sel_delta=1e-6)
    at.session_state[state.LEDGER] = accounting.BudgetLedger(5.0, 1e-5, "best", unit=UNIT_PERSON)  # as the Accountant
    at.run()
    chosen, releases = _recorded_group_by(at, key, 1.5, 1e-6, l0)
    led = at.session_state[state.LEDGER]
    eps, delta = group_by_cost(1.5, selection=chosen)
    # the ledger's total is the group-by's cost, the selection's exact δ included, by basic composition
    assert led.charge().accounting == "basic"
    assert led.spent() == (pytest.approx(eps, rel=1e-12), pytest.approx(delta, rel=1e-12))
    assert [e.mechanism for e in led.entries] == list(releases) and {e.unit for e in led.entries} == {UNIT_PERSON}
    at.switch_page(PAGES["accountant"]).run()
    assert_clean(at)
    table = at.dataframe[-1].value  # the ledger's table is the Accountant page's last
    assert table["label"].tolist() == [
        f"Group-by of visit_date: partition selection, L₀ = {l0} (simulated, not private)",
        "Group-by of visit_date: noisy counts of the kept groups (simulated, not private)",
    ]
    assert table["release"].iloc[0] == f"(ε, δ) = ({chosen.epsilon:.4g}, {small_number(delta)})"
    assert table["holds under"].tolist() == ["add/remove one person"] * 2 and table["converted"].tolist() == ["", ""]
    assert table["ε on its own"].sum() == pytest.approx(eps, rel=1e-12)


def test_the_group_by_in_a_record_level_ledger_is_converted_by_group_privacy():
    at = open_people(ppl_view=GROUPS_VIEW, ppl_selection="optimal", ppl_l0=1, ppl_sel_epsilon=1.0, ppl_sel_delta=1e-6)
    _, releases = _recorded_group_by(at, "optimal", 1.0, 1e-6, 1)
    led = at.session_state[state.LEDGER]  # the session's default: add/remove one record
    want = accounting.BudgetLedger(led.epsilon, led.delta, led.method).spend_all(releases, unit=UNIT_PERSON)
    assert led.spent() == want.spent() and [e.conversion.group for e in led.entries] == [2, 2]
    assert led.spent().delta > releases[0].delta  # the selection's δ grows with the group: δ(1 + e^ε)


def test_a_group_by_over_the_ledger_s_delta_is_refused_naming_the_delta_and_nothing_is_recorded():
    # at δ = 1e-5 a person-level selection is (2ε, δ(1 + e^ε)) for one record: over the default ledger's δ = 1e-5
    at = open_people(ppl_view=GROUPS_VIEW, ppl_selection="optimal", ppl_l0=1, ppl_sel_epsilon=1.0, ppl_sel_delta=1e-5)
    _, releases = _recorded_group_by(at, "optimal", 1.0, 1e-5, 1)
    led = at.session_state[state.LEDGER]
    with pytest.raises(accounting.BudgetError) as refused:
        accounting.BudgetLedger(led.epsilon, led.delta, led.method).spend_all(releases, unit=UNIT_PERSON)
    said = f"Not recorded: this release would bring your total to δ = {refused.value.total.delta:.2g} at the least"
    assert any(w.value.replace("\\", "").startswith(said) for w in at.warning) and led.entries == ()


def test_the_expected_groups_kept_fall_with_l0_and_rise_with_epsilon():
    # the curves' numbers: more groups per person splits ε among them; a larger ε keeps more
    seed = [state.DEFAULT_SEED, 1]
    frame = VISITS.frame
    kept = {}
    for l0 in (1, 5):
        distinct = bound_contributions(
            PERSONS, np.random.default_rng(seed), bounds=ContributionBounds(max_groups=l0), groups=frame["visit_date"]
        ).distinct
        kept[l0] = [selection("optimal", e, 1e-5, l0).expected_kept(distinct) for e in people_groups.EPSILONS]
    assert np.all(np.diff(kept[1]) >= 0) and np.all(np.diff(kept[5]) >= 0)
    assert kept[5][15] < kept[1][15]  # at ε = 1


def test_an_identifier_with_missing_values_gets_one_sentence():
    at = open_people("census", ppl_person="workclass")  # 1,844 rows with no workclass
    assert_clean(at)
    said = [w.value for w in at.warning if "cannot name the persons" in w.value]
    assert len(said) == 1 and "\n" not in said[0], [w.value for w in at.warning]
    assert not at.metric  # nothing computed from a column that cannot name the persons
    assert any(c.value.startswith("workclass is not marked identifier-like") for c in at.caption)


# ------------------------------------------------------------- a table with no identifier-like column, or one row each


def _open_table(frame, **link):
    from explorer.dataset import Dataset

    at = open_page("data")
    at.session_state[state.DATASET] = Dataset(name="table.csv", frame=frame)
    for key, value in link.items():
        at.session_state[key] = value
    at.switch_page(PAGES["people"])
    at.run()
    assert_clean(at)
    return at


def test_a_table_without_an_identifier_opens_on_no_column_and_computes_nothing():
    # ~3 s. Adult, penguins and seattle-weather opened on Age, species and date as "the person", every chart
    # computed beside the page's own "no identifier" message; now the page says what an identifier is, and stops
    for view in ("Bias against noise", GROUPS_VIEW):
        at = open_people("census", ppl_view=view)
        assert at.selectbox(key="ppl_person").value == people_tradeoff.CHOOSE
        (said,) = [i.value for i in at.info]
        assert said.startswith("A person identifier is the column that says whose row each row is")
        assert "no column that looks like one" in said
        assert not at.metric and not at.get("plotly_chart") and not at.dataframe and not at.button
    # a link naming a column still opens on it (said to be not identifier-like), its figures computed
    frame = pd.DataFrame({"shop": ["a", "b", "c", "a", "b", "a"], "x": [1, 2, 3, 4, 5, 6]})
    at = _open_table(frame, ppl_person="shop")
    assert at.selectbox(key="ppl_person").value == "shop"
    assert metric(at, "Persons") == "3" and metric(at, "Most rows of one person") == "3"
    assert any(c.value.startswith("shop is not marked identifier-like") for c in at.caption)


def test_one_row_per_person_says_its_single_bound_in_one_sentence_instead_of_an_empty_curve():
    # ~2 s. seattle-weather by date: every person one row, one bound m = 1, and the curve was an empty chart
    frame = pd.DataFrame({"customer": [f"c{i:03d}" for i in range(300)], "x": np.arange(300) % 7})
    at = _open_table(frame)
    assert at.selectbox(key="ppl_person").value == "customer"  # identifier-like: opened on it, as visits on its id
    assert metric(at, "Most rows of one person") == "1"
    (said,) = [m.value for m in at.markdown if "the only bound" in m.value]
    want = count_tradeoff(np.arange(300), 1.0)
    assert "**m = 1**" in said and f"total error {want.rmse[0]:,.4g}" in said and "\n" not in said
    assert [c.key for c in at.get("plotly_chart")] == ["ppl_rows_chart"]  # no trade-off chart


def test_a_bar_of_one_person_has_a_visible_height_in_the_rows_per_person_chart():
    # on a log axis starting at 1 a bar of height 1 had none (Adult by Age: the ages one person has)
    from explorer.people_tradeoff import rows_histogram

    spread = np.repeat(np.arange(1, 6), [5000, 1, 1, 300, 1])  # persons with 1..5 rows: counts from 1 to 5,000
    narrow = np.repeat(np.arange(1, 4), [7, 1, 3])  # counts from 1 to 7
    for rows in (spread, narrow):
        layout = rows_histogram(rows).layout.yaxis
        top = float(np.bincount(rows).max())
        if layout.type == "log":
            lo, hi = layout.range
            assert hi >= np.log10(top)
            visible = (np.log10(1) - lo) / (hi - lo)
        else:
            assert layout.rangemode == "tozero"
            visible = 1 / top
        assert visible > 0.05, (layout.type, visible)  # a bar of 1 at least 5% of the plot's height
    assert rows_histogram(spread).layout.yaxis.type == "log" and rows_histogram(narrow).layout.yaxis.type != "log"


def test_the_views_follow_their_sliders_on_the_visits_demo():
    # their speed (issue 20: under 500 ms a rerun) is measured by benchmarks/bench_contributions.py, not asserted here
    at = open_people()
    shown = []
    for eps in (0.5, 2.0):
        at.select_slider(key="ppl_epsilon").set_value(eps).run()
        assert_clean(at)
        shown.append(_best(at))
    assert shown[0] != shown[1]
    at = open_people(ppl_view=GROUPS_VIEW)
    kept = []
    for delta in (1e-6, 1e-4):
        at.select_slider(key="ppl_sel_delta").set_value(delta).run()
        assert_clean(at)
        kept.append([m.value for m in at.metric])
    assert kept[0] != kept[1]


# ---------------------------------------------------------------------------------------------- publishing a group-by

PUBLISH = "ppl_gb_publish"


def _published(at) -> list:
    return publishing.publication_log().releases(_fingerprint(at))


def _page_text(at) -> str:
    """Every text the page shows, its tables' cells included."""
    parts = [e.value for e in (*at.markdown, *at.caption, *at.info, *at.warning, *at.success)]
    parts += [d.value.to_csv() for d in at.dataframe]
    return " ".join(parts)


def test_a_group_by_is_published_charged_first_and_labelled_one_person():
    link = dict(ppl_view=GROUPS_VIEW, ppl_group="clinic", ppl_sel_epsilon=1.0, ppl_sel_delta=1e-6, ppl_gb_epsilon=0.5)
    at = open_people(**link)
    assert not at.success and not _published(at)  # nothing drawn before the click
    at.button(key=PUBLISH).click().run()
    assert_clean(at)
    (release,) = _published(at)
    cost = group_by_cost(0.5, selection=selection("optimal", 1.0, 1e-6, 1))
    log = publishing.publication_log()
    assert tuple(log.spent(_fingerprint(at))) == pytest.approx(cost) and cost[1] > 0  # the selection's δ, charged
    assert log.guarantee(_fingerprint(at)) == (ADD_REMOVE, UNIT_PERSON)
    assert release.unit == UNIT_PERSON and release.query == "group-by count"
    # the table shown is the release the log holds, in whole units (a count) by the one rounding rule
    table = next(d.value for d in at.dataframe if list(d.value.columns) == ["label", "released value"])
    assert list(table["label"]) == list(release.labels)
    assert list(table["released value"]) == rounded(list(release.values), release.noise_std, release.query)
    assert all(float(v).is_integer() for v in table["released value"])
    assert any("under add/remove one person" in s.value for s in at.success)
    said = next(m.value for m in at.markdown if "groups kept" in m.value).replace("\\", "")  # markdown escapes
    assert f"**{len(release.labels):,} groups kept**" in said and "never what it dropped" in said
    assert "none (each group kept with probability π(n))" in said  # the optimal mechanism has no threshold


def test_two_publications_give_different_noise_each_charged_in_full():
    at = open_people(ppl_view=GROUPS_VIEW, ppl_group="clinic", ppl_gb_keys_from=people_publish.KEYS[1],
                     ppl_gb_keys="Airport\nHarbour\nNorthside\nOld Town", ppl_gb_epsilon=0.5)  # fmt: skip
    at.button(key=PUBLISH).click().run()
    at.button(key=PUBLISH).click().run()
    first, second = _published(at)
    assert first.labels == second.labels == ("Airport", "Harbour", "Northside", "Old Town")
    # the same declared query, fresh secure noise: Laplace of scale 2 on a 2^-k lattice, four entries equal twice
    # with probability below 10^-3 (each equal value has probability at most 1/(2·scale)·(lattice step) ≤ 1/4)
    assert first.values != second.values
    assert publishing.publication_log().spent(_fingerprint(at)).epsilon == pytest.approx(1.0)


def test_declared_keys_are_typed_never_filled_and_an_absent_key_is_a_noisy_zero():
    at = open_people(ppl_view=GROUPS_VIEW, ppl_group="clinic", ppl_gb_keys_from=people_publish.KEYS[1])
    assert at.button(key=PUBLISH).disabled  # no key declared yet: one sentence, nothing drawn
    assert any("declare the categories" in i.value for i in at.info)
    assert not [b for b in at.button if "fill" in b.label.lower()]  # no list is read from the file
    assert at.text_area(key="ppl_gb_keys").value == ""
    at.text_area(key="ppl_gb_keys").set_value("Airport\nAtlantis").run()
    at.button(key=PUBLISH).click().run()
    assert_clean(at)
    (release,) = _published(at)
    assert release.labels == ("Airport", "Atlantis")  # Atlantis holds nobody: published all the same
    assert dict((f.name, f.value) for f in release.public)["group keys"] == "Airport, Atlantis"
    assert any("**2 groups published**" in m.value for m in at.markdown)


def test_a_sum_needs_declared_bounds_and_its_cost_is_dpcore_s():
    link = dict(ppl_view=GROUPS_VIEW, ppl_group="reason", ppl_gb_statistic="Sum of a numeric column",
                ppl_gb_value="cost", ppl_gb_linf=3, ppl_gb_epsilon=2.0)  # fmt: skip
    at = open_people(**link)
    assert at.button(key=PUBLISH).disabled
    at.number_input(key="ppl_gb_lower_cost").set_value(0.0).run()
    at.number_input(key="ppl_gb_upper_cost").set_value(300.0).run()
    button = at.button(key=PUBLISH)
    cost = group_by_cost(2.0, statistic="sum", selection=selection("optimal", 1.0, 1e-5, 1))
    assert not button.disabled and f"ε = {cost[0]:.4g}, δ = {cost[1]:.2g}" in button.label
    button.click().run()
    (release,) = _published(at)
    facts = dict((f.name, f.value) for f in release.public)
    assert facts["clipping bounds"] == "[0, 300]"
    assert facts["contribution bounds"] == "at most 1 group(s) per person and 3 row(s) per person in each"
    assert release.query == "group-by sum" and release.unit == UNIT_PERSON


def test_gaussian_noise_with_several_groups_per_person_is_refused_in_one_sentence():
    at = open_people(ppl_view=GROUPS_VIEW, ppl_group="clinic", ppl_l0=2, ppl_gb_noise="gaussian")
    assert_clean(at)
    said = [i.value for i in at.info if "most groups per person must be 1" in i.value]
    assert len(said) == 1 and "\n" not in said[0]
    assert not [b for b in at.button if b.key == PUBLISH]


def test_over_budget_nothing_is_drawn_nothing_charged_nothing_shown():
    at = open_people(ppl_view=GROUPS_VIEW, ppl_group="clinic", ppl_gb_epsilon=5.0)
    log = publishing.publication_log()
    log.set_budget(_fingerprint(at), 2.0, log.budget(_fingerprint(at)).delta, reason="test")
    at.button(key=PUBLISH).click().run()
    assert any(w.value.startswith("Not published") for w in at.warning)
    assert not _published(at) and log.spent(_fingerprint(at)).epsilon == 0.0
    assert not at.success and not any(list(d.value.columns) == ["label", "released value"] for d in at.dataframe)
    assert not any("groups kept" in m.value for m in at.markdown)


def test_the_table_appears_only_once_the_log_has_stored_it(monkeypatch):
    # a log whose commit fails after the draw: the drawn release must not reach the page
    from explorer.publication_log import PublicationLog

    real = PublicationLog.publish

    def failing(self, *args, **kwargs):
        real(self, *args, **kwargs)  # drawn and stored ...
        raise OSError("disk full")  # ... but the log says it failed: the page shows nothing

    at = open_people(ppl_view=GROUPS_VIEW, ppl_group="clinic")
    monkeypatch.setattr(PublicationLog, "publish", failing)
    at.button(key=PUBLISH).click().run()
    assert any("Not published" in w.value for w in at.warning)
    assert not at.success and not any(list(d.value.columns) == ["label", "released value"] for d in at.dataframe)


def test_a_published_group_by_names_the_groups_it_kept_and_never_one_it_dropped():
    link = dict(ppl_view=GROUPS_VIEW, ppl_group="visit_date", ppl_sel_epsilon=1.0, ppl_sel_delta=1e-5,
                ppl_selection="laplace_thresholding", ppl_gb_epsilon=1.0)  # fmt: skip
    at = open_people(**link)
    at.button(key=PUBLISH).click().run()
    assert_clean(at)
    (release,) = _published(at)
    dates = set(VISITS.frame["visit_date"].astype(str))
    kept = set(release.labels)
    assert 0 < len(kept) < len(dates)  # about 8 persons a day against a threshold of 12.5: some days dropped
    shown = _page_text(at)
    assert set(re.findall(r"2024-\d\d-\d\d", shown)) == kept  # every kept day in the table, no dropped one anywhere
    threshold = selection("laplace_thresholding", 1.0, 1e-5, 1).threshold
    said = next(m.value for m in at.markdown if "groups kept" in m.value).replace("\\", "")
    assert f"**{len(kept):,} groups kept**" in said and f"{threshold:.6g}" in said
    assert str(len(dates)) not in said and str(len(dates) - len(kept)) not in said  # nor how many were dropped


# the attacks of the review on the People page's publication path: the link's seed, ε doubling (and shared draws,
# above: two publications of the same declared keys differ)
ATTACK = dict(ppl_view=GROUPS_VIEW, ppl_group="clinic", ppl_l0=8, ppl_gb_keys_from=people_publish.KEYS[1],
              ppl_gb_keys="\n".join(sorted(VISITS.frame["clinic"].unique())))  # fmt: skip


def _truth() -> np.ndarray:
    # persons per clinic, each person counted once in each of their clinics: L₀ = 8 keeps every clinic of everyone
    frame = VISITS.frame.assign(person=PERSONS)
    return frame.groupby("clinic")["person"].nunique().sort_index().to_numpy(dtype=float)


def test_the_link_s_seed_recomputes_no_published_group_by_and_a_rerun_redraws_none():
    at = open_people(**ATTACK, ppl_gb_epsilon=1.0)
    at.button(key=PUBLISH).click().run()
    (release,) = _published(at)
    # attack 1: the page's simulation seed, the same parameters, the same bounds: another draw
    seed = [state.DEFAULT_SEED, sum(map(ord, "people_groups"))]
    for s in (seed, state.DEFAULT_SEED, 0):
        seeded = group_by(
            VISITS.frame["clinic"], 1.0, np.random.default_rng(s), persons=PERSONS,
            bounds=ContributionBounds(max_groups=8), keys=list(release.labels),
        )  # fmt: skip
        assert np.array_equal(seeded.true_values, _truth())  # the same query: every clinic of every person kept
        assert not np.any(np.isclose(seeded.noisy_values, release.values, rtol=0, atol=1e-9))
    shown = next(d.value for d in at.dataframe if list(d.value.columns) == ["label", "released value"])
    at.run()  # a rerun shows what was published, never a new draw, and charges nothing
    again = next(d.value for d in at.dataframe if list(d.value.columns) == ["label", "released value"])
    assert again.equals(shown) and len(_published(at)) == 1
    fresh = open_people(**ATTACK, ppl_gb_epsilon=1.0)  # the same link in a new tab: nothing shown before a click
    assert not any(list(d.value.columns) == ["label", "released value"] for d in fresh.dataframe)


def test_the_epsilon_doubling_attack_recovers_no_group_s_persons():
    # attack 2: were the noise at ε = 1 half the draw at ε = 0.5, 2·r(1) − r(0.5) would be the truth
    at = open_people(**ATTACK, ppl_gb_epsilon=0.5)
    publishing.publication_log().set_budget(_fingerprint(at), 100.0, 1e-5, reason="test")
    at.button(key=PUBLISH).click().run()
    at.select_slider(key="ppl_gb_epsilon").set_value(1.0).run()
    at.button(key=PUBLISH).click().run()
    half, one = (np.array(r.values) for r in _published(at))
    truth = _truth()
    assert not np.any(np.isclose(2 * one - half, truth, rtol=0, atol=1e-9))
    # attack 3 (subtracting two publications that shared a draw): test_two_publications_give_different_noise_...


# ------------------------------------------------------------------------- a group column with too many distinct keys


def _many_keys(*, small: bool):
    """150,000 rows of 50,000 persons, a key column with a distinct value on every row, and a clinic column."""
    import pandas as pd

    from explorer.dataset import Dataset

    rows = 150_000
    frame = pd.DataFrame({"person": [f"p{i % 50_000}" for i in range(rows)], "key": [f"k{i}" for i in range(rows)]})
    if small:
        frame["clinic"] = np.array(["north", "south", "east"])[np.arange(rows) % 3]
    at = open_page("data")
    at.session_state[state.DATASET] = Dataset(name="many_keys.csv", frame=frame)
    at.session_state["ppl_person"] = "person"
    at.session_state["ppl_view"] = GROUPS_VIEW
    at.switch_page(PAGES["people"])
    at.run()
    assert_clean(at)
    return at


def test_a_column_with_too_many_keys_is_named_with_its_count_not_silently_dropped():
    # 4.5 s: it was dropped with no word, and a table with nothing else said "no other column with 2 or more values"
    said = "key has 150,000 distinct values; a group-by takes at most 100,000."
    at = _many_keys(small=False)
    (info,) = [i.value for i in at.info if "to group by" in i.value]
    assert info.endswith(said) and "\n" not in info
    at = _many_keys(small=True)
    assert at.selectbox(key="ppl_group").options == ["clinic"]
    assert any(c.value.endswith(said) for c in at.caption), [c.value for c in at.caption]


# ------------------------------------------------------------------------------------- the mean's bias against noise


@pytest.mark.parametrize("split", [0.5, 0.8])
def test_a_mean_s_marked_minimum_is_a_brute_force_search_s(split):
    # 5 s: the mean is a noisy sum (split·ε) over a noisy count ((1 − split)·ε) of the same kept rows; its error at
    # every bound m from 1 to the largest rows per person, by the per-person formulas, against the one marked
    link = dict(ppl_query="Mean of a numeric column", ppl_value="cost", ppl_lower_cost=0, ppl_upper_cost=300)
    at = open_people(**link, ppl_split=split)
    shown, rmse = _best(at)
    cost = VISITS.frame["cost"].to_numpy(dtype=float)
    clipped = np.clip(cost, 0.0, 300.0)
    r = np.bincount(PERSONS).astype(float)
    totals = np.bincount(PERSONS, weights=clipped)
    sigma2 = np.maximum(np.bincount(PERSONS, weights=clipped**2) / r - (totals / r) ** 2, 0.0)
    errors = []
    for m in range(1, int(r.max()) + 1):
        k = np.minimum(r, m)
        kept = k.sum()  # rows kept: the same whichever are sampled
        target = (k / r) @ totals / kept  # E[clipped sum kept] / rows kept (Cochran 1977, Thm 2.2 for the sum)
        sampling = np.where(r > 1, k * (r - k) / np.maximum(r - 1, 1), 0.0) @ sigma2 / kept**2
        sum_std, count_std = np.sqrt(2) * m * 300.0 / split, np.sqrt(2) * m / (1 - split)  # Laplace at ε = 1
        noise2 = (sum_std**2 + target**2 * count_std**2) / kept**2  # the delta method
        errors.append(np.sqrt((target - cost.mean()) ** 2 + sampling + noise2))
    assert shown == 1 + int(np.argmin(errors))
    assert rmse == pytest.approx(min(errors), rel=1e-3)  # shown to 4 significant digits
    assert any(t["name"].startswith("sampling std") for t in _chart_traces(at))


def _chart_traces(at) -> list:
    import json

    (chart,) = [c for c in at.get("plotly_chart") if c.key == "ppl_tradeoff_chart"]
    return json.loads(chart.proto.spec)["data"]
