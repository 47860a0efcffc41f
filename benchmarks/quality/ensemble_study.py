"""The bundled model and a corpus-adapted copy (adapt_study.py) as two dense channels.

Each model's index of the same corpus gives its own shipped hybrid channels (200 candidates,
feedback pass); this study blends the two final dense channels and BM25 with a grid of weights.
Settings are chosen by the 2-fold cross-validation of study_cases.py (folds by citing paper).

    nice -n 5 .venv/bin/python -m benchmarks.quality.ensemble_study ../shared/data/acm-cr \
        --index /root/.cache/paper-explorer/acm-cr-sent \
        --adapted /root/.cache/paper-explorer/acm-cr-adapted
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.quality.prf_study import Study, moved_dense, report, study_parser, write_configs
from benchmarks.quality.study_cases import load_cases
from explorer.query.engine import Explorer
from explorer.query.ranking import blend_fusion

DEPTH = 200
WEIGHTS = ((0.5, 0.0, 0.5), (0.0, 0.5, 0.5), (0.25, 0.25, 0.5), (0.3, 0.3, 0.4),
           (0.2, 0.4, 0.4), (0.4, 0.2, 0.4), (0.35, 0.35, 0.3))


def main() -> None:
    parser = study_parser(__doc__)  # --index: the bundled model's
    parser.add_argument("--adapted", type=Path, required=True, help="the adapted model's index")
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
            channels[(name, c.query_id)] = (moved_dense(base.vectors, c, depth=DEPTH),
                                            moved_dense(adapted.vectors, a, depth=DEPTH), lexical)
    names = []
    for weights in WEIGHTS:
        label = "base/adapted/bm25 = " + "/".join(str(w) for w in weights)
        study.run(label, lambda c, w=weights: blend_fusion(
            [ch for ch, x in zip(channels[(c.set_name, c.query_id)], w) if x],
            [x for x in w if x])[0])
        names.append(label)
    summary = report(study, names, "two dense channels and BM25")
    if args.output:
        write_configs(args.output, study, names, summary)


if __name__ == "__main__":
    main()
