"""The map's labels placed on the server: which names the map shows, and from which zoom,
so that no two overlap at any zoom, without deck.gl's collision filter (its extra render pass
and shaders held the browser for seconds before the map was drawn: benchmarks/results/mapdraw.md).

Labels are sized in the layout's own units (deck.gl's `sizeUnits: "common"`), each capped at
its size in pixels (`sizeMaxPixels`): a label placed at zoom z is drawn at its full size from
z in, and smaller, in proportion, farther out. Below its cap a label's box scales with the
zoom exactly like the distances between labels; past it the box stops growing while the
distances keep growing. So boxes apart in layout units stay apart at every zoom, out or in.

A greedy pass in layout units: at the first view's zoom, then one and two levels in (LEVELS),
the labels not yet kept in order of priority (the broad areas first, then the finer topics,
larger before smaller), each kept at its place, or a line above or below it, when its box at
that zoom touches no kept label's box; the rest left out. The names that do not fit in the
first view appear, growing, as the reader zooms in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

CHAR_EM = 0.62  # a character's width in ems, a bold sans-serif's wide average (generous)
LINE_EM = 1.25  # a label's height in ems
PADDING = (4, 2)  # pixels kept around the text at the label's own zoom (in layout units past it)
GAP = 2  # pixels kept free between two labels
SHIFTS = (0.0, -1.0, 1.0)  # where a label may go: its place, a line above, a line below
LEVELS = 2  # zoom levels in from the first view where names not fitting before may appear


def box_size(text: str, size: float) -> tuple[float, float]:
    """A label's box (width, height) in pixels: its text at `size` pixels with the padding."""
    return (len(text) * size * CHAR_EM + 2 * PADDING[0] + GAP,
            size * LINE_EM + 2 * PADDING[1] + GAP)


def world_box(label: Mapping[str, Any]) -> tuple[float, float]:
    """A placed label's box (width, height) in layout units: its pixel box at its "zoom"."""
    width, height = box_size(label["text"], label["size"])
    scale = 2.0 ** float(label["zoom"])
    return width / scale, height / scale


def overlap(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether the boxes of labels `a` and `b` (dicts of "x", "y", "text", "size" and
    "zoom") touch, in layout units (at every zoom, by the module's argument)."""
    (wa, ha), (wb, hb) = world_box(a), world_box(b)
    return abs(a["x"] - b["x"]) < (wa + wb) / 2 and abs(a["y"] - b["y"]) < (ha + hb) / 2


def place(labels: Sequence[Mapping[str, Any]], zoom: float,
          levels: int = LEVELS) -> list[dict[str, Any]]:
    """The labels (map_zoom's dicts) that the map shows without overlap, each with its
    "zoom" (the first view's `zoom`, or up to `levels` in: where it reaches its size) and
    its "y" moved by the line it was shifted (in layout units); the rest left out."""
    order = sorted(range(len(labels)), key=lambda n: (labels[n].get("level") != "area",
                                                      -float(labels[n].get("priority", 0)), n))
    order = [n for n in order if str(labels[n].get("text", "")).strip() and all(
        math.isfinite(float(labels[n][axis])) for axis in ("x", "y"))]
    kept: list[dict[str, Any]] = []
    for step in range(levels + 1):
        scale = 2.0 ** (zoom + step)
        for number in list(order):
            label = {**labels[number], "zoom": zoom + step}
            line = box_size(label["text"], label["size"])[1] / scale
            for shift in SHIFTS:
                moved = {**label, "y": float(label["y"]) + shift * line}
                if not any(overlap(moved, other) for other in kept):
                    kept.append(moved)
                    order.remove(number)
                    break
    return kept
