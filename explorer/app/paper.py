"""A paper's page: its abstract, close relatives and similar papers."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from explorer.app.kit import Page, button, downloads_ui, hits_ui, mark_buttons_ui
from explorer.features.explanations import ui as explanations
from explorer.features.explanations.ui import lit
from explorer.features.graph.page import graph_part
from explorer.features.references.page import references_part
from explorer.features.relatives import ui as relatives
from explorer.features.relatives.page import relatives_part
from explorer.features.show.page import fields_part
from explorer.features.topics import ui as topics
from explorer.features.years.page import years_ui
from explorer.query.engine import Explorer
from explorer.ui import page, public
from explorer.ui.links import MAP, PAPER, TOPIC, Location
from explorer.ui.results import ranked
from explorer.ui.text import escape_markdown, rich_markdown


def paper_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    paper = explorer.paper(location.paper_id)
    st.markdown(f"### {page.badged_title(paper, bold=False)}")
    if paper.title_is_derived:
        st.caption(page.DERIVED)
    st.caption(page.facts_markdown(paper, [escape_markdown(f"id {paper.paper_id}")]))
    fields_part(explorer, location)  # versions and every field: features/show/
    spans = []
    if location.query:
        spans, _ = next(lit(explorer, [paper], location.query))
        st.caption(explanations.highlighted_note(location.query))
    st.markdown(rich_markdown(paper.abstract, spans))
    with st.container(horizontal=True):
        mark_buttons_ui(location, paper.paper_id, "open")
        button("Show on the map", replace(location, page=MAP), icon=":material/map:", key="open-map")
        for topic in topics.paper_topics(explorer, paper.paper_id):
            button(topics.name_markdown(topic, 40), replace(location, page=TOPIC,
                                                            topic=topic.topic_id),
                   icon=":material/category:", key=f"open-topic-{topic.topic_id}")
        if public.safe_url(paper.url):
            st.link_button("Open source page", paper.url, icon=":material/open_in_new:")
    relatives_part(location, relatives.paper_relatives(explorer, paper.paper_id, location.top_k), "rel",
                   relatives.default_threshold(explorer))
    graph_part(explorer, location)
    references_part(explorer, location)
    hits = ranked(explorer, location, "similar", paper.paper_id)
    st.markdown("#### Similar papers")
    downloads_ui(hits, root, f"similar-to-{paper.paper_id}", "similar")
    hits_ui(location, hits, lit(explorer, hits, other_id=paper.paper_id), "n")
    years_ui(st.empty(), explorer, location, "similar", paper.paper_id)


PAGE = Page(PAPER, paper_ui)
