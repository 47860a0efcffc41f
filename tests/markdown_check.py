"""Parse Markdown the way Streamlit's frontend does, and list what in it is live markup.

Streamlit renders `st.markdown` with micromark: CommonMark + GFM (tables, strikethrough),
remark-math (`$...$` and `$$...$$`, no escapes inside) and remark-directive (`:name[label]`).
markdown-it-py with the dollarmath plugin covers the first three; the directive is emulated
here with the rules of Streamlit's bundled label tokenizer (StreamlitMarkdown.*.js): the label
ends at the first unbalanced raw `]`, a backslash escapes `[`, `\\` and `]`, nesting deeper
than 32 fails, and the label knows nothing of math (a `]` inside `$...$` ends it).
GFM's literal autolinks are found by mdast-util-gfm-autolink-literal in the text as displayed,
after escapes are resolved (an escaped `https://x.org` still becomes a link); `AUTOLINK` is a
superset of its patterns, checked on every text token.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
LIVE = ("link_open", "image", "html_inline", "html_block")
AUTOLINK = re.compile(r"https?://[-.\w]|www\.[-\w]|[-.\w+]@[-\w]+\.[-\w]",
                      re.ASCII | re.IGNORECASE)


def _label_end(src: str, start: int, limit: int) -> int | None:
    """Index of the `]` closing the label whose `[` is at `start`, or None."""
    depth, pos = 0, start + 1
    while pos < limit:
        char = src[pos]
        if char == "\\" and pos + 1 < limit and src[pos + 1] in "[\\]":
            pos += 2
            continue
        if char == "[":
            depth += 1
            if depth > 32:
                return None
        elif char == "]":
            if depth == 0:
                return pos
            depth -= 1
        pos += 1
    return None


def _directive(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != ":" or (pos > 0 and src[pos - 1] == ":"):
        return False
    name = _NAME.match(src, pos + 1, state.posMax)
    if not name or name.group().endswith(("-", "_")) or name.end() >= state.posMax:
        return False
    if src[name.end()] != "[":
        return False
    end = _label_end(src, name.end(), state.posMax)
    if end is None:
        return False
    if not silent:
        state.push("directive_open", "span", 1).info = name.group()
        old_max = state.posMax
        state.pos, state.posMax = name.end() + 1, end
        state.md.inline.tokenize(state)
        state.posMax = old_max
        state.push("directive_close", "span", -1)
    state.pos = end + 1
    return True


@functools.lru_cache(maxsize=1)
def streamlit_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.use(dollarmath_plugin, allow_labels=False, allow_space=True, allow_digits=True,
           double_inline=True)
    md.inline.ruler.before("escape", "directive", _directive)
    return md


def tokens(markdown: str) -> Iterator[Token]:
    """Every token of `markdown`, children included."""
    def walk(items: list[Token]) -> Iterator[Token]:
        for token in items:
            yield token
            if token.children:
                yield from walk(token.children)

    yield from walk(streamlit_parser().parse(markdown))


def live_markup(markdown: str) -> list[str]:
    """Links, images and HTML that `markdown` would render (their token types and content)."""
    found = []
    for token in tokens(markdown):
        if token.type in LIVE:
            target = token.attrs.get("href") or token.attrs.get("src") or token.content
            found.append(f"{token.type}:{target}")
        elif token.type == "text" and AUTOLINK.search(token.content):
            found.append(f"autolink:{token.content}")
    return found


def formulas(markdown: str) -> list[str]:
    """The contents of the math tokens of `markdown`."""
    return [t.content for t in tokens(markdown) if t.type.startswith("math")]
