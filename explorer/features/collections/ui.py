"""Saved collections in the app: opening one as the marked set, saving the marked set, and what
the page says about them. No Streamlit here: each action takes the session's `Shelf` (its own
collections and, on a shared server, the owner's, read-only: features/collections/visitors.py) and
returns an `Outcome` (the location to show, the collection now open, a Markdown message), or
raises CollectionError. A change names the revision the session opened (`Opened`): it is
refused when the collection changed, or was deleted and made again, since then.

A collection is a list of papers: the app saves the liked papers ("More like these") and opens
a collection as them. Its ids that this index lacks are kept in the file, shown as missing, and
written back when the open collection is saved again (`kept_ids`), never dropped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

from explorer.features.collections.names import visible
from explorer.features.collections.records import Collection, PaperLookup, split_known
from explorer.features.collections.store import Catalog
from explorer.features.collections.visitors import Shelf
from explorer.ui.links import MARKED, MAX_MARKED, Location, link
from explorer.ui.public import public_message
from explorer.ui.text import escape_markdown, plain

SHOWN_MISSING = 20  # missing ids named on the page (the count names them all)
NAME_LABEL = "Save the liked papers as a collection"
NAME_HINT = "a name, e.g. thesis chapter 2"
OPEN_LABEL = "Open a collection"
NO_COLLECTIONS = "none saved yet: name the liked papers below to save them"
PICK = "pick one"
ADD_LABEL = "Add to a collection"
NOTHING_TO_ADD_TO = "No collection of yours yet: save the liked papers on the Marked page first."
OWNERS_MARK = " · the server owner's, read-only"
READ_ONLY_NOTE = ("A collection of the server's owner: you can use it, not change it. Save the "
                  "marked papers under a new name to keep your own copy.")
VISITOR_NOTE = ("Collections you save on this shared server are kept for this browser only: "
                "other visitors never see or change them (a Share link shows your papers to "
                "whoever you give it).")
WAITING = "Your browser is fetching its collections…"
NO_STORAGE = ("This browser blocks this site's storage, so the server cannot tell your "
              "collections from other visitors': saving is off here. The Share link keeps the "
              "marked papers.")
LINK_CUT = "The link holds the first {shown} of its {count} papers (a link's limit)."


@dataclass(frozen=True)
class Opened:
    """The collection open in a session: its name, the revision it was opened (or last saved)
    at, its ids that this index lacks, its `uid` (Collection.uid), and whether the session may
    only read it (an owner's collection seen by a visitor)."""

    name: str
    revision: int
    missing: tuple[str, ...] = ()
    uid: str | None = None
    read_only: bool = False


@dataclass(frozen=True)
class Outcome:
    """What an action leaves: the location to show, the open collection, a Markdown message."""

    location: Location
    opened: Opened | None
    message: str


def name_markdown(name: str, limit: int = 80) -> str:
    """A collection's name as Markdown that shows exactly its characters (names are any text;
    a control or direction character of a name from an old file is shown as its code point)."""
    return escape_markdown(plain(visible(name), limit))


def rename_key(opened: Opened) -> str:
    """The rename box's widget key for the open collection: ASCII (a key becomes a CSS class
    name on the page), one per name."""
    return "collection_rename_" + hashlib.sha256(opened.name.encode("utf-8")).hexdigest()[:12]


def option_label(name: str, read_only: bool = False) -> str:
    """A name as a plain-text option label (a select box shows labels as text); an owner's
    collection that the session may only read says so."""
    return plain(visible(name), 80) + (OWNERS_MARK if read_only else "")


def papers_text(count: int) -> str:
    return f"{count} paper" if count == 1 else f"{count} papers"


def error_markdown(message: str) -> str:
    """An error message for the page: without server paths, escaped (it may quote a name)."""
    return escape_markdown(public_message(message))


def as_marked(location: Location, collection: Collection, papers: PaperLookup
              ) -> tuple[Location, tuple[str, ...]]:
    """`location` on the marked page with the collection's papers as the liked ones (nothing
    unliked), and the collection's ids this index lacks."""
    known, missing = split_known(collection.paper_ids, papers)
    return replace(location, page=MARKED, paper_id=None, like=tuple(known), unlike=()), tuple(missing)


def kept_ids(liked: Sequence[str], opened: Opened | None) -> tuple[str, ...]:
    """What saving `liked` into the open collection stores: the liked ids, then the ids of the
    collection that this index lacks (they cannot be shown, so they were not unmarked)."""
    missing = opened.missing if opened else ()
    return tuple(dict.fromkeys((*liked, *missing)))


def open_collection(shelf: Shelf, name: str, location: Location, papers: PaperLookup
                    ) -> Outcome:
    collection = shelf.get(name)
    shown, missing = as_marked(location, collection, papers)
    opened = Opened(collection.name, collection.revision, missing, collection.uid,
                    shelf.read_only(collection.name))
    return Outcome(shown, opened, f"Opened **{name_markdown(collection.name)}**: "
                   f"{papers_text(len(shown.like))} marked.")


def save_new(shelf: Shelf, name: str, location: Location) -> Outcome:
    """The liked papers saved as a new collection, which is then the open one."""
    collection = shelf.create(name, location.like)
    return Outcome(location, Opened(collection.name, collection.revision, (), collection.uid),
                   f"Saved {papers_text(len(collection.paper_ids))} as "
                   f"**{name_markdown(collection.name)}**.")


def add_paper(shelf: Shelf, name: str, paper_id: str, opened: Opened | None
              ) -> tuple[str, Opened | None]:
    """`paper_id` added to the session's own collection `name`: the message, and the open
    collection (its revision moved on when it is the one added to, so that saving it again is
    not refused as changed elsewhere)."""
    collection = shelf.writable(name).add(name, [paper_id])
    if opened is not None and opened.uid == collection.uid:
        opened = replace(opened, revision=collection.revision)
    return (f"Added to **{name_markdown(collection.name)}** "
            f"({papers_text(len(collection.paper_ids))})."), opened


def addable(catalog: Catalog) -> list[str]:
    """The names of the collections a paper may be added to: the session's own."""
    return [name for name in catalog.names() if name not in catalog.read_only]


def save_changes(shelf: Shelf, opened: Opened, location: Location) -> Outcome:
    """The open collection set to the liked papers (and its missing ids), if nobody changed it
    since it was opened (else CollectionError: open it again)."""
    collection = shelf.writable(opened.name).replace(
        opened.name, kept_ids(location.like, opened), opened.revision, opened.uid)
    return Outcome(location, replace(opened, revision=collection.revision),
                   f"Saved **{name_markdown(collection.name)}**: "
                   f"{papers_text(len(collection.paper_ids))}.")


def rename_open(shelf: Shelf, opened: Opened, new_name: str, location: Location) -> Outcome:
    """The open collection renamed, if nobody changed it since it was opened."""
    collection = shelf.rename(opened.name, new_name, opened.revision, opened.uid)
    return Outcome(location, replace(opened, name=collection.name, revision=collection.revision),
                   f"Renamed to **{name_markdown(collection.name)}**.")


def delete_open(shelf: Shelf, opened: Opened, location: Location) -> Outcome:
    """Delete the open collection (the marked set stays as it is), if nobody changed it since
    it was opened."""
    shelf.writable(opened.name).delete(opened.name, opened.revision, opened.uid)
    return Outcome(location, None, f"Deleted **{name_markdown(opened.name)}**; the marked papers "
                   "stay marked.")


def visitor_note(key: str | None) -> str:
    """What a visitor's collections are, or why they cannot save yet (`key`: the browser's key
    as the session holds it; None: not given yet, "": the browser keeps no storage)."""
    return WAITING if key is None else NO_STORAGE if key == "" else VISITOR_NOTE


def is_changed(opened: Opened, shelf: Shelf, location: Location) -> bool:
    """True when the liked papers differ from what the open collection stores."""
    return kept_ids(location.like, opened) != shelf.get(opened.name).paper_ids


def open_caption(opened: Opened, location: Location) -> str:
    count = len(location.like) + len(opened.missing)
    owners = OWNERS_MARK if opened.read_only else ""
    return f"Open collection: **{name_markdown(opened.name)}** · {papers_text(count)}{owners}"


def missing_markdown(missing: Sequence[str]) -> str:
    """The note naming a collection's ids that this index lacks ("" for none)."""
    if not missing:
        return ""
    shown = ", ".join(plain(pid, 60) for pid in missing[:SHOWN_MISSING])
    more = f" and {len(missing) - SHOWN_MISSING} more" if len(missing) > SHOWN_MISSING else ""
    return (f"Missing from this index: {len(missing)} of its papers (kept in the collection, and "
            f"shown again with an index that has them): {escape_markdown(shown)}{more}.")


def problems_markdown(catalog: Catalog) -> list[str]:
    """One escaped note per collection file that could not be read (no server paths)."""
    return [error_markdown(problem) for problem in catalog.problems]


def collection_link(base_url: str, paper_ids: Sequence[str]) -> tuple[str, str]:
    """(the link that opens `paper_ids` as the marked set, a note when a link cannot hold them
    all ("" otherwise)); ids this index lacks are in it too: the app names them on opening."""
    ids = tuple(dict.fromkeys(paper_ids))
    url = link(base_url, Location(page=MARKED, like=ids[:MAX_MARKED]))
    cut = LINK_CUT.format(shown=MAX_MARKED, count=len(ids)) if len(ids) > MAX_MARKED else ""
    return url, cut
