"""A thin FAISS wrapper: build / search / save / load over normalised vectors (inner product).

Searching is safe from many threads at once: FAISS documents its CPU indexes as thread-safe
for concurrent searches and other calls that do not change the index; a filtered search builds
its own selector and parameters per call, and OpenMP thread counts set here are per thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import faiss
import numpy as np

from explorer.batching import IN_PROGRESS

EXACT = "flat"
HNSW = "hnsw"
INDEX_TYPES = (EXACT, HNSW)
HNSW_M = 32  # graph degree (benchmarks/results/large.md)
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 128  # 1M vectors: recall@10 0.99 at 0.42 ms (64: 0.945 at 0.33 ms)
# Batches up to this size search single-threaded (see _threads) and answer each query exactly as
# it is answered alone: the query path batches questions that arrive together this far.
FEW_QUERIES = 16
# A batch this big of an exact index of SPLIT_ROWS+ rows finds candidates with one BLAS product
# for all its queries (from 4 queries cheaper than scanning for each: benchmarks/README.md),
# then scores RESCORED candidates beyond top_k per query exactly as a query alone is scored.
BLAS_QUERIES = 4
RESCORED = 64
EXACT_FILTER_SHARE = 0.2  # HNSW + a filter keeping fewer rows than this share: exact search
SPLIT_ROWS = 32_768  # exact indexes this big search a few queries in parallel row ranges
MAX_PARTS = 4
# An exact index of SPLIT_ROWS+ rows that has answered this many unfiltered searches keeps an
# fp16 copy of its vectors (half the bytes: the scan is bound by memory) made on a thread of its
# own; from then on the copy's scan finds candidates that are scored exactly (benchmarks/README:
# "The compressed first pass"). A one-off search (the CLI) never pays for the copy.
COMPRESS_AFTER = 8
FP16_ERROR = 2.0**-10  # |x - fp16(x)| <= this * |x| in fp16's normal range, whatever the rounding
FP16_SPACING = 2.0**-24  # ... and <= this below it (the spacing of fp16's subnormals)
FP16_LARGEST = 60_000.0  # vectors with a component beyond this are not copied (fp16 max 65,504)


class VectorIndex:
    """Inner-product search over unit vectors; rows are positions in the paper list."""

    def __init__(self, index: faiss.Index, kind: str) -> None:
        self._index = index
        self.kind = kind
        self._longest: float | None = None  # the largest vector norm, on first need
        self._compressed: _Compressed | None = None  # set once, whole (readers take it as is)
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
            with _threads(1 if len(queries) <= FEW_QUERIES else None):
                return self._search(queries, top_k, allowed, alone)
        finally:
            with self._active_lock:
                self._active -= 1

    def compress(self) -> bool:
        """Make the fp16 copy that searches of up to FEW_QUERIES queries scan first, now (a
        served index makes it on its own after COMPRESS_AFTER searches) -> whether there is
        one: only exact indexes of SPLIT_ROWS+ rows with fp16-sized components get one."""
        with self._build_lock:  # searches meanwhile scan the float32 vectors
            parts = _parts(self.count, 1)
            if self._compressed is None and self.kind == EXACT and parts > 0:
                vectors = self.vectors()
                if _largest(vectors) <= FP16_LARGEST:
                    self._compressed = _Compressed(vectors, parts, self.longest())
            return self._compressed is not None

    @property
    def compressed(self) -> bool:
        """Whether searches scan the fp16 copy first (see compress)."""
        return self._compressed is not None

    def longest(self) -> float:
        """The largest norm of a stored vector."""
        if self._longest is None:
            norms = [np.sqrt((block * block).sum(axis=1)).max(initial=0.0)
                     for block in _blocks(self.vectors())]
            self._longest = float(max(norms, default=0.0))
        return self._longest

    def _count_search(self) -> None:
        """Count an unfiltered exact search; the COMPRESS_AFTER-th starts the fp16 copy."""
        with self._count_lock:
            self._searches += 1
            if self._searches != COMPRESS_AFTER:
                return
        threading.Thread(target=self._compress_in_background, name="explorer-compress",
                         daemon=True).start()

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
        parts = _parts(self.count, len(queries))
        if allowed is None and self.kind == EXACT and parts > 0:
            compressed = self._compressed
            if compressed is not None and compressed.parts == parts:
                rows, ceilings = compressed.scan(queries, top_k, alone)
                return self._rescored(queries, top_k, rows, ceilings, alone)
            self._count_search()
            if len(queries) >= BLAS_QUERIES:
                return self._batch_search(queries, top_k, parts, alone)
            return _split_search(self.vectors(), queries, top_k, parts, alone)
        if allowed is None:
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

    def _batch_search(self, queries: np.ndarray, top_k: int, parts: int, parallel: bool
                      ) -> tuple[np.ndarray, np.ndarray]:
        """_split_search's answer for each of several queries (m, d), from BLAS products over
        the same row ranges.

        BLAS rounds its sums otherwise than FAISS's scan of one query, so the top
        top_k + RESCORED rows of each range are only candidates: they are scored again as a
        query alone is scored (the same kernel), and a query whose k-th score a row outside
        them might reach within the rounding bound is searched alone."""
        with _blas(self.dimension):
            _, rows, floors = _scan(self.vectors(), queries, top_k, parts, parallel)
        # |BLAS - scan| <= 2 * gamma_d * |q| * |v| for any summation order (gamma_d ~ d * 2^-24)
        margins = _rounding(self.dimension) * np.linalg.norm(queries, axis=1) * self.longest()
        return self._rescored(queries, top_k, rows, floors + margins, parallel)

    def _rescored(self, queries: np.ndarray, top_k: int, rows: np.ndarray, ceilings: np.ndarray,
                  parallel: bool) -> tuple[np.ndarray, np.ndarray]:
        """The exact top_k of each query (m, d) from candidate `rows` (m, c), scored as a query
        alone is scored (the same kernel), given per query the highest exact score a row left
        out may have: a query whose k-th score such a row might reach (ties included) is
        searched alone, exactly."""
        vectors = self.vectors()
        exact = np.empty(rows.shape, dtype=np.float32)
        faiss.fvec_inner_products_by_idx(
            faiss.swig_ptr(exact), faiss.swig_ptr(queries), faiss.swig_ptr(vectors),
            faiss.swig_ptr(rows), self.dimension, len(queries), rows.shape[1])
        exact[rows < 0] = -np.inf
        scores, rows = _best(exact, rows, top_k)
        parts = _parts(self.count, len(queries))
        for i in np.flatnonzero(ceilings >= scores[:, -1]):
            found = _split_search(vectors, queries[i:i + 1], top_k, parts, parallel)
            scores[i], rows[i] = found[0][0], found[1][0]
        return scores, rows

    def save(self, path: Path) -> None:
        """Write to `path` (the caller makes it atomic)."""
        faiss.write_index(self._index, os.fspath(path))

    @classmethod
    def load(cls, path: Path, kind: str) -> VectorIndex:
        index = faiss.read_index(os.fspath(path))
        if kind == HNSW:  # indexes saved with an older setting search like new ones
            faiss.downcast_index(index).hnsw.efSearch = HNSW_EF_SEARCH
        return cls(index, kind)


def _parts(count: int, queries: int) -> int:
    """Into how many row ranges an exact search of a few queries is split, searched in parallel
    (0: not split, FAISS's own search)."""
    if count < SPLIT_ROWS or queries > FEW_QUERIES:
        return 0
    return max(1, min(MAX_PARTS, os.cpu_count() or 1, count // (SPLIT_ROWS // 2)))


def _split_search(vectors: np.ndarray, queries: np.ndarray, top_k: int, parts: int,
                  parallel: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k over `vectors` (n, d) for `queries` (m, d), m <= FEW_QUERIES, searched as
    `parts` row ranges in parallel threads -> (scores (m, k), rows (m, k)).

    Scanning 100k vectors is bound by memory bandwidth; Python threads (FAISS releases the GIL)
    use every core without OpenMP's busy waiting, which is what makes threaded FAISS slow when
    the cores are shared. Every query's scores and rows are exactly those it gets searched
    alone (FAISS scans each query on its own in batches this small; ties come lower row
    first), whatever the ranges and the batch.
    """
    scores, rows, _ = _scan(vectors, queries, top_k, parts, parallel)
    return _best(scores, rows, top_k)


def _scan(vectors: np.ndarray, queries: np.ndarray, top_k: int, parts: int, parallel: bool
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FAISS's top top_k + RESCORED rows of each of `parts` row ranges, in parallel threads
    (room beyond top_k, so that rows tied with the k-th are all kept for the cut) -> (scores,
    rows (m, parts * kept)) and, per query, the highest score a row left out may have."""
    bounds = _bounds(len(vectors), parts)

    def search(start: int, end: int, kept: int) -> tuple[np.ndarray, np.ndarray]:
        return faiss.knn(queries, vectors[start:end], kept, metric=faiss.METRIC_INNER_PRODUCT)

    found = _ranges(search, bounds, top_k, parallel)
    rows, floors = _merged(found, bounds, len(queries), 0.0)
    return np.concatenate([f[0] for f in found], axis=1), rows, floors


def _ranges(search: Callable[[int, int, int], tuple[np.ndarray, np.ndarray]], bounds: list[int],
            top_k: int, parallel: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """search(start, end, kept) of each row range (its top top_k + RESCORED, rows counted
    from the range's start) -> (scores, rows of the whole index) per range, the ranges in
    parallel threads or in this one."""

    def part(i: int) -> tuple[np.ndarray, np.ndarray]:
        faiss.omp_set_num_threads(1)  # per thread: this worker's own FAISS calls
        start, end = bounds[i], bounds[i + 1]
        scores, rows = search(start, end, min(top_k + RESCORED, end - start))
        return scores, np.where(rows >= 0, rows + start, -1)

    parts = len(bounds) - 1
    if parallel and parts > 1:
        return list(_pool().map(part, range(parts)))
    return [part(i) for i in range(parts)]


def _bounds(count: int, parts: int) -> list[int]:
    return [int(bound) for bound in np.linspace(0, count, parts + 1)]


def _merged(found: list[tuple[np.ndarray, np.ndarray]], bounds: list[int], queries: int,
            margins: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """The ranges' (scores, rows) -> all rows (m, c) and, per query, the highest score a row
    left out may have: the lowest kept score of a range that left rows out, plus `margins`."""
    floors = np.full(queries, -np.inf, dtype=np.float64)
    for (scores, _), start, end in zip(found, bounds, bounds[1:]):
        if scores.shape[1] < end - start:  # rows of this range were left out
            floors = np.maximum(floors, scores[:, -1])
    return np.concatenate([f[1] for f in found], axis=1), floors + margins


class _Compressed:
    """An fp16 copy of the vectors' row ranges (as _scan splits them), whose scan finds each
    query's candidates in half the bytes of float32, with the highest exact score a row left
    out may have."""

    def __init__(self, vectors: np.ndarray, parts: int, longest: float) -> None:
        self.parts = parts
        self.bounds = _bounds(len(vectors), parts)
        self.indexes = {}  # the range's start -> its copy
        for start, end in zip(self.bounds, self.bounds[1:]):
            index = faiss.IndexScalarQuantizer(vectors.shape[1], faiss.ScalarQuantizer.QT_fp16,
                                               faiss.METRIC_INNER_PRODUCT)
            index.add(vectors[start:end])
            self.indexes[start] = index
        # a row's exact score <= its fp16 score + |q| * margin: the copy's error
        # (|v - fp16(v)| <= FP16_ERROR |v| + sqrt(d) FP16_SPACING) and both sums' rounding
        dimension = vectors.shape[1]
        self.margin = ((_rounding(dimension) + FP16_ERROR) * longest * (1 + FP16_ERROR)
                       + np.sqrt(dimension) * FP16_SPACING)

    def scan(self, queries: np.ndarray, top_k: int, parallel: bool
             ) -> tuple[np.ndarray, np.ndarray]:
        """Candidate rows (m, parts * kept) of each query (m, d) and the ceiling of a row left
        out: the top top_k + RESCORED of each range by fp16 score (ranges in parallel threads
        if `parallel`)."""

        def search(start: int, end: int, kept: int) -> tuple[np.ndarray, np.ndarray]:
            return self.indexes[start].search(queries, kept)

        found = _ranges(search, self.bounds, top_k, parallel)
        return _merged(found, self.bounds, len(queries), self.margin * np.linalg.norm(queries, axis=1))


def _blocks(vectors: np.ndarray) -> list[np.ndarray]:
    """Views of `vectors` (n, d) by ~8,192 rows: a temporary per block, not per matrix."""
    return np.array_split(vectors, max(1, len(vectors) // 8192))


def _largest(vectors: np.ndarray) -> float:
    """The largest absolute component of `vectors`."""
    return float(max((np.abs(block).max(initial=0.0) for block in _blocks(vectors)), default=0.0))


def _rounding(dimension: int) -> float:
    """2 * gamma_d: the most two float32 sums of d products, in any order, differ by, per
    |q| * |v| (gamma_d = d u / (1 - d u), u the unit roundoff)."""
    unit = float(np.finfo(np.float32).eps) / 2
    return 2 * dimension * unit / (1 - dimension * unit)


def _best(scores: np.ndarray, rows: np.ndarray, top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each query's top_k of (scores, rows) (m, c): highest score first, ties lower row first."""
    order = np.lexsort((rows, -scores), axis=1)[:, :top_k]
    return np.take_along_axis(scores, order, axis=1), np.take_along_axis(rows, order, axis=1)


_BLAS_LOCK = threading.Lock()


@contextmanager
def _blas(dimension: int) -> Iterator[None]:
    """FAISS's BLAS product for searches of BLAS_QUERIES+ queries inside the block. FAISS
    decides by one global (`distance_compute_blas_threshold`, compared with queries x
    dimension; by default BLAS only from 128,000), so it is set for the block, one block at
    a time, and put back; searches of fewer queries meanwhile (other threads' single
    questions) still take FAISS's own scan of each query."""
    with _BLAS_LOCK:
        previous = faiss.cvar.distance_compute_blas_threshold
        faiss.cvar.distance_compute_blas_threshold = BLAS_QUERIES * dimension
        try:
            yield
        finally:
            faiss.cvar.distance_compute_blas_threshold = previous


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                _POOL = ThreadPoolExecutor(MAX_PARTS, thread_name_prefix="explorer-search")
    return _POOL


@contextmanager
def _threads(count: int | None) -> Iterator[None]:
    """Run FAISS with `count` OpenMP threads inside the block (None: leave as is); the count
    is the calling thread's own (an OpenMP setting per thread), so threads do not race on it.

    A single query gains little from threads and loses a lot when the cores are busy: on the
    shared 2-core machine, exact search over 100k vectors took 115-133 ms with 2 threads and
    25-31 ms with 1 (benchmarks/README.md).
    """
    if count is None:
        yield
        return
    previous = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(count)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(previous)


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
