"""The trail: the questions asked and papers opened in a session, to step back to any of them."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from explorer.corpus.papers import Paper
from explorer.errors import UnknownPaperError
from explorer.ui.links import ASK, PAPER, Location
from explorer.ui.text import plain

Step = tuple[str, str]  # ("q", question) or ("paper", paper_id)
TRAIL_LIMIT = 12
RECENT = 4  # the steps shown on the trail's row; the earlier ones are folded


class PaperLookup(Protocol):
    """Finds a paper by id (an Explorer is one); raises UnknownPaperError for unknown ids."""

    def paper(self, paper_id: str) -> Paper: ...


def step_of(location: Location) -> Step | None:
    """The trail step a location stands for: a question or an open paper (other pages add none)."""
    if location.page == PAPER and location.paper_id:
        return ("paper", location.paper_id)
    if location.page == ASK and location.query.strip():
        return ("q", location.query)
    return None


def push(trail: tuple[Step, ...], step: Step | None) -> tuple[Step, ...]:
    """`trail` with `step` at the end; a step already on it stays where it is (no loss of place)."""
    if step is None or step in trail:
        return trail
    return (trail + (step,))[-TRAIL_LIMIT:]


def trail_parts(trail: tuple[Step, ...], shown: int = RECENT
                ) -> tuple[tuple[Step, ...], tuple[Step, ...]]:
    """(earlier, recent): the trail's steps folded away, and its last `shown` steps."""
    cut = max(len(trail) - shown, 0)
    return trail[:cut], trail[cut:]


def go_to(location: Location, step: Step) -> Location:
    """The location of a trail step, keeping the marked set and filters."""
    kind, value = step
    if kind == "q":
        return replace(location, page=ASK, query=value)
    if kind == "paper":
        return replace(location, page=PAPER, paper_id=value)
    raise ValueError(f"unknown trail step kind {kind!r}")


def step_label(papers: PaperLookup, step: Step, limit: int = 38) -> str:
    """Short plain-text label for a trail step (the caller escapes it for Markdown)."""
    kind, value = step
    if kind == "q":
        return plain(value, limit)
    try:
        title = papers.paper(value).title
    except UnknownPaperError:  # a step from before the index was rebuilt
        title = value
    return plain(title, limit)
