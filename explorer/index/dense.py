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
from explorer.index import blas, ivf, scan
from explorer.index.ivf import IVF_REFINE
from explorer.index.scan import FEW_QUERIES

EXACT = "flat"
HNSW = "hnsw"
IVF = "ivf"  # inverted lists of 8-bit codes; the candidates re-scored on the float vectors
INDEX_TYPES = (EXACT, HNSW, IVF)
HNSW_M = 32  # graph degree (benchmarks/results/large.md)
HNSW_EF_CONSTRUCTION = 80
# efSearch, the graph search's candidate pool, by corpus size (set per search with
# faiss.SearchParametersHNSW, never on the shared index, so threads asking at once cannot
# change each other's searches). Simulated from real MiniLM vectors: 128 gives recall@10 0.99
# at 100k; at 1M 0.927, and 512 0.974 at 1.2 ms (benchmarks/results/scale-*.md), never 0.99:
# from APPROXIMATE_THRESHOLD a build makes IVF (below) unless HNSW is asked for. The graph's
# candidates are scored exactly already (IndexHNSWFlat keeps the float vectors): re-scoring a
# larger pool equals a larger efSearch (measured: pool 200 of efSearch 256 re-scored, 0.993 at
# 100k, as efSearch 256 alone).
HNSW_EF_SEARCH = 128  # up to the first size below; also the build's neighbour pairs
EF_SEARCH_BY_SIZE = ((300_000, HNSW_EF_SEARCH),)
EF_SEARCH_LARGEST = 512  # past the table: the best 1M recall at about 1 ms
# IVF: about 4 sqrt(n) lists (1M rows: 4,000 of ~250 rows), trained on 40 rows a list; a
# search scans the codes of IVF_PROBES lists and re-scores its IVF_REFINE x top_k best codes
# exactly on the float vectors (IndexRefineFlat), so the scores are exact and recall comes
# from the probes (benchmarks/results/scale-amd-f25-m17.md; on the real ~92k paperlists-ml
# vectors, Zen 4 quiet: 64 lists recall@10 0.990, 128 0.998 at 0.61 ms, the flat scan 4.35 ms)
IVF_PROBES = 128
EXACT_FILTER_SHARE = 0.2  # HNSW or IVF + a filter keeping fewer rows than this share: exact search
# An exact index of scan.SPLIT_ROWS+ rows that has answered this many unfiltered searches keeps
# an fp16 copy of its vectors made on a thread of its own; from then on the copy's scan finds
# candidates that are scored exactly (benchmarks/README: "The compressed first pass"). A
# one-off search (the CLI) never pays for the copy.
COMPRESS_AFTER = 8


class VectorIndex:
    """Inner-product search over unit vectors; rows are positions in the paper list."""

    def __init__(self, index: faiss.Index, kind: str, breadth: int | None = None) -> None:
        self._index = index
        self.kind = kind
        # how wide an approximate search looks: HNSW efSearch, IVF lists probed
        self.breadth = breadth or (IVF_PROBES if kind == IVF else ef_search_for(self.count))
        self._longest: float | None = None  # the largest vector norm, on first need
        self._compressed: scan.Compressed | None = None  # set once, whole (readers take it as is)
        self._searches = 0  # unfiltered exact searches so far, up to COMPRESS_AFTER
        self._count_lock = threading.Lock()
        self._active = 0  # searches going on now: one alone scans its ranges in parallel
        self._active_lock = threading.Lock()
        self._build_lock = threading.Lock()
        self._mapped = False  # opened by load: its files are mapped read only

    @classmethod
    def build(cls, vectors: np.ndarray, kind: str = EXACT,
              previous: VectorIndex | None = None) -> VectorIndex:
        """Index `vectors` (n, d) float32. `kind` is 'flat' (exact), 'hnsw' or 'ivf'
        (approximate). `previous`: the index this one replaces (an update); an IVF keeps a
        previous IVF's trained lists while the size stays near (index/ivf.py: REUSE_GROWTH),
        and when `vectors` begin with its rows only the rows after them are added."""
        if kind not in INDEX_TYPES:
            raise ValueError(f"unknown index type {kind!r}; expected one of {INDEX_TYPES}")
        vectors = _as_matrix(vectors)
        dimension = vectors.shape[1]
        if (kind == IVF and previous is not None and previous.kind == IVF
                and ivf.reusable(previous._index, len(vectors), dimension)):
            return cls(ivf.updated(previous._index, previous.vectors(), vectors), kind)
        if kind == EXACT:
            index = faiss.IndexFlatIP(dimension)
        elif kind == IVF:
            index = ivf.trained(vectors)
        else:
            index = faiss.IndexHNSWFlat(dimension, HNSW_M, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.add(vectors)
        return cls(index, kind)

    def add(self, vectors: np.ndarray) -> None:
        """Append `vectors` (n, d) as rows count..count+n-1, to an index built in this process
        (not while it is searched). An IVF keeps its trained lists: each new row goes to its
        nearest list and nothing is trained again; HNSW links the rows into its graph."""
        if self._mapped:
            raise ValueError("an index opened by load is mapped read only: build one to add to")
        vectors = _as_matrix(vectors)
        if vectors.shape[1] != self.dimension:
            raise ValueError(f"vector dimension {vectors.shape[1]} != index {self.dimension}")
        with self._build_lock:
            self._index.add(vectors)
            self._longest, self._compressed = None, None

    @property
    def count(self) -> int:
        return int(self._index.ntotal)

    @property
    def lists(self) -> int | None:
        """An IVF's inverted lists (trained by the build, or kept by an update); else None."""
        return ivf.lists(self._index) if self.kind == IVF else None

    @property
    def dimension(self) -> int:
        return int(self._index.d)

    def vectors(self) -> np.ndarray:
        """The stored vectors (n, d) as a read-only view, not a copy."""
        flat = self._storage()
        if self.count == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        raw = faiss.rev_swig_ptr(flat.get_xb(), self.count * self.dimension)
        view = np.asarray(_KeepAlive(self._index, raw)).reshape(self.count, self.dimension)
        view.flags.writeable = False
        return view

    def search(
        self, queries: np.ndarray, top_k: int, allowed: Sequence[int] | None = None,
        breadth: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k rows for each query (m, d) -> (scores (m, k), rows (m, k)); -1 rows pad.

        `allowed` restricts results to those rows, inside the search, so a filtered search
        still returns k hits when k match. On HNSW a selective filter (under
        EXACT_FILTER_SHARE of the rows) is answered exactly over the stored vectors, and a
        graph search that finds fewer hits than the filter allows falls back to that too.
        `breadth`: how wide this search looks (default: the index's): HNSW efSearch, IVF
        lists probed.
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
                return self._search(queries, top_k, allowed, alone, breadth or self.breadth)
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
                alone: bool, breadth: int):
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
            if self.kind == EXACT:
                return self._index.search(queries, top_k)
            return self._approximate(queries, top_k, breadth, None)
        ids = np.ascontiguousarray(allowed, dtype=np.int64)  # the selector points into it
        selector = faiss.IDSelectorBatch(len(ids), faiss.swig_ptr(ids))
        exact = faiss.SearchParameters(sel=selector)
        if self.kind == EXACT:
            return self._index.search(queries, top_k, params=exact)
        storage = self._storage()
        if len(ids) < EXACT_FILTER_SHARE * self.count:
            return storage.search(queries, top_k, params=exact)
        scores, rows = self._approximate(queries, top_k, breadth, selector)
        if (rows[:, : min(top_k, len(ids))] < 0).any():
            scores, rows = storage.search(queries, top_k, params=exact)
        return scores, rows

    def _approximate(self, queries: np.ndarray, top_k: int, breadth: int, selector):
        """The HNSW or IVF search, its breadth and filter in this call's own parameters (never
        set on the shared index: thread-safe)."""
        if self.kind == HNSW:
            pool = max(breadth, 2 * top_k if selector is not None else top_k)
            graph = faiss.SearchParametersHNSW(efSearch=pool)
            if selector is not None:
                graph.sel = selector
            return self._index.search(queries, top_k, params=graph)
        lists = faiss.SearchParametersIVF(nprobe=breadth)
        if selector is not None:
            lists.sel = selector
        refine = faiss.IndexRefineSearchParameters(k_factor=IVF_REFINE, base_index_params=lists)
        return self._index.search(queries, top_k, params=refine)

    def _storage(self) -> faiss.IndexFlat:
        """The float vectors in row order: the exact index, HNSW's storage, IVF's refinement."""
        if self.kind == EXACT:
            return self._index
        inner = faiss.downcast_index(self._index)
        return faiss.downcast_index(inner.storage if self.kind == HNSW else inner.refine_index)

    @property
    def build_breadth(self) -> int | None:
        """The breadth of a build's own searches of every row (index/pairs.py): HNSW's base
        efSearch (its neighbour pairs as before the size table), else the index's."""
        return HNSW_EF_SEARCH if self.kind == HNSW else None

    def save(self, path: Path) -> None:
        """Write to `path` (the caller makes it atomic)."""
        faiss.write_index(self._index, os.fspath(path))

    @classmethod
    def load(cls, path: Path, kind: str, breadth: int | None = None) -> VectorIndex:
        """Open a saved index memory-mapped from the file, read only (FAISS's IO_FLAG_MMAP_IFC:
        the vectors, and an HNSW graph's links too in FAISS 1.15): opening costs no resident
        memory of the process's own (benchmarks/results/scale-*.md: RssAnon), a search reads
        the pages from the page cache (shared, given back under pressure), and the mapping
        keeps the file's data even once a rebuild deletes the file. `breadth`: how wide its
        searches look (default: HNSW by the index's size, EF_SEARCH_BY_SIZE; IVF_PROBES)."""
        opened = cls(faiss.read_index(os.fspath(path), faiss.IO_FLAG_MMAP_IFC), kind, breadth)
        opened._mapped = True
        return opened


def ef_search_for(count: int) -> int:
    """The HNSW efSearch for an index of `count` rows (EF_SEARCH_BY_SIZE)."""
    for rows, ef_search in EF_SEARCH_BY_SIZE:
        if count <= rows:
            return ef_search
    return EF_SEARCH_LARGEST


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
