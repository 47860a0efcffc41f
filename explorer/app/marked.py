"""The Marked page: the liked and unliked papers, saved collections and recommendations."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from explorer.app.kit import Page, button, downloads_ui, go, hits_ui, reported
from explorer.features.collections.page import collections_ui
from explorer.features.explanations.ui import lit
from explorer.features.years.page import years_ui
from explorer.query.engine import MAX_QUESTION_CHARS, Explorer
from explorer.ui import page
from explorer.ui.links import MARKED, PAPER, Location
from explorer.ui.results import ranked
from explorer.ui.text import escape_markdown


def marked_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    st.markdown("### Marked papers")
    collections_ui(explorer, location)
    if not location.like and not location.unlike:
        st.info(page.MARK_HINT)
    for label, ids in ((":material/thumb_up: More like these", location.like),
                       (":material/thumb_down: Less like these", location.unlike)):
        if ids:
            st.markdown(f"**{label}**")
        for paper_id in ids:
            title, opener, dropper = st.columns([6, 1.1, 1.3], vertical_alignment="center")
            title.markdown(page.title_markdown(explorer.paper(paper_id)))
            with opener:
                button("Open", replace(location, page=PAPER, paper_id=paper_id),
                       key=f"m-{paper_id}-open", type="tertiary", icon=":material/article:")
            with dropper:
                button("Remove", location.mark(paper_id, None), key=f"m-{paper_id}-drop",
                       icon=":material/close:", type="tertiary")
    downloads_ui([explorer.paper(pid) for pid in location.like], root, "liked-papers", "marked")
    st.text_input(page.STEER, key="steer_box", max_chars=MAX_QUESTION_CHARS, on_change=reported(
        lambda: go(replace(st.session_state.location, steer=st.session_state.steer_box))))
    if location.steer.strip() and (note := explorer.query_note(location.steer)):
        st.info(escape_markdown(note), icon=":material/info:")
    if location.like or location.steer.strip():  # like the liked, unlike the unliked, steered
        hits = ranked(explorer, location, "recommend", location.like, location.unlike, location.steer)
        st.markdown("#### Recommended from the marked set")
        downloads_ui(hits, root, "recommendations", "recs")
        # each card's sentence closest to the steering words, else to the liked papers
        hits_ui(location, hits, lit(explorer, hits, location.steer, top_k=1, like=location.like),
                "r", terms=False)
        years_ui(st.empty(), explorer, location, "recommend", location.like, location.unlike,
                 location.steer)


PAGE = Page(MARKED, marked_ui, "Marked ({marked})", ":material/bookmarks:")
