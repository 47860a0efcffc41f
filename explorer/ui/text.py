"""Corpus text as safe Markdown for the app: characters shown as written (LaTeX text markup
as a reader reads it: corpus/markup.py), math rendered.

Streamlit renders Markdown (with KaTeX for ``$...$``). Corpus text must never become markup:
every ASCII punctuation character outside math is backslash-escaped (CommonMark shows it
literally), so ``<script>``, ``*``, ``[x](y)`` or ``:red[...]`` in an abstract stay plain text.

A formula goes to KaTeX only when `safe_formula` accepts it: short, every command on a list of
ordinary math commands (no sizes, boxes, colours, links, macros), braces balanced, and none of
the characters that could end the highlight directive or form a link (Streamlit's directive
label ends at the first raw ``]``, math or not). Any other formula is shown as its characters.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Iterable, Sequence

from explorer.corpus.latex import fence, math_spans
from explorer.corpus.markup import readable
from explorer.ui.formulas import MAX_FORMULA_CHARS, SAFE_COMMANDS, safe_formula

__all__ = ["MAX_FORMULA_CHARS", "SAFE_COMMANDS", "escape_markdown", "math_spans", "plain",
           "rich_markdown", "safe_formula"]

_PUNCTUATION = frozenset(string.punctuation)
_BLANK_LINE = re.compile(r"\n[ \t]*\n\s*")
# LaTeX escapes that abstracts copied from LaTeX sources carry ("1-4\%", "R\&D"): shown as
# the character they stand for.
_LATEX_ESCAPE = re.compile(r"\\([%&_#$])")
HIGHLIGHT = ":yellow-background[{}]"  # a highlighter pen
# Formulas one text renders (no abstract has so many); the rest show as their characters, so a
# text of thousands costs neither the server nor the reader's browser time per formula.
MAX_FORMULAS = 300
# GFM turns "https://...", "www.x" and "a@b.c" into links in the text as displayed, escapes or
# not; an invisible word joiner after "://"'s colon, "www" and "@" keeps them plain text.
WORD_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?<=@)", re.IGNORECASE)


def escape_markdown(text: str) -> str:
    """`text` as Markdown that displays exactly these characters (paragraph breaks kept),
    except that LaTeX's escapes of % & _ # $ display as the character (and web addresses
    carry an invisible WORD_JOINER, so they are never links)."""
    text = _AUTOLINK.sub(WORD_JOINER, _LATEX_ESCAPE.sub(r"\1", text))
    paragraphs = _BLANK_LINE.split(text.replace("\r\n", "\n").replace("\r", "\n"))
    return "\n\n".join(_escape_line(paragraph) for paragraph in paragraphs)


def _escape_line(text: str) -> str:
    lead = " " if text[:1].isspace() else ""
    tail = " " if text[-1:].isspace() else ""
    words = " ".join(text.split())
    escaped = "".join("\\" + char if char in _PUNCTUATION else char for char in words)
    return lead + escaped + tail if words else (" " if text else "")


def rich_markdown(text: str, highlights: Iterable[tuple[int, int]] = ()) -> str:
    """`text` as safe Markdown with its math rendered and the `highlights` spans marked.

    `highlights` are character spans (start, end) into `text`; a span edge that falls inside
    a formula is moved to the formula's edge so the formula stays whole. Past MAX_FORMULAS
    formulas, math is shown as its characters. LaTeX text markup reads as text
    (corpus/markup.py: `\\emph{is}` -> is, citations dropped); math stays math.
    """
    text, highlights = readable(text, list(highlights))
    maths = math_spans(text)[:MAX_FORMULAS]
    marked = [_snap(start, end, maths) for start, end in highlights if 0 <= start < end]
    cuts = {0, len(text)}
    for start, end in maths + marked:
        cuts.update((start, min(end, len(text))))
    edges = sorted(cuts)
    formulas = set(maths)  # a text of many formulas: each piece looked up in O(1), not O(n)
    groups: list[tuple[bool, list[str]]] = []
    for start, end in itertools.pairwise(edges):
        piece = text[start:end]
        rendered = _formula(piece) if (start, end) in formulas else escape_markdown(piece)
        lit = any(low <= start and end <= high for low, high in marked)
        if groups and groups[-1][0] == lit:
            groups[-1][1].append(rendered)
        else:
            groups.append((lit, [rendered]))
    return "".join(_mark("".join(parts)) if lit else "".join(parts) for lit, parts in groups)


def _formula(math: str) -> str:
    """A `math_spans` formula for KaTeX when `safe_formula` accepts it, else its characters.
    Whitespace is collapsed (one line: math never becomes a block) and `<`, `>` are written
    as commands, so no raw markup character is left even where math were not parsed."""
    delimiter = fence(math)
    formula = " ".join(math[len(delimiter):-len(delimiter)].split())
    if not safe_formula(formula):
        return escape_markdown(math)
    return delimiter + formula.replace("<", "\\lt{}").replace(">", "\\gt{}") + delimiter


def _mark(markdown: str) -> str:
    """Wrap in the highlight directive, keeping edge spaces outside it; one directive per
    paragraph (a directive cannot span a blank line)."""
    if "\n\n" in markdown:
        return "\n\n".join(_mark(part) for part in markdown.split("\n\n"))
    core = markdown.strip()
    if not core:
        return markdown
    lead = markdown[: len(markdown) - len(markdown.lstrip())]
    tail = markdown[len(markdown.rstrip()):]
    return lead + HIGHLIGHT.format(core) + tail


def _snap(start: int, end: int, maths: Sequence[tuple[int, int]]) -> tuple[int, int]:
    for low, high in maths:
        if low < start < high:
            start = low
        if low < end < high:
            end = high
    return start, end


def plain(text: str, limit: int | None = None) -> str:
    """Short label text (buttons, trail): whitespace collapsed, cut at `limit` with an ellipsis."""
    words = " ".join(text.split())
    if limit is not None and len(words) > limit:
        words = words[: limit - 1].rstrip() + "…"
    return words
