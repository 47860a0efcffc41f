"""Embedding throughput and drift: each backend beside plain `SentenceTransformer.encode` (fp32).

All configurations embed the same real abstracts in the same run, interleaved over rounds; the
best round counts (the machine is shared, so the least disturbed round is the fairest). Drift is
1 - cosine to the baseline's vector of the same abstract; top-10 changes compare, for 16
queries, the ten nearest abstracts found with the baseline's vectors and with the backend's.
Query latency is the query path's cost: the median wall time of embedding one short question
(`embed_query`; the baseline `encode([question])`), timed `--query-repeats` times per round.
With several `--models`, each row's ratio and drift are against its own model's baseline, and
the models' baselines (and backends) ran interleaved in the same rounds. Besides the product's
backends, `--backends` takes the quantisations it does not ship (benchmarks/quantised.py:
onnx-int8-s8, onnx-static, openvino-w8).
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.common import QUERIES, ROOT, load_abstracts, paper_text, plain_model, save, timed
from benchmarks.quantised import CANDIDATES, candidate
from explorer.corpus.papers import read_corpus
from explorer.model.embedder import Embedder, resolve_model

TOP_K = 10
QUESTION = "which sequence models can track non-abelian groups?"


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run embed")
    parser.add_argument("--n", type=int, default=1000, help="abstracts (default 1000)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--backends",
                        default="openvino-int8:32,openvino-int8:8,openvino:32,openvino:8,onnx:32")
    parser.add_argument("--models", default="default",
                        help="comma-separated models, each with its own baseline (e.g. default,mpnet)")
    parser.add_argument("--seeds", action="store_true",
                        help="also embed the 71 seed abstracts (seeds/) beside the paperlists ones")
    parser.add_argument("--query-repeats", type=int, default=30,
                        help="timed embeddings of one short question per config and round")
    args = parser.parse_args(argv)
    records = load_abstracts(args.n)
    texts, measured = [paper_text(r) for r in records], {r["doc_id"] for r in records}
    if args.seeds:
        texts += [paper.text for paper in read_corpus([ROOT / "seeds"]).papers]
    models = args.models.split(",")
    configs: dict[str, tuple[_Embed, str]] = {}  # name -> (embed, its model's baseline name)
    for model_name in models:
        spec = resolve_model(model_name)
        prefix = f"{model_name}: " if len(models) > 1 else ""
        baseline = f"{prefix}baseline"
        configs[baseline] = (_baseline(plain_model(spec.path), texts), baseline)
        for item in args.backends.split(","):
            backend, batch = item.split(":")
            if backend in CANDIDATES:
                embedder = candidate(backend, spec, int(batch), measured)
            else:
                embedder = Embedder(spec, backend=backend, batch_size=int(batch))
            name = f"{prefix}{backend} (batch {batch}, {embedder.precision})"
            configs[name] = (_product(embedder, texts), baseline)
    best: dict[str, float] = {}
    vectors: dict[str, np.ndarray] = {}
    latencies: dict[str, list[float]] = {name: [] for name in configs}
    for _ in range(args.rounds):
        for name, (embed, _) in configs.items():
            seconds, vectors[name] = timed(embed)
            best[name] = min(best.get(name, float("inf")), seconds)
            latencies[name] += [timed(embed.question)[0] for _ in range(args.query_repeats)]
    rows = [_row(name, len(texts) / best[name], len(texts) / best[base],
                 (vectors[name], embed.queries), (vectors[base], configs[base][0].queries))
            | {"query_ms": round(1000 * float(np.median(latencies[name])), 2)}
            for name, (embed, base) in configs.items()]
    suffix = "" if models == ["default"] else "-" + "-".join(models)
    seeds = len(texts) - len(records)
    what = f"{len(records)} paperlists-ml" + (f" and {seeds} seed" if seeds else "")
    save(f"embed{suffix}", f"Embedding throughput and drift, {what} abstracts",
         rows, ["config", "abstracts_per_s", "ratio", "query_ms", "drift_mean", "drift_max",
                "query_drift_max", "top10_sets_changed", "top10_overlap"],
         notes=__doc__.strip())


class _Embed:
    """A callable embedding the texts, the query vectors it gives (for top-k checks), and
    `question`: one short question embedded as the query path embeds it."""

    def __init__(self, documents, queries, question) -> None:
        self._documents, self.queries, self.question = documents, queries, question

    def __call__(self) -> np.ndarray:
        return self._documents()


def _baseline(model, texts: list[str]) -> _Embed:
    def encode(items: list[str]) -> np.ndarray:
        vectors = model.encode(items)  # the defaults: batch 32, fp32, not normalised
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    return _Embed(lambda: encode(texts), encode(QUERIES), lambda: model.encode([QUESTION]))


def _product(embedder, texts: list[str]) -> _Embed:
    queries = np.vstack([embedder.embed_query(q) for q in QUERIES])
    return _Embed(lambda: embedder.embed_documents(texts), queries,
                  lambda: embedder.embed_query(QUESTION))


def _row(name: str, speed: float, baseline_speed: float, found: tuple, reference: tuple) -> dict:
    """One table row; `found` and `reference` are (documents (n, d), queries (q, d))."""
    (vectors, queries), (base_vectors, base_queries) = found, reference
    drift = 1.0 - np.einsum("ij,ij->i", vectors, base_vectors)
    query_drift = 1.0 - np.einsum("ij,ij->i", queries, base_queries)
    ours = np.argsort(-(queries @ vectors.T), axis=1)[:, :TOP_K]
    theirs = np.argsort(-(base_queries @ base_vectors.T), axis=1)[:, :TOP_K]
    overlaps = [len(set(a) & set(b)) / TOP_K for a, b in zip(ours, theirs)]
    return {"config": name, "abstracts_per_s": round(speed, 2),
            "ratio": round(speed / baseline_speed, 2),
            "drift_mean": round(float(drift.mean()), 5), "drift_max": round(float(drift.max()), 5),
            "query_drift_max": round(float(query_drift.max()), 5),
            "top10_sets_changed": f"{sum(o < 1 for o in overlaps)}/{len(overlaps)}",
            "top10_overlap": round(float(np.mean(overlaps)), 3)}
