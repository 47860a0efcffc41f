"""What did I miss: the corpus papers most related to a draft that its cited set lacks.

The draft is split into passages (drafts.py); each passage ranks the corpus with the engine's
own `rank` (its text for BM25, its vector, optionally the cited papers' centroid or SVM), the
cited papers and any paper with the identity of a cited one kept out; the passages' lists are
merged into one (`fuse`: reciprocal rank fusion or the best cosine). Each missed paper says
which passage it relates to most, the draft sentence and the paper sentence that tie them, and
which cited paper it is closest to. The defaults are chosen on ACM-CR by
studies/missed_eval.py (studies/DECISIONS.md).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.features.drafts.cited import Identities
from explorer.features.drafts.passages import (
    MAX_PASSAGES,
    SPLITS,
    Passage,
    Split,
    clean_query,
    split_draft,
)
from explorer.features.explanations.explain import SentenceMatch
from explorer.query.engine import Explorer
from explorer.query.hits import Hit, placed
from explorer.ranking.calibration import PAPERS
from explorer.ranking.filters import Filters
from explorer.ranking.fusion import LEXICAL, rocchio, svm_scores

__all__ = ["FUSIONS", "RANKERS", "Closest", "Missed", "MissedOptions", "MissedPaper", "Tie",
           "embed_passages", "fuse", "missed", "passage_rankings", "ranked_rows"]
RANKERS = ("text", "centroid", "svm")  # a passage alone; + the cited centroid; + their SVM
FUSIONS = ("rrf", "rank", "max")
RRF_K = 60
DEPTH = 50  # candidates per passage
# Chosen by studies/missed_eval.py on ACM-CR (studies/DECISIONS.md 12): paragraphs, the cited
# papers' SVM added to each passage's cosine, lists merged by the best cosine. Both folds chose
# paragraphs and "max"; fold 0 the centroid (weight 1), fold 1 and all papers the SVM. Without
# cited papers the SVM has nothing to learn from: the passage alone ranks ("text").
DEFAULT_SPLIT, DEFAULT_RANKER, DEFAULT_WEIGHT, DEFAULT_FUSION = "paragraphs", "svm", 1.0, "max"


@dataclass(frozen=True)
class MissedOptions:
    """How `missed` ranks: `top_k` papers overall and per passage; `split` (drafts.SPLITS);
    `ranker` (RANKERS: "centroid" adds `weight` x the cited papers' mean vector to each
    passage's; "svm" adds their per-request SVM's scores, as `recommend` does); `fusion` of
    the passages' lists (FUSIONS); `depth` candidates per passage; `explain`: find the
    sentences that tie each paper to the draft; `filters`: only papers that pass them
    (ranking/filters.py: venues, years, authors, facets), inside each passage's ranking."""

    top_k: int = 10
    split: str = DEFAULT_SPLIT
    ranker: str = DEFAULT_RANKER
    weight: float = DEFAULT_WEIGHT
    fusion: str = DEFAULT_FUSION
    depth: int = DEPTH
    max_passages: int = MAX_PASSAGES
    explain: bool = True
    filters: Filters | None = None

    def __post_init__(self) -> None:
        for name, value, allowed in (("split", self.split, tuple(SPLITS)),
                                     ("ranker", self.ranker, RANKERS),
                                     ("fusion", self.fusion, FUSIONS)):
            if value not in allowed:
                raise ValueError(f"unknown {name} {value!r}; expected one of {allowed}")
        for name in ("top_k", "depth", "max_passages"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"{name} must be a whole number >= 1, got {getattr(self, name)!r}")


@dataclass(frozen=True)
class Tie:
    """The sentence of the draft (`start`/`end` in the draft) and the sentence of the paper
    (in its abstract; None for a paper without one) that are closest."""

    draft: SentenceMatch
    paper: SentenceMatch | None


@dataclass(frozen=True)
class Closest:
    """The cited paper a missed paper is closest to, and their cosine."""

    paper_id: str
    title: str
    score: float


@dataclass(frozen=True)
class MissedPaper:
    """A missed paper: `hit` (its rank in its list; score: its cosine to `passage`), the number
    of the passage it relates to most, the sentences that tie them, the closest cited paper."""

    hit: Hit
    passage: int
    tie: Tie | None = None
    closest: Closest | None = None

    @property
    def paper_id(self) -> str:
        return self.hit.paper_id

    def to_dict(self) -> dict[str, Any]:
        tie = None if self.tie is None else {
            "draft_sentence": dataclasses.asdict(self.tie.draft),
            "paper_sentence": None if self.tie.paper is None else dataclasses.asdict(self.tie.paper)}
        return {**self.hit.to_dict(), "passage": self.passage, "tie": tie,
                "closest_cited": None if self.closest is None else dataclasses.asdict(self.closest)}


@dataclass(frozen=True)
class Missed:
    """The answer: `papers` (all passages merged, best first) and each passage's own list
    (`by_passage`, in draft order), the `split` ranked, the cited ids, notes for the reader."""

    papers: tuple[MissedPaper, ...]
    by_passage: tuple[tuple[Passage, tuple[MissedPaper, ...]], ...]
    split: Split
    cited: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def groups(self) -> list[tuple[Passage, list[MissedPaper]]]:
        """`papers` grouped by the passage each relates to most, in draft order."""
        passages = {passage.number: passage for passage in self.split.passages}
        grouped: dict[int, list[MissedPaper]] = {}
        for paper in self.papers:
            grouped.setdefault(paper.passage, []).append(paper)
        return [(passages[number], grouped[number]) for number in sorted(grouped)]

    def to_dict(self) -> dict[str, Any]:
        return {"papers": [p.to_dict() for p in self.papers],
                "passages": [{"number": passage.number, "start": passage.start,
                              "end": passage.end, "text": passage.text,
                              "papers": [p.to_dict() for p in papers]}
                             for passage, papers in self.by_passage],
                "cited": list(self.cited), "notes": list(self.notes),
                "words": self.split.words, "checked_words": self.split.checked_words}


def missed(explorer: Explorer, draft: str, cited_ids: Sequence[str] = (),
           top_k: int | None = None, *, options: MissedOptions | None = None) -> Missed:
    """The papers of `explorer`'s corpus most related to `draft` (checked: drafts.check_draft
    or read_draft first) that `cited_ids` (ids or aliases in this index; UnknownPaperError
    otherwise) do not contain: never a cited paper, a duplicate merged into one, or another
    record with a cited paper's identity (DOI, arXiv id, abstract, title)."""
    options = options or MissedOptions()
    if top_k is not None:
        options = dataclasses.replace(options, top_k=top_k)
    split = split_draft(draft, options.split, options.max_passages)
    cited = tuple(dict.fromkeys(explorer.paper(pid).paper_id for pid in cited_ids))
    vectors = embed_passages(explorer, split.passages)
    rankings = passage_rankings(explorer, split.passages, vectors, cited, options)
    rows, closeness = ranked_rows(explorer, rankings, vectors)
    merged = fuse(rows, closeness, options.fusion, options.top_k)
    explainer = _Explainer(explorer, draft, split.passages, cited, options.explain)
    overall = [explainer.paper(rank, row, number, score)
               for rank, (row, number, score) in enumerate(merged, start=1)]
    by_passage = tuple(
        (passage, tuple(explainer.paper(rank, row, i, float(score)) for rank, (row, score)
                        in enumerate(zip(rows[i][:options.top_k], closeness[i]), start=1)))
        for i, passage in enumerate(split.passages))
    return Missed(tuple(overall), by_passage, split, cited, _notes(split, cited, options))


def embed_passages(explorer: Explorer, passages: Sequence[Passage]) -> np.ndarray:
    """The passages' vectors (p, d), embedded as documents (a draft is a paper's text)."""
    return explorer.embedder.embed_documents([passage.query for passage in passages])


def passage_rankings(explorer: Explorer, passages: Sequence[Passage], vectors: np.ndarray,
                     cited_ids: Sequence[str], options: MissedOptions) -> list[list[Hit]]:
    """Each passage's `options.depth` best papers (`vectors` (p, d): embed_passages), none of
    them cited nor the same paper as a cited one, by the engine's `rank`."""
    cited_rows = sorted({explorer.row(pid) for pid in cited_ids})
    svm = None
    if options.ranker == "svm" and cited_rows and explorer.default_mode != LEXICAL:
        svm = svm_scores(explorer.vectors, cited_rows)
    centroid = None
    if options.ranker == "centroid" and cited_rows:
        centroid = explorer.vectors[cited_rows].mean(axis=0)
    identities = Identities(explorer.papers[row] for row in cited_rows)
    out = []
    for passage, vector in zip(passages, vectors):
        target = vector if centroid is None else rocchio(vector, centroid[None, :], options.weight)
        scores = None if svm is None else svm + explorer.vectors @ vector
        hits = explorer.rank(passage.query, target, top_k=options.depth,
                             exclude=cited_rows, dense_scores=scores, kind=PAPERS,
                             paper_query=True, filters=options.filters)
        out.append([hit for hit, keep in zip(hits, identities.keep([h.paper for h in hits]))
                    if keep])
    return out


def ranked_rows(explorer: Explorer, rankings: Sequence[Sequence[Hit]], vectors: np.ndarray
                ) -> tuple[list[list[int]], list[np.ndarray]]:
    """Each passage's list as rows, and their cosines to the passage (`vectors` (p, d)), for
    `fuse`."""
    rows = [[explorer.row(hit.paper_id) for hit in hits] for hits in rankings]
    return rows, [explorer.vectors[r] @ vectors[i] if r else np.zeros(0, np.float32)
                  for i, r in enumerate(rows)]


def fuse(rankings: Sequence[Sequence[int]], closeness: Sequence[np.ndarray], fusion: str,
         top_k: int) -> list[tuple[int, int, float]]:
    """Merge the passages' lists (`rankings[i]`: rows best first; `closeness[i]`: their
    cosines to passage i) -> (row, index of the passage it relates to most, its cosine to
    that passage), best first. "rrf": by the sum of 1 / (RRF_K + rank) over the lists;
    "rank": by its best rank in a list (the lists interleaved), then its cosine; "max": by
    its best cosine to a passage. One list is kept in its order."""
    if len(rankings) == 1:
        fusion = "rank"
    best: dict[int, tuple[tuple[float, float], int, float]] = {}  # row -> (key, passage, cos)
    summed: dict[int, float] = {}
    for i, (rows, cosines) in enumerate(zip(rankings, closeness)):
        for rank, (row, cosine) in enumerate(zip(rows, cosines), start=1):
            key = (float(cosine), -rank) if fusion == "max" else (-rank, float(cosine))
            if row not in best or key > best[row][0]:
                best[row] = (key, i, float(cosine))
            summed[row] = summed.get(row, 0.0) + 1.0 / (RRF_K + rank)
    if fusion == "rrf":
        order = sorted(summed, key=lambda row: (-summed[row], -best[row][2], row))
    else:
        order = sorted(best, key=lambda row: (tuple(-k for k in best[row][0]), row))
    return [(row, best[row][1], best[row][2]) for row in order[:top_k]]


class _Explainer:
    """Builds MissedPapers: the hit (placed on the paper-paper scale), the tie, the closest."""

    def __init__(self, explorer: Explorer, draft: str, passages: Sequence[Passage],
                 cited: Sequence[str], explain: bool) -> None:
        self.explorer, self.draft, self.passages = explorer, draft, passages
        self.cited_rows = [explorer.row(pid) for pid in cited]
        self.scale = explorer.scale(PAPERS)
        self.sentences: list[np.ndarray] | None = None
        if explain and passages:
            spans = [span for passage in passages for span in passage.sentences]
            flat = explorer.embedder.embed_documents(
                [clean_query(draft[s:e]) or draft[s:e] for s, e in spans])
            bounds = np.cumsum([0] + [len(p.sentences) for p in passages])
            self.sentences = [flat[a:b] for a, b in itertools.pairwise(bounds)]

    def paper(self, rank: int, row: int, index: int, score: float) -> MissedPaper:
        paper = self.explorer.papers[row]
        hit = Hit(rank, score, paper=paper, **placed(self.scale, score))
        return MissedPaper(hit, self.passages[index].number, self._tie(row, index),
                           self._closest(row))

    def _tie(self, row: int, index: int) -> Tie | None:
        if self.sentences is None:
            return None
        passage, draft_vectors = self.passages[index], self.sentences[index]
        paper = self.explorer.papers[row]
        spans, vectors = self.explorer.sentences(paper.paper_id)
        if not spans:
            scores = draft_vectors @ self.explorer.vectors[row]
            i, j, score = int(np.argmax(scores)), None, float(np.max(scores))
        else:
            pairs = draft_vectors @ vectors.T
            i, j = divmod(int(np.argmax(pairs)), pairs.shape[1])
            score = float(pairs[i, j])
        start, end = passage.sentences[i]
        draft = SentenceMatch(self.draft[start:end], start, end, score)
        if j is None:
            return Tie(draft, None)
        s, e = spans[j]
        return Tie(draft, SentenceMatch(paper.abstract[s:e], s, e, score))

    def _closest(self, row: int) -> Closest | None:
        if not self.cited_rows:
            return None
        scores = self.explorer.vectors[self.cited_rows] @ self.explorer.vectors[row]
        best = self.explorer.papers[self.cited_rows[int(np.argmax(scores))]]
        return Closest(best.paper_id, best.title, float(np.max(scores)))


def _notes(split: Split, cited: Sequence[str], options: MissedOptions) -> tuple[str, ...]:
    notes = []
    if split.more:
        what = ("its first passage" if options.split == "whole"
                else f"its first {len(split.passages)} passages")
        notes.append(f"The draft is long: {what} ({split.checked_words:,} of its "
                     f"{split.words:,} words) were checked. Check the rest as another draft.")
    if not cited:
        notes.append("No cited papers were given: every related paper counts as missed.")
    return tuple(notes)

