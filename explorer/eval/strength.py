"""How far the strength words can be trusted on a judged set (issue 31), as `explorer eval`
reports it: each judged question is asked as a search asks it, and asked again with its relevant
papers and their other versions left out (a question about a topic the corpus then lacks: its
top hit should read "weak"). Per word: the hits so labelled among each list's first TOP and
the share of them judged relevant (a reliability table); and how often an absent question's
top hit reads above "weak". The words are the product's (ranking/calibration.relevance), so
this is a held-out check on any set the weights were not fitted on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer import wording
from explorer.eval.evaluate import grid
from explorer.query.engine import Explorer
from explorer.ranking.calibration import VERSIONS

TOP = 10  # hits per list read (calibration.CONTEXT are judged together)


def reliability(explorer: Explorer, questions: Sequence[tuple[str, set[int]]],
                vectors: np.ndarray) -> dict:
    """`questions`: (text, relevant rows), `vectors` (m, d) embedded as a search embeds them ->
    {"words": {word: {"hits", "relevant" (share, None without hits)}}, "questions",
    "answered" (questions with a relevant hit in the first TOP), "answer_strong_or_good" (the
    share of those whose first relevant hit reads "strong" or "good match"), "absent_lists",
    "absent_top_above_weak" (share, None without lists)}."""
    counts = {word: [0, 0] for word in wording.WORDS}
    above = absent = found = found_good = 0
    for (text, relevant), vector in zip(questions, vectors):
        first = None  # the word of the list's first relevant hit
        for hit in explorer.search_vector(vector, TOP, text=text):
            hit_relevant = explorer.row(hit.paper_id) in relevant
            if hit.strength in counts:
                counts[hit.strength][0] += 1
                counts[hit.strength][1] += hit_relevant
            if hit_relevant and first is None:
                first = hit.strength
        found += first is not None
        found_good += first in wording.WORDS[:2]
        gone = versions(explorer.vectors, relevant)
        hits = explorer.search_vector(vector, TOP, exclude=gone, text=text)
        if hits and hits[0].strength is not None:
            absent += 1
            above += hits[0].strength != wording.WEAK
    return {"words": {word: {"hits": n, "relevant": round(r / n, 3) if n else None}
                      for word, (n, r) in counts.items()},
            "questions": len(questions), "answered": found,
            "answer_strong_or_good": round(found_good / found, 3) if found else None,
            "absent_lists": absent,
            "absent_top_above_weak": round(above / absent, 3) if absent else None}


def versions(vectors: np.ndarray, rows: set[int]) -> set[int]:
    """`rows` and every row of `vectors` (n, d) whose cosine with one of them passes VERSIONS
    (another version of the same work)."""
    if not rows:
        return set()
    near = vectors @ vectors[sorted(rows)].T  # (n, r)
    return set(rows) | set(np.flatnonzero((near > VERSIONS).any(axis=1)).tolist())


def strength_table(result: dict, title: str) -> str:
    """The reliability table under `title`, and the absent-topic line below it."""
    rows = [[word, str(cell["hits"]), "-" if cell["relevant"] is None
             else f"{cell['relevant']:.0%}", wording.meaning(word)]
            for word, cell in result["words"].items()]
    share, good = result["absent_top_above_weak"], result.get("answer_strong_or_good")
    answered = ("" if good is None else f"\nfirst relevant hit \"strong\" or \"good match\" in "
                f"{good:.0%} of {result['answered']} questions that have one in the first {TOP} "
                f"(target on the seed paraphrases: at least 85%)")
    absent = ("no absent-topic lists" if share is None else
              f"absent-topic questions (relevant papers left out): top hit above \"weak\" in "
              f"{share:.0%} of {result['absent_lists']} (target: at most 10%)")
    return "\n".join([f"{title}: strength words on {result['questions']} judged questions, "
                      f"first {TOP} hits of each", grid(["word", "hits", "relevant",
                                                         "claims"], rows), absent + answered])
