"""What the app's pages are made of: the page record, the callbacks' wrapper (`reported`),
navigation (`go`, `button`) and the result cards."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

import streamlit as st

from explorer.errors import ExplorerError
from explorer.features.explanations import ui as explanations
from explorer.features.explanations.ui import Lights
from explorer.features.exports import ui as exports
from explorer.features.versions.ui import versions_markdown
from explorer.query.engine import Explorer, Hit
from explorer.ui import page, public, trail
from explorer.ui.export import to_csv
from explorer.ui.links import PAPER, Location
from explorer.ui.text import escape_markdown, rich_markdown
from explorer.ui.trail import step_of

LOG = logging.getLogger("paper_explorer.app")


@dataclass(frozen=True)
class Page:
    """A page of the app: its name in a Location (ui.links), what draws it, and its sidebar
    button's label and icon (None: no button, e.g. the paper page). `show` gets the explorer,
    the location, the corpus root (public_path) and the rebuild hint."""

    name: str
    show: Callable[[Explorer, Location, str, str], None]
    label: str | None = None
    icon: str | None = None


# -- callbacks: each one `reported` ------------------------------------------------------------------
def reported(callback: Callable[..., None]) -> Callable[..., None]:
    """`callback` as a widget's callback: a failure shows a plain message at the top of the page
    (the traceback goes to the server log), never Streamlit's error page (callbacks run before
    the script, outside shell.run()'s handler). Every callback of the app is one (test_callbacks.py)."""
    @functools.wraps(callback)
    def run(*args, **kwargs) -> None:
        try:
            callback(*args, **kwargs)
        except ExplorerError as exc:
            st.session_state.action_error = escape_markdown(public.public_message(str(exc)))
        except Exception as exc:  # a plain message here, the traceback in the server log
            LOG.exception("callback %s failed", getattr(callback, "__name__", "?"))
            st.session_state.action_error = page.action_failed(exc)
    return run


@reported
def go(location: Location) -> None:
    """Show `location` (a widget's callback): add it to the trail, sync the search boxes."""
    st.session_state.location = location
    st.session_state.trail = trail.push(st.session_state.trail, step_of(location))
    st.session_state.query_box, st.session_state.steer_box = location.query, location.steer
    st.session_state.map_version = st.session_state.get("map_version", 0) + 1


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
    """One result card: title, score, facts, best sentence, expandable abstract, actions."""
    with st.container(border=True, key=f"card-{key}"):
        head, score = st.columns([4, 1.6], vertical_alignment="top")  # room for "strong match"
        head.markdown(f"{hit.rank}\\. {page.title_markdown(hit.paper)}")
        score.markdown(f":blue-badge[{page.score_text(hit)}]", help=page.score_help(hit))
        facts = page.facts_markdown(hit.paper, [note, versions_markdown(hit.versions)])
        snippet = explanations.snippet_markdown(hit.paper, spans)
        if facts:
            st.caption(facts)
        if snippet:
            st.markdown(snippet)
        with st.expander("Abstract"):
            st.markdown(rich_markdown(hit.paper.abstract, spans))
        with st.container(horizontal=True):
            button("Similar papers", replace(location, page=PAPER, paper_id=hit.paper_id),
                   key=f"{key}-similar", icon=":material/explore:")
            mark_buttons_ui(location, hit.paper_id, key)


def hits_ui(location: Location, hits: Sequence[Hit], lights: Iterator[Lights], prefix: str,
            terms: bool = True) -> None:
    for hit, (spans, shared) in zip(hits, lights):
        note = explanations.terms_note(shared) if terms else ""
        hit_ui(location, hit, f"{prefix}-{hit.paper_id}", spans, note)


def downloads_ui(items: Sequence, root: str, name: str, key: str) -> None:
    """CSV and the citation formats of `items` (hits or papers), as download buttons."""
    if not items:
        return
    items = public.public_items(items, root)
    with st.container(horizontal=True):
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
