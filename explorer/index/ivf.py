"""The IVF index's FAISS parts (dense.VectorIndex's 'ivf' kind): 8-bit codes in inverted lists,
trained on a sample, inside an IndexRefineFlat that re-scores the best codes on the float
vectors; and an update that keeps a previous build's trained lists instead of training again.

Training (k-means over about 4 sqrt(n) lists) and assigning every row to its list are the two
costs of a build, about equal at 1M-2.7M rows (benchmarks/results/scale-*.md). An update whose
rows extend the previous build's (the same vectors first, new ones after) copies the previous
lists and assigns only the new rows; one whose rows changed otherwise keeps the trained lists
and assigns every row again. Either way the previous index is only read (it is memory-mapped).
"""

from __future__ import annotations

import faiss
import numpy as np

IVF_REFINE = 4  # a search re-scores its IVF_REFINE x top_k best codes on the float vectors
IVF_TRAIN_PER_LIST = 40  # and 10 rounds of k-means: a 1M build trains in minutes
# An update keeps the previous lists while the corpus stays within this factor of the count
# they were built for: 4 sqrt(n) lists then differ from the size's own by at most 22%.
REUSE_GROWTH = 1.5
_BLOCK = 65_536  # rows compared at a time (no whole-matrix temporary)


def trained(vectors: np.ndarray) -> faiss.Index:
    """An empty IndexRefineFlat over an 8-bit IVF, its lists trained on a fixed sample of
    `vectors` (n, d)."""
    count, dimension = vectors.shape
    if count == 0:
        raise ValueError("an IVF index trains its lists on the vectors: none were given")
    lists = int(max(1, min(4 * np.sqrt(count), count // 39)))  # 39: FAISS's least per list
    quantizer = faiss.IndexFlatIP(dimension)
    codes = faiss.IndexIVFScalarQuantizer(quantizer, dimension, lists,
                                          faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT)
    quantizer.this.disown()
    codes.own_fields = True
    codes.cp.niter = 10
    sample = np.random.default_rng(0).choice(count, min(count, IVF_TRAIN_PER_LIST * lists),
                                             replace=False)
    codes.train(vectors[np.sort(sample)])
    return _refined(codes, None)


def reusable(previous: faiss.Index, count: int, dimension: int) -> bool:
    """Whether an update to `count` rows of `dimension` keeps `previous`'s trained lists."""
    return (previous.d == dimension and previous.ntotal > 0
            and previous.ntotal / REUSE_GROWTH <= count <= previous.ntotal * REUSE_GROWTH)


def updated(previous: faiss.Index, old: np.ndarray, vectors: np.ndarray) -> faiss.Index:
    """A new IVF of `vectors` (n, d) on the trained lists of `previous` (an IVF index of this
    module, possibly mapped read only), whose float vectors are `old` (m, d): when `vectors`
    begins with `old`, the previous lists are copied and only the rows after are assigned;
    else every row is assigned. Nothing is trained; `previous` is not changed."""
    source = faiss.downcast_index(faiss.downcast_index(previous).base_index)
    codes = _untrained_copy(source)
    if extends(old, vectors):
        lists = source.invlists
        for number in range(source.nlist):
            size = lists.list_size(number)
            if size:
                codes.invlists.add_entries(number, size, lists.get_ids(number),
                                           lists.get_codes(number))
        codes.ntotal = source.ntotal
        codes.add(vectors[len(old):])  # numbered from ntotal, as the rows follow
    else:
        codes.add(vectors)
    return _refined(codes, vectors)


def lists(index: faiss.Index) -> int:
    """How many inverted lists an IVF index of this module has."""
    return int(faiss.downcast_index(faiss.downcast_index(index).base_index).nlist)


def extends(old: np.ndarray, vectors: np.ndarray) -> bool:
    """Whether `vectors` (n, d) begins with exactly the rows of `old` (m, d), m <= n."""
    if len(old) > len(vectors) or old.shape[1:] != vectors.shape[1:]:
        return False
    return all(np.array_equal(old[start:start + _BLOCK], vectors[start:start + _BLOCK])
               for start in range(0, len(old), _BLOCK))


def _untrained_copy(source: faiss.IndexIVFScalarQuantizer) -> faiss.IndexIVFScalarQuantizer:
    """An empty, trained IVF with `source`'s list centroids and code ranges (owned memory)."""
    dimension, lists = source.d, source.nlist
    quantizer = faiss.IndexFlatIP(dimension)
    centroids = faiss.rev_swig_ptr(faiss.downcast_index(source.quantizer).get_xb(),
                                   lists * dimension)
    quantizer.add(np.array(centroids, dtype=np.float32).reshape(lists, dimension))
    codes = faiss.IndexIVFScalarQuantizer(quantizer, dimension, lists,
                                          faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT)
    quantizer.this.disown()
    codes.own_fields = True
    codes.by_residual = source.by_residual
    faiss.copy_array_to_vector(faiss.vector_to_array(source.sq.trained), codes.sq.trained)
    codes.is_trained = True
    return codes


def _refined(codes: faiss.IndexIVFScalarQuantizer, vectors: np.ndarray | None) -> faiss.Index:
    """`codes` inside an IndexRefineFlat: empty (rows are added to both), or holding `vectors`,
    the float rows of the codes already added."""
    if vectors is None:
        index = faiss.IndexRefineFlat(codes)
    else:
        index = faiss.IndexRefineFlat(codes, faiss.swig_ptr(np.ascontiguousarray(vectors)))
    codes.this.disown()
    index.own_fields = True
    index.k_factor = IVF_REFINE
    return index
