"""Whose BLAS multiplies the matrices of an exact search of many queries: FAISS's or numpy's.

FAISS multiplies a big batch of queries by the vectors (from `distance_compute_blas_threshold`
queries x dimensions on) with the OpenBLAS its wheel bundles: 0.3.15, from 2021, which picks
its kernels from the CPU's model number when it loads. A CPU newer than that release (AMD's
Zen 4 and 5, Intel's Xeons from Sapphire Rapids on) gets its SSE kernels: on a Zen-5 EPYC
'Barcelona', where numpy's own, newer OpenBLAS runs 'SkylakeX' (AVX-512), and one block of the
relatives' self-join took 3.7 s against 1.1 s (benchmarks/README.md, "OpenBLAS's kernels").
Machines may name the kernels in OPENBLAS_CORETYPE, which both copies obey; nothing here
changes it.

So such a search (index/dense.py) multiplies with numpy's BLAS when its kernels use wider
vectors than FAISS's (SSE < AVX < AVX2 < AVX-512), and keeps each query's top k in FAISS's own
heaps, as FAISS does after its product: the same hits, up to the products' rounding (each
BLAS sums in its own order). Where both run the same width, FAISS's search is the faster.
"""

from __future__ import annotations

import functools

import faiss
import numpy as np

BLOCK_ROWS = 4096  # vectors multiplied at once: a (queries, BLOCK_ROWS) float32 product
BLOCK_QUERIES = 4096  # queries whose heaps are filled together

# OpenBLAS's x86-64 kernel sets (threadpoolctl's 'architecture') by the widest vectors they use
_SSE = ("katmai", "coppermine", "northwood", "prescott", "banias", "atom", "core2", "penryn",
        "dunnington", "nehalem", "athlon", "opteron", "opteron_sse3", "barcelona", "nano",
        "bobcat")
_AVX = ("sandybridge", "bulldozer", "piledriver", "steamroller", "excavator")
_AVX2 = ("haswell", "zen")
_AVX512 = ("skylakex", "cooperlake", "sapphirerapids")
_WIDTH = {name: width for width, names in enumerate((_SSE, _AVX, _AVX2, _AVX512))
          for name in names}


def wider(kernels: dict[str, str]) -> bool:
    """Whether numpy's OpenBLAS runs wider kernels than FAISS's, by `kernels` (its owner ->
    the kernel set's name, as kernels() gives them); no when either is unknown."""
    faiss_width = _WIDTH.get(kernels.get("faiss", "").lower())
    numpy_width = _WIDTH.get(kernels.get("numpy", "").lower())
    return faiss_width is not None and numpy_width is not None and numpy_width > faiss_width


def kernels() -> dict[str, str]:
    """The kernel set that each OpenBLAS loaded now runs, by the package that loaded it
    ('faiss', 'numpy', else threadpoolctl's prefix); {} without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return {}
    found: dict[str, str] = {}
    for info in threadpool_info():
        if info.get("internal_api") == "openblas":
            found.setdefault(_owner(info), str(info.get("architecture") or "?"))
    return found


def _owner(info: dict) -> str:
    path = str(info.get("filepath", ""))
    return next((name for name in ("faiss", "numpy") if name in path), str(info.get("prefix")))


@functools.cache
def numpy_multiplies() -> bool:
    """Whether exact searches of many queries multiply with numpy's BLAS here (read once)."""
    return wider(kernels())


def many(queries: int, dimension: int) -> bool:
    """Whether FAISS would multiply a search of `queries` queries with its BLAS (its own rule:
    a threshold global to the process, which nothing here changes)."""
    return queries * dimension >= faiss.cvar.distance_compute_blas_threshold


def knn(vectors: np.ndarray, queries: np.ndarray, top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """The top_k rows of `vectors` (n, d) by inner product for each of `queries` (m, d),
    multiplied with numpy's BLAS -> (scores (m, k), rows (m, k)), best first; rows past n
    are -1 (score: float32's lowest), as FAISS pads them."""
    if top_k < 1:
        raise ValueError(f"top_k must be at least 1, not {top_k}")
    queries = np.ascontiguousarray(queries, dtype=np.float32)
    scores = np.empty((len(queries), top_k), dtype=np.float32)
    rows = np.empty((len(queries), top_k), dtype=np.int64)
    for start in range(0, len(queries), BLOCK_QUERIES):
        end = start + BLOCK_QUERIES
        _fill(vectors, queries[start:end], scores[start:end], rows[start:end])
    return scores, rows


def _fill(vectors: np.ndarray, queries: np.ndarray, scores: np.ndarray, rows: np.ndarray) -> None:
    """Each query's top k into its row of `scores` and `rows` (contiguous, filled in place)."""
    heaps = faiss.float_minheap_array_t()  # a min-heap per query keeps its k largest
    heaps.nh, heaps.k = len(queries), scores.shape[1]
    heaps.val, heaps.ids = faiss.swig_ptr(scores), faiss.swig_ptr(rows)
    heaps.heapify()
    buffer = np.empty(len(queries) * min(BLOCK_ROWS, len(vectors)), dtype=np.float32)
    for start in range(0, len(vectors), BLOCK_ROWS):
        part = vectors[start:start + BLOCK_ROWS]
        products = buffer[:len(queries) * len(part)].reshape(len(queries), len(part))
        np.matmul(queries, part.T, out=products)
        heaps.addn(len(part), faiss.swig_ptr(products), start, 0, len(queries))
    heaps.reorder()
