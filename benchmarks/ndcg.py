"""Ranking quality per embedding backend: nDCG@10 on ACM-CR queries, dense mode.

The same ACM-CR slice is indexed with fp32 sentence-transformers vectors (the baseline) and
with each backend of `--backend` (default: the product's default here; several, comma-separated,
in one run), papers and queries both embedded by that backend. Each index is scored by
`explorer.evaluate.evaluate` on the same query set. A backend is acceptable only if nDCG@10
stays within 0.5 points of fp32 (issue 4). `--candidates` adds quantisations the product does
not ship (benchmarks/quantised.py): each embeds the fp32 index's papers and the queries with its
own vectors, ranked by the same dense ranking (`Explorer.rank` given those cosines).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.common import cache_dir, save
from benchmarks.indexes import _refuse
from benchmarks.quantised import CANDIDATES, candidate
from explorer.eval.evaluate import TOP_K, evaluate, find_corpus, load_set
from explorer.ingest.checkpoint import Checkpoint
from explorer.ingest.run import build
from explorer.model.embedder import AUTO, TORCH, Embedder, resolve_model
from explorer.query.engine import Explorer


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run ndcg")
    parser.add_argument("--dataset", type=Path,
                        help="an ACM-CR slice (studies/make_slice.py; default: "
                             "EXPLORER_CACHE/slices/acm-cr-slice)")
    parser.add_argument("--sets", default="sentences,paragraphs")
    parser.add_argument("--backend", default=AUTO,
                        help="the backends compared with fp32 torch, comma-separated")
    parser.add_argument("--candidates", default="",
                        help="quantisations the product does not ship (benchmarks/quantised.py: "
                             f"{', '.join(CANDIDATES)}), comma-separated")
    parser.add_argument("--fp32-index", type=Path,
                        help="an index of the dataset built with torch fp32 (else built here; "
                             "default: EXPLORER_CACHE/slices/acm-cr-slice-index)")
    args = parser.parse_args(argv)
    args.dataset = args.dataset or cache_dir() / "slices" / "acm-cr-slice"
    args.fp32_index = args.fp32_index or cache_dir() / "slices" / "acm-cr-slice-index"
    fp32 = _fp32(args.fp32_index, args.dataset)
    products = [_index(args.dataset, backend) for backend in args.backend.split(",")]
    candidates = _candidate_rankers(fp32, [n for n in args.candidates.split(",") if n])
    rankers = {name: ranker for name, (_, ranker) in candidates.items()}
    rows = []
    for set_name in args.sets.split(","):
        query_set = load_set(args.dataset, set_name)
        scores = evaluate(fp32, query_set, modes=["dense"], rankers=rankers)["modes"]
        base = scores["dense"]["ndcg@10"]
        found = [(p.embedder.backend, p.embedder.precision, _ndcg(p, query_set)) for p in products]
        found += [(name, precision, scores[name]["ndcg@10"])
                  for name, (precision, _) in candidates.items()]
        rows += [{"set": set_name, "queries": len(query_set.queries), "backend": backend,
                  "precision": precision, "ndcg10_fp32": base, "ndcg10_product": ours,
                  "change_points": round(100 * (ours - base), 2)}
                 for backend, precision, ours in found]
    save("ndcg", f"nDCG@10 per embedding backend on {args.dataset.name} "
         f"({len(fp32.papers)} papers)", rows,
         ["set", "queries", "backend", "precision", "ndcg10_fp32", "ndcg10_product",
          "change_points"], notes=__doc__.strip())


def _ndcg(explorer: Explorer, query_set) -> float:
    return evaluate(explorer, query_set, modes=["dense"])["modes"]["dense"]["ndcg@10"]


def _candidate_rankers(fp32: Explorer, names: list[str]) -> dict:
    """name -> (precision, ranker): the candidate's own paper vectors (in the fp32 index's row
    order) and question vectors, ranked by the product's dense ranking (`Explorer.rank` with
    those cosines as its dense scores)."""
    spec = resolve_model("default")
    texts = [paper.text for paper in fp32.papers]
    rankers = {}
    for name in names:
        model = candidate(name, spec, 32, measured=set())
        rankers[name] = (model.precision, _ranker(fp32, model.embed_documents(texts), model))
    return rankers


def _ranker(explorer: Explorer, vectors, model):
    def ranked(query, _fp32_vector) -> list[int]:
        vector = model.embed_query(query.text)  # the rows come from `scores`, in their order
        hits = explorer.rank(query.text, vector, TOP_K, mode="dense",
                             dense_scores=vectors @ vector)
        return [explorer.row(hit.paper_id) for hit in hits]

    return ranked


def _index(dataset: Path, backend: str) -> Explorer:
    """The dataset indexed with `backend`'s vectors (embedded once, then kept in the cache)."""
    spec = resolve_model("default")
    embedder = Embedder(spec, backend=backend)
    out = cache_dir() / "bench" / f"ndcg-{dataset.name}-{embedder.backend}-{embedder.precision}"
    corpus = find_corpus(dataset)
    if not (out / "manifest.json").is_file():
        from explorer.corpus.papers import read_corpus

        papers = read_corpus([corpus]).papers
        vectors = embedder.embed_documents([p.text for p in papers])
        Checkpoint(out, spec.fingerprint).save([p.text_hash for p in papers], vectors,
                                               _build_info(spec))
        build([corpus], out, "default", sentences=False, progress=_refuse)
    return Explorer.open(out, backend=embedder.backend)  # queries on the papers' backend


def _fp32(folder: Path, dataset: Path) -> Explorer:
    """An existing torch fp32 index of the dataset (built before the backends existed)."""
    recorded = (folder / "manifest.json").is_file() and Explorer.open(folder).manifest.model
    if recorded and recorded.backend in (None, TORCH):
        return Explorer.open(folder, backend=TORCH)
    return _index(dataset, TORCH)


def _build_info(spec) -> dict:
    """The model info a local build records (its checkpoint is only resumed when it matches)."""
    return Embedder(spec).info
