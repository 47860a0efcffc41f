"""References and cited-by as a reader sees them (no Streamlit): the paper page's part
(features/references/page.py) and `explorer show`'s section (features/references/cli.py)."""

from __future__ import annotations

from dataclasses import dataclass

from explorer.corpus.papers import Paper
from explorer.features.references.query import cited_by, references_of
from explorer.query.engine import Explorer
from explorer.ui.page import badged_title, meta_parts
from explorer.ui.text import escape_markdown

SHOWN = 25  # papers listed per side on a paper's page (the rest counted)
REFERENCES = "References in this corpus"
CITED_BY = "Cited by, in this corpus"


@dataclass(frozen=True)
class Linked:
    """One paper's references and the papers citing it, inside the corpus."""

    references: tuple[Paper, ...]
    cited_by: tuple[Paper, ...]

    def to_dict(self) -> dict:
        return {"references": [_brief(p) for p in self.references],
                "cited_by": [_brief(p) for p in self.cited_by]}


def linked(explorer: Explorer, paper_id: str) -> Linked:
    """`paper_id`'s references and cited-by inside the corpus (UnknownPaperError if unknown)."""
    return Linked(tuple(references_of(explorer, paper_id)), tuple(cited_by(explorer, paper_id)))


def heading_markdown(heading: str, count: int) -> str:
    return f"#### {heading} ({count})"


def paper_markdown(paper: Paper) -> str:
    """A listed paper: its title (LaTeX rendered), its status's badge and facts, escaped."""
    facts = " · ".join(escape_markdown(part) for part in meta_parts(paper)[:3])
    return badged_title(paper, bold=False) + (f" · {facts}" if facts else "")


def more_markdown(count: int) -> str:
    return f"... and {count:,} more" if count > 0 else ""


def _brief(paper: Paper) -> dict:
    return {"paper_id": paper.paper_id, "title": paper.title, "venue": paper.venue,
            "year": paper.year}
