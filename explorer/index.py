"""A thin FAISS wrapper: build / search / save / load over normalised vectors (inner product)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import faiss
import numpy as np

EXACT = "flat"
HNSW = "hnsw"
INDEX_TYPES = (EXACT, HNSW)
HNSW_M = 32


class VectorIndex:
    """Inner-product search over unit vectors; rows are positions in the paper list."""

    def __init__(self, index: faiss.Index, kind: str) -> None:
        self._index = index
        self.kind = kind

    @classmethod
    def build(cls, vectors: np.ndarray, kind: str = EXACT) -> VectorIndex:
        """Index `vectors` (n, d) float32. `kind` is 'flat' (exact) or 'hnsw' (approximate)."""
        if kind not in INDEX_TYPES:
            raise ValueError(f"unknown index type {kind!r}; expected one of {INDEX_TYPES}")
        vectors = _as_matrix(vectors)
        dimension = vectors.shape[1]
        if kind == EXACT:
            index = faiss.IndexFlatIP(dimension)
        else:
            index = faiss.IndexHNSWFlat(dimension, HNSW_M, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = 80
            index.hnsw.efSearch = 64
        index.add(vectors)
        return cls(index, kind)

    @property
    def count(self) -> int:
        return int(self._index.ntotal)

    @property
    def dimension(self) -> int:
        return int(self._index.d)

    def vectors(self) -> np.ndarray:
        """The stored vectors (n, d) as a read-only view, not a copy."""
        flat = self._index if self.kind == EXACT else faiss.downcast_index(self._index.storage)
        if self.count == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        view = faiss.rev_swig_ptr(flat.get_xb(), self.count * self.dimension)
        view = view.reshape(self.count, self.dimension)
        view.flags.writeable = False
        return view

    def search(
        self, queries: np.ndarray, top_k: int, allowed: Sequence[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k rows for each query (m, d) -> (scores (m, k), rows (m, k)); -1 rows pad.

        `allowed` restricts results to those rows, inside the search, so a filtered search
        still returns k hits when k match.
        """
        queries = _as_matrix(queries)
        if queries.shape[1] != self.dimension:
            raise ValueError(f"query dimension {queries.shape[1]} != index {self.dimension}")
        top_k = max(1, min(top_k, self.count))
        params = None
        if allowed is not None:
            ids = np.asarray(allowed, dtype=np.int64)
            selector = faiss.IDSelectorBatch(len(ids), faiss.swig_ptr(ids))
            if self.kind == EXACT:
                params = faiss.SearchParameters(sel=selector)
            else:
                params = faiss.SearchParametersHNSW(sel=selector, efSearch=max(64, top_k * 2))
            scores, rows = self._index.search(queries, top_k, params=params)
            del ids  # the selector points into ids; keep it alive until here
            return scores, rows
        return self._index.search(queries, top_k)

    def save(self, path: Path) -> None:
        """Write to `path` (the caller makes it atomic)."""
        faiss.write_index(self._index, os.fspath(path))

    @classmethod
    def load(cls, path: Path, kind: str) -> VectorIndex:
        return cls(faiss.read_index(os.fspath(path)), kind)


def _as_matrix(vectors: np.ndarray) -> np.ndarray:
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    if vectors.ndim != 2:
        raise ValueError(f"expected vectors of shape (n, d), got {vectors.shape}")
    return vectors
