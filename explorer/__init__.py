"""Paper Explorer: semantic search and related-paper walks over research abstracts.

The Python API for notebooks::

    from explorer import Explorer
    ex = Explorer.open("embeddings")
    hits = ex.search("state tracking limits of diagonal state-space models", top_k=5)
    more = ex.similar(hits[0].paper_id)
"""

from explorer.errors import ExplorerError
from explorer.query.engine import Explorer, Hit

__all__ = ["Explorer", "ExplorerError", "Hit"]
