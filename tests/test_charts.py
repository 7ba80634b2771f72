"""The shared Plotly figures: what they mark, where, and that user text stays text."""

import json

import numpy as np
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
