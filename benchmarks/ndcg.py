"""Ranking quality per embedding backend: nDCG@10 on ACM-CR queries, dense mode.

The same ACM-CR slice is indexed twice: with fp32 sentence-transformers vectors (the baseline)
and with the product's default backend (papers and queries both embedded by it). Each index is
scored by `explorer.evaluate.evaluate` on the same query set. A backend is acceptable only if
nDCG@10 stays within 0.5 points of fp32 (issue 4).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.common import cache_dir, save
from benchmarks.indexes import _refuse
from explorer.build.builder import build
from explorer.build.checkpoint import Checkpoint
from explorer.eval.evaluate import evaluate, find_corpus, load_set
from explorer.model.embedder import AUTO, TORCH, Embedder, resolve_model
from explorer.query.engine import Explorer


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run ndcg")
    parser.add_argument("--dataset", type=Path,
                        help="an ACM-CR slice (studies/make_slice.py; default: "
                             "EXPLORER_CACHE/slices/acm-cr-slice)")
    parser.add_argument("--sets", default="sentences,paragraphs")
    parser.add_argument("--backend", default=AUTO, help="the backend compared with fp32 torch")
    parser.add_argument("--fp32-index", type=Path,
                        help="an index of the dataset built with torch fp32 (else built here; "
                             "default: EXPLORER_CACHE/slices/acm-cr-slice-index)")
    args = parser.parse_args(argv)
    args.dataset = args.dataset or cache_dir() / "slices" / "acm-cr-slice"
    args.fp32_index = args.fp32_index or cache_dir() / "slices" / "acm-cr-slice-index"
    explorers = {"fp32 torch": _fp32(args.fp32_index, args.dataset),
                 "product": _index(args.dataset, args.backend)}
    rows = []
    for set_name in args.sets.split(","):
        query_set = load_set(args.dataset, set_name)
        scores = {name: evaluate(ex, query_set, modes=["dense"])["modes"]["dense"]
                  for name, ex in explorers.items()}
        base, ours = scores["fp32 torch"]["ndcg@10"], scores["product"]["ndcg@10"]
        rows.append({"set": set_name, "queries": len(query_set.queries),
                     "backend": explorers["product"].embedder.info["backend"],
                     "ndcg10_fp32": base, "ndcg10_product": ours,
                     "change_points": round(100 * (ours - base), 2)})
    save("ndcg", f"nDCG@10 per embedding backend on {args.dataset.name} "
         f"({len(explorers['product'].papers)} papers)", rows,
         ["set", "queries", "backend", "ndcg10_fp32", "ndcg10_product", "change_points"],
         notes=__doc__.strip())


def _index(dataset: Path, backend: str) -> Explorer:
    """The dataset indexed with `backend`'s vectors (embedded once, then kept in the cache)."""
    spec = resolve_model("default")
    embedder = Embedder(spec, backend=backend)
    out = cache_dir() / "bench" / f"ndcg-{dataset.name}-{embedder.backend}"
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
