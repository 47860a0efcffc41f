"""The sidebar's line on the model that answers and an upgrade under way."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from explorer.features.upgrade.stage_status import read_status
from explorer.features.upgrade.ui import status_line

REFRESH_SECONDS = 5  # how often the line reads the progress file while an upgrade runs


def upgrade_status_ui(folder: Path, answering: str | None) -> None:
    """The line (features/upgrade/ui.py), refreshed on its own while an upgrade runs."""
    status = read_status(folder)
    alive = status is not None and status.alive()

    @st.fragment(run_every=REFRESH_SECONDS if alive else None)
    def line() -> None:
        now = read_status(folder)
        text = status_line(now, answering, now is not None and now.alive())
        if text:
            st.caption(text)

    line()
