"""Questions of other kinds, on another corpus: paperlists-ml's TLDRs and titles as questions
for their own paper's abstract (no title in the corpus), for the fusion studies.

ACM-CR's queries are citation sentences, where words carry much of the signal; a TLDR is a
one-line summary in the author's words and a title a keyword-like phrase. The corpus is every
paperlists-ml paper with a TLDR (1,465) plus random others (seed 0) up to POOL papers, each
embedded ONCE from its abstract alone (titles would give the title questions away); the
1,000-paper corpora are drawn from it (DRAWS draws, every paper a question targets that falls
in the draw scored). Each question has one relevant paper, its own. Folds: even / odd question.

    nice -n 10 .venv/bin/python -m studies.paperlists_questions ../shared/data/paperlists-ml
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.corpus.papers import Paper
from explorer.eval.columns import Corpus
from explorer.eval.evaluate import model_suffix
from explorer.model.embedder import Embedder, resolve_model
from explorer.ranking.calibration import pair_quantiles, question_quantiles
from explorer.settings import Settings

POOL = 10_000
TITLES = 1_000  # title questions, drawn from the pool's papers without a TLDR question
SMALL = 1_000
DRAWS = 3


@dataclass(frozen=True, eq=False)
class QuestionPool:
    """The pool's papers (abstract only), vectors (n, d), questions per kind {kind: [(text,
    row)]}, their vectors {kind: (m, d)}, and reference cosines {"questions", "papers"}."""

    papers: list[Paper]
    vectors: np.ndarray
    questions: dict[str, list[tuple[str, int]]]
    question_vectors: dict[str, np.ndarray]
    scales: dict[str, list[float]]
    model: dict


def default_cache(model: str = "default") -> Path:
    """EXPLORER_CACHE/paperlists-questions[-MODEL], named as the eval pools are."""
    return Settings.from_env().cache_dir / f"paperlists-questions{model_suffix(model)}"


def read_records(dataset: Path) -> list[dict]:
    with gzip.open(dataset / "corpus.jsonl.gz", "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def choose(records: list[dict], size: int = POOL, titles: int = TITLES
           ) -> tuple[list[Paper], list[str], dict[str, list[tuple[str, int]]]]:
    """The pool's papers (abstract only), their real titles and the questions: every TLDR's
    paper plus random fill; titles of TITLES random other papers."""
    rng = np.random.default_rng(0)
    tldr = [i for i, r in enumerate(records) if (r.get("tldr") or "").strip()]
    others = np.setdiff1d(np.arange(len(records)), tldr)
    fill = rng.choice(others, max(0, size - len(tldr)), replace=False).tolist()
    chosen = sorted(set(tldr) | set(fill))
    papers = [Paper(paper_id=str(records[i]["doc_id"]), title="", title_is_derived=True,
                    abstract=str(records[i]["abstract"])) for i in chosen]
    row = {i: position for position, i in enumerate(chosen)}
    titled = rng.choice(sorted(set(fill)), min(titles, len(fill)), replace=False).tolist()
    questions = {"tldr": [(records[i]["tldr"].strip(), row[i]) for i in tldr],
                 "title": [(records[i]["title"].strip(), row[i]) for i in sorted(titled)]}
    return papers, [str(records[i]["title"]) for i in chosen], questions


def load(dataset: Path, cache: Path, model: str = "default", size: int = POOL,
         titled: int = TITLES) -> QuestionPool:
    """The pool of `size` papers with `titled` title questions, embedded on the first call and
    cached in `cache`."""
    papers, titles, questions = choose(read_records(dataset), size, titled)
    meta = cache / "pool.json"
    if meta.is_file() and json.loads(meta.read_text())["paper_ids"] == [p.paper_id for p in papers]:
        saved = json.loads(meta.read_text())
        vectors = np.load(cache / "papers.npy")
        asked = {kind: np.load(cache / f"questions-{kind}.npy") for kind in questions}
        return QuestionPool(papers, vectors, questions, asked, saved["scales"], saved["model"])
    embedder = Embedder(resolve_model(model))
    started = time.perf_counter()
    asked = {kind: embedder.embed_queries([text for text, _ in rows])
             for kind, rows in questions.items()}
    vectors = embedder.embed_documents([p.text for p in papers])
    # what a build of these papers with their titles would store (titles as questions)
    named = [Paper(p.paper_id, title, False, p.abstract) for p, title in zip(papers, titles)]
    scales = {"questions": question_quantiles(named, vectors, embedder.embed_queries),
              "papers": pair_quantiles(vectors)}
    cache.mkdir(parents=True, exist_ok=True)
    np.save(cache / "papers.npy", vectors)
    for kind, matrix in asked.items():
        np.save(cache / f"questions-{kind}.npy", matrix)
    meta.write_text(json.dumps({"paper_ids": [p.paper_id for p in papers], "model": embedder.info,
                                "scales": scales,
                                "seconds": round(time.perf_counter() - started, 1)}))
    return QuestionPool(papers, vectors, questions, asked, scales, embedder.info)


def corpora(pool: QuestionPool, draws: int = DRAWS, small: int = SMALL):
    """(size label, corpus, {pool row: corpus row}) for each drawn corpus and the whole pool."""
    for draw in range(draws if small < len(pool.papers) else 0):
        rng = np.random.default_rng([small, draw])
        rows = np.sort(rng.choice(len(pool.papers), small, replace=False))
        yield (str(small), Corpus.of([pool.papers[r] for r in rows], pool.vectors[rows]),
               {int(r): i for i, r in enumerate(rows)})
    yield (str(len(pool.papers)), Corpus.of(pool.papers, pool.vectors),
           {i: i for i in range(len(pool.papers))})


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="../shared/data/paperlists-ml")
    parser.add_argument("--model", default="default")
    parser.add_argument("--cache", type=Path)
    args = parser.parse_args(argv)
    cache = args.cache or default_cache(args.model)
    pool = load(args.dataset, cache, args.model)
    print(len(pool.papers), "papers;", {k: len(v) for k, v in pool.questions.items()}, cache)
    return cache


if __name__ == "__main__":
    main()
