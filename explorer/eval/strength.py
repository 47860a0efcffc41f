"""How far the strength words can be trusted on a judged set (issue 31), as `explorer eval`
reports it: each judged question is asked as a search asks it, and asked again with its relevant
papers and their other versions left out (near but absent: close relatives of the answer stay,
and are often what a reader would want), and a third time with their close neighbours gone
too (KIN: every paper whose cosine with a relevant one reaches the 97th percentile of this
corpus's random paper pairs, what `similar` calls a "good match"): a question about a topic the
corpus lacks, whose top hit should read "weak". Per word: the hits so labelled among each
list's first TOP and the share of them judged relevant (a reliability table); and how often
each absent question's top hit reads above "weak". The words are the product's
(ranking/calibration.relevance), so this is a held-out check on any set the weights were not
fitted on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer import wording
from explorer.eval.evaluate import grid
from explorer.query.engine import Explorer
from explorer.ranking.calibration import PAPERS, QUESTIONS, VERSIONS

TOP = 10  # hits per list read (calibration.CONTEXT are judged together)
KIN = 97.0  # percentile of random paper pairs: a relevant paper's close neighbours


def reliability(explorer: Explorer, questions: Sequence[tuple[str, set[int]]],
                vectors: np.ndarray) -> dict:
    """`questions`: (text, relevant rows), `vectors` (m, d) embedded as a search embeds them ->
    {"words": {word: {"hits", "relevant" (share, None without hits)}}, "questions",
    "answered" (questions with a relevant hit in the first TOP), "answer_strong_or_good" (the
    share of those whose first relevant hit reads "strong" or "good match"), "absent_lists",
    "absent_top_above_weak" (share, None without lists)}."""
    counts = {word: [0, 0] for word in wording.WORDS}
    found = found_good = 0
    near, topic = [0, 0], [0, 0]  # absent lists read, top hit above weak
    same, kin = _levels(explorer)
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
        for tally, level in ((near, same), (topic, kin)):
            hits = explorer.search_vector(vector, TOP, text=text,
                                          exclude=versions(explorer.vectors, relevant, level))
            if hits and hits[0].strength is not None:
                tally[0] += 1
                tally[1] += hits[0].strength != wording.WEAK
    return {"words": {word: {"hits": n, "relevant": round(r / n, 3) if n else None}
                      for word, (n, r) in counts.items()},
            "questions": len(questions), "answered": found,
            "answer_strong_or_good": round(found_good / found, 3) if found else None,
            "absent_lists": near[0], "absent_top_above_weak": _share(near),
            "topic_absent_lists": topic[0], "topic_absent_top_above_weak": _share(topic)}


def versions(vectors: np.ndarray, rows: set[int], level: float = VERSIONS) -> set[int]:
    """`rows` and every row of `vectors` (n, d) whose cosine with one of them passes `level`
    (VERSIONS: another version of the same work)."""
    if not rows:
        return set()
    near = vectors @ vectors[sorted(rows)].T  # (n, r)
    return set(rows) | set(np.flatnonzero((near > level).any(axis=1)).tolist())


def _levels(explorer: Explorer) -> tuple[float, float]:
    """The cosines above which a paper is another version of a relevant one (the index's
    model's, fitted.py) and one of its close neighbours (KIN% of the index's paper pairs)."""
    questions, pairs = explorer.scale(QUESTIONS), explorer.scale(PAPERS)
    calibration = questions.calibration if questions is not None else None
    same = calibration.versions if calibration is not None else VERSIONS
    if pairs is None:
        return same, same
    table = pairs.quantiles
    return same, min(same, float(table[round(KIN / 100 * (len(table) - 1))]))


def _share(tally: list[int]) -> float | None:
    return round(tally[1] / tally[0], 3) if tally[0] else None


def strength_table(result: dict, title: str) -> str:
    """The reliability table under `title`, and the absent-topic line below it."""
    rows = [[word, str(cell["hits"]), "-" if cell["relevant"] is None
             else f"{cell['relevant']:.0%}", wording.meaning(word)]
            for word, cell in result["words"].items()]
    share, good = result["absent_top_above_weak"], result.get("answer_strong_or_good")
    topic = result.get("topic_absent_top_above_weak")
    answered = ("" if good is None else f"\nfirst relevant hit \"strong\" or \"good match\" in "
                f"{good:.0%} of {result['answered']} questions that have one in the first {TOP} "
                f"(target on the seed paraphrases: at least 85%)")
    absent = ("no absent-topic lists" if share is None else
              f"near-but-absent questions (relevant papers and their versions left out): top hit "
              f"above \"weak\" in {share:.0%} of {result['absent_lists']}")
    if topic is not None:
        absent += (f"\nabsent-topic questions (their close neighbours left out too): top hit "
                   f"above \"weak\" in {topic:.0%} of {result['topic_absent_lists']} (target: "
                   f"at most 10%)")
    return "\n".join([f"{title}: strength words on {result['questions']} judged questions, "
                      f"first {TOP} hits of each", grid(["word", "hits", "relevant",
                                                         "claims"], rows), absent + answered])
