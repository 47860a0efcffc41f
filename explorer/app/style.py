"""The app's own style sheet: a dense page (less padding, compact result rows, one clamped
sentence per row, visited titles in the colour browsers give visited links). A constant of this
module, sent as a <style> element (st.html); nothing from a corpus or a visitor enters it."""

from __future__ import annotations

import streamlit as st

CSS = """
<style>
.stMainBlockContainer { padding: 2.2rem 2.5rem 3rem 2.5rem; }
[class*="st-key-card-"] { padding: 0.4rem 0.8rem !important; gap: 0.15rem !important; }
[class*="st-key-card-"] [data-testid="stCaptionContainer"],
[class*="st-key-card-"] [data-testid="stCaptionContainer"] p { margin-bottom: 0; }
[class*="st-key-card-"] [data-testid="stButton"] button,
[class*="st-key-card-"] [data-testid="stPopover"] button { min-height: 1.9rem; padding: 0 0.5rem; }
[class*="st-key-snippet-"] p {
  display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; }
[class*="st-key-title-seen-"] p, [class*="st-key-title-seen-"] strong { color: #6a3d9a; }
.st-key-trail button { min-height: 1.9rem; padding: 0 0.6rem; }
</style>
"""


def style_ui() -> None:
    """Send the style sheet (no space on the page: a <style> alone goes to Streamlit's
    event container)."""
    st.html(CSS)
