"""The corpus map as a Plotly figure: the stored 2-D layout, coloured by topic, labelled.

Positions and topics come from the index (computed at build time by explorer.features.topics.stage, read
through Explorer.corpus_map); nothing is computed here but the figure. Hover text is
HTML-escaped: Plotly reads a few tags in labels.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from explorer.corpus.papers import Paper
from explorer.ui.text import plain

WEBGL_ABOVE = 5000  # SVG draws one element per point; past this, WebGL
MAX_POINTS = 20000  # past this, an even sample (the browser would get tens of MB per view)
PALETTE = ("#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#FF9DA6",
           "#9D755D", "#BAB0AC", "#EECA3B", "#1F77B4", "#2CA02C", "#9467BD", "#8C564B")


def map_figure(corpus_map: Mapping[str, Any], papers: Sequence[Paper], open_row: int | None = None,
               neighbour_rows: Sequence[int] = (), labels: Sequence[Mapping] | None = None,
               ranges: Mapping[str, Sequence[float]] | None = None) -> go.Figure:
    """Scatter of every paper (customdata = paper id); the open paper and neighbours on top.

    `corpus_map` as Explorer.corpus_map (one x, y, topic per paper of `papers`); the rows are
    positions in `papers`. Topics are coloured by their broad area when the map has areas.
    `labels`: the annotations to show (features/topics/ui.py map_zoom; default one per topic), `ranges`
    the axes' {"x": [lo, hi], "y": [lo, hi]} (default: the whole map)."""
    x, y = np.asarray(corpus_map["x"]), np.asarray(corpus_map["y"])
    topic = np.asarray(corpus_map["topic"])
    shown = shown_rows(len(papers))
    scatter = go.Scattergl if len(shown) > WEBGL_ABOVE else go.Scatter
    figure = go.Figure()
    areas = {int(a["id"]): a for a in corpus_map.get("areas") or ()}
    place = {int(t): n for a in areas.values() for n, t in enumerate(a["topics"])}
    for number, info in enumerate(corpus_map["topics"]):
        rows = shown[topic[shown] == info["id"]]
        area = areas.get(int(info.get("area", -1)))
        group = {} if area is None else {
            "legendgroup": str(area["id"]),
            "legendgrouptitle": {"text": html.escape(plain(area["label"], 50))}}
        figure.add_trace(scatter(
            x=x[rows], y=y[rows], mode="markers", customdata=_ids(papers, rows),
            hovertext=_titles(papers, rows), hoverinfo="text",
            name=html.escape(plain(info["label"], 40)), **group,
            marker={"size": 7 if len(shown) < 2000 else 4, "opacity": 0.75,
                    "color": PALETTE[number % len(PALETTE)] if area is None else _shade(
                        PALETTE[area["id"] % len(PALETTE)], place.get(int(info["id"]), 0))}))
    _add_focus(figure, papers, x, y, open_row, neighbour_rows)
    if labels is None:
        _add_topic_labels(figure, corpus_map, x, y, topic)
    else:
        figure.update_layout(annotations=list(labels))
    if ranges is not None:
        figure.update_xaxes(range=list(ranges["x"]))
        figure.update_yaxes(range=list(ranges["y"]))
    figure.update_layout(
        height=620, margin={"l": 0, "r": 0, "t": 10, "b": 0}, dragmode="pan",
        legend={"orientation": "h", "yanchor": "top", "y": -0.02, "x": 0,
                "itemsizing": "constant", "font": {"size": 11}},
        xaxis={"visible": False}, yaxis={"visible": False}, hovermode="closest",
        clickmode="event+select")
    return figure


def _shade(color: str, number: int) -> str:
    """The `number`-th shade of an area's `color` ("#rrggbb"): its topics told apart within
    the area's hue, alternately lighter and darker."""
    steps = (0.0, 0.35, -0.3, 0.6, -0.5, 0.2, -0.15, 0.75)
    step = steps[number % len(steps)]
    target = 255 if step > 0 else 0
    channels = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c + (target - c) * abs(step)):02x}" for c in channels)


def caption(open_paper: bool, count: int) -> str:
    """What the map of `count` papers shows (`open_paper`: with one paper and its neighbours)."""
    return ("Each dot is a paper, placed by meaning and coloured by topic. Hover for the title, "
            "click to open it." + (" ★ the open paper, ◯ its neighbours." if open_paper else "")
            + (f" Drawn: an even sample of {MAX_POINTS:,} of {count:,} papers."
               if count > MAX_POINTS else ""))


def clicked_paper_id(points: Sequence[Mapping[str, Any]]) -> str | None:
    """The paper id of the first point a click selected (Plotly's selection), if any."""
    if not points:
        return None
    paper_id = points[0].get("customdata")
    return str(paper_id[0] if isinstance(paper_id, list) else paper_id)


def shown_rows(count: int, limit: int = MAX_POINTS) -> np.ndarray:
    """Rows drawn on the map: all of them, or an even sample of `limit` for big corpora."""
    if count <= limit:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, limit).astype(np.int64))


def _ids(papers: Sequence[Paper], rows: Sequence[int]) -> list[str]:
    return [papers[row].paper_id for row in rows]


def _titles(papers: Sequence[Paper], rows: Sequence[int]) -> list[str]:
    """Hover labels: Plotly reads <b>, <a href> etc. in text, so corpus text is escaped."""
    return [html.escape(plain(papers[row].title, 90)) for row in rows]


def _add_focus(figure: go.Figure, papers: Sequence[Paper], x: np.ndarray, y: np.ndarray,
               open_row: int | None, neighbour_rows: Sequence[int]) -> None:
    marks = [("neighbours", list(neighbour_rows), 13, "circle-open", "#222"),
             ("open paper", [] if open_row is None else [open_row], 20, "star", "#d62728")]
    for name, rows, size, symbol, color in marks:
        if not rows:
            continue
        figure.add_trace(go.Scatter(
            x=x[rows], y=y[rows], mode="markers", name=name,
            customdata=_ids(papers, rows), hovertext=_titles(papers, rows), hoverinfo="text",
            marker={"size": size, "symbol": symbol, "color": color,
                    "line": {"width": 2, "color": color}}))


def _add_topic_labels(figure: go.Figure, corpus_map: Mapping[str, Any], x: np.ndarray, y: np.ndarray,
                      topic: np.ndarray) -> None:
    """One label per topic at its median point (set at once: add_annotation is quadratic)."""
    labels = []
    for info in corpus_map["topics"]:
        rows = topic == info["id"]
        if not rows.any():
            continue
        name = info["label"] if "area" in info else ", ".join(info["terms"][:3]) or info["label"]
        labels.append({
            "x": float(np.median(x[rows])), "y": float(np.median(y[rows])), "showarrow": False,
            "text": "<b>" + html.escape(plain(name, 60)) + "</b>",
            "font": {"size": 12, "color": "#333"}, "bgcolor": "rgba(255,255,255,0.7)",
            "opacity": 0.9})
    figure.update_layout(annotations=labels)
