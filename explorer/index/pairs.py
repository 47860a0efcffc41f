"""Near pairs of an index with itself: a k-NN self-join above a cosine floor.

Each row is searched against the whole index for its `neighbours` nearest rows; a pair (i, j)
is kept when its cosine is at least `floor` and j is among i's neighbours or i among j's
(so the result is symmetric), never a row with itself, nor two rows of identical text (those
the corpus step merges). On an exact index this is exact; on HNSW, the graph's neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.index.dense import VectorIndex

NEIGHBOURS = 20  # partners per row looked at; more only in a cluster of near-copies
BLOCK = 4096  # rows searched at once: (BLOCK, neighbours) results in memory, not (n, n)


@dataclass(frozen=True)
class Pairs:
    """Pairs of rows and their cosines: `rows` (k, 2) int64 with rows[:, 0] < rows[:, 1],
    `scores` (k,) float32, best first (ties: lower rows first); each pair once."""

    rows: np.ndarray
    scores: np.ndarray

    @classmethod
    def empty(cls) -> Pairs:
        return cls(np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.float32))

    @classmethod
    def of(cls, rows: np.ndarray, scores: np.ndarray) -> Pairs:
        """`rows` (k, 2) in any order and orientation, duplicates allowed, as Pairs."""
        rows = np.sort(np.asarray(rows, dtype=np.int64).reshape(-1, 2), axis=1)
        scores = np.asarray(scores, dtype=np.float32).reshape(-1)
        if len(rows) != len(scores):
            raise ValueError(f"{len(rows)} pairs but {len(scores)} scores")
        order = np.lexsort((rows[:, 1], rows[:, 0], -scores))
        rows, scores = rows[order], scores[order]
        _, first = np.unique(rows, axis=0, return_index=True)
        keep = np.sort(first)  # the first (best) copy of each pair, order kept
        return cls(rows[keep], scores[keep])

    def __len__(self) -> int:
        return len(self.scores)

    def above(self, threshold: float) -> Pairs:
        """The pairs with cosine >= `threshold` (best first, as here)."""
        count = int(np.searchsorted(-self.scores, -np.float32(threshold), side="right"))
        return Pairs(self.rows[:count], self.scores[:count])

    def touching(self, row: int) -> tuple[np.ndarray, np.ndarray]:
        """The partners (m,) of `row` and the pairs' cosines (m,), best first."""
        mask = (self.rows == row).any(axis=1)
        found = self.rows[mask]
        return np.where(found[:, 0] == row, found[:, 1], found[:, 0]), self.scores[mask]


def near_pairs(index: VectorIndex, floor: float, neighbours: int = NEIGHBOURS,
               rows: Sequence[int] | None = None, keys: np.ndarray | None = None) -> Pairs:
    """The self-join of `index` above `floor` (see the module), for the rows `rows` (None:
    all) searched against every row. `keys` (n, ...) marks rows of identical text: rows with
    equal keys are never paired (e.g. the (n, 32) text hashes)."""
    if not -1.0 <= floor <= 1.0:
        raise ValueError(f"floor must be a cosine in [-1, 1], not {floor}")
    queried = np.arange(index.count) if rows is None else np.asarray(rows, dtype=np.int64)
    if index.count < 2 or len(queried) == 0:
        return Pairs.empty()
    vectors = index.vectors()
    found_rows, found_scores = [], []
    depth = min(neighbours + 1, index.count)  # + the row itself
    for start in range(0, len(queried), BLOCK):
        block = queried[start:start + BLOCK]
        scores, partners = index.search(vectors[block], depth, breadth=index.build_breadth)
        left = np.repeat(block, depth).reshape(len(block), depth)
        keep = (partners >= 0) & (partners != left) & (scores >= np.float32(floor))
        found_rows.append(np.column_stack([left[keep], partners[keep]]))
        found_scores.append(scores[keep])
    pairs = Pairs.of(np.concatenate(found_rows), np.concatenate(found_scores))
    return _distinct_texts(pairs, keys)


def _distinct_texts(pairs: Pairs, keys: np.ndarray | None) -> Pairs:
    """`pairs` without those whose rows have equal `keys` (identical texts)."""
    if keys is None or not len(pairs):
        return pairs
    flat = np.ascontiguousarray(keys).reshape(len(keys), -1)
    same = (flat[pairs.rows[:, 0]] == flat[pairs.rows[:, 1]]).all(axis=1)
    return Pairs(pairs.rows[~same], pairs.scores[~same])


def merge(*parts: Pairs) -> Pairs:
    """The union of several Pairs (a pair found twice is kept once)."""
    kept = [part for part in parts if len(part)]
    if not kept:
        return Pairs.empty()
    return Pairs.of(np.concatenate([p.rows for p in kept]), np.concatenate([p.scores for p in kept]))


def renumber(pairs: Pairs, new_rows: np.ndarray) -> Pairs:
    """`pairs` with each row r moved to `new_rows[r]` (-1: the row is gone; its pairs too)."""
    moved = np.asarray(new_rows, dtype=np.int64)[pairs.rows] if len(pairs) else pairs.rows
    keep = (moved >= 0).all(axis=1) if len(pairs) else np.zeros(0, dtype=bool)
    return Pairs.of(moved[keep], pairs.scores[keep])
