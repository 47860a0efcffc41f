"""Close relatives, computed at build time: every pair of papers whose cosine is at least FLOOR
(index/pairs.py's self-join), updated incrementally like the map.

An update keeps the pairs of the papers it kept (by text hash), drops those of papers it
removed, and searches only the new papers against the whole index: the same pairs as a fresh
join unless some paper has more than NEIGHBOURS partners above FLOOR (then a fresh join may
keep another choice of them). The query step (features/relatives/query.py) reads the pairs and FLOOR from
what this module writes; thresholds below FLOOR cannot be answered from them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.artifacts.layout import RELATIVE_ROWS, RELATIVE_SCORES, RELATIVES
from explorer.index.dense import VectorIndex
from explorer.index.pairs import NEIGHBOURS, Pairs, merge, near_pairs, renumber

# The lowest cosine stored: below features/relatives/query.py's default threshold
# (studies/DECISIONS.md 13), so `explorer relatives --threshold` can go lower without a rebuild. On
# the 92k paperlists-ml index, 0.80 keeps about 0.4 pairs per paper.
FLOOR = 0.80
VERSION = 1  # of the join's rules: stored pairs of another version are joined afresh


def settings(kind: str) -> dict:
    """The extras entry that tells how the stored pairs were found."""
    return {"floor": FLOOR, "neighbours": NEIGHBOURS, "version": VERSION, "index_type": kind}


def compute_relatives(index: VectorIndex, hashes: np.ndarray) -> Pairs:
    """All close pairs of `index`; `hashes` (n, 32) the rows' text hashes (identical texts
    are never relatives)."""
    return near_pairs(index, FLOOR, NEIGHBOURS, keys=hashes)


def update_relatives(index: VectorIndex, hashes: np.ndarray, previous_hashes: Sequence[str],
                     stored: Pairs | None, stored_settings: object) -> Pairs:
    """The close pairs of `index` given an earlier build's (`stored`, found under
    `stored_settings`; `previous_hashes` its rows' text hashes); afresh when they do not fit."""
    if stored is None or stored_settings != settings(index.kind):
        return compute_relatives(index, hashes)
    now = {row.tobytes().hex(): number for number, row in enumerate(hashes)}
    moved = np.array([now.get(h, -1) for h in previous_hashes], dtype=np.int64)
    known = set(previous_hashes)
    added = [row for row, h in enumerate(r.tobytes().hex() for r in hashes) if h not in known]
    fresh = near_pairs(index, FLOOR, NEIGHBOURS, rows=added, keys=hashes)
    return merge(renumber(stored, moved), fresh)


def to_arrays(pairs: Pairs) -> dict[str, np.ndarray]:
    """The stored form: RELATIVE_ROWS (k, 2) int32 and RELATIVE_SCORES (k,) float32."""
    return {RELATIVE_ROWS: pairs.rows.astype(np.int32), RELATIVE_SCORES: pairs.scores}


def from_arrays(arrays: dict, extras: dict, count: int) -> tuple[Pairs | None, object]:
    """The pairs an earlier build stored (None when it stored none, or they do not fit its
    `count` rows) and the settings they were found under."""
    rows, scores = arrays.get(RELATIVE_ROWS), arrays.get(RELATIVE_SCORES)
    if rows is None or scores is None or len(rows) != len(scores):
        return None, None
    if len(rows) and (rows.min() < 0 or rows.max() >= count):
        return None, None
    return Pairs(rows.astype(np.int64), scores.astype(np.float32)), extras.get(RELATIVES)
