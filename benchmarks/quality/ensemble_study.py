"""The bundled model and a corpus-adapted copy (adapt_study.py) as two dense channels.

Each model's index of the same corpus gives its own shipped hybrid channels (200 candidates,
feedback pass); this study blends the two final dense channels and BM25 with a grid of weights.
Settings are chosen by the 2-fold cross-validation of study_cases.py (folds by citing paper).

    nice -n 5 .venv/bin/python -m benchmarks.quality.ensemble_study ../shared/data/acm-cr \
        --index /root/.cache/paper-explorer/acm-cr-sent \
        --adapted /root/.cache/paper-explorer/acm-cr-adapted
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from benchmarks.quality.prf_study import Study, report
from benchmarks.quality.study_cases import Case, load_cases
from explorer.feedback import feedback_channel
from explorer.ranking import blend_fusion
from explorer.search import Explorer

DEPTH = 200
WEIGHTS = ((0.5, 0.0, 0.5), (0.0, 0.5, 0.5), (0.25, 0.25, 0.5), (0.3, 0.3, 0.4),
           (0.2, 0.4, 0.4), (0.4, 0.2, 0.4), (0.35, 0.35, 0.3))


def final_dense(vectors: np.ndarray, c: Case):
    """The shipped hybrid's dense channel after its feedback pass."""
    dense = (c.dense[0][:DEPTH], c.dense[1][:DEPTH])
    lexical = (c.lexical[0][:DEPTH], c.lexical[1][:DEPTH])
    first, _ = blend_fusion([dense, lexical], [0.5, 0.5])
    return feedback_channel(vectors, c.vector, first, [dense[0], lexical[0]], DEPTH)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--index", type=Path, required=True, help="the bundled model's index")
    parser.add_argument("--adapted", type=Path, required=True, help="the adapted model's index")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    base, adapted = Explorer.open(args.index), Explorer.open(args.adapted)
    if [p.paper_id for p in base.papers] != [p.paper_id for p in adapted.papers]:
        raise SystemExit("the two indexes do not hold the same papers in the same order")
    cases, other = load_cases(base, args.dataset), load_cases(adapted, args.dataset)
    study = Study(base, cases)
    channels = {}
    for name, group in cases.items():
        for c, a in zip(group, other[name]):
            lexical = (c.lexical[0][:DEPTH], c.lexical[1][:DEPTH])
            channels[(name, c.query_id)] = (final_dense(base.vectors, c),
                                            final_dense(adapted.vectors, a), lexical)
    names = []
    for weights in WEIGHTS:
        label = "base/adapted/bm25 = " + "/".join(str(w) for w in weights)
        study.run(label, lambda c, w=weights: blend_fusion(
            [ch for ch, x in zip(channels[(c.set_name, c.query_id)], w) if x],
            [x for x in w if x])[0])
        names.append(label)
    summary = report(study, names, "two dense channels and BM25")
    if args.output:
        table = {n: {s: round(study.mean(n, s), 4) for s in study.results[n]} for n in names}
        args.output.write_text(json.dumps({"ndcg@10": table, "cv": summary}, indent=1))


if __name__ == "__main__":
    main()
