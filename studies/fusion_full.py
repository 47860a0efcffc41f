"""Absolute fusion against today's blend on a whole corpus (full ACM-CR: 106k papers), held out.

The weight of the lexical channel in absolute fusion (ranking.LEXICAL_WEIGHT, 1.2 for search)
was chosen by cross-validation on 100 / 1,000 / 10,000-paper corpora and the seeds
(small_corpora.py); here it meets a corpus size it was not chosen on. Rows, for each of the
three query sets: lexical, dense, the current default (blend, then the feedback pass), blend
without feedback, and absolute fusion at each weight with and without the feedback pass (the
pass runs as the product runs it: feedback.feedback_channel over both candidate pools). Ranked
through the public API: Explorer.candidates for the channels, ranking.* and feedback.* for the
rest, exactly as pipeline.run composes them. Every query counts (a fold column says which
citing-paper fold it falls in, for the reader who wants to split).

    nice -n 10 .venv/bin/python -m studies.fusion_full ../shared/data/acm-cr \
        --index ~/.cache/paper-explorer/eval/acm-cr-0bf59f63 \
        --output studies/results/quality-acm-cr-fusion-full
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from explorer.eval.evaluate import SETS, TOP_K, describe_run, evaluate, format_table, load_set
from explorer.query.engine import Explorer
from explorer.ranking.channels import Request
from explorer.ranking.feedback import feedback_channel
from explorer.ranking.fusion import CANDIDATES, MODES, absolute_fusion, query_ceiling

WEIGHTS = (0.5, 0.8, 1.2)


def absolute_ranker(explorer: Explorer, weight: float, feedback: bool):
    """A ranker for evaluate(): absolute fusion of the dense and BM25 candidates at `weight`,
    optionally followed by the feedback pass and a second fusion -> rows, best first."""
    def rank(query, vector) -> list[int]:
        text = query.text
        dense = explorer.ranker.candidates("dense", Request(vector=vector), CANDIDATES)
        lexical = explorer.ranker.candidates("lexical", Request(text=text), CANDIDATES)
        ceiling = query_ceiling(explorer.lexical, text)
        rows, _ = absolute_fusion(dense, lexical, ceiling, weight)
        if feedback:
            dense = feedback_channel(explorer.vectors, vector, rows, [dense[0], lexical[0]],
                                     CANDIDATES)
            rows, _ = absolute_fusion(dense, lexical, ceiling, weight)
        return [int(row) for row in rows[:TOP_K]]
    return rank


def plain_blend(explorer: Explorer):
    def rank(query, vector) -> list[int]:
        hits = explorer.rank(query.text, vector, TOP_K, mode="hybrid", feedback=False)
        return [explorer.row(hit.paper_id) for hit in hits]
    return rank


def rankers(explorer: Explorer, weights=WEIGHTS) -> dict:
    named = {"hybrid blend, no feedback": plain_blend(explorer)}
    for weight in weights:
        named[f"absolute {weight}, feedback"] = absolute_ranker(explorer, weight, True)
        named[f"absolute {weight}, no feedback"] = absolute_ranker(explorer, weight, False)
    return named


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--index", type=Path, required=True, help="an index of the dataset's corpus")
    parser.add_argument("--set", dest="sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--limit", type=int, help="first N queries of each set (a smoke run)")
    parser.add_argument("--output", type=Path, help="write OUTPUT.json and OUTPUT.md")
    args = parser.parse_args(argv)
    explorer = Explorer.open(args.index)
    results = [evaluate(explorer, load_set(args.dataset, name), MODES, limit=args.limit,
                        rankers=rankers(explorer)) for name in args.sets]
    command = "python -m studies.fusion_full " + " ".join(sys.argv[1:] if argv is None else argv)
    report = {**describe_run(explorer, args.dataset, command), "results": results}
    table = format_table(results)
    if args.output:
        args.output.with_suffix(".json").write_text(json.dumps(report, indent=2, default=_plain)
                                                    + "\n", encoding="utf-8")
        facts = "\n".join(f"- {key}: {report[key]}" for key in report if key != "results")
        args.output.with_suffix(".md").write_text(f"{facts}\n\n```\n{table}\n```\n",
                                                  encoding="utf-8")
    print(table)
    return report


def _plain(value):
    return value.item() if isinstance(value, np.generic) else str(value)


if __name__ == "__main__":
    main()
