"""The corpus's topics as a reader asks for them: the broad areas and the finer topics inside
each, a topic's papers (most central first), its key phrases and its neighbours.

Everything is read from the map the build stored (features/topics/stage.py and stage_names.py);
nothing is computed on the query path but lookups and one sort per topic, done once. Topic ids are
strings: an area is "3", its second finer topic "3.2". An index built before the two levels has
one level only: topics "1".."k" with the labels it was built with, and no areas.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from explorer.artifacts.layout import MAP
from explorer.corpus.papers import Paper
from explorer.errors import UnknownTopicError

if TYPE_CHECKING:
    from explorer.query.engine import Explorer

AREA, TOPIC = "area", "topic"
LEVELS = (AREA, TOPIC)


def corpus_map(explorer: Explorer) -> dict[str, Any] | None:
    """The map stored at build time ({"x", "y", "topic"}: one entry per paper; "topics":
    [{"id", "label", "terms", "size"}]), or None when the index has none for these papers."""
    data = explorer.artifacts.extras.get(MAP)
    if not data or len(data.get("x", [])) != len(explorer.papers):
        return None
    return data


def topic_table(explorer: Explorer) -> TopicTable:
    """The index's topics, read once per Explorer on first use; empty without a map."""
    return explorer.part(_table)


def _table(explorer: Explorer) -> TopicTable:
    return TopicTable(corpus_map(explorer), explorer.papers)


@dataclass(frozen=True)
class Topic:
    """One topic: `level` AREA (broad) or TOPIC (finer); `name` a short phrase; `phrases` its
    key phrases, best first; `parent` the area of a finer topic; `children` the finer topics of
    an area; `neighbours` the closest topics of the same level, closest first."""

    topic_id: str
    level: str
    name: str
    size: int
    phrases: tuple[str, ...]
    parent: str | None = None
    children: tuple[str, ...] = ()
    neighbours: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.topic_id, "level": self.level, "name": self.name, "size": self.size,
                "phrases": list(self.phrases), "parent": self.parent,
                "children": list(self.children), "neighbours": list(self.neighbours)}


@dataclass(frozen=True)
class Spread:
    """How a topic's papers spread over the years: `dated` of its papers have a year, from
    `first` to `last`, most (`peak_count`) in `peak`; `counts` year -> papers."""

    papers: int
    dated: int
    first: int | None = None
    last: int | None = None
    peak: int | None = None
    peak_count: int = 0
    counts: Mapping[int, int] | None = None


class TopicTable:
    """The topics of one index. Built once; read-only afterwards, so threads may share it."""

    def __init__(self, corpus_map: Mapping[str, Any] | None, papers: Sequence[Paper]) -> None:
        self._papers = papers
        self._topics: dict[str, Topic] = {}
        self._rows: dict[str, np.ndarray] = {}
        self.paper_topic: list[str | None] = [None] * len(papers)
        self._closeness = np.zeros(len(papers))
        self._area_closeness = self._closeness
        if corpus_map:
            self._read(corpus_map)

    @property
    def has_areas(self) -> bool:
        return any(topic.level == AREA for topic in self._topics.values())

    def topics(self, level: str | None = None) -> list[Topic]:
        """Every topic (areas first, each followed by its finer topics), or those of `level`."""
        if level is not None and level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
        return [t for t in self._topics.values() if level is None or t.level == level]

    def topic(self, topic_id: str) -> Topic:
        """The topic `topic_id`; UnknownTopicError naming how to list them when there is none."""
        found = self._topics.get(str(topic_id).strip())
        if found is None:
            known = ", ".join(list(self._topics)[:6]) or "none: rebuild the index"
            raise UnknownTopicError(
                f"No topic {str(topic_id)[:40]!r} in this index (topics: {known}, ...). "
                "List them with `explorer topics`.")
        return found

    def rows(self, topic_id: str) -> np.ndarray:
        """Rows of the topic's papers, most central first (closest to its centre)."""
        return self._rows[self.topic(topic_id).topic_id]

    def papers(self, topic_id: str, top_k: int | None = None) -> list[Paper]:
        rows = self.rows(topic_id)
        return [self._papers[row] for row in (rows if top_k is None else rows[:top_k])]

    def closeness(self, paper_row: int, level: str = TOPIC) -> float:
        """The cosine of the paper in `paper_row` to its topic's centre, or with `level` AREA
        its area's (its topic's in an index built before that was stored; 0.0 before either)."""
        return float((self._area_closeness if level == AREA else self._closeness)[paper_row])

    def report(self, topic_id: str, top_k: int = 20) -> dict[str, Any]:
        """What the topic page and `explorer topic --json` show: the topic, its years (and
        the growth line), its parent's and neighbours' names, its `top_k` most central papers."""
        topic = self.topic(topic_id)
        spread = self.spread(topic.topic_id)
        related = [t for t in (topic.parent, *topic.neighbours, *topic.children) if t]
        papers = [{"rank": rank, "paper_id": self._papers[row].paper_id,
                   "title": self._papers[row].title, "year": self._papers[row].year,
                   "venue": self._papers[row].venue,
                   "closeness": round(self.closeness(row, topic.level), 4)}
                  for rank, row in enumerate(self.rows(topic.topic_id)[:top_k], start=1)]
        return {**topic.to_dict(), "growth": growth_line(spread),
                "years": {str(year): n for year, n in (spread.counts or {}).items()},
                "names": {t: self._topics[t].name for t in related}, "papers": papers}

    def spread(self, topic_id: str) -> Spread:
        """The years of the topic's papers."""
        rows = self.rows(topic_id)
        years = Counter(self._papers[row].year for row in rows
                        if self._papers[row].year is not None)
        if not years:
            return Spread(len(rows), 0)
        peak, peak_count = max(years.items(), key=lambda item: (item[1], item[0]))
        return Spread(len(rows), sum(years.values()), min(years), max(years), peak, peak_count,
                      dict(sorted(years.items())))

    # -- reading the stored map ------------------------------------------------------------
    def _read(self, corpus_map: Mapping[str, Any]) -> None:
        labels = np.asarray(corpus_map["topic"], dtype=np.int64)
        close = np.asarray(corpus_map.get("closeness") or np.zeros(len(labels)), dtype=np.float64)
        self._closeness = self._area_closeness = close
        if corpus_map.get("area_closeness"):  # builds since areas were ordered by their own centre
            self._area_closeness = np.asarray(corpus_map["area_closeness"], dtype=np.float64)
        fine = {int(t["id"]): t for t in corpus_map["topics"]}
        areas = corpus_map.get("areas") or []
        key = _keys(fine, areas)
        for area in areas:
            self._add_area(area, key, labels, self._area_closeness)
            for topic_number in area["topics"]:
                self._add_fine(fine[int(topic_number)], key, labels, close, f"{area['id'] + 1}")
        if not areas:
            for topic_number in fine:
                self._add_fine(fine[topic_number], key, labels, close, None)
        for row, label in enumerate(labels):
            self.paper_topic[row] = key.get(int(label))

    def _add_area(self, area: Mapping[str, Any], key: dict[int, str], labels: np.ndarray,
                  close: np.ndarray) -> None:
        area_id = f"{area['id'] + 1}"
        children = tuple(key[int(t)] for t in area["topics"])
        rows = np.flatnonzero(np.isin(labels, [int(t) for t in area["topics"]]))
        self._rows[area_id] = rows[np.argsort(-close[rows], kind="stable")]
        neighbours = tuple(f"{int(a) + 1}" for a in area.get("neighbours", ()))
        self._topics[area_id] = Topic(area_id, AREA, str(area["label"]), len(rows),
                                      tuple(map(str, area.get("terms", ()))),
                                      children=children, neighbours=neighbours)

    def _add_fine(self, info: Mapping[str, Any], key: dict[int, str], labels: np.ndarray,
                  close: np.ndarray, parent: str | None) -> None:
        topic_id = key[int(info["id"])]
        rows = np.flatnonzero(labels == int(info["id"]))
        self._rows[topic_id] = rows[np.argsort(-close[rows], kind="stable")]
        near = tuple(key[int(t)] for t in info.get("neighbours", ()) if int(t) in key)
        self._topics[topic_id] = Topic(topic_id, TOPIC, str(info["label"]), len(rows),
                                       tuple(map(str, info.get("terms", ()))), parent=parent,
                                       neighbours=near)


def _keys(fine: Mapping[int, Mapping[str, Any]], areas: Sequence[Mapping[str, Any]]
          ) -> dict[int, str]:
    """Stored topic number -> public id: "area.n" (n-th topic of the area), or "n" (one level)."""
    if not areas:
        return {number: str(place + 1) for place, number in enumerate(sorted(fine))}
    return {int(number): f"{area['id'] + 1}.{place + 1}"
            for area in areas for place, number in enumerate(area["topics"])}


def growth_line(spread: Spread) -> str:
    """"42 papers, 2019-2024"; without years, just the count. No peak year: a topic's most
    papers fall in the corpus's biggest year (its year against the corpus's is the years
    section's, features/years/ui.py)."""
    count = f"{spread.papers:,} paper{'s' if spread.papers != 1 else ''}"
    if not spread.dated:
        return count
    span = f"{spread.first}" if spread.first == spread.last else f"{spread.first}-{spread.last}"
    missing = spread.papers - spread.dated
    undated = f", {missing:,} without a year" if missing else ""
    return f"{count}, {span}{undated}"
