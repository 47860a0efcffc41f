"""The seed set: hand-written questions about the seed abstracts and pairs of seed papers a
reader judges related (a JSON file, tests/data/seed_judgments.json, which says how they were
written), scored column by column (columns.py) over an index of the seeds.

A question names its target by a marker, a phrase only the target's abstract holds. Questions
score MRR@100 and target-in-top-5; each pair gives two directions, each the paper's own text
as a `similar` query (itself excluded), scored partner-in-top-5.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.corpus.papers import Paper
from explorer.errors import CorpusError
from explorer.eval.columns import COLUMNS, TOP_K, Corpus, ranked
from explorer.eval.evaluate import default_cache
from explorer.eval.metrics import mrr_at_k
from explorer.eval.pool import Progress
from explorer.index.lexical import lexical_text
from explorer.ingest.run import build
from explorer.query.engine import Explorer

TOP = 5  # a hit: the target (or the partner) among the first TOP


@dataclass(frozen=True)
class SeedJudgments:
    """`questions`: (question, marker of its target); `pairs`: (marker of A, marker of B, why
    a reader relates them)."""

    questions: tuple[tuple[str, str], ...]
    pairs: tuple[tuple[str, str, str], ...]


def read_judgments(path: Path) -> SeedJudgments:
    """The judgments file -> SeedJudgments; CorpusError naming the file when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        questions = tuple((str(q["query"]), str(q["marker"])) for q in data["questions"])
        pairs = tuple((str(p["first"]), str(p["second"]), str(p.get("why", "")))
                      for p in data["pairs"])
    except OSError as exc:
        raise CorpusError(f"Cannot read seed judgments {path}: {exc.strerror}. Give the file "
                          "with --seed-judgments (tests/data/seed_judgments.json).") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise CorpusError(f"{path} is not a seed judgments file (questions with query and "
                          f"marker, pairs with first and second): {exc}.") from exc
    if not questions:
        raise CorpusError(f"{path} holds no questions: a seed judgments file needs some.")
    return SeedJudgments(questions, pairs)


def target_row(papers: Sequence[Paper], marker: str) -> int:
    """The row of the one paper whose abstract holds `marker`."""
    rows = [row for row, paper in enumerate(papers) if marker in paper.abstract]
    if len(rows) != 1:
        raise CorpusError(f"{len(rows)} seed abstracts hold the marker {marker!r}, not one: "
                          "are the seeds and the judgments file of the same version?")
    return rows[0]


def seed_index(seeds: Path, cache_dir: Path, model: str, progress: Progress | None = None
               ) -> tuple[Explorer, str]:
    """Build (or reuse) an index of the `seeds` folder in the settings' cache (no sentence
    vectors) -> (explorer, build summary)."""
    if not seeds.is_dir():
        raise CorpusError(f"{seeds} is not a folder: give the seed abstracts with --seeds.")
    cache = default_cache(seeds, cache_dir, model)
    report = build([seeds], cache, model, sentences=False, progress=progress)
    return Explorer.open(cache), report.summary()


def score_seeds(corpus: Corpus, question_vectors: np.ndarray, judgments: SeedJudgments,
                columns: Sequence[str] = COLUMNS) -> dict:
    """Each column on the seed set -> {"papers", "questions", "pair_directions", "columns":
    {column: {"mrr@100", "top5" (share of questions), "partners@5" (share of directions),
    "missed": markers of questions whose target is not in the top 5, "partners_missed": the
    directions (their index: each pair's two directions in file order) whose partner is not}}}.

    `question_vectors` (m, d): the questions' vectors, embedded as a search embeds them."""
    targets = [target_row(corpus.papers, marker) for _, marker in judgments.questions]
    directions = [(a, b) for first, second, _ in judgments.pairs
                  for a, b in ((target_row(corpus.papers, first), target_row(corpus.papers, second)),
                               (target_row(corpus.papers, second), target_row(corpus.papers, first)))]
    out: dict = {"papers": len(corpus), "questions": len(targets),
                 "pair_directions": len(directions), "columns": {}}
    for column in columns:
        ranks = [ranked(corpus, column, query, vector).tolist()
                 for (query, _), vector in zip(judgments.questions, question_vectors)]
        partners = [b in ranked(corpus, column, lexical_text(corpus.papers[a]), corpus.vectors[a],
                                paper_query=True, exclude=[a])[:TOP].tolist()
                    for a, b in directions]
        found = [target in rows[:TOP] for rows, target in zip(ranks, targets)]
        out["columns"][column] = {
            "mrr@100": round(float(np.mean([mrr_at_k(rows, {target: 1.0}, TOP_K)
                                            for rows, target in zip(ranks, targets)])), 4),
            "top5": round(float(np.mean(found)), 4),
            "partners@5": round(float(np.mean(partners)), 4) if partners else 0.0,
            "missed": [marker for (_, marker), hit in zip(judgments.questions, found) if not hit],
            "partners_missed": [index for index, hit in enumerate(partners) if not hit]}
    return out
