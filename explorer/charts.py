"""Plotly figures the pages share. They draw numbers computed by dpcore; they compute none."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

# Streamlit's theme draws the charts; a Plotly template under it changed only hairlines and added
# 6.5 KB of JSON to every chart, to build, send and parse on every rerun
pio.templates.default = "none"

TRUE = "#868e96"
NOISY = "#3b5bdb"
PALETTE = ("#3b5bdb", "#e8590c", "#2b8a3e", "#c2255c", "#7048e8", "#0c8599", "#e67700")


LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0}
# long category names rotate under the axis: such charts keep their legend above the plot
LEGEND_ABOVE = {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1}
MARK = {"color": "#212529", "dash": "dash", "width": 1.5}


def _clean(spec):
    """The spec without ``None`` values, which Plotly reads as 'unset' anyway."""
    if isinstance(spec, dict):
        return {k: _clean(v) for k, v in spec.items() if v is not None}
    if isinstance(spec, list):
        return [_clean(v) for v in spec]
    return spec


def _figure(traces: list, title: str, x: str, y: str, height: int = 420, xaxis=None, yaxis=None, **layout) -> go.Figure:
    """One figure from plain specs, validated by Plotly in one pass.

    Building the same figure call by call (``add_*``, ``update_layout`` with underscore
    paths, ``add_vline``) cost 10-15 ms a chart, most of a page's rerun under load.
    """
    spec = {
        "title": {"text": html.escape(title), "x": 0, "xanchor": "left", "font": {"size": 15}},
        "xaxis": {"title": {"text": x}, **(xaxis or {})},
        "yaxis": {"title": {"text": y}, **(yaxis or {})},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        "legend": LEGEND_BELOW,
        **layout,
    }
    return go.Figure(_clean({"data": traces, "layout": spec}))


def _vline(x: float, label: str | None, line: dict, right: bool = True) -> tuple[dict, dict | None]:
    """A vertical line over the whole plot height, with its label at the top (right of it, or left)."""
    shape = {"type": "line", "xref": "x", "x0": x, "x1": x, "yref": "y domain", "y0": 0, "y1": 1, "line": line}
    note = label and {
        "text": label,
        "showarrow": False,
        "xref": "x",
        "x": x,
        "xanchor": "left" if right else "right",
        "yref": "y domain",
        "y": 1,
        "yanchor": "top",
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
    """Tick marks at m × 10^e inside the range of ``values``, labelled as plain numbers."""
    ticks = [m * 10.0**e for e in range(-4, 7) for m in mantissas if values.min() <= m * 10.0**e <= values.max()]
    return {"tickvals": ticks, "ticktext": [f"{t:g}" for t in ticks]}


def true_vs_noisy_bars(labels, true, noisy, bound=None, title="True and noisy answers", y="count") -> go.Figure:
    """Grouped bars: the truth in grey, one noisy release in colour with its error bar."""
    labels = [html.escape(str(v)) for v in labels]  # Plotly renders a subset of HTML in tick labels
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
                "name": "noisy (one release)",
                "marker": {"color": NOISY},
                "error_y": err,
            },
        ],
        title,
        "",
        y,
        barmode="group",
        legend=LEGEND_ABOVE,
    )


def error_histogram(
    errors,
    density_x=None,
    density_y=None,
    title="Error over simulated releases",
    x="noisy − true",
    density_name="theory",
    lattice: float | None = None,
) -> go.Figure:
    """Histogram of simulated errors (as a density) with the theoretical density over it.

    ``lattice``: spacing of the values the errors can take, if they are discrete;
    bins are then whole multiples of it, so the histogram shows no aliasing comb.
    """
    errors = np.asarray(errors, dtype=float).ravel()
    span = float(errors.max() - errors.min()) or 1.0
    size = span / 40
    if lattice:
        size = max(1, round(size / lattice)) * lattice
    start = errors.min() - 0.5 * lattice if lattice else None  # bin edges between lattice points
    traces = [
        {
            "type": "histogram",
            "x": errors,
            "histnorm": "probability density",
            "marker": {"color": NOISY},
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
                "line": {"color": "#c92a2a", "width": 2.5},
            }
        )
    return _figure(traces, title, x, "density")


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
        [{"type": "bar", "x": [html.escape(str(v)) for v in labels], "y": probs, "marker": {"color": colours}}],
        title,
        "",
        y,
    )


def probabilities_and_frequencies(labels, probs, freqs, highlight=None, title="", trials=None) -> go.Figure:
    """Theoretical probability of each candidate (bars, ``highlight`` in orange) with its empirical frequency (dots)."""
    labels = [html.escape(str(v)) for v in labels]
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
                "marker": {"color": PALETTE[i % len(PALETTE)]},
                "opacity": 0.6,
            }
        )
    # the first mark is dashed with its label to the right; the next ones dotted, labels alternating sides
    lines = [
        _vline(x, html.escape(label), {**MARK, "dash": "dash" if j == 0 else "dot"}, right=j % 2 == 0)
        for j, (label, x) in enumerate((marks or {}).items())
    ]
    return _figure(
        traces,
        title,
        x_title,
        y_title,
        barmode="overlay",
        shapes=[s for s, _ in lines],
        annotations=[n for _, n in lines if n],
    )


def answers_against_threshold(labels, true, noisy: dict, threshold, title="", y="count") -> go.Figure:
    """True answers as grey bars, noisy answers as markers (NaN: not released), the threshold as a line."""
    labels = [html.escape(str(v)) for v in labels]  # Plotly renders a subset of HTML in tick labels
    traces = [
        {"type": "bar", "x": labels, "y": np.asarray(true), "name": "true", "marker": {"color": TRUE}, "opacity": 0.7}
    ]
    symbols = ("diamond-open", "x-thin-open", "circle-open", "square-open")  # open, shrinking: overlaps stay visible
    for i, (name, y_values) in enumerate(noisy.items()):
        colour = PALETTE[i % len(PALETTE)]
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
    shape, note = _hline(
        threshold, f"threshold T = {threshold:,.6g}", {"color": "#c92a2a", "dash": "dash", "width": 1.5}
    )
    return _figure(traces, title, "", y, shapes=[shape], annotations=[note], legend=LEGEND_ABOVE)


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
) -> go.Figure:
    """Lines each on its own x (``series``: name -> (x, y)); short series get markers, names in ``dashed`` dash.

    ``current`` is marked by a dashed vertical line. ``y_max`` caps the y axis (a curve that
    runs off the top is cut, not squashing the others). ``hline``: (y, label) of a dotted
    horizontal reference line.
    """
    traces = [
        {
            "type": "scatter",
            "x": np.asarray(x),
            "y": np.asarray(y),
            "name": name,
            "mode": "lines+markers" if np.size(x) <= 20 else "lines",
            "line": {"color": PALETTE[i % len(PALETTE)], "width": 2.5, "dash": "dash" if name in dashed else None},
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
                "text": html.escape(current_label),
                "showarrow": False,
                "font": {"size": 12},
            }
        )
    if hline is not None:
        shape, note = _hline(hline[0], html.escape(hline[1]), {"color": "#c92a2a", "dash": "dot"}, above=False)
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
        decades = np.log10(shown.max() / shown.min())
        # over many decades label the decades only; over fewer, plain numbers (plotly's own labels there
        # read "10², 2, 3" for 100, 200, 300), every digit when the axis spans under half a decade
        yaxis.update(
            {"exponentformat": "power", "dtick": 1}
            if decades > 1.5
            else _log_ticks(shown, range(1, 10) if decades < 0.5 else (1, 2, 5))
        )
    return _figure(traces, title, x_title, y_title, xaxis=xaxis, yaxis=yaxis, shapes=shapes, annotations=notes)


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
    lines (a baseline), labels at the left end. ``y_range``: [low, high] of the y axis; ``y_format``: a d3
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
                "name": html.escape(name),
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
                "text": html.escape(" · ".join(labels)),
                "showarrow": False,
                "font": {"size": 12},
            }
        )
    for y, label in hlines:
        shape, note = _hline(y, html.escape(label), {"color": "#c92a2a", "dash": "dot", "width": 1.5}, above=False)
        shapes.append(shape)
        notes.append(note)
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
