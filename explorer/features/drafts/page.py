"""Check my draft in the app (the logic is in explorer.features.drafts.ui)."""

from __future__ import annotations

import streamlit as st

from explorer.app.kit import Page, citations_ui, hit_ui, reported
from explorer.features.collections import ui as saved
from explorer.features.collections.page import collection_shelf, visitor_key_ui
from explorer.features.drafts import ui as drafts
from explorer.query.engine import Explorer
from explorer.ui import public
from explorer.ui.links import DRAFT, Location
from explorer.ui.text import escape_markdown


@reported
def on_check(explorer: Explorer) -> None:
    """Check the draft (the button's callback): keep the answer, or why there is none."""
    state = st.session_state
    given = drafts.Given(state.get("draft_text", ""), state.get("draft_file"), state.get("draft_bib"),
                         state.get("draft_cited"), state.get("draft_collection"))
    state.draft_checked, state.draft_error = drafts.check(explorer, given, collection_shelf(),
                                                          state.location.top_k)


def draft_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    st.markdown("### Check my draft")
    st.caption(drafts.INTRO)
    st.text_area(drafts.TEXT_LABEL, key="draft_text", height=200, placeholder=drafts.TEXT_HINT,
                 max_chars=drafts.MAX_DRAFT_BYTES)  # a character is at least a byte
    st.file_uploader(drafts.FILE_LABEL, type=drafts.DRAFT_SUFFIXES, key="draft_file",
                     max_upload_size=drafts.DRAFT_UPLOAD_MIB)
    source = st.radio(drafts.CITED_LABEL, drafts.CITED_SOURCES, key="draft_cited", horizontal=True)
    if source == drafts.UPLOAD:
        st.file_uploader(drafts.REFERENCES_LABEL, type=drafts.REFERENCE_SUFFIXES, key="draft_bib",
                         max_upload_size=drafts.REFERENCE_UPLOAD_MIB)
    elif source == drafts.SAVED:
        visitor_key_ui()
        catalog = collection_shelf().catalog()
        st.selectbox(saved.OPEN_LABEL, catalog.names(), key="draft_collection",
                     format_func=lambda name: saved.option_label(name, name in catalog.read_only),
                     placeholder=saved.NO_COLLECTIONS, disabled=not catalog.entries)
    st.button("Check my draft", key="draft-check", type="primary", icon=":material/fact_check:",
              on_click=on_check, args=(explorer,))
    if st.session_state.get("draft_error"):
        st.error(st.session_state.draft_error)
    if st.session_state.get("draft_checked"):
        missed_ui(explorer, location, st.session_state.draft_checked, root)


def missed_ui(explorer: Explorer, location: Location, checked: drafts.Checked, root: str) -> None:
    result = checked.result
    if checked.cited_note:
        st.caption(checked.cited_note)
    for note in result.notes:
        st.info(escape_markdown(note), icon=":material/info:")
    if not result.papers:
        st.warning(drafts.NO_RESULTS)
        return
    st.caption(drafts.summary_markdown(result, len(explorer.papers)))
    for passage, papers in result.groups():
        st.markdown(drafts.passage_markdown(passage.number, passage.text))
        for paper in papers:
            hit_ui(location, paper.hit, f"d-{paper.paper_id}", drafts.paper_spans(paper),
                   drafts.card_note(paper, passage))
    marked = drafts.marked_papers(result, location.like)
    with st.container(horizontal=True, key="draft-export"):
        citations_ui(public.public_items(marked, root), "papers-to-add", "draft-export",
                     drafts.EXPORT_LABEL.replace("{count}", str(len(marked))))


PAGE = Page(DRAFT, draft_ui, "Check my draft", ":material/fact_check:")
