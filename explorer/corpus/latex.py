"""Formulas in corpus text: where `$inline$` and `$$display$$` math is, and its content.

Inline math opens before a non-space and closes after a non-space and not before a digit, so
"costs $5 and $10" stays text (pandoc's rule). The app renders these spans with KaTeX
(ui/text.py); derived titles keep the content of short ones (corpus/clauses.py).
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any

MATH = re.compile(r"\$\$(?!\s*\$)[^$]+?\$\$|\$(?=[^\s$])[^$\n]*?[^\s$\\]\$(?!\d)|\$[^\s$]\$(?!\d)")


def math_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of `$...$` / `$$...$$` math in `text`."""
    return [match.span() for match in MATH.finditer(text)]


def fence(formula: str) -> str:
    """The delimiter of a formula found by MATH: "$$" (display) or "$" (inline)."""
    return "$$" if formula.startswith("$$") and len(formula) > 4 else "$"


# Field text from a .bib file: what is not plain text goes through pylatexenc, one
# whitespace-separated piece at a time (a brace group stays whole), since pylatexenc costs
# about 30 microseconds per character (up to 100 on dense markup such as "%%%%") and most of
# an abstract is plain words. At most LATEX_CHARS characters of a field go through it (more
# than any real title or abstract holds): pieces past that only lose their braces and command
# words, so one crafted field costs at most about a second.
LATEX_CHARS = 20_000
CACHED_CHARS = 200  # pieces this short (names, accented words) are decoded once per process
_FIELD_MATH = re.compile(rf"(?<!\\)(?:{MATH.pattern})")  # in TeX, \$ is a dollar, not math
_SPECIAL = re.compile(r"[\\{}~$%]|--|``|''")
_UNESCAPED = re.compile(r"(?<!\\)([%$])")  # a bare % or $ is meant literally in a field
_PIECES = re.compile(r"(\s+)")
_OPEN_END = re.compile(r"\\[a-zA-Z]*$")  # a command word (or a lone \\) takes what follows
_BRACES_AND_COMMANDS = re.compile(r"[{}]|\\[a-zA-Z]+")


def to_unicode(text: str, budget: int = LATEX_CHARS) -> str:
    """BibTeX field text as a reader sees it: accents and symbols as Unicode (\\'e -> é,
    \\ss -> ß, -- -> an en dash), braces and font commands dropped, `$math$` kept as written
    (the app renders it), a bare % or $ kept literally; unknown commands keep their argument.
    Past `budget` characters of markup, pieces only lose their braces and command words."""
    if not _SPECIAL.search(text):
        return text
    parts = []
    start = 0
    left = [budget]  # what pylatexenc may still read of this text
    for match in _FIELD_MATH.finditer(text):
        parts.append(_decode_text(text[start:match.start()], left))
        parts.append(match.group())
        start = match.end()
    parts.append(_decode_text(text[start:], left))
    return "".join(parts)


def _decode_text(text: str, budget: list[int]) -> str:
    """`text` (no math) with each piece that holds markup decoded on its own."""
    out: list[str] = []
    group: list[str] = []  # pieces of one brace group that spans whitespace
    depth = 0
    for piece in _PIECES.split(text):
        if group or (not piece.isspace() and _SPECIAL.search(piece)):
            group.append(piece)
            depth += _depth(piece)
            if depth <= 0 and not _OPEN_END.search(piece):  # TeX eats the space after \\o
                out.append(_decode_within("".join(group), budget))
                group, depth = [], 0
        else:
            out.append(piece)
    if group:
        out.append(_decode_within("".join(group), budget))
    return "".join(out)


def _decode_within(piece: str, budget: list[int]) -> str:
    """`piece` decoded by pylatexenc while the field's `budget` lasts, else only its braces
    and command words dropped."""
    if len(piece) > budget[0]:
        budget[0] = 0
        return _BRACES_AND_COMMANDS.sub("", piece)
    budget[0] -= len(piece)
    return _decode_piece(piece) if len(piece) <= CACHED_CHARS else _decode_uncached(piece)


def _depth(piece: str) -> int:
    return (piece.count("{") - piece.count("\\{")) - (piece.count("}") - piece.count("\\}"))


@functools.lru_cache(maxsize=65536)
def _decode_piece(piece: str) -> str:
    return _decode_uncached(piece)


def _decode_uncached(piece: str) -> str:
    if not _SPECIAL.search(piece):
        return piece
    try:
        return _decoder().latex_to_text(_UNESCAPED.sub(r"\\\1", piece))
    except RecursionError:  # braces nested hundreds deep: keep the text, drop the markup
        return _BRACES_AND_COMMANDS.sub("", piece)


@functools.cache
def _decoder() -> Any:
    """pylatexenc's LaTeX-to-text converter, configured as bibtexparser's decoding middleware
    (\\url{x} shown as x, \\textbraceleft{} as {), built on first use (importing it takes
    0.1 s). It logs a warning for each command it cannot expand; a build has nothing to tell
    the user about those."""
    logging.getLogger("pylatexenc").addHandler(logging.NullHandler())
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    macros = [MacroTextSpec("url", simplify_repl="%s"),
              # Written by BibTeX exporters (ours included) for characters TeX would act on;
              # pylatexenc drops the braces and gives U+02C6 for the caret.
              MacroTextSpec("textbraceleft", simplify_repl="{"),
              MacroTextSpec("textbraceright", simplify_repl="}"),
              MacroTextSpec("textasciicircum", simplify_repl="^")]
    context.add_context_category("explorer-bibtex", prepend=True, macros=macros)
    return LatexNodes2Text(latex_context=context, math_mode="verbatim", keep_braced_groups=False)
