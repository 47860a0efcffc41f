"""The topic page and the map's zoom, without Streamlit: what a topic shows (its papers as
cards, key phrases, neighbours, years), the map's labels at each level, and their texts.

Topic names and phrases are corpus text: every one is escaped (ui/text.py) before it becomes
Markdown; on the map they are canvas text (features/topics/ui_map.py).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from explorer.errors import UnknownTopicError
from explorer.features.topics.table import AREA, Topic, TopicTable, corpus_map, topic_table
from explorer.features.topics.ui_file import file_name, served_layer
from explorer.features.topics.ui_map import CompactDeck, Focus, map_chart, papers_layer
from explorer.features.years.spread import corpus_spread, growth, spread
from explorer.features.years.ui import YearView
from explorer.query.engine import Explorer
from explorer.query.hits import Hit
from explorer.ui.links import Location
from explorer.ui.page import build_key
from explorer.ui.results import Memo, ranked
from explorer.ui.text import escape_markdown, plain

PAPERS_SHOWN = 20
NAME_CHARS = 60  # a name longer than this is cut on the map and on buttons
WHOLE_MAP = "Whole map: broad areas"
LIST_INTRO = ("Topics found when the index was built: a few broad areas, and finer topics inside "
              "each, named by the phrases their papers use most and other papers least.")
PAPERS_NOTE = "Most central first: cos = cosine of the paper to the topic's centre."
NO_TOPICS = "This index stores no topics. Rebuild it: `{command}`"
ONE_LEVEL = ("Topics found when the index was built (too few papers for broad areas), named by "
             "the phrases their papers use most and other papers least.")
MAP_ZOOM = "Zoom to"


def name_markdown(topic: Topic, chars: int = NAME_CHARS) -> str:
    """A topic's name as inert Markdown (cut to `chars`)."""
    return escape_markdown(plain(topic.name, chars))


def size_label(topic: Topic) -> str:
    """A button's Markdown: the topic's name and its size."""
    return f"{name_markdown(topic)} ({topic.size:,})"


def option_label(table: TopicTable, topic_id: str | None) -> str:
    """The zoom box's text for `topic_id` (None: the whole map); plain text, not Markdown."""
    if topic_id is None:
        return WHOLE_MAP
    topic = table.topic(topic_id)
    indent = "" if topic.level == AREA else "\u2003"
    return f"{indent}{topic.topic_id} · {plain(topic.name, NAME_CHARS)}"


def known_topic(table: TopicTable, topic_id: str | None) -> str | None:
    """`topic_id` when this index has that topic, else None (a link from another build)."""
    if topic_id is None:
        return None
    try:
        return table.topic(topic_id).topic_id
    except UnknownTopicError:
        return None


def paper_topics(explorer: Explorer, paper_id: str) -> list[Topic]:
    """The finer topic of a paper, or none (an index without topics)."""
    topic_id = topic_table(explorer).paper_topic[explorer.row(paper_id)]
    return [] if topic_id is None else [topic_table(explorer).topic(topic_id)]


def zoom_choices(table: TopicTable) -> list[str | None]:
    """The zoom box's choices: the whole map, then each area followed by its finer topics."""
    return [None, *(topic.topic_id for topic in table.topics())]


def heading_markdown(topic: Topic) -> str:
    kind = "Broad area" if topic.level == AREA else "Topic"
    return f"### {name_markdown(topic, 200)}\n{kind} {escape_markdown(topic.topic_id)}"


def phrases_markdown(topic: Topic) -> str:
    """Key phrases as gray badges (each escaped; a badge's text cannot close it early)."""
    cleaned = (plain(p, 60).replace("[", "").replace("]", "") for p in topic.phrases)
    return " ".join(f":gray-badge[{escape_markdown(p)}]" for p in cleaned)


def phrases_line(topic: Topic, count: int = 5) -> str:
    """A caption of the topic's first `count` key phrases its name does not say, inert
    Markdown."""
    said = [p for p in topic.phrases if p.lower() not in topic.name.lower()]
    return escape_markdown(" · ".join(plain(p, 40) for p in said[:count]))


@dataclass(frozen=True)
class TopicPage:
    """What a topic page shows: the topic, the report (features/topics/table.py TopicTable.report),
    its parent, neighbours and children as topics, its papers as cards."""

    topic: Topic
    report: Mapping[str, Any]
    related: Mapping[str, Sequence[Topic]]
    hits: Sequence[Hit]


def topic_page(explorer: Explorer, topic_id: str, top_k: int = PAPERS_SHOWN) -> TopicPage:
    """The page of `topic_id` (UnknownTopicError when the index has none)."""
    table = topic_table(explorer)
    topic = table.topic(topic_id)
    report = table.report(topic.topic_id, top_k)
    related = {"in": [table.topic(topic.parent)] if topic.parent else [],
               "topics": [table.topic(t) for t in topic.children],
               "near": [table.topic(t) for t in topic.neighbours]}
    hits = [Hit(rank=p["rank"], score=p["closeness"], percentile=None,
                paper=explorer.paper(p["paper_id"])) for p in report["papers"]]
    return TopicPage(topic, report, related, hits)


def topic_years(explorer: Explorer, topic_id: str) -> YearView | None:
    """The years of all the topic's papers against the corpus's, and whether it is more recent
    (features/years/spread.py: the same measures as a ranking's); None when none has a year or
    the corpus has one year only."""
    years = spread(topic_table(explorer).papers(topic_id), "papers of this topic")
    if not years.counts:
        return None
    reference = corpus_spread(explorer)
    if len(reference.counts) < 2:  # one year in the whole corpus: the topic's line says it
        return None
    return YearView(years, growth(years, reference), reference=reference)


def map_zoom(corpus_map: Mapping[str, Any], table: TopicTable, topic_id: str | None
             ) -> tuple[list[dict], dict | None]:
    """The map's labels for a zoom, and the first view's ranges ({"x": [lo, hi], "y": [...]};
    None: the whole map). Zoomed out: the broad areas' names, and the finer topics' names
    where room is left (ui_labels.place keeps those that do not overlap, from the first
    view's scale or, growing, one or two levels in); zoomed to an area or a topic: the finer
    topics' names inside its box. Each label a dict ("x", "y", "text": plain text, "level",
    "size" in pixels, "priority": its size)."""
    x, y = np.asarray(corpus_map["x"]), np.asarray(corpus_map["y"])
    if topic_id is None:
        areas = table.topics(AREA)
        shown = [_label(t, table, x, y, 17) for t in areas or table.topics()]
        if areas:
            shown += [_label(t, table, x, y, 12) for t in table.topics("topic")]
        return [label for label in shown if label is not None], None
    ranges = _box(x[table.rows(topic_id)], y[table.rows(topic_id)])
    labels = []
    for topic in table.topics("topic"):
        label = _label(topic, table, x, y, 13)
        if label is not None and (ranges["x"][0] <= label["x"] <= ranges["x"][1]
                                  and ranges["y"][0] <= label["y"] <= ranges["y"][1]):
            labels.append(label)
    return labels, ranges


def _label(topic: Topic, table: TopicTable, x: np.ndarray, y: np.ndarray, size: int
           ) -> dict | None:
    rows = table.rows(topic.topic_id)
    if not len(rows):
        return None
    level = "area" if topic.level == AREA and size >= 16 else "topic"
    return {"x": float(np.median(x[rows])), "y": float(np.median(y[rows])), "level": level,
            "text": plain(topic.name, NAME_CHARS), "size": size, "priority": len(rows)}


def _box(x: np.ndarray, y: np.ndarray) -> dict:
    """The box around most of these points (2nd to 98th percentile), padded by a tenth."""
    box = {}
    for axis, values in (("x", x), ("y", y)):
        low, high = np.percentile(values, [2, 98]) if len(values) else (0.0, 1.0)
        pad = max(float(high - low) * 0.1, 1e-3)
        box[axis] = [float(low) - pad, float(high) + pad]
    return box


def corpus_chart(explorer: Explorer, location: Location, static: Path | None = None
                 ) -> CompactDeck | None:
    """The map of the corpus with the location's open paper and its 10 nearest papers (over
    the whole corpus), the question's hits, and the zoomed topic (the rest faded); None when
    the index stores no map. With `static` (the app's served static folder) the papers come
    as a file there (ui_file.py), else inline."""
    if corpus_map(explorer) is None:
        return None
    focus = Focus()
    if location.paper_id:
        nearest = ranked(explorer, location, "similar", location.paper_id, top_k=10, narrow=False)
        focus = replace(focus, open_row=explorer.row(location.paper_id),
                        neighbour_rows=[explorer.row(hit.paper_id) for hit in nearest])
    if location.query.strip():
        hits = ranked(explorer, location, "search", location.query)
        focus = replace(focus, hit_rows=[explorer.row(hit.paper_id) for hit in hits])
    zoom = known_topic(topic_table(explorer), location.topic)
    if zoom is not None:
        focus = replace(focus, zoom_rows=topic_table(explorer).rows(zoom))
    labels, ranges = map_zoom(corpus_map(explorer), topic_table(explorer), zoom)
    with _BASES_LOCK:
        bases = _BASES.setdefault(explorer, Memo(8))
    base = bases.get((zoom, static), lambda: _papers(explorer, zoom, focus.zoom_rows, static))
    return map_chart(corpus_map(explorer), explorer.papers, focus, labels, ranges, base)


def _papers(explorer: Explorer, zoom: str | None, rows: Sequence[int] | None,
            static: Path | None) -> str:
    """The papers layer's JSON text: its data a file in `static` (inline when None or when the
    file cannot be written: the map still draws)."""
    if static is not None:
        try:
            name = file_name(build_key(explorer.manifest), zoom)
            return served_layer(static, name, corpus_map(explorer), explorer.papers, rows)
        except OSError:
            pass
    return papers_layer(corpus_map(explorer), explorer.papers, rows)


# The papers layer of each zoom (its JSON text: most of the map's bytes and time), per Explorer.
_BASES: weakref.WeakKeyDictionary[Explorer, Memo] = weakref.WeakKeyDictionary()
_BASES_LOCK = threading.Lock()
