"""A thin FAISS wrapper: build / search / save / load over normalised vectors (inner product).

Searching is safe from many threads at once: FAISS documents its CPU indexes as thread-safe
for concurrent searches and other calls that do not change the index; a filtered search builds
its own selector and parameters per call, and OpenMP thread counts set here are per thread.
A big exact index answers a few queries by scanning its row ranges (index/scan.py); many
queries are multiplied with numpy's BLAS where FAISS's runs older kernels (index/blas.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import faiss
import numpy as np

from explorer.batching import IN_PROGRESS
from explorer.index import blas, scan
from explorer.index.scan import FEW_QUERIES

EXACT = "flat"
HNSW = "hnsw"
INDEX_TYPES = (EXACT, HNSW)
HNSW_M = 32  # graph degree (benchmarks/results/large.md)
HNSW_EF_CONSTRUCTION = 80
# 1M synthetic clustered vectors: recall@10 0.99 at 0.42 ms (64: 0.945); 1M simulated from
# real MiniLM vectors: 0.927 (256: 0.957, 512: 0.974; benchmarks/results/scale-*-ef.md)
HNSW_EF_SEARCH = 128
EXACT_FILTER_SHARE = 0.2  # HNSW + a filter keeping fewer rows than this share: exact search
# An exact index of scan.SPLIT_ROWS+ rows that has answered this many unfiltered searches keeps
# an fp16 copy of its vectors made on a thread of its own; from then on the copy's scan finds
# candidates that are scored exactly (benchmarks/README: "The compressed first pass"). A
# one-off search (the CLI) never pays for the copy.
COMPRESS_AFTER = 8


class VectorIndex:
    """Inner-product search over unit vectors; rows are positions in the paper list."""

    def __init__(self, index: faiss.Index, kind: str) -> None:
        self._index = index
        self.kind = kind
        self._longest: float | None = None  # the largest vector norm, on first need
        self._compressed: scan.Compressed | None = None  # set once, whole (readers take it as is)
        self._searches = 0  # unfiltered exact searches so far, up to COMPRESS_AFTER
        self._count_lock = threading.Lock()
        self._active = 0  # searches going on now: one alone scans its ranges in parallel
        self._active_lock = threading.Lock()
        self._build_lock = threading.Lock()

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
            index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
            index.hnsw.efSearch = HNSW_EF_SEARCH
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
        raw = faiss.rev_swig_ptr(flat.get_xb(), self.count * self.dimension)
        view = np.asarray(_KeepAlive(self._index, raw)).reshape(self.count, self.dimension)
        view.flags.writeable = False
        return view

    def search(
        self, queries: np.ndarray, top_k: int, allowed: Sequence[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k rows for each query (m, d) -> (scores (m, k), rows (m, k)); -1 rows pad.

        `allowed` restricts results to those rows, inside the search, so a filtered search
        still returns k hits when k match. On HNSW a selective filter (under
        EXACT_FILTER_SHARE of the rows) is answered exactly over the stored vectors, and a
        graph search that finds fewer hits than the filter allows falls back to that too.
        """
        queries = _as_matrix(queries)
        if queries.shape[1] != self.dimension:
            raise ValueError(f"query dimension {queries.shape[1]} != index {self.dimension}")
        top_k = max(1, min(top_k, self.count))
        with self._active_lock:
            self._active += 1
            alone = self._active == 1 and IN_PROGRESS.alone()
        try:
            with scan.threads(1 if len(queries) <= FEW_QUERIES else None):
                return self._search(queries, top_k, allowed, alone)
        finally:
            with self._active_lock:
                self._active -= 1

    def compress(self) -> bool:
        """Make the fp16 copy that searches of up to FEW_QUERIES queries scan first, now (a
        served index makes it on its own after COMPRESS_AFTER searches) -> whether there is
        one: only exact indexes of scan.SPLIT_ROWS+ rows with fp16-sized components get one."""
        with self._build_lock:  # searches meanwhile scan the float32 vectors
            ranges = scan.parts(self.count, 1)
            if self._compressed is None and self.kind == EXACT and ranges > 0:
                vectors = self.vectors()
                if scan.copyable(vectors):
                    self._compressed = scan.Compressed(vectors, ranges, self.longest())
            return self._compressed is not None

    @property
    def compressed(self) -> bool:
        """Whether searches scan the fp16 copy first (see compress)."""
        return self._compressed is not None

    def longest(self) -> float:
        """The largest norm of a stored vector."""
        if self._longest is None:
            self._longest = scan.longest(self.vectors())
        return self._longest

    def _count_search(self) -> None:
        """Count an unfiltered exact search; the COMPRESS_AFTER-th starts the fp16 copy."""
        with self._count_lock:
            self._searches += 1
            if self._searches != COMPRESS_AFTER:
                return
        # not a daemon: the interpreter waits for the copy at exit rather than freeing the
        # vectors under FAISS (a crash at exit was seen once with a daemon copy running)
        threading.Thread(target=self._compress_in_background, name="explorer-compress").start()

    def _compress_in_background(self) -> None:
        """compress, on a thread that yields the cores to the questions being answered
        (lowest priority where the system gives threads their own, as Linux does)."""
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        except (AttributeError, OSError):  # no per-thread priority here: run as is
            pass
        self.compress()

    def _search(self, queries: np.ndarray, top_k: int, allowed: Sequence[int] | None,
                alone: bool):
        """`alone`: no other search or question is going on (batching.IN_PROGRESS), so the row
        ranges of an exact search are scanned in parallel threads; else one after another in
        this thread (the others keep the cores busy)."""
        ranges = scan.parts(self.count, len(queries))
        if allowed is None and self.kind == EXACT and ranges > 0:
            compressed = self._compressed
            if compressed is not None and compressed.ranges == ranges:
                return compressed.search(self.vectors(), queries, top_k, alone)
            self._count_search()
            return scan.split_search(self.vectors(), queries, top_k, ranges, alone)
        if allowed is None:
            if (self.kind == EXACT and blas.many(len(queries), self.dimension)
                    and blas.numpy_multiplies()):  # FAISS's own BLAS runs older kernels here
                return blas.knn(self.vectors(), queries, top_k)
            return self._index.search(queries, top_k)
        ids = np.ascontiguousarray(allowed, dtype=np.int64)  # the selector points into it
        selector = faiss.IDSelectorBatch(len(ids), faiss.swig_ptr(ids))
        exact = faiss.SearchParameters(sel=selector)
        if self.kind == EXACT:
            return self._index.search(queries, top_k, params=exact)
        storage = faiss.downcast_index(self._index.storage)
        if len(ids) < EXACT_FILTER_SHARE * self.count:
            return storage.search(queries, top_k, params=exact)
        graph = faiss.SearchParametersHNSW(sel=selector, efSearch=max(HNSW_EF_SEARCH, 2 * top_k))
        scores, rows = self._index.search(queries, top_k, params=graph)
        if (rows[:, : min(top_k, len(ids))] < 0).any():
            scores, rows = storage.search(queries, top_k, params=exact)
        return scores, rows

    def save(self, path: Path) -> None:
        """Write to `path` (the caller makes it atomic)."""
        faiss.write_index(self._index, os.fspath(path))

    @classmethod
    def load(cls, path: Path, kind: str) -> VectorIndex:
        """Open a saved index memory-mapped from the file, read only (FAISS's IO_FLAG_MMAP_IFC:
        the vectors, and an HNSW graph's links too in FAISS 1.15): opening costs no resident
        memory of the process's own (benchmarks/results/scale-*.md: RssAnon), a search reads
        the pages from the page cache (shared, given back under pressure), and the mapping
        keeps the file's data even once a rebuild deletes the file."""
        index = faiss.read_index(os.fspath(path), faiss.IO_FLAG_MMAP_IFC)
        if kind == HNSW:  # indexes saved with an older setting search like new ones
            faiss.downcast_index(index).hnsw.efSearch = HNSW_EF_SEARCH
        return cls(index, kind)


class _KeepAlive:
    """Exposes FAISS-owned memory to NumPy while holding the index: a view of the vectors stays
    valid even after the VectorIndex that made it is gone."""

    def __init__(self, index: faiss.Index, raw: np.ndarray) -> None:
        self.index = index
        self.__array_interface__ = raw.__array_interface__


def _as_matrix(vectors: np.ndarray) -> np.ndarray:
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    if vectors.ndim != 2:
        raise ValueError(f"expected vectors of shape (n, d), got {vectors.shape}")
    return vectors
