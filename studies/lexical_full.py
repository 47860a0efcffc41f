"""BM25 alone on a whole BEIR-style corpus, without embedding anything (minutes, not hours).

Checks the lexical channel against published BM25 numbers on the full corpus. Same tokeniser,
scoring, qrels handling and metrics as `explorer eval --mode lexical`: the product's
LexicalIndex built from the corpus in memory (no index folder).

    .venv/bin/python -m studies.lexical_full ../shared/data/acm-cr [--set all]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from explorer.corpus.papers import read_corpus
from explorer.eval.evaluate import SETS, find_corpus, load_set
from explorer.eval.metrics import mean_scores, score_run
from explorer.index.lexical import LexicalIndex
from explorer.ranking.fusion import top_rows


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--set", dest="sets", nargs="+", default=["all"], choices=[*SETS, "all"])
    args = parser.parse_args(argv)
    started = time.perf_counter()
    corpus = read_corpus([find_corpus(args.dataset)])
    rows = {}
    for row, paper in enumerate(corpus.papers):
        for paper_id in (paper.paper_id, *paper.aliases):
            rows[paper_id] = row
    index = LexicalIndex.from_papers(corpus.papers)
    print(f"{len(corpus.papers)} papers read and indexed in {time.perf_counter() - started:.0f} s")
    results = {}
    for name in list(SETS) if "all" in args.sets else args.sets:
        query_set = load_set(args.dataset, name)
        per_query = []
        for query in query_set.queries:
            relevant = {rows[d]: g for d, g in query_set.qrels.get(query.query_id, {}).items()
                        if d in rows}
            if relevant:
                ranked, _ = top_rows(index.scores(query.text), 100)
                per_query.append(score_run(ranked.tolist(), relevant))
        results[name] = {"queries": len(per_query),
                         **{k: round(v, 4) for k, v in mean_scores(per_query).items()}}
        print(name, json.dumps(results[name]))
    return results


if __name__ == "__main__":
    main()
