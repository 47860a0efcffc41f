"""The What's new page's logic (no Streamlit): the papers added since a build, nearest first to
each saved collection of the session (features/new/query.py), and the page's texts, escaped."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from explorer.errors import ExplorerError
from explorer.features.collections.records import split_known
from explorer.features.collections.visitors import Shelf
from explorer.features.new.query import Build, New, builds, new_papers
from explorer.query.engine import Explorer
from explorer.ui.text import escape_markdown

TITLE = "### What's new"
PER_COLLECTION = 5  # new papers shown near each collection
MAX_COLLECTIONS = 12  # collections the page ranks the new papers for (the first by name)
LISTED = 20  # new papers listed when the session has no collection
NO_COLLECTION = ("Save a collection on the Marked page to see the new papers nearest to it "
                 "first; meanwhile, the papers added:")
WEAK_NOTE = ("A paper reads “weak” when it is no closer to any paper of the collection than "
             "most random pairs of papers in this corpus are.")


@dataclass(frozen=True)
class Near:
    """The new papers nearest one collection (or, `name` empty, the new papers listed)."""

    name: str
    found: New | None  # None: the collection has no paper of this index
    missing: int = 0  # its ids this index lacks


def recorded(explorer: Explorer) -> list[Build]:
    """The builds a reader may ask "since" about, newest first (all but the index's own)."""
    return list(reversed(builds(explorer)[0][:-1]))


def near_collections(explorer: Explorer, shelf: Shelf, since: str | None) -> list[Near]:
    """The new papers since `since` near each of the shelf's collections (at most
    MAX_COLLECTIONS), or listed when there is none. ExplorerError as query.added_since."""
    names = [entry.name for entry in shelf.catalog().entries if entry.count][:MAX_COLLECTIONS]
    if not names:
        return [Near("", new_papers(explorer, since, top_k=LISTED))]
    found = []
    for name in names:
        try:
            known, missing = split_known(shelf.get(name).paper_ids, explorer)
        except ExplorerError:  # removed or changed meanwhile: the next run shows it
            continue
        near = new_papers(explorer, since, like=known, top_k=PER_COLLECTION) if known else None
        found.append(Near(name, near, len(missing)))
    return found


def build_label(build: Build) -> str:
    """A build as the since-choice names it: its time and id, and how many papers it added."""
    added = "" if build.added is None else f" · {build.added:,} added"
    return f"{build.built_at or 'before the log'} ({build.build_id or '?'}){added}"


def intro_markdown(found: New) -> str:
    since = found.since
    label = (escape_markdown(f"{since.built_at or 'before the log'} ({since.build_id or '?'})")
             if since else "the first build")
    return f"{found.added:,} paper{'s' * (found.added != 1)} added since the build of {label}."


def heading_markdown(name: str) -> str:
    return f"#### Near “{escape_markdown(name)}”"


def empty_markdown(near: Near) -> str:
    if near.found is None:
        return "None of this collection's papers is in this index."
    return "No new papers." if not near.found.hits else ""


def nearest_markdown(paper_ids: Sequence[str], number: int, explorer: Explorer) -> str:
    """'nearest to <title>' for the `number`th hit of a collection's list."""
    if number >= len(paper_ids):
        return ""
    return f"nearest to {escape_markdown(explorer.paper(paper_ids[number]).title)}"
