"""A draft (an abstract, an introduction, several paragraphs) -> the passages that "what did I
miss" ranks the corpus for, each with its sentences' spans in the draft.

Reading is bounded: text past MAX_DRAFT_BYTES, bytes that are not UTF-8 and binary files
(NUL bytes, a PDF or Word file) are refused with a DraftError naming the fix. A long draft
gives at most `max_passages` passages (the first ones: the result says how much of the draft
they hold), found as they are needed, so the time is bounded whatever the draft's length:
paragraphs are cut into pieces of at most CHUNK_CHARS before their sentences are found, and a
sentence longer than SENTENCE_WORDS words is cut into pieces of that many.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from explorer.corpus.latex import to_unicode
from explorer.corpus.sentences import split_sentences
from explorer.errors import DraftError

__all__ = ["MAX_DRAFT_BYTES", "MAX_PASSAGES", "SPLITS", "Passage", "Split", "check_draft",
           "clean_query", "read_draft", "split_draft"]
MAX_DRAFT_BYTES = 2_000_000  # about 300,000 words: a thesis; more is refused
MAX_PASSAGES = 20  # passages ranked per draft (the first ones); the rest are counted
# How a draft is cut: "whole" ranks it as one text (its first WHOLE_WORDS words), "paragraphs"
# as its paragraphs (a longer one in windows of consecutive sentences up to the words given:
# about what the model reads, 256 word pieces), "windows" in windows of about 3 sentences.
WHOLE, PARAGRAPHS, WINDOWS = "whole", "paragraphs", "windows"
SPLITS = {WHOLE: 500, PARAGRAPHS: 180, WINDOWS: 60}
SENTENCE_WORDS = 80
CHUNK_CHARS = 1500
WORD_CHARS = 12  # a window holds at most 12 characters per word of its limit
# LaTeX markup decoded per passage (pylatexenc reads 30-100 microseconds a character): a
# passage's commands and accents, never a crafted draft's whole text.
QUERY_LATEX_CHARS = 1000
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_WORD = re.compile(r"\S+")
# Linear time: a key holds no backslash and an optional argument ("[see][p.~3]") at most 200
# characters, so a try never reads past the next \cite (a line of "\cite{\cite{..." cost n^2);
# a marker is tried from the first of the spaces before it, never from each of them.
_CITE = re.compile(r"~?\\(?:no)?cite[a-zA-Z]*+\*?(?:\[[^\]\n]{0,200}\]){0,2}\{[^}\\\n]*+\}")
_MARKER = re.compile(r"(?<!\s)\s*+\[\s*+\d++(?:\s*+[-–,;]\s*+\d++)*+\s*+\]")
_BINARY = (("%PDF-", "a PDF file"), ("PK\x03\x04", "a Word, OpenDocument or zip file"),
           ("{\\rtf", "an RTF file"))


@dataclass(frozen=True)
class Passage:
    """Passage `number` (1-based) of a draft: `draft[start:end]`, the `query` text it is
    ranked by (citation commands and markers removed, LaTeX as Unicode) and its sentences'
    (start, end) spans in the draft."""

    number: int
    start: int
    end: int
    text: str
    query: str
    sentences: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Split:
    """The passages ranked, the draft's word count and whether passages are left past the
    cap (`more`: the first ones were ranked, the rest not)."""

    passages: tuple[Passage, ...]
    words: int
    more: bool = False

    @property
    def checked_words(self) -> int:
        return sum(len(passage.text.split()) for passage in self.passages)


def read_draft(data: str | bytes, name: str = "the draft") -> str:
    """A draft given as text or as the bytes of a file: checked (check_draft) and decoded."""
    if isinstance(data, bytes):
        if len(data) > MAX_DRAFT_BYTES:
            raise DraftError(_too_long(name, len(data)))
        head = data[:8].decode("latin-1")
        for magic, kind in _BINARY:
            if head.startswith(magic):
                raise DraftError(f"{name} is {kind}, not text. Paste the draft's text, or save "
                                 "it as plain text (.txt, .md or .tex) first.")
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DraftError(f"{name} is not UTF-8 text ({exc.reason} at byte {exc.start}): "
                             "a binary file? Save the draft as UTF-8 plain text.") from exc
    return check_draft(data, name)


def check_draft(text: str, name: str = "the draft") -> str:
    """`text` if it can be checked, else DraftError: empty, no words, binary, too long."""
    if not isinstance(text, str):
        raise ValueError(f"a draft is text, not {type(text).__name__}")
    if len(text) > MAX_DRAFT_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_DRAFT_BYTES:
        raise DraftError(_too_long(name, len(text.encode("utf-8", "surrogatepass"))))
    if "\x00" in text:
        raise DraftError(f"{name} holds NUL bytes: it is a binary file, not text. Paste the "
                         "draft's text, or save it as plain text first.")
    if not text.strip():
        raise DraftError(f"{name} is empty. Paste or give the text of your draft: an abstract, "
                         "an introduction or a few paragraphs.")
    if not any(char.isalpha() for char in text):
        raise DraftError(f"{name} has no words. Give the text of your draft.")
    return text


def _too_long(name: str, size: int) -> str:
    return (f"{name} is {size:,} bytes, more than the {MAX_DRAFT_BYTES:,} checked. Give the "
            "part to check (an abstract, an introduction, a related-work section).")


def split_draft(text: str, split: str = PARAGRAPHS, max_passages: int = MAX_PASSAGES) -> Split:
    """The passages of a draft (check_draft first) for `split` (SPLITS), the first
    `max_passages` of them."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    if max_passages < 1:
        raise ValueError("max_passages must be at least 1")
    limit = SPLITS[split]
    units = (unit for start, end in _paragraphs(text) for unit in _units(text, start, end))
    if split == WHOLE:
        kept, more = _take_words(text, units, limit)
        return Split((_passage(text, 1, kept),), _word_count(text), more)
    passages: list[Passage] = []
    skipped = 0
    for window in _windows(text, _paragraphs(text), limit):
        passage = _passage(text, len(passages) + 1, window)
        if not any(char.isalpha() for char in passage.query):
            skipped += 1  # only citation markers or numbers: nothing to rank by
            if skipped > max_passages:  # a draft of such windows: its time is bounded too
                return Split(tuple(passages), _word_count(text), True)
            continue
        if len(passages) == max_passages:
            return Split(tuple(passages), _word_count(text), True)
        passages.append(passage)
    return Split(tuple(passages), _word_count(text))


def clean_query(text: str) -> str:
    """What a passage is ranked by: `text` without citation commands (\\cite{...}) and numeric
    markers ([3], [4-6]), LaTeX accents and commands as Unicode, one space between words."""
    text = _MARKER.sub("", _CITE.sub("", text))
    if "\\" in text or "{" in text:
        text = to_unicode(text, QUERY_LATEX_CHARS)
    return " ".join(text.split())


def _paragraphs(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each paragraph with words (blocks between blank lines)."""
    start = 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        if text[start:match.start()].strip():
            yield start, match.start()
        start = match.end()
    if text[start:].strip():
        yield start, len(text.rstrip())


def _units(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Sentence spans of text[start:end]: found in pieces of at most CHUNK_CHARS (cut at a
    space), a sentence of more than SENTENCE_WORDS words cut into pieces of that many."""
    while start < end:
        stop = end
        if end - start > CHUNK_CHARS:
            space = text.rfind(" ", start, start + CHUNK_CHARS)
            stop = space if space > start else start + CHUNK_CHARS
        for s, e in split_sentences(text[start:stop]):
            yield from _word_pieces(text, start + s, start + e)
        start = stop


def _word_pieces(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    words = [m.span() for m in _WORD.finditer(text, start, end)]
    for first in range(0, len(words), SENTENCE_WORDS):
        piece = words[first:first + SENTENCE_WORDS]
        yield piece[0][0], piece[-1][1]


def _word_count(text: str) -> int:
    return len(text.split())


def _words(text: str, span: tuple[int, int]) -> int:
    return sum(1 for _ in _WORD.finditer(text, *span))


def _windows(text: str, paragraphs: Iterator[tuple[int, int]], limit: int
             ) -> Iterator[list[tuple[int, int]]]:
    """Consecutive sentences of one paragraph, up to `limit` words (and WORD_CHARS characters
    a word) a window (a longer sentence alone), paragraph after paragraph, found as asked."""
    for start, end in paragraphs:
        window: list[tuple[int, int]] = []
        count = 0
        for unit in _units(text, start, end):
            words = _words(text, unit)
            if window and (count + words > limit or unit[1] - window[0][0] > limit * WORD_CHARS):
                yield window
                window, count = [], 0
            window.append(unit)
            count += words
        if window:
            yield window


def _take_words(text: str, units: Iterator[tuple[int, int]], limit: int
                ) -> tuple[list[tuple[int, int]], bool]:
    """The first sentences, up to `limit` words (at least one), and whether any are left."""
    kept: list[tuple[int, int]] = []
    count = 0
    for unit in units:
        count += _words(text, unit)
        if kept and (count > limit or unit[1] - kept[0][0] > limit * WORD_CHARS):
            return kept, True
        kept.append(unit)
    return kept, False


def _passage(text: str, number: int, units: list[tuple[int, int]]) -> Passage:
    start, end = units[0][0], units[-1][1]
    return Passage(number, start, end, text[start:end], clean_query(text[start:end]),
                   tuple(units))
