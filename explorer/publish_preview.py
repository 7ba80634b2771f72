"""Publish page, the preview: what the published tables will look like, drawn on a public file, with error bars.

A file the user may show (a past release, a synthetic stand-in with the same columns) is read here and nowhere
else; the plan is drawn on it once with seeded noise (:func:`dpcore.plan_release.simulate_plan`: simulated, not
private, nothing charged) and shown as the published table would be, beside a chart of each statistic's numbers
with its expected error at the plan's confidence as an error bar. The error bars come from the plan alone
(:attr:`dpcore.plan.Share.expected_error`), not from the file. This module never asks the session for its dataset:
the private data is read by Publish only (``tests/test_page_publish.py`` watches for it).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from dpcore.plan import Allocation
from dpcore.plan_release import COUNTING_KINDS, SimulatedPlan, check_columns, simulate_plan
from explorer import charts, state
from explorer.dataset import DatasetError, load_csv
from explorer.markup import md, plain_sentence

__all__ = ["LABEL", "chosen_sentence", "preview", "preview_figure"]

#: What the preview is, on the screen, in the chart's title and on every row of its table.
LABEL = "preview on a public file, simulated, not private"
#: Panels per row of the chart, the height of one panel and the room between rows for the tick labels above and the
#: next panel's title (px).
COLUMNS, ROW_PX, GAP_PX = 2, 240, 130
_GAP_X = 0.1  # the room between the panels of a row, as a fraction of the width


def _rows(n: int) -> int:
    return math.ceil(n / min(COLUMNS, n))


def _plot_px(n: int) -> int:
    """The height of the plotting area: the panels and the room between their rows."""
    rows = _rows(n)
    return ROW_PX * rows + GAP_PX * (rows - 1)


def _domains(i: int, n: int) -> tuple[list[float], list[float]]:
    """The x and y domains of panel ``i`` of ``n`` (row by row, ``COLUMNS`` to a row)."""
    cols = min(COLUMNS, n)
    r, c = divmod(i, cols)
    width = (1.0 - _GAP_X * (cols - 1)) / cols
    x0 = c * (width + _GAP_X)
    total = _plot_px(n)
    y1 = 1.0 - r * (ROW_PX + GAP_PX) / total

    def inside(v: float) -> float:  # Plotly refuses a domain a rounding error outside [0, 1] (-5.6e-17)
        return min(max(round(v, 9), 0.0), 1.0)

    return [inside(x0), inside(x0 + width)], [inside(y1 - ROW_PX / total), inside(y1)]


def chosen_sentence(error: float | None, confidence: float) -> str:
    """What the most common value's stated error means (:attr:`dpcore.plan.Statistic.error_unit`: the chosen value's
    count's shortfall below the top count, :func:`dpcore.exponential.exponential_error_bound`), in words."""
    if error is None:
        return "no error bound"
    return f"the chosen value's count is within ±{error:,.3g} of the top count (at {confidence:.0%})"


def preview_figure(simulated: SimulatedPlan, trial: int = 0) -> go.Figure:
    """One panel per statistic: its simulated numbers (bars for counts, points otherwise) with ± its expected error,
    rounded as a publication is (:meth:`~dpcore.plan_release.SimulatedPlan.table`).

    The error bar of every number of a statistic is the plan's expected error at its confidence (from the plan
    alone); a quantile's error is in ranks, not in the values' unit, so it has none (its panel says so). The most
    common value is a category, not a number: its panel is a note (the chosen value and what its error bounds), with
    no axes and no bar.
    """
    a = simulated.allocation
    shares = a.shares
    n = len(shares)
    traces, notes, axes = [], [], {}
    confidence = f"{a.plan.confidence:.0%}"
    table = simulated.table(trial, rounded=True)  # the numbers as the preview's table shows them
    for i, share in enumerate(shares):
        stat = share.statistic
        suffix = "" if i == 0 else str(i + 1)
        xd, yd = _domains(i, n)
        labels = [str(v) for v in stat.labels]  # category labels stay text, even when they read as numbers
        err = share.expected_error
        title = {
            "text": charts.Bold(stat.name),
            "xref": "paper",
            "yref": "paper",
            "x": xd[0],
            "y": yd[1],
            "xanchor": "left",
            "yanchor": "bottom",
            "align": "left",
            "showarrow": False,
            "font": {"size": 13},
        }
        if stat.kind == "most_common":  # a declared category: a note in its panel, not a bar with an error bar
            (chosen,) = table.loc[table["statistic"] == stat.name, "simulated value"]
            axes[f"xaxis{suffix}"] = {"domain": xd, "anchor": f"y{suffix}", "visible": False}
            axes[f"yaxis{suffix}"] = {"domain": yd, "anchor": f"x{suffix}", "visible": False}
            notes.append(title)
            notes.append(
                {
                    "text": charts.Lines(charts.Bold(f"simulated: {chosen}"), chosen_sentence(err, a.plan.confidence)),
                    "xref": "paper",
                    "yref": "paper",
                    "x": (xd[0] + xd[1]) / 2,
                    "y": (yd[0] + yd[1]) / 2,
                    "xanchor": "center",
                    "yanchor": "middle",
                    "align": "center",
                    "showarrow": False,
                    "font": {"size": 14},
                }
            )
            continue
        y = table.loc[table["statistic"] == stat.name, "simulated value"].to_numpy(dtype=float)
        ranks = stat.kind == "quantile"
        bar = stat.kind in COUNTING_KINDS
        trace = {
            "type": "bar" if bar else "scatter",
            "x": labels,
            "y": y,
            "xaxis": f"x{suffix}",
            "yaxis": f"y{suffix}",
            "name": f"simulated value ± expected error at {confidence}",
            "legendgroup": "preview",
            "showlegend": not traces,  # the first drawn
            "marker": {"color": charts.NOISY, "size": 9} if not bar else {"color": charts.NOISY},
            "hovertemplate": charts.Hover(
                charts.Field("x"), ": ", charts.Field("y:,.4g"), *(() if ranks else (f" ± {err:,.3g}",)), extra=""
            ),
        }
        if bar is False:
            trace["mode"] = "markers"
        if err is not None and not ranks:
            trace["error_y"] = {
                "type": "data",
                "array": np.full(y.shape, float(err)),
                "color": "#1c2b6b",
                "thickness": 1.4,
                "width": 6,
            }
        traces.append(trace)
        axes[f"xaxis{suffix}"] = {
            "domain": xd,
            "anchor": f"y{suffix}",
            "type": "category",
            "automargin": True,
            "tickangle": -40 if len(labels) > 3 else 0,
        }
        axes[f"yaxis{suffix}"] = {"domain": yd, "anchor": f"x{suffix}", "exponentformat": "none", "automargin": True}
        if bar:
            axes[f"yaxis{suffix}"]["rangemode"] = "tozero"
        if ranks:
            said = f"± {err:,.3g} ranks" if err is not None else "no error bound without a resolution"
            title["text"] = charts.Lines(title["text"], f"({said}, not in the values' unit: no bar)")
        notes.append(title)
    first = {k: axes.pop(k) for k in ("xaxis", "yaxis")}
    return charts._figure(
        traces,
        f"{LABEL[0].upper()}{LABEL[1:]}: each number ± its expected error at {confidence}",
        "",
        "",
        height=_plot_px(n) + 190,
        xaxis=first["xaxis"],
        yaxis=first["yaxis"],
        annotations=notes,
        **axes,
    )


def preview(a: Allocation, from_data: str | None = None) -> None:
    """The preview section: a public file uploaded here, the plan drawn on it once (seeded, not private, nothing
    charged), shown as a table and a chart with error bars. ``from_data`` says a domain was read from the data (fine
    here, labelled; refused by Publish)."""
    with st.expander(f"Preview on a public file ({LABEL.split(', ', 1)[1]})", icon=":material/preview:"):
        st.caption(
            "A file you may show: a past release, a synthetic stand-in with the same columns. The plan is drawn "
            "on it once with seeded noise (reproducible from the seed, not private, nothing charged); the private "
            "data is not read before Publish. The error bars are the plan's expected errors, from the plan alone."
        )
        if from_data:
            st.caption(
                "Categories read from the data: the preview draws them as they are (not private); Publish refuses them."
            )
        upload = st.file_uploader("Public file (CSV)", type=["csv", "tsv", "txt"], key="pub_preview_file")
        if upload is None:
            return
        try:
            public = load_csv(upload.getvalue(), upload.name).frame
            check_columns(a, public)
            simulated = simulate_plan(a, public, state.rng("publish-preview"), 1)
        except (DatasetError, ValueError) as exc:
            st.info(f"No preview on {md(upload.name)}: {md(plain_sentence(exc))}")
            return
        table = simulated.table(0, rounded=True)
        values = table["simulated value"]
        if values.map(lambda v: isinstance(v, str)).any():  # the most common value is a category: one column of text
            table["simulated value"] = values.map(lambda v: v if isinstance(v, str) else f"{v:.12g}")
        st.dataframe(table, hide_index=True, key="pub_preview_table", height=38 + 35 * min(len(table), 20))
        st.plotly_chart(preview_figure(simulated), key="pub_preview_chart")
