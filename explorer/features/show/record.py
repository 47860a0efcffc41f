"""One paper as the index knows it: `paper_record(explorer, paper_id)` -> a JSON-able dict of
sections, each made by one function of SECTIONS (name, function); a section with nothing to
say (None) is left out. Adding a section (references and cited-by, when the index has them) is
one line in SECTIONS."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from explorer.corpus.fields import as_json
from explorer.corpus.papers import Paper
from explorer.features.references.query import cited_by, references_of
from explorer.features.relatives.query import relatives
from explorer.features.topics.table import topic_table
from explorer.query.engine import Explorer
from explorer.query.hits import version_record

RELATIVES_SHOWN = 5
Section = Callable[[Explorer, Paper], Any]


def paper_fields(explorer: Explorer, paper: Paper) -> dict[str, Any]:
    """What the paper's record says: its attributes, status, ids and every other field."""
    data = paper.to_dict()
    data.pop("fields", None)
    data.pop("original", None)
    return {**data, **({"fields": as_json(paper.fields)} if paper.fields else {})}


def paper_versions(explorer: Explorer, paper: Paper) -> list[dict[str, Any]] | None:
    """The other versions of the same work (features/versions/), None when it has none."""
    others = explorer.works.others(explorer.row(paper.paper_id))
    return [version_record(explorer.papers[row]) for row in others] or None


def paper_relatives(explorer: Explorer, paper: Paper) -> list[dict[str, Any]] | None:
    """Its closest relatives above the relatives' threshold (features/relatives/)."""
    found = relatives(explorer, paper.paper_id, top_k=RELATIVES_SHOWN)
    return [relative.to_dict() for relative in found] or None


def paper_topic(explorer: Explorer, paper: Paper) -> dict[str, Any] | None:
    """Its topic on the corpus map (and the broad area it is in), None without a map."""
    table = topic_table(explorer)
    topic_id = table.paper_topic[explorer.row(paper.paper_id)] if table.paper_topic else None
    if topic_id is None:
        return None
    topic = topic_table(explorer).topic(topic_id)
    return {"id": topic.topic_id, "name": topic.name, "area": topic.parent,
            "phrases": list(topic.phrases[:5])}


def paper_references(explorer: Explorer, paper: Paper) -> list[dict[str, Any]] | None:
    """The papers of the corpus it cites (features/references/), None when none."""
    return [version_record(p) for p in references_of(explorer, paper.paper_id)] or None


def paper_cited_by(explorer: Explorer, paper: Paper) -> list[dict[str, Any]] | None:
    """The papers of the corpus that cite it (features/references/), None when none."""
    return [version_record(p) for p in cited_by(explorer, paper.paper_id)] or None


SECTIONS: tuple[tuple[str, Section], ...] = (
    ("paper", paper_fields),
    ("versions", paper_versions),
    ("references", paper_references),
    ("cited_by", paper_cited_by),
    ("relatives", paper_relatives),
    ("topic", paper_topic),
)


def paper_record(explorer: Explorer, paper_id: str,
                 sections: tuple[tuple[str, Section], ...] = SECTIONS) -> dict[str, Any]:
    """Every section of SECTIONS that has something to say about `paper_id` (an id or alias:
    UnknownPaperError, with close ids, when the index has no such paper)."""
    paper = explorer.paper(paper_id)
    record = {}
    for name, section in sections:
        value = section(explorer, paper)
        if value is not None:
            record[name] = value
    return record
