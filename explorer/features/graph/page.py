"""The neighbourhood graph on a paper's page (the logic is in explorer.features.graph.ui)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from explorer.app.kit import go, reported
from explorer.features.graph.query import neighbourhood
from explorer.features.graph.ui import HEIGHT, graph_chart, legend
from explorer.features.topics.ui_map import picked_ids
from explorer.query.engine import Explorer
from explorer.ui.links import PAPER, Location


@reported
def on_graph_click(key: str) -> None:
    """A click on a paper of the graph opens it (a click on the open paper does nothing)."""
    location = st.session_state.location
    paper_ids = picked_ids(st.session_state[key].selection, ())
    if paper_ids and paper_ids[0] != location.paper_id:
        go(replace(location, page=PAPER, paper_id=paper_ids[0]))


def graph_part(explorer: Explorer, location: Location) -> None:
    """The open paper's neighbourhood graph, folded in an expander that starts open."""
    with st.expander("Neighbourhood graph", expanded=True, icon=":material/hub:"):
        graph = neighbourhood(explorer, location.paper_id)
        st.caption(legend(explorer, graph))
        key = f"graph-{location.paper_id}-{st.session_state.get('map_version', 0)}"
        st.pydeck_chart(graph_chart(explorer, graph), key=key, height=HEIGHT, width="stretch",
                        on_select=reported(lambda: on_graph_click(key)),
                        selection_mode="single-object")
