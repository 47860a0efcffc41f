"""A paper's status as a compact badge (cards, the paper page) and its facts as text, without
Streamlit. Only the statuses corpus/venues.py knows become badges: the text of a badge is never
the corpus's own."""

from __future__ import annotations

from explorer.corpus.papers import Paper
from explorer.corpus.venues import (
    ACCEPTED,
    DESK_REJECTED,
    ORAL,
    POSTER,
    PUBLISHED,
    REJECTED,
    SPOTLIGHT,
    SUBMITTED,
    WITHDRAWN,
    WORKSHOP,
)

# Streamlit's Markdown badge colour per status: what was not accepted stands out.
BADGE_COLOURS = {ORAL: "green", SPOTLIGHT: "green", POSTER: "blue", ACCEPTED: "blue",
                 PUBLISHED: "blue", WORKSHOP: "violet", SUBMITTED: "gray", REJECTED: "red",
                 DESK_REJECTED: "red", WITHDRAWN: "orange"}


def status_badge(status: str | None) -> str:
    """` :red-badge[Rejected]` for a known status (with its leading space), else ""."""
    colour = BADGE_COLOURS.get(status or "")
    return f" :{colour}-badge[{status}]" if colour else ""


def status_text(paper: Paper) -> str:
    """The status as a terminal line shows it: "[Rejected]", or "" when unknown."""
    return f"[{paper.status}]" if paper.status in BADGE_COLOURS else ""
