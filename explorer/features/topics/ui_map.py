"""The corpus map as a deck.gl chart (pydeck): the stored 2-D layout, coloured by topic, labelled.

deck.gl is made for large point sets (one WebGL draw for every point) and Streamlit ships it in
its own frontend (`st.pydeck_chart`), so the map loads no script, font or tile from elsewhere:
`map_provider=None` (no base map), an `OrthographicView` (the layout's plane, not the globe),
labels in the browser's own sans-serif. Positions and topics come from the index (computed at
build time by explorer.features.topics.stage, read through features/topics/table.corpus_map); nothing is
computed here but the chart. Corpus text reaches the browser only as data: the tooltip is a
`text` template (deck.gl sets it with innerText) and labels are glyphs on the canvas.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pydeck as pdk

from explorer.corpus.papers import Paper
from explorer.features.topics.ui_labels import place
from explorer.ui.text import plain

MAX_POINTS = 100_000  # past this, an even sample (each point costs the message ~110 bytes)
HEIGHT = 640  # pixels; the width is the page's
WIDTH_GUESS = 1100  # the width the first view is fitted to (the page's is not known here)
TITLE_CHARS = 90
PALETTE = ("#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#FF9DA6",
           "#9D755D", "#BAB0AC", "#EECA3B", "#1F77B4", "#2CA02C", "#9467BD", "#8C564B")
FADED = [200, 200, 200, 90]  # points outside the zoomed topic
PAPERS, HITS, NEIGHBOURS, OPEN = "papers", "hits", "neighbours", "open"
TOOLTIP = {"text": "{t}", "style": {"fontSize": "13px", "maxWidth": "420px",
                                          "whiteSpace": "normal"}}


@dataclass(frozen=True)
class Focus:
    """What is drawn over the corpus: the open paper's row, its neighbours', the question's hits'
    (rows of `papers`), and `zoom_rows`: the zoomed topic's rows (the rest faded), if any."""

    open_row: int | None = None
    neighbour_rows: Sequence[int] = ()
    hit_rows: Sequence[int] = ()
    zoom_rows: Sequence[int] | None = None


class CompactDeck(pdk.Deck):
    """A Deck whose JSON is written compact, its big layers serialised once and kept (pydeck
    indents and sorts every key of every point: tens of MB and seconds for a 100k map);
    Streamlit sends `to_json()` as is. `layers`: each layer as a dict or as its JSON text."""

    def __init__(self, spec: Mapping[str, Any], layers: Sequence[Mapping[str, Any] | str],
                 tooltip: Mapping[str, Any]) -> None:
        super().__init__(map_provider=None, map_style=None, tooltip=dict(tooltip))
        texts = [layer if isinstance(layer, str) else _compact(layer) for layer in layers]
        self._spec = _compact({**spec, "layers": []})[:-3] + "[" + ",".join(texts) + "]}"

    def to_json(self) -> str:
        return self._spec


def map_chart(corpus_map: Mapping[str, Any], papers: Sequence[Paper], focus: Focus = Focus(),
              labels: Sequence[Mapping[str, Any]] = (),
              ranges: Mapping[str, Sequence[float]] | None = None,
              base: str | None = None) -> CompactDeck:
    """The deck of every paper (papers_layer, or `base`: its JSON text made before for the
    same zoom), the focus on top (each object's "i" its paper id), then `labels` (map_zoom's
    dicts: "x", "y", "text", "level", "size"; those that fit placed by ui_labels.place from
    the first view's zoom, some to appear as the reader zooms in). `ranges` the first view's
    {"x": [lo, hi], "y": [lo, hi]} (default: the whole map)."""
    x, y = np.asarray(corpus_map["x"], dtype=float), np.asarray(corpus_map["y"], dtype=float)
    layers: list[Mapping[str, Any] | str] = [
        base or papers_layer(corpus_map, papers, focus.zoom_rows)]
    marks = ((HITS, focus.hit_rows, 7, [20, 20, 20, 255], [255, 255, 255, 0]),
             (NEIGHBOURS, focus.neighbour_rows, 7, [80, 80, 80, 255], [255, 255, 255, 0]),
             (OPEN, [] if focus.open_row is None else [focus.open_row], 10, [255, 255, 255, 255],
              [214, 39, 40, 255]))
    for name, rows, radius, line, fill in marks:
        if len(rows):
            data = [{"p": _at(x, y, r), "i": papers[r].paper_id, "t": hover_text(papers[r])}
                    for r in map(int, rows)]
            layers.append({**_points(name, data, radius), "getFillColor": fill, "stroked": True,
                           "getLineColor": line, "getLineWidth": 2, "lineWidthUnits": "pixels"})
    box = ranges or {"x": [float(x.min()), float(x.max())], "y": [float(y.min()), float(y.max())]}
    view = view_state(box)
    layers.extend(label_layers(place(labels, view["zoom"])))
    spec = {"initialViewState": view, "mapProvider": None, "mapStyle": None,
            "views": [{"@@type": "OrthographicView", "controller": True}]}
    return CompactDeck(spec, layers, TOOLTIP)


def papers_layer(corpus_map: Mapping[str, Any], papers: Sequence[Paper],
                 zoom_rows: Sequence[int] | None = None, data_url: str | None = None) -> str:
    """The JSON text of the layer of every paper (an even sample past MAX_POINTS): its data
    inline (papers_data), or `data_url`, where the browser fetches that same JSON (past the
    websocket and the JSON converter, which walks every object of an inline layer). A click
    names a point by its place in the layer's data (picked_ids)."""
    shown = shown_rows(len(papers))
    layer = _points(PAPERS, [], 3 if len(shown) > 5000 else 5)
    layer.update(getFillColor="@@=c", opacity=0.8)
    if data_url is not None:
        return _compact({**layer, "data": data_url})
    text = _compact(layer)
    at = text.index('"data":[]') + len('"data":')
    return text[:at] + papers_data(corpus_map, papers, zoom_rows) + text[at + 2:]


def papers_data(corpus_map: Mapping[str, Any], papers: Sequence[Paper],
                zoom_rows: Sequence[int] | None = None) -> str:
    """The papers layer's data as JSON text, kept small: each point is its place "p", its
    colour "c" (RGB; point_colours') and its tooltip "t"."""
    x, y = np.asarray(corpus_map["x"], dtype=float), np.asarray(corpus_map["y"], dtype=float)
    palette, numbers = point_colours(corpus_map, zoom_rows)
    rgb = [colour[:3] for colour in palette]
    return _compact([{"p": _at(x, y, row), "c": rgb[numbers[row]], "t": hover_text(papers[row])}
                     for row in map(int, shown_rows(len(papers)))])


def view_state(box: Mapping[str, Sequence[float]], width: int = WIDTH_GUESS,
               height: int = HEIGHT) -> dict[str, Any]:
    """The orthographic view that shows `box` ({"x": [lo, hi], "y": [lo, hi]}) whole: its
    centre, and the zoom (log2 of pixels per unit) that fits it, with a margin; the reader
    may zoom out 3 levels from it and in 8."""
    (x0, x1), (y0, y1) = box["x"], box["y"]
    scale = min(width / max(x1 - x0, 1e-6), height / max(y1 - y0, 1e-6)) * 0.92
    zoom = round(math.log2(scale), 3)
    return {"target": [(x0 + x1) / 2, (y0 + y1) / 2, 0], "zoom": zoom,
            "minZoom": zoom - 3, "maxZoom": zoom + 8}


def point_colours(corpus_map: Mapping[str, Any], zoom_rows: Sequence[int] | None
                  ) -> tuple[list[list[int]], np.ndarray]:
    """The map's palette (RGBA: each topic a shade of its area's hue; the last FADED) and each
    paper's colour number (n,): its topic's, or the last outside `zoom_rows`."""
    areas = {int(a["id"]): a for a in corpus_map.get("areas") or ()}
    place = {int(t): n for a in areas.values() for n, t in enumerate(a["topics"])}
    palette, number_of = [], {}
    for number, info in enumerate(corpus_map["topics"]):
        area = areas.get(int(info.get("area", -1)))
        colour = PALETTE[number % len(PALETTE)] if area is None else _shade(
            PALETTE[area["id"] % len(PALETTE)], place.get(int(info["id"]), 0))
        number_of[info["id"]] = len(palette)
        palette.append([int(colour[i:i + 2], 16) for i in (1, 3, 5)] + [200])
    palette.append(FADED)
    numbers = np.array([number_of.get(t, len(palette) - 1) for t in corpus_map["topic"]])
    if zoom_rows is not None:
        inside = np.zeros(len(numbers), dtype=bool)
        inside[np.asarray(zoom_rows, dtype=np.int64)] = True
        numbers[~inside] = len(palette) - 1
    return palette, numbers


def label_layers(labels: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Plain text layers of labels placed on the server (ui_labels.place), one per pixel size:
    each label sized in layout units ("s": its size at its "zoom", the layer's
    `sizeUnits: "common"`), capped at its size in pixels; none overlaps at any zoom."""
    layers = []
    for size in sorted({lab["size"] for lab in labels}, reverse=True):
        rows = [{"p": [lab["x"], round(float(lab["y"]), 4)], "t": lab["text"],
                 "s": float(f"{lab['size'] / 2.0 ** float(lab['zoom']):.6g}"),
                 "c": [10, 10, 10, 255] if lab["level"] == "area" else [60, 60, 60, 255]}
                for lab in labels if lab["size"] == size]
        layers.append({
            "@@type": "TextLayer", "id": f"labels-{size}", "data": rows, "getPosition": "@@=p",
            "getText": "@@=t", "getSize": "@@=s", "getColor": "@@=c", "sizeUnits": "common",
            "sizeMaxPixels": size, "fontFamily": "sans-serif", "fontWeight": 600,
            "characterSet": "auto", "background": True,
            "getBackgroundColor": [255, 255, 255, 215], "backgroundPadding": [0, 0],
            "pickable": False})
    return layers


def shown_rows(count: int, limit: int = MAX_POINTS) -> np.ndarray:
    """Rows drawn on the map: all of them, or an even sample of `limit` for huge corpora."""
    if count <= limit:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, limit).astype(np.int64))


def picked_ids(selection: Mapping[str, Any] | None, papers: Sequence[Paper]) -> list[str]:
    """The paper ids of a chart's selection (Streamlit's {"indices": {layer: [i]}, "objects":
    {layer: [object]}}): the marks' objects name theirs ("i"), the papers layer's by their
    place in its data (shown_rows); the open paper's and the marks' first, without repeats."""
    selection = selection or {}
    objects, indices = selection.get("objects") or {}, selection.get("indices") or {}
    ids: list[str] = []
    for layer in (OPEN, HITS, NEIGHBOURS, *objects):
        for item in objects.get(layer) or ():
            paper_id = item.get("i") if isinstance(item, Mapping) else None
            if isinstance(paper_id, str) and paper_id not in ids:
                ids.append(paper_id)
    shown = shown_rows(len(papers))
    for index in indices.get(PAPERS) or ():
        if isinstance(index, int) and 0 <= index < len(shown):
            paper_id = papers[int(shown[index])].paper_id
            if paper_id not in ids:
                ids.append(paper_id)
    return ids


def hover_text(paper: Paper) -> str:
    """A point's tooltip: the title, then its venue, year and status (plain text: deck.gl
    sets it with innerText)."""
    meta = meta_line(paper)
    return plain(paper.title, TITLE_CHARS) + ("\n" + meta if meta else "")


def meta_line(paper: Paper) -> str:
    """A point's second tooltip line: venue, year, status (those it has)."""
    venue = plain(paper.venue or "", 60)
    year = str(paper.year or "")
    parts = [venue, "" if year and year in venue else year, plain(paper.status or "", 30)]
    return " · ".join(part for part in parts if part)


def caption(open_paper: bool, count: int, hits: bool = False) -> str:
    """What the map of `count` papers shows."""
    return ("Each dot is a paper, placed by meaning and coloured by topic. Scroll to zoom, drag "
            "to move, hover for the title, click to open it."
            + (" ● the open paper, ◯ its neighbours." if open_paper else "")
            + (" Black rings: your question's results." if hits else "")
            + (f" Drawn: an even sample of {MAX_POINTS:,} of {count:,} papers."
               if count > MAX_POINTS else ""))


def _points(name: str, data: list[dict], radius: float) -> dict:
    return {"@@type": "ScatterplotLayer", "id": name, "data": data, "getPosition": "@@=p",
            "getRadius": radius, "radiusUnits": "pixels", "pickable": True,
            "autoHighlight": True, "highlightColor": [0, 0, 0, 140]}


def _at(x: np.ndarray, y: np.ndarray, row: int) -> list[float]:
    return [round(float(x[row]), 2), round(float(y[row]), 2)]


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _shade(color: str, number: int) -> str:
    """The `number`-th shade of an area's `color` ("#rrggbb"): its topics told apart within
    the area's hue, alternately lighter and darker."""
    steps = (0.0, 0.35, -0.3, 0.6, -0.5, 0.2, -0.15, 0.75)
    step = steps[number % len(steps)]
    target = 255 if step > 0 else 0
    channels = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c + (target - c) * abs(step)):02x}" for c in channels)


def selection_note(picked: int, new: int, room: int) -> str:
    """What the map's selection holds (in "select" mode): `picked` papers, `new` of them not
    yet marked, `room` marks left before the link's limit."""
    if not picked:
        return "Click papers on the map to select them; a second click drops one."
    note = f"{picked:,} selected" + (f", {new:,} not yet marked" if new != picked else "") + "."
    if new > room:
        note += f" Only {room:,} more can be marked (a link holds at most that many)."
    return note
