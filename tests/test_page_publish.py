"""The Publish page: a plan built from declared facts, its split, one charged publication, the package, the plan file.

Driven with AppTest on the census demo; the publication log is the test session's own (tests/conftest.py sets
DPX_DATA_DIR to a fresh folder).
"""

from __future__ import annotations

import base64
import inspect
import io
import json
import zipfile

import numpy as np
import pytest

from dpcore.plan import plan_from_dict
from dpx_publish.package import FILES
from explorer import publishing, state
from tests.apptest import assert_clean, open_page

EDU = ["HS-grad", "Some-college", "Bachelors", "Masters", "Doctorate"]


@pytest.fixture(autouse=True)
def own_log(tmp_path, monkeypatch):
    """A fresh publication log per test: the census demo's budget is not shared with other tests."""
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))


def _adult(at, domain=EDU):
    at.selectbox(key="pub_cat_0").select("education").run()
    at.text_area(key="pub_domain_0").input("\n".join(domain)).run()
    at.number_input(key="pub_lower_1").set_value(17).run()
    at.number_input(key="pub_upper_1").set_value(90).run()
    return at


def _values(y) -> np.ndarray:
    """A Plotly trace's values, also when Plotly sent them as a typed array (``{"dtype", "bdata"}``)."""
    if isinstance(y, dict):
        return np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
    return np.asarray(y, dtype=float)


def _split(at):
    return at.dataframe[0].value  # the first table of the page (AppTest does not expose a dataframe's key)


def test_the_page_asks_for_the_declared_facts_first():
    at = open_page("publish")
    assert_clean(at)
    said = " ".join(i.value for i in at.info)
    assert "Statistic 1" in said and "categories" in said and "not from this file" in said
    assert not [d for d in at.dataframe]  # no split before the plan is declared


def test_adult_plan_split_equally_publish_charges_the_log_once_and_shows_no_truth():
    at = _adult(open_page("publish"))
    assert_clean(at)
    split = _split(at)
    assert list(split["statistic"]) == ["counts of education per category", "mean of age"]
    assert split["ε"].sum() == pytest.approx(1.0)
    assert split["ε"].iloc[0] == pytest.approx(0.5)
    at.button(key="pub_publish").click().run()
    assert_clean(at)
    assert at.success and "ε = 1" in at.success[0].value
    fingerprint, package = at.session_state["_pub_package"]
    assert publishing.publication_log().spent(fingerprint)[0] == pytest.approx(1.0, rel=1e-9)
    shown = [d.value for d in at.dataframe][1:]
    assert [list(t["label"]) for t in shown] == [EDU, ["mean"]]
    for t in shown:
        assert not any("true" in c.lower() for c in t.columns)
    z = zipfile.ZipFile(io.BytesIO(package.zip_bytes))
    assert tuple(z.namelist()) == FILES
    report = json.loads(z.read("report.json"))
    assert report["total"]["epsilon"] == pytest.approx(1.0)
    assert report["neighbouring_relation"] and report["unit_of_privacy"]["unit"] == "record"
    assert [s["name"] for s in report["statistics"]] == list(split["statistic"])
    # the table shows the released numbers rounded to a tenth of their expected error (post-processing)
    counts = dict(zip(shown[0]["label"], shown[0]["released value"]))
    released = package.release.releases[0].values
    assert [counts[k] for k in EDU] == pytest.approx(
        [float(v) for v in released], abs=0.1 * split["expected error (±) at 95%"].iloc[0]
    )


def _curve(at) -> dict:
    """The trade-off chart (key pub_curve): each statistic's x and y, and where the plan's total is marked."""
    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith("-pub_curve"))
    spec = json.loads(chart.proto.spec)
    lines = {t["name"]: (_values(t["x"]), _values(t["y"])) for t in spec["data"] if t.get("name")}
    return {"lines": lines, "marked": [sh["x0"] for sh in spec["layout"].get("shapes", [])]}


def test_the_trade_off_chart_moves_with_the_total():
    """Issue 21: the chart of each error against the total ε is drawn, marks the plan's total, and follows it."""
    at = _adult(open_page("publish"))
    before = _curve(at)
    assert len(before["lines"]) == 2 and before["marked"] == [pytest.approx(1.0)]
    at.select_slider(key="pub_epsilon").set_value(2.0).run()
    assert_clean(at)
    after = _curve(at)
    assert after["marked"] == [pytest.approx(2.0)]
    for name, (x, y) in after["lines"].items():
        assert x[0] == pytest.approx(0.2) and x[-1] == pytest.approx(20.0)  # a decade either side of the total
        assert x[0] == pytest.approx(2 * before["lines"][name][0][0])
        assert np.all(np.diff(y) < 0)  # each error falls as the total grows
    split = _split(at)
    error = next(c for c in split.columns if c.startswith("expected error"))
    shown = dict(zip(split["statistic"], split[error]))
    for name, (x, y) in after["lines"].items():
        assert np.interp(2.0, x, y) == pytest.approx(shown[name], rel=0.01)  # through the table's error


def test_a_planned_n_left_at_the_page_default_is_said_so_and_the_mean_is_stated_at_the_released_count():
    """Issue 21 review: the planned n nobody typed is "the page default, not read from your data" on the page and in
    the report (never "declared"); once published, the mean's error is also stated at the released noisy count
    (dpcore's own error function with the count in place of the planned n), and the mean is rounded for that error,
    not for the planned one."""
    from dataclasses import replace

    from dpcore.plan import expected_error

    at = _adult(open_page("publish"))
    assert "the page default, not read from your data" in " ".join(c.value for c in at.caption)
    at.button(key="pub_publish").click().run()
    assert_clean(at)
    _, package = at.session_state["_pub_package"]
    report = json.loads(zipfile.ZipFile(io.BytesIO(package.zip_bytes)).read("report.json"))
    mean = report["statistics"][1]
    fact = next(f for f in mean["public_facts"] if f["name"].startswith("planned number of records"))
    assert fact["value"] == "1,000" and fact["source"] == "page default" and "not read from your data" in fact["from"]
    share = package.release.allocation.shares[1]
    (count,) = mean["released_count"]
    (at_count,) = mean["error_at_released_count"]
    unit = package.release.allocation.plan.unit
    assert at_count == expected_error(replace(share.statistic, planned_n=count), unit, share.budget, 0.95)
    assert at_count < share.expected_error / 10  # 32,561 rows against the 1,000 planned
    assert "at most" in mean["expected_error_in_words"] and "whatever the values" in mean["expected_error_in_words"]
    shown = [d.value for d in at.dataframe][2]  # the mean's published table
    assert shown["error at the released count (±)"].iloc[0] == pytest.approx(at_count, rel=5e-3)
    # rounded for the noise it carries: at most half a step, a step at most a tenth of the error at the count
    raw = package.release.releases[1].values[0]
    assert abs(shown["released value"].iloc[0] - raw) <= 0.05 * at_count
    assert "released count" in " ".join(c.value for c in at.caption)
    # typed: declared, and said to be declared
    typed = _adult(open_page("publish"))
    typed.number_input(key="pub_planned_1").set_value(32_561).run()
    assert "the page default" not in " ".join(c.value for c in typed.caption)
    typed.button(key="pub_publish").click().run()
    report = json.loads(
        zipfile.ZipFile(io.BytesIO(typed.session_state["_pub_package"][1].zip_bytes)).read("report.json")
    )
    fact = next(f for f in report["statistics"][1]["public_facts"] if f["name"].startswith("planned number"))
    assert fact["value"] == "32,561" and fact["source"] == "declared"


def test_accuracy_targets_move_the_split_and_are_met():
    at = _adult(open_page("publish"))
    at.radio(key="pub_policy").set_value("from accuracy targets").run()
    assert "target" in " ".join(i.value for i in at.info)
    at.number_input(key="pub_target_0").set_value(20.0).run()
    at.number_input(key="pub_target_1").set_value(1.5).run()
    assert_clean(at)
    first = _split(at)
    error = next(c for c in first.columns if c.startswith("expected error"))
    assert (first[error] <= first["target"] * (1 + 1e-9)).all()
    assert first["ε"].sum() == pytest.approx(1.0)
    at.number_input(key="pub_target_1").set_value(3.0).run()  # a looser mean gives the counts more budget
    second = _split(at)
    assert second["ε"].iloc[0] > first["ε"].iloc[0]
    at.checkbox(key="pub_smallest").check().run()
    smallest = _split(at)
    assert smallest["error / target"].max() == pytest.approx(1.0, abs=0.01)
    assert smallest["ε"].sum() < 1.0
    at.number_input(key="pub_target_1").set_value(0.01).run()
    at.checkbox(key="pub_smallest").uncheck().run()
    assert "below" in " ".join(i.value for i in at.info)  # a total below the targets' need: one sentence
    assert_clean(at)


def test_a_saved_plan_reopens_into_the_widgets_and_the_link():
    at = _adult(open_page("publish"))
    at.radio(key="pub_policy").set_value("by weights").run()
    at.number_input(key="pub_weight_1").set_value(3.0).run()
    at.button(key="pub_publish").click().run()
    plan_json = zipfile.ZipFile(io.BytesIO(at.session_state["_pub_package"][1].zip_bytes)).read("plan.json")
    before = _split(at)
    fresh = open_page("publish")
    fresh.file_uploader(key="pub_plan_file").upload("plan.json", plan_json, "application/json").run()
    assert_clean(fresh)
    assert fresh.text_area(key="pub_domain_0").value == "\n".join(EDU)
    assert fresh.query_params["pub_policy"] == "by weights"  # the link follows the opened plan
    after = _split(fresh)
    assert list(after["statistic"]) == list(before["statistic"])
    assert list(after["ε"]) == pytest.approx(list(before["ε"]))
    assert plan_from_dict(json.loads(plan_json)).statistics[1].weight == 3.0


def test_a_link_carries_the_plan():
    at = open_page(
        "publish",
        pub_cat_0="education",
        pub_domain_0="\n".join(EDU),
        pub_lower_1="17.0",
        pub_upper_1="90.0",
        pub_epsilon="2",
    )
    assert_clean(at)
    assert _split(at)["ε"].sum() == pytest.approx(2.0)


def test_over_the_budget_nothing_is_drawn_nor_charged():
    at = _adult(open_page("publish"))
    at.select_slider(key="pub_epsilon").set_value(10.0).run()
    at.button(key="pub_publish").click().run()  # 10 > the default budget of 5
    assert "Not published" in " ".join(w.value for w in at.warning)
    assert "_pub_package" not in at.session_state


def test_a_hostile_category_is_shown_as_text():
    at = _adult(open_page("publish"), domain=["<b>x</b>", "[link](http://e.com)", *EDU])
    assert_clean(at)
    at.button(key="pub_publish").click().run()
    assert_clean(at)
    labels = list(at.dataframe[1].value["label"])
    assert labels[:2] == ["<b>x</b>", "[link](http://e.com)"]


def _refused(at) -> bool:
    return "were read from the data" in " ".join(i.value for i in at.info)


def test_a_filled_domain_is_refused_even_after_an_edit_and_nothing_is_charged():
    """Issue 18: the categories the fill button reads are never published, even with one line edited away (the
    rest would still be the data's); the plan still splits, the refusal is one sentence, nothing is charged."""
    at = open_page("publish")
    at.selectbox(key="pub_cat_0").select("education").run()
    at.button(key="pub_fill_0").click().run()
    filled = at.text_area(key="pub_domain_0").value.splitlines()
    assert len(filled) == 16
    assert "not private" in " ".join(w.value for w in at.warning)
    at.number_input(key="pub_lower_1").set_value(17).run()
    at.number_input(key="pub_upper_1").set_value(90).run()
    assert_clean(at)
    assert _refused(at) and _split(at) is not None  # split and previewable, not publishable
    at.text_area(key="pub_domain_0").input("\n".join(filled[1:])).run()  # one line deleted
    assert_clean(at)
    assert _refused(at) and "not private" in " ".join(w.value for w in at.warning)
    assert at.query_params["pub_filled_0"] in ("1", ["1"])  # the link carries the mark
    assert at.button(key="pub_publish").disabled  # a browser cannot click it
    ds = at.session_state[state.DATASET]
    assert publishing.publication_log().spent(ds.fingerprint or ds.identity)[0] == 0  # nothing charged
    at.button(key="pub_clear_0").click().run()
    assert at.text_area(key="pub_domain_0").value == ""
    at.text_area(key="pub_domain_0").input("\n".join(EDU)).run()  # typed from the codebook, afresh
    assert_clean(at)
    assert not _refused(at) and "pub_filled_0" not in at.query_params
    at.button(key="pub_publish").click().run()
    assert_clean(at)
    report = json.loads(zipfile.ZipFile(io.BytesIO(at.session_state["_pub_package"][1].zip_bytes)).read("report.json"))
    assert all("not private" not in s["provenance"] for s in report["statistics"])


def test_a_link_made_after_a_fill_keeps_the_domain_unpublishable():
    at = open_page("publish")
    at.selectbox(key="pub_cat_0").select("education").run()
    at.button(key="pub_fill_0").click().run()
    domain = at.text_area(key="pub_domain_0").value
    received = open_page(
        "publish", pub_cat_0="education", pub_domain_0=domain, pub_filled_0="1", pub_lower_1="17", pub_upper_1="90"
    )
    assert_clean(received)
    assert _refused(received)
    assert received.button(key="pub_publish").disabled


def test_counts_default_to_the_first_text_column():
    at = open_page("publish")
    assert at.selectbox(key="pub_cat_0").value == "workclass"


def test_preview_on_a_public_file_is_labelled_simulated_and_charges_nothing():
    at = _adult(open_page("publish"))
    public = "education,age\n" + "\n".join(f"{EDU[i % 5]},{20 + i % 50}" for i in range(500))
    at.file_uploader(key="pub_preview_file").upload("past.csv", public.encode(), "text/csv").run()
    assert_clean(at)
    table = at.dataframe[1].value
    assert list(table["label"]) == [*EDU, "mean"]
    assert (table["randomness"].str.contains("not private")).all()
    assert "_pub_package" not in at.session_state
    # the chart: the same numbers, each with its statistic's expected error (from the plan's split) as error bar
    split = _split(at)
    errors = dict(zip(split["statistic"], split["expected error (±) at 95%"]))
    (spec,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if "simulated" in c.proto.spec]
    assert "simulated, not private" in spec["layout"]["title"]["text"]
    panels = spec["data"]
    assert [p["x"] for p in panels] == [EDU, ["mean"]]
    assert [list(_values(p["y"])) for p in panels] == [
        list(table["simulated value"][:5]),
        [table["simulated value"][5]],
    ]
    for trace, name in zip(panels, split["statistic"]):
        bars = _values(trace["error_y"]["array"])
        assert bars == pytest.approx([errors[name]] * len(trace["x"]), rel=1e-3)
    missing = "age\n" + "\n".join(str(20 + i % 50) for i in range(100))
    at.file_uploader(key="pub_preview_file").upload("ages.csv", missing.encode(), "text/csv").run()
    assert "education" in " ".join(i.value for i in at.info)  # a missing column: one sentence


def test_gaussian_plan_charges_its_delta_and_names_the_accountant():
    at = _adult(open_page("publish"))
    at.radio(key="pub_noise").set_value("gaussian").run()
    assert_clean(at)
    split = _split(at)
    assert (split["δ"] > 0).all() and split["ρ (zCDP)"].notna().all()
    assert "zCDP" in " ".join(c.value for c in at.caption)
    at.button(key="pub_publish").click().run()
    assert_clean(at)
    fingerprint, package = at.session_state["_pub_package"]
    spent = publishing.publication_log().spent(fingerprint)
    assert spent[0] == pytest.approx(package.release.allocation.epsilon) and 0 < spent[1] <= 1e-5


@pytest.mark.parametrize(
    "change, words",
    [
        ({"confidence": 0.97}, "confidence"),
        (
            {"statistics": [{"name": "m", "kind": "mean", "column": "age", "lower": 0, "upper": 1, "n_public": 9}]},
            "command line",
        ),
        ({"total": {"epsilon": 1, "delta": 0}, "policy": "wrong"}, "policy"),
        # the page would show (and Publish charge) another ε: 0.01, 10 or 1.235
        ({"statistics": [{"name": f"n{i}", "kind": "count"} for i in range(9)]}, "command line"),
        # a count where comparing a numeric column as text: the page offers number conditions on it (issue 21)
        ({"statistics": [{"name": "w", "kind": "count_where", "where": [["age", "is", "40"]]}]}, "command line"),
        ({"total": {"epsilon": 0.005, "delta": 0}}, "total ε is from"),
        ({"total": {"epsilon": 20, "delta": 0}}, "plan's is 20"),
        ({"total": {"epsilon": 1.23456, "delta": 0}}, "at most 4 significant digits"),
    ],
)
def test_a_plan_the_page_cannot_lay_out_is_refused_in_one_sentence(change, words):
    plan = {"version": 1, "total": {"epsilon": 1, "delta": 0}, "statistics": [{"name": "n", "kind": "count"}], **change}
    at = open_page("publish")
    at.file_uploader(key="pub_plan_file").upload("plan.json", json.dumps(plan).encode(), "application/json").run()
    assert_clean(at)
    said = " ".join(w.value for w in at.warning)
    assert "cannot be opened" in said and words in said.lower()
    assert at.text_area(key="pub_domain_0").value in ("", None)  # the widgets were left as they were


def test_every_kind_from_a_link_splits_and_publishes():
    at = open_page(
        "publish",
        pub_n="4",
        pub_kind_0="quantile",
        pub_lower_0="17.0",
        pub_upper_0="90.0",
        pub_res_0="1.0",
        pub_kind_1="histogram",
        pub_num_1="hours-per-week",
        pub_lower_1="0.0",
        pub_upper_1="100.0",
        pub_bins_1="5",
        pub_kind_2="sum",
        pub_num_2="capital-gain",
        pub_lower_2="0.0",
        pub_upper_2="10000.0",
        pub_by_2="sex",
        pub_keys_2="Male\nFemale",
        pub_kind_3="count of rows",
    )
    assert_clean(at)
    split = _split(at)
    assert list(split["statistic"]) == [
        "median of age",
        "histogram of hours-per-week (5 bins)",
        "sum of capital-gain by sex",
        "count of rows",
    ]
    assert split["ε"].sum() == pytest.approx(1.0)
    at.button(key="pub_publish").click().run()
    assert_clean(at)
    labels = [list(d.value["label"]) for d in at.dataframe[1:]]
    assert labels[0] == ["median"] and len(labels[1]) == 5 and labels[2] == ["Male", "Female"] and len(labels[3]) == 1
    at.radio(key="pub_unit").set_value("A person column").run()
    assert "quantile" in " ".join(i.value for i in at.info)  # one row per person only: one sentence
    assert_clean(at)


def test_a_plan_file_saying_its_domain_was_read_from_the_data_reopens_refused():
    from explorer.publish_plan import FILLED

    stat = {"name": "e", "kind": "counts", "column": "education", "domain": EDU, "provenance": FILLED}
    plan = {"version": 1, "total": {"epsilon": 1, "delta": 0}, "statistics": [stat]}
    at = open_page("publish")
    at.file_uploader(key="pub_plan_file").upload("plan.json", json.dumps(plan).encode(), "application/json").run()
    assert_clean(at)
    assert _refused(at) and at.button(key="pub_publish").disabled
    assert at.text_input(key="pub_prov_0").value == ""  # the mark is the page's, not words in the source field


def test_the_preview_reads_the_public_file_and_never_the_private_data(monkeypatch):
    """The preview draws on the uploaded public file only: it never asks the session for its dataset, and the table it
    simulates on is the public file's (2 columns, 500 rows), not the census demo's."""
    from explorer import publish_preview

    asked, drawn_on = [], []
    real_dataset, real_simulate = state.dataset, publish_preview.simulate_plan

    def watched_dataset():
        if any(frame.filename.endswith("publish_preview.py") for frame in inspect.stack(0)):
            asked.append("the preview asked for the session's dataset")
        return real_dataset()

    def watched_simulate(allocation, table, rng, trials):
        drawn_on.append(table)
        return real_simulate(allocation, table, rng, trials)

    monkeypatch.setattr(state, "dataset", watched_dataset)
    monkeypatch.setattr(publish_preview, "simulate_plan", watched_simulate)
    at = _adult(open_page("publish"))
    public = "education,age\n" + "\n".join(f"{EDU[i % 5]},{20 + i % 50}" for i in range(500))
    at.file_uploader(key="pub_preview_file").upload("past.csv", public.encode(), "text/csv").run()
    assert_clean(at)
    assert at.get("plotly_chart")  # the preview ran (a watcher that saw nothing run would prove nothing)
    assert not asked
    (table,) = drawn_on
    assert list(table.columns) == ["education", "age"] and len(table) == 500
    private = at.session_state[state.DATASET].frame
    assert table is not private and len(private) != 500


# ------------------------------------------------ issue 21: count where, two-way table, per period, most common value

#: One statistic of each of the plan kinds the explorer's other central queries became (dpcore.plan), as the page
#: declares them: the conditions, domains and years typed, never read from the data.
RACES, TOP = ["White", "Black"], ["HS-grad", "Bachelors", "Masters"]


def _four_new_kinds(at):
    """Statistics 1-4 of the page set, widget by widget, to a count where (age ≥ 40 and sex is Female), a two-way
    table (sex × race), counts per month of 1994 (over the education column: the census demo has no dates, so every
    month is a noisy zero) and the most common education among three declared candidates."""
    at.number_input(key="pub_n").set_value(4).run()
    kinds = ["count where…", "two-way table", "per year or month", "most common value"]
    for i, kind in enumerate(kinds):
        at.selectbox(key=f"pub_kind_{i}").set_value(kind).run()
    assert "the value of the condition" in " ".join(x.value for x in at.info)  # the declared facts are asked for
    at.selectbox(key="pub_wcol1_0").set_value("age").run()
    at.selectbox(key="pub_wcond1_0").set_value("≥").run()
    at.number_input(key="pub_wnum1_0").set_value(40.0).run()
    at.checkbox(key="pub_wand_0").check().run()
    at.selectbox(key="pub_wcol2_0").set_value("sex").run()
    assert list(at.selectbox(key="pub_wcond2_0").options) == ["is", "is not"]  # a text column's conditions
    at.text_input(key="pub_wtext2_0").input("Female").run()
    at.selectbox(key="pub_cat_1").set_value("sex").run()
    at.text_area(key="pub_domain_1").input("Male\nFemale").run()
    at.selectbox(key="pub_col2_1").set_value("race").run()
    at.text_area(key="pub_keys_1").input("\n".join(RACES)).run()
    at.selectbox(key="pub_date_2").set_value("education").run()
    at.radio(key="pub_period_2").set_value("per month").run()
    at.number_input(key="pub_first_2").set_value(1994).run()
    at.number_input(key="pub_last_2").set_value(1994).run()
    at.selectbox(key="pub_cat_3").set_value("education").run()
    at.text_area(key="pub_domain_3").input("\n".join(TOP)).run()
    assert_clean(at)
    return at


def _dpcore_plan():
    from dpcore.plan import Plan, Statistic

    return Plan(
        (
            Statistic("w", "count_where", where=(("age", "≥", 40), ("sex", "is", "Female"))),
            Statistic("t", "two_way", column="sex", domain=("Male", "Female"), by="race", keys=tuple(RACES)),
            Statistic("p", "periods", column="education", period="month", first_year=1994, last_year=1994),
            Statistic("m", "most_common", column="education", domain=tuple(TOP)),
        ),
        epsilon=1.0,
    )


def test_the_four_new_kinds_are_split_published_charged_and_reopened():
    """Issue 21: each of count where, two-way table, per year or month and most common value is laid out on the page
    from declared facts; its row of the split has dpcore's ε and stated error (the most common value's in rows below
    the top count); Publish charges the log once and shows the published tables without truth (the chosen category,
    with what its error bounds); the saved plan reopens into the same widgets and split, and so does its link. ~8 s."""
    from dpcore.plan import allocate

    at = _four_new_kinds(open_page("publish"))
    split = _split(at)
    assert list(split["statistic"]) == [
        "count of rows where age ≥ 40 and sex is Female",
        "two-way table of sex by race",
        "counts per month of education, 1994 to 1994",
        "most common value of education",
    ]
    want = allocate(_dpcore_plan())
    error = "expected error (±) at 95%"
    assert list(split["ε"]) == pytest.approx([s.epsilon for s in want.shares], rel=1e-12)
    assert list(split[error]) == pytest.approx([s.expected_error for s in want.shares], rel=1e-12)
    assert list(split["error unit"]) == ["as the value"] * 3 + ["rows below the top count"]
    assert "exponential mechanism" in split["noise"].iloc[3]
    at.button(key="pub_publish").click().run()
    assert_clean(at)
    fingerprint, package = at.session_state["_pub_package"]
    assert publishing.publication_log().spent(fingerprint)[0] == pytest.approx(1.0, rel=1e-9)
    shown = [d.value for d in at.dataframe][1:]
    assert [list(t["label"]) for t in shown] == [
        ["age ≥ 40 and sex is Female"],
        [f"{r} × {c}" for r in ("Male", "Female") for c in RACES],
        [f"1994-{m:02d}" for m in range(1, 13)],
        ["most common value"],
    ]
    for t in shown:
        assert not any("true" in c.lower() for c in t.columns)
    assert shown[3]["released value"].iloc[0] in TOP  # a declared candidate, never a number
    said = " ".join(c.value for c in at.caption)
    assert f"within ±{want.shares[3].expected_error:,.3g} of the top count" in said.replace("\\", "")
    report = json.loads(zipfile.ZipFile(io.BytesIO(package.zip_bytes)).read("report.json"))
    facts = {f["name"]: f["value"] for f in report["statistics"][0]["public_facts"]}
    assert facts["conditions"] == "age ≥ 40 and sex is Female"  # the condition travels in the report
    # the saved plan reopens: the same widgets, the same split
    plan_json = zipfile.ZipFile(io.BytesIO(package.zip_bytes)).read("plan.json")
    fresh = open_page("publish")
    fresh.file_uploader(key="pub_plan_file").upload("plan.json", plan_json, "application/json").run()
    assert_clean(fresh)
    assert not fresh.warning
    after = _split(fresh)
    assert list(after["statistic"]) == list(split["statistic"])
    assert list(after["ε"]) == pytest.approx(list(split["ε"]))
    assert list(after[error]) == pytest.approx(list(split[error]))
    assert (
        fresh.number_input(key="pub_wnum1_0").value == 40.0 and fresh.text_input(key="pub_wtext2_0").value == "Female"
    )
    assert fresh.text_area(key="pub_keys_1").value == "\n".join(RACES)
    assert fresh.query_params["pub_period_2"] == "per month"  # the link follows the opened plan
    assert fresh.number_input(key="pub_first_2").value == 1994
    assert fresh.text_area(key="pub_domain_3").value == "\n".join(TOP)
    assert plan_from_dict(json.loads(plan_json)).statistics[0].where == (("age", "≥", 40.0), ("sex", "is", "Female"))
    # and the link of the reopened page carries the whole plan: opened afresh, the same split
    link = {k: v if isinstance(v, str) else v[0] for k, v in fresh.query_params.items() if k.startswith("pub_")}
    linked = open_page("publish", **link)
    assert_clean(linked)
    assert list(_split(linked)["statistic"]) == list(split["statistic"])
    assert list(_split(linked)[error]) == pytest.approx(list(split[error]))


def test_the_preview_shows_the_most_common_value_as_a_note_with_its_stated_error():
    """The most common value is a category: the preview's table shows it as text and its panel is a note (the chosen
    value, and that its count is within its stated error of the top count), no bar and no error bar; the other new
    kinds are bars with dpcore's error. ~4 s."""
    at = _four_new_kinds(open_page("publish"))
    split = _split(at)
    public = "age,sex,race,education\n" + "\n".join(
        f"{20 + i % 50},{('Male', 'Female')[i % 2]},{RACES[i % 3 % 2]},{TOP[i % 3]}" for i in range(300)
    )
    at.file_uploader(key="pub_preview_file").upload("past.csv", public.encode(), "text/csv").run()
    assert_clean(at)
    table = at.dataframe[1].value
    assert (table["randomness"].str.contains("not private")).all()
    (chosen,) = table.loc[table["label"] == "most common value", "simulated value"]
    assert chosen in TOP
    (spec,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if "simulated" in c.proto.spec]
    assert [t["type"] for t in spec["data"]] == ["bar"] * 3  # no trace for the most common value
    for trace, err in zip(spec["data"], split["expected error (±) at 95%"]):
        assert _values(trace["error_y"]["array"]) == pytest.approx([err] * len(trace["x"]), rel=1e-3)
    notes = [a["text"] for a in spec["layout"]["annotations"]]
    err = split["expected error (±) at 95%"].iloc[3]
    assert f"simulated: {chosen}" in notes[-1] and f"within ±{err:,.3g} of the top count" in notes[-1]
