"""Saved collections in the app, on the Marked page (the logic is in
explorer.features.collections.ui)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from explorer.app.moves import go, reported
from explorer.errors import ExplorerError
from explorer.features.collections import ui as saved
from explorer.features.collections.records import MAX_NAME_CHARS
from explorer.features.collections.visitors import PRIVATE, Shelf, sharing, valid_key
from explorer.query.engine import Explorer
from explorer.settings import Settings
from explorer.ui.links import Location

VISITOR_KEY_JS = Path(saved.__file__).with_name("visitor_key.js")


def collections_mode() -> str:
    """Whose collections the web changes: collections.visitors.OWNER_MODE, PRIVATE or SHARED."""
    return sharing(st.get_option("server.address"), Settings.from_env().visitors)


def collection_shelf() -> Shelf:
    """The collections this session sees (its browser's own and the owner's on a shared server)."""
    return Shelf.of(Settings.from_env().data_dir, collections_mode(),
                    st.session_state.get("visitor_key"))


def visitor_key_ui() -> None:
    """On a shared server, until this session knows it: the browser's key (kept in its local
    storage by visitor_key.js, sent over the session's connection, never shown or linked)."""
    if "visitor_key" in st.session_state or collections_mode() != PRIVATE:
        return
    mount = st.components.v2.component("paper_explorer_visitor_key",
                                       js=VISITOR_KEY_JS.read_text(encoding="utf-8"))
    mount(key="visitor-key-box", on_browser_key_change=remember_key, height=0)


@reported
def remember_key() -> None:
    key = getattr(st.session_state.get("visitor-key-box"), "browser_key", None)
    st.session_state.visitor_key = key if valid_key(key) else ""  # "": the browser keeps none


@reported
def on_collection(action, *args) -> None:
    """Run a saved-collection action (a callback): show what it leaves, or why it failed."""
    try:
        outcome = action(collection_shelf(), *args)
    except ExplorerError as exc:
        st.session_state.collection_note = ("error", saved.error_markdown(str(exc)))
        return
    st.session_state.collection, st.session_state.collection_note = outcome.opened, (
        "success", outcome.message)
    if outcome.opened is not None:  # the list shows the collection now open
        st.session_state.collection_pick = outcome.opened.name
    if outcome.location != st.session_state.location:
        go(outcome.location)


def collections_ui(explorer: Explorer, location: Location) -> None:
    """Save the liked papers as a collection; open, save, rename, share or delete one."""
    visitor_key_ui()
    shelf, opened = collection_shelf(), st.session_state.get("collection")
    kind, note = st.session_state.pop("collection_note", (None, ""))
    if kind:
        (st.error if kind == "error" else st.success)(note)
    with st.container(border=True, key="collections"):
        if shelf.owners is not None:
            st.caption(saved.visitor_note(st.session_state.get("visitor_key")))
        if opened:
            open_collection_ui(shelf, opened, location)
        catalog = shelf.catalog()
        for problem in saved.problems_markdown(catalog):
            st.warning(problem)
        names = catalog.names()
        with st.container(horizontal=True, vertical_alignment="bottom"):
            st.selectbox(saved.OPEN_LABEL, names, key="collection_pick",
                         format_func=lambda name: saved.option_label(name, name in catalog.read_only),
                         placeholder=saved.PICK if names else saved.NO_COLLECTIONS,
                         disabled=not names)
            st.button("Open", key="collection-open", icon=":material/folder_open:", disabled=not names,
                      on_click=reported(lambda: on_collection(
                          saved.open_collection, st.session_state.collection_pick, location, explorer)))
        with st.container(horizontal=True, vertical_alignment="bottom"):
            st.text_input(saved.NAME_LABEL, key="collection_name", placeholder=saved.NAME_HINT,
                          max_chars=MAX_NAME_CHARS)
            st.button("Save", key="collection-save", icon=":material/bookmark_add:",
                      disabled=shelf.waiting, on_click=reported(lambda: on_collection(
                          saved.save_new, st.session_state.collection_name, location)))


def add_to_collection_ui(paper_id: str, key: str) -> None:
    """A result row's 'add to a collection' (in its popover): the session's own collections."""
    names = saved.addable(collection_shelf().catalog())
    if not names:
        st.caption(saved.NOTHING_TO_ADD_TO)
        return
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.selectbox(saved.ADD_LABEL, names, key=f"{key}-pick",
                     format_func=lambda name: saved.option_label(name, False))
        st.button("Add", key=f"{key}-add", icon=":material/bookmark_add:",
                  on_click=on_add, args=(paper_id, f"{key}-pick"))


@reported
def on_add(paper_id: str, box: str) -> None:
    """Add `paper_id` to the collection picked in `box` (a callback); a toast says how it went.
    Added to the collection open in this session: the paper is marked liked too (the open
    collection is the liked set: saving it again keeps the paper)."""
    opened = st.session_state.get("collection")
    try:
        message, now = saved.add_paper(collection_shelf(), st.session_state[box], paper_id, opened)
    except ExplorerError as exc:
        st.toast(saved.error_markdown(str(exc)), icon=":material/error:")
        return
    st.session_state.collection = now
    st.toast(message, icon=":material/bookmark_added:")
    location = st.session_state.location
    if now is not opened and paper_id not in location.like:
        go(location.mark(paper_id, True))


def open_collection_ui(shelf: Shelf, opened: saved.Opened, location: Location) -> None:
    try:
        changed = saved.is_changed(opened, shelf, location)
    except ExplorerError as exc:  # deleted or broken elsewhere: it is no longer open here
        st.session_state.collection = None
        st.warning(saved.error_markdown(str(exc)))
        return
    st.caption(saved.open_caption(opened, location))
    if opened.missing:
        st.warning(saved.missing_markdown(opened.missing), icon=":material/help:")
    if opened.read_only:
        st.caption(saved.READ_ONLY_NOTE)
    with st.container(horizontal=True):
        if not opened.read_only:
            st.button("Save changes", key="collection-update", disabled=not changed,
                      icon=":material/save:", on_click=on_collection,
                      args=(saved.save_changes, opened, location))
            with st.popover("Rename", icon=":material/edit:"):
                box = saved.rename_key(opened)  # a fresh box for each open collection
                st.text_input("New name", key=box, value=opened.name, max_chars=MAX_NAME_CHARS)
                st.button("Rename", key="collection-rename", on_click=reported(lambda: on_collection(
                    saved.rename_open, opened, st.session_state[box], location)))
        with st.popover("Share", icon=":material/link:"):
            url, cut = saved.collection_link(st.context.url or "", location.like + opened.missing)
            st.code(url, language=None, wrap_lines=True)
            if cut:
                st.caption(cut)
        if not opened.read_only:
            with st.popover("Delete", icon=":material/delete:"):
                st.button(f"Delete {saved.name_markdown(opened.name, 40)}", key="collection-delete",
                          type="primary", on_click=on_collection,
                          args=(saved.delete_open, opened, location))
