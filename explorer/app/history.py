"""The browser's history: the session's Location is mirrored in the URL, so that every move is a
history entry and Back / Forward reopen the page they name.

How Streamlit (1.67) behaves, read in its frontend (App.handlePageInfoChanged, onHistoryChange)
and its PRs #16831, #16989: `st.query_params.from_dict` with a new query string adds a browser
history entry (`history.pushState`; an unchanged one adds none); Back or Forward (`popstate`)
reruns the script with the restored query string (and its own write of that run replaces the
entry instead of adding one). So a run whose URL is not the one this session last wrote is a
move through the history (or a first visit): the location is read from the URL again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from explorer.query.engine import Explorer
from explorer.ui import page, public
from explorer.ui.links import PAPER, Location, encode
from explorer.ui.trail import push, step_of

VISITED_LIMIT = 1_000  # papers remembered as visited per session


def url_params() -> dict[str, list[str]]:
    """The URL's query parameters, each a list (repeated keys)."""
    return {key: st.query_params.get_all(key) for key in st.query_params}


def session_location(explorer: Explorer, facets: Mapping[str, Sequence],
                     top_k_choices: list[int]) -> tuple[Location, str | None]:
    """The session's location: the one it holds, unless the URL names another (the first run,
    or Back / Forward): then the URL's, the widgets set to it, the step added to the trail, with
    a notice naming the link's paper ids that the index lacks."""
    params = url_params()
    if "location" in st.session_state and params == st.session_state.get("written_url"):
        return st.session_state.location, None
    location, unknown = page.opened(params, facets, explorer)
    st.session_state.update(location=location,
                            trail=push(st.session_state.get("trail", ()), step_of(location)),
                            map_version=st.session_state.get("map_version", 0) + 1,
                            **page.widget_values(facets, location, top_k_choices))
    return location, public.unknown_notice(unknown) if unknown else None


def write_url(location: Location) -> None:
    """Mirror `location` in the URL (a new history entry when it changed) and remember the
    paper it opens as visited."""
    params = encode(location)
    st.session_state.written_url = params
    st.query_params.from_dict(params)
    if location.page == PAPER and location.paper_id:
        visited = st.session_state.setdefault("visited", {})
        visited.pop(location.paper_id, None)
        visited[location.paper_id] = True  # insertion order: the oldest first
        while len(visited) > VISITED_LIMIT:
            visited.pop(next(iter(visited)))


def visited(paper_id: str) -> bool:
    """True when this session has opened the paper `paper_id`."""
    return paper_id in st.session_state.get("visited", {})
