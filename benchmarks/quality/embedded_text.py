"""What text to embed, measured: dense retrieval on a BEIR folder (a slice of ACM-CR) with the
papers embedded as title + abstract (what the build does), abstract only, title + abstract +
keywords, and, for texts longer than the model reads, the mean of overlapping sentence windows.

Every variant is scored with the same query vectors and metrics as `explorer eval`, by exact
(brute-force) inner product. Slow: it embeds the slice once per variant.

    .venv/bin/python benchmarks/quality/embedded_text.py SLICE_FOLDER [--variants ...]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from explorer.corpus.papers import Paper, read_corpus
from explorer.corpus.sentences import split_sentences
from explorer.eval.evaluate import SETS, find_corpus, load_set
from explorer.eval.metrics import mean_scores, score_run
from explorer.model.embedder import Embedder, resolve_model

WINDOW = 3  # sentences per window for the pooled variant


def texts_for(paper: Paper, variant: str) -> list[str]:
    """The text(s) one paper is embedded from under `variant` (several are mean-pooled)."""
    title = "" if paper.title_is_derived else paper.title
    if variant == "abstract":
        return [paper.abstract or title]
    if variant == "title+abstract+keywords":
        return [". ".join(x for x in (paper.text, ", ".join(paper.keywords)) if x)]
    if variant == "windows":
        spans = split_sentences(paper.abstract)
        if len(spans) <= WINDOW:
            return [paper.text]
        starts = range(0, len(spans) - WINDOW + 1, WINDOW - 1)
        return [f"{title}. {paper.abstract[spans[i][0]:spans[i + WINDOW - 1][1]]}".lstrip(". ")
                for i in starts]
    return [paper.text]


def embed_variant(embedder: Embedder, papers: list[Paper], variant: str) -> np.ndarray:
    """Unit vectors (n, d): the mean of each paper's text vectors, renormalised."""
    groups = [texts_for(p, variant) for p in papers]
    flat = embedder.embed_documents([t for group in groups for t in group])
    owners = np.repeat(np.arange(len(papers)), [len(g) for g in groups])
    sums = np.zeros((len(papers), flat.shape[1]), dtype=np.float64)
    np.add.at(sums, owners, flat)
    return (sums / np.linalg.norm(sums, axis=1, keepdims=True)).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--variants", nargs="+",
                        default=["title+abstract", "abstract", "title+abstract+keywords", "windows"])
    args = parser.parse_args()
    papers = read_corpus([find_corpus(args.dataset)]).papers
    rows = {pid: row for row, p in enumerate(papers) for pid in (p.paper_id, *p.aliases)}
    embedder = Embedder(resolve_model("default"))
    too_long = sum(embedder.token_count(p.text) > embedder.max_seq_length for p in papers)
    print(f"{len(papers)} papers; {too_long} ({100 * too_long / len(papers):.0f}%) longer than "
          f"{embedder.max_seq_length} tokens as title + abstract")
    sets = {}
    for name in SETS:
        query_set = load_set(args.dataset, name)
        judged = [(q, {rows[d]: g for d, g in query_set.qrels.get(q.query_id, {}).items()
                       if d in rows}) for q in query_set.queries]
        judged = [(q, rel) for q, rel in judged if rel]
        sets[name] = (embedder.embed_documents([q.text for q, _ in judged]), judged)
    for variant in args.variants:
        started = time.perf_counter()
        vectors = embed_variant(embedder, papers, variant)
        scores = {}
        for name, (queries, judged) in sets.items():
            ranked = np.argsort(-(queries @ vectors.T), axis=1)[:, :100]
            per_query = [score_run(r.tolist(), rel) for r, (_, rel) in zip(ranked, judged)]
            scores[name] = round(mean_scores(per_query)["ndcg@10"], 4)
        print(variant, json.dumps({"ndcg@10": scores,
                                   "embed_seconds": round(time.perf_counter() - started)}),
              flush=True)


if __name__ == "__main__":
    main()
