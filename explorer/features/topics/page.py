"""The corpus map and the topics in the app (the logic is in explorer.features.topics.ui)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from explorer.app.kit import Page, button, go, hits_ui, reported
from explorer.corpus.papers import Paper
from explorer.features.explanations.ui import lit
from explorer.features.topics import ui as topics
from explorer.features.topics.table import corpus_map, topic_table
from explorer.features.topics.ui import corpus_chart
from explorer.features.topics.ui_lasso import LASSO_NOTE, lasso_figure, lasso_rows, lassoed_ids
from explorer.features.topics.ui_map import HEIGHT, caption, picked_ids, selection_note
from explorer.features.years import ui as years
from explorer.query.engine import Explorer
from explorer.ui.links import MAP, MAX_MARKED, PAPER, TOPIC, Location
from explorer.ui.text import escape_markdown

SELECTING, LASSO = "Select papers", "Box or lasso"
CLICK_MODES = ("Open a paper", SELECTING, LASSO)


@reported
def on_map_click(key: str, papers: Sequence[Paper]) -> None:
    """A click in "open" mode opens the paper under it (selections are read by map_ui)."""
    paper_ids = picked_ids(st.session_state[key].selection, papers)
    if paper_ids and st.session_state.get("map_click") != SELECTING:
        go(replace(st.session_state.location, page=PAPER, paper_id=paper_ids[0]))


def static_folder() -> Path | None:
    """The app's static folder when Streamlit serves it (`server.enableStaticServing`): the
    folder `static` beside the app's script; None when not served."""
    context = get_script_run_ctx()
    if not st.get_option("server.enableStaticServing") or context is None:
        return None
    return Path(context.main_script_path).parent / "static"


def map_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    """The map: the zoom and the click mode first, then the mode's own caption (before any
    chart is made, so a rerun never shows the other mode's words while it runs), then the
    deck.gl chart, or in LASSO mode the Plotly chart alone."""
    st.set_page_config(layout="wide")  # the map takes the window's width
    if corpus_map(explorer) is None:
        st.warning(f"This index has no stored map. Rebuild it: `{hint}`")
        return
    table, zoom = topic_table(explorer), topics.known_topic(topic_table(explorer), location.topic)
    box = f"zoom-{zoom}"  # a fresh box for each zoom: it shows the location's
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.selectbox(topics.MAP_ZOOM, topics.zoom_choices(table), key=box,
                     index=topics.zoom_choices(table).index(zoom), width=420,
                     format_func=lambda topic_id: topics.option_label(table, topic_id),
                     on_change=reported(lambda: go(replace(st.session_state.location, page=MAP,
                                                           topic=st.session_state[box]))))
        mode = st.segmented_control("A click on a paper", CLICK_MODES, key="map_click",
                                    default=CLICK_MODES[0])
    st.caption(LASSO_NOTE if mode == LASSO else caption(bool(location.paper_id),
                                                        len(explorer.papers), bool(location.query)))
    marked_ui(location)
    if mode == LASSO:
        lasso_ui(explorer, location, zoom)
        return
    chart = corpus_chart(explorer, location, static_folder())
    key = f"map-{st.session_state.get('map_version', 0)}-{mode == SELECTING}"
    event = st.pydeck_chart(chart, key=key, height=HEIGHT, width="stretch",
                            on_select=reported(lambda: on_map_click(key, explorer.papers)),
                            selection_mode="multi-object" if mode == SELECTING else "single-object")
    if mode == SELECTING:
        selection_ui(location, picked_ids(event.selection, explorer.papers))


def lasso_ui(explorer: Explorer, location: Location, zoom: str | None) -> None:
    """The map as a Plotly scatter (features/topics/ui_lasso.py): a box or a lasso selects."""
    table = topic_table(explorer)
    rows = lasso_rows(len(explorer.papers), None if zoom is None else table.rows(zoom))
    key = f"lasso-{st.session_state.get('map_version', 0)}-{zoom}"
    event = st.plotly_chart(lasso_figure(corpus_map(explorer), explorer.papers, rows), key=key,
                            on_select="rerun", selection_mode=("box", "lasso"),
                            config={"displaylogo": False, "scrollZoom": True})
    selection_ui(location, lassoed_ids(event.selection, explorer.papers, rows), "No paper selected.")


def selection_ui(location: Location, paper_ids: list[str], empty: str | None = None) -> None:
    """The papers picked on the map: how many, and a button that marks them "more like this"
    (`empty`: what to say when none is)."""
    new = [paper_id for paper_id in paper_ids if paper_id not in location.like]
    room = max(MAX_MARKED - len(location.like), 0)
    with st.container(horizontal=True, vertical_alignment="center"):
        st.caption(empty if empty and not paper_ids else selection_note(len(paper_ids), len(new),
                                                                         room))
        if new and room:
            st.button(f"Mark {min(len(new), room)} as more like this", key="map-mark",
                      icon=":material/thumb_up:", on_click=mark_selected,
                      args=(location, tuple(new[:room])))


@reported
def mark_selected(location: Location, paper_ids: tuple[str, ...]) -> None:
    """Mark `paper_ids` "more like this" (a history entry: Back, or marked_ui's Undo, undoes)."""
    target = replace(location, like=location.like + paper_ids,
                     unlike=tuple(p for p in location.unlike if p not in paper_ids))
    st.session_state.map_marked = (len(paper_ids), location, target)
    go(target)


def marked_ui(location: Location) -> None:
    """Right after a selection was marked: how many, and an Undo (back to before)."""
    count, before, after = st.session_state.get("map_marked") or (0, None, None)
    if not count or after != location:
        return
    with st.container(horizontal=True, vertical_alignment="center"):
        st.success(f"Marked {count:,} papers as more like this ({len(location.like):,} marked "
                   "in all).", icon=":material/thumb_up:")
        button("Undo", before, key="map-undo", icon=":material/undo:")


def topic_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    """One topic (?topic=ID): its papers, key phrases, neighbours; without one, all of them."""
    table = topic_table(explorer)
    if not table.topics():
        st.warning(topics.NO_TOPICS.format(command=hint))
        return
    topic_id = topics.known_topic(table, location.topic)
    if topic_id is None:
        topics_list_ui(location, table)
        return
    shown = topics.topic_page(explorer, topic_id)
    st.markdown(topics.heading_markdown(shown.topic))
    st.caption(escape_markdown(shown.report["growth"]))
    if view := topics.topic_years(explorer, topic_id):
        if view.charted:  # two years or fewer: in words only
            st.plotly_chart(years.chart(view.years, reference=view.reference), key="topic-years",
                            config=years.CONFIG)
        st.caption(years.caption(view, clickable=False))
    st.markdown(topics.phrases_markdown(shown.topic))
    for label, related in shown.related.items():
        with st.container(horizontal=True, vertical_alignment="center"):
            if related:
                st.caption(label.capitalize() + ":", width="content")
            for other in related:
                button(topics.name_markdown(other, 40), replace(location, topic=other.topic_id),
                       key=f"topic-{label}-{other.topic_id}", type="tertiary")
    with st.container(horizontal=True):
        button("Show on the map", replace(location, page=MAP), icon=":material/map:", key="topic-map")
        button("All topics", replace(location, topic=None), icon=":material/category:", key="topic-all")
    st.caption(topics.PAPERS_NOTE)
    hits_ui(location, shown.hits, lit(explorer, shown.hits, explained=False), "t", terms=False)


def topics_list_ui(location: Location, table) -> None:
    """Every area (its name, size and key phrases) with its finer topics, two areas a row."""
    st.markdown("### Topics")
    st.caption(topics.LIST_INTRO if table.has_areas else topics.ONE_LEVEL)
    tops = [topic for topic in table.topics() if topic.parent is None]
    for start in range(0, len(tops), 2):
        for column, topic in zip(st.columns(2), tops[start:start + 2]):
            with column.container(border=True, key=f"area-box-{topic.topic_id}"):
                button(topics.size_label(topic), replace(location, topic=topic.topic_id),
                       key=f"topics-{topic.topic_id}", type="secondary")
                if topic.phrases:
                    st.caption(topics.phrases_line(topic))
                with st.container(horizontal=True, gap="small"):
                    for child in map(table.topic, topic.children):
                        button(topics.size_label(child), replace(location, topic=child.topic_id),
                               key=f"topics-{child.topic_id}", type="tertiary")


MAP_PAGE = Page(MAP, map_ui, "Corpus map", ":material/scatter_plot:")

TOPIC_PAGE = Page(TOPIC, topic_ui, "Topics", ":material/category:")
