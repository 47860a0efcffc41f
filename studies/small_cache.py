"""The vectors behind the small-corpora study: ACM-CR's judged papers plus random fill, each
embedded ONCE, with every query of the three sets, cached outside the repository.

The pool is the union of every paper judged relevant by any query of the three sets, filled
with random other papers (seed 0) up to POOL papers; the 100 / 1,000 / 10,000-paper corpora of
small_corpora.py are drawn from this pool, so no sub-corpus is ever embedded again.

    nice -n 10 .venv/bin/python -m studies.small_cache ../shared/data/acm-cr
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from benchmarks.common import cache_dir
from explorer.corpus.papers import Paper, read_corpus
from explorer.eval.evaluate import SETS, find_corpus, load_set
from explorer.model.embedder import Embedder, resolve_model

POOL = 10_000


def default_cache(model: str = "default") -> Path:
    """Where the pool's vectors are kept: EXPLORER_CACHE/quality-small for the default model,
    quality-small-NAME for another (a named model or a folder's name)."""
    name = "" if model == "default" else "-" + Path(model).name
    return cache_dir() / f"quality-small{name}"


def pool_papers(dataset: Path, size: int = POOL) -> tuple[list[Paper], dict]:
    """The judged papers of all three sets plus random others -> (papers, query sets)."""
    papers = read_corpus([find_corpus(dataset)]).papers
    by_id = {}
    for position, paper in enumerate(papers):
        for key in (paper.paper_id, *paper.aliases):
            by_id.setdefault(key, position)
    sets = {name: load_set(dataset, name) for name in SETS}
    judged = sorted({by_id[doc] for qs in sets.values() for rel in qs.qrels.values()
                     for doc in rel if doc in by_id})
    rng = np.random.default_rng(0)
    others = np.setdiff1d(np.arange(len(papers)), judged)
    fill = rng.choice(others, min(len(others), max(0, size - len(judged))), replace=False)
    chosen = sorted(set(judged) | set(fill.tolist()))
    return [papers[i] for i in chosen], sets


def load_pool(dataset: Path, cache: Path | None = None) -> dict:
    """Cached pool -> {"papers", "vectors" (n, d), "sets", "query_vectors" {set: {id: (d,)}}}."""
    cache = cache or default_cache()
    papers, sets = pool_papers(dataset)
    ids = [p.paper_id for p in papers]
    meta = json.loads((cache / "pool.json").read_text())
    if meta["paper_ids"] != ids:
        raise SystemExit(f"{cache} holds another pool: rerun studies.small_cache")
    vectors = np.load(cache / "papers.npy")
    query_vectors = {}
    for name, query_set in sets.items():
        matrix = np.load(cache / f"queries-{name}.npy")
        query_vectors[name] = {q.query_id: matrix[i] for i, q in enumerate(query_set.queries)}
    return {"papers": papers, "vectors": vectors, "sets": sets,
            "query_vectors": query_vectors, "model": meta["model"]}


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--cache", type=Path, help="default: EXPLORER_CACHE/quality-small "
                        "(quality-small-NAME for another --model)")
    parser.add_argument("--model", default="default",
                        help="model name (mpnet) or local sentence-transformers folder")
    args = parser.parse_args(argv)
    args.cache = args.cache or default_cache(args.model)
    started = time.perf_counter()
    papers, sets = pool_papers(args.dataset)
    embedder = Embedder(resolve_model(args.model))
    args.cache.mkdir(parents=True, exist_ok=True)
    for name, query_set in sets.items():  # queries are embedded as `explorer eval` does
        texts = [q.text for q in query_set.queries]
        np.save(args.cache / f"queries-{name}.npy", embedder.embed_documents(texts))
        print(name, len(texts), "queries", round(time.perf_counter() - started), "s", flush=True)
    vectors = embedder.embed_documents([p.text for p in papers])
    np.save(args.cache / "papers.npy", vectors)
    (args.cache / "pool.json").write_text(json.dumps(
        {"paper_ids": [p.paper_id for p in papers], "model": embedder.info,
         "seconds": round(time.perf_counter() - started, 1)}))
    print(len(papers), "papers embedded in", round(time.perf_counter() - started), "s")
    return args.cache


if __name__ == "__main__":
    main()
