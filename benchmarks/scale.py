"""Scale: the exact flat scan against the approximate indexes (IVF, HNSW) at 100k, 1M (and 2.7M)
papers, in one run: build time, resident memory while serving, one-question p50/p99, recall@10.

Vectors. Embedding 1M abstracts is out of reach here, so the corpora are simulated from real
vectors: the product's model (bundled MiniLM-L6, `Embedder.embed_documents`) embeds REAL random
paperlists-ml abstracts once (cached in the cache folder, bench/scale-real-*.npy). A stand-in
paper is a real paper's vector plus a random share (0-1) of one of its 20 nearest real papers'
vectors (a paper between two close topics) plus Gaussian noise (0.02 per component, about
cosine 0.9 to the mix), normalised. Questions are real: 16 questions (benchmarks.common.QUERIES,
`embed_queries`) and held-out abstracts (not among the REAL ones), 200 in all.

Each size: exact top-10 of every question by `faiss.knn` (the truth); then per index kind the
product's `VectorIndex.build` (timed, in this process), saved, and a NEW process that opens it
with `VectorIndex.load` and asks the questions one at a time through `VectorIndex.search` (two
warm-up questions first); its VmRSS after the questions is the memory while serving (the
Python, numpy and FAISS of an empty process are about 50 MB of it): RssAnon the process's own,
RssFile the memory-mapped vectors' pages it has read (the page cache's: shared, given back
under pressure).
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import faiss
import numpy as np

from benchmarks.common import QUERIES, ROOT, load_abstracts, machine, paper_text, save, timed
from benchmarks.indexes import work_dir
from explorer.index.dense import EXACT, HNSW, HNSW_EF_CONSTRUCTION, HNSW_M, IVF_REFINE, VectorIndex

TOP_K = 10
REAL = 4000  # real abstracts the stand-ins are made from
HELD_OUT = 200 - len(QUERIES)  # real abstracts asked as questions
NEIGHBOURS = 20
NOISE = 0.02
BLOCK = 100_000
SERVE = """
import json, sys, time
import numpy as np
from explorer.index.dense import VectorIndex
path, kind, questions, out, ef = sys.argv[1:6]
started = time.perf_counter()
index = VectorIndex.load(path, kind)
opened = time.perf_counter() - started
if ef != "-":  # another breadth than the product's: for every search, as load does
    index = VectorIndex.load(path, kind, breadth=int(ef))
questions = np.load(questions)
for q in questions[:2]: index.search(q, 10)
seconds, rows = [], []
for q in questions:
    started = time.perf_counter()
    rows.append(index.search(q, 10)[1][0])
    seconds.append(time.perf_counter() - started)
np.save(out, np.array(rows))
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
mib = {key: int(status[key].split()[0]) / 1024 for key in ("VmRSS", "RssAnon", "RssFile")}
print(json.dumps({"open_s": opened, "seconds": seconds, "breadth": index.breadth, **mib}))
"""


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run scale")
    parser.add_argument("--sizes", default="100000,1000000", help="papers per simulated corpus")
    parser.add_argument("--kinds", default=f"{EXACT},{HNSW}",
                        help="index kinds; SIZE:KIND,... to run a kind at one size only")
    parser.add_argument("--name", default="", help="result file name (default scale-<cpu>)")
    parser.add_argument("--breadth", default="-",
                        help="breadths served (HNSW efSearch, IVF lists probed; '-': the product's)")
    args = parser.parse_args(argv)
    real, questions = real_vectors()
    name = args.name or f"scale-{machine()['cpu_id']}"
    rows: list[dict] = []
    for size in (int(s) for s in args.sizes.split(",")):
        vectors = stand_ins(real, size)
        _, truth = faiss.knn(questions, vectors, TOP_K, metric=faiss.METRIC_INNER_PRODUCT)
        baseline: dict = {}
        for kind in _kinds(args.kinds, size):
            efs = [None if ef == "-" else int(ef) for ef in args.breadth.split(",")]
            efs = [None] if kind == EXACT else efs
            for row in _measure(kind, vectors, questions, truth, baseline, efs):
                baseline = baseline or row
                rows.append(row)
                print(json.dumps(row), flush=True)
                save(name, "Scale: exact flat scan against IVF and HNSW on simulated corpora", rows,
                     COLUMNS, notes=NOTES)
        del vectors
        gc.collect()


COLUMNS = ["papers", "index", "build_s", "build_x_flat", "build_rss_mb", "open_s", "serve_rss_mb",
           "rss_anon_mb", "rss_file_mb", "index_mb", "p50_ms", "p99_ms", "p50_speedup", "recall_at_10"]
NOTES = (__doc__.strip() + f"\n\nHNSW: M {HNSW_M}, efConstruction {HNSW_EF_CONSTRUCTION}, "
         "efSearch per search (the product's by size: explorer/index/dense.py "
         "EF_SEARCH_BY_SIZE). IVF: about 4 sqrt(n) lists of 8-bit codes, the lists probed per "
         f"search, the best {IVF_REFINE} x 10 codes re-scored exactly on the float vectors "
         "(IndexRefineFlat). 'product' rows: the product's breadth. build_rss_mb: the "
         "resident memory the build added (the index in memory). build_x_flat and p50_speedup "
         "are ratios to the flat row of the same size in this run.")


def _kinds(spec: str, size: int) -> list[str]:
    kinds = []
    for item in spec.split(","):
        limit, _, kind = item.rpartition(":")
        if not limit or int(limit) == size:
            kinds.append(kind)
    return kinds


def real_vectors() -> tuple[np.ndarray, np.ndarray]:
    """(REAL, d) real abstract vectors and (200, d) real questions, embedded once and cached."""
    folder = work_dir()
    corpus_file, questions_file = folder / f"scale-real-{REAL}.npy", folder / "scale-asked.npy"
    if not corpus_file.is_file() or not questions_file.is_file():
        from explorer.model.embedder import Embedder, resolve_model

        records = load_abstracts(REAL + HELD_OUT, seed=34)
        embedder = Embedder(resolve_model("default"))
        vectors = embedder.embed_documents([paper_text(r) for r in records])
        asked = np.vstack([embedder.embed_queries(QUERIES), vectors[REAL:]])
        folder.mkdir(parents=True, exist_ok=True)
        np.save(questions_file, asked.astype(np.float32))
        np.save(corpus_file, vectors[:REAL].astype(np.float32))
    return np.load(corpus_file), np.load(questions_file)


def stand_ins(real: np.ndarray, count: int, seed: int = 0) -> np.ndarray:
    """(count, d) unit vectors made from `real` (see the module's notes), made by blocks."""
    rng = np.random.default_rng(seed)
    similarity = real @ real.T
    np.fill_diagonal(similarity, -np.inf)
    near = np.argsort(-similarity, axis=1)[:, :NEIGHBOURS]
    out = np.empty((count, real.shape[1]), dtype=np.float32)
    for start in range(0, count, BLOCK):
        size = min(BLOCK, count - start)
        first = rng.integers(0, len(real), size)
        second = near[first, rng.integers(0, NEIGHBOURS, size)]
        block = real[first] + rng.random((size, 1), dtype=np.float32) * real[second]
        block += NOISE * rng.standard_normal(block.shape, dtype=np.float32)
        out[start:start + size] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def _measure(kind: str, vectors: np.ndarray, questions: np.ndarray, truth: np.ndarray,
             baseline: dict, efs: list[int | None]) -> list[dict]:
    """One row per efSearch value in `efs` (None: the product's), one build."""
    before = _rss_mb()
    seconds, index = timed(lambda: VectorIndex.build(vectors, kind))
    added = _rss_mb() - before
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-", dir=work_dir()) as work:
        path, asked, out = (Path(work) / name for name in ("index.faiss", "q.npy", "rows.npy"))
        index.save(path)
        del index
        gc.collect()
        np.save(asked, questions)
        for ef in efs:
            served = json.loads(subprocess.run(
                [sys.executable, "-c", SERVE, str(path), kind, str(asked), str(out),
                 "-" if ef is None else str(ef)],
                cwd=ROOT, check=True, capture_output=True, text=True).stdout)
            what = "efSearch" if kind == HNSW else "probes"
            label = kind if kind == EXACT else (
                f"{kind} (product, {what} {served['breadth']})" if ef is None
                else f"{kind} ({what} {ef})")
            row = _row(label, len(vectors), seconds, served, np.load(out), truth, baseline)
            rows.append({**row, "build_rss_mb": round(added),
                         "index_mb": round(path.stat().st_size / 2**20)})
            baseline = baseline or row
    return rows


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as handle:
        return next(int(line.split()[1]) / 1024 for line in handle if line.startswith("VmRSS:"))


def _row(kind: str, papers: int, seconds: float, served: dict, found: np.ndarray,
         truth: np.ndarray, baseline: dict) -> dict:
    recall = np.mean([len(set(a) & set(b)) / TOP_K for a, b in zip(found, truth)])
    p50, p99 = np.percentile(served["seconds"], [50, 99]) * 1000
    return {"papers": papers, "index": kind, "build_s": round(seconds, 2),
            "build_x_flat": round(seconds / max(baseline["build_s"], 0.01)) if baseline else 1.0,
            "open_s": round(served["open_s"], 2), "serve_rss_mb": round(served["VmRSS"]),
            "rss_anon_mb": round(served["RssAnon"]), "rss_file_mb": round(served["RssFile"]),
            "p50_ms": round(p50, 2), "p99_ms": round(p99, 2),
            "p50_speedup": round(baseline["p50_ms"] / p50, 1) if baseline else 1.0,
            "recall_at_10": round(float(recall), 4)}
