"""Plotly figures the pages share. They draw numbers computed by dpcore; they compute none."""

from __future__ import annotations

import datetime
import numbers
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore import families
from dpcore.accounting.per_release import METHOD_NAMES, METHODS

# Streamlit's theme draws the charts; a Plotly template under it changed only hairlines and added
# 6.5 KB of JSON to every chart, to build, send and parse on every rerun: every figure names "none".

TRUE = "#868e96"
NOISY = "#3b5bdb"
PALETTE = ("#3b5bdb", "#e8590c", "#2b8a3e", "#c2255c", "#7048e8", "#0c8599", "#e67700")

#: One colour per mechanism on every page (a series whose name starts with the key takes its colour): each
#: registered family's own (dpcore.families), and the series that are not families.
MECHANISM_COLOURS = {
    **{f.name: f.colour for f in families.FAMILIES.values()},
    "LDP mean": "#0c8599",
    "central Laplace": "#3b5bdb",
    "Gaussian, classic": "#862e9c",
    "SVT": "#e67700",
    "Exponential mechanism": "#8d5524",
    "naive": "#868e96",
}


#: One colour per accounting method (dpcore's ``METHODS``, in its order) on every chart that compares accountings,
#: so that "RDP" is the same line on each chart of a page.
ACCOUNTING_COLOURS = dict(zip(METHODS, PALETTE))
_ACCOUNTING_BY_NAME = {METHOD_NAMES[m]: c for m, c in ACCOUNTING_COLOURS.items()}


#: Any other bound drawn beside the accountings (RDP by the classic conversion): grey, near no accounting's colour
#: (the palette's last, amber, read as the advanced composition's orange).
OTHER_BOUND = "#868e96"


def accounting_colour(method: str) -> str:
    """The colour of the accounting ``method``, by dpcore's key ("rdp") or on-screen name ("RDP"); any other bound
    drawn beside them takes :data:`OTHER_BOUND`."""
    return ACCOUNTING_COLOURS.get(method) or _ACCOUNTING_BY_NAME.get(method) or OTHER_BOUND


def colour_of(name: str, fallback: int = 0) -> str:
    """The mechanism's colour if ``name`` starts with one (longest key first), else a palette colour."""
    for key in sorted(MECHANISM_COLOURS, key=len, reverse=True):
        if str(name).startswith(key):
            return MECHANISM_COLOURS[key]
    return PALETTE[fallback % len(PALETTE)]


# Chart chrome never over data or text (issue 24). Positions in the container (the whole figure), not in the plot:
# - the legend sits on the figure's bottom edge and pushes the margin up by its own height, so the plot, its tick
#   labels and axis title (each pushing the margin too: automargin) stay above it however many rows it wraps to
#   (a legend at a fraction of the plot's height below it met the tick labels when a rerun shrank the plot);
# - the title sits under a band as tall as Plotly's toolbar (which shows on hover at the top right), and pushes the
#   top margin by its own height; its bottom pad leaves a line for the labels of marks drawn above the plot.
LEGEND_BELOW = {
    "orientation": "h",
    "xref": "container",
    "x": 0,
    "xanchor": "left",
    "yref": "container",
    "y": 0,
    "yanchor": "bottom",
}
TOOLBAR_PX = 30  # Plotly's modebar: 25 px buttons 2 px below the figure's top edge
TITLE = {
    "x": 0,
    "xanchor": "left",
    "xref": "container",
    "y": 1,
    "yanchor": "top",
    "yref": "container",
    "pad": {"t": TOOLBAR_PX, "b": 22, "l": 6},
    "automargin": True,
    "font": {"size": 15},
}
MARGIN = {"l": 10, "r": 20, "t": TOOLBAR_PX + 10, "b": 10, "autoexpand": True}  # r: room for the last x tick label
MARK = {"color": "#212529", "dash": "dash", "width": 1.5}


class Bold(str):
    """Label text the code wants in bold: escaped, then wrapped in ``<b>`` by :func:`_clean` (user text cannot)."""


class Lines(tuple):
    """Label text the code breaks into lines (``Lines("first", Bold("second"))``): each escaped, joined by ``<br>``.

    A newline inside a string is no line break (Plotly draws it as a space), so user text cannot break a label.
    """

    def __new__(cls, *lines):
        return super().__new__(cls, lines)


#: a Plotly variable (``x``, ``customdata[0]``, ``fullData.name``) with an optional ``:d3-format`` or ``|date-format``
_FIELD = re.compile(r"[A-Za-z_][\w.\[\]]*(?:[:|][^{}<>&]*)?")


class Field(str):
    """A placeholder of a :class:`Hover` template: ``Field("x:.4f")`` is Plotly's ``%{x:.4f}``."""

    def __new__(cls, name: str):
        if not _FIELD.fullmatch(name):
            raise ValueError(f"name must be a Plotly variable with an optional format, got {name!r}")
        return super().__new__(cls, name)


@dataclass(frozen=True, init=False)
class Hover:
    """A hovertemplate: text and :class:`Field` placeholders, then the ``<extra>`` box (``extra=None``: Plotly's own).

    Only a ``Field`` becomes a placeholder: a ``%{y}`` in a text part (a column name) is shown as written.
    """

    parts: tuple
    extra: str | None

    def __init__(self, *parts, extra: str | None = ""):
        object.__setattr__(self, "parts", parts)
        object.__setattr__(self, "extra", extra)


_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def _text(value, template: bool = False) -> str:
    """A label as Plotly markup: all text escaped; tags only from :class:`Bold`, :class:`Lines` and :class:`Hover`.

    Plotly draws ``<a href>``, ``<span style>``, ``<b>``, ``<br>`` from any string it shows and reads ``&amp;``,
    ``&lt;``, ``&gt;`` and numeric references back as characters (``&quot;`` it would show as written, so quotes
    stay as they are: without ``<`` they start no tag). In a template (``hovertemplate``, ``texttemplate``)
    ``%`` becomes ``&#37;`` too, so that text forms no ``%{...}`` placeholder.
    """
    if isinstance(value, Hover):
        body = "".join(f"%{{{p}}}" if isinstance(p, Field) else _text(p, template=True) for p in value.parts)
        return body if value.extra is None else f"{body}<extra>{_text(value.extra, template=True)}</extra>"
    if isinstance(value, Lines):
        return "<br>".join(_text(line, template) for line in value)
    text = str(value).translate(_ESCAPES)
    if template:
        text = text.replace("%", "&#37;")
    return f"<b>{text}</b>" if isinstance(value, Bold) else text


def _clean(spec, key: str = ""):
    """The spec as Plotly gets it: no ``None`` values (Plotly reads them as 'unset' anyway), every text escaped.

    The one place where text becomes markup, walked last over the whole figure: titles, axis titles, legend
    names, category labels, tick labels, hover text and templates, annotations, text on traces. Every string
    and every value that is neither a number nor a date passes through :func:`_text`; strings that are no text
    (colours, modes, anchors, formats) hold none of ``& < >`` and come out as they went in. ``key``: the field
    the value sits under (``%`` is escaped under one ending in ``template``).
    """
    if isinstance(spec, dict):
        return {k: _clean(v, k) for k, v in spec.items() if v is not None}
    if isinstance(spec, str | Lines | Hover):
        return _text(spec, template=key.endswith("template"))
    if isinstance(spec, list | tuple):
        return [_clean(v, key) for v in spec]
    if isinstance(spec, np.ndarray | pd.Series | pd.Index):
        # numbers and dates as they are; text (category labels) and other objects one by one
        return spec if spec.dtype.kind in "biufcmM" else [_clean(v, key) for v in spec.tolist()]
    if spec is None or isinstance(spec, bool | numbers.Number | np.generic | datetime.date):
        return spec
    return _text(spec, template=key.endswith("template"))  # any other object Plotly would write as its str


def _figure(traces: list, title: str, x: str, y: str, height: int = 420, xaxis=None, yaxis=None, **layout) -> go.Figure:
    """One figure from plain specs, validated by Plotly in one pass.

    Building the same figure call by call (``add_*``, ``update_layout`` with underscore
    paths, ``add_vline``) cost 10-15 ms a chart, most of a page's rerun under load.
    """
    spec = {
        "title": TITLE | {"text": title},
        # no SI suffixes (a density of 0.0004 would read "400μ"): plain numbers unless an axis asks otherwise
        "xaxis": {"title": {"text": x}, "exponentformat": "none", "automargin": True, **(xaxis or {})},
        # y: thousands separated, 4 digits included (a count axis read "5000" under "10,000"); not x, where a
        # category or a value may be a year (2024, never 2,024)
        "yaxis": {"title": {"text": y}, "exponentformat": "none", "separatethousands": True, "automargin": True}
        | (yaxis or {}),
        "height": height,
        "margin": MARGIN,
        "legend": LEGEND_BELOW,
        # per figure, not pio.templates.default: Streamlit sets that global to its own theme when it loads
        "template": "none",
        **layout,
    }
    return go.Figure(_clean({"data": traces, "layout": spec}))


def _vline(x: float, label: str | None, line: dict, right: bool = True) -> tuple[dict, dict | None]:
    """A vertical line over the whole plot height, with its label just above the plot (right of it, or left).

    Above, in the line the title's bottom pad leaves, never inside: a label at the plot's top sat on the tallest
    bars (the Audit page's "S = {noisy count < 100.027}" over the x′ histogram on penguins.csv)."""
    shape = {"type": "line", "xref": "x", "x0": x, "x1": x, "yref": "y domain", "y0": 0, "y1": 1, "line": line}
    note = label and {
        "text": label,
        "showarrow": False,
        "xref": "x",
        "x": x,
        "xanchor": "left" if right else "right",
        "yref": "y domain",
        "y": 1,
        "yanchor": "bottom",
    }
    return shape, note


def _hline(y: float, label: str | None, line: dict, above: bool = True) -> tuple[dict, dict | None]:
    """A horizontal line across the plot, with its label at the left end (above it, or below)."""
    shape = {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y, "line": line}
    note = label and {
        "text": label,
        "showarrow": False,
        "xref": "x domain",
        "x": 0,
        "xanchor": "left",
        "yref": "y",
        "y": y,
        "yanchor": "bottom" if above else "top",
    }
    return shape, note


def _log_ticks(values: np.ndarray, mantissas=(1, 2, 5)) -> dict:
    """Tick marks at m × 10^e inside the range of ``values``, labelled as plain numbers (thousands separated)."""
    ticks = [m * 10.0**e for e in range(-4, 7) for m in mantissas if values.min() <= m * 10.0**e <= values.max()]
    return {"tickvals": ticks, "ticktext": [f"{t:,.15g}" for t in ticks]}  # 1,000 as the other axes write it


def true_vs_noisy_bars(
    labels, true, noisy, bound=None, title="True and noisy answers", y="count", mechanism: str | None = None
) -> go.Figure:
    """Grouped bars: the truth in grey, one noisy release in its mechanism's colour with its error bar."""
    labels = [str(v) for v in labels]  # category labels, even when they read as numbers
    err = None
    if bound is not None:
        err = {
            "type": "data",
            "array": np.broadcast_to(np.asarray(bound, dtype=float), np.shape(noisy)),
            "color": "#1c2b6b",
            "thickness": 1.2,
        }
    return _figure(
        [
            {"type": "bar", "x": labels, "y": np.asarray(true), "name": "true", "marker": {"color": TRUE}},
            {
                "type": "bar",
                "x": labels,
                "y": np.asarray(noisy),
                "name": "noisy (simulated)",
                "marker": {"color": colour_of(mechanism) if mechanism else NOISY},
                "error_y": err,
            },
        ],
        title,
        "",
        y,
        barmode="group",
    )


#: The ε whose law fixes an error histogram's x-axis (a little beyond its 99% error) and is drawn faint beside the
#: current law, so that moving the ε slider widens or narrows the histogram instead of relabelling its ticks.
REFERENCE_EPSILON = 0.5


def with_reference(figure: go.Figure, half: float, x, y) -> go.Figure:
    """Fix ``figure``'s x-axis at [−half, half] and draw the error law at :data:`REFERENCE_EPSILON` (``x``, ``y``)
    dotted over it: the same curve at every ε, the reference a moving histogram is read against."""
    figure.add_scatter(
        x=x,
        y=y,
        mode="lines",
        name=f"at ε = {REFERENCE_EPSILON:g}, for reference",
        line={"color": "rgba(120, 120, 120, 0.6)", "width": 2, "dash": "dot"},
    )
    figure.update_xaxes(range=[-half, half], autorange=False)
    return figure


def reference_caption(half: float, errors, shown: str) -> str:
    """The sentence under a histogram fixed by :func:`with_reference`: the axis, and how much of it ε pushed off."""
    outside = float(np.mean(np.abs(np.asarray(errors, dtype=float)) > half))
    return (
        f"The x-axis is fixed at ±{shown}, a little beyond the 99% error at ε = {REFERENCE_EPSILON:g} (dotted), "
        "so moving ε widens or narrows the histogram."
        + (f" At this ε, {outside:.0%} of the simulated errors fall outside it." if outside >= 0.005 else "")
    )


def histogram_bins(errors, lattice: float | None = None, half: float | None = None) -> tuple[float | None, float]:
    """The bins of :func:`error_histogram`: ``(start, size)`` (``start`` None: Plotly's own, from the data).

    40 bins across the errors; with ``half``, about 30 across [−half, half] (at most 600 in all: a far error widens
    them), from below every error so that the density counts each one; with ``lattice``, whole multiples of it with
    edges between its points (no aliasing comb).
    """
    errors = np.asarray(errors, dtype=float).ravel()
    span = float(errors.max() - errors.min()) or 1.0
    size = span / 40 if half is None else max(half / 15, span / 600)
    if lattice:
        size = max(1, round(size / lattice)) * lattice
        return float(errors.min()) - 0.5 * lattice, size  # bin edges between lattice points
    if half is not None:  # edges on a grid through −half
        return -half - size * float(np.ceil(max(0.0, -half - float(errors.min())) / size)), size
    return None, size


def binned_law(points, probabilities, start: float, size: float) -> tuple[np.ndarray, np.ndarray]:
    """An exact discrete law on the bins ``start + k·size`` of a histogram: the outline ``(x, y)`` of its density per
    bin, ``P(bin)/size`` (what the histogram of its draws estimates; a point mass drawn as a line between far-apart
    points would read as a slope). Integrates to the total probability."""
    points = np.asarray(points, dtype=float)
    k = np.floor((points - start) / size).astype(np.int64)
    first = int(k.min())
    mass = np.bincount(k - first, weights=np.asarray(probabilities, dtype=float))
    edges = start + size * np.arange(first, first + mass.size + 1)
    return np.repeat(edges, 2), np.concatenate(([0.0], np.repeat(mass / size, 2), [0.0]))


def error_histogram(
    errors,
    density_x=None,
    density_y=None,
    title="Error over simulated releases",
    x="noisy − true",
    density_name="theory",
    lattice: float | None = None,
    mechanism: str | None = None,
    half: float | None = None,
) -> go.Figure:
    """Histogram of simulated errors (as a density, in the mechanism's colour) with the theoretical density over it.

    ``lattice``: spacing of the values the errors can take, if they are discrete;
    bins are then whole multiples of it, so the histogram shows no aliasing comb.
    ``half``: the x-axis spans [−half, half], about 30 bins across it (at most 600 in all: a far error widens them);
    the bins start below every error, so the density counts the errors off the axis too.
    """
    errors = np.asarray(errors, dtype=float).ravel()
    start, size = histogram_bins(errors, lattice, half)
    traces = [
        {
            "type": "histogram",
            "x": errors,
            "histnorm": "probability density",
            "marker": {"color": colour_of(mechanism) if mechanism else NOISY},
            "name": f"simulated ({errors.size:,} releases)",
            "opacity": 0.55,
            "xbins": {"size": size, "start": start},
        }
    ]
    if density_x is not None:
        traces.append(
            {
                "type": "scatter",
                "x": density_x,
                "y": density_y,
                "mode": "lines",
                "name": density_name,
                "line": {"color": MARK["color"], "width": 2},  # dark reads over every mechanism's colour
            }
        )
    axis = None if half is None else {"range": [-half, half], "autorange": False}
    return _figure(traces, title, x, "density", xaxis=axis)


def curves(
    x,
    series: dict,
    current=None,
    title="",
    x_title="ε",
    y_title="",
    log_x=True,
    log_y=False,
    current_label="current ε",
    **options,
) -> go.Figure:
    """Several lines over a common x, with the current value marked by a vertical line."""
    return xy_curves(
        {name: (x, y) for name, y in series.items()},
        current,
        title,
        x_title,
        y_title,
        log_x,
        log_y,
        current_label,
        **options,
    )


def probability_bars(labels, probs, highlight=None, title="", y="probability") -> go.Figure:
    colours = [NOISY if i != highlight else "#e8590c" for i in range(len(probs))]
    return _figure(
        [{"type": "bar", "x": [str(v) for v in labels], "y": probs, "marker": {"color": colours}}],
        title,
        "",
        y,
    )


def probabilities_and_frequencies(labels, probs, freqs, highlight=None, title="", trials=None) -> go.Figure:
    """Theoretical probability of each candidate (bars, ``highlight`` in orange) with its empirical frequency (dots)."""
    labels = [str(v) for v in labels]  # category labels, even when they read as numbers
    colours = [NOISY if i != highlight else "#e8590c" for i in range(len(probs))]
    return _figure(
        [
            {"type": "bar", "x": labels, "y": probs, "marker": {"color": colours}, "name": "probability (theory)"},
            {
                "type": "scatter",
                "x": labels,
                "y": freqs,
                "mode": "markers",
                "marker": {"color": "#212529", "size": 9, "symbol": "diamond"},
                "name": "frequency" + (f" over {trials:,} picks" if trials else ""),
            },
        ],
        title,
        "",
        "probability",
    )


def overlaid_histograms(
    series: dict, title="", x_title="", bin_size=None, marks: dict | None = None, y_title="share of trials"
) -> go.Figure:
    """Overlaid histograms (as shares) of several samples on a common x, with optional vertical marks."""
    traces = []
    for i, (name, values) in enumerate(series.items()):
        values = np.asarray(values, dtype=float).ravel()
        traces.append(
            {
                "type": "histogram",
                "x": values,
                "histnorm": "probability",
                "name": f"{name} ({values.size:,})",
                "xbins": {"size": bin_size} if bin_size else None,
                "marker": {"color": colour_of(name, i)},
                "opacity": 0.6,
            }
        )
    # the first mark is dashed with its label to the right; the next ones dotted, labels alternating sides
    lines = [
        _vline(x, label, {**MARK, "dash": "dash" if j == 0 else "dot"}, right=j % 2 == 0)
        for j, (label, x) in enumerate((marks or {}).items())
    ]
    return _figure(
        traces,
        title,
        x_title,
        y_title,
        barmode="overlay",
        shapes=[s for s, _ in lines],
        annotations=[n | {"yanchor": "bottom"} for _, n in lines if n],  # above the plot: the tallest bar is at a mark
    )


def answers_against_threshold(
    labels, true, noisy: dict, threshold, title="", y="count", stopped_after: int | None = None, stop_label=""
) -> go.Figure:
    """True answers as grey bars, noisy answers as markers (NaN: not released), the threshold as a line.

    ``stopped_after``: the number of queries asked before the release stopped (Sparse after its c-th positive): a
    dotted line after the last one asked, ``stop_label`` above the plot (the queries right of it were never asked).
    """
    labels = [str(v) for v in labels]  # category labels, even when they read as numbers
    traces = [
        {"type": "bar", "x": labels, "y": np.asarray(true), "name": "true", "marker": {"color": TRUE}, "opacity": 0.7}
    ]
    symbols = ("diamond-open", "x-thin-open", "circle-open", "square-open")  # open, shrinking: overlaps stay visible
    for i, (name, y_values) in enumerate(noisy.items()):
        colour = colour_of(name, i)
        traces.append(
            {
                "type": "scatter",
                "x": labels,
                "y": np.asarray(y_values, dtype=float),
                "mode": "markers",
                "name": name,
                "marker": {
                    "color": colour,
                    "size": max(6, 16 - 5 * i),
                    "symbol": symbols[i % len(symbols)],
                    "line": {"width": 2.5, "color": colour},
                },
            }
        )
    line = {"color": "#c92a2a", "dash": "dash", "width": 1.5}
    shape, _ = _hline(threshold, None, line)
    # the line is named in the legend: a label on it sat under the bars and markers
    name = f"threshold T = {threshold:,.6g}"
    traces.append({"type": "scatter", "x": [None], "y": [None], "mode": "lines", "line": line, "name": name})
    shapes, notes = [shape], []
    if stopped_after is not None and 0 < stopped_after < len(labels):
        # between two categories: a category axis places a number at the category of that index
        stop, note = _vline(stopped_after - 0.5, stop_label or None, {**MARK, "dash": "dot"}, right=True)
        shapes.append(stop)
        notes += [note] if note else []
    return _figure(traces, title, "", y, shapes=shapes, annotations=notes)


#: Two curves closer than this (relative gap at every shared x) lie on top of each other at a line's width: on a
#: chart spanning four decades in 300 px, a 2.5 px line covers 3 % either side.
COINCIDE = 0.05


def coinciding(series: dict, within: float = COINCIDE) -> list[tuple[str, str, float]]:
    """Pairs of curves drawn on top of each other: (earlier name, later name, their largest relative gap).

    ``series``: name -> (x, y), as :func:`xy_curves` takes it. A pair coincides where the two agree within
    ``within`` (relative) at every x both have (at least two), so that the later one would hide the earlier.
    """
    found, names = [], list(series)
    for i, a in enumerate(names):
        xa, ya = (np.asarray(v, dtype=float) for v in series[a])
        for b in names[i + 1 :]:
            xb, yb = (np.asarray(v, dtype=float) for v in series[b])
            shared, ia, ib = np.intersect1d(xa, xb, return_indices=True)
            u, v = ya[ia], yb[ib]
            ok = np.isfinite(u) & np.isfinite(v)
            if ok.sum() < 2:
                continue
            u, v = u[ok], v[ok]
            scale = np.maximum(np.abs(u), np.abs(v))
            gap = float(np.max(np.divide(np.abs(u - v), scale, out=np.zeros_like(u), where=scale > 0)))
            if gap <= within:
                found.append((a, b, gap))
    return found


def xy_curves(
    series: dict,
    current=None,
    title="",
    x_title="",
    y_title="",
    log_x=True,
    log_y=False,
    current_label="",
    y_max=None,
    dashed=(),
    hline: tuple[float, str] | None = None,
    colours: dict | None = None,
) -> go.Figure:
    """Lines each on its own x (``series``: name -> (x, y)); short series get markers, names in ``dashed`` dash.

    ``colours``: name -> colour for the series whose colour must not depend on their place (the same accounting on
    two charts); the others take :func:`colour_of`'s.

    ``current`` is marked by a dashed vertical line. ``y_max`` caps the y axis (a curve that
    runs off the top is cut, not squashing the others). ``hline``: (y, label) of a dotted
    horizontal reference line. A curve that lies on an earlier one (:func:`coinciding`) is drawn
    dotted and the earlier one wider beneath it, so that both stay visible (the page says so).
    """
    pairs = coinciding(series)
    over = {later for _, later, _ in pairs}
    under = {earlier for earlier, _, _ in pairs} - over
    traces = [
        {
            "type": "scatter",
            "x": np.asarray(x),
            "y": np.asarray(y),
            "name": name,
            "mode": "lines+markers" if np.size(x) <= 20 else "lines",
            "line": {
                "color": (colours or {}).get(name) or colour_of(name, i),
                "width": 5 if name in under else 2.5,
                "dash": ("dashdot" if name in dashed else "dot")
                if name in over
                else ("dash" if name in dashed else None),
            },
        }
        for i, (name, (x, y)) in enumerate(series.items())
    ]
    shapes, notes, xaxis, yaxis = [], [], {}, {}
    if current is not None:
        shapes.append(_vline(current, None, MARK)[0])
        # annotations on a log axis take log10 coordinates (shapes take data values)
        notes.append(
            {
                "x": np.log10(current) if log_x else current,
                "y": 1,
                "yref": "paper",
                "yanchor": "bottom",
                "text": current_label,
                "showarrow": False,
                "font": {"size": 12},
            }
        )
    if hline is not None:
        shape, note = _hline(hline[0], hline[1], {"color": "#c92a2a", "dash": "dot"}, above=False)
        shapes.append(shape)
        notes.append(note)
    if log_x:
        xaxis["type"] = "log"
        if series:
            xaxis.update(_log_ticks(np.concatenate([np.asarray(x, dtype=float) for x, _ in series.values()])))
    shown = None  # the y values the axis spans
    if log_y:
        ys = np.concatenate([np.asarray(y, dtype=float).ravel() for _, y in series.values()]) if series else np.ones(1)
        shown = ys[np.isfinite(ys) & (ys > 0)]
        yaxis["type"] = "log"
    if y_max is not None and series:
        ys = np.concatenate([np.asarray(y, dtype=float).ravel() for _, y in series.values()])
        low = float(np.nanmin(ys[ys > 0])) / 1.5 if log_y and np.any(ys > 0) else min(0.0, float(np.nanmin(ys)))
        yaxis["range"] = [np.log10(low), np.log10(y_max)] if log_y else [low, y_max]
        shown = np.array([low, y_max]) if log_y else shown
    if shown is not None and shown.size:
        decades = np.log10(shown.max()) - np.log10(shown.min())  # a quotient overflows from 1e-320 to 1e300
        # over many decades label the decades only; over fewer, plain numbers (plotly's own labels there
        # read "10², 2, 3" for 100, 200, 300), every digit when the axis spans under half a decade
        yaxis.update(
            {"exponentformat": "power", "dtick": 1}
            if decades > 1.5
            else _log_ticks(shown, range(1, 10) if decades < 0.5 else (1, 2, 5))
        )
    return _figure(traces, title, x_title, y_title, xaxis=xaxis, yaxis=yaxis, shapes=shapes, annotations=notes)


def releases_against_truth(labels, true, releases: dict, title="", y="count") -> go.Figure:
    """The truth in grey and one release of each mechanism beside it, one colour per mechanism."""
    labels = [str(v) for v in labels]  # category labels, even when they read as numbers
    traces = [
        {"type": "bar", "x": labels, "y": np.asarray(true, dtype=float), "name": "true", "marker": {"color": TRUE}}
    ]
    for i, (name, values) in enumerate(releases.items()):
        traces.append(
            {
                "type": "bar",
                "x": labels,
                "y": np.asarray(values, dtype=float),
                "name": str(name),
                "marker": {"color": colour_of(name, i + 1)},
            }
        )
    return _figure(traces, title, "", y, barmode="group")


def error_boxes(errors: dict, title="", y="noisy − true") -> go.Figure:
    """One box per mechanism of its errors over simulated releases, on one axis (whiskers at the 2.5–97.5 %)."""
    traces = []
    for i, (name, values) in enumerate(errors.items()):
        values = np.asarray(values, dtype=float).ravel()
        q = np.quantile(values, [0.025, 0.25, 0.5, 0.75, 0.975])
        scale = float(np.max(np.abs(values))) or 1.0  # errors near 1e308 (a public range that wide) overflow a sum
        colour = colour_of(name, i)
        # summary boxes (five numbers) instead of every point: 10,000 trials a mechanism stay a few bytes
        traces.append(
            {
                "type": "box",
                "name": str(name),
                "q1": [q[1]],
                "median": [q[2]],
                "q3": [q[3]],
                "lowerfence": [q[0]],
                "upperfence": [q[4]],
                "mean": [float(np.mean(values / scale)) * scale],
                "x": [str(name)],
                "marker": {"color": colour},
                "line": {"color": colour},
                "fillcolor": colour,
                "opacity": 0.55,
                "showlegend": False,
            }
        )
    shape, _ = _hline(0.0, None, {"color": "#212529", "dash": "dot", "width": 1})
    return _figure(traces, title, "", y, shapes=[shape], yaxis={"zeroline": False, "exponentformat": "power"})


def values_against_truth(values: dict, truth: float, title="", y="") -> go.Figure:
    """One released number per mechanism as a dot, the true number as a dashed line (the axis zoomed on them)."""
    traces = [
        {
            "type": "scatter",
            "x": [str(name)],
            "y": [float(v)],
            "mode": "markers",
            "name": str(name),
            "marker": {"color": colour_of(name, i), "size": 16, "symbol": "diamond"},
            "showlegend": False,
        }
        for i, (name, v) in enumerate(values.items())
    ]
    shape, note = _hline(truth, f"true: {truth:,.6g}", {"color": TRUE, "dash": "dash", "width": 2})
    # the range padded around the dots and the truth alike: a truth below every dot (seattle-weather's median
    # precipitation, 0) lay on the x axis, its dashes and label on the axis line
    shown = [float(v) for v in values.values() if np.isfinite(v)] + ([float(truth)] if np.isfinite(truth) else [])
    yaxis = {}
    if shown:
        low, high = min(shown), max(shown)
        pad = 0.1 * (high - low) or 0.1 * abs(high) or 1.0
        yaxis = {"range": [low - pad, high + pad]}
    return _figure(traces, title, "", y, height=340, yaxis=yaxis, shapes=[shape], annotations=[note])


# ---------------------------------------------------------------------- the Audit page

#: A lower bound at or below the claim (consistent with it), and one above it (the claim refuted).
BELOW_CLAIM = "#2b8a3e"
ABOVE_CLAIM = "#c92a2a"


def _claim_colour(bound: float, claimed: float) -> str:
    return ABOVE_CLAIM if bound > claimed else BELOW_CLAIM


def audit_gauge(claimed: float, lower: float, confidence: float, actual: float | None = None, title="") -> go.Figure:
    """The claimed ε against the audit's lower bound: a bar from 0 to the bound, its one-sided confidence region.

    The bar is green when the bound is at or below the claim, red above it. The
    region right of the bound (shaded) is where the true ε lies with probability
    ``confidence``; the claim is refuted when its line falls left of that region.
    ``actual``: the true ε when known (a broken exhibit), drawn dotted (``inf``: an arrow at the right edge).
    """
    colour = _claim_colour(lower, claimed)
    finite = [v for v in (claimed, lower, actual) if v is not None and np.isfinite(v)]
    top = 1.3 * max(finite + [1e-9])
    claim, claim_note = _vline(claimed, f"claimed ε = {claimed:g}", {**MARK, "width": 2.5})
    claim_note.update({"xanchor": "center", "yanchor": "bottom", "font": {"size": 13}})  # above the plot
    region = {
        "type": "rect",
        "xref": "x",
        "x0": lower,
        "x1": top,
        "yref": "y",
        "y0": -0.4,
        "y1": 0.4,
        "fillcolor": colour,
        "opacity": 0.12,
        "line": {"width": 0},
    }
    shapes, notes = [region, claim], [claim_note]
    if actual is not None:
        finite_actual = bool(np.isfinite(actual))
        label = f"true ε of this bug = {actual:g}" if finite_actual else "true ε of this bug = ∞ →"
        note = {
            "text": label,
            "showarrow": False,
            "xref": "x" if finite_actual else "paper",
            "x": actual if finite_actual else 1,
            "xanchor": "center" if finite_actual else "right",
            "yref": "paper",
            "y": 0,
            "yanchor": "bottom",  # inside the plot, under the bar
            "font": {"color": ABOVE_CLAIM},
        }
        if finite_actual:
            shapes.append(_vline(actual, None, {"color": ABOVE_CLAIM, "dash": "dot", "width": 2})[0])
        notes.append(note)
    bar = {
        "type": "bar",
        "orientation": "h",
        "x": [lower],
        "y": [0],
        "width": [0.5],
        "marker": {"color": colour},
        "text": [f"lower bound {lower:.3f}"],
        "textposition": "inside" if lower > 0.3 * top else "outside",
        "insidetextanchor": "end",
        "name": "lower bound",
        "hovertemplate": Hover("lower bound on ε: ", Field("x:.4f")),
    }
    return _figure(
        [bar],
        title,
        "ε",
        "",
        height=200,
        xaxis={"range": [0, top], "zeroline": True, "side": "bottom"},
        yaxis={"visible": False, "range": [-0.5, 0.5]},
        shapes=shapes,
        annotations=notes,
        showlegend=False,
        margin=MARGIN | {"b": 30},
    )


def audit_histograms(outputs0, outputs1, kind: str, value: float, event: str, title="", x_title="output") -> go.Figure:
    """The outputs on x and on x′ as overlaid histograms (shares, shared bins), the event ``S`` shaded.

    ``kind``: ``">="`` (S lies right of ``value``) or ``"<"`` (left of it).
    """
    out0 = np.asarray(outputs0, dtype=float).ravel()
    out1 = np.asarray(outputs1, dtype=float).ravel()
    both = np.concatenate([out0, out1])
    low, high = float(both.min()), float(both.max())
    low, high = min(low, value), max(high, value)
    size = (high - low) / 60 or 1.0
    traces = [
        {
            "type": "histogram",
            "x": values,
            "histnorm": "probability",
            "name": f"{name} ({values.size:,} runs)",
            "xbins": {"start": low, "end": high + size, "size": size},
            "marker": {"color": PALETTE[i]},
            "opacity": 0.6,
        }
        for i, (name, values) in enumerate((("on x", out0), ("on x′", out1)))
    ]
    pad = 0.02 * (high - low or 1.0)
    x0, x1 = (value, high + pad) if kind == ">=" else (low - pad, value)
    region = {
        "type": "rect",
        "xref": "x",
        "x0": x0,
        "x1": x1,
        "yref": "y domain",
        "y0": 0,
        "y1": 1,
        "fillcolor": "#fab005",
        "opacity": 0.15,
        "line": {"width": 0},
    }
    # the label goes on the side of the line with more room
    line, note = _vline(value, f"S = {{{event}}}", MARK, right=value - low < high - value)
    return _figure(
        traces,
        title,
        x_title,
        "share of runs",
        barmode="overlay",
        shapes=[region, line],
        annotations=[note],
        xaxis={"range": [low - pad, high + pad]},
    )


def audit_output_bars(labels, share0, share1, highlight: int | None, title="") -> go.Figure:
    """Share of runs giving each output, on x and on x′ side by side; the event's output ``highlight`` outlined."""
    labels = [str(v) for v in labels]  # category labels, even when they read as numbers
    outline = [3 if i == highlight else 0 for i in range(len(labels))]
    traces = [
        {
            "type": "bar",
            "x": labels,
            "y": np.asarray(share),
            "name": name,
            "marker": {"color": PALETTE[i], "line": {"color": "#212529", "width": outline}},
        }
        for i, (name, share) in enumerate((("on x", share0), ("on x′", share1)))
    ]
    notes = []
    if highlight is not None:
        notes.append(
            {
                "text": "S",
                "x": labels[highlight],
                "xref": "x",
                "y": max(float(np.asarray(share0)[highlight]), float(np.asarray(share1)[highlight])),
                "yref": "y",
                "yanchor": "bottom",
                "showarrow": True,
                "arrowhead": 2,
                "ay": -24,
                "font": {"size": 13},
            }
        )
    return _figure(traces, title, "", "share of runs", barmode="group", annotations=notes)


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _count_label(n: float) -> str:
    """A count as a tick label: 3,000 below 10⁴, then 10⁴, 3·10⁴, … (no SI suffix, no 1e+06)."""
    if n < 1e4:
        return f"{n:,.0f}"
    exponent = int(np.floor(np.log10(n) + 1e-9))
    mantissa = round(n / 10.0**exponent)
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if mantissa == 1 else f"{mantissa}·{power}"


def audit_bound_curve(
    trials, bounds, claimed: float, point: tuple[int, float] | None = None, actual: float | None = None, title=""
) -> go.Figure:
    """The lower bound at growing numbers of runs (log x), each point green at or below the claim, red above.

    ``point``: (runs, bound) of the audit shown above the curve, drawn as a star.
    """
    trials = np.asarray(trials)
    bounds = np.asarray(bounds, dtype=float)
    traces = [
        {
            "type": "scatter",
            "x": trials,
            "y": bounds,
            "mode": "lines+markers",
            "name": "lower bound with the first n runs",
            "line": {"color": "#adb5bd", "width": 2},
            "marker": {"color": [_claim_colour(b, claimed) for b in bounds], "size": 9},
        }
    ]
    if point is not None:
        traces.append(
            {
                "type": "scatter",
                "x": [point[0]],
                "y": [point[1]],
                "mode": "markers",
                "name": "the audit above",
                "marker": {"color": _claim_colour(point[1], claimed), "size": 16, "symbol": "star"},
            }
        )
    shape, note = _hline(claimed, f"claimed ε = {claimed:g}", {**MARK, "width": 2})
    shapes, notes = [shape], [note]
    ys = [claimed, *bounds[np.isfinite(bounds)]] + ([point[1]] if point else [])
    if actual is not None and np.isfinite(actual):
        shape, note = _hline(actual, f"true ε of this bug = {actual:g}", {"color": ABOVE_CLAIM, "dash": "dot"})
        shapes.append(shape)
        notes.append(note)
        ys.append(actual)
    xs = np.concatenate([trials, [point[0]] if point else []]).astype(float)
    ticks = _log_ticks(xs, (1, 3))
    ticks["ticktext"] = [_count_label(t) for t in ticks["tickvals"]]
    return _figure(
        traces,
        title,
        "runs on each input (log scale)",
        "lower bound on ε",
        xaxis={"type": "log", **ticks},
        yaxis={"range": [0, 1.15 * max(ys)]},
        shapes=shapes,
        annotations=notes,
    )


def impossible_shares(epsilons, series: dict, current: float | None = None, title="") -> go.Figure:
    """Share of outputs on x that x′ cannot produce, per sampler, over ε (log x) with its confidence interval.

    ``series``: name -> (share, lower, upper) arrays, one value per ε; the first is drawn red, the next green.
    """
    colours = (ABOVE_CLAIM, BELOW_CLAIM, *PALETTE)
    traces = []
    for i, (name, (share, lower, upper)) in enumerate(series.items()):
        share, lower, upper = (np.asarray(v, dtype=float) for v in (share, lower, upper))
        traces.append(
            {
                "type": "scatter",
                "x": np.asarray(epsilons),
                "y": share,
                "mode": "lines+markers",
                "name": name,
                "line": {"color": colours[i], "width": 2.5},
                "error_y": {"type": "data", "symmetric": False, "array": upper - share, "arrayminus": share - lower},
            }
        )
    shapes, notes = [], []
    if current is not None:
        shape, note = _vline(current, f"ε = {current:g}", MARK)
        shapes.append(shape)
        notes.append(note | {"x": np.log10(current)})  # annotations on a log axis take log10 coordinates
    return _figure(
        traces,
        title,
        "ε (log scale)",
        "share of outputs impossible on x′",
        xaxis={"type": "log", **_log_ticks(np.asarray(epsilons, dtype=float))},
        yaxis={"range": [-0.05, 1.05], "tickformat": ".0%"},
        shapes=shapes,
        annotations=notes,
    )


def _rgba(colour: str, alpha: float) -> str:
    """A ``#rrggbb`` colour as ``rgba(r, g, b, alpha)``, for the bands under lines."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def band_curves(
    series: dict,
    title="",
    x_title="",
    y_title="",
    log_x=False,
    marks=(),
    hlines=(),
    y_range=None,
    height=400,
    y_format=None,
) -> go.Figure:
    """Lines over shaded bands: for each name, a central line (a mean over noise draws) and its spread (min to max).

    ``series``: name -> dict with ``x``, ``y`` and optionally ``low``, ``high`` (the band), ``dash`` (bool),
    ``colour`` (an index into :data:`PALETTE`). ``marks``: (x, label) pairs drawn as dashed vertical lines, labels
    at the top (marks at the same x share one label). ``hlines``: (y, label) pairs drawn as dotted horizontal
    lines (a baseline) across the curves' x range, named in the legend. ``y_range``: [low, high] of the y axis; ``y_format``: a d3
    format for its tick labels (``".1%"`` for shares).
    """
    traces = []
    for i, (name, s) in enumerate(series.items()):
        colour = PALETTE[s.get("colour", i) % len(PALETTE)]
        x = np.asarray(s["x"], dtype=float)
        group = f"g{i}"
        if s.get("low") is not None and s.get("high") is not None:
            traces.append(
                {
                    "type": "scatter",
                    "x": x,
                    "y": np.asarray(s["high"], dtype=float),
                    "mode": "lines",
                    "line": {"width": 0, "color": colour},
                    "legendgroup": group,
                    "showlegend": False,
                    "hoverinfo": "skip",
                }
            )
            traces.append(
                {
                    "type": "scatter",
                    "x": x,
                    "y": np.asarray(s["low"], dtype=float),
                    "mode": "lines",
                    "line": {"width": 0, "color": colour},
                    "fill": "tonexty",
                    "fillcolor": _rgba(colour, 0.18),
                    "legendgroup": group,
                    "showlegend": False,
                    "hoverinfo": "skip",
                }
            )
        traces.append(
            {
                "type": "scatter",
                "x": x,
                "y": np.asarray(s["y"], dtype=float),
                "name": name,
                "mode": "lines+markers" if x.size <= 12 else "lines",
                "line": {"color": colour, "width": 2.5, "dash": "dash" if s.get("dash") else None},
                "legendgroup": group,
            }
        )
    shapes, notes = [], []
    merged: dict[float, list[str]] = {}
    for x, label in marks:
        merged.setdefault(float(x), []).append(label)
    for j, (x, labels) in enumerate(merged.items()):
        shapes.append(_vline(x, None, {**MARK, "dash": "dash" if j == 0 else "dot"})[0])
        notes.append(
            {
                "x": np.log10(x) if log_x else x,  # annotations on a log axis take log10 coordinates
                "xref": "x",
                "y": 1,
                "yref": "paper",
                "yanchor": "bottom",
                "text": " · ".join(labels),
                "showarrow": False,
                "font": {"size": 12},
            }
        )
    if hlines:  # named in the legend, not written over the curves (a label at either end sat on a curve or a band)
        xs = np.concatenate([np.asarray(s["x"], dtype=float) for s in series.values()]) if series else np.zeros(1)
        for y, label in hlines:
            traces.append(
                {
                    "type": "scatter",
                    "x": [float(xs.min()), float(xs.max())],
                    "y": [y, y],
                    "mode": "lines",
                    "name": label,
                    "line": {"color": "#c92a2a", "dash": "dot", "width": 1.5},
                    "hoverinfo": "name",
                }
            )
    xaxis = {}
    if log_x:
        xs = np.concatenate([np.asarray(s["x"], dtype=float) for s in series.values()]) if series else np.ones(1)
        xaxis = {"type": "log", **_log_ticks(xs[xs > 0])}
    yaxis = {"range": list(y_range)} if y_range is not None else {}
    if y_format:
        yaxis["tickformat"] = y_format
    return _figure(
        traces, title, x_title, y_title, height=height, xaxis=xaxis, yaxis=yaxis, shapes=shapes, annotations=notes
    )
