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


@pytest.mark.parametrize("farther", [2, 4])
def test_crowded_names_are_left_out_not_drawn_over(seeds_explorer: Explorer, farther: int):
    """The same real names placed for a view `farther` levels out than the whole map's, where
    most of them crowd together: the kept ones stay apart (measured), the rest are left out."""
    rows, view, candidates = chart_labels(seeds_explorer, None)
    zoom = view["zoom"] - farther
    kept = place(candidates, zoom)
    placed = [{"p": [k["x"], k["y"]], "t": k["text"], "s": k["size"], "o": [0, k["dy"]]}
              for k in kept]
    assert 0 < len(kept) < len(candidates)
    assert clashes(placed, 2.0 ** zoom) == []


def test_names_in_a_row_are_kept_apart_by_their_width(seeds_explorer: Explorer):
    """Every real name of the index on one line, 60 pixels apart (wider names than that): the
    kept ones do not overlap as the browser's font draws them, so the width the placement
    gives a name is at least its drawn width."""
    names = sorted({topic.name for topic in topic_table(seeds_explorer).topics()}, key=len)
    labels = [{"x": 60.0 * n, "y": 0.0, "text": name, "size": 13, "level": "topic",
               "priority": 0} for n, name in enumerate(names)]
    kept = place(labels, 0.0)  # one pixel per unit
    placed = [{"p": [k["x"], k["y"]], "t": k["text"], "s": k["size"], "o": [0, k["dy"]]}
              for k in kept]
    assert len(kept) > 1 and clashes(placed, 1.0) == []
