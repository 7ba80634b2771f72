"""The Accountant page: runs, reruns on a slider move, shows dpcore's numbers, and drives the session ledger."""

import re
import warnings

import numpy as np
import pytest

from dpcore import GRR, Gaussian, Laplace, accounting, families
from dpcore.neighbours import REPLACE_ONE
from dpcore.staircase import Staircase
from tests.apptest import PAGES, assert_clean, metric, open_page

K_GRID = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000)  # the page's PLD grid up to its default largest k


def _pld(mech, k, delta=1e-5):
    # the page composes PLD on the 1-2-5 grid up to the chart's largest k (the grid step depends on it)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", accounting.OrderGridEdgeWarning)
        df = accounting.epsilon_curve(mech, K_GRID, delta, ["pld"])
    return float(df.loc[df["k"] == k, "epsilon"].iloc[0])


def _entries(at):
    return at.dataframe[-1].value  # the ledger's table is the page's last (AppTest does not expose dataframe keys)


def _texts(at):
    return [m.value for m in at.markdown]


@pytest.fixture(autouse=True)
def _own_publication_log(tmp_path, monkeypatch):
    """Each test reads a publication log of its own: other test modules publish on the census demo into the run's
    shared data folder, and the Accountant shows that log beside its ledger."""
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))


def test_page_runs_and_shows_the_pld_epsilon_of_dpcore():
    at = open_page("accountant")
    assert_clean(at)
    assert at.selectbox(key="acc_mechanism").value == "Laplace"
    eps, k = at.select_slider(key="acc_epsilon").value, at.select_slider(key="acc_k").value
    assert metric(at, f"ε after {k:,} releases, PLD") == f"{_pld(Laplace.from_epsilon(eps), k):,.4g}"
    assert metric(at, "Basic composition says") == f"{k * eps:,.4g}"  # basic: k ε₀
    # the RDP panel names the best order rdp_to_dp finds for k releases
    rdp_eps, order = accounting.rdp_to_dp(
        accounting.DEFAULT_ORDERS, k * accounting.laplace_rdp(1 / eps), 1e-5, warn=False
    )
    assert any(f"ε = {rdp_eps:.4g}** at order **α = {order:g}" in t for t in _texts(at))


def test_slider_move_reruns_and_updates_the_shown_value():
    at = open_page("accountant", acc_mechanism="Gaussian")
    before = metric(at, "ε after 100 releases, exact (μ-GDP)")
    at.select_slider(key="acc_epsilon").set_value(4.0).run()
    assert_clean(at)
    after = metric(at, "ε after 100 releases, exact (μ-GDP)")
    sigma = Gaussian.from_epsilon_delta(4.0, 1e-5).sigma  # analytic calibration of one release
    assert after != before
    assert after == f"{accounting.gaussian_epsilon(sigma, 100, 1e-5):,.4g}"


@pytest.mark.parametrize("mechanism", ["Laplace", "Gaussian"])
def test_an_accounting_keeps_its_colour_from_one_chart_to_the_next(mechanism):
    # RDP was green on the chart of ε against k and orange on the vector chart below it (colours went by place)
    import json

    at = open_page("accountant", acc_mechanism=mechanism)
    assert_clean(at)
    charts = {c.key: json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart")}
    curve = {t["name"]: t["line"]["color"] for t in charts["acc_curve"]}
    vector = {t["name"]: t["line"]["color"] for t in charts["acc_vector"]}
    shared = [name for name in curve if f"sequential · {name}" in vector]
    assert len(shared) >= 3, (curve, vector)  # basic, RDP and the tight accounting (advanced for Laplace)
    for name in shared:
        assert vector[f"sequential · {name}"] == curve[name], name
    assert len(set(curve.values())) == len(curve)  # one colour per accounting on each chart
    assert len(set(vector.values())) == len(vector)


def test_planner_says_the_noise_plan_noise_gives():
    at = open_page("accountant", acc_plan_noise="Gaussian", acc_plan_epsilon=2, acc_k=50)
    assert_clean(at)
    sigma = accounting.plan_noise("gaussian", 2.0, 1e-5, 50, "exact").sigma
    bound = Gaussian(sigma).error_bound(0.95)
    assert any(f"σ = **{sigma:,.4g}**" in t and f"±{bound:,.4g}" in t for t in _texts(at))


def test_grr_records_in_the_ledger_refuses_an_overspend_and_resets():
    at = open_page("accountant", acc_mechanism="GRR", acc_epsilon=0.1, acc_k=10)
    assert_clean(at)
    assert any("pick Laplace or Gaussian" in i.value for i in at.info)  # no vectorised comparison for GRR
    at.button(key="spend_acc").click().run()  # a local release under the default add/remove ledger: refused
    assert any("Not recorded" in w.value and "replace one record" in w.value for w in at.warning)
    assert _entries(at).empty
    at.selectbox(key="acc_budget_relation").set_value(REPLACE_ONE).run()
    at.button(key="acc_new_ledger").click().run()
    at.button(key="spend_acc").click().run()
    assert_clean(at)
    ledger = accounting.BudgetLedger(5.0, 1e-5, "rdp", relation=REPLACE_ONE).spend(GRR(0.1, 2), count=10)
    assert metric(at, "ε spent") == f"{ledger.spent().epsilon:.4g}"
    assert _entries(at)["count"].tolist() == [10]
    at.select_slider(key="acc_epsilon").set_value(10.0).run()
    at.button(key="spend_acc").click().run()
    assert not at.exception
    assert any("Not recorded" in w.value and "over your budget" in w.value for w in at.warning)
    assert _entries(at)["count"].tolist() == [10]  # unchanged
    at.button(key="acc_reset").click().run()
    assert _entries(at).empty


def test_new_ledger_only_when_the_button_is_pressed():
    at = open_page("accountant")
    at.number_input(key="acc_budget_epsilon").set_value(20.0)
    at.selectbox(key="acc_budget_method").set_value("zcdp").run()
    assert at.session_state["ledger"].epsilon == 5.0  # settings alone do not forget anything
    at.button(key="acc_new_ledger").click().run()
    assert_clean(at)
    assert (at.session_state["ledger"].epsilon, at.session_state["ledger"].method) == (20.0, "zcdp")


def test_runs_after_an_upload():
    at = open_page("data")
    at.file_uploader(key="data_upload").upload("x.csv", b"a,b\n1,x\n2,y\n3,x\n", "text/csv").run()
    at.switch_page(PAGES["accountant"]).run()
    assert_clean(at)
    assert at.session_state["dataset"].name == "x.csv"
    assert metric(at, "ε after 100 releases, PLD")  # the page does not depend on the data, but must still run


@pytest.mark.parametrize(
    "query, expected",
    [
        # what ε takes is the slider's to say (tests/test_widgets.py); here: the refusal names it and its range
        ({"acc_epsilon": 0}, "**ε of one release** to 0, which is not allowed here: it takes "),
        ({"acc_categories": 1}, "**GRR categories** to 1, which is not allowed here: it takes a whole number from 2"),
    ],
)
def test_impossible_link_values_are_reported_not_a_crash(query, expected):
    at = open_page("accountant", **query)
    assert_clean(at)
    assert any(expected in i.value.replace("\\", "") for i in at.info)  # the note escapes Markdown


def test_impossible_sensitivity_stops_only_the_planner():
    at = open_page("accountant", acc_plan_sensitivity=-1)
    assert not at.exception
    assert [e.value.replace("\\", "") for e in at.error] == [
        "No plan for these inputs. The sensitivity must be above 0 (it was -1)."
    ]
    assert metric(at, "ε spent") == "0"  # the sections below still render


def test_an_accounting_that_cannot_reach_the_target_is_named_not_fatal():
    # RDP's conversion alone costs ~0.0148 at delta = 1e-10: no noise gets a plan to 0.01
    at = open_page("accountant", acc_plan_noise="Gaussian", acc_plan_epsilon=0.01, acc_delta="1e-10", acc_k=1)
    assert_clean(at)
    assert any("No plan under RDP: epsilon must be above 0.01476" in c.value for c in at.caption)
    sigma = accounting.plan_noise("gaussian", 0.01, 1e-10, 1, "exact").sigma
    assert any(f"σ = **{sigma:,.4g}**" in t for t in _texts(at))


def test_from_the_accuracy_you_need_to_the_total_epsilon_of_a_plan():
    at = open_page("accountant", acc_plan_noise="Gaussian", acc_k=20, acc_plan_accuracy=5)
    assert_clean(at)
    expected = accounting.plan_epsilon("gaussian", 5.0, 20, 1e-5)
    shown = [d.value for d in at.dataframe if any("total ε for" in c for c in d.value.columns)][0]
    assert np.allclose(shown.iloc[:, 1].to_numpy(), expected["epsilon"].to_numpy(), rtol=1e-12)
    best = float(expected["epsilon"].min())
    assert any(f"ε = {best:.4g}" in m.value for m in at.markdown)
    at.button(key="acc_plan_set").click().run()
    assert at.select_slider(key="acc_plan_epsilon").value >= best


def test_the_ledger_lists_each_entry_with_its_own_cost_removes_one_and_exports():
    at = open_page("accountant", acc_mechanism="Laplace", acc_epsilon=0.5, acc_k=2)
    at.button(key="spend_acc").click().run()
    at.select_slider(key="acc_epsilon").set_value(1.0).run()
    at.button(key="spend_acc").click().run()
    assert_clean(at)
    entries = _entries(at)
    assert entries["ε on its own"].tolist() == [1.0, 2.0] and entries["δ on its own"].tolist() == [0.0, 0.0]
    assert metric(at, "ε spent") == "3" and metric(at, "δ spent") == "0"  # pure releases: their sum, no δ
    at.selectbox(key="acc_remove_entry").set_value(1).run()
    at.button(key="acc_remove").click().run()
    assert _entries(at)["ε on its own"].tolist() == [2.0] and metric(at, "ε spent") == "2"
    assert any("a reload keeps it" in c.value for c in at.caption)


def _screen(at) -> dict:
    """Every number and sentence the Accountant shows, by kind (the chart data aside: the tables and metrics hold it)."""
    return {
        "metrics": [(m.label, m.value) for m in at.metric],
        "tables": [d.value.to_csv() for d in at.dataframe],
        "markdown": [m.value for m in at.markdown],
        "captions": [c.value for c in at.caption],
        "inputs": [(n.key, n.value) for n in at.number_input],
        "sliders": [(s.key, s.value) for s in at.select_slider],
        "choices": [(s.key, s.value) for s in at.selectbox],
    }


def test_the_link_shows_its_receiver_the_senders_numbers():
    # issue 24: the "within ±" box showed 110 to the sender and 47 to whoever opened the same link (a default read
    # from the plan above, which a keyed widget does not follow once drawn). The sender moves what the planner
    # and the charts read, in an order a person might; the receiver opens the link the sender's screen made.
    moves = {"acc_plan_epsilon": 0.5, "acc_k": 20, "acc_plan_noise": "Gaussian", "acc_epsilon": 2.0}
    sender = open_page("accountant")
    for key, value in moves.items():
        (sender.selectbox if key == "acc_plan_noise" else sender.select_slider)(key=key).set_value(value).run()
    sender.number_input(key="acc_plan_sensitivity").set_value(3.0).run()
    moves["acc_plan_sensitivity"] = 3.0
    assert_clean(sender)
    link = {k: v for k, v in sender.query_params.items() if k != "tab"}  # the tab's own id is not part of a link
    shown = _screen(sender)
    # whoever opens the link; and whoever sets the same controls at once (nothing shown depends on the order of
    # the moves or on what the page showed before them: no session history)
    moved = {key: link[key] for key in moves}  # as the link writes them ("2", not "2.0")
    for receiver in (open_page("accountant", **link), open_page("accountant", **moved)):
        assert_clean(receiver)
        opened = _screen(receiver)
        for kind in shown:
            assert shown[kind] == opened[kind], kind


def test_a_person_level_ledger_converts_a_record_release_by_the_declared_bound_and_says_so():
    at = open_page("accountant", acc_mechanism="Laplace", acc_epsilon=0.5, acc_k=1)
    at.selectbox(key="acc_budget_unit").set_value("person").run()
    at.button(key="acc_new_ledger").click().run()
    assert at.session_state["ledger"].unit == "person"
    at.number_input(key="acc_rows_per_person").set_value(3.0).run()
    at.button(key="spend_acc").click().run()
    assert_clean(at)
    # dpcore's ledger, told the same: a person is at most 3 records, so the release counts 3 times
    ledger = accounting.BudgetLedger(5.0, 1e-5, "best", unit="person").spend(
        Laplace.from_epsilon(0.5), rows_per_person=3
    )
    assert metric(at, "ε spent") == f"{ledger.spent().epsilon:.4g}"
    entries = _entries(at)
    assert entries["holds under"].tolist() == ["add/remove one record"] and entries["converted"].tolist() == ["k = 3"]
    units = [d.value for d in at.dataframe if "ε together" in d.value.columns][0]
    assert units["unit"].tolist() == ["one record"] and units["ε together"].tolist() == [ledger.spent().epsilon]
    captions = [c.value.replace("\\", "") for c in at.caption]  # the page escapes Markdown
    said = [c for c in captions if c.startswith("Entries about one record were converted")]
    assert len(said) == 1 and "with k = 3" in said[0] and "a person is at most 3 record(s)" in said[0]
    assert "group privacy" in said[0]


def test_a_record_ledger_totals_per_unit_and_a_client_ledger_refuses_a_person_release():
    at = open_page("accountant", acc_mechanism="Laplace", acc_epsilon=0.5, acc_k=1)
    at.radio(key="acc_release_unit").set_value("person").run()
    at.button(key="spend_acc").click().run()  # a person-level release in the default record-level ledger: k = 2
    at.radio(key="acc_release_unit").set_value("record").run()
    at.button(key="spend_acc").click().run()
    assert_clean(at)
    entries = _entries(at)
    assert entries["holds under"].tolist() == ["add/remove one person", "add/remove one record"]
    assert entries["ε on its own"].tolist() == [1.0, 0.5]
    units = [d.value for d in at.dataframe if "ε together" in d.value.columns][0]
    assert units["unit"].tolist() == ["one person", "one record"] and units["ε together"].tolist() == [1.0, 0.5]
    assert any("remove that person and add them back changed" in c.value.replace("\\", "") for c in at.caption)
    # a client-level ledger has no rule for a person: refused in one sentence, nothing recorded
    at.selectbox(key="acc_budget_unit").set_value("client").run()
    at.button(key="acc_new_ledger").click().run()
    at.radio(key="acc_release_unit").set_value("person").run()
    at.button(key="spend_acc").click().run()
    assert_clean(at)
    assert any(
        w.value.startswith("Not recorded: A guarantee for one person says nothing about one client") for w in at.warning
    )
    assert _entries(at).empty and at.session_state["ledger"].unit == "client"


def test_the_publication_log_view_shows_each_rows_unit_and_the_total_per_unit():
    from dataclasses import replace

    from dpcore.publish import publish_count
    from explorer.publication_log import PublicationLog, default_path

    at = open_page("accountant")
    ds = at.session_state["dataset"]
    fingerprint = ds.fingerprint or ds.identity
    log = PublicationLog(default_path())  # this test's own folder (the fixture above)
    ones = np.ones(50)
    log.publish(fingerprint, ds.name, (0.25, 0.0), lambda: publish_count(ones, 0.25))
    log.publish(fingerprint, ds.name, (1.0, 0.0), lambda: replace(publish_count(ones, 0.5), unit="person"))
    at.run()
    assert_clean(at)
    shown = [d.value for d in at.dataframe if "the release holds under" in d.value.columns][0]
    assert shown["the release holds under"].tolist() == ["add/remove one record", "add/remove one person"]
    assert shown["ε charged"].tolist() == [0.25, 1.0]
    said = [c.value.replace("\\", "") for c in at.caption if "Per unit" in c.value][0]
    assert "one record: ε 0.25, δ 0 over 1 release(s)" in said
    assert "one person: ε 1, δ 0 over 1 release(s), converted with k = 2 because" in said


def test_the_ledger_json_names_its_unit_and_the_totals_per_unit_with_their_rule():
    import json

    from dpcore.accounting import PureDP
    from explorer import budget

    led = accounting.BudgetLedger(5.0, 1e-5, "basic", unit="person")
    led.spend(Laplace.from_epsilon(0.5), rows_per_person=4, label="a count")
    led.spend(PureDP(0.25, unit="person"), label="a choice")
    document = json.loads(budget.ledger_json(led))
    assert document["unit_of_privacy"] == "person" and document["neighbouring_relation"] == "add/remove one person"
    assert [(u["unit"], u["epsilon"]) for u in document["by_unit"]] == [("record", 2.0), ("person", 0.25)]
    assert document["by_unit"][0]["conversions"] == [{"k": 4, "reason": led.entries[0].conversion.reason}]
    assert document["by_unit"][1]["conversions"] == []
    assert [e["converted"] for e in document["entries"]] == ["k = 4", ""]
    assert [e["holds under"] for e in document["entries"]] == ["add/remove one record", "add/remove one person"]
    assert document["conversion_rule"].startswith("group privacy over k steps")


# ---------------------------------------------------------------------- every central family, by the registry


def test_every_registered_central_family_is_offered_and_accounted_as_itself():
    from dpcore.accounting.per_release import accounting_for
    from explorer.accountant_layout import FAMILIES, one_release

    at = open_page("accountant")
    offered = at.selectbox(key="acc_mechanism").options
    assert [f.name for f in families.central()] == [
        name for name in offered if families.family(name).model == "central"
    ]
    for family in FAMILIES:  # each by its own privacy loss, so that the page's tight value is tight
        assert accounting_for(one_release(family, 1.0, 1e-5, 2)).tight_method is not None, family.name


def test_a_staircase_entry_composes_by_its_own_privacy_loss_and_is_recorded():
    at = open_page("accountant", acc_mechanism="Staircase", acc_epsilon=0.5, acc_k=10)
    assert_clean(at)
    eps, k = 0.5, 10
    mech = Staircase.from_epsilon(eps)
    assert metric(at, f"ε after {k:,} releases, PLD") == f"{_pld(mech, k):,.4g}"
    assert metric(at, "Basic composition says") == f"{k * eps:,.4g}"
    # its own loss, strictly below binary randomized response's at the same ε (what it was charged as before)
    assert _pld(mech, k) < _pld(GRR(eps, 2), k)
    assert any("pick Laplace or Gaussian" in i.value for i in at.info)  # no closed-form vector plan for it
    at.button(key="spend_acc").click().run()
    assert_clean(at)
    (entry,) = at.session_state["ledger"].entries
    assert isinstance(entry.mechanism, Staircase) and entry.count == k
    led = at.session_state["ledger"]
    expected = accounting.BudgetLedger(led.epsilon, led.delta, led.method).spend(mech, count=k)
    assert metric(at, "ε spent") == f"{expected.spent().epsilon:.4g}"


# ---------------------------------------------------------------------- plain names on screen, keys in the link


@pytest.mark.parametrize(
    "key, options, pick",
    [
        ("acc_conversion", accounting.CONVERSIONS, "mironov"),
        ("acc_zcdp_conversion", accounting.ZCDP_CONVERSIONS, "bun-steinke"),
        ("acc_budget_method", accounting.LEDGER_METHODS, "zcdp"),
    ],
)
def test_the_accounting_pickers_show_plain_names_and_keep_dpcores_key_in_the_link(key, options, pick):
    from explorer.accountant_layout import CONVERSION_NAMES, LEDGER_METHOD_NAMES, ZCDP_CONVERSION_NAMES

    names = {**CONVERSION_NAMES, **ZCDP_CONVERSION_NAMES, **LEDGER_METHOD_NAMES}
    at = open_page("accountant")
    box = at.selectbox(key=key)
    assert box.options == [names[o] for o in options] and not set(box.options) & set(options) - {"basic"}
    box.set_value(pick).run()
    assert_clean(at)
    assert at.query_params[key] == pick  # the link carries the key, as before
    opened = open_page("accountant", **{key: pick})
    assert opened.selectbox(key=key).value == pick


def test_the_ledgers_pickers_are_wide_enough_for_their_longest_choice():
    # the real-file screenshots (test-artifacts/real, 1400 pixels) showed the unit picker in a fifth of the page
    # reading "one record (one row": the five budget pickers now share two rows
    from explorer.accountant_ledger import UNIT_WORDS

    at = open_page("accountant")
    assert_clean(at)
    page, found = 900, set()  # the page's body at 1400 pixels, the sidebar open
    for col in at.columns:
        keys = [w.key for w in col.selectbox]
        found.update(keys)
        if "acc_budget_unit" in keys:
            longest = max(len(words) for words in UNIT_WORDS.values())
            assert col.weight * page >= 8 * longest + 60, col.weight  # ~8 px a character, the arrow and padding
        if "acc_budget_relation" in keys or "acc_budget_method" in keys:
            assert col.weight >= 1 / 3 - 1e-9, (keys, col.weight)
    assert {"acc_budget_unit", "acc_budget_relation", "acc_budget_method"} <= found


def test_the_ledgers_other_bounds_are_named_in_plain_words():
    # a Gaussian ledger is counted by several accountings; the caption listed the others by dpcore's keys
    at = open_page("accountant", acc_mechanism="Gaussian", acc_epsilon=0.5, acc_k=10)
    at.button(key="spend_acc").click().run()
    assert_clean(at)
    counted = [c.value for c in at.caption if c.value.startswith("Counted by")]
    assert counted and "the others:" in counted[0], [c.value for c in at.caption]
    others = counted[0].split("the others:")[1]
    assert not re.search(r"\b(rdp|zcdp|basic_|pld)\b", others), others
    assert re.search(r"RDP|zCDP|basic", others), others
