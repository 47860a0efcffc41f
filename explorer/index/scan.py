"""Exact scans of a big index's row ranges, for searches of a few queries (dense.VectorIndex).

The ranges are scanned in parallel Python threads (FAISS releases the GIL; its OpenMP threads
busy-wait when the cores are shared), and a faster first pass (an fp16 copy of the vectors)
only finds candidates: they are scored again with the kernel a query alone is scored with, and
a query whose k-th score a row left out might reach, within a proven bound, is scanned again
exactly. So every answer is, bit for bit, the one the query gets searched alone, whatever the
path, the ranges and the batch. Nothing here changes a setting of FAISS's that is global to the
process (its BLAS threshold): another index's searches meanwhile would read it.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import faiss
import numpy as np

# Batches up to this size search single-threaded (see threads) and answer each query exactly as
# it is answered alone: the query path batches questions that arrive together this far.
FEW_QUERIES = 16
SPLIT_ROWS = 32_768  # exact indexes this big search a few queries in parallel row ranges
MAX_PARTS = 4
# The fp16 first pass keeps RESCORED candidates beyond top_k per range for the exact scoring.
RESCORED = 64
FP16_ERROR = 2.0**-10  # |x - fp16(x)| <= this * |x| in fp16's normal range, whatever the rounding
FP16_SPACING = 2.0**-24  # ... and <= this below it (the spacing of fp16's subnormals)
FP16_LARGEST = 60_000.0  # vectors with a component beyond this are not copied (fp16 max 65,504)

Found = tuple[np.ndarray, np.ndarray]  # (scores (m, k), rows (m, k))


def parts(count: int, queries: int) -> int:
    """Into how many row ranges an exact search of `queries` queries over `count` rows is
    split (0: not split, FAISS's own search)."""
    if count < SPLIT_ROWS or queries > FEW_QUERIES:
        return 0
    return max(1, min(MAX_PARTS, _cores(), count // (SPLIT_ROWS // 2)))


@functools.cache
def _cores() -> int:
    """This machine's CPUs, read once (os.cpu_count reads /sys at every call: 0.05 ms, twice a
    search)."""
    return os.cpu_count() or 1


def split_search(vectors: np.ndarray, queries: np.ndarray, top_k: int, ranges: int,
                 parallel: bool = True) -> Found:
    """Exact top-k over `vectors` (n, d) for `queries` (m, d), m <= FEW_QUERIES, scanned as
    `ranges` row ranges (in parallel threads if `parallel`).

    FAISS scans each query on its own in batches this small, so every query's scores and rows
    are exactly those it gets searched alone (ties come lower row first).
    """
    bounds = _bounds(len(vectors), ranges)
    found = _ranges(_flat(vectors, queries), bounds, top_k, parallel)
    scores = np.concatenate([f[0] for f in found], axis=1)
    return _best(scores, np.concatenate([f[1] for f in found], axis=1), top_k)


def rescored(vectors: np.ndarray, queries: np.ndarray, top_k: int, rows: np.ndarray,
             ceilings: np.ndarray, parallel: bool) -> Found:
    """The exact top_k of each query (m, d) from candidate `rows` (m, c), scored as a query
    alone is scored (the same kernel), given per query the highest exact score a row left out
    may have: a query whose k-th score such a row might reach (ties included) is searched
    alone, exactly."""
    exact = np.empty(rows.shape, dtype=np.float32)
    faiss.fvec_inner_products_by_idx(
        faiss.swig_ptr(exact), faiss.swig_ptr(queries), faiss.swig_ptr(vectors),
        faiss.swig_ptr(rows), vectors.shape[1], len(queries), rows.shape[1])
    exact[rows < 0] = -np.inf
    scores, rows = _best(exact, rows, top_k)
    ranges = parts(len(vectors), len(queries))
    for i in np.flatnonzero(ceilings >= scores[:, -1]):
        found = split_search(vectors, queries[i:i + 1], top_k, ranges, parallel)
        scores[i], rows[i] = found[0][0], found[1][0]
    return scores, rows


class Compressed:
    """An fp16 copy of the vectors' row ranges (as split_search splits them), whose scan
    finds each query's candidates in half the bytes of float32 (the scan is bound by memory)."""

    def __init__(self, vectors: np.ndarray, ranges: int, longest: float) -> None:
        self.ranges = ranges
        self.bounds = _bounds(len(vectors), ranges)
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

    def search(self, vectors: np.ndarray, queries: np.ndarray, top_k: int, parallel: bool
               ) -> Found:
        """split_search's answer over `vectors` (those copied), from the top
        top_k + RESCORED of each range by fp16 score, rescored."""

        def search(start: int, end: int, kept: int) -> Found:
            return self.indexes[start].search(queries, kept)

        found = _ranges(search, self.bounds, top_k, parallel)
        margins = self.margin * np.linalg.norm(queries, axis=1)
        rows, ceilings = _merged(found, self.bounds, len(queries), margins)
        return rescored(vectors, queries, top_k, rows, ceilings, parallel)


def copyable(vectors: np.ndarray) -> bool:
    """Whether every component of `vectors` fits fp16 (read by blocks: no whole temporary)."""
    return max((np.abs(block).max(initial=0.0) for block in _blocks(vectors)),
               default=0.0) <= FP16_LARGEST


def longest(vectors: np.ndarray) -> float:
    """The largest norm of a row of `vectors`."""
    norms = [np.sqrt((block * block).sum(axis=1)).max(initial=0.0) for block in _blocks(vectors)]
    return float(max(norms, default=0.0))


@contextmanager
def threads(count: int | None) -> Iterator[None]:
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


def _flat(vectors: np.ndarray, queries: np.ndarray) -> Callable[[int, int, int], Found]:
    """_ranges' search(start, end, kept) of `queries` over the float32 rows start..end."""

    def search(start: int, end: int, kept: int) -> Found:
        return faiss.knn(queries, vectors[start:end], kept, metric=faiss.METRIC_INNER_PRODUCT)

    return search


def _ranges(search: Callable[[int, int, int], Found], bounds: list[int], top_k: int,
            parallel: bool) -> list[Found]:
    """search(start, end, kept) of each row range (its top top_k + RESCORED, room beyond
    top_k so that rows tied with the k-th are all kept for the cut; rows counted from the
    range's start) -> (scores, rows of the whole index) per range, the ranges in parallel
    threads or in this one."""

    def part(i: int) -> Found:
        faiss.omp_set_num_threads(1)  # per thread: this worker's own FAISS calls
        start, end = bounds[i], bounds[i + 1]
        scores, rows = search(start, end, min(top_k + RESCORED, end - start))
        return scores, np.where(rows >= 0, rows + start, -1)

    count = len(bounds) - 1
    if parallel and count > 1:
        return list(_pool().map(part, range(count)))
    return [part(i) for i in range(count)]


def _bounds(count: int, ranges: int) -> list[int]:
    return [int(bound) for bound in np.linspace(0, count, ranges + 1)]


def _merged(found: list[Found], bounds: list[int], queries: int, margins: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """The ranges' (scores, rows) -> all rows (m, c) and, per query, the highest score a row
    left out may have: the lowest kept score of a range that left rows out, plus `margins`."""
    floors = np.full(queries, -np.inf, dtype=np.float64)
    for (scores, _), start, end in zip(found, bounds, bounds[1:]):
        if scores.shape[1] < end - start:  # rows of this range were left out
            floors = np.maximum(floors, scores[:, -1])
    return np.concatenate([f[1] for f in found], axis=1), floors + margins


def _blocks(vectors: np.ndarray) -> list[np.ndarray]:
    """Views of `vectors` (n, d) by ~8,192 rows: a temporary per block, not per matrix."""
    return np.array_split(vectors, max(1, len(vectors) // 8192))


def _rounding(dimension: int) -> float:
    """2 * gamma_d: the most two float32 sums of d products, in any order, differ by, per
    |q| * |v| (gamma_d = d u / (1 - d u), u the unit roundoff)."""
    unit = float(np.finfo(np.float32).eps) / 2
    return 2 * dimension * unit / (1 - dimension * unit)


def _best(scores: np.ndarray, rows: np.ndarray, top_k: int) -> Found:
    """Each query's top_k of (scores, rows) (m, c): highest score first, ties lower row first."""
    order = np.lexsort((rows, -scores), axis=1)[:, :top_k]
    return np.take_along_axis(scores, order, axis=1), np.take_along_axis(rows, order, axis=1)


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                _POOL = ThreadPoolExecutor(MAX_PARTS, thread_name_prefix="explorer-search")
    return _POOL
