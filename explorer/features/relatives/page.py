"""Close relatives in the app: the corpus-wide page and the part of a paper's page (the logic is
in explorer.features.relatives.ui)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import streamlit as st

from explorer.app.kit import Page, button
from explorer.errors import ExplorerError
from explorer.features.relatives import ui as relatives
from explorer.features.relatives.query import DEFAULT_THRESHOLD
from explorer.query.engine import Explorer
from explorer.ui.links import PAPER, RELATIVES, Location


def relatives_part(location: Location, shown: Sequence[relatives.Shown], key: str,
                   threshold: float = DEFAULT_THRESHOLD) -> None:
    """A paper's close relatives (at `threshold`, the index's: relatives.default_threshold):
    each with its cosine, facts and the sentences tying them."""
    st.markdown(relatives.PART)
    st.caption(relatives.PART_NOTE.format(threshold=threshold))
    if not shown:
        st.caption(relatives.NONE.format(threshold=threshold))
    for number, pair in enumerate(shown):
        pair_ui(location, pair, f"{key}-{number}", papers=(pair.other,))


def pair_ui(location: Location, pair: relatives.Shown, key: str, papers: Sequence) -> None:
    with st.container(border=True, key=f"relative-{key}"):
        st.markdown(relatives.score_markdown(pair))
        for number, paper in enumerate(papers):
            text, opener = st.columns([6, 1.2], vertical_alignment="center")
            text.markdown(relatives.paper_markdown(paper))
            with opener:
                button("Open", replace(location, page=PAPER, paper_id=paper.paper_id),
                       key=f"{key}-open-{number}", type="tertiary", icon=":material/article:")
        st.markdown(relatives.sentences_markdown(pair))


def relatives_page(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    st.markdown(relatives.TITLE)
    try:
        shown = relatives.shown_pairs(explorer, location.top_k)
        intro = relatives.intro_markdown(explorer)
    except ExplorerError:  # an index built before relatives were stored
        st.warning(relatives.missing_markdown(hint))
        return
    st.caption(intro)
    if empty := relatives.empty_markdown(explorer):
        st.info(empty)
    for number, pair in enumerate(shown):
        pair_ui(location, pair, f"all-{number}", papers=(pair.paper, pair.other))


PAGE = Page(RELATIVES, relatives_page, "Close relatives", ":material/join_inner:")
