"""Cost of explanations per hit: stored sentence vectors vs embedding the sentences on demand.

Target (issue 5): under 20 ms per hit, so every hit can carry its explanation. The product's
path is `explain_match` / `explain_pair` on an index built with sentence vectors (this study
builds it, or brings it up to date: unchanged papers cost nothing); the baseline splits the
abstracts and embeds their sentences at query time with the same loaded model, as an index
built with --no-sentences has to. Decided: sentence vectors are stored at build time.

    .venv/bin/python -m studies.explain_cost [CORPUS ...] [--index DIR] [--queries 10]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks.common import ROOT, cache_dir
from explorer.corpus.sentences import split_sentences
from explorer.features.explanations.explain import explain_match, explain_pair, shared_terms
from explorer.index.lexical import lexical_text
from explorer.ingest.run import build
from explorer.query.engine import Explorer

QUERIES = [
    "detecting forged faces from unseen generators", "graph edit distance learning",
    "speeding up video diffusion models", "retrieval for proof assistants",
    "watermarking machine generated text", "state space models and group tracking",
    "misinformation in multi-agent language model systems", "physical plausibility of videos",
    "graphical model inference with few neighbours", "benchmark for code generation",
]


def stored(explorer: Explorer):
    """The product's explanations: (match(vector, paper_id, query), pair(paper_id, other_id))."""
    return (lambda vector, paper_id, query: explain_match(explorer, vector, paper_id, query=query),
            lambda paper_id, other_id: explain_pair(explorer, paper_id, other_id))


def on_demand(explorer: Explorer):
    """The baseline: each paper's sentences split and embedded when an explanation needs them."""
    idf = explorer.lexical.idf

    def sentences(paper_id: str) -> np.ndarray:
        abstract = explorer.paper(paper_id).abstract
        texts = [abstract[start:end] for start, end in split_sentences(abstract)]
        return explorer.embedder.embed_documents(texts)

    def text(paper_id: str) -> str:
        return lexical_text(explorer.paper(paper_id))

    def match(vector, paper_id, query):
        best = np.argsort(-(sentences(paper_id) @ vector))[:2]
        return best, shared_terms(query, text(paper_id), idf=idf)

    def pair(paper_id, other_id):
        best = np.argsort(-(sentences(paper_id) @ sentences(other_id).T), axis=None)[:3]
        return best, shared_terms(text(paper_id), text(other_id), idf=idf)
    return match, pair


def timed(explorer: Explorer, path, queries: list[str], top_k: int) -> tuple[float, float]:
    """(ms per search hit explained, ms per similar hit explained) along `path`."""
    match, pair = path
    match_s = pair_s = 0.0
    hits_total = 0
    for query in queries:
        vector = explorer.embed_query(query)
        hits = explorer.search_vector(vector, top_k)
        started = time.perf_counter()
        for hit in hits:
            match(vector, hit.paper_id, query)
        match_s += time.perf_counter() - started
        started = time.perf_counter()
        for other in explorer.similar(hits[0].paper_id, top_k):
            pair(hits[0].paper_id, other.paper_id)
        pair_s += time.perf_counter() - started
        hits_total += len(hits)
    return 1000 * match_s / hits_total, 1000 * pair_s / hits_total


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, nargs="*", help="corpus files or folders (seeds/)")
    parser.add_argument("--index", type=Path, help="where to build it (EXPLORER_CACHE/study/...)")
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--top-k", type=int, default=10)
    args = parser.parse_args(argv)
    inputs = args.corpus or [ROOT / "seeds"]
    index = args.index or cache_dir() / "study" / f"explain-{inputs[0].stem}"
    build(inputs, index, "default", sentences=True)
    explorer = Explorer.open(index)
    queries = QUERIES[: args.queries]
    paths = {"stored sentence vectors": stored(explorer),
             "embedded on demand (baseline)": on_demand(explorer)}
    for path in paths.values():  # warm up: model load, lexical arrays, stemmer
        timed(explorer, path, queries[:1], args.top_k)
    results = {name: timed(explorer, path, queries, args.top_k) for name, path in paths.items()}
    print(f"{len(explorer.papers)} papers, {len(queries)} queries x {args.top_k} hits")
    print(f"{'path':32} {'search hit ms':>14} {'similar hit ms':>15}")
    for name, (match_ms, pair_ms) in results.items():
        print(f"{name:32} {match_ms:14.2f} {pair_ms:15.2f}")
    (match_ms, pair_ms), (base_match, base_pair) = results.values()
    print(f"speed-up: {base_match / match_ms:.0f}x per search hit, "
          f"{base_pair / pair_ms:.0f}x per similar hit; target < 20 ms per hit: "
          f"{'met' if max(match_ms, pair_ms) < 20 else 'NOT met'}")
    return results


if __name__ == "__main__":
    main()
