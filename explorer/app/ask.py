"""The Ask page: the start page, and a question's results."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from explorer import wording
from explorer.app.kit import Page, button, downloads_ui, hits_ui
from explorer.features.explanations import ui as explanations
from explorer.features.explanations.ui import lit
from explorer.features.topics.table import corpus_map
from explorer.features.years.page import years_ui
from explorer.query.engine import Explorer
from explorer.ui import page
from explorer.ui.links import ASK, Location
from explorer.ui.public import public_facets
from explorer.ui.results import named, ranked
from explorer.ui.text import escape_markdown


def ask_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    if not location.query:  # the start page
        start_ui(explorer, location)
        return
    for note in (page.query_note(location.query), explorer.query_note(location.query)):
        if note:  # the question's own words are quoted: escaped
            st.info(escape_markdown(note), icon=":material/info:")
    hits = ranked(explorer, location, "search", location.query)
    if not hits:  # the chart still shows the years with matches when a year filter has none
        years_ui(st.empty(), explorer, location, "search", location.query)
        st.warning(page.NO_MATCH)
        return
    found = named(explorer, location)  # a title or an author's name: those papers first
    if found:
        st.markdown(page.named_markdown(found))
    elif wording.nothing_relevant(hit.strength for hit in hits):
        st.warning(wording.NOTHING_RELEVANT, icon=":material/search_off:")
    explained = explanations.explained_count(len(hits), explorer.has_sentence_vectors)
    with st.container(horizontal=True, vertical_alignment="center"):  # one row above the rows
        st.caption(page.ASKED.format(count=len(hits)) + (
            " " + explanations.ON_DEMAND_NOTE.format(count=explained, command=hint)
            if explained < len(hits) else ""))
        downloads_ui(hits, root, "paper-explorer-results", "results")
    hits_ui(location, hits, lit(explorer, hits, location.query), "q")
    years_ui(st.empty(), explorer, location, "search", location.query)  # below: titles first


def start_ui(explorer: Explorer, location: Location) -> None:
    """The start page: what the corpus is, and questions about its largest topics."""
    st.markdown(page.corpus_markdown(explorer.manifest, public_facets(explorer)))
    st.markdown(page.START)
    with st.container(horizontal=True, key="examples"):
        for number, example in enumerate(page.example_questions(corpus_map(explorer))):
            button(escape_markdown(example), replace(location, page=ASK, query=example),
                   key=f"example-{number}", icon=":material/help:")


PAGE = Page(ASK, ask_ui, "Ask", ":material/search:")
