"""How to fuse the two channels, chosen on one query set and checked on the others.

Each channel's top 100 comes from the shared cases (cases.py: the product's dense and lexical
channels); then reciprocal rank fusion with several k, and the calibrated blend (per-query
min-max normalised scores, weight on dense: ranking.blend_fusion, what ships) are scored. The
paragraph queries choose (dev); sentence and paper queries only report (test), so the choice
is not tuned on what it is judged by. Decided: the blend with weight 0.5 (DECISIONS.md).

    .venv/bin/python -m studies.fusion_study DATASET --index INDEX
"""

from __future__ import annotations

import json

from explorer.eval.evaluate import SETS
from explorer.query.engine import Explorer
from explorer.ranking.fusion import blend_fusion
from studies.cases import Case, load_cases, ndcg, reciprocal_rank_fusion, study_parser

DEV = "paragraphs"
CANDIDATES = 100  # as in its published table (the product now fuses 200: prf_study.py)


def methods() -> dict:
    """name -> fn(case) -> ranked rows."""
    def top(channel):
        return channel[0][:CANDIDATES], channel[1][:CANDIDATES]

    out = {f"rrf k={k}": (lambda c, k=k: reciprocal_rank_fusion(
        [top(c.dense)[0], top(c.lexical)[0]], k)[0]) for k in (10, 30, 60, 100)}
    out.update({f"blend w={w}": (lambda c, w=w: blend_fusion(
        [top(c.dense), top(c.lexical)], [w, 1 - w])[0]) for w in (0.3, 0.4, 0.5, 0.6, 0.7)})
    out["dense"] = lambda c: top(c.dense)[0]
    out["lexical"] = lambda c: top(c.lexical)[0]
    return out


def score(cases: dict[str, list[Case]]) -> dict[str, dict[str, float]]:
    """method -> set -> nDCG@10."""
    return {name: {s: ndcg(group, [fuse(c) for c in group]) for s, group in cases.items()}
            for name, fuse in methods().items()}


def main(argv: list[str] | None = None) -> dict:
    args = study_parser(__doc__).parse_args(argv)
    explorer = Explorer.open(args.index)
    results = score(load_cases(explorer, args.dataset, args.cache))
    print(f"{len(explorer.papers)} papers; nDCG@10; '{DEV}' chooses, the others test")
    print(f"{'method':14}" + "".join(f"{name:>12}" for name in SETS))
    for method, row in results.items():
        print(f"{method:14}" + "".join(f"{row[name]:12.4f}" for name in SETS))
    fused = [m for m in results if m not in ("dense", "lexical")]
    best = max(fused, key=lambda m: results[m][DEV])
    print(f"chosen on {DEV}: {best}; default rrf k=60 -> "
          + ", ".join(f"{n} {results[best][n] - results['rrf k=60'][n]:+.4f}" for n in SETS))
    summary = {"results": results, "chosen": best}
    if args.output:
        args.output.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


if __name__ == "__main__":
    main()
