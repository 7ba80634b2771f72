"""Plotly figures the pages share. They draw numbers computed by dpcore; they compute none."""

from __future__ import annotations


import html

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

# one shared look, set once: a template given per figure costs tens of ms on every rerun
pio.templates.default = "plotly_white"

TRUE = "#868e96"
NOISY = "#3b5bdb"
PALETTE = ("#3b5bdb", "#e8590c", "#2b8a3e", "#c2255c", "#7048e8", "#0c8599", "#e67700")


def _layout(fig: go.Figure, title: str, x: str, y: str, height: int = 420) -> go.Figure:
    fig.update_layout(
        title=dict(text=html.escape(title), x=0, xanchor="left", font=dict(size=15)),
        xaxis_title=x, yaxis_title=y, height=height, margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0),
    )
    return fig


def true_vs_noisy_bars(labels, true, noisy, bound=None, title="True and noisy answers", y="count") -> go.Figure:
    """Grouped bars: the truth in grey, one noisy release in colour with its error bar."""
    labels = [html.escape(str(v)) for v in labels]  # Plotly renders a subset of HTML in tick labels
    fig = go.Figure()
    fig.add_bar(x=labels, y=np.asarray(true), name="true", marker_color=TRUE)
    err = None
    if bound is not None:
        err = dict(type="data", array=np.broadcast_to(np.asarray(bound, dtype=float), np.shape(noisy)), color="#1c2b6b", thickness=1.2)
    fig.add_bar(x=labels, y=np.asarray(noisy), name="noisy (one release)", marker_color=NOISY, error_y=err)
    fig.update_layout(barmode="group")
    fig = _layout(fig, title, "", y)
    # category names may be long and rotate: keep the legend above the plot, out of their way
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1))
    return fig


def error_histogram(errors, density_x=None, density_y=None, title="Error over simulated releases",
                    x="noisy − true", density_name="theory", lattice: float | None = None) -> go.Figure:
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
    fig = go.Figure()
    fig.add_histogram(x=errors, histnorm="probability density", name=f"simulated ({errors.size:,} releases)",
                      marker_color=NOISY, opacity=0.55, xbins=dict(size=size, start=start))
    if density_x is not None:
        fig.add_scatter(x=density_x, y=density_y, mode="lines", name=density_name, line=dict(color="#c92a2a", width=2.5))
    return _layout(fig, title, x, "density")


def curves(x, series: dict, current=None, title="", x_title="ε", y_title="", log_x=True, log_y=False,
           current_label="current ε", **options) -> go.Figure:
    """Several lines over a common x, with the current value marked by a vertical line."""
    return xy_curves({name: (x, y) for name, y in series.items()}, current, title, x_title, y_title, log_x, log_y,
                     current_label, **options)


def probability_bars(labels, probs, highlight=None, title="", y="probability") -> go.Figure:
    colours = [NOISY if i != highlight else "#e8590c" for i in range(len(probs))]
    fig = go.Figure(go.Bar(x=[html.escape(str(v)) for v in labels], y=probs, marker_color=colours))
    return _layout(fig, title, "", y)


def probabilities_and_frequencies(labels, probs, freqs, highlight=None, title="", trials=None) -> go.Figure:
    """Theoretical probability of each candidate (bars, ``highlight`` in orange) with its empirical frequency (dots)."""
    labels = [str(v) for v in labels]
    colours = [NOISY if i != highlight else "#e8590c" for i in range(len(probs))]
    fig = go.Figure()
    fig.add_bar(x=labels, y=probs, marker_color=colours, name="probability (theory)")
    fig.add_scatter(x=labels, y=freqs, mode="markers", marker=dict(color="#212529", size=9, symbol="diamond"),
                    name="frequency" + (f" over {trials:,} picks" if trials else ""))
    return _layout(fig, title, "", "probability")


def overlaid_histograms(series: dict, title="", x_title="", bin_size=None, marks: dict | None = None,
                        y_title="share of trials") -> go.Figure:
    """Overlaid histograms (as shares) of several samples on a common x, with optional vertical marks."""
    fig = go.Figure()
    bins = dict(size=bin_size) if bin_size else None
    for i, (name, values) in enumerate(series.items()):
        values = np.asarray(values, dtype=float).ravel()
        fig.add_histogram(x=values, histnorm="probability", name=f"{name} ({values.size:,})", xbins=bins,
                          marker_color=PALETTE[i % len(PALETTE)], opacity=0.6)
    for j, (label, x) in enumerate((marks or {}).items()):
        fig.add_vline(x=x, line=dict(color="#212529", dash="dash" if j == 0 else "dot", width=1.5),
                      annotation_text=label, annotation_position="top left" if j % 2 else "top right")
    fig.update_layout(barmode="overlay")
    return _layout(fig, title, x_title, y_title)


def answers_against_threshold(labels, true, noisy: dict, threshold, title="", y="count") -> go.Figure:
    """True answers as grey bars, noisy answers as markers (NaN: not released), the threshold as a line."""
    labels = [html.escape(str(v)) for v in labels]  # Plotly renders a subset of HTML in tick labels
    fig = go.Figure()
    fig.add_bar(x=labels, y=np.asarray(true), name="true", marker_color=TRUE, opacity=0.7)
    symbols = ("diamond-open", "x-thin-open", "circle-open", "square-open")  # open, shrinking: overlaps stay visible
    for i, (name, y_values) in enumerate(noisy.items()):
        fig.add_scatter(x=labels, y=np.asarray(y_values, dtype=float), mode="markers", name=name,
                        marker=dict(color=PALETTE[i % len(PALETTE)], size=max(6, 16 - 5 * i), symbol=symbols[i % len(symbols)],
                                    line=dict(width=2.5, color=PALETTE[i % len(PALETTE)])))
    fig.add_hline(y=threshold, line=dict(color="#c92a2a", dash="dash", width=1.5),
                  annotation_text=f"threshold T = {threshold:,.6g}", annotation_position="top left")
    _layout(fig, title, "", y)
    # range labels are long and get rotated: the legend goes above the plot, clear of them
    return fig.update_layout(legend=dict(yanchor="bottom", y=1.0, xanchor="right", x=1))


def xy_curves(series: dict, current=None, title="", x_title="", y_title="", log_x=True, log_y=False,
              current_label="", y_max=None, dashed=()) -> go.Figure:
    """Lines each on its own x (``series``: name -> (x, y)); short series get markers, names in ``dashed`` dash.

    ``current`` is marked by a dashed vertical line. ``y_max`` caps the y axis (a curve that
    runs off the top is cut, not squashing the others).
    """
    fig = go.Figure()
    for i, (name, (x, y)) in enumerate(series.items()):
        fig.add_scatter(x=np.asarray(x), y=np.asarray(y), mode="lines+markers" if np.size(x) <= 20 else "lines", name=name,
                        line=dict(color=PALETTE[i % len(PALETTE)], width=2.5, dash="dash" if name in dashed else None))
    if current is not None:
        fig.add_vline(x=current, line=dict(color="#212529", dash="dash", width=1.5))
        # annotations on a log axis take log10 coordinates (add_vline's own annotation gets this wrong)
        fig.add_annotation(x=np.log10(current) if log_x else current, y=1, yref="paper", yanchor="bottom",
                           text=html.escape(current_label), showarrow=False, font=dict(size=12))
    if log_x and series:
        xs = np.concatenate([np.asarray(x, dtype=float) for x, _ in series.values()])
        ticks = [m * 10.0**e for e in range(-4, 7) for m in (1, 2, 5) if xs.min() <= m * 10.0**e <= xs.max()]
        fig.update_xaxes(type="log", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
    if log_y:
        ys = np.concatenate([np.asarray(y, dtype=float).ravel() for _, y in series.values()]) if series else np.ones(1)
        ys = ys[np.isfinite(ys) & (ys > 0)]
        wide = ys.size > 0 and np.log10(ys.max() / ys.min()) > 1.5
        # over many decades label only the decades; over fewer, let plotly put labels in between
        fig.update_yaxes(type="log", exponentformat="power", **({"dtick": 1} if wide else {}))
    elif log_x:
        fig.update_xaxes(type="log")
    if y_max is not None and series:
        ys = np.concatenate([np.asarray(y, dtype=float).ravel() for _, y in series.values()])
        low = float(np.nanmin(ys[ys > 0])) / 1.5 if log_y and np.any(ys > 0) else min(0.0, float(np.nanmin(ys)))
        fig.update_yaxes(range=[np.log10(low), np.log10(y_max)] if log_y else [low, y_max])
    return _layout(fig, title, x_title, y_title)
