"""The app's moves: every widget callback's wrapper (`reported`) and the one way a session goes
somewhere (`go`). Kept apart from kit.py (the cards), so that a feature's page that the cards use
(features/collections/page.py) can use them too."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

import streamlit as st

from explorer.errors import ExplorerError
from explorer.ui import page, public, trail
from explorer.ui.links import Location
from explorer.ui.text import escape_markdown
from explorer.ui.trail import step_of

LOG = logging.getLogger("paper_explorer.app")


def reported(callback: Callable[..., None]) -> Callable[..., None]:
    """`callback` as a widget's callback: a failure shows a plain message at the top of the page
    (the traceback goes to the server log), never Streamlit's error page (callbacks run before
    the script, outside shell.run()'s handler). Every callback of the app is one (test_callbacks.py)."""
    @functools.wraps(callback)
    def run(*args, **kwargs) -> None:
        try:
            callback(*args, **kwargs)
        except ExplorerError as exc:
            st.session_state.action_error = escape_markdown(public.public_message(str(exc)))
        except Exception as exc:  # a plain message here, the traceback in the server log
            LOG.exception("callback %s failed", getattr(callback, "__name__", "?"))
            st.session_state.action_error = page.action_failed(exc)
    return run


@reported
def go(location: Location) -> None:
    """Show `location` (a widget's callback): add it to the trail, sync the search boxes."""
    st.session_state.location = location
    st.session_state.trail = trail.push(st.session_state.trail, step_of(location))
    st.session_state.query_box, st.session_state.steer_box = location.query, location.steer
    st.session_state.map_version = st.session_state.get("map_version", 0) + 1
