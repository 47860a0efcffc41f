"""Who wrote which paper, and which paper a title names: the tables behind the author filter
(Filters.authors) and the questions that are a name or a title (Explorer.named).

Made by a build and stored (ranking/author_arrays.py: the first question of a new process does
not wait 8 s to parse every author of 92k papers), or built from the papers of an index from
before that; once per loaded index, on first use, under a lock (the app's sessions share an
Explorer, so many threads may ask at once); after that, read only. A lookup costs a dictionary access per
reading of the name and a check per author filed under that family name.

Ambiguity: a name matches every author it may mean. 'S. Levine' matches Sergey Levine and
Samuel Levine alike (an initial cannot tell them apart), 'Sergey Levine' matches Sergey Levine
and the papers that list only 'S. Levine'; the app's suggestions name each author as a paper
writes them, so a reader who wants one of the two picks that name.
"""

from __future__ import annotations

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


class Lookups:
    """The lookups both tables share; a table says where an author's name, rows and spelling
    are (`_filed`, `_name`, `_rows_of`, `_spelling`, `_title_rows`, `_ordered`)."""

    def _filed(self, key: str) -> Sequence[int]:
        raise NotImplementedError

    def _name(self, entry: int) -> Name:
        raise NotImplementedError

    def _rows_of(self, entry: int) -> Sequence[int]:
        raise NotImplementedError

    def _spelling(self, entry: int) -> str:
        raise NotImplementedError

    def _title_rows(self, key: str) -> Sequence[int]:
        raise NotImplementedError

    def _ordered(self) -> Sequence[int]:
        raise NotImplementedError

    def entries(self, text: str, *, given: bool = False) -> list[int]:
        """The authors `text` may name (every reading of it), most papers first; with `given`
        only readings that carry a given name or initial count (a question: 'Levine' alone
        could be a word)."""
        found: set[int] = set()
        for reading in name_readings(text):
            if given and not reading.given:
                continue
            found.update(entry for key in reading.keys for entry in self._filed(key)
                         if reading.matches(self._name(entry)))
        return sorted(found, key=lambda entry: (-len(self._rows_of(entry)), entry))

    def rows(self, names: Sequence[str]) -> np.ndarray:
        """Rows (ascending) of the papers of any author any of `names` may name."""
        rows = {int(row) for text in names for entry in self.entries(text)
                for row in self._rows_of(entry)}
        return np.array(sorted(rows), dtype=np.int64)

    def named(self, question: str) -> Named | None:
        """What `question` names when it is exactly a paper's title (folded) or an author's
        name with a given name or initial; None otherwise."""
        if len(question) <= MAX_TITLE_CHARS and (rows := self._title_rows(title_key(question))):
            return Named("title", (" ".join(question.split()),), tuple(int(r) for r in rows))
        if len(question) > MAX_NAME_CHARS:
            return None
        entries = self.entries(question, given=True)
        if not entries:
            return None
        rows = sorted({int(row) for entry in entries for row in self._rows_of(entry)})
        names = dict.fromkeys(self._spelling(entry) for entry in entries)
        return Named("author", tuple(names), tuple(rows))

    def suggestions(self, limit: int) -> list[str]:
        """At most `limit` authors' names as the corpus spells them, most papers first."""
        return [self._spelling(int(entry)) for entry in self._ordered()[:limit]]


class AuthorTable(Lookups):
    """The authors of `papers`: each distinct folded name (corpus.authors.Name) with the first
    spelling met and the rows of its papers; filed under its family name keys."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._entries: dict[Name, int] = {}
        self._names: list[Name] = []
        self.sources: list[str] = []  # each entry's name as first written, as parse_name reads it
        self._spelled: list[str] = []
        self.entry_rows: list[list[int]] = []
        self.filed: dict[str, list[int]] = {}
        self.titles: dict[str, list[int]] = {}
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
                self.titles.setdefault(key, []).append(row)

    def _add(self, author: str, row: int) -> None:
        entry = self._written.get(author)  # most names recur: each spelling parsed once
        if entry is None:
            entry = self._entry(author)
            self._written[author] = entry
        if entry < 0:
            return
        rows = self.entry_rows[entry]
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
            self.sources.append(author[:MAX_NAME_CHARS])
            self._spelled.append(spelling(author))
            self.entry_rows.append([])
            for key in name.keys:
                self.filed.setdefault(key, []).append(entry)
        return entry

    def _filed(self, key: str) -> Sequence[int]:
        return self.filed.get(key, ())

    def _name(self, entry: int) -> Name:
        return self._names[entry]

    def _rows_of(self, entry: int) -> Sequence[int]:
        return self.entry_rows[entry]

    def _spelling(self, entry: int) -> str:
        return self._spelled[entry]

    def _title_rows(self, key: str) -> Sequence[int]:
        return self.titles.get(key, ())

    def _ordered(self) -> Sequence[int]:
        """Entries most papers first, then by spelling (sorted once; two threads asking first
        may both sort, alike)."""
        if self._order is None:
            self._order = sorted(range(len(self._spelled)), key=lambda entry: (
                -len(self.entry_rows[entry]), self._spelled[entry]))
        return self._order


def spelling(author: str) -> str:
    """A name as the app shows it: its first MAX_NAME_CHARS characters, spaces collapsed."""
    return " ".join(author[:MAX_NAME_CHARS].split())


def title_key(title: str) -> str:
    """A title as compared with a question: its words folded and joined ('' when shorter
    than identity.TITLE_MIN_LETTERS letters: 'Introduction' names no paper)."""
    key = "".join(title_words(title[:MAX_TITLE_CHARS]))
    return key if len(key) >= TITLE_MIN_LETTERS else ""
