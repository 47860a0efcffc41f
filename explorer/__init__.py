"""Paper Explorer: semantic search and related-paper walks over research abstracts.

The Python API for notebooks::

    from explorer import Explorer
    ex = Explorer.open("embeddings")
    hits = ex.search("state tracking limits of diagonal state-space models", top_k=5)
    more = ex.similar(hits[0].paper_id)

Every verb takes the same options, as keywords or as one frozen (hashable) QueryOptions::

    options = QueryOptions(top_k=5, mode="dense", filters=Filters(year_min=2020))
    hits = ex.search("graph neural networks", options=options)
    same = ex.search("graph neural networks", 5, Filters(year_min=2020), mode="dense")

The names below load on first use, so importing one step (e.g. `explorer.settings` or
`explorer.corpus`) does not load FAISS and the whole query step.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers and editors; at run time they load on first use
    from explorer.errors import ExplorerError
    from explorer.query.engine import Explorer
    from explorer.query.hits import Hit
    from explorer.ranking.filters import Filters
    from explorer.ranking.options import QueryOptions

_PUBLIC = {
    "Explorer": "explorer.query.engine",
    "ExplorerError": "explorer.errors",
    "Filters": "explorer.ranking.filters",
    "Hit": "explorer.query.hits",
    "QueryOptions": "explorer.ranking.options",
}
__all__ = ["Explorer", "ExplorerError", "Filters", "Hit", "QueryOptions"]  # = _PUBLIC


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'explorer' has no attribute {name!r}")
    return getattr(importlib.import_module(_PUBLIC[name]), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
