"""The What's new page: the papers the latest builds added, nearest first to each saved
collection (the logic: features/new/ui.py)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from explorer.app.kit import Page, button
from explorer.errors import ExplorerError
from explorer.features.collections.page import collection_shelf
from explorer.features.new import ui as new
from explorer.features.references.ui import paper_markdown
from explorer.query.engine import Explorer
from explorer.ui.links import NEW, PAPER, Location
from explorer.wording import score_line


def new_page(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    st.markdown(new.TITLE)
    choices = new.recorded(explorer)
    if not choices:
        st.info("This index has recorded one build only, so nothing is new yet: add papers "
                "and build it again, and this page lists the papers that build added.")
        return
    since = st.selectbox("Added since", choices, format_func=new.build_label, key="new-since")
    try:
        found = new.near_collections(explorer, collection_shelf(), since.build_id)
    except ExplorerError as exc:
        st.error(str(exc))
        return
    st.caption(new.intro_markdown(found[0].found) if found and found[0].found else "")
    if len(found) == 1 and not found[0].name:
        st.caption(new.NO_COLLECTION)
    else:
        st.caption(new.WEAK_NOTE)
    for number, near in enumerate(found):
        _near_ui(explorer, location, near, f"c{number}")


def _near_ui(explorer: Explorer, location: Location, near: new.Near, key: str) -> None:
    if near.name:
        st.markdown(new.heading_markdown(near.name))
    if empty := new.empty_markdown(near):
        st.caption(empty)
        return
    for number, hit in enumerate(near.found.hits):  # type: ignore[union-attr]
        with st.container(border=True, key=f"new-{key}-{number}"):
            text, opener = st.columns([6, 1.2], vertical_alignment="center")
            text.markdown(paper_markdown(hit.paper))
            if hit.strength is not None or hit.percentile is not None:
                nearest = new.nearest_markdown(near.found.near, number, explorer)  # type: ignore[union-attr]
                text.caption(score_line(hit.score, hit.strength, hit.percentile,
                                        hit.compared_with, name="cos")
                             + (f" · {nearest}" if nearest else ""))
            with opener:
                button("Open", replace(location, page=PAPER, paper_id=hit.paper_id),
                       key=f"new-{key}-open-{number}", type="tertiary",
                       icon=":material/article:")


PAGE = Page(NEW, new_page, "What's new", ":material/new_releases:")
