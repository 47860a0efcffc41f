"""Sentence-level evidence in the hybrid ranking, on the full ACM-CR corpus.

The shipped hybrid compares a query with one vector per paper (title + abstract, cut at the
model's 256 tokens). A citation sentence usually restates one claim of the paper it cites, and
a paragraph or an abstract cites several papers for several claims. This study adds the stored
sentence vectors (one per abstract sentence, built by `explorer build`) as evidence:

- `sent`: a third channel over the candidates both channels already returned: each candidate
  scores the best cosine between the query and one of its abstract sentences (MaxSim);
- `qsplit`: the query is split into its sentences too (paragraphs and papers); each candidate
  scores the mean over query sentences of their best cosine with its sentences;
- `qdense`: query sentences as extra dense queries (no corpus sentences needed): each query
  sentence adds its top paper rows to the pool and a candidate scores its best cosine.

Settings are chosen by the 2-fold cross-validation of study_cases.py (folds by citing paper).

    nice -n 10 .venv/bin/python -m benchmarks.quality.sentence_study ../shared/data/acm-cr \
        --index /root/.cache/paper-explorer/acm-cr-sent
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.quality.prf_study import Study, moved_dense, report, study_parser, write_configs
from benchmarks.quality.study_cases import Case, cached_vectors, load_cases
from explorer.corpus.sentences import split_sentences
from explorer.query.engine import Explorer
from explorer.query.ranking import blend_fusion, top_rows

DEPTH = 200  # candidates per channel, as shipped


class Sentences:
    """The stored sentence vectors, grouped by paper row."""

    def __init__(self, explorer: Explorer) -> None:
        arrays = explorer.artifacts.arrays
        table = arrays["sentence_table"]
        self.vectors = np.asarray(arrays["sentence_vectors"], dtype=np.float32)
        self.bounds = np.searchsorted(table[:, 0], np.arange(len(explorer.papers) + 1))
        self.papers = explorer.vectors

    def maxsim(self, rows: np.ndarray, queries: np.ndarray) -> np.ndarray:
        """(len(rows), k): the best cosine of each query vector (k, d) with each row's
        sentences; a paper without abstract sentences scores its paper vector."""
        starts, ends = self.bounds[rows], self.bounds[rows + 1]
        counts = ends - starts
        out = self.papers[rows] @ queries.T
        has = counts > 0
        if has.any():
            index = np.concatenate([np.arange(a, b) for a, b in zip(starts[has], ends[has])])
            sims = self.vectors[index] @ queries.T
            offsets = np.r_[0, np.cumsum(counts[has])[:-1]]
            out[has] = np.maximum.reduceat(sims, offsets, axis=0)
        return out


def query_sentences(explorer: Explorer, cases: dict[str, list[Case]]) -> dict[tuple, np.ndarray]:
    """(set, query id) -> vectors of the query's sentences (k, d), embedded once, cached."""
    texts, keys = [], []
    for name, group in cases.items():
        for case in group:
            for start, end in split_sentences(case.text):
                texts.append(case.text[start:end])
                keys.append((name, case.query_id))
    vectors = cached_vectors(explorer, texts)
    out: dict[tuple, list] = {}
    for key, vector in zip(keys, vectors):
        out.setdefault(key, []).append(vector)
    return {key: np.vstack(value) for key, value in out.items()}


def shipped_channels(study: Study, c: Case, extra_pool: np.ndarray | None = None):
    """The shipped hybrid's final channels (feedback dense, lexical) and its candidate pool."""
    extra = () if extra_pool is None else (extra_pool,)
    moved = moved_dense(study.vectors, c, depth=DEPTH, extra=extra)
    lexical = (c.lexical[0][:DEPTH], c.lexical[1][:DEPTH])
    pool = np.unique(np.concatenate([c.dense[0][:DEPTH], lexical[0], *extra]))
    return moved, lexical, pool


def fused(channels, weights) -> np.ndarray:
    rows, _ = blend_fusion(channels, weights)
    return rows


def study_sentences(study: Study, sentences: Sentences, qvecs: dict) -> list[str]:
    names = []
    cache: dict[tuple, tuple] = {}

    def parts(c: Case, extra: int):
        key = (c.set_name, c.query_id, extra)
        if key not in cache:
            split = qvecs.get((c.set_name, c.query_id), c.vector[None, :])
            extra_rows = None
            if extra:
                extra_rows = np.unique(np.concatenate(
                    [top_rows(study.vectors @ v + 1.0, extra)[0] for v in split]))
            moved, lexical, pool = shipped_channels(study, c, extra_rows)
            whole = sentences.maxsim(pool, c.vector[None, :])[:, 0]
            per_split = sentences.maxsim(pool, split).mean(axis=1)
            qdense = (study.vectors[pool] @ split.T).max(axis=1)
            cache[key] = (moved, lexical, pool, whole, per_split, qdense)
        return cache[key]

    def run(name, fn):
        study.run(name, fn)
        names.append(name)

    run("shipped (reproduced)", lambda c: fused(parts(c, 0)[:2], [0.5, 0.5]))
    for ws in (0.25, 0.5, 1.0):
        run(f"sent w={ws}", lambda c, ws=ws: fused(
            [*parts(c, 0)[:2], (parts(c, 0)[2], parts(c, 0)[3])], [0.5, 0.5, ws]))
        run(f"qsplit w={ws}", lambda c, ws=ws: fused(
            [*parts(c, 0)[:2], (parts(c, 0)[2], parts(c, 0)[4])], [0.5, 0.5, ws]))
        run(f"sent+qsplit w={ws}", lambda c, ws=ws: fused(
            [*parts(c, 0)[:2], (parts(c, 0)[2], parts(c, 0)[3]),
             (parts(c, 0)[2], parts(c, 0)[4])], [0.5, 0.5, ws / 2, ws / 2]))
        run(f"qdense+50 w={ws}", lambda c, ws=ws: fused(
            [*parts(c, 50)[:2], (parts(c, 50)[2], parts(c, 50)[5])], [0.5, 0.5, ws]))
        run(f"qsplit+50 w={ws}", lambda c, ws=ws: fused(
            [*parts(c, 50)[:2], (parts(c, 50)[2], parts(c, 50)[4])], [0.5, 0.5, ws]))
    return names


def main() -> None:
    args = study_parser(__doc__).parse_args()
    started = time.perf_counter()
    explorer = Explorer.open(args.index)
    cases = load_cases(explorer, args.dataset)
    study = Study(explorer, cases)
    sentences = Sentences(explorer)
    qvecs = query_sentences(explorer, cases)
    print(f"{len(explorer.papers)} papers, {len(sentences.vectors)} sentences, cases ready in "
          f"{time.perf_counter() - started:.0f} s")
    names = study_sentences(study, sentences, qvecs)
    summary = report(study, names, "sentence evidence")
    if args.output:
        write_configs(args.output, study, names, summary)


if __name__ == "__main__":
    main()
