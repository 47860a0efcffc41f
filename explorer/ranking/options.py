"""What every verb takes: one frozen, hashable QueryOptions (result count, filters, ranking
mode, diversity, feedback), so the verbs are short delegations and a UI can cache on it."""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass, field
from typing import Any

from explorer.ranking.filters import Filters
from explorer.ranking.fusion import check_mode


@dataclass(frozen=True)
class QueryOptions:
    """How a verb ranks. None means "the default": `mode` the index's default mode
    (Explorer.default_mode), `feedback` the verb's (on for hybrid search and similar,
    policy.DEFAULT_FEEDBACK; off for recommend).

    `top_k` results; `filters` restrict them; `mode` lexical, dense or hybrid; `diverse`
    re-ranks with MMR so near-copies spread out; `feedback` adds the pseudo-relevance pass
    (hybrid only); `versions`: show each work once, at its best-ranked version, the others
    listed with it (Hit.versions; features/versions/). Equal options hash equal: the app uses
    them in its cache key."""

    top_k: int = 10
    filters: Filters = field(default_factory=Filters)
    mode: str | None = None
    diverse: bool = False
    feedback: bool | None = None
    versions: bool = True

    def __post_init__(self) -> None:
        try:
            top_k = operator.index(self.top_k)
        except TypeError:
            top_k = -1
        if top_k < 0:
            raise ValueError(f"top_k must be a whole number >= 0, got {self.top_k!r}")
        object.__setattr__(self, "top_k", top_k)
        if self.filters is None:
            object.__setattr__(self, "filters", Filters())
        if self.mode is not None:
            check_mode(self.mode)

    @classmethod
    def of(cls, options: QueryOptions | None = None, /, **changes: Any) -> QueryOptions:
        """`options` (default: QueryOptions()) with `changes` applied, as the verbs take them:
        ``QueryOptions.of(None, top_k=5, mode="dense")``. A change given as None leaves that
        option as it is; a name that is not an option raises TypeError."""
        unknown = sorted(set(changes) - _FIELDS)
        if unknown:
            raise TypeError(f"unknown query option(s) {', '.join(unknown)}; "
                            f"expected some of {', '.join(sorted(_FIELDS))}")
        given = {name: value for name, value in changes.items() if value is not None}
        base = cls() if options is None else options
        return dataclasses.replace(base, **given) if given else base

    def resolved(self, default_mode: str) -> QueryOptions:
        """These options with `mode` None made `default_mode`."""
        return self if self.mode is not None else dataclasses.replace(self, mode=default_mode)


_FIELDS = frozenset(field.name for field in dataclasses.fields(QueryOptions))
