"""Who wrote which paper, and which paper a title names: the tables behind the author filter
(Filters.authors) and the questions that are a name or a title (Explorer.named).

Built once per loaded index, on first use, under a lock (the app's sessions share an Explorer,
so many threads may ask at once); after that, read only. A lookup costs a dictionary access per
reading of the name and a check per author filed under that family name.

Ambiguity: a name matches every author it may mean. 'S. Levine' matches Sergey Levine and
Samuel Levine alike (an initial cannot tell them apart), 'Sergey Levine' matches Sergey Levine
and the papers that list only 'S. Levine'; the app's suggestions name each author as a paper
writes them, so a reader who wants one of the two picks that name.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.corpus.authors import MAX_NAME_CHARS, Name, name_readings, parse_name
from explorer.corpus.identity import TITLE_MIN_LETTERS, title_words
from explorer.corpus.papers import Paper

MAX_TITLE_CHARS = 400  # a question longer than this is never a title


@dataclass(frozen=True)
class Named:
    """What a question names: `kind` "author" or "title", the names or title as the corpus
    writes them (`names`, most papers first) and the rows of their papers (ascending)."""

    kind: str
    names: tuple[str, ...]
    rows: tuple[int, ...]

    @property
    def heading(self) -> str:
        """'Papers by Sergey Levine', 'Papers by S. Levine and Samuel Levine', 'The paper titled …'."""
        if self.kind == "title":
            return f"The paper titled “{self.names[0]}”" if len(self.rows) == 1 else (
                f"The {len(self.rows)} papers titled “{self.names[0]}”")
        shown = list(self.names[:3])
        if len(self.names) > 3:
            shown.append(f"{len(self.names) - 3} more")
        joined = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
        return f"Papers by {joined}"


class AuthorTable:
    """The authors of `papers`: each distinct folded name (corpus.authors.Name) with the first
    spelling met and the rows of its papers; filed under its family name keys."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._entries: dict[Name, int] = {}
        self._names: list[Name] = []
        self._spelled: list[str] = []
        self._rows: list[list[int]] = []
        self._filed: dict[str, list[int]] = {}
        self._titles: dict[str, list[int]] = {}
        self._order: list[int] | None = None
        self._written: dict[str, int] = {}  # a name as a paper writes it -> its entry (-1: none)
        read = getattr(papers, "authored", None)  # an index's PaperList: no Paper made
        rows = read() if read is not None else (
            (paper.authors, paper.title, paper.title_is_derived) for paper in papers)
        for row, (authors, title, derived) in enumerate(rows):
            for author in authors:
                self._add(author, row)
            key = title_key(title)
            if key and not derived:
                self._titles.setdefault(key, []).append(row)

    def _add(self, author: str, row: int) -> None:
        entry = self._written.get(author)  # most names recur: each spelling parsed once
        if entry is None:
            entry = self._entry(author)
            self._written[author] = entry
        if entry < 0:
            return
        rows = self._rows[entry]
        if not rows or rows[-1] != row:
            rows.append(row)

    def _entry(self, author: str) -> int:
        """The entry of a name as written (a new one for a name not met yet); -1 for none."""
        name = parse_name(author)
        if name is None:
            return -1
        entry = self._entries.get(name)
        if entry is None:
            entry = self._entries[name] = len(self._spelled)
            self._names.append(name)
            self._spelled.append(" ".join(author[:MAX_NAME_CHARS].split()))
            self._rows.append([])
            for key in name.keys:
                self._filed.setdefault(key, []).append(entry)
        return entry

    def entries(self, text: str, *, given: bool = False) -> list[int]:
        """The authors `text` may name (every reading of it), most papers first; with `given`
        only readings that carry a given name or initial count (a question: 'Levine' alone
        could be a word)."""
        found: set[int] = set()
        for reading in name_readings(text):
            if given and not reading.given:
                continue
            found.update(entry for key in reading.keys for entry in self._filed.get(key, ())
                         if reading.matches(self._names[entry]))
        return sorted(found, key=lambda entry: (-len(self._rows[entry]), entry))

    def rows(self, names: Sequence[str]) -> np.ndarray:
        """Rows (ascending) of the papers of any author any of `names` may name."""
        rows = {row for text in names for entry in self.entries(text) for row in self._rows[entry]}
        return np.array(sorted(rows), dtype=np.int64)

    def named(self, question: str) -> Named | None:
        """What `question` names when it is exactly a paper's title (folded) or an author's
        name with a given name or initial; None otherwise."""
        if len(question) <= MAX_TITLE_CHARS and (rows := self._titles.get(title_key(question))):
            return Named("title", (" ".join(question.split()),), tuple(rows))
        if len(question) > MAX_NAME_CHARS:
            return None
        entries = self.entries(question, given=True)
        if not entries:
            return None
        rows = sorted({row for entry in entries for row in self._rows[entry]})
        names = dict.fromkeys(self._spelled[entry] for entry in entries)
        return Named("author", tuple(names), tuple(rows))

    def suggestions(self, limit: int) -> list[str]:
        """At most `limit` authors' names as the corpus spells them, most papers first (the
        order sorted once; two threads asking first may both sort, alike)."""
        if self._order is None:
            self._order = sorted(range(len(self._spelled)), key=lambda entry: (
                -len(self._rows[entry]), self._spelled[entry]))
        return [self._spelled[entry] for entry in self._order[:limit]]


def title_key(title: str) -> str:
    """A title as compared with a question: its words folded and joined ('' when shorter
    than identity.TITLE_MIN_LETTERS letters: 'Introduction' names no paper)."""
    key = "".join(title_words(title[:MAX_TITLE_CHARS]))
    return key if len(key) >= TITLE_MIN_LETTERS else ""


class Lazy:
    """An AuthorTable made once, on first use, whichever thread asks first (the others wait)."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._papers = papers
        self._table: AuthorTable | None = None
        self._lock = threading.Lock()

    def get(self) -> AuthorTable:
        if self._table is None:
            with self._lock:
                if self._table is None:
                    self._table = AuthorTable(self._papers)
        return self._table
