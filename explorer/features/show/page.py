"""The paper page's fields and versions (the same record as `explorer show`)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from explorer.app.kit import button
from explorer.features.show.record import paper_fields, paper_versions
from explorer.features.show.ui import field_lines
from explorer.features.versions.ui import where
from explorer.query.engine import Explorer
from explorer.ui.links import Location
from explorer.ui.text import escape_markdown


def fields_part(explorer: Explorer, location: Location) -> None:
    """The open paper's other versions (each a button to its page) and, folded, every field
    its record has."""
    paper = explorer.paper(location.paper_id)
    versions = paper_versions(explorer, paper) or []
    if versions:
        with st.container(horizontal=True):
            st.caption("Other versions of this work:")
            for version in versions:
                other = explorer.paper(version["paper_id"])
                button(escape_markdown(where(other)), replace(location, paper_id=other.paper_id),
                       key=f"version-{other.paper_id}", icon=":material/history:")
    lines = field_lines(paper_fields(explorer, paper))
    if lines:
        with st.expander("All fields of this record"):
            st.markdown("\n".join(lines))
