"""Selecting papers on the map by box or lasso, to mark them "more like this".

Streamlit 1.67's `st.pydeck_chart` selects deck.gl objects by click only ("single-object",
"multi-object": one click a paper; deck.gl has no box or lasso of its own), while
`st.plotly_chart(on_select="rerun", selection_mode=("box", "lasso"))` returns the points a box
or a lasso holds. So the map's box-and-lasso mode is a Plotly WebGL scatter of the same
coordinates and colours, drawn by the plotly.js that Streamlit ships (nothing loaded from
elsewhere): the zoomed topic's papers, else an even sample of SELECT_POINTS of the corpus.

Corpus text reaches Plotly only escaped (`html.escape`): Plotly reads a few tags in hover
text ("<a href>", "<b>"), never a paper's.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from explorer.corpus.papers import Paper
from explorer.features.topics.ui_map import hover_text, point_colours, shown_rows

SELECT_POINTS = 20_000  # points the box-and-lasso chart draws at most (Plotly's WebGL scatter)
HEIGHT = 640
LASSO_NOTE = ("Drag a lasso around papers to select them (the box tool is in the chart's "
              "toolbar; shift adds to a selection, a double click clears it).")


def lasso_rows(count: int, zoom_rows: Sequence[int] | None) -> np.ndarray:
    """The rows (k,) the chart draws: the zoomed topic's (`zoom_rows`), else all of `count`
    papers up to SELECT_POINTS (an even sample past it)."""
    if zoom_rows is not None and len(zoom_rows):
        rows = np.asarray(sorted(set(map(int, zoom_rows))), dtype=np.int64)
        return rows[shown_rows(len(rows), SELECT_POINTS)]
    return shown_rows(count, SELECT_POINTS)


def lasso_figure(corpus_map: Mapping[str, Any], papers: Sequence[Paper], rows: np.ndarray
                 ) -> dict:
    """A Plotly figure (as a dict) of `rows` in the map's colours, lasso on drag; each point's
    customdata its row."""
    palette, numbers = point_colours(corpus_map, None)
    x, y = np.asarray(corpus_map["x"], dtype=float), np.asarray(corpus_map["y"], dtype=float)
    colours = [f"rgba({c[0]},{c[1]},{c[2]},0.8)" for c in palette]
    trace = {"type": "scattergl", "mode": "markers", "x": x[rows].round(3).tolist(),
             "y": y[rows].round(3).tolist(), "customdata": rows.tolist(),
             "marker": {"size": 5, "color": [colours[int(numbers[r])] for r in rows]},
             "hovertext": [hover(papers[int(r)]) for r in rows], "hoverinfo": "text"}
    axis = {"visible": False, "showgrid": False, "zeroline": False}
    layout = {"dragmode": "lasso", "height": HEIGHT, "showlegend": False, "hovermode": "closest",
              "margin": {"l": 0, "r": 0, "t": 0, "b": 0}, "xaxis": axis,
              "yaxis": {**axis, "scaleanchor": "x"}, "plot_bgcolor": "white"}
    return {"data": [trace], "layout": layout}


def hover(paper: Paper) -> str:
    """A point's hover text: the map's tooltip (title; venue, year, status), escaped for
    Plotly, its lines joined by <br>."""
    return "<br>".join(html.escape(line) for line in hover_text(paper).split("\n"))


def lassoed_ids(selection: Mapping[str, Any] | None, papers: Sequence[Paper],
                rows: np.ndarray) -> list[str]:
    """The paper ids of a Plotly selection (Streamlit's {"points": [{"customdata": row,
    "point_index": i, ...}]}): each point's row (its customdata, else its place in `rows`),
    in the selection's order, once each; anything else left out."""
    ids: dict[str, None] = {}  # ordered, each id once in constant time (a lasso of 20,000)
    for point in (selection or {}).get("points") or ():
        if not isinstance(point, Mapping):
            continue
        row = point.get("customdata")
        if isinstance(row, list) and row:
            row = row[0]
        if not isinstance(row, int):
            index = point.get("point_index")
            row = int(rows[index]) if isinstance(index, int) and 0 <= index < len(rows) else None
        if isinstance(row, int) and 0 <= row < len(papers):
            ids.setdefault(papers[row].paper_id)
    return list(ids)
