"""'Did you mean': ids close to an unknown one, found without comparing against every id.

difflib over all 106k ids took 1.9 s per unknown id (holding the GIL), so a link with many
fake ids stalled every session. Ids are compared only with their neighbours in two sorted
orders: as written (a typo late in the id keeps its prefix) and reversed (a typo early keeps
its suffix). At most `limit` ids are examined, whatever the corpus size, and only when the
message of an UnknownPaperError is read.
"""

from __future__ import annotations

import bisect
import difflib
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from explorer.corpus.papers import Paper
from explorer.errors import UnknownPaperError

CLOSE_ID_CANDIDATES = 2_000  # ids examined per unknown id (about 10 ms of difflib)
MAX_ID_CHARS = 200  # longer text is no id with a typo: no suggestion, no work
SUGGESTIONS = 3
CUTOFF = 0.5


@dataclass(frozen=True)
class IdTable:
    """The ids in the two orders close_ids searches: `forward` sorted, `backward` the ids
    written backwards, sorted."""

    forward: Sequence[str]
    backward: Sequence[str]

    @classmethod
    def of(cls, ids: Iterable[str]) -> IdTable:
        ids = list(ids)
        return cls(forward=sorted(ids), backward=sorted(i[::-1] for i in ids))


def close_ids(wanted: str, ids: IdTable, limit: int = CLOSE_ID_CANDIDATES) -> list[str]:
    """Up to SUGGESTIONS ids of `ids` that look like `wanted`, best first; examines at most
    `limit` ids (the neighbours of `wanted` in both orders)."""
    if not wanted or len(wanted) > MAX_ID_CHARS or limit < 1:
        return []
    half = max(1, limit // 4)
    candidates = set(_neighbours(ids.forward, wanted, half))
    candidates.update(i[::-1] for i in _neighbours(ids.backward, wanted[::-1], half))
    return difflib.get_close_matches(wanted, sorted(candidates), n=SUGGESTIONS, cutoff=CUTOFF)


def _neighbours(ordered: Sequence[str], key: str, half: int) -> Sequence[str]:
    """Up to 2 * `half` items of sorted `ordered` around where `key` would be inserted."""
    position = bisect.bisect_left(ordered, key)
    return ordered[max(0, position - half): position + half]


class _UnknownIdError(UnknownPaperError):
    """An unknown id, whose message (with close ids) is made when it is first read: callers that
    only ask whether ids are known (a link's marked papers: up to 400, at 10-130 ms of difflib
    each; a collection's missing ids) pay nothing for suggestions nobody reads."""

    def __init__(self, paper_id: str, id_table: Callable[[], IdTable]) -> None:
        super().__init__(paper_id)
        self._paper_id, self._id_table, self._message = paper_id, id_table, ""

    def __str__(self) -> str:
        if not self._message:  # two threads may both make it: the same text
            close = close_ids(str(self._paper_id), self._id_table())
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            self._message = (f"No paper with id {self._paper_id!r} in this index.{hint} "
                             "Find ids with `explorer search QUERY`.")
        return self._message


class PaperRows:
    """Paper id -> row in the paper list; the id of a duplicate merged into a paper gives that
    paper's row. An unknown id is refused with close ids suggested (their table is built on
    first need, once, under a lock held only then)."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._papers = papers
        # Both on first need: the papers' own ids (a PaperList reads them without parsing the
        # records), then, for an id not among them, the merged duplicates' ids too, which
        # reads every paper.
        self._own: dict[str, int] | None = None
        self._by_id: dict[str, int] | None = None
        self._ids: IdTable | None = None
        self._lock = threading.Lock()

    def _own_rows(self) -> dict[str, int]:
        if self._own is None:
            with self._lock:  # a second caller waits for the first's table
                if self._own is None:
                    ids = getattr(self._papers, "ids", None)
                    listed = ids() if ids is not None else [p.paper_id for p in self._papers]
                    self._own = {paper_id: row for row, paper_id in enumerate(listed)}
        return self._own

    def warm_up(self) -> None:
        """Build the table of the papers' own ids now."""
        self._own_rows()

    @property
    def _rows(self) -> dict[str, int]:
        if self._by_id is None:
            rows = dict(self._own_rows())
            for row, paper in enumerate(self._papers):
                for alias in paper.aliases:
                    rows.setdefault(alias, row)
            with self._lock:
                self._by_id = self._by_id or rows
        return self._by_id

    def row(self, paper_id: str) -> int:
        row = self._own_rows().get(paper_id)
        if row is not None:
            return row
        try:
            return self._rows[paper_id]
        except KeyError:
            raise _UnknownIdError(paper_id, self._id_table) from None

    def _id_table(self) -> IdTable:
        if self._ids is None:
            rows = self._rows  # before the lock: it takes the lock itself
            with self._lock:
                if self._ids is None:
                    self._ids = IdTable.of(rows)
        return self._ids
