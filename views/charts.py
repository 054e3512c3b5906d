"""Plotly charts of the Compare and Evaluation pages: stage latencies, metrics per mode, distributions, judge wins.

Only numbers and our own names (modes, metrics, criteria) go into these figures; no document text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go

STAGE_COLOURS = ["#8c959f", "#1f6feb", "#1a7f37", "#bf8700"]
MODE_COLOURS = {"plain": "#8c959f", "hierarchical": "#1a7f37", "contextual": "#1f6feb", "hybrid": "#bf8700"}
RETRIEVAL_METRICS = ("recall", "hit_recall", "attribution", "grounded", "mrr")


def latency_chart(stages: list[tuple[str, float]], x_max: float) -> go.Figure:
    """Horizontal bars of stage latencies in ms, on a shared axis so two columns compare at a glance."""
    names, values = [n for n, _ in stages], [v for _, v in stages]
    fig = go.Figure(go.Bar(x=values, y=names, orientation="h", text=[f"{v:.1f} ms" for v in values],
                           textposition="auto", marker_color=STAGE_COLOURS[: len(stages)]))  # fmt: skip
    fig.update_layout(height=180, margin={"l": 0, "r": 10, "t": 24, "b": 0},
                      title="Latency per stage (ms; embedding and search are shared)",
                      xaxis={"range": [0, x_max * 1.05 or 1]}, yaxis={"autorange": "reversed"}, showlegend=False)
    return fig


def metric_bars(modes: Sequence[str], aggregates: Mapping[str, Mapping[str, float | None]]) -> go.Figure:
    """The retrieval metrics (0–1) of each mode, grouped by metric."""
    fig = go.Figure()
    for mode in modes:
        agg = aggregates.get(mode) or {}
        values = [agg.get(m) for m in RETRIEVAL_METRICS]
        fig.add_bar(name=mode, x=list(RETRIEVAL_METRICS), y=values, marker_color=MODE_COLOURS.get(mode), text=values,
                    texttemplate="%{y:.2f}", textposition="outside")  # fmt: skip
    fig.update_layout(barmode="group", title="Recall and attribution per mode", yaxis={"range": [0, 1.1]},
                      height=380, margin={"t": 40, "b": 10}, legend={"orientation": "h"})
    return fig


def distribution(frame: pd.DataFrame, modes: Sequence[str], column: str, title: str, unit: str) -> go.Figure:
    """One box per mode of ``column`` over the questions (``frame`` has a ``mode`` column), mean marked."""
    fig = go.Figure()
    for mode in modes:
        values = frame.loc[frame["mode"] == mode, column]
        fig.add_box(y=values, name=mode, marker_color=MODE_COLOURS.get(mode), boxmean=True)
    fig.update_layout(title=title, yaxis_title=unit, height=340, margin={"t": 40, "b": 10}, showlegend=False)
    return fig


def judge_win_rates(judge: Mapping[str, Any], criteria: Sequence[str]) -> go.Figure:
    """Win rate of the second mode over the first per criterion, with the 95% interval, and the 0.5 line."""
    fig = go.Figure()
    for pair in judge["pairs"]:
        rates = sorted((w for w in judge["win_rates"] if [w["mode_a"], w["mode_b"]] == pair),
                       key=lambda w: criteria.index(w["criterion"]))  # fmt: skip
        y = [w["win_rate"] if w["win_rate"] is not None else 0 for w in rates]
        fig.add_bar(name=f"{pair[1]} vs {pair[0]}", x=[w["criterion"] for w in rates], y=y,
                    marker_color=MODE_COLOURS.get(pair[1]),
                    error_y={"type": "data", "symmetric": False,
                             "array": [w["ci_high"] - v for w, v in zip(rates, y, strict=True)],
                             "arrayminus": [v - w["ci_low"] for w, v in zip(rates, y, strict=True)]})  # fmt: skip
    fig.add_hline(y=0.5, line_dash="dot", line_color="#57606a")
    fig.update_layout(barmode="group", yaxis={"range": [0, 1]}, height=360, margin={"t": 20, "b": 10},
                      legend={"orientation": "h"})
    return fig
