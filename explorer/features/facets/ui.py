"""A paper's status as a compact badge (cards, the paper page) and its facts as text, without
Streamlit. Only the statuses corpus/venues.py knows become badges: the text of a badge is never
the corpus's own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from explorer.corpus.facets import VENUE, YEAR
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
from explorer.ranking.facets import FacetSpec

SIDEBAR_SKIPS = (VENUE, YEAR)  # facets with widgets of their own

# Streamlit's Markdown badge colour per status: what was not accepted stands out.
BADGE_COLOURS = {ORAL: "green", SPOTLIGHT: "green", POSTER: "blue", ACCEPTED: "blue",
                 PUBLISHED: "blue", WORKSHOP: "violet", SUBMITTED: "gray", REJECTED: "red",
                 DESK_REJECTED: "red", WITHDRAWN: "orange"}


def status_badge(status: str | None) -> str:
    """` :red-badge[Rejected]` for a known status (with its leading space), else ""."""
    colour = BADGE_COLOURS.get(status or "")
    return f" :{colour}-badge[{status}]" if colour else ""


def known_facets(spec: FacetSpec, counts: Mapping[str, Sequence]) -> FacetSpec:
    """The pairs of `spec` (a link's facet filter) whose field and values the corpus has
    (`counts`: Explorer.facet_counts), so a link from anyone never asks for an unknown one."""
    known = {name: {value for value, _ in values} for name, values in counts.items()}
    kept = ((name, tuple(v for v in values if v in known.get(name, ()))) for name, values in spec)
    return tuple((name, values) for name, values in kept if values)


def sidebar_facets(counts: Mapping[str, Sequence]) -> list[tuple[str, list[str]]]:
    """The facets the sidebar offers: (field, its values, most papers first) for each field
    of at least two values but venue and year (which have their own widgets)."""
    return [(name, [value for value, _ in values]) for name, values in counts.items()
            if name not in SIDEBAR_SKIPS and len(values) >= 2]


def facet_label(name: str) -> str:
    """A field's name as a label: "primary_area" -> "Primary area"."""
    text = name.replace("_", " ").replace(".", " ").strip()
    return text[:1].upper() + text[1:]
