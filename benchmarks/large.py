"""Large index: synthetic unit vectors (default 1M x 384), each index type against exact search.

The vectors are clustered like sentence embeddings (2,000 random centres, each vector at cosine
~0.7 to its centre), since uniform random vectors in 384-d have no neighbours worth finding.
Queries come from the same distribution and are not in the index. Exact search (the product's
`flat` index) is the baseline and the ground truth for recall@10. Latency is one query at a
time through `VectorIndex.search`; memory is the serialised index size and the process RSS
the build added. Rows print as they finish (a partial run still reports).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.common import save, timed
from explorer.index.dense import EXACT, HNSW, VectorIndex

TOP_K = 10


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run large")
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ef", default="64,128", help="HNSW efSearch values to report")
    args = parser.parse_args(argv)
    vectors, queries = synthetic(args.n, args.queries)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-large-") as work:
        exact_rows, row = _measure(EXACT, vectors, queries, None, None, Path(work))
        rows.append(row)
        print(row, flush=True)
        for ef in (int(e) for e in args.ef.split(",")):
            rows.append(_measure(HNSW, vectors, queries, exact_rows, ef, Path(work))[1])
            print(rows[-1], flush=True)
    name = "large" if args.n == 1_000_000 else f"large-{args.n}"
    save(name, f"Large index: {args.n:,} synthetic vectors of dimension {vectors.shape[1]}",
         rows, ["index", "build_s", "p50_ms", "p99_ms", "speedup_p50", "recall_at_10",
                "index_mb", "vectors_mb", "rss_added_mb"], notes=__doc__.strip())


def synthetic(count: int, queries: int, dimension: int = 384) -> tuple[np.ndarray, np.ndarray]:
    """(count, d) index vectors and (queries, d) query vectors, unit length, float32."""
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(2000, dimension)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    out = np.empty((count + queries, dimension), dtype=np.float32)
    for start in range(0, len(out), 100_000):  # in blocks: no second full-size temporary
        stop = min(start + 100_000, len(out))
        block = centres[rng.integers(0, len(centres), stop - start)]
        block += 0.05 * rng.standard_normal((stop - start, dimension), dtype=np.float32)
        out[start:stop] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out[:count], out[count:]


_built: dict[str, tuple[VectorIndex, Path, float, float]] = {}  # kind -> index, file, s, MB
_baseline_p50: list[float] = []


def _measure(kind, vectors, queries, exact_rows, ef, work: Path) -> tuple[np.ndarray, dict]:
    if kind not in _built:
        before = _rss_mb()
        seconds, index = timed(lambda: VectorIndex.build(vectors, kind))
        path = work / f"{kind}.faiss"
        index.save(path)  # its size is the index's memory; variants reload it
        _built[kind] = (index, path, seconds, _rss_mb() - before)
        seconds_shown = seconds
    else:
        seconds_shown = 0.0  # built for an earlier efSearch value
    index, path, _, rss_added = _built[kind]
    if ef is not None:
        index = _with_ef_search(path, ef)
    latencies, found = [], []
    for query in queries:
        elapsed, (_, rows) = timed(lambda q=query: index.search(q, TOP_K))
        latencies.append(elapsed)
        found.append(rows[0])
    found = np.array(found)
    truth = found if exact_rows is None else exact_rows
    recall = np.mean([len(set(a) & set(b)) / TOP_K for a, b in zip(found, truth)])
    p50, p99 = np.percentile(latencies, [50, 99]) * 1000
    if exact_rows is None:
        _baseline_p50.append(p50)
    return found, {
        "index": kind if ef is None else f"{kind} (M 32, efSearch {ef})",
        "build_s": round(seconds_shown, 1), "p50_ms": round(p50, 3), "p99_ms": round(p99, 3),
        "speedup_p50": round(_baseline_p50[0] / p50, 1), "recall_at_10": round(float(recall), 4),
        "index_mb": round(path.stat().st_size / 2**20, 1),
        "vectors_mb": round(vectors.nbytes / 2**20, 1),
        "rss_added_mb": round(rss_added if seconds_shown else 0.0, 1),
    }


def _with_ef_search(path: Path, ef: int) -> VectorIndex:
    """The saved HNSW index searched with efSearch `ef` (per search, as the product does)."""
    return VectorIndex.load(path, HNSW, breadth=ef)


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0
