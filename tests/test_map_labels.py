"""The map's labels placed on the server (features/topics/ui_labels.py) on the seeds index's real
topic names: at every zoom the app offers (the whole map, each area, each topic), no two labels
of the chart overlap at its first view's scale, farther out, or closer in (labels are sized in
layout units and capped in pixels: deck.gl's `sizeUnits: "common"` and `sizeMaxPixels`),
measured with the font the browser draws them in (DejaVu Sans Bold, Debian's sans-serif), not
with the placement's own estimate; names that do not fit in the first view reach their size
farther in; and the placement did work: the candidate names of some zoom do overlap."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from explorer.features.topics.table import corpus_map, topic_table
from explorer.features.topics.ui import map_zoom, zoom_choices
from explorer.features.topics.ui_labels import LEVELS, place
from explorer.features.topics.ui_map import map_chart
from explorer.query.engine import Explorer

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


def measured(text: str, size: float) -> tuple[float, float]:
    """The label's box in pixels as the browser draws it: the text's advance in the bold
    sans-serif at `size` pixels (measured at 100 and scaled), one line high."""
    from PIL import ImageFont

    if not FONT.is_file():
        pytest.skip(f"{FONT} is missing (Debian's fonts-dejavu-core)")
    return ImageFont.truetype(str(FONT), 100).getlength(text) * size / 100, size


def drawn(row: dict, cap: float, scale: float) -> float:
    """A text-layer row's size in pixels at `scale` pixels per unit: its size in layout
    units ("s") times the scale, capped at the layer's sizeMaxPixels."""
    return min(row["s"] * scale, cap)


def clashes(rows: list[dict], scale: float) -> list[tuple[str, str]]:
    """The pairs of text-layer rows ("p", "t", "s", and the layer's cap "m") whose measured
    boxes overlap at `scale` pixels per unit (boxes centred on their place)."""
    found = []
    for a, b in itertools.combinations(rows, 2):
        (wa, ha) = measured(a["t"], drawn(a, a["m"], scale))
        (wb, hb) = measured(b["t"], drawn(b, b["m"], scale))
        dx, dy = (abs(a["p"][axis] - b["p"][axis]) * scale for axis in (0, 1))
        if dx < (wa + wb) / 2 and dy < (ha + hb) / 2:
            found.append((a["t"], b["t"]))
    return found


def rows_of(kept: list[dict]) -> list[dict]:
    """ui_labels.place's labels as the chart's rows: sized in layout units, capped."""
    return [{"p": [k["x"], k["y"]], "t": k["text"], "s": k["size"] / 2.0 ** k["zoom"],
             "m": k["size"]} for k in kept]


def chart_labels(explorer: Explorer, zoom: str | None) -> tuple[list[dict], dict, list[dict]]:
    """The chart's label rows (each with its layer's cap "m"), its first view, and map_zoom's
    candidate labels for `zoom`."""
    table, stored = topic_table(explorer), corpus_map(explorer)
    candidates, ranges = map_zoom(stored, table, zoom)
    spec = json.loads(map_chart(stored, explorer.papers, labels=candidates, ranges=ranges).to_json())
    rows = [{**row, "m": layer["sizeMaxPixels"]} for layer in spec["layers"]
            if layer["id"].startswith("labels") for row in layer["data"]]
    assert all(layer["sizeUnits"] == "common" for layer in spec["layers"]
               if layer["id"].startswith("labels"))
    return rows, spec["initialViewState"], candidates


def test_no_two_labels_overlap_at_any_zoom_of_the_map(seeds_explorer: Explorer):
    table = topic_table(seeds_explorer)
    names = {topic.name for topic in table.topics()}
    crowded = 0
    for zoom in zoom_choices(table):
        rows, view, candidates = chart_labels(seeds_explorer, zoom)
        assert rows, zoom
        assert {row["t"] for row in rows} <= names  # real names, whole
        assert view["minZoom"] < view["zoom"]  # the reader may zoom out again
        for step in (-2, 0, 0.5, 1, 2, 3, 6):
            assert clashes(rows, 2.0 ** (view["zoom"] + step)) == [], (zoom, step)
        raw = [{"p": [c["x"], c["y"]], "t": c["text"], "s": c["size"] / 2.0 ** view["zoom"],
                "m": c["size"]} for c in candidates]
        crowded += bool(clashes(raw, 2.0 ** view["zoom"]))
    assert crowded  # some zoom's candidates overlap unplaced: the placement moved or left names out


def test_names_that_miss_the_first_view_appear_zoomed_in(seeds_explorer: Explorer):
    """The whole map's names placed for a view two levels out (crowded): with no level
    farther in fewer are kept than with LEVELS; the others are not lost, they reach their
    size one or two levels in; and the boxes, measured, stay apart at each level's scale."""
    _, view, candidates = chart_labels(seeds_explorer, None)
    zoom = view["zoom"] - 2
    first, all_levels = place(candidates, zoom, levels=0), place(candidates, zoom)
    assert len(first) < len(all_levels) <= len(candidates)
    assert {k["zoom"] for k in all_levels} - {zoom}  # some placed farther in
    for step in range(-1, LEVELS + 2):
        scale = 2.0 ** (zoom + step)
        assert clashes(rows_of(all_levels), scale) == [], step


def test_the_broad_areas_come_first_zoomed_out(seeds_explorer: Explorer):
    """Zoomed out, the largest area's name is always shown, and no finer topic's name is kept
    where an area's would have gone."""
    table = topic_table(seeds_explorer)
    rows, view, candidates = chart_labels(seeds_explorer, None)
    largest = max(table.topics("area"), key=lambda topic: topic.size)
    assert largest.name in {row["t"] for row in rows}
    kept = place(candidates, view["zoom"])
    areas = [label for label in candidates if label["level"] == "area"]
    for area in areas:
        if area["text"] not in {label["text"] for label in kept}:  # left out: an area was in its way
            assert any(other["level"] == "area" for other in kept), area


@pytest.mark.parametrize("farther", [2, 4])
def test_crowded_names_are_left_out_not_drawn_over(seeds_explorer: Explorer, farther: int):
    """The same real names placed for a view `farther` levels out than the whole map's, where
    most of them crowd together: the kept ones stay apart (measured) at that zoom and every
    other, the rest are left out."""
    _rows, view, candidates = chart_labels(seeds_explorer, None)
    zoom = view["zoom"] - farther
    kept = place(candidates, zoom, levels=0)
    assert 0 < len(kept) < len(candidates)
    for step in (-1, 0, 1, 4):
        assert clashes(rows_of(kept), 2.0 ** (zoom + step)) == []


def test_names_in_a_row_are_kept_apart_by_their_width(seeds_explorer: Explorer):
    """Every real name of the index on one line, 60 units apart (wider names than that at
    one pixel per unit): the kept ones do not overlap as the browser's font draws them at any
    zoom, so the width the placement gives a name is at least its drawn width."""
    names = sorted({topic.name for topic in topic_table(seeds_explorer).topics()}, key=len)
    labels = [{"x": 60.0 * n, "y": 0.0, "text": name, "size": 13, "level": "topic",
               "priority": 0} for n, name in enumerate(names)]
    kept = place(labels, 0.0)  # one pixel per unit, then two and four
    assert len(kept) > 1
    for step in (-1, 0, 1, 2, 5):
        assert clashes(rows_of(kept), 2.0 ** step) == [], step
