"""BM25's k1 and b under the shipped hybrid, on the full ACM-CR corpus.

The lexical channel uses Anserini's defaults (k1 0.9, b 0.4). This study recomputes the BM25
weights from the index's stored term counts for a grid of (k1, b), takes each query's lexical
first pass from them, and runs the shipped hybrid (200 candidates, feedback pass) on top.
Settings are chosen by the 2-fold cross-validation of study_cases.py (folds by citing paper).

    nice -n 5 .venv/bin/python -m benchmarks.quality.bm25_study ../shared/data/acm-cr \
        --index /root/.cache/paper-explorer/acm-cr-sent
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
from scipy import sparse

from benchmarks.quality.prf_study import Study, report, shipped, study_parser, write_configs
from benchmarks.quality.study_cases import FIRST_PASS, load_cases
from explorer.index import lexical
from explorer.query.engine import Explorer
from explorer.query.ranking import top_rows

GRID_K1 = (0.6, 0.9, 1.2, 1.5)
GRID_B = (0.3, 0.4, 0.55, 0.75)


def counts_matrix(explorer: Explorer) -> sparse.csr_matrix:
    arrays, prefix = explorer.artifacts.arrays, lexical.ARRAY_PREFIX
    data, indices, indptr = (arrays[f"{prefix}counts_{part}"]
                             for part in ("data", "indices", "indptr"))
    terms = len(arrays[f"{prefix}indptr"]) - 1
    return sparse.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, terms))


def lexical_first_pass(study: Study, matrix: sparse.csc_matrix, case) -> tuple:
    weights = study.raw.term_counts(case.text)
    if not weights:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    terms = np.fromiter(weights, dtype=np.int64)
    query = np.fromiter(weights.values(), dtype=np.float32)
    scores = np.asarray(matrix[:, terms] @ query).ravel()
    return top_rows(scores, FIRST_PASS)


def main() -> None:
    args = study_parser(__doc__).parse_args()
    explorer = Explorer.open(args.index)
    cases = load_cases(explorer, args.dataset)
    study = Study(explorer, cases)
    counts = counts_matrix(explorer)
    names = []
    for k1 in GRID_K1:
        for b in GRID_B:
            started = time.perf_counter()
            lexical.SETTINGS.update(k1=k1, b=b)
            matrix = lexical.bm25_matrix(counts)
            study.cases = {name: [replace(c, lexical=lexical_first_pass(study, matrix, c))
                                  for c in group] for name, group in cases.items()}
            name = f"k1={k1} b={b}"
            study.run(name, lambda c: shipped(study, c, 0.5, 200, 3, 0.5))
            names.append(name)
            print(f"{name}: {time.perf_counter() - started:.0f} s", flush=True)
    summary = report(study, names, "BM25 k1, b under the shipped hybrid")
    if args.output:
        write_configs(args.output, study, names, summary)


if __name__ == "__main__":
    main()
