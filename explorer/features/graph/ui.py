"""A neighbourhood graph as a deck.gl chart (the same offline pydeck chart as the corpus map):
nodes sized by centrality, coloured by year (or by topic when the papers share one year), the
open paper ringed in red, links drawn by strength, citation links in their own colour.

Corpus text reaches the browser only as data: the tooltip is a `text` template (innerText) and
the node labels are glyphs on the canvas.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.corpus.papers import Paper
from explorer.features.graph.query import CITES, Neighbourhood
from explorer.features.topics.table import corpus_map
from explorer.features.topics.ui_map import TOOLTIP, CompactDeck, hover_text, point_colours, view_state
from explorer.query.engine import Explorer
from explorer.ui.text import plain

HEIGHT = 480
WIDTH_GUESS = 700
LABEL_CHARS = 30  # a node's label: its title's first words
LABEL_PX, LABEL_GAP, CHAR_PX = 12, 18, 6.5  # label size, its offset below the node, a glyph's width
NODES = "nodes"
YEAR_RAMP = ((68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37))
TOPIC_FALLBACK = [120, 120, 160, 230]
OPEN_RING = [214, 39, 40, 255]
INTRO = ("The open paper (red ring) and its nearest papers: a line joins each paper to the "
         "ones it is most alike, thicker where closer; bigger circles are more central. "
         "Click a paper to open it.")


def graph_chart(explorer: Explorer, graph: Neighbourhood) -> CompactDeck:
    """The deck of `graph` (each node's object: "i" paper id, "t" title, "m" venue, year,
    status, as on the map)."""
    papers = [explorer.paper(paper_id) for paper_id in graph.paper_ids]
    colours, _ = node_colours(explorer, papers)
    position = graph.positions
    nodes = [{"p": [round(float(x), 4), round(float(y), 4)], "c": colours[n],
              "r": round(7 + 11 * float(graph.centrality[n]), 1), "i": paper.paper_id,
              "t": hover_text(paper), "l": node_label(paper),
              "k": OPEN_RING if n == 0 else [255, 255, 255, 255], "o": 4 if n == 0 else 1}
             for n, (paper, (x, y)) in enumerate(zip(papers, position, strict=True))]
    lines = [{"s": nodes[link.source]["p"], "e": nodes[link.target]["p"],
              "w": 1 + 5 * max(link.weight - 0.3, 0) / 0.7 if link.kind != CITES else 2,
              "c": [230, 120, 20, 200] if link.kind == CITES else [90, 90, 90, 120]}
             for link in graph.links]
    view = view_state({"x": [-1.1, 1.1], "y": [-1.1, 1.1]}, WIDTH_GUESS, HEIGHT)
    layers = [
        {"@@type": "LineLayer", "id": "links", "data": lines, "getSourcePosition": "@@=s",
         "getTargetPosition": "@@=e", "getWidth": "@@=w", "getColor": "@@=c",
         "widthUnits": "pixels"},
        {"@@type": "ScatterplotLayer", "id": NODES, "data": nodes, "getPosition": "@@=p",
         "getFillColor": "@@=c", "getRadius": "@@=r", "radiusUnits": "pixels", "stroked": True,
         "getLineColor": "@@=k", "getLineWidth": "@@=o",
         "lineWidthUnits": "pixels", "pickable": True, "autoHighlight": True,
         "highlightColor": [0, 0, 0, 90]},
        {"@@type": "TextLayer", "id": "node-labels", "data": labelled(nodes, view["zoom"]),
         "getPosition": "@@=p", "getText": "@@=l", "getSize": LABEL_PX,
         "getPixelOffset": [0, LABEL_GAP], "fontFamily": "sans-serif", "characterSet": "auto",
         "getColor": [40, 40, 40, 255], "background": True,
         "getBackgroundColor": [255, 255, 255, 200], "pickable": False},
    ]
    spec = {"initialViewState": view,
            "mapProvider": None, "mapStyle": None,
            "views": [{"@@type": "OrthographicView", "controller": True}]}
    return CompactDeck(spec, layers, TOOLTIP)


def labelled(nodes: Sequence[dict], zoom: float) -> list[dict]:
    """The nodes whose labels are drawn: the open paper's, then the most central first, each
    kept when its box (below its node, at the first view's `zoom`) touches no box kept before.
    (deck.gl's collision filter hid every label of this chart; the rest have their tooltip.)"""
    scale = 2 ** zoom
    kept: list[tuple[float, float, float, float]] = []
    chosen = []
    for n in sorted(range(len(nodes)), key=lambda n: (n != 0, -nodes[n]["r"])):
        x, y = nodes[n]["p"][0] * scale, nodes[n]["p"][1] * scale + LABEL_GAP
        half = len(nodes[n]["l"]) * CHAR_PX / 2 + 3
        box = (x - half, y - LABEL_PX / 2 - 2, x + half, y + LABEL_PX / 2 + 2)
        if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
                   for b in kept):
            kept.append(box)
            chosen.append(nodes[n])
    return chosen


def node_colours(explorer: Explorer, papers: Sequence[Paper]) -> tuple[list[list[int]], str]:
    """Each node's RGBA and what the colours mean: by year when the papers span two or more
    years (dark the oldest, yellow the newest), else by topic (the map's colours)."""
    years = [paper.year for paper in papers]
    known = sorted({year for year in years if year is not None})
    if len(known) >= 2:
        low, high = known[0], known[-1]
        colours = [_ramp((year - low) / (high - low)) if year is not None else TOPIC_FALLBACK
                   for year in years]
        return colours, f"Colour: year, from dark ({low}) to yellow ({high})."
    stored = corpus_map(explorer)
    if stored is None:
        return [TOPIC_FALLBACK] * len(papers), ""
    palette, numbers = point_colours(stored, None)
    return ([palette[numbers[explorer.row(paper.paper_id)]] for paper in papers],
            "Colour: topic, as on the map.")


def node_label(paper: Paper, limit: int = LABEL_CHARS) -> str:
    """A node's label: its title's first words, at most `limit` characters (cut at a word,
    "…" when cut; a first word longer than that is cut inside)."""
    words = plain(paper.title).split(" ")
    label = words[0]
    for word in words[1:]:
        if len(label) + 1 + len(word) > limit - 1:
            return label + "…"
        label += " " + word
    return plain(label, limit)


def legend(explorer: Explorer, graph: Neighbourhood) -> str:
    """The caption under the graph: how to read it, and what the colours mean."""
    _, meaning = node_colours(explorer, [explorer.paper(p) for p in graph.paper_ids])
    cites = any(link.kind == CITES for link in graph.links)
    return " ".join(part for part in (INTRO, meaning,
                                      "Orange lines: one cites the other." if cites else "") if part)


def _ramp(share: float) -> list[int]:
    """A colour of YEAR_RAMP at `share` in [0, 1] (viridis-like), as RGBA."""
    at = float(np.clip(share, 0, 1)) * (len(YEAR_RAMP) - 1)
    low = int(at)
    high = min(low + 1, len(YEAR_RAMP) - 1)
    return [round(a + (b - a) * (at - low)) for a, b in zip(YEAR_RAMP[low], YEAR_RAMP[high],
                                                             strict=True)] + [235]

