"""References and cited-by on a paper's page (the texts: features/references/ui.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import streamlit as st

from explorer.app.kit import button
from explorer.corpus.papers import Paper
from explorer.features.references import ui as references
from explorer.query.engine import Explorer
from explorer.ui.links import PAPER, Location


def references_part(explorer: Explorer, location: Location) -> None:
    """The open paper's references and the papers citing it, inside the corpus; nothing when
    it has neither."""
    found = references.linked(explorer, location.paper_id)
    if not found.references and not found.cited_by:
        return
    for heading, papers, key in ((references.REFERENCES, found.references, "refs"),
                                 (references.CITED_BY, found.cited_by, "citedby")):
        if papers:
            _papers_ui(location, heading, papers, key)


def _papers_ui(location: Location, heading: str, papers: Sequence[Paper], key: str) -> None:
    st.markdown(references.heading_markdown(heading, len(papers)))
    with st.container(key=f"references-{key}"):
        for number, paper in enumerate(papers[:references.SHOWN]):
            text, opener = st.columns([6, 1.2], vertical_alignment="center")
            text.markdown(references.paper_markdown(paper))
            with opener:
                button("Open", replace(location, page=PAPER, paper_id=paper.paper_id),
                       key=f"{key}-open-{number}", type="tertiary", icon=":material/article:")
        if more := references.more_markdown(len(papers) - references.SHOWN):
            st.caption(more)
