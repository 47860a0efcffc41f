"""Shared set-up for the ranking studies on ACM-CR: every judged query of the three sets, with
its vector, both channels' first-pass candidates and a fold by citing paper.

The sentence, paragraph and paper queries all come from the same 50 citing papers, so a
random split of queries would leak: the folds split the 50 citing papers in two (sorted by
DOI, alternating), and a query belongs to the fold of the paper it was taken from. Choosing a
setting on fold 0 and reporting it on fold 1 (and the reverse) is honest 2-fold
cross-validation.

Query vectors are embedded once (as `explorer eval` embeds them) and cached in CACHE.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.eval.evaluate import SETS, _judged, load_set
from explorer.eval.metrics import mean_scores, score_run
from explorer.index.lexical import ARRAY_PREFIX, Tokenizer
from explorer.query.engine import Explorer
from explorer.query.ranking import top_rows

CACHE = Path.home() / ".cache" / "paper-explorer" / "study"
FIRST_PASS = 1000  # candidates of each channel kept per query


@dataclass
class Case:
    set_name: str
    query_id: str
    text: str
    relevant: dict[int, float]
    fold: int
    vector: np.ndarray  # (d,)
    dense: tuple[np.ndarray, np.ndarray]  # top FIRST_PASS rows, cosines
    lexical: tuple[np.ndarray, np.ndarray]  # top FIRST_PASS rows, BM25 scores


def citing_key(set_name: str, record: dict, titles: dict[str, str]) -> str:
    """The citing paper a query comes from: the numeric tail of its DOI."""
    if set_name == "papers":
        return record["query_id"].rsplit(".", 1)[-1]
    if set_name == "sentences":
        return record["query_id"].split("_", 1)[0]
    return titles[record["citing_paper_title"].strip().lower()]


def folds(dataset: Path) -> dict[tuple[str, str], int]:
    """(set name, query id) -> fold 0 or 1, by citing paper."""
    read = {name: [json.loads(line) for line in (dataset / files[0]).open() if line.strip()]
            for name, files in SETS.items()}
    titles = {r["title"].strip().lower(): r["query_id"].rsplit(".", 1)[-1]
              for r in read["papers"]}
    keys = sorted({r["query_id"].rsplit(".", 1)[-1] for r in read["papers"]})
    fold_of = {key: position % 2 for position, key in enumerate(keys)}
    return {(name, str(r["query_id"])): fold_of[citing_key(name, r, titles)]
            for name, records in read.items() for r in records}


def load_cases(explorer: Explorer, dataset: Path) -> dict[str, list[Case]]:
    """Every judged query of every set, with first-pass candidates of both channels."""
    fold_of = folds(dataset)
    vectors = explorer.vectors
    bm25 = RawBM25(explorer)
    out: dict[str, list[Case]] = {}
    for name in SETS:
        judged, _ = _judged(explorer, load_set(dataset, name), None)
        query_vectors = cached_vectors(explorer, [q.text for q, _ in judged])
        cases = []
        for (query, relevant), vector in zip(judged, query_vectors):
            dense = top_rows(vectors @ vector + 1.0, FIRST_PASS)  # +1: top_rows keeps > 0
            dense = (dense[0], dense[1] - 1.0)
            lexical = top_rows(bm25.scores(bm25.term_counts(query.text)), FIRST_PASS)
            cases.append(Case(name, query.query_id, query.text, relevant,
                              fold_of[(name, query.query_id)], vector, dense, lexical))
        out[name] = cases
    return out


class RawBM25:
    """The stored BM25 score matrix read directly (either stored layout), with term weights.

    The studies score weighted queries (RM3, pruning); reading the arrays keeps them working
    while the lexical module changes."""

    def __init__(self, explorer: Explorer) -> None:
        arrays = explorer.artifacts.arrays
        self.data, self.indices, self.indptr = (arrays[f"{ARRAY_PREFIX}{name}"]
                                                for name in ("data", "indices", "indptr"))
        words = bytes(arrays[f"{ARRAY_PREFIX}vocab"]).decode("utf-8").split("\n")
        self.vocab = {w: i for i, w in enumerate(words[: len(self.indptr) - 1])}
        self.count = len(explorer.papers)
        self.tokenize = Tokenizer()
        self.df = np.diff(self.indptr).astype(np.float64)
        self.idf = np.log(1 + (self.count - self.df + 0.5) / (self.df + 0.5))

    def term_counts(self, text: str) -> Counter:
        return Counter(self.vocab[t] for t in self.tokenize(text) if t in self.vocab)

    def scores(self, weights: dict[int, float]) -> np.ndarray:
        """Sum over terms of weight * BM25 column -> (n,)."""
        if not weights:
            return np.zeros(self.count, dtype=np.float32)
        spans = [(self.indptr[t], self.indptr[t + 1], w) for t, w in weights.items()]
        rows = np.concatenate([self.indices[a:b] for a, b, _ in spans])
        values = np.concatenate([self.data[a:b] * w for a, b, w in spans])
        return np.bincount(rows, weights=values, minlength=self.count).astype(np.float32)


def cached_vectors(explorer: Explorer, texts: list[str]) -> np.ndarray:
    """Query vectors (m, d), embedded as `explorer eval` does; cached on disk by content and
    model."""
    model = explorer.manifest["model"]["fingerprint"]
    digest = hashlib.sha256("\n".join([model, *texts]).encode()).hexdigest()[:16]
    path = CACHE / f"queries-{digest}.npy"
    if path.is_file():
        return np.load(path)
    vectors = explorer.embedder.embed_documents(texts)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def ndcg(cases: list[Case], rankings: list) -> float:
    return mean_scores([score_run(list(r), c.relevant) for r, c in zip(rankings, cases)])[
        "ndcg@10"]


def all_metrics(cases: list[Case], rankings: list) -> dict[str, float]:
    return mean_scores([score_run(list(r), c.relevant) for r, c in zip(rankings, cases)])
