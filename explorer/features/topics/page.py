"""The corpus map and the topics in the app (the logic is in explorer.features.topics.ui)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from explorer.app.kit import Page, button, go, hits_ui, reported
from explorer.features.explanations.ui import lit
from explorer.features.topics import ui as topics
from explorer.features.topics.ui import corpus_figure
from explorer.features.topics.ui_map import caption, clicked_paper_id
from explorer.features.years import ui as years
from explorer.query.engine import Explorer
from explorer.ui.links import MAP, PAPER, TOPIC, Location
from explorer.ui.text import escape_markdown


@reported
def on_map_click(key: str) -> None:
    paper_id = clicked_paper_id(st.session_state[key].selection.points)
    if paper_id is not None:
        go(replace(st.session_state.location, page=PAPER, paper_id=paper_id))


def map_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    figure = corpus_figure(explorer, location)
    if figure is None:
        st.warning(f"This index has no stored map. Rebuild it: `{hint}`")
        return
    table, zoom = explorer.topic_table, topics.known_topic(explorer.topic_table, location.topic)
    box = f"zoom-{zoom}"  # a fresh box for each zoom: it shows the location's
    st.selectbox(topics.MAP_ZOOM, topics.zoom_choices(table), key=box,
                 index=topics.zoom_choices(table).index(zoom),
                 format_func=lambda topic_id: topics.option_label(table, topic_id),
                 on_change=reported(lambda: go(replace(st.session_state.location, page=MAP,
                                                       topic=st.session_state[box]))))
    st.caption(caption(bool(location.paper_id), len(explorer.papers)))
    key = f"map-{st.session_state.get('map_version', 0)}"
    st.plotly_chart(figure, key=key, on_select=reported(lambda: on_map_click(key)),
                    selection_mode="points", config={"displaylogo": False, "scrollZoom": True})


def topic_ui(explorer: Explorer, location: Location, root: str, hint: str) -> None:
    """One topic (?topic=ID): its papers, key phrases, neighbours; without one, all of them."""
    table = explorer.topic_table
    if not table.topics():
        st.warning(topics.NO_TOPICS.format(command=hint))
        return
    topic_id = topics.known_topic(table, location.topic)
    if topic_id is None:
        topics_list_ui(location, table, hint)
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


def topics_list_ui(location: Location, table, hint: str) -> None:
    """Every area (its name, size and key phrases) with its finer topics, two areas a row."""
    st.markdown("### Topics")
    st.caption(topics.LIST_INTRO if table.has_areas else topics.ONE_LEVEL.format(command=hint))
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
