"""What each build added, recorded at build time and kept across builds.

Two artifacts: the array ADDED_IN, (n,) int32, each paper's place in the build log; and the
extras key BUILDS, the log of the earlier builds, oldest first ({"build_id", "built_at",
"added", "count"}; "added" is None for a build from before the log). The place len(BUILDS) is
the build that wrote them, whose id and time are its manifest's. Both are written with the
rest of the index (atomically, the manifest last), so the log is as safe as the index.

A paper is old when the previous build had it: the same text (by text hash), else the same
paper id (an abstract corrected in place is not news); it keeps the place it had. Every other
paper was added by this build. Ids are compared by their stored hashes (ID_HASHES, `id_hashes`),
so an update never reads the previous papers file; a previous build without them is matched by
text alone. Removed papers leave the log's counts as they were. At most MAX_BUILDS builds are
remembered: older ones fold into the oldest kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.corpus.papers import Paper

MAX_BUILDS = 100


@dataclass(frozen=True)
class Before:
    """What the previous build of the folder says: its id, time and size, its rows' text hashes,
    its own log (None for a build from before the log) and its rows' id hashes (None: not
    stored)."""

    build_id: str | None
    built_at: str | None
    text_hashes: Sequence[str]
    added_in: np.ndarray | None  # (m,) the previous build's ADDED_IN
    builds: object  # its BUILDS (checked here)
    id_hashes: np.ndarray | None  # (m,) uint64, id_hashes() of the previous build


def history(papers: Sequence[Paper], before: Before | None) -> tuple[np.ndarray, list[dict]]:
    """(ADDED_IN (n,) int32, BUILDS) for a build of `papers` after `before` (None: the first)."""
    if before is None:
        return np.zeros(len(papers), dtype=np.int32), []
    earlier, places = _earlier(before)
    current = len(earlier)
    by_hash = {h: row for row, h in enumerate(before.text_hashes)}
    added_in = np.full(len(papers), current, dtype=np.int32)
    unmatched = []
    for row, paper in enumerate(papers):
        old = by_hash.get(paper.text_hash)
        if old is None:
            unmatched.append(row)
        else:
            added_in[row] = places[old]
    stored = before.id_hashes
    if unmatched and stored is not None and stored.shape == (len(before.text_hashes),):
        by_id = {int(key): row for row, key in enumerate(stored)}
        for row in unmatched:
            old = by_id.get(_id_hash(papers[row].paper_id))
            if old is not None:
                added_in[row] = places[old]
    return _trimmed(added_in, earlier)


def id_hashes(papers: Sequence[Paper]) -> np.ndarray:
    """(n,) uint64: the first 8 bytes of the SHA-256 of each paper's id (ID_HASHES)."""
    return np.array([_id_hash(paper.paper_id) for paper in papers], dtype=np.uint64)


def _id_hash(paper_id: str) -> int:
    return int.from_bytes(hashlib.sha256(paper_id.encode("utf-8")).digest()[:8], "little")


def _earlier(before: Before) -> tuple[list[dict], np.ndarray]:
    """The log up to and including the previous build, and each previous row's place in it."""
    count = len(before.text_hashes)
    logged = valid_log(before.builds, before.added_in, count)
    earlier = list(before.builds) if logged else []  # type: ignore[arg-type]
    own = len(earlier)
    places = (np.asarray(before.added_in, dtype=np.int32) if logged
              else np.full(count, own, dtype=np.int32))
    added = int(np.count_nonzero(places == own)) if logged else None
    earlier.append({"build_id": before.build_id, "built_at": before.built_at,
                    "added": added, "count": count})
    return earlier, places


def valid_log(builds: object, added_in: np.ndarray | None, count: int) -> bool:
    """Whether a stored log fits an index of `count` papers (else it is read as absent)."""
    if not isinstance(builds, list) or added_in is None or added_in.shape != (count,):
        return False
    if not all(isinstance(entry, dict) for entry in builds):
        return False
    return count == 0 or (int(added_in.min()) >= 0 and int(added_in.max()) <= len(builds))


def _trimmed(added_in: np.ndarray, earlier: list[dict]) -> tuple[np.ndarray, list[dict]]:
    """At most MAX_BUILDS earlier builds: the oldest fold into the first kept."""
    dropped = len(earlier) - MAX_BUILDS
    if dropped <= 0:
        return added_in, earlier
    return np.maximum(added_in - dropped, 0).astype(np.int32), earlier[dropped:]
