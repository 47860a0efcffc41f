"""Cost of explanations per hit: stored sentence vectors vs embedding the sentences on demand.

Target (issue 5): under 20 ms per hit, so every hit can carry its explanation.

    .venv/bin/python benchmarks/quality/explain_cost.py [--index embeddings] [--queries 10]
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

from explorer.query.engine import Explorer
from explorer.query.explain import explain_match, explain_pair

QUERIES = [
    "detecting forged faces from unseen generators", "graph edit distance learning",
    "speeding up video diffusion models", "retrieval for proof assistants",
    "watermarking machine generated text", "state space models and group tracking",
    "misinformation in multi-agent language model systems", "physical plausibility of videos",
    "graphical model inference with few neighbours", "benchmark for code generation",
]


def timed(explorer: Explorer, queries: list[str], k: int) -> tuple[float, float, int]:
    """(ms per search hit explained, ms per similar hit explained, hits) on `explorer`."""
    match_s = pair_s = 0.0
    hits_total = 0
    for query in queries:
        vector = explorer.embed_query(query)
        hits = explorer.search_vector(vector, k)
        started = time.perf_counter()
        for hit in hits:
            explain_match(explorer, vector, hit.paper_id, query=query)
        match_s += time.perf_counter() - started
        started = time.perf_counter()
        for other in explorer.similar(hits[0].paper_id, k):
            explain_pair(explorer, hits[0].paper_id, other.paper_id)
        pair_s += time.perf_counter() - started
        hits_total += len(hits)
    return 1000 * match_s / hits_total, 1000 * pair_s / hits_total, hits_total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=Path("embeddings"))
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    stored = Explorer.open(args.index)
    if "sentence_vectors" not in stored.artifacts.arrays:
        raise SystemExit(f"{args.index} has no stored sentence vectors: build it without "
                         "--no-sentences.")
    queries = QUERIES[: args.queries]
    stored.embed_query("warm up")
    timed(stored, queries[:1], args.k)  # warm caches (lexical arrays, stemmer)
    arrays = {k: v for k, v in stored.artifacts.arrays.items() if not k.startswith("sentence_")}
    on_demand = Explorer(dataclasses.replace(stored.artifacts, arrays=arrays))
    on_demand._embedder = stored.embedder  # same loaded model: time only the embedding
    results = {"stored sentence vectors": timed(stored, queries, args.k),
               "embedded on demand (baseline)": timed(on_demand, queries, args.k)}
    print(f"{len(stored.papers)} papers, {len(queries)} queries x {args.k} hits")
    print(f"{'path':32} {'search hit ms':>14} {'similar hit ms':>15}")
    for name, (match_ms, pair_ms, _) in results.items():
        print(f"{name:32} {match_ms:14.2f} {pair_ms:15.2f}")
    (base_match, base_pair, _), (match_ms, pair_ms, _) = (results["embedded on demand (baseline)"],
                                                          results["stored sentence vectors"])
    print(f"speed-up: {base_match / match_ms:.0f}x per search hit, "
          f"{base_pair / pair_ms:.0f}x per similar hit; target < 20 ms per hit: "
          f"{'met' if max(match_ms, pair_ms) < 20 else 'NOT met'}")


if __name__ == "__main__":
    main()
