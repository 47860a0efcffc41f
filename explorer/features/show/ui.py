"""The paper page's part of `explorer show`: the record's fields as escaped Markdown lines
(corpus text is never markup, a link or an image), without Streamlit."""

from __future__ import annotations

from typing import Any

from explorer.features.facets.ui import facet_label
from explorer.ui.text import escape_markdown

SHOWN_FIELDS = ("status", "keywords", "external_ids", "fields", "aliases")  # in this order
MAX_SHOWN_CHARS = 600  # of one field's text on the page


def field_lines(paper: dict[str, Any]) -> list[str]:
    """`- **Label**: value` lines for a show record's "paper" section: the status, keywords,
    ids, every other field of the record, other ids (aliases)."""
    lines = []
    for name in SHOWN_FIELDS:
        value = paper.get(name)
        if isinstance(value, dict):
            lines += [_line(key, inner) for key, inner in value.items()]
        elif value not in (None, [], ""):
            lines.append(_line("other ids" if name == "aliases" else name, value))
    return lines


def _line(name: str, value: Any) -> str:
    text = "; ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    if len(text) > MAX_SHOWN_CHARS:
        text = text[:MAX_SHOWN_CHARS - 1] + "…"
    return f"- **{escape_markdown(facet_label(name))}**: {escape_markdown(text)}"
