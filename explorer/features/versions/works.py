"""The versions of one work in a loaded index: which rows are versions of which (`Works`), and
a ranking folded so that each work is shown once, at its best-ranked version (`fold`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from explorer.corpus.papers import Paper
from explorer.corpus.versions import cite_order, version_groups

Groups = dict[int, tuple[int, ...]]  # row -> the rows of its work (itself included)


class Works:
    """Versions of the papers of one index: the groups stored at build (extras VERSIONS), else
    (papers held in memory: Ranker.of) found from the papers on first use, once, thread-safe."""

    def __init__(self, papers: Sequence[Paper], stored: Any = None) -> None:
        self._papers = papers
        self._stored = _stored_groups(stored, len(papers))
        self._groups: Groups | None = None
        self._lock = threading.Lock()

    @property
    def groups(self) -> Groups:
        if self._groups is None:
            with self._lock:
                if self._groups is None:
                    found = self._stored if self._stored is not None else version_groups(
                        self._papers)
                    self._groups = {row: tuple(group) for group in found for row in group}
        return self._groups

    def any(self) -> bool:
        """Whether any paper of the index has another version."""
        return bool(self.groups)

    def others(self, row: int) -> tuple[int, ...]:
        """The rows of the other versions of the paper in `row` (() when it has none)."""
        return tuple(other for other in self.groups.get(row, ()) if other != row)

    def cited(self, row: int) -> int:
        """The row of the version of `row`'s work to cite (corpus/versions.py's `preferred`:
        the accepted one over a reject or a withdrawn submission)."""
        return max(self.groups.get(row, (row,)), key=lambda other: (
            cite_order(self._papers[other]), other == row))

    def fold(self, rows: Sequence[int]) -> tuple[list[int], list[tuple[int, ...]]]:
        """The positions in `rows` (a ranking) that show each work once, at its first
        (best-ranked) version, and for each the rows of its other versions (those the ranking
        did not reach too, or that a filter kept out)."""
        positions: list[int] = []
        versions: list[tuple[int, ...]] = []
        seen: set[int] = set()
        for position, row in enumerate(rows):
            row = int(row)
            if row in seen:
                continue
            group = self.groups.get(row, (row,))
            seen.update(group)
            positions.append(position)
            versions.append(tuple(other for other in group if other != row))
        return positions, versions


def _stored_groups(stored: Any, count: int) -> list[list[int]] | None:
    """The stored groups when they fit this index (lists of rows in range), else None."""
    groups = stored.get("groups") if isinstance(stored, dict) else None
    if not isinstance(groups, list) or not all(
            isinstance(group, list) and all(type(row) is int and 0 <= row < count for row in group)
            for group in groups):
        return None
    return groups
