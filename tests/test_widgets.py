"""explorer.widgets: the link is the screen (sync_link), and ε typed as well as slid (one key in the link)."""

from __future__ import annotations

import inspect

import pytest

from explorer import state, widgets
from tests.apptest import open_page


def _link(at) -> dict:
    return dict(at.query_params)


# --- the Streamlit internals sync_link relies on (its docstring lists them) ------------------------------------------


def test_streamlit_internals_sync_link_relies_on_are_as_relied_on():
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext
    from streamlit.runtime.scriptrunner_utils.shared_run_state import SharedRunState
    from streamlit.runtime.state.common import WidgetMetadata
    from streamlit.runtime.state.query_params import QueryParams
    from streamlit.runtime.state.safe_session_state import SafeSessionState
    from streamlit.runtime.state.session_state import KeyIdMapper, SessionState

    assert "shared" in ScriptRunContext.__dataclass_fields__
    assert hasattr(SharedRunState(), "widget_ids_this_run") and hasattr(
        SharedRunState().widget_ids_this_run, "snapshot"
    )
    assert inspect.isgeneratorfunction(inspect.unwrap(SafeSessionState.query_params))  # a context manager
    assert "_state" in inspect.signature(SafeSessionState.__init__).parameters or "_state" in inspect.getsource(
        SafeSessionState.__init__
    )
    assert list(inspect.signature(QueryParams.set_corrected_value).parameters) == [
        "self",
        "param_key",
        "value",
        "value_type",
    ]
    assert list(inspect.signature(QueryParams.remove_param).parameters) == ["self", "param_key"]
    assert "_query_params" in QueryParams.__dataclass_fields__
    for name in ("get_widget_metadata", "get_widget_value"):
        assert list(inspect.signature(getattr(SessionState, name)).parameters) == ["self", "widget_id"], name
    assert "_key_id_mapper" in SessionState.__dataclass_fields__ and hasattr(KeyIdMapper, "get_key_from_id")
    for field in ("bind", "serializer", "deserializer", "value_type"):
        assert field in WidgetMetadata.__dataclass_fields__, field


# --- the link is the screen ------------------------------------------------------------------------------------------


def test_a_link_that_lags_behind_the_screen_is_brought_up_to_date_without_a_refusal_notice():
    at = open_page("central")
    at.select_slider(key="cen_epsilon").set_value(0.5).run()
    assert _link(at)["cen_epsilon"] == "0.5"
    # the browser's link lags behind its widgets (its binding was dropped when the slider moved: issue 24)
    at.query_params["cen_epsilon"] = "0.8"
    at.query_params["trials"] = "300"
    at.run()
    assert at.select_slider(key="cen_epsilon").value == 0.5  # the screen is what the user set
    link = _link(at)
    assert link["cen_epsilon"] == "0.5"  # and now the link too
    assert "trials" not in link  # a widget at its default is left out of the link, as Streamlit does
    assert not at.info  # not a refused link value: the widget's value came from the browser


def test_a_link_value_the_widget_refuses_on_first_drawing_is_still_said():
    at = open_page("central", cen_epsilon="0.777777")
    assert at.select_slider(key="cen_epsilon").value == 1.0
    assert any("not allowed here" in i.value and "0\\.01 to 10" in i.value for i in at.info), [i.value for i in at.info]
    assert "cen_epsilon" not in _link(at)


def test_the_link_keeps_every_bound_widget_of_the_run_and_the_session_keys_drawn():
    at = open_page("central", cen_epsilon="0.25", trials="300")
    link = _link(at)
    assert link["cen_epsilon"] == "0.25" and link["trials"] == "300"
    assert {"cen_epsilon", "trials"} <= at.session_state[state.DRAWN_LAST_RUN]


# --- ε typed as well as slid -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("typed, shown", [(0.7, 0.7), (0.123456, 0.1235), (3.0, 3.0), (9.99999, 10.0)])
def test_a_typed_epsilon_moves_the_slider_and_the_link_carries_the_sliders_key_alone(typed, shown):
    at = open_page("central")
    at.number_input(key="cen_epsilon" + widgets.TYPED).set_value(typed).run()
    assert at.select_slider(key="cen_epsilon").value == shown
    assert (
        shown in at.select_slider(key="cen_epsilon").options
        or f"{shown:g}" in at.select_slider(key="cen_epsilon").options
    )
    link = _link(at)
    assert link["cen_epsilon"] == f"{shown:g}"
    assert not any(k.endswith(widgets.TYPED) for k in link)
    assert not at.exception and not at.error


def test_the_typed_box_follows_the_slider_and_a_typed_link_opens_on_its_epsilon():
    at = open_page("central")
    at.select_slider(key="cen_epsilon").set_value(4.0).run()
    assert at.number_input(key="cen_epsilon" + widgets.TYPED).value == 4.0
    at.number_input(key="cen_epsilon" + widgets.TYPED).set_value(0.7).run()
    other = open_page("central", **_link(at))
    assert other.select_slider(key="cen_epsilon").value == 0.7
    assert other.number_input(key="cen_epsilon" + widgets.TYPED).value == 0.7
    assert [m.value for m in other.metric] == [m.value for m in at.metric]  # the same numbers
    assert not other.info


def test_a_slider_move_is_not_undone_by_the_box_value_the_browser_sent_a_run_behind():
    # a key press sends every widget's value; the box's may still be the one it had before the last run set it to
    # the slider (three quick ArrowRight presses on Local DP came back to their start one time in two)
    at = open_page("local")
    at.select_slider(key="ldp_epsilon").set_value(1.25).run()
    assert at.number_input(key="ldp_epsilon" + widgets.TYPED).value == 1.25
    at.select_slider(key="ldp_epsilon").set_value(2.0)
    at.number_input(key="ldp_epsilon" + widgets.TYPED).set_value(1.0)  # the value the browser showed a run ago
    at.run()
    assert at.select_slider(key="ldp_epsilon").value == 2.0
    assert at.number_input(key="ldp_epsilon" + widgets.TYPED).value == 2.0
    assert _link(at)["ldp_epsilon"] == "2"
    at.number_input(key="ldp_epsilon" + widgets.TYPED).set_value(0.7).run()  # typed alone still moves the slider
    assert at.select_slider(key="ldp_epsilon").value == 0.7


@pytest.mark.parametrize(
    "text, taken",
    [("0.7", 0.7), ("0.1235", 0.1235), ("1", 1.0), ("0.70", None), ("0.12345", None), ("20", None), ("0.001", None)]
    + [("nan", None), ("inf", None), ("", None), ("abc", None)],
)
def test_an_off_grid_epsilon_is_taken_from_a_link_only_as_the_slider_writes_it(text, taken):
    assert widgets._epsilon_value(text) == taken


def test_every_epsilon_slider_of_every_page_has_its_typed_box():
    for page in ("local", "central", "svt", "accountant", "compare"):
        at = open_page(page)
        sliders = [w.key for w in at.select_slider if "epsilon" in w.key]
        boxes = {w.key for w in at.number_input}
        assert sliders, page
        assert all(k + widgets.TYPED in boxes for k in sliders), (page, sliders)
