"""References and cited-by for `explorer show` (its section: `show_section`)."""

from __future__ import annotations

from explorer.cli.terminal import safe_text
from explorer.corpus.papers import Paper
from explorer.features.references.ui import CITED_BY, REFERENCES, linked
from explorer.query.engine import Explorer


def show_section(explorer: Explorer, paper_id: str) -> tuple[dict, list[str]]:
    """`explorer show`'s section of one paper: (the JSON record {"references": [...],
    "cited_by": [...]}, each paper's id, title, venue and year; the text lines, made safe for
    a terminal, one paper a line). UnknownPaperError for an unknown id."""
    found = linked(explorer, paper_id)
    lines = []
    for heading, papers in ((REFERENCES, found.references), (CITED_BY, found.cited_by)):
        lines.append(f"{heading} ({len(papers)}):" if papers else f"{heading}: none")
        lines.extend(f"  - {_line(paper)}" for paper in papers)
    return found.to_dict(), lines


def _line(paper: Paper) -> str:
    facts = " · ".join(str(x) for x in (paper.venue, paper.year) if x)
    return safe_text(f"{paper.title} (id {paper.paper_id}{' · ' + facts if facts else ''})")
