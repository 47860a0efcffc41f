"""The facet filters of the app's sidebar (status, track, primary area, ...): one multiselect
per categorical field of the corpus (features/facets/ui.py chooses them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from explorer.features.facets.ui import facet_label, sidebar_facets
from explorer.ranking.facets import FacetSpec
from explorer.ui.links import Location
from explorer.ui.text import escape_markdown


def facet_filters_ui(facets: Mapping[str, Any], location: Location) -> FacetSpec:
    """The sidebar's facet widgets (inside the Filters expander); returns the facets picked:
    values of one field OR, fields AND. The widgets start at the location's (a link's)."""
    picked = dict(location.facets)
    chosen = []
    for name, values in sidebar_facets(facets.get("fields") or {}):
        key = f"facet-{name}"
        start = None if key in st.session_state else [v for v in picked.get(name, ()) if v in values]
        selected = st.multiselect(escape_markdown(facet_label(name)), values, default=start,
                                  key=key, format_func=str)
        if selected:
            chosen.append((name, tuple(selected)))
    return tuple(chosen)
