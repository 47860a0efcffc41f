"""The corpus map as a Plotly figure: the stored 2-D layout, coloured by topic, labelled.

Positions and topics come from the index (computed at build time by explorer.build.maps); nothing is
computed here but the figure. Hover text is HTML-escaped: Plotly reads a few tags in labels.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer.query.engine import Explorer
from explorer.ui.text import plain

WEBGL_ABOVE = 5000  # SVG draws one element per point; past this, WebGL
MAX_POINTS = 20000  # past this, an even sample (the browser would get tens of MB per view)
PALETTE = ("#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#FF9DA6",
           "#9D755D", "#BAB0AC", "#EECA3B", "#1F77B4", "#2CA02C", "#9467BD", "#8C564B")


def map_data(explorer: Explorer) -> dict | None:
    """The stored map of this index, or None when the index has none."""
    data = explorer.artifacts.extras.get("map")
    if not data or len(data.get("x", [])) != len(explorer.papers):
        return None
    return data


def map_figure(explorer: Explorer, open_id: str | None = None,
               neighbour_ids: Sequence[str] = ()) -> go.Figure | None:
    """Scatter of every paper (customdata = paper id); the open paper and neighbours on top."""
    data = map_data(explorer)
    if data is None:
        return None
    x, y = np.asarray(data["x"]), np.asarray(data["y"])
    topic = np.asarray(data["topic"])
    shown = shown_rows(len(explorer.papers))
    scatter = go.Scattergl if len(shown) > WEBGL_ABOVE else go.Scatter
    figure = go.Figure()
    for number, info in enumerate(data["topics"]):
        rows = shown[topic[shown] == info["id"]]
        figure.add_trace(scatter(
            x=x[rows], y=y[rows], mode="markers", customdata=_ids(explorer, rows),
            hovertext=_titles(explorer, rows), hoverinfo="text",
            name=html.escape(plain(info["label"], 40)),
            marker={"size": 7 if len(shown) < 2000 else 4, "opacity": 0.75,
                    "color": PALETTE[number % len(PALETTE)]}))
    _add_focus(figure, explorer, x, y, open_id, neighbour_ids)
    _add_topic_labels(figure, data, x, y, topic)
    figure.update_layout(
        height=620, margin={"l": 0, "r": 0, "t": 10, "b": 0}, dragmode="pan",
        legend={"orientation": "h", "yanchor": "top", "y": -0.02, "x": 0,
                "itemsizing": "constant", "font": {"size": 11}},
        xaxis={"visible": False}, yaxis={"visible": False}, hovermode="closest",
        clickmode="event+select")
    return figure


def shown_rows(count: int, limit: int = MAX_POINTS) -> np.ndarray:
    """Rows drawn on the map: all of them, or an even sample of `limit` for big corpora."""
    if count <= limit:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, limit).astype(np.int64))


def _ids(explorer: Explorer, rows: np.ndarray) -> list[str]:
    return [explorer.papers[row].paper_id for row in rows]


def _titles(explorer: Explorer, rows: np.ndarray) -> list[str]:
    """Hover labels: Plotly reads <b>, <a href> etc. in text, so corpus text is escaped."""
    return [html.escape(plain(explorer.papers[row].title, 90)) for row in rows]


def _add_focus(figure: go.Figure, explorer: Explorer, x: np.ndarray, y: np.ndarray,
               open_id: str | None, neighbour_ids: Sequence[str]) -> None:
    marks = [("neighbours", [explorer.row(pid) for pid in neighbour_ids], 13, "circle-open",
              "#222"), ("open paper", [explorer.row(open_id)] if open_id else [], 20, "star",
                        "#d62728")]
    for name, rows, size, symbol, color in marks:
        if not rows:
            continue
        figure.add_trace(go.Scatter(
            x=x[rows], y=y[rows], mode="markers", name=name,
            customdata=_ids(explorer, rows), hovertext=_titles(explorer, rows), hoverinfo="text",
            marker={"size": size, "symbol": symbol, "color": color,
                    "line": {"width": 2, "color": color}}))


def _add_topic_labels(figure: go.Figure, data: dict, x: np.ndarray, y: np.ndarray,
                      topic: np.ndarray) -> None:
    """One label per topic at its median point (set at once: add_annotation is quadratic)."""
    labels = []
    for info in data["topics"]:
        rows = topic == info["id"]
        if not rows.any():
            continue
        labels.append({
            "x": float(np.median(x[rows])), "y": float(np.median(y[rows])), "showarrow": False,
            "text": "<b>" + html.escape(", ".join(info["terms"][:3]) or info["label"]) + "</b>",
            "font": {"size": 12, "color": "#333"}, "bgcolor": "rgba(255,255,255,0.7)",
            "opacity": 0.9})
    figure.update_layout(annotations=labels)
