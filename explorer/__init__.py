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
"""

from explorer.errors import ExplorerError
from explorer.query.engine import Explorer, Filters, Hit, QueryOptions

__all__ = ["Explorer", "ExplorerError", "Filters", "Hit", "QueryOptions"]
