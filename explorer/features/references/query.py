"""References and cited-by inside the corpus: `references_of(explorer, id)` (the papers it cites)
and `cited_by(explorer, id)` (the papers that cite it), each in corpus order.

The pairs are stored at build time (features/references/stage.py); an index built before them
resolves its papers' references on first use (corpus/citations.py: every paper read once), and
the result is kept for that Explorer. Either way the table is made once per Explorer, under a
lock, and is immutable after: any number of threads may ask at once.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np

from explorer.artifacts.layout import REFERENCE_ROWS
from explorer.corpus.citations import resolve
from explorer.corpus.papers import Paper
from explorer.query.engine import Explorer


@dataclass(frozen=True)
class Links:
    """The corpus's citations as two sorted views of the (citing, cited) row pairs."""

    citing: np.ndarray  # (k, 2) int64, sorted by citing row, then cited
    cited: np.ndarray  # (k, 2) int64, the same pairs sorted by cited row, then citing
    stored: bool  # read from the index (False: resolved on first use)

    @classmethod
    def of(cls, pairs: np.ndarray, stored: bool) -> Links:
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        by_citing = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
        by_cited = pairs[np.lexsort((pairs[:, 0], pairs[:, 1]))]
        return cls(by_citing, by_cited, stored)

    def references(self, row: int) -> np.ndarray:
        """(r,) rows that `row` cites."""
        return _group(self.citing, 0, row)[:, 1]

    def cited_by(self, row: int) -> np.ndarray:
        """(c,) rows that cite `row`."""
        return _group(self.cited, 1, row)[:, 0]

    @property
    def count(self) -> int:
        return len(self.citing)


def _group(pairs: np.ndarray, column: int, row: int) -> np.ndarray:
    """The pairs whose `column` is `row` (pairs sorted by that column)."""
    start, end = np.searchsorted(pairs[:, column], [row, row + 1])
    return pairs[start:end]


_TABLES: weakref.WeakKeyDictionary[Explorer, Links] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def links(explorer: Explorer) -> Links:
    """The Explorer's citation table (made once; see the module's note)."""
    found = _TABLES.get(explorer)
    if found is not None:
        return found
    with _LOCK:
        found = _TABLES.get(explorer)
        if found is None:
            found = _TABLES[explorer] = _made(explorer)
    return found


def _made(explorer: Explorer) -> Links:
    stored = explorer.artifacts.arrays.get(REFERENCE_ROWS)
    count = len(explorer.papers)
    if stored is not None and stored.ndim == 2 and stored.shape[1] == 2 and (
            len(stored) == 0 or (stored.min() >= 0 and stored.max() < count)):
        return Links.of(stored, stored=True)
    return Links.of(resolve(explorer.papers), stored=False)


def references_of(explorer: Explorer, paper_id: str) -> list[Paper]:
    """The papers of the corpus that `paper_id` cites (UnknownPaperError for an unknown id)."""
    rows = links(explorer).references(explorer.row(paper_id))
    return [explorer.papers[int(row)] for row in rows]


def cited_by(explorer: Explorer, paper_id: str) -> list[Paper]:
    """The papers of the corpus that cite `paper_id` (UnknownPaperError for an unknown id)."""
    rows = links(explorer).cited_by(explorer.row(paper_id))
    return [explorer.papers[int(row)] for row in rows]
