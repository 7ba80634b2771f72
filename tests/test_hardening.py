"""What hostile or impossible input gets: a message, never a crash, never code run."""

import json
import pathlib
import re

import pytest

from explorer.learning_dp_sgd import SGD_PARTS
from explorer.learning_fedavg import FED_PARTS
from explorer.learning_noisy_gd import NGD_PARTS
from tests.apptest import PAGES, open_page
from tests.test_charts import markup_in

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: impossible values typed into a link: zero ε, δ = 1, reversed bounds, unknown names, absurd counts
HOSTILE_LINKS = [
    {"seed": "-1", "trials": "7"},
    {"ldp_epsilon": "0", "cen_epsilon": "0", "svt_epsilon": "0", "acc_epsilon": "0", "cmp_epsilon": "0"},
    {"cmp_delta": "1", "cen_delta": "1", "acc_delta": "1", "cen_epsilon": "1e9"},
    {
        "ldpm_lower_age": "100",
        "ldpm_upper_age": "1",
        "cen_lower": "100",
        "cen_upper": "1",
        "ldp_view": "Mean of a number",
    },
    {"ldp_view": "<script>alert(3)</script>", "svt_view": "Range queries", "svt_threshold": "1000"},
    {"ldp_column": "<script>alert(1)</script>", "cmp_column": "nope", "ldp_mechanism": "RAPPOR2"},
    {"ldp_epsilon": "nan", "svt_c": "0", "svt_threshold": "-inf", "acc_k": "0", "cmp_query": "DROP TABLE"},
    {"seed": "inf", "acc_categories": "1e309", "ldpm_lower_age": "-1e308", "ldp_view": "Mean of a number"},
    {"seed": "1e309", "cen_lower_age": "-1e308", "cen_query": "Mean", "svt_max_bound": "1e308"},
]


def test_no_eval_exec_or_dataframe_query_anywhere():
    pattern = re.compile(r"\b(eval|exec)\s*\(|\.query\s*\(|\.eval\s*\(|pd\.eval|unsafe_allow_html\s*=\s*True")
    offenders = []
    for path in [
        ROOT / "app.py",
        *(ROOT / "app_pages").glob("*.py"),
        *(ROOT / "dpcore").rglob("*.py"),
        *(ROOT / "explorer").rglob("*.py"),
    ]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, offenders


@pytest.mark.parametrize("page", list(PAGES))
@pytest.mark.parametrize("link", range(len(HOSTILE_LINKS)))
def test_hostile_links_give_a_page_not_a_crash(page, link):
    at = open_page(page, **HOSTILE_LINKS[link])
    assert not at.exception, [e.value for e in at.exception]
    shown = [e.value for e in [*at.error, *at.warning, *at.info, *at.markdown, *at.caption, *at.subheader]]
    assert not any("Traceback" in v for v in shown)
    # an impossible value gets a sentence about that value, not the boundary's "something unexpected"
    assert not any("Something unexpected" in e.value for e in at.error), [e.value for e in at.error]
    # user text reaches Markdown only escaped: no raw tag survives for the renderer
    assert not any("<script>" in v for v in shown), [v for v in shown if "<script>" in v]


def _ends(at):
    """(kind, key, low, high) for every slider, select slider and number input in the page body."""
    ends = []
    for w in at.main.select_slider:
        ends.append(("select_slider", w.key, w.options[0], w.options[-1]))
    for w in at.main.slider:
        ends.append(("slider", w.key, w.min, w.max))
    for w in at.main.number_input:
        low = w.min if w.min is not None else -1e12
        high = w.max if w.max is not None else 1e12
        ends.append(("number_input", w.key, low, high))
    return ends


def _set(at, kind, key, value):
    widget = getattr(at, kind)(key=key)
    if kind == "select_slider":
        # AppTest's select_slider takes the option value; its options are the formatted labels
        value = type(widget.value)(value) if not isinstance(widget.value, str) else value
    widget.set_value(value)


VIEWS = [
    ("local", {}),
    ("local", {"ldp_view": "Mean of a number"}),
    ("svt", {}),
    ("svt", {"svt_view": "Automatic mean"}),
    ("svt", {"svt_view": "Range queries"}),
    ("accountant", {}),
    ("compare", {}),
    ("compare", {"cmp_query": "Mean of a number"}),
] + [("central", {"cen_query": q}) for q in ("Count", "Sum", "Mean", "Histogram", "Most common value")]


@pytest.mark.parametrize("page,link", VIEWS, ids=[f"{p}-{'-'.join(query.values()) or 'default'}" for p, query in VIEWS])
def test_every_slider_and_number_input_at_both_ends(page, link):
    at = open_page(page, trials=100, **link)
    ends = _ends(at)
    assert ends, f"{page} has no slider or number input"
    for kind, key, low, high in ends:
        for value in (low, high):
            if not any(w.key == key for w in getattr(at.main, kind)):
                continue  # a widget another end removed (e.g. a section that needs other settings)
            _set(at, kind, key, value)
            at.run()
            assert not at.exception, (page, key, value, [e.value for e in at.exception])
            assert not any("Traceback" in e.value for e in at.error), (page, key, value)


#: a column name that Markdown would turn into an image fetched from elsewhere, and HTML
HOSTILE_NAME = "![x](http://example.invalid/p.png)<b>x</b>"


def _hostile_upload():
    rows = "\n".join(f"{'ab'[i % 2]},{i % 50}" for i in range(300))
    raw = f'"{HOSTILE_NAME}","{HOSTILE_NAME} 2"\n{rows}\n'.encode()
    at = open_page("data")
    at.file_uploader(key="data_upload").upload("names.csv", raw, "text/csv").run()
    return at


def _assert_text_only(messages):
    assert messages, "nothing was shown"
    for m in messages:
        assert "![" not in m and "<b>" not in m and "](" not in m, m  # escaped: \!\[ and \<b\>


@pytest.mark.parametrize(
    "page, link, button",
    [
        ("central", {"cen_epsilon": 4, "cen_query": "Sum"}, "spend_cen"),
        ("central", {"cen_em_epsilon": 4, "cen_query": "Most common value"}, "spend_cen_em"),
        ("svt", {"svt_epsilon": 4, "svt_view": "Range queries"}, "spend_svt"),
    ],
)
def test_hostile_column_names_stay_text_in_the_recording_toasts_and_refusals(page, link, button):
    at = _hostile_upload()
    for key, value in link.items():
        at.query_params[key] = str(value)
    at.switch_page(PAGES[page]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.button(key=button).click().run()  # recorded: a toast names the release
    _assert_text_only([t.value for t in at.toast])
    at.button(key=button).click().run()  # a second ε = 4 overspends the budget of 5: refused in words
    _assert_text_only([w.value for w in at.warning if "refused" in w.value or "budget" in w.value])


def test_a_local_release_refused_by_the_ledgers_relation_is_said_in_text():
    """The default ledger holds under add/remove one record: a local (replace-one) release is refused in words."""
    at = _hostile_upload()
    at.query_params["ldp_epsilon"] = "4"
    at.switch_page(PAGES["local"]).run()
    at.button(key="spend_ldp").click().run()
    refusals = [w.value for w in at.warning if "Not recorded" in w.value]
    assert refusals and "replace one record" in refusals[0]
    _assert_text_only(refusals)
    assert not at.session_state["ledger"].entries


#: category values that Markdown would render as an image fetched from elsewhere, as HTML, or as a formula
HOSTILE_VALUES = ["![x](http://example.invalid/p.png)", "<b>bold</b>", "=1+1", "[link](http://example.invalid)"]


def _values_upload():
    rows = "\n".join(f'"{HOSTILE_VALUES[i % 4]}",{i % 37},{HOSTILE_VALUES[(i // 4) % 4]}' for i in range(400))
    at = open_page("data")
    at.file_uploader(key="data_upload").upload("values.csv", f"kind,n,other\n{rows}\n".encode(), "text/csv").run()
    return at


def _shown_text(at) -> list[str]:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.error, *at.subheader, *at.toast]
    return [p.value for p in parts] + [m.value for m in at.metric] + [m.label for m in at.metric]


@pytest.mark.parametrize(
    "page, link",
    [
        ("home", {}),
        ("local", {}),
        ("local", {"ldp_view": "Mean of a number"}),
        ("central", {"cen_query": "Most common value", "cen_category": "kind"}),
        ("central", {"cen_query": "Histogram"}),
        ("svt", {"svt_view": "Range queries"}),
        ("compare", {}),
        ("accountant", {}),
    ],
)
def test_hostile_category_values_stay_text_on_every_page(page, link):
    at = _values_upload()
    for key, value in link.items():
        at.query_params[key] = value
    at.switch_page(PAGES[page]).run()
    assert not at.exception, [e.value for e in at.exception]
    for text in _shown_text(at):
        assert "![" not in text and "<b>" not in text and "](http" not in text, text


#: text that Plotly draws as a live link and as 60 px red text, a bare URL, a placeholder of Plotly's hover templates
CHART_LINK = '<a href="http://example.invalid/chart">link</a>'
CHART_SPAN = '<span style="font-size:60px;color:red">BIG</span>'
CHART_TEXT = [CHART_LINK, CHART_SPAN, "www.example.invalid", "http://example.invalid/bare", "%{y}<b>b</b>"]
#: every page and every view that draws, and whether its charts name the chosen column or its values (the Learning
#: page's views and their parts are tabs bound to the link)
CHART_VIEWS = (
    [("home", {}, False), ("data", {}, False), ("local", {}, True), ("local", {"ldp_view": "Mean of a number"}, True)]
    + [("central", {"cen_query": q}, False) for q in ("Count", "Sum", "Mean", "Count where…")]
    + [("central", {"cen_query": q}, True) for q in ("Histogram", "Category counts", "Most common value")]
    + [("svt", {"svt_view": "Choosing a clipping bound"}, False)]
    + [("svt", {"svt_view": v}, True) for v in ("Automatic mean", "Range queries")]
    + [("accountant", {}, False), ("compare", {}, True), ("compare", {"cmp_query": "Mean of a number"}, True)]
    + [("audit", {"aud_view": v}, False) for v in ("Audit a mechanism", "Floating-point attack")]
    + [("learning", {"lrn_ngd_part": p}, False) for p in NGD_PARTS]
    + [("learning", {"lrn_view": "DP-SGD", "lrn_sgd_part": p}, False) for p in SGD_PARTS]
    + [("learning", {"lrn_view": "Federated averaging", "lrn_fed_part": p}, False) for p in FED_PARTS]
)


def _cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _chart_upload():
    """A table whose column names and category values are all hostile text: every chart of the pages draws them."""
    names = [f"{CHART_LINK}{CHART_SPAN} www.example.invalid %{{y}}", f"{CHART_SPAN} {CHART_LINK} n", "yes"]
    rows = "\n".join(f"{_cell(CHART_TEXT[i % len(CHART_TEXT)])},{i % 37},{'ab'[(i // 3) % 2]}" for i in range(1000))
    at = open_page("data")
    raw = f"{','.join(map(_cell, names))}\n{rows}\n".encode()
    at.file_uploader(key="data_upload").upload("charts.csv", raw, "text/csv").run()
    return at


@pytest.mark.parametrize(
    "page, link, names", CHART_VIEWS, ids=[f"{p}-{'-'.join(link.values()) or 'default'}" for p, link, _ in CHART_VIEWS]
)
def test_hostile_column_names_and_values_stay_text_in_every_chart(page, link, names):
    at = _chart_upload()
    for key, value in link.items():
        at.query_params[key] = value
    at.switch_page(PAGES[page]).run()
    assert not at.exception, [e.value for e in at.exception]
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    assert specs or page == "data", f"{page} {link} drew no chart"
    for spec in specs:
        assert not markup_in(spec), markup_in(spec)
    if names:  # the hostile text reached a chart, escaped: the check above had something to catch
        assert "&lt;a href=" in json.dumps(specs), [s["layout"].get("title") for s in specs]
