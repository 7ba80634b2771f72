"""The shared Plotly figures: what they mark, where, and that user text stays text."""

import inspect
import json
import re
import warnings

import numpy as np
import pandas as pd
import plotly.io as pio
import pytest

from explorer import charts

HOSTILE = "<img src=x onerror=alert(1)>"


def test_user_text_is_escaped_in_every_label_a_figure_shows():
    figures = [
        charts.true_vs_noisy_bars([HOSTILE], [1], [2], title=HOSTILE),
        charts.probability_bars([HOSTILE], [1.0]),
        charts.probabilities_and_frequencies([HOSTILE], [1.0], [1.0]),
        charts.answers_against_threshold([HOSTILE], [1], {"noisy": [2]}, 1),
        charts.overlaid_histograms({"a": [1, 2]}, marks={HOSTILE: 1.0}),
        charts.curves([1, 2, 3], {"a": [1, 2, 3]}, current=2, current_label=HOSTILE, log_x=False),
    ]
    for fig in figures:
        text = pio.to_json(fig, validate=False)
        assert "<img" not in text, text[:300]
        assert "&lt;img" in text


def test_current_value_on_a_log_axis_marks_the_data_value_and_labels_at_its_log():
    fig = charts.curves([0.1, 1, 10], {"a": [3, 2, 1]}, current=2.0, current_label="now")
    (shape,) = fig.layout.shapes
    (note,) = fig.layout.annotations
    assert fig.layout.xaxis.type == "log"
    assert shape.x0 == shape.x1 == 2.0 and shape.yref == "y domain"
    assert note.x == pytest.approx(np.log10(2.0)) and note.text == "now"
    assert list(fig.layout.xaxis.tickvals) == [0.1, 0.2, 0.5, 1, 2, 5, 10]  # 1-2-5 ticks inside the data only


def test_y_cap_on_a_log_axis_sets_the_range_in_decades():
    fig = charts.xy_curves({"a": ([1, 2], [0.3, 1e6])}, log_y=True, y_max=100.0)
    low, high = fig.layout.yaxis.range
    assert high == pytest.approx(2.0) and low == pytest.approx(np.log10(0.3 / 1.5))
    assert fig.layout.yaxis.dtick == 1  # the capped axis spans 2.7 decades: label the decades only


def test_a_narrow_log_axis_gets_plain_number_ticks():
    half = charts.xy_curves({"a": ([1, 2, 3], [70.0, 100.0, 160.0])}, log_x=False, log_y=True).layout.yaxis
    assert list(half.tickvals) == [70, 80, 90, 100] and list(half.ticktext) == ["70", "80", "90", "100"]
    one = charts.xy_curves({"a": ([1, 2], [3.0, 40.0])}, log_x=False, log_y=True).layout.yaxis
    assert list(one.tickvals) == [5, 10, 20] and one.dtick is None


def test_a_log_axis_over_subnormal_to_huge_values_raises_no_overflow_warning():
    # a link set an upper bound of 1e-320 on the People page: max / min overflowed (RuntimeWarning in scalar divide)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        axis = charts.xy_curves({"a": ([1, 2, 3], [1e-320, 1.0, 1e300])}, log_x=False, log_y=True).layout.yaxis
        capped = charts.xy_curves({"a": ([1, 2], [1e-320, 1e300])}, log_y=True, y_max=1e308).layout.yaxis
    assert axis.dtick == 1 and capped.dtick == 1  # over 600 decades: the decades only


def test_a_histogram_with_a_half_width_spans_it_and_bins_across_it_counting_every_error():
    errors = np.concatenate((np.linspace(-1.0, 1.0, 999), [10.0]))  # one error beyond the axis
    fig = charts.error_histogram(errors, half=1.1)
    (hist,) = fig.data
    assert list(fig.layout.xaxis.range) == [-1.1, 1.1] and fig.layout.xaxis.autorange is False
    assert 2.2 / hist.xbins.size >= 30  # bins sized to the axis, not to the far error's span
    assert hist.xbins.start <= errors.min()  # every error is in a bin, so the density counts each one
    far = charts.error_histogram(np.append(errors, -1e4), half=1.1).data[0]
    assert far.xbins.start <= -1e4 and (1e4 + 10.0) / far.xbins.size <= 600  # never more bins than a browser draws
    ranks = charts.error_histogram(np.array([-357.5, 357.5, 358.5]), lattice=1.0, half=400.0).data[0]
    assert ranks.xbins.size == round(ranks.xbins.size) and (ranks.xbins.start + 357.5) % 1 == 0.5


def test_a_discrete_law_on_a_histograms_bins_is_its_density_per_bin():
    # two ranks 715 apart (ties): drawn point to point, their law read as a slope from 0.6 to 0.4
    errors = np.array([-357.5, 357.5])
    start, size = charts.histogram_bins(errors, 1.0, 400.0)
    x, y = charts.binned_law(errors, [0.6, 0.4], start, size)
    assert np.trapezoid(y, x) == pytest.approx(1.0)
    assert y.max() == pytest.approx(0.6 / size) and y[0] == y[-1] == 0.0
    assert np.allclose((np.unique(x) - start) / size, np.round((np.unique(x) - start) / size))  # on the bins' edges
    assert np.sum(y > 0) == 4  # two bins carry mass (an outline: two points a bin), the others none


def test_thousands_are_separated_on_every_axis_four_digits_included():
    # a count axis read "0, 5000, 10,000, 15,000": Plotly separates 4-digit ticks only when asked; never on x,
    # where categories or values may be years (a category "2024" read as a number would show "2,024")
    bars = charts.true_vs_noisy_bars(["2023", "2024"], [5_000, 20_000], [5_100, 19_900])
    assert bars.layout.yaxis.separatethousands and not bars.layout.xaxis.separatethousands
    # the 1-2-5 labels of a log axis are written the same way ("1000" stood beside "1,000" on other charts)
    axis = charts.curves([1, 10, 1_000, 20_000], {"a": [1, 2, 3, 4]}).layout.xaxis
    labels = dict(zip(axis.tickvals, axis.ticktext))
    assert labels[1_000] == "1,000" and labels[10_000] == "10,000" and labels[2] == "2"
    small = charts.curves([0.01, 0.2], {"a": [1, 2]}).layout.xaxis
    assert list(small.ticktext) == ["0.01", "0.02", "0.05", "0.1", "0.2"]


def test_reference_line_and_marks_sit_where_asked():
    fig = charts.curves([1, 2, 3], {"q": [-2, -1, 0]}, current=2, log_x=False, hline=(0.0, "threshold 0"))
    vertical, horizontal = fig.layout.shapes
    assert (vertical.x0, horizontal.y0, horizontal.y1, horizontal.xref) == (2, 0.0, 0.0, "x domain")
    assert [a.text for a in fig.layout.annotations] == ["current ε", "threshold 0"]
    marks = charts.overlaid_histograms({"a": [1, 2]}, marks={"first": 1.0, "second": 2.0}).layout
    assert [s.x0 for s in marks.shapes] == [1.0, 2.0]
    assert [s.line.dash for s in marks.shapes] == ["dash", "dot"]
    assert [a.xanchor for a in marks.annotations] == ["left", "right"]  # labels on alternate sides stay apart


def test_discrete_errors_get_bins_between_lattice_points():
    errors = np.arange(-50, 51) * 0.5
    (hist,) = charts.error_histogram(errors, lattice=0.5).data
    assert hist.xbins.size / 0.5 == round(hist.xbins.size / 0.5) and hist.xbins.size >= 0.5
    assert hist.xbins.start == pytest.approx(-25.25)
    assert charts.error_histogram(errors).data[0].xbins.start is None


def test_error_bars_and_density_are_drawn_from_the_numbers_given():
    bars = charts.true_vs_noisy_bars(["a", "b"], [1, 2], [1.5, 2.5], bound=0.3)
    assert list(bars.data[1].error_y.array) == [0.3, 0.3] and bars.layout.barmode == "group"
    hist = charts.error_histogram([0.0, 1.0], density_x=[0, 1], density_y=[0.5, 0.5], density_name="theory")
    assert [t.name for t in hist.data] == ["simulated (2 releases)", "theory"]


def test_figures_carry_no_plotly_template():
    # Streamlit's theme draws the charts; a template would add kilobytes to every rerun
    fig = charts.curves([1, 2], {"a": [1, 2]})
    template = json.loads(pio.to_json(fig, validate=False))["layout"].get("template", {})
    assert len(json.dumps(template)) < 100, template  # "plotly_white" was 6.5 KB


def test_axes_never_use_si_suffixes():
    # a density of 0.0004 must not read "400μ" (Plotly's default exponent format)
    fig = charts.error_histogram([0.0, 1e-4, 3e-4], [0.0, 3e-4], [3000.0, 3000.0])
    assert fig.layout.xaxis.exponentformat == "none" and fig.layout.yaxis.exponentformat == "none"
    log = charts.curves([1, 10, 100], {"a": [1e-3, 1e-1, 10.0]}, log_y=True)
    assert log.layout.yaxis.exponentformat == "power"  # log axes over decades keep 10ⁿ labels


# ------------------------------------------------------------------ user text in every chart stays text


def hostile(tag: str) -> str:
    """Text that Plotly would draw as a live link, 60 px red text and bold, with a placeholder and a bare URL."""
    return (
        f'<a href="http://example.invalid/{tag}">{tag}</a><span style="font-size:60px;color:red">BIG</span>'
        f"<b>b</b><br><i>i</i> %{{y}} www.example.invalid/{tag}"
    )


#: every public chart with a hostile string in each string argument; ``mechanism`` only picks a colour
CHART_CALLS = {
    "true_vs_noisy_bars": lambda h: charts.true_vs_noisy_bars(
        [h("label"), 3], [1, 2], [1.5, 2.5], 0.3, h("title"), h("y"), mechanism=h("mechanism")
    ),
    "error_histogram": lambda h: charts.error_histogram(
        [0.0, 1.0, 2.0], [0, 1], [0.5, 0.5], h("title"), h("x"), h("density_name"), 0.5, mechanism=h("mechanism")
    ),
    "with_reference": lambda h: charts.with_reference(
        charts.error_histogram([0.0, 1.0], [0, 1], [0.5, 0.5], h("title"), h("x"), h("density_name")),
        2.0,
        [0, 1],
        [1, 1],
    ),
    "curves": lambda h: charts.curves(
        [1, 2, 3], {h("series"): [1, 2, 3]}, 2, h("title"), h("x_title"), h("y_title"), current_label=h("current")
    ),
    "probability_bars": lambda h: charts.probability_bars([h("label")], [1.0], 0, h("title"), h("y")),
    "probabilities_and_frequencies": lambda h: charts.probabilities_and_frequencies(
        [h("label")], [1.0], [1.0], 0, h("title"), 10
    ),
    "overlaid_histograms": lambda h: charts.overlaid_histograms(
        {h("series"): [1, 2]}, h("title"), h("x_title"), 1, {h("mark"): 1.0, h("mark2"): 2.0}, h("y_title")
    ),
    "answers_against_threshold": lambda h: charts.answers_against_threshold(
        [h("label"), h("label2")], [1, 2], {h("series"): [2, 3]}, 1, h("title"), h("y"), 1, h("stop")
    ),
    "xy_curves": lambda h: charts.xy_curves(
        {h("series"): ([1, 2], [1, 2])},
        1.5,
        h("title"),
        h("x_title"),
        h("y_title"),
        current_label=h("current"),
        dashed=(h("series"),),
        hline=(1.0, h("hline")),
    ),
    "releases_against_truth": lambda h: charts.releases_against_truth(
        [h("label")], [1], {h("series"): [2]}, h("title"), h("y")
    ),
    "error_boxes": lambda h: charts.error_boxes({h("series"): [0.1, -0.2, 0.3]}, h("title"), h("y")),
    "values_against_truth": lambda h: charts.values_against_truth({h("series"): 1.0}, 1.1, h("title"), h("y")),
    "audit_gauge": lambda h: charts.audit_gauge(1.0, 0.5, 0.95, 2.0, h("title")),
    "audit_histograms": lambda h: charts.audit_histograms(
        [0.0, 1.0], [1.0, 2.0], ">=", 1.0, h("event"), h("title"), h("x")
    ),
    "audit_output_bars": lambda h: charts.audit_output_bars(
        [h("label"), h("label2")], [0.5, 0.5], [0.4, 0.6], 0, h("title")
    ),
    "audit_bound_curve": lambda h: charts.audit_bound_curve([10, 100], [0.1, 0.5], 1.0, (100, 0.5), 2.0, h("title")),
    "impossible_shares": lambda h: charts.impossible_shares(
        [0.1, 1.0], {h("series"): ([0.1, 0.2], [0.0, 0.1], [0.2, 0.3])}, 0.5, h("title")
    ),
    "band_curves": lambda h: charts.band_curves(
        {h("series"): {"x": [1, 2], "y": [0.5, 0.6], "low": [0.4, 0.5], "high": [0.6, 0.7]}},
        h("title"),
        h("x_title"),
        h("y_title"),
        True,
        [(1.0, h("mark"))],
        [(0.5, h("hline"))],
    ),
}

#: Plotly's tags (it draws these from any string it shows) and its placeholders
_TAG = re.compile(r"<\s*/?\s*[a-z]", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"%\{[^}]*\}")


def _strings(value, key=""):
    """(field, string) for every string in a figure's JSON."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)
    elif isinstance(value, str):
        yield key, value


def markup_in(figure) -> list[tuple[str, str]]:
    """Every string of the figure that Plotly would read as markup other than the code's own.

    The code's own: ``<extra>`` and the placeholders it wrote (``Field``) at the end of a hovertemplate.
    """
    spec = figure if isinstance(figure, dict) else json.loads(pio.to_json(figure, validate=False))
    found = []
    for key, text in _strings(spec):
        if key.endswith("template"):
            text = re.sub(r"<extra>[^<]*</extra>$", "", text)
            if "%{y}" in _PLACEHOLDER.findall(text):  # no chart of the code writes %{y}: it came from the text
                found.append((key, text))
        if _TAG.search(text):
            found.append((key, text))
    return found


def test_every_public_chart_is_called_with_hostile_text():
    public = {
        name
        for name, f in inspect.getmembers(charts, inspect.isfunction)
        if f.__module__ == charts.__name__ and not name.startswith("_") and "go.Figure" in str(f.__annotations__)
    }
    assert public == set(CHART_CALLS)


@pytest.mark.parametrize("name", sorted(CHART_CALLS))
def test_no_user_string_becomes_markup_in_any_chart(name):
    shown = []

    def tagged(tag):
        shown.append(tag)
        return hostile(tag)

    figure = CHART_CALLS[name](tagged)
    assert not markup_in(figure), markup_in(figure)
    strings = [text for _, text in _strings(json.loads(pio.to_json(figure, validate=False)))]
    # every argument's text reached the figure (so the check above had something to catch), escaped once
    for tag in set(shown) - {"mechanism"}:
        escaped = f'&lt;a href="http://example.invalid/{tag}"&gt;{tag}&lt;/a&gt;'
        assert any(escaped in text for text in strings), tag
    assert not any("&amp;lt;" in text for text in strings)


def test_the_markup_check_catches_an_unescaped_label():
    # negative control: the same spec without the escaping walk is caught, in a title, a name or a category
    raw = {"data": [{"type": "bar", "x": ["a"], "y": [1], "name": "n"}], "layout": {"title": {"text": "t"}}}
    assert not markup_in(raw)
    for path in (("layout", "title", "text"), ("data", 0, "name"), ("data", 0, "x", 0)):
        spec = json.loads(json.dumps(raw))
        *parent, last = path
        node = spec
        for step in parent:
            node = node[step]
        node[last] = hostile("control")
        assert markup_in(spec), path
        assert not markup_in(charts._clean(spec)), path
    # a placeholder from text inside a hovertemplate is caught too
    assert markup_in({"data": [{"hovertemplate": "%{x} %{y}<extra></extra>"}]})
    assert not markup_in({"data": [{"hovertemplate": "%{x:.4f}<extra></extra>"}]})


def test_the_codes_own_markup_cannot_come_from_text():
    assert charts._clean({"text": charts.Lines("a<b", charts.Bold("c&d"))}) == {"text": "a&lt;b<br><b>c&amp;d</b>"}
    assert charts._clean({"text": "one\ntwo"}) == {"text": "one\ntwo"}  # Plotly draws a newline as a space
    hover = charts.Hover("column %{y} <b>", charts.Field("x:.4f"), " 95%")
    assert charts._clean({"hovertemplate": hover}) == {
        "hovertemplate": "column &#37;{y} &lt;b&gt;%{x:.4f} 95&#37;<extra></extra>"
    }
    assert charts._clean({"hovertemplate": charts.Hover(charts.Field("y"), extra=None)}) == {"hovertemplate": "%{y}"}
    assert charts._clean({"hovertemplate": "%{y}"}) == {"hovertemplate": "&#37;{y}"}  # a plain string is text
    assert charts._clean({"tickformat": ".1%"}) == {"tickformat": ".1%"}  # formats are no template
    with pytest.raises(ValueError, match="name must be a Plotly variable"):
        charts.Field("x}<a href=x>")


def test_text_in_arrays_and_objects_is_escaped_and_numbers_stay_numbers():
    labels = np.array(["<b>x</b>", "y"], dtype=object)
    assert charts._clean({"x": labels}) == {"x": ["&lt;b&gt;x&lt;/b&gt;", "y"]}
    assert charts._clean({"x": pd.Series(["<i>"])}) == {"x": ["&lt;i&gt;"]}
    numbers = np.arange(3.0)
    assert charts._clean({"y": numbers})["y"] is numbers

    class Shown:
        def __str__(self):
            return "<a href='http://example.invalid'>x</a>"

    assert charts._clean({"text": Shown()}) == {"text": "&lt;a href='http://example.invalid'&gt;x&lt;/a&gt;"}


# ------------------------------------------------------------------ chrome never over data or text (issue 24)


@pytest.mark.parametrize("name", sorted(CHART_CALLS))
def test_every_chart_keeps_its_legend_and_title_clear_of_the_plot_and_the_toolbar(name):
    # A legend placed at a fraction of the plot's height below it met the x tick labels when a rerun shrank the
    # plot (the Learning page's 0.01-0.2 ticks); Plotly's toolbar, shown on hover at the top right, covered long
    # titles. Every chart now puts both in the container: the legend on the figure's bottom edge and the title
    # below a band as tall as the toolbar, each pushing the margins so that the plot and its axes stay clear.
    layout = CHART_CALLS[name](lambda tag: tag).layout
    legend, title = layout.legend, layout.title
    assert (legend.yref, legend.y, legend.yanchor, legend.orientation) == ("container", 0, "bottom", "h")
    assert (title.yref, title.y, title.yanchor, title.automargin) == ("container", 1, "top", True)
    assert title.pad.t >= charts.TOOLBAR_PX and layout.margin.t >= charts.TOOLBAR_PX
    assert layout.xaxis.automargin and layout.yaxis.automargin  # tick labels and axis titles push the margins


@pytest.mark.parametrize("name", sorted(CHART_CALLS))
def test_every_label_at_the_plots_top_edge_sits_above_it_not_over_the_data(name):
    # A mark's label anchored by its top to the plot's top edge hung inside the plot, over the tallest bars: the
    # Audit page's "S = {noisy count < 100.027}" on the x′ histogram (penguins.csv, test-artifacts/real). Every label
    # placed at the plot's top edge now stands on it, in the line the title's bottom pad leaves for it.
    layout = CHART_CALLS[name](lambda tag: tag).layout
    for note in layout.annotations:
        if note.yref in ("paper", "y domain") and note.y == 1:
            assert note.yanchor == "bottom", (name, note.text)
            assert layout.title.pad.b >= 20, name  # the room above the plot that the label takes


def test_where_sparse_stopped_is_a_dotted_line_between_the_last_query_asked_and_the_next():
    # penguins.csv: Sparse stopped at its 3rd positive, query 7 of 20; the ranges after it (one of 254 rows, far
    # above T = 86) showed no SVT marker and an unticked box, as if they had failed
    labels = [f"q{i}" for i in range(5)]
    fig = charts.answers_against_threshold(labels, [1] * 5, {"SVT": [2] * 5}, 1, stopped_after=3, stop_label="stops")
    (threshold, stop) = fig.layout.shapes
    assert stop.x0 == stop.x1 == 2.5 and stop.line.dash == "dot" and threshold.y0 == 1
    (note,) = fig.layout.annotations
    assert (note.x, note.text, note.yanchor) == (2.5, "stops", "bottom")
    for asked in (None, 0, 5):  # asked every query (or none): no line
        assert len(charts.answers_against_threshold(labels, [1] * 5, {}, 1, stopped_after=asked).layout.shapes) == 1


def test_the_truth_line_and_every_dot_lie_inside_the_axis_not_on_its_edge():
    # seattle-weather.csv: the true median precipitation, 0, lay on the x axis under releases of 0.2 to 0.8
    for values, truth in (({"a": 0.2, "b": 0.8}, 0.0), ({"a": 5.0}, 5.0), ({"a": -3.0, "b": 1e6}, 2.0)):
        low, high = charts.values_against_truth(values, truth).layout.yaxis.range
        for v in [*values.values(), truth]:
            assert low < v < high and min(v - low, high - v) >= 0.05 * (high - low), (values, truth)


def test_curves_on_top_of_each_other_are_found_with_their_gap():
    x = np.array([1.0, 10.0, 100.0])
    series = {"a": (x, x), "b": (x, x * 1.002), "c": (x, 2 * x), "d": ([10.0, 100.0, 1000.0], [10.03, 100.0, 5.0])}
    # b against a: |x - 1.002x| / 1.002x at every shared x; d meets a and b at 10 and 100 only, where it is within
    # 0.3 % of a (at 10) and 0.2 % of b (at 100: 0.2 / 100.2)
    assert charts.coinciding(series) == [
        ("a", "b", pytest.approx(0.002 / 1.002)),
        ("a", "d", pytest.approx(0.03 / 10.03)),
        ("b", "d", pytest.approx(0.2 / 100.2)),
    ]
    assert charts.coinciding(series, within=0.001) == []
    assert charts.coinciding({"a": (x, x), "e": ([1.0], [1.0])}) == []  # one shared point says nothing


def test_a_curve_on_an_earlier_one_is_drawn_dotted_over_a_wider_line():
    x = np.geomspace(1, 1000, 50)
    fig = charts.xy_curves({"RDP": (x, x**0.5), "zCDP": (x, x**0.5 * 1.001), "basic": (x, x)}, dashed=("basic",))
    lines = {t.name: t.line for t in fig.data}
    assert lines["RDP"].width > lines["zCDP"].width and lines["zCDP"].dash == "dot"
    assert lines["basic"].dash == "dash" and lines["basic"].width == lines["zCDP"].width  # not involved: as before
