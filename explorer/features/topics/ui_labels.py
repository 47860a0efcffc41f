"""The map's labels placed on the server: which names the first view shows, so that no two
overlap, without deck.gl's collision filter (its extra render pass and shaders held the
browser for seconds before the map was drawn: benchmarks/results/mapdraw.md).

A greedy pass in screen pixels at the view's scale (2**zoom pixels per unit of the layout):
labels in order of priority (the broad areas first, then the finer topics, larger before
smaller), each kept at its place, or a line above or below it, when its box touches no kept
label's box, else left out. Boxes are centred on their anchor and sized in pixels, so labels
apart at one scale stay apart at every closer one (the gaps grow with the zoom, the boxes do
not): the chart lets the reader zoom in from the first view, not out past it (ui_map.view_state).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

CHAR_EM = 0.62  # a character's width in ems, a bold sans-serif's wide average (generous)
LINE_EM = 1.25  # a label's height in ems
PADDING = (4, 2)  # pixels around the text (the text layer's background padding)
GAP = 2  # pixels kept free between two labels
SHIFTS = (0.0, -1.0, 1.0)  # where a label may go: its place, a line above, a line below


def box_size(text: str, size: float) -> tuple[float, float]:
    """A label's box (width, height) in pixels: its text at `size` pixels with the padding."""
    return (len(text) * size * CHAR_EM + 2 * PADDING[0] + GAP,
            size * LINE_EM + 2 * PADDING[1] + GAP)


def overlap(a: Mapping[str, Any], b: Mapping[str, Any], scale: float) -> bool:
    """Whether the boxes of labels `a` and `b` (dicts of "x", "y", "text", "size" and the
    pixel shift "dy") touch at `scale` pixels per unit."""
    (wa, ha), (wb, hb) = box_size(a["text"], a["size"]), box_size(b["text"], b["size"])
    dx = abs(a["x"] - b["x"]) * scale
    dy = abs((a["y"] - b["y"]) * scale + a.get("dy", 0.0) - b.get("dy", 0.0))
    return dx < (wa + wb) / 2 and dy < (ha + hb) / 2


def place(labels: Sequence[Mapping[str, Any]], zoom: float) -> list[dict[str, Any]]:
    """The labels (map_zoom's dicts) that the view at `zoom` shows without overlap, each with
    its pixel shift "dy" (0, or a line up or down); the rest left out."""
    scale = 2.0 ** zoom
    order = sorted(range(len(labels)), key=lambda n: (labels[n].get("level") != "area",
                                                      -float(labels[n].get("priority", 0)), n))
    kept: list[dict[str, Any]] = []
    for number in order:
        label = labels[number]
        if not str(label.get("text", "")).strip() or not all(
                math.isfinite(float(label[axis])) for axis in ("x", "y")):
            continue
        line = box_size(label["text"], label["size"])[1]
        for shift in SHIFTS:
            moved = {**label, "dy": shift * line}
            if not any(overlap(moved, other, scale) for other in kept):
                kept.append(moved)
                break
    return kept
