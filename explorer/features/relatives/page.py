"""Close relatives in the app: the corpus-wide page and the part of a paper's page (the logic is
in explorer.features.relatives.ui)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import streamlit as st

from explorer.app.kit import Page, button
from explorer.errors import ExplorerError
from explorer.features.relatives import ui as twins
from explorer.query.engine import Explorer
from explorer.ui.links import PAPER, TWINS, Location


def relatives_ui(location: Location, shown: Sequence[twins.Shown], key: str) -> None:
    """A paper's close relatives: each with its cosine, facts and the sentences tying them."""
    st.markdown(twins.PART)
    st.caption(twins.PART_NOTE.format(threshold=twins.DEFAULT_THRESHOLD))
    if not shown:
        st.caption(twins.NONE.format(threshold=twins.DEFAULT_THRESHOLD))
    for number, pair in enumerate(shown):
        pair_ui(location, pair, f"{key}-{number}", papers=(pair.other,))


def pair_ui(location: Location, pair: twins.Shown, key: str, papers: Sequence) -> None:
    with st.container(border=True, key=f"twin-{key}"):
        st.markdown(twins.score_markdown(pair))
        for number, paper in enumerate(papers):
            text, opener = st.columns([6, 1.2], vertical_alignment="center")
            text.markdown(twins.paper_markdown(paper))
            with opener:
                button("Open", replace(location, page=PAPER, paper_id=paper.paper_id),
                       key=f"{key}-open-{number}", type="tertiary", icon=":material/article:")
        st.markdown(twins.sentences_markdown(pair))


def twins_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    st.markdown(twins.TITLE)
    try:
        shown, intro = twins.corpus_pairs(explorer, location.top_k), twins.intro_markdown(explorer)
    except ExplorerError:  # an index built before relatives were stored
        st.warning(twins.missing_markdown(hint))
        return
    st.caption(intro)
    if empty := twins.empty_markdown(explorer):
        st.info(empty)
    for number, pair in enumerate(shown):
        pair_ui(location, pair, f"all-{number}", papers=(pair.paper, pair.other))


PAGE = Page(TWINS, twins_ui, "Close relatives", ":material/join_inner:")
