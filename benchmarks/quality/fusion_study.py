"""How to fuse the two channels, chosen on one query set and checked on the others.

Each channel's top 100 is computed once per query; then reciprocal rank fusion with several k,
and a calibrated blend (per-query min-max normalised scores, weight on dense) are scored. The
paragraph queries choose (dev); sentence and paper queries only report (test), so the choice
is not tuned on what it is judged by.

    .venv/bin/python benchmarks/quality/fusion_study.py DATASET --index CACHE_OF_EXPLORER_EVAL
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from explorer.eval.evaluate import SETS, _judged, load_set
from explorer.eval.metrics import mean_scores, score_run
from explorer.query.engine import Explorer
from explorer.query.ranking import reciprocal_rank_fusion

DEV = "paragraphs"
CANDIDATES = 100  # as in its published table (the product now fuses 200: prf_study.py)


def channels(explorer: Explorer, dataset: Path, name: str):
    """Per judged query: (dense rows, dense scores, lexical rows, lexical scores, relevant)."""
    judged, _ = _judged(explorer, load_set(dataset, name), None)
    vectors = explorer.embedder.embed_documents([q.text for q, _ in judged])
    out = []
    for (query, relevant), vector in zip(judged, vectors):
        dense_rows, dense_scores = explorer._dense_rows(vector, CANDIDATES, None, set())
        lexical_rows, lexical_scores = explorer._lexical_rows(query.text, CANDIDATES, None, set())
        out.append((dense_rows, dense_scores, lexical_rows, lexical_scores, relevant))
    return out


def blend(dense_rows, dense_scores, lexical_rows, lexical_scores, weight: float) -> list[int]:
    """weight * minmax(dense) + (1 - weight) * minmax(BM25); a missing score counts as 0."""
    fused: dict[int, float] = {}
    for rows, scores, share in ((dense_rows, dense_scores, weight),
                                (lexical_rows, lexical_scores, 1 - weight)):
        if len(scores) == 0:
            continue
        low, spread = float(scores.min()), float(scores.max() - scores.min()) or 1.0
        for row, score in zip(rows, scores):
            fused[int(row)] = fused.get(int(row), 0.0) + share * (float(score) - low) / spread
    return sorted(fused, key=fused.get, reverse=True)


def score(cases, fuse) -> float:
    return mean_scores([score_run(fuse(*case[:4]), case[4]) for case in cases])["ndcg@10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--index", type=Path, required=True)
    args = parser.parse_args()
    explorer = Explorer.open(args.index)
    sets = {name: channels(explorer, args.dataset, name) for name in SETS}
    methods = {f"rrf k={k}": (lambda d, ds, lx, ls, k=k: reciprocal_rank_fusion([d, lx], k)[0]
                              .tolist()) for k in (10, 30, 60, 100)}
    methods.update({f"blend w={w}": (lambda d, ds, lx, ls, w=w: blend(d, ds, lx, ls, w))
                    for w in (0.3, 0.4, 0.5, 0.6, 0.7)})
    methods["dense"] = lambda d, ds, lx, ls: d.tolist()
    methods["lexical"] = lambda d, ds, lx, ls: lx.tolist()
    results = {m: {name: score(cases, fuse) for name, cases in sets.items()}
               for m, fuse in methods.items()}
    print(f"{len(explorer.papers)} papers; nDCG@10; '{DEV}' chooses, the others test")
    print(f"{'method':14}" + "".join(f"{name:>12}" for name in SETS))
    for method, row in results.items():
        print(f"{method:14}" + "".join(f"{row[name]:12.4f}" for name in SETS))
    fused = [m for m in results if m not in ("dense", "lexical")]
    best = max(fused, key=lambda m: results[m][DEV])
    print(f"chosen on {DEV}: {best}; default rrf k=60 -> "
          + ", ".join(f"{n} {results[best][n] - results['rrf k=60'][n]:+.4f}" for n in SETS))


if __name__ == "__main__":
    np.seterr(invalid="ignore")
    main()
