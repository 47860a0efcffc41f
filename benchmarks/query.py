"""Query latency end to end (query embedding + search + result records), p50 / p99.

Product: `Explorer.open(folder).search(query, top_k=10)` in its default mode (the `mode`
column: hybrid fuses the dense search with BM25) on the index type `build` chose.
Baseline: `SentenceTransformer.encode(query)` in fp32, brute-force NumPy `vectors @ q`, top 10
by argpartition, and the same records as dicts. Both answer the same queries in the same run,
alternating by passes over the 16 queries (not query by query: torch's OpenMP threads keep
spinning for a while after each encode and slowed the product's next query), with a pause
before each pass for the other side's threads to go idle (common.settle); the first
(warm-up) query of each is not counted.

`--models default,mpnet` measures the seed index (size 71) once per model in the same run, each
against its own model's baseline. `question_p50_ms` times a question's embedding alone
(`Embedder.embed_query`: the model run a new question costs; the Explorer keeps recent
questions' vectors, so the product's passes after the first mostly skip it), where the models
differ; `question_vs_first` is a seed row's over the first model's (mpnet's question latency
against MiniLM's: issue 35).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from benchmarks.common import QUERIES, ROOT, plain_model, plain_top, save, settle, timed
from benchmarks.indexes import prepare, work_dir
from explorer.artifacts.layout import INDEX
from explorer.eval.evaluate import model_suffix
from explorer.ingest.run import build
from explorer.model.embedder import resolve_model
from explorer.query.engine import Explorer

TOP_K = 10


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run query")
    parser.add_argument("--sizes", default="71,10000,91808")
    parser.add_argument("--kinds", default="auto", help="index types, e.g. auto,hnsw")
    parser.add_argument("--repeats", type=int, default=4, help="passes over the 16 queries")
    parser.add_argument("--mode", help="search mode (default: the product's default mode)")
    parser.add_argument("--models", default="default",
                        help="models of the seed index (size 71), e.g. default,mpnet")
    parser.add_argument("--folders", nargs="*", default=[], metavar="INDEX",
                        help="also measure these built index folders (e.g. a 100k+ ACM-CR index)")
    args = parser.parse_args(argv)
    model = plain_model()
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        for kind in args.kinds.split(","):
            for name in args.models.split(",") if size == 71 else ["default"]:
                folder, real = _folder(size, kind, name)
                plain = model if name == "default" else plain_model(resolve_model(name).path)
                rows.append(_measure(folder, Explorer.open(folder), plain, args.repeats, real,
                                     args.mode))
    _versus_first(rows)
    for folder in map(Path, args.folders):
        explorer = Explorer.open(folder)
        rows.append(_measure(folder, explorer, model, args.repeats, len(explorer.papers),
                             args.mode))
    name = "-".join(["query"] + ([args.kinds.replace(",", "-")] if args.kinds != "auto" else [])
                    + ([args.mode] if args.mode else [])
                    + (["models"] if "," in args.models else []))
    save(name, "Query latency end to end, top 10", rows,
         ["papers", "index", "real_vectors", "product_p50_ms", "product_p99_ms",
          "baseline_p50_ms", "baseline_p99_ms", "p50_ratio", "p99_ratio", "mode", "backend",
          "model", "question_p50_ms", "question_vs_first"],
         notes=__doc__.strip())


def _folder(size: int, kind: str, model: str = "default"):
    if size == 71:
        out = work_dir() / f"index-seeds-{kind}{model_suffix(model)}"
        build([ROOT / "seeds"], out, model, index_type=kind, sentences=False)
        return out, 71
    return prepare(size, kind)


def _versus_first(rows: list[dict]) -> None:
    """Each seed row's question p50 over the first model's seed row (same index type)."""
    first: dict[str, float] = {}
    for row in rows:
        if row["papers"] == 71:
            first.setdefault(row["index"], row["question_p50_ms"])
            row["question_vs_first"] = round(row["question_p50_ms"] / first[row["index"]], 2)


def _measure(folder: Path, explorer: Explorer, model, repeats: int, real: int,
             mode: str | None) -> dict:
    """The product's and the baseline's latencies on the index `folder`, opened as `explorer`."""
    vectors = np.array(explorer.vectors)  # the baseline's own copy, as a plain script keeps
    papers = explorer.papers

    def baseline(query: str) -> list[dict]:
        return plain_top(model.encode(query), vectors, papers, TOP_K)

    def product(query: str) -> list[dict]:
        return [hit.to_dict() for hit in explorer.search(query, top_k=TOP_K, mode=mode)]

    product(QUERIES[0]), baseline(QUERIES[0])  # warm-up: model load, first-call costs
    ours, theirs = [], []
    for _ in range(repeats):
        settle()
        ours.extend(timed(lambda q=query: product(q))[0] for query in QUERIES)
        settle()
        theirs.extend(timed(lambda q=query: baseline(q))[0] for query in QUERIES)
    ours_ms, theirs_ms = np.percentile(ours, [50, 99]) * 1000, np.percentile(theirs, [50, 99]) * 1000
    settle()
    question = [timed(lambda q=query: explorer.embedder.embed_query(q))[0]
                for query in QUERIES * repeats]  # the model run itself (Explorer keeps vectors)
    info = explorer.embedder.info
    return {"papers": len(papers), "index": explorer.manifest.index_type, "real_vectors": real,
            "product_p50_ms": round(ours_ms[0], 2), "product_p99_ms": round(ours_ms[1], 2),
            "baseline_p50_ms": round(theirs_ms[0], 2), "baseline_p99_ms": round(theirs_ms[1], 2),
            "p50_ratio": round(theirs_ms[0] / ours_ms[0], 2),
            "p99_ratio": round(theirs_ms[1] / ours_ms[1], 2),
            "backend": f"{info['backend']}/{info['precision']}", "mode": mode or explorer.default_mode,
            "model": info.get("id"), "question_p50_ms": round(float(np.median(question)) * 1000, 2),
            "index_bytes_per_paper": _bytes_per_paper(explorer, folder)}


def _bytes_per_paper(explorer: Explorer, folder: Path) -> float:
    entry = explorer.manifest.files[INDEX]
    return round(os.path.getsize(folder / entry.name) / len(explorer.papers), 1)
