"""The years chart of a ranking in the app (the logic is in explorer.features.years.ui)."""

from __future__ import annotations

import streamlit as st

from explorer.app.kit import go, reported
from explorer.features.years import ui as years
from explorer.query.engine import Explorer
from explorer.ui import public
from explorer.ui.links import Location


@reported
def on_year(facets: dict, value: tuple[int, int] | None) -> None:
    """Show the years of the slider's `value` (a click on the years chart, "All years")."""
    if value is not None:
        st.session_state.years = value
        go(years.located(st.session_state.location, facets, value))


@reported
def on_year_click(key: str, view: years.YearView, facets: dict) -> None:
    on_year(facets, years.picked(st.session_state[key].selection.points, view, facets))


def years_ui(slot, explorer: Explorer, location: Location, verb: str, *subject) -> None:
    """The years chart of a ranking, in `slot` (st.empty(); left empty when its papers have no
    years; in words when they have two years or fewer); a click on a bar shows that year only,
    through the sidebar's year slider.

    The slot sits above the cards, and the chart is drawn after them: the browser's first
    Plotly chart (loading its script) held the cards back by about a second on two cores."""
    view = years.year_view(explorer, location, verb, *subject)
    if view is None:
        return
    facets, key = public.public_facets(explorer), f"years-{st.session_state.get('map_version', 0)}"
    with slot.container(key="years-chart"):
        if view.charted:  # two years or fewer: the caption says them in words
            st.plotly_chart(years.chart(view.years, view.year_min, view.year_max, view.reference),
                            key=key, selection_mode="points", config=years.CONFIG,
                            on_select=reported(lambda: on_year_click(key, view, facets)))
        with st.container(horizontal=True, vertical_alignment="center"):
            st.caption(years.caption(view))
            if view.filtered:
                st.button("All years", key="years-all", icon=":material/close:", type="tertiary",
                          on_click=on_year, args=(facets, years.slider_value(facets, None)))
