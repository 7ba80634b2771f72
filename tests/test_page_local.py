"""The Local DP page: runs, reruns on a slider move, and shows dpcore's numbers."""

import numpy as np
import pytest

from dpcore import GRR, OUE, SUE, families
from explorer.columns import encode_categories
from explorer.dataset import load_demo
from tests.apptest import PAGES, assert_clean, assert_epsilon_widens, metric, open_page

MEAN_TAB = "Mean of a number"


def _true_counts(column="occupation"):
    codes, labels, _ = encode_categories(load_demo("census").frame[column])
    return np.bincount(codes, minlength=len(labels)), labels


def test_only_the_open_tab_runs_and_a_link_names_it():
    at = open_page("local")
    assert_clean(at)
    keys = {w.key for w in [*at.select_slider, *at.selectbox]}
    assert "ldp_epsilon" in keys and "ldpm_column" not in keys
    at = open_page("local", ldp_view=MEAN_TAB)
    assert_clean(at)
    keys = {w.key for w in [*at.select_slider, *at.selectbox]}
    assert "ldpm_epsilon" in keys and "ldp_epsilon" not in keys
    assert metric(at, "One LDP estimate (simulated, not private)")


def test_page_runs_and_shows_the_exact_std_of_dpcore():
    at = open_page("local")
    assert_clean(at)
    column = at.selectbox(key="ldp_column").value
    true, _ = _true_counts(column)
    eps = at.select_slider(key="ldp_epsilon").value
    kind = at.selectbox(key="ldp_mechanism").value.name
    mech = {"GRR": GRR, "SUE": SUE, "OUE": OUE}[kind](eps, len(true))
    j = int(np.argmax(true))
    assert metric(at, "Theoretical std (exact variance)") == f"{mech.std(true)[j]:,.1f}"


def test_slider_move_reruns_and_updates_the_shown_value():
    at = open_page("local")
    before = metric(at, "Theoretical std (exact variance)")
    at.select_slider(key="ldp_epsilon").set_value(4.0).run()
    assert_clean(at)
    after = metric(at, "Theoretical std (exact variance)")
    assert after != before
    true, _ = _true_counts(at.selectbox(key="ldp_column").value)
    kind = at.selectbox(key="ldp_mechanism").value.name
    mech = {"GRR": GRR, "SUE": SUE, "OUE": OUE}[kind](4.0, len(true))
    assert after == f"{mech.std(true)[int(np.argmax(true))]:,.1f}"


@pytest.mark.parametrize(
    "kind", ["SUE", "OUE"]
)  # at ε = 2 on workclass (k = 9) GRR is preselected: a link carries the others
def test_a_shared_link_sets_the_mechanism_and_reproduces(kind):
    at = open_page("local", ldp_mechanism=kind, ldp_epsilon=2, seed=7)
    assert_clean(at)
    assert at.selectbox(key="ldp_mechanism").value is families.family(kind)
    assert at.select_slider(key="ldp_epsilon").value == 2.0
    again = open_page("local", ldp_mechanism=kind, ldp_epsilon=2, seed=7)
    assert [m.value for m in at.metric] == [m.value for m in again.metric]


def test_the_oracle_chooser_lists_the_registrys_local_families_by_name_as_links_always_did():
    # the labels are what a link carries (?ldp_mechanism=OUE, read back in the test above)
    at = open_page("local")
    chooser = at.selectbox(key="ldp_mechanism")
    assert chooser.options == [f.name for f in families.local()] == ["GRR", "SUE", "OUE"]
    chooser.set_value(families.family("oue")).run()
    assert_clean(at)
    assert any(c.value == families.family("oue").title for c in at.caption)


def test_out_of_range_link_value_is_reported_not_a_crash():
    at = open_page("local", ldp_epsilon=0)
    assert_clean(at)
    assert at.select_slider(key="ldp_epsilon").value == 1.0
    # the note is Markdown with user text escaped; compare it as rendered
    assert any("**ε, privacy loss** to 0, which is not allowed" in i.value.replace("\\", "") for i in at.info)


def test_bad_bounds_in_the_mean_tab_give_one_sentence():
    at = open_page("local", ldp_view=MEAN_TAB)
    column = at.selectbox(key="ldpm_column").value
    at.number_input(key=f"ldpm_lower_{column}").set_value(100.0)
    at.number_input(key=f"ldpm_upper_{column}").set_value(10.0).run()
    assert not at.exception
    assert any("lower bound must be below the upper bound" in e.value.lower() for e in at.error)


def test_each_column_keeps_its_own_bounds():
    at = open_page("local", ldp_view=MEAN_TAB)
    first = at.selectbox(key="ldpm_column").value
    at.number_input(key=f"ldpm_upper_{first}").set_value(70.0).run()
    other = [c for c in at.selectbox(key="ldpm_column").options if c != first][0]
    at.selectbox(key="ldpm_column").set_value(other).run()
    assert at.number_input(key=f"ldpm_upper_{other}").value != 70.0
    at.selectbox(key="ldpm_column").set_value(first).run()
    assert_clean(at)


def test_the_accuracy_you_need_gives_the_oracle_epsilon_and_sets_the_slider():
    at = open_page("local", ldp_mechanism="OUE", ldp_accuracy=500)
    assert_clean(at)
    column = at.selectbox(key="ldp_column").value
    codes, labels, _ = encode_categories(load_demo("census").frame[column])
    needed = OUE.epsilon_for_accuracy(500.0, np.bincount(codes, minlength=len(labels)))
    assert any(f"ε = {needed:.3g}" in m.value for m in at.markdown)
    at.button(key="ldp_set").click().run()
    assert at.select_slider(key="ldp_epsilon").value >= needed


def test_many_distinct_values_are_simulated_approximately_and_the_page_says_how_well():
    rows = "\n".join(f"{np.sqrt(i + 2):.12f}" for i in range(30_000))  # 30,000 distinct floats
    at = open_page("data", trials=10_000)
    at.file_uploader(key="data_upload").upload("floats.csv", f"x\n{rows}\n".encode(), "text/csv").run()
    at.query_params["ldp_view"] = "Mean of a number"
    at.switch_page(PAGES["local"]).run()
    assert_clean(at)
    notes = [c.value for c in at.caption if "normal approximation" in c.value]
    assert notes and "at most" in notes[0]


# ---------------------------------------------------------------------- the oracle preselected


@pytest.mark.parametrize("k", [2, 3, 5, 6, 9, 15, 50, 200])
def test_dpcore_picks_the_oracle_of_the_smallest_rare_variance_as_the_crossover_says(k):
    # the decision is dpcore's; its crossover (Wang et al. 2017, Sec. 4.5) and the variances checked independently
    cross = GRR.grr_crossover_epsilon(k)
    for eps in np.geomspace(0.01, 10, 61):
        best = families.lowest_variance_local(eps, k)
        if abs(eps - cross) > 1e-9:
            assert best.name == ("GRR" if eps > cross else "OUE"), (k, eps)
        e = np.exp(eps)
        rare = {"GRR": (e + k - 2) / (e - 1) ** 2, "SUE": e**0.5 / (e**0.5 - 1) ** 2, "OUE": 4 * e / (e - 1) ** 2}
        assert rare[best.name] <= min(rare.values()) * (1 + 1e-9)


def _picker(at):
    return at.selectbox(key="ldp_mechanism").value.name


def test_the_page_preselects_the_oracle_its_own_sentence_says_is_better_and_follows_the_column_and_epsilon():
    at = open_page("local", ldp_column="occupation", ldp_epsilon=1)  # k = 15: OUE wins below ln(13/3) = 1.47
    assert_clean(at)
    k = len(_true_counts("occupation")[1])
    assert _picker(at) == families.lowest_variance_local(1.0, k).name == "OUE"
    assert any("below it OUE wins" in m.value for m in at.markdown)  # the page's sentence says the same
    at.select_slider(key="ldp_epsilon").set_value(2.0).run()
    assert _picker(at) == "GRR"
    at.selectbox(key="ldp_column").set_value("sex").run()  # k = 2: GRR at every ε
    assert _picker(at) == "GRR"


def test_the_user_can_still_choose_and_the_choice_stays():
    at = open_page("local", ldp_column="occupation", ldp_epsilon=1)
    at.selectbox(key="ldp_mechanism").set_value(families.family("SUE")).run()
    assert_clean(at)
    assert _picker(at) == "SUE"
    at.select_slider(key="ldp_epsilon").set_value(2.0).run()
    assert _picker(at) == "SUE"  # a choice is kept when ε moves
    kind = "SUE"
    true, _ = _true_counts("occupation")
    assert (
        metric(at, "Theoretical std (exact variance)") == f"{SUE(2.0, len(true)).std(true)[int(np.argmax(true))]:,.1f}"
    )
    assert kind in at.selectbox(key="ldp_mechanism").options


def test_a_link_naming_another_oracle_keeps_it():
    at = open_page("local", ldp_column="occupation", ldp_epsilon=1, ldp_mechanism="GRR")  # OUE would be preselected
    assert_clean(at)
    assert _picker(at) == "GRR"
    assert not [i.value for i in at.info if i.value.startswith("The link")]  # the link's value was taken
    at.select_slider(key="ldp_epsilon").set_value(0.5).run()
    assert _picker(at) == "GRR"


def test_dpcore_leaves_out_an_oracle_whose_reports_it_does_not_draw():
    # OUE's reports are n × k bits: beyond MAX_ELEMENTS (the heavy upload's 10^6 rows × 50 values) GRR is preselected
    from dpcore.limits import MAX_ELEMENTS

    k = 50
    fits = MAX_ELEMENTS // k
    assert families.lowest_variance_local(1.0, k).name == "OUE"
    assert families.lowest_variance_local(1.0, k, reports=fits).name == "OUE"
    assert families.lowest_variance_local(1.0, k, reports=fits + 1).name == "GRR"
    assert families.lowest_variance_local(1.0, k, reports=10 * MAX_ELEMENTS).name == "OUE"  # nothing fits: all compared


@pytest.mark.parametrize(
    ("view", "key", "slider"), [(None, "ldp_hist", "ldp_epsilon"), (MEAN_TAB, "ldpm_hist", "ldpm_epsilon")]
)
def test_the_error_histograms_have_a_fixed_axis_so_epsilon_widens_them(view, key, slider):
    # the oracle is chosen in the link: the page's preselection follows ε, and another oracle has another law
    at = open_page("local", **({"ldp_view": view} if view else {"ldp_mechanism": "OUE"}), **{slider: 1.0})
    assert_clean(at)
    assert_epsilon_widens(at, key, slider, "Empirical std of the error")
    assert any("The x-axis is fixed at ±" in c.value for c in at.caption)
