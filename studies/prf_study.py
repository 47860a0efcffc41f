"""Pseudo-relevance feedback and fusion settings on the full ACM-CR corpus.

Every variant re-ranks the same judged queries (studies/cases.py); settings are chosen by
2-fold cross-validation over the 50 citing papers (each fold chooses on its own queries, the
other fold reports), so no number below is tuned on the queries it reports. Two grids:

- `fusion`: blend weight x candidate depth, and RRF (what made 200 candidates ship);
- `shipped`: weight x depth x feedback papers x feedback weight, through the shipped feedback
  code (feedback.feedback_channel): the grid the default was chosen from.

    nice -n 10 .venv/bin/python -m studies.prf_study ../shared/data/acm-cr \
        --index ~/.cache/paper-explorer/acm-cr-progressive [--only fusion shipped]
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import numpy as np

from explorer.eval.metrics import score_run
from explorer.query.engine import Explorer
from explorer.ranking.feedback import feedback_channel
from explorer.ranking.fusion import blend_fusion
from studies.cases import Case, load_cases, reciprocal_rank_fusion, study_parser

SEARCH_SETS = ("sentences", "paragraphs")
METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10")


class Study:
    """Per-query metrics of named configurations over the same cases, and their CV."""

    def __init__(self, explorer: Explorer, cases: dict[str, list[Case]]) -> None:
        self.vectors = explorer.vectors
        self.cases = cases
        self.results: dict[str, dict[str, list[dict]]] = {}  # config -> set -> per-query
        self.seconds: dict[str, float] = {}

    def run(self, name: str, fn, sets=None) -> None:
        """fn(case) -> ranked rows; per-query metrics kept under `name`."""
        started, count = time.perf_counter(), 0
        out = self.results.setdefault(name, {})
        for set_name in sets or self.cases:
            out[set_name] = [score_run(list(fn(c))[:100], c.relevant)
                             for c in self.cases[set_name]]
            count += len(self.cases[set_name])
        self.seconds[name] = 1000 * (time.perf_counter() - started) / max(1, count)

    def mean(self, name: str, set_name: str, fold: int | None = None,
             metric: str = "ndcg@10") -> float:
        values = [q[metric] for q, c in zip(self.results[name][set_name], self.cases[set_name])
                  if fold is None or c.fold == fold]
        return float(np.mean(values)) if values else 0.0

    def cross_validate(self, names: list[str], sets: tuple[str, ...]) -> dict:
        """Each fold picks the config with the best mean nDCG@10 over `sets` on its own
        queries; per-query scores of the other fold are pooled -> {set: cv nDCG@10, picks}."""
        picks = {fold: max(names, key=lambda n, f=fold: np.mean([self.mean(n, s, f)
                                                                  for s in sets]))
                 for fold in (0, 1)}
        out: dict = {"picks": {f"chosen on fold {f}": picks[f] for f in (0, 1)}}
        for set_name in sets:
            pooled = [self.results[picks[1 - c.fold]][set_name][i]["ndcg@10"]
                      for i, c in enumerate(self.cases[set_name])]
            out[set_name] = round(float(np.mean(pooled)), 4)
        return out


def hybrid(dense, lexical, weight: float = 0.5, depth: int = 100) -> np.ndarray:
    """The blend of both channels' top `depth` (ranking.blend_fusion) -> rows."""
    rows, _ = blend_fusion([(dense[0][:depth], dense[1][:depth]),
                            (lexical[0][:depth], lexical[1][:depth])], [weight, 1 - weight])
    return rows


def shipped(study: Study, c: Case, weight: float, depth: int, docs: int, beta: float):
    """The shipped stage (feedback.feedback_channel) on this query's channels -> rows."""
    first = hybrid(c.dense, c.lexical, weight, depth)
    if docs == 0:
        return first
    moved = feedback_channel(study.vectors, c.vector, first,
                             [c.dense[0][:depth], c.lexical[0][:depth]], depth, docs, beta)
    return hybrid(moved, c.lexical, weight, depth)


def study_fusion(study: Study) -> list[str]:
    names = []
    for weight, depth in itertools.product((0.3, 0.4, 0.5, 0.6, 0.7), (50, 100, 200, 1000)):
        name = f"blend w={weight} depth={depth}"
        study.run(name, lambda c, w=weight, d=depth: hybrid(c.dense, c.lexical, w, d))
        names.append(name)
    for k in (10, 60):
        name = f"rrf k={k} depth=100"
        study.run(name, lambda c, k=k: reciprocal_rank_fusion(
            [c.dense[0][:100], c.lexical[0][:100]], k)[0])
        names.append(name)
    return names


def study_shipped(study: Study) -> list[str]:
    """The grid the default was chosen from, run through the shipped feedback code."""
    names = []
    grid = [(0, 0.0)] + list(itertools.product((1, 2, 3, 5, 10), (0.25, 0.5, 1.0, 2.0)))
    for weight, depth, (docs, beta) in itertools.product((0.4, 0.5, 0.6), (100, 200), grid):
        name = f"w={weight} depth={depth} " + (f"docs={docs} beta={beta}" if docs else
                                                 "no feedback")
        study.run(name, lambda c, w=weight, d=depth, k=docs, b=beta: shipped(study, c, w, d, k, b))
        names.append(name)
    return names


STUDIES = {"fusion": study_fusion, "shipped": study_shipped}


def report(study: Study, names: list[str], title: str) -> dict:
    """Print fold 0 / fold 1 / all per config and set, then the 2-fold CV -> the CV summary."""
    sets = [s for s in study.cases if all(s in study.results[n] for n in names)]
    print(f"\n## {title}\nconfig | " + " | ".join(f"{s} (f0/f1/all)" for s in sets) + " | ms/q")
    for name in names:
        cells = [f"{study.mean(name, s, 0):.4f}/{study.mean(name, s, 1):.4f}/"
                 f"{study.mean(name, s):.4f}" for s in sets]
        print(f"{name} | " + " | ".join(cells) + f" | {study.seconds[name]:.1f}")
    groups = {"search": SEARCH_SETS, "papers": ("papers",),
              "one setting for all": (*SEARCH_SETS, "papers")}
    cv = {key: study.cross_validate(names, group) for key, group in groups.items()
          if all(s in sets for s in group)}
    for key, group in groups.items():
        if key in cv:
            cv[key]["best on all queries (not a result)"] = max(
                names, key=lambda n, g=group: np.mean([study.mean(n, s) for s in g]))
    print("2-fold CV:", json.dumps(cv))
    return cv


def write_configs(path: Path, study: Study, names: list[str], cv: dict) -> None:
    """Each config's mean metrics per set (and ms per query), with the CV summary, as JSON."""
    table = {n: {s: {m: round(study.mean(n, s, metric=m), 4) for m in METRICS}
                 for s in study.results[n]} | {"ms_per_query": study.seconds[n]}
             for n in names}
    path.write_text(json.dumps({"configs": table, "cv": cv}, indent=1), encoding="utf-8")


def main(argv: list[str] | None = None) -> dict:
    parser = study_parser(__doc__)
    parser.add_argument("--only", nargs="+", default=list(STUDIES), choices=list(STUDIES))
    args = parser.parse_args(argv)
    started = time.perf_counter()
    explorer = Explorer.open(args.index)
    study = Study(explorer, load_cases(explorer, args.dataset, args.cache))
    print(f"{len(explorer.papers)} papers, cases ready in {time.perf_counter() - started:.0f} s")
    study.run("baseline hybrid", lambda c: hybrid(c.dense, c.lexical))
    study.run("lexical", lambda c: c.lexical[0])
    study.run("dense", lambda c: c.dense[0])
    summary = {"reference": report(study, ["lexical", "dense", "baseline hybrid"], "reference")}
    for name in args.only:
        summary[name] = report(study, ["baseline hybrid", *STUDIES[name](study)], name)
    if args.output:
        write_configs(args.output, study, list(study.results), summary)
    return {"summary": summary, "study": study}


if __name__ == "__main__":
    main()
