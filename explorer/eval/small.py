"""Small corpora drawn from the embedded pool (pool.py), scored column by column (columns.py).

For each citing paper of an ACM-CR-shaped dataset, its judged papers (all three query sets)
plus random other pool papers make a corpus of about SIZE papers, DRAWS seeded draws per size
(a size of at least the pool is the whole pool: one draw). Its queries are ranked there: a
sentence or paragraph query as a question, a paper query as a paper (`similar`). Nothing is
embedded again: the vectors are the pool's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from explorer.errors import CorpusError
from explorer.eval.columns import COLUMNS, Corpus, ranked
from explorer.eval.evaluate import SETS, Query
from explorer.eval.metrics import mean_scores, score_run
from explorer.eval.pool import Pool, Progress

SIZES = (100, 1_000, 10_000)
DRAWS = 3


@dataclass(frozen=True, eq=False)
class PoolQuery:
    """One judged query: its set, the query, relevant rows {row: grade} and its vector (d,)."""

    set_name: str
    query: Query
    relevant: dict[int, float]
    vector: np.ndarray


@dataclass(frozen=True, eq=False)
class SubCorpus:
    """One drawn corpus: the citing paper `key`'s queries, their rows local to `corpus`."""

    size: int
    draw: int
    key: str
    corpus: Corpus
    queries: list[PoolQuery]


def citing_key(set_name: str, record: dict, titles: dict[str, str]) -> str:
    """The citing paper a query comes from: the numeric tail of its DOI."""
    if set_name == "papers":
        return record["query_id"].rsplit(".", 1)[-1]
    if set_name == "sentences":
        return record["query_id"].split("_", 1)[0]
    return titles[record["citing_paper_title"].strip().lower()]


def citing_papers(dataset: Path) -> dict[tuple[str, str], str]:
    """(set name, query id) -> the numeric DOI tail of the citing paper it comes from."""
    read = {name: [json.loads(line) for line in (dataset / files[0]).open(encoding="utf-8")
                   if line.strip()] for name, files in SETS.items()}
    titles = {r["title"].strip().lower(): r["query_id"].rsplit(".", 1)[-1]
              for r in read["papers"]}
    try:
        return {(name, str(r["query_id"])): citing_key(name, r, titles)
                for name, records in read.items() for r in records}
    except (KeyError, AttributeError) as exc:
        raise CorpusError(f"{dataset}/ is not shaped like ACM-CR (a query without its citing "
                          f"paper: {exc}): small corpora need its three query sets.") from exc


def queries_by_citing(pool: Pool, dataset: Path) -> dict[str, list[PoolQuery]]:
    """The judged queries of all three sets (those with text and a relevant pool paper),
    grouped by the citing paper they come from, rows of the pool."""
    position, citing = pool.positions(), citing_papers(dataset)
    groups: dict[str, list[PoolQuery]] = {}
    for name, query_set in pool.sets.items():
        for query in query_set.queries:
            relevant = {position[d]: g for d, g in query_set.qrels.get(query.query_id, {}).items()
                        if d in position}
            if relevant and query.text:
                groups.setdefault(citing[(name, query.query_id)], []).append(
                    PoolQuery(name, query, relevant, pool.query_vectors[name][query.query_id]))
    return groups


def draw_rows(count: int, judged: Sequence[int], size: int, draw: int, key: str) -> np.ndarray:
    """Pool rows (sorted) of one corpus of a `count`-paper pool: every `judged` row plus random
    others up to `size`, seeded by (size, draw, citing paper)."""
    rng = np.random.default_rng([size, draw, int(key) % 2**32])
    others = np.setdiff1d(np.arange(count), judged)
    fill = rng.choice(others, max(0, size - len(judged)), replace=False)
    return np.array(sorted(set(judged) | set(fill.tolist())))


def sub_corpora(pool: Pool, groups: dict[str, list[PoolQuery]], sizes: Sequence[int] = SIZES,
                draws: int = DRAWS) -> Iterator[SubCorpus]:
    """Every corpus of every size and draw, for each citing paper in `groups` (sorted)."""
    whole = None
    for size in sizes:
        for draw in range(1 if size >= len(pool.papers) else draws):
            for key, queries in sorted(groups.items()):
                if size >= len(pool.papers):
                    whole = whole if whole is not None else Corpus.of(
                        pool.papers, pool.vectors, pool.titles)
                    yield SubCorpus(size, draw, key, whole, queries)
                    continue
                judged = sorted({row for q in queries for row in q.relevant})
                rows = draw_rows(len(pool.papers), judged, size, draw, key)
                local = {int(row): i for i, row in enumerate(rows)}
                corpus = Corpus.of([pool.papers[row] for row in rows], pool.vectors[rows],
                                   None if pool.titles is None else pool.titles[rows])
                yield SubCorpus(size, draw, key, corpus, [
                    replace(q, relevant={local[r]: g for r, g in q.relevant.items()})
                    for q in queries])


def small_runs(pool: Pool, dataset: Path, sets: Sequence[str] = tuple(SETS),
               sizes: Sequence[int] = SIZES, draws: int = DRAWS,
               columns: Sequence[str] = COLUMNS, progress: Progress | None = None
               ) -> list[dict]:
    """Every query of `sets` ranked by each column in each of its corpora -> one run per query
    and corpus: {"set", "size", "draw", "query_id", "papers" (the corpus's size), "scores":
    {column: metrics.score_run}}. `progress(phase, done, total)` after each corpus. The corpora
    hold the judged papers of all three sets whichever are scored: the same draws every time."""
    groups = queries_by_citing(pool, dataset)
    out, done = [], dict.fromkeys(sizes, 0)
    for sub in sub_corpora(pool, groups, sizes, draws):
        for item in (q for q in sub.queries if q.set_name in sets):
            scores = {column: score_run(ranked(sub.corpus, column, item.query.text, item.vector,
                                               paper_query=item.query.is_document).tolist(),
                                        item.relevant)
                      for column in columns}
            out.append({"set": item.set_name, "size": sub.size, "draw": sub.draw,
                        "query_id": item.query.query_id, "papers": len(sub.corpus),
                        "scores": scores})
        done[sub.size] += 1
        if progress:
            each = 1 if sub.size >= len(pool.papers) else draws
            progress(f"corpora of {sub.size:,} papers", done[sub.size], each * len(groups))
    return out


def summarise(runs: Sequence[dict]) -> list[dict]:
    """small_runs' runs -> one row per (set, size), in the runs' order: {"set", "size",
    "papers" (mean corpus size), "draws", "runs", "columns": {column: {metric: mean}}}."""
    cells: dict[tuple[str, int], list[dict]] = {}
    for run in runs:
        cells.setdefault((run["set"], run["size"]), []).append(run)
    return [{"set": name, "size": size,
             "papers": round(float(np.mean([r["papers"] for r in cell]))),
             "draws": len({r["draw"] for r in cell}), "runs": len(cell),
             "columns": {column: {metric: round(value, 4) for metric, value in
                                  mean_scores([r["scores"][column] for r in cell]).items()}
                         for column in cell[0]["scores"]}}
            for (name, size), cell in cells.items()]
