"""Formulas in corpus text: where `$inline$` and `$$display$$` math is, and its content.

Inline math opens before a non-space and closes after a non-space and not before a digit, so
"costs $5 and $10" stays text (pandoc's rule). The app renders these spans with KaTeX
(ui/text.py); derived titles keep the content of short ones (corpus/clauses.py).
"""

from __future__ import annotations

import re

MATH = re.compile(r"\$\$(?!\s*\$)[^$]+?\$\$|\$(?=[^\s$])[^$\n]*?[^\s$\\]\$(?!\d)|\$[^\s$]\$(?!\d)")


def math_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of `$...$` / `$$...$$` math in `text`."""
    return [match.span() for match in MATH.finditer(text)]


def fence(formula: str) -> str:
    """The delimiter of a formula found by MATH: "$$" (display) or "$" (inline)."""
    return "$$" if formula.startswith("$$") and len(formula) > 4 else "$"


def unwrap_math(text: str, limit: int) -> str:
    """`text` with each formula whose content has at most `limit` characters replaced by that
    content (its dollars dropped); longer formulas are left as written."""
    def content(match: re.Match) -> str:
        formula = match.group()
        inner = formula[len(fence(formula)):-len(fence(formula))]
        return inner if len(inner) <= limit else formula

    return MATH.sub(content, text)
