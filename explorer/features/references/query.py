"""References and cited-by inside the corpus: `references_of(explorer, id)` (the papers it cites)
and `cited_by(explorer, id)` (the papers that cite it), each in corpus order.

The pairs are stored at build time (features/references/stage.py); the table is made from them
once per Explorer (Explorer.part) and is immutable after: any number of threads may ask at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.artifacts.layout import REFERENCE_ROWS
from explorer.corpus.papers import Paper
from explorer.query.engine import Explorer


@dataclass(frozen=True)
class Links:
    """The corpus's citations as two sorted views of the (citing, cited) row pairs."""

    citing: np.ndarray  # (k, 2) int64, sorted by citing row, then cited
    cited: np.ndarray  # (k, 2) int64, the same pairs sorted by cited row, then citing

    @classmethod
    def of(cls, pairs: np.ndarray) -> Links:
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        by_citing = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
        by_cited = pairs[np.lexsort((pairs[:, 0], pairs[:, 1]))]
        return cls(by_citing, by_cited)

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


def links(explorer: Explorer) -> Links:
    """The Explorer's citation table (made once; see the module's note)."""
    return explorer.part(_made)


def _made(explorer: Explorer) -> Links:
    return Links.of(explorer.artifacts.arrays[REFERENCE_ROWS])


def references_of(explorer: Explorer, paper_id: str) -> list[Paper]:
    """The papers of the corpus that `paper_id` cites (UnknownPaperError for an unknown id)."""
    rows = links(explorer).references(explorer.row(paper_id))
    return [explorer.papers[int(row)] for row in rows]


def cited_by(explorer: Explorer, paper_id: str) -> list[Paper]:
    """The papers of the corpus that cite `paper_id` (UnknownPaperError for an unknown id)."""
    rows = links(explorer).cited_by(explorer.row(paper_id))
    return [explorer.papers[int(row)] for row in rows]
