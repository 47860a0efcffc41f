"""The map's labels placed on the server (features/topics/ui_labels.py) on the seeds index's real
topic names: at every zoom the app offers (the whole map, each area, each topic), no two labels
of the chart overlap at its first view's scale nor at closer ones, measured with the font the
browser draws them in (DejaVu Sans Bold, Debian's sans-serif), not with the placement's own
estimate; the chart cannot be zoomed out past that view; and the placement did work: the
candidate names of some zoom do overlap at its scale."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from explorer.features.topics.table import corpus_map, topic_table
from explorer.features.topics.ui import map_zoom, zoom_choices
from explorer.features.topics.ui_labels import PADDING, place
from explorer.features.topics.ui_map import map_chart
from explorer.query.engine import Explorer

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


def measured(text: str, size: float) -> tuple[float, float]:
    """The label's box in pixels as the browser draws it: the text's advance in the bold
    sans-serif at `size` pixels, one line high, with the layer's background padding."""
    from PIL import ImageFont

    if not FONT.is_file():
        pytest.skip(f"{FONT} is missing (Debian's fonts-dejavu-core)")
    width = ImageFont.truetype(str(FONT), round(size)).getlength(text)
    return width + 2 * PADDING[0], size + 2 * PADDING[1]


def clashes(rows: list[dict], scale: float) -> list[tuple[str, str]]:
    """The pairs of text-layer rows ("p", "t", "s", "o") whose measured boxes overlap at
    `scale` pixels per unit (boxes centred on their place plus their pixel offset)."""
    found = []
    for a, b in itertools.combinations(rows, 2):
        (wa, ha), (wb, hb) = measured(a["t"], a["s"]), measured(b["t"], b["s"])
        dx = abs(a["p"][0] - b["p"][0]) * scale + abs(a["o"][0] - b["o"][0])
        dy = abs((a["p"][1] - b["p"][1]) * scale + a["o"][1] - b["o"][1])
        if dx < (wa + wb) / 2 and dy < (ha + hb) / 2:
            found.append((a["t"], b["t"]))
    return found


def chart_labels(explorer: Explorer, zoom: str | None) -> tuple[list[dict], dict, list[dict]]:
    """The chart's label rows, its first view, and map_zoom's candidate labels for `zoom`."""
    table, stored = topic_table(explorer), corpus_map(explorer)
    candidates, ranges = map_zoom(stored, table, zoom)
    spec = json.loads(map_chart(stored, explorer.papers, labels=candidates, ranges=ranges).to_json())
    rows = [row for layer in spec["layers"] if layer["id"] == "labels" for row in layer["data"]]
    return rows, spec["initialViewState"], candidates


def test_no_two_labels_overlap_at_any_zoom_of_the_map(seeds_explorer: Explorer):
    table = topic_table(seeds_explorer)
    names = {topic.name for topic in table.topics()}
    crowded = 0
    for zoom in zoom_choices(table):
        rows, view, candidates = chart_labels(seeds_explorer, zoom)
        assert rows, zoom
        assert {row["t"] for row in rows} <= names  # real names, whole
        assert view["minZoom"] == view["zoom"]  # never zoomed out past the placed scale
        for closer in (0, 1, 3):
            assert clashes(rows, 2.0 ** (view["zoom"] + closer)) == [], (zoom, closer)
        raw = [{"p": [c["x"], c["y"]], "t": c["text"], "s": c["size"], "o": [0, 0]}
               for c in candidates]
        crowded += bool(clashes(raw, 2.0 ** view["zoom"]))
    assert crowded  # some zoom's candidates overlap unplaced: the placement left names out


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
