"""What the app's pages are made of: the page record, navigation (`button`; `go` and the
callbacks' wrapper `reported` are moves.py's) and the result rows."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

import streamlit as st

from explorer.app.history import visited
from explorer.app.moves import go, reported  # noqa: F401 (the pages' names for them)
from explorer.features.collections.page import add_to_collection_ui
from explorer.features.explanations import ui as explanations
from explorer.features.explanations.ui import Lights
from explorer.features.exports import ui as exports
from explorer.features.versions.ui import versions_markdown
from explorer.query.engine import Explorer, Hit
from explorer.ui import page, public
from explorer.ui.export import to_csv
from explorer.ui.links import PAPER, Location
from explorer.ui.text import rich_markdown

VISITED = " :violet-badge[:material/history: visited]"
DETAILS_HELP = "The abstract, why it matched, marking it, adding it to a collection"


@dataclass(frozen=True)
class Page:
    """A page of the app: its name in a Location (ui.links), what draws it, and its sidebar
    button's label and icon (None: no button, e.g. the paper page). `show` gets the explorer,
    the location, the corpus root (public_path) and the rebuild hint."""

    name: str
    show: Callable[[Explorer, Location, str, str], None]
    label: str | None = None
    icon: str | None = None


def button(label: str, target: Location, **options) -> None:
    """A button that goes to `target`."""
    st.button(label, on_click=go, args=(target,), **options)


# -- building blocks --------------------------------------------------------------------------------
def mark_buttons_ui(location: Location, paper_id: str, key: str) -> None:
    """Toggles: 'more like this' / 'less like this' (a second click unmarks)."""
    for liked, label, icon in ((True, "More like this", "thumb_up"),
                               (False, "Less like this", "thumb_down")):
        marked = paper_id in (location.like if liked else location.unlike)
        button(label + (" ✓" if marked else ""), location.mark(paper_id, None if marked else liked),
               key=f"{key}-{'like' if liked else 'unlike'}", icon=f":material/{icon}:",
               type="primary" if marked else "secondary")


def hit_ui(location: Location, hit: Hit, key: str, spans=(), note: str = "") -> None:
    """One result row: title (marked when this session opened it), strength, the paper's
    facts (and why it matched: `note`) and its best sentence; the abstract and the actions on
    demand (the row's "Abstract" popover)."""
    seen = visited(hit.paper_id)
    with st.container(border=True, key=f"card-{key}"):
        with st.container(horizontal=True, vertical_alignment="center", gap="small"):
            st.container(key=f"title-{'seen-' * seen}{key}").markdown(
                f"{hit.rank}\\. {page.title_markdown(hit.paper)}" + VISITED * seen)
            st.markdown(f":blue-badge[{page.score_text(hit)}]", help=page.score_help(hit),
                        width="content")
            button("Similar papers", replace(location, page=PAPER, paper_id=hit.paper_id),
                   key=f"{key}-similar", icon=":material/explore:", type="tertiary")
            with st.popover("Abstract", icon=":material/more_horiz:", help=DETAILS_HELP):
                details_ui(location, hit, key, spans)
        facts = page.facts_markdown(hit.paper, [note, versions_markdown(hit.versions)])
        if facts:
            st.caption(facts)
        snippet = explanations.snippet_markdown(hit.paper, spans)
        if snippet:
            st.container(key=f"snippet-{key}").markdown(snippet)


def details_ui(location: Location, hit: Hit, key: str, spans) -> None:
    """What a row shows on demand: the abstract (highlighted), the marks and the collections
    it may join."""
    st.markdown(rich_markdown(hit.paper.abstract, spans))
    with st.container(horizontal=True):
        mark_buttons_ui(location, hit.paper_id, key)
    add_to_collection_ui(hit.paper_id, key)


def hits_ui(location: Location, hits: Sequence[Hit], lights: Iterator[Lights], prefix: str,
            terms: bool = True) -> None:
    for hit, (spans, shared) in zip(hits, lights):
        note = explanations.terms_note(shared) if terms else ""
        hit_ui(location, hit, f"{prefix}-{hit.paper_id}", spans, note)


def downloads_ui(items: Sequence, root: str, name: str, key: str) -> None:
    """CSV and the citation formats of `items` (hits or papers), as download buttons in a
    "Download" popover (one small button above the rows)."""
    if not items:
        return
    items = public.public_items(items, root)
    with st.popover("Download", icon=":material/download:"), st.container(horizontal=True):
        st.download_button("CSV", to_csv(items), f"{name}.csv", "text/csv", key=f"{key}-csv",
                           icon=":material/download:", on_click="ignore")
        citations_ui(items, name, key)


def citations_ui(items: Sequence, name: str, key: str, label: str = "{format}") -> None:
    """One download button per citation format (BibTeX, RIS, CSL-JSON) of `items` (public
    already), `label` naming the format ("{format}"), and whether to write the abstracts.
    No items: the buttons are shown disabled."""
    abstract = st.session_state.get(f"{key}-abstract", False)
    for form in exports.FORMATS:  # written when clicked (pure functions: no session needed)
        text = functools.partial(form.write, items, abstract=abstract) if items else ""
        st.download_button(label.format(format=form.label), text, f"{name}.{form.suffix}",
                           form.mime, key=f"{key}-{form.suffix}", disabled=not items,
                           icon=":material/download:", on_click="ignore")
    st.checkbox(exports.ABSTRACT_LABEL, key=f"{key}-abstract", help=exports.ABSTRACT_HELP)
