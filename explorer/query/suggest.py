"""'Did you mean': ids close to an unknown one, found without comparing against every id.

difflib over all 106k ids took 1.9 s per unknown id (holding the GIL), so a link with many
fake ids stalled every session. Ids are compared only with their neighbours in two sorted
orders: as written (a typo late in the id keeps its prefix) and reversed (a typo early keeps
its suffix). At most `limit` ids are examined, whatever the corpus size.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

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
