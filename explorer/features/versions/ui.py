"""The versions of a work as a card, the CLI and the paper page show them: each version's
venue, year and status, escaped (corpus text is never markup)."""

from __future__ import annotations

from collections.abc import Sequence

from explorer.corpus.papers import Paper
from explorer.features.facets.ui import status_badge
from explorer.ui.text import escape_markdown

SHOWN = 4  # versions named on a card; the rest counted


def where(paper: Paper) -> str:
    """"ICLR 2018 Rejected": a version's venue, year and status, as far as they are known."""
    return " ".join(str(x) for x in (paper.venue, paper.year, paper.status) if x) or paper.paper_id


def versions_markdown(versions: Sequence[Paper]) -> str:
    """"also ICLR 2018 :red-badge[Rejected]" for a card's caption; "" without versions."""
    if not versions:
        return ""
    shown = [escape_markdown(" ".join(str(x) for x in (p.venue, p.year) if x) or p.paper_id)
             + status_badge(p.status) for p in versions[:SHOWN]]
    more = len(versions) - SHOWN
    return "also " + ", ".join(shown) + (f" and {more} more" if more > 0 else "")
