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
under pressure); first_answer_s, from that process's start (imports included) to its first
answer (the model's load, the same at every size, is not in it: benchmarks.run coldstart). A flat
scan of over 1M rows is asked only the first FLAT_ASKED_LARGE questions. The stand-ins are
made into a .npy in the cache folder (mapped: the page cache's, not the process's), ADDED more
than the size: after an IVF's rows, a row for the update an `explorer build` with ADDED new
papers makes (`VectorIndex.build(all, previous=the saved index, mapped)`, timed), its recall
against the exact top-10 of all the rows. The BM25 build at the same sizes: --lexical
(scale_lexical.py); the table and plot of every size: --growth (scale_growth.py).
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
from explorer.index.dense import (
    EXACT,
    HNSW,
    HNSW_EF_CONSTRUCTION,
    HNSW_M,
    IVF,
    IVF_REFINE,
    VectorIndex,
)

TOP_K = 10
REAL = 4000  # real abstracts the stand-ins are made from
HELD_OUT = 200 - len(QUERIES)  # real abstracts asked as questions
NEIGHBOURS = 20
NOISE = 0.02
BLOCK = 100_000
ADDED = 20_000  # new papers added to a trained IVF (an incremental update)
FLAT_ASKED_LARGE = 50  # a flat scan of over a million rows is asked only the first questions
SERVE = """
import time
born = time.perf_counter()
import json, sys
import numpy as np
from explorer.index.dense import VectorIndex
path, kind, questions, out, ef = sys.argv[1:6]
started = time.perf_counter()
index = VectorIndex.load(path, kind)
opened = time.perf_counter() - started
if ef != "-":  # another breadth than the product's: for every search, as load does
    index = VectorIndex.load(path, kind, breadth=int(ef))
questions = np.load(questions)
index.search(questions[0], 10)
first = time.perf_counter() - born
index.search(questions[1], 10)
seconds, rows = [], []
for q in questions:
    started = time.perf_counter()
    rows.append(index.search(q, 10)[1][0])
    seconds.append(time.perf_counter() - started)
np.save(out, np.array(rows))
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
mib = {key: int(status[key].split()[0]) / 1024 for key in ("VmRSS", "RssAnon", "RssFile")}
print(json.dumps({"open_s": opened, "first_s": first, "seconds": seconds,
                  "breadth": index.breadth, **mib}))
"""


def run(argv: list[str]) -> None:
    if "--lexical" in argv:  # the BM25 build at the same sizes
        from benchmarks import scale_lexical

        scale_lexical.run(argv)
        return
    if "--growth" in argv:  # the table and plot of the results (it reads this module's)
        from benchmarks import scale_growth

        scale_growth.run(argv)
        return
    parser = argparse.ArgumentParser(prog="benchmarks.run scale")
    parser.add_argument("--sizes", default="100000,1000000", help="papers per simulated corpus")
    parser.add_argument("--kinds", default=f"{EXACT},{HNSW}",
                        help="index kinds; SIZE:KIND,... to run a kind at one size only")
    parser.add_argument("--name", default="", help="result file name (default scale-<cpu>)")
    parser.add_argument("--breadth", default="-",
                        help="breadths served (HNSW efSearch, IVF lists probed; '-': the product's)")
    parser.add_argument("--no-added", action="store_true",
                        help=f"skip adding {ADDED:,} new papers to each trained IVF")
    args = parser.parse_args(argv)
    real, questions = real_vectors()
    name = args.name or f"scale-{machine()['cpu_id']}"
    rows: list[dict] = []
    for size in (int(s) for s in args.sizes.split(",")):
        vectors = stand_ins(real, size + ADDED, work_dir() / f"scale-stand-ins-{size}.npy")
        corpus = vectors[:size]
        _, truth = faiss.knn(questions, corpus, TOP_K, metric=faiss.METRIC_INNER_PRODUCT)
        baseline: dict = {}
        for kind in _kinds(args.kinds, size):
            efs = [None if ef == "-" else int(ef) for ef in args.breadth.split(",")]
            efs = [None] if kind == EXACT else efs
            grown = None if args.no_added or kind != IVF else vectors
            for row in _measure(kind, corpus, questions, truth, baseline, efs, grown):
                baseline = baseline or row
                rows.append(row)
                print(json.dumps(row), flush=True)
                save(name, "Scale: exact flat scan against IVF and HNSW on simulated corpora", rows,
                     COLUMNS, notes=NOTES)
        del vectors, corpus
        gc.collect()

COLUMNS = ["papers", "index", "build_s", "build_x_flat", "build_rss_mb", "open_s",
           "first_answer_s", "serve_rss_mb", "rss_anon_mb", "rss_file_mb", "index_mb", "asked",
           "p50_ms", "p99_ms", "p50_speedup", "recall_at_10"]
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


def stand_ins(real: np.ndarray, count: int, file: Path | None = None, seed: int = 0
              ) -> np.ndarray:
    """(count, d) unit vectors made from `real` (see the module's notes), made by blocks; in
    `file` (a .npy mapped from disk: page cache, not the process's memory) if given."""
    rng = np.random.default_rng(seed)
    similarity = real @ real.T
    np.fill_diagonal(similarity, -np.inf)
    near = np.argsort(-similarity, axis=1)[:, :NEIGHBOURS]
    shape = (count, real.shape[1])
    if file is not None and file.is_file():  # made before: the same seed makes the same rows
        made = np.load(file, mmap_mode="r")
        if made.shape == shape:
            return made
    out = (np.empty(shape, dtype=np.float32) if file is None else
           np.lib.format.open_memmap(file, mode="w+", dtype=np.float32, shape=shape))
    for start in range(0, count, BLOCK):
        size = min(BLOCK, count - start)
        first = rng.integers(0, len(real), size)
        second = near[first, rng.integers(0, NEIGHBOURS, size)]
        block = real[first] + rng.random((size, 1), dtype=np.float32) * real[second]
        block += NOISE * rng.standard_normal(block.shape, dtype=np.float32)
        out[start:start + size] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def _measure(kind: str, vectors: np.ndarray, questions: np.ndarray, truth: np.ndarray,
             baseline: dict, efs: list[int | None], grown: np.ndarray | None) -> list[dict]:
    """One row per breadth in `efs` (None: the product's), one build; and with `grown` (the
    rows, then ADDED more), a row of the product's breadth for the update an `explorer build`
    with those new papers makes: `VectorIndex.build(grown, previous=the saved index, opened
    as the build opens it)`, timed."""
    before = _rss_mb()
    seconds, index = timed(lambda: VectorIndex.build(vectors, kind))
    memory = round(_rss_mb() - before)
    if kind == EXACT and len(vectors) > 1_000_000:  # a second or more a question
        questions, truth = questions[:FLAT_ASKED_LARGE], truth[:FLAT_ASKED_LARGE]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-", dir=work_dir()) as work:
        path = Path(work) / "index.faiss"
        index.save(path)
        del index  # the build's memory goes before the serving process starts
        gc.collect()
        for ef in efs:
            served, found = _serve(path, kind, questions, ef)
            what = "efSearch" if kind == HNSW else "probes"
            label = kind if kind == EXACT else (
                f"{kind} (product, {what} {served['breadth']})" if ef is None
                else f"{kind} ({what} {ef})")
            row = {**_row(label, len(vectors), seconds, served, found, truth, baseline),
                   "build_rss_mb": memory, "index_mb": round(path.stat().st_size / 2**20)}
            rows.append(row)
            baseline = baseline or row
        if grown is not None:
            previous = VectorIndex.load(path, kind)
            adding, index = timed(lambda: VectorIndex.build(grown, kind, previous=previous))
            updated = Path(work) / "updated.faiss"  # never over the file `previous` maps
            index.save(updated)
            del index, previous
            gc.collect()
            rows.append(_added_row(updated, kind, adding, questions, truth, vectors,
                                   grown[len(vectors):], baseline))
    return rows


def _added_row(path: Path, kind: str, seconds: float, questions: np.ndarray,
               truth: np.ndarray, vectors: np.ndarray, added: np.ndarray, baseline: dict) -> dict:
    """The row of the index grown by `added`: its truth is the exact top-10 of the old rows'
    truth merged with the added rows' own top-10 (rows numbered after the old ones)."""
    old = np.einsum("qkd,qd->qk", vectors[truth], questions)
    new_scores, new_rows = faiss.knn(questions, added, TOP_K, metric=faiss.METRIC_INNER_PRODUCT)
    scores = np.hstack([old, new_scores])
    rows = np.hstack([truth, new_rows + len(vectors)])
    grown_truth = np.take_along_axis(rows, np.argsort(-scores, axis=1)[:, :TOP_K], axis=1)
    served, found = _serve(path, kind, questions, None)
    label = f"{kind} updated, {len(added):,} added (product, probes {served['breadth']})"
    row = _row(label, len(vectors) + len(added), seconds, served, found, grown_truth, baseline)
    return {**row, "build_x_flat": "-", "index_mb": round(path.stat().st_size / 2**20)}


def _serve(path: Path, kind: str, questions: np.ndarray, ef: int | None
           ) -> tuple[dict, np.ndarray]:
    """A new process opens the index at `path` and asks `questions`: (its report, rows found)."""
    with tempfile.TemporaryDirectory(prefix="bench-scale-ask-", dir=work_dir()) as work:
        asked, out = Path(work) / "q.npy", Path(work) / "rows.npy"
        np.save(asked, questions)
        served = json.loads(subprocess.run(
            [sys.executable, "-c", SERVE, str(path), kind, str(asked), str(out),
             "-" if ef is None else str(ef)],
            cwd=ROOT, check=True, capture_output=True, text=True).stdout)
        return served, np.load(out)


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as handle:
        return next(int(line.split()[1]) / 1024 for line in handle if line.startswith("VmRSS:"))


def _row(kind: str, papers: int, seconds: float, served: dict, found: np.ndarray,
         truth: np.ndarray, baseline: dict) -> dict:
    recall = np.mean([len(set(a) & set(b)) / TOP_K for a, b in zip(found, truth)])
    p50, p99 = np.percentile(served["seconds"], [50, 99]) * 1000
    return {"papers": papers, "index": kind, "build_s": round(seconds, 2),
            "build_x_flat": round(seconds / max(baseline["build_s"], 0.01)) if baseline else 1.0,
            "open_s": round(served["open_s"], 2), "first_answer_s": round(served["first_s"], 2),
            "serve_rss_mb": round(served["VmRSS"]), "asked": len(found),
            "rss_anon_mb": round(served["RssAnon"]), "rss_file_mb": round(served["RssFile"]),
            "p50_ms": round(p50, 2), "p99_ms": round(p99, 2),
            "p50_speedup": round(baseline["p50_ms"] / p50, 1) if baseline else 1.0,
            "recall_at_10": round(float(recall), 4)}
