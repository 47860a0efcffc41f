"""Shared set-up for the ranking studies on ACM-CR: every judged query of the three sets, with
its vector, both channels' first-pass candidates and a fold by citing paper.

The sentence, paragraph and paper queries all come from the same 50 citing papers, so a
random split of queries would leak: the folds split the 50 citing papers in two (sorted by
DOI, alternating), and a query belongs to the fold of the paper it was taken from. Choosing a
setting on fold 0 and reporting it on fold 1 (and the reverse) is honest 2-fold
cross-validation.

Everything goes through the product's public API: the judged queries as `explorer eval`
resolves them (evaluate.judged), the dense channel as `Explorer.search_vector` returns it and
the lexical channel as `Explorer.rank(text, None, mode="lexical")` does. Query vectors are embedded once
(as `explorer eval` embeds them) and cached on disk by content and model.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.common import cache_dir
from explorer.eval.evaluate import SETS, judged, load_set
from explorer.eval.metrics import mean_scores, score_run
from explorer.eval.small import citing_papers
from explorer.query.engine import Explorer
from explorer.query.hits import Hit
from explorer.ranking.fusion import LEXICAL

FIRST_PASS = 1000  # candidates of each channel kept per query
RRF_K = 60  # the constant of Cormack et al. (2009): reciprocal rank fusion, a baseline


@dataclass(frozen=True)
class Case:
    set_name: str
    query_id: str
    text: str
    relevant: dict[int, float]
    fold: int
    vector: np.ndarray  # (d,)
    dense: tuple[np.ndarray, np.ndarray]  # top FIRST_PASS rows, cosines
    lexical: tuple[np.ndarray, np.ndarray]  # top FIRST_PASS rows, BM25 scores


def default_cache() -> Path:
    """Where the studies keep query vectors between runs (EXPLORER_CACHE/study)."""
    return cache_dir() / "study"


def study_parser(doc: str) -> argparse.ArgumentParser:
    """The arguments every ACM-CR study takes: the dataset, the index, an optional JSON
    output and the query-vector cache."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="the ACM-CR folder (or a slice of it)")
    parser.add_argument("--index", type=Path, required=True, help="an index of its corpus")
    parser.add_argument("--output", type=Path, help="write the per-config table as JSON here")
    parser.add_argument("--cache", type=Path, help="query-vector cache (EXPLORER_CACHE/study)")
    return parser


def folds(dataset: Path) -> dict[tuple[str, str], int]:
    """(set name, query id) -> fold 0 or 1, by citing paper (sorted by DOI, alternating)."""
    citing = citing_papers(dataset)
    keys = sorted({key for (name, _), key in citing.items() if name == "papers"})
    fold_of = {key: position % 2 for position, key in enumerate(keys)}
    return {query: fold_of[key] for query, key in citing.items()}


def channel(explorer: Explorer, hits: list[Hit]) -> tuple[np.ndarray, np.ndarray]:
    """Hits as a channel: (rows int64, scores float32), best first."""
    rows = np.fromiter((explorer.row(hit.paper_id) for hit in hits), dtype=np.int64,
                       count=len(hits))
    return rows, np.array([hit.score for hit in hits], dtype=np.float32)


def dense_channel(explorer: Explorer, vector: np.ndarray, depth: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The product's dense channel for `vector` (d,): top `depth` rows and their cosines."""
    return channel(explorer, explorer.search_vector(vector, depth))


def lexical_channel(explorer: Explorer, text: str, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The product's lexical channel for `text`: top `depth` rows and their BM25 scores."""
    # (rank, not search: a question that is a title would have its paper put first by search)
    return channel(explorer, explorer.rank(text, None, depth, mode=LEXICAL))


def load_cases(explorer: Explorer, dataset: Path, cache: Path | None = None
               ) -> dict[str, list[Case]]:
    """Every judged query of every set, with first-pass candidates of both channels."""
    fold_of = folds(dataset)
    out: dict[str, list[Case]] = {}
    for name in SETS:
        scored, _ = judged(explorer, load_set(dataset, name))
        query_vectors = cached_vectors(explorer, [q.text for q, _ in scored], cache)
        out[name] = [Case(name, query.query_id, query.text, relevant,
                          fold_of[(name, query.query_id)], vector,
                          dense_channel(explorer, vector, FIRST_PASS),
                          lexical_channel(explorer, query.text, FIRST_PASS))
                     for (query, relevant), vector in zip(scored, query_vectors)]
    return out


def cached_vectors(explorer: Explorer, texts: list[str], cache: Path | None = None
                   ) -> np.ndarray:
    """Query vectors (m, d), embedded as `explorer eval` does; cached on disk by content and
    model fingerprint in `cache` (default_cache())."""
    folder = cache or default_cache()
    model = str(explorer.embedder.info["fingerprint"])
    digest = hashlib.sha256("\n".join([model, *texts]).encode()).hexdigest()[:16]
    path = folder / f"queries-{digest}.npy"
    if path.is_file():
        return np.load(path)
    vectors = explorer.embedder.embed_documents(texts)
    folder.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def ndcg(cases: list[Case], rankings: list) -> float:
    """Mean nDCG@10 of `rankings` (one row list per case)."""
    return all_metrics(cases, rankings)["ndcg@10"]


def all_metrics(cases: list[Case], rankings: list) -> dict[str, float]:
    return mean_scores([score_run(list(r), c.relevant) for r, c in zip(rankings, cases)])


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = RRF_K
                           ) -> tuple[np.ndarray, np.ndarray]:
    """Fuse ranked row lists: score(row) = sum over lists of 1 / (k + rank), rank from 1.

    Returns (rows, fused scores), best first; ties keep the order of first appearance."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, row in enumerate(ranking, start=1):
            fused[int(row)] = fused.get(int(row), 0.0) + 1.0 / (k + rank)
    rows = np.fromiter(fused, dtype=np.int64, count=len(fused))
    scores = np.fromiter(fused.values(), dtype=np.float64, count=len(fused))
    order = np.argsort(-scores, kind="stable")
    return rows[order], scores[order]
