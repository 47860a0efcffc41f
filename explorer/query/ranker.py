"""The ranking behind every verb, over arrays: papers, their vectors (n, d) and the channels over
them. No index folder is needed: `Ranker.of` ranks papers and vectors held in memory (eval's
sub-corpora) exactly as `Explorer` ranks an open index, which builds one over its artifacts.

What runs is decided by policy.plan_for (channels, fusion, feedback, depth) and carried out by
pipeline.run (`rows`); `rank` turns the rows into `Hit`s: versions folded (features/versions),
each hit's cosine placed on the corpus's scale and, for a question, its chance of relevance.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from explorer.artifacts.layout import FACETS, VERSIONS
from explorer.artifacts.store import Artifacts
from explorer.corpus.papers import Paper
from explorer.features.versions.works import Works
from explorer.index.dense import VectorIndex
from explorer.index.lexical import LexicalIndex, lexical_text
from explorer.query.hits import Hit, placed
from explorer.ranking.authors import Named
from explorer.ranking.calibration import CONTEXT, PAPERS, QUESTIONS, Scale, relevance
from explorer.ranking.channels import (
    Channel,
    DenseChannel,
    LexicalChannel,
    Ranked,
    Request,
    ScoreChannel,
)
from explorer.ranking.filters import Blocked, FacetTable, Filters
from explorer.ranking.fusion import DENSE, LEXICAL, query_ceiling, rocchio, svm_scores
from explorer.ranking.options import QueryOptions
from explorer.ranking.pipeline import run
from explorer.ranking.policy import CHANNELS, SCORES, Plan, plan_for
from explorer.wording import relevance_word

RECOMMENDERS = ("centroid", "svm")
# The SVM recovered held-out references better than the centroid
# (studies/results/quality-acm-cr-2026-11-30.md).
DEFAULT_RECOMMENDER = "svm"
# The chance given to a paper the question names (its exact title, or one of its authors): the
# reader asked for that paper, so it reads "strong match" whatever its cosine with the words.
NAMED_CHANCE = 1.0
VERSION_ROOM = 10  # more rows ranked when versions fold, so that top_k works still fill a list


class Ranker:
    """Ranks `papers` by `vectors` (n, d) float32, unit rows, through `channels` (policy.CHANNELS
    -> Channel); `lexical()` gives the BM25 index (for a query's ceiling), `scale(kind)` the
    corpus's calibration.Scale of a kind of cosine (None: hits are not placed). Immutable and
    shared by threads: `facets` and `works` build their tables once, thread-safe."""

    def __init__(self, papers: Sequence[Paper], vectors: np.ndarray,
                 channels: Mapping[str, Channel], lexical: Callable[[], LexicalIndex], *,
                 facets: FacetTable | None = None, works: Works | None = None,
                 scale: Callable[[str], Scale | None] = lambda kind: None) -> None:
        self.papers, self.vectors, self.channels, self.lexical = papers, vectors, channels, lexical
        self.facets = facets if facets is not None else FacetTable(papers)
        self.works = works if works is not None else Works(papers)
        self.scale = scale

    @classmethod
    def of(cls, papers: Sequence[Paper], vectors: np.ndarray) -> Ranker:
        """A Ranker over papers and their vectors (n, d) in memory, with the channels a build
        makes (an exact FAISS index, BM25) and no scale."""
        if len(papers) != len(vectors):
            raise ValueError(f"{len(papers)} papers but {len(vectors)} vectors")
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        lexical = LexicalIndex.from_papers(papers)
        return cls(papers, vectors, channels_over(VectorIndex.build(vectors), lambda: lexical,
                                                  batch=False), lambda: lexical)

    @classmethod
    def over(cls, artifacts: Artifacts, lexical: Callable[[], LexicalIndex], batch: bool,
             scale: Callable[[str], Scale | None]) -> Ranker:
        """A Ranker over an open index's `artifacts` (Explorer's), with its stored facet and
        version tables; `lexical()` gives its BM25 index, loaded on first use."""
        papers, extras = artifacts.papers, artifacts.extras
        return cls(papers, artifacts.index.vectors(), channels_over(artifacts.index, lexical, batch),
                   lexical, facets=FacetTable(papers, extras.get(FACETS), artifacts.arrays),
                   works=Works(papers, extras.get(VERSIONS)), scale=scale)

    def rows(self, text: str, vector: np.ndarray | None, options: QueryOptions,
             blocked: Blocked | None, *, reference: tuple[float, ...] = (),
             dense_scores: np.ndarray | None = None, paper_query: bool = False
             ) -> tuple[Ranked, Plan]:
        """The rows and scores that `options` (its mode resolved) rank first for `text` (BM25)
        and `vector` (d,) (or `dense_scores` (n,) as the dense channel), and the Plan that ran;
        `reference`: the random cosines of the query's kind (plausible fusion's)."""
        plan = plan_for(options.mode, options, scores=dense_scores is not None,
                        paper_query=paper_query, papers=len(self.papers))
        request = Request(text, vector, dense_scores, reference=reference,
                          ceiling=functools.cache(lambda: query_ceiling(self.lexical(), text)))
        channels = [self.channels[name] for name in plan.channels]
        return run(plan, channels, request, blocked, self.vectors), plan

    def rank(self, text: str, vector: np.ndarray | None, options: QueryOptions, *,
             kind: str = QUESTIONS, exclude: Iterable[int] = (),
             within: Sequence[int] | None = None, dense_scores: np.ndarray | None = None,
             paper_query: bool = False) -> list[Hit]:
        """Explorer.rank's hits: `rows`, versions folded unless `options.versions` is False,
        each hit's cosine to `vector` placed on `scale(kind)`, a question's with its chance of
        relevance in the context of the list's first CONTEXT; `within`: only these rows."""
        scale = self.scale(kind)
        judged = (kind == QUESTIONS and options.mode != LEXICAL and scale is not None
                  and scale.worded)  # a question's hits get their chance of relevance
        fold = options.versions and self.works.any()  # room for the versions folded away
        asked = dataclasses.replace(options, top_k=max(options.top_k, CONTEXT if judged else 0)
                                    + (VERSION_ROOM if fold else 0))  # judged: in context
        blocked = self.facets.blocked(options.filters, set(exclude), within)
        (rows, scores), plan = self.rows(text, vector, asked, blocked, reference=reference(
            scale), dense_scores=dense_scores, paper_query=paper_query)
        kept, versions = self.works.fold(rows) if fold else (range(len(rows)), [()] * len(rows))
        rows, scores = np.asarray(rows, dtype=np.int64)[list(kept)], np.asarray(scores)[list(kept)]
        chances = (relevance(scores[:max(options.top_k, CONTEXT)], scale.quantiles,
                             cosines=_context(self.vectors, rows, vector), absent=scale.absent,
                             calibration=scale.calibration)
                   if judged else [None] * len(rows))
        rows, scores = rows[: options.top_k], scores[: options.top_k]
        cosines = (self.vectors[rows] @ np.asarray(vector, dtype=np.float32)
                   if plan.cosine and vector is not None else [None] * len(rows))
        return [Hit(rank, float(score), paper=self.papers[int(row)],
                    versions=tuple(self.papers[other] for other in others),
                    **placed(scale, None if cosine is None else float(cosine),
                             None if chance is None else float(chance)))
                for rank, (row, score, cosine, chance, others)
                in enumerate(zip(rows, scores, cosines, chances, versions), start=1)]

    def named(self, question: str, filters: Filters | None = None) -> Named | None:
        """What `question` names (ranking/authors.py: a paper's title, an author's name), its
        papers cut to `filters`; None when it names none (or none that `filters` allow)."""
        found = self.facets.authors.named(" ".join(question.split()))
        allowed = self.facets.allowed_rows(filters) if found is not None else None
        if found is None or allowed is None:
            return found
        rows = tuple(int(row) for row in np.intersect1d(found.rows, allowed))
        return dataclasses.replace(found, rows=rows) if rows else None

    def question(self, text: str, vector: np.ndarray | None, options: QueryOptions,
                 exclude: Iterable[int] = ()) -> list[Hit]:
        """`rank` for a question, the papers it names (`named`) first, in their own ranking;
        no `text` (a vector alone): dense whatever the mode."""
        if not text:
            return self.rank(text, vector, dataclasses.replace(options, mode=DENSE),
                             exclude=exclude)
        named = self.named(text, options.filters)
        if named is None:
            return self.rank(text, vector, options, exclude=exclude)
        first = [dataclasses.replace(hit, relevance=NAMED_CHANCE,
                                     strength=relevance_word(NAMED_CHANCE))
                 if hit.relevance is not None else hit
                 for hit in self.rank(text, vector, options, exclude=exclude, within=named.rows)]
        room = options.top_k - len(first)
        rest = self.rank(text, vector, dataclasses.replace(options, top_k=room),
                         exclude={*exclude, *named.rows}) if room > 0 else []
        return [dataclasses.replace(hit, rank=rank) for rank, hit in enumerate(first + rest, 1)]

    def similar(self, row: int, options: QueryOptions) -> list[Hit]:
        """Explorer.similar's ranking: the papers nearest the paper in `row`, never itself."""
        text = lexical_text(self.papers[row]) if options.mode != DENSE else ""
        return self.rank(text, self.vectors[row], options, exclude={row}, kind=PAPERS,
                         paper_query=True)

    def candidates(self, channel: str, request: Request, depth: int,
                   filters: Filters | None = None, exclude: Iterable[int] = ()) -> Ranked:
        """The `depth` best rows of one channel (policy.CHANNELS) -> (rows, scores)."""
        if channel not in self.channels:
            raise ValueError(f"unknown channel {channel!r}; expected one of {CHANNELS}")
        return self.channels[channel].top(request, depth, self.facets.blocked(filters, exclude))

    def recommend(self, liked: list[int], disliked: list[int], query: str | None,
                  query_vector: np.ndarray | None, method: str, options: QueryOptions
                  ) -> list[Hit]:
        """Explorer.recommend's ranking from the rows of liked and disliked papers and the
        query's text and vector (d,) (None: no query); `method`: "svm", else the centroid; no
        feedback pass unless `options.feedback`."""
        if not liked and not (query and query.strip()):
            raise ValueError("recommend needs at least one liked paper or a query")
        options = dataclasses.replace(options, feedback=bool(options.feedback))
        target = rocchio(query_vector, self.vectors[liked], 1.0, disliked=self.vectors[disliked])
        words = [lexical_text(self.papers[row]) for row in liked] + [query or ""]
        text = " ".join(words) if options.mode != DENSE else ""
        scores = None
        if method == "svm" and liked and options.mode != LEXICAL:
            scores = svm_scores(self.vectors, liked, disliked)
            if query_vector is not None:
                scores = scores + self.vectors @ query_vector
        return self.rank(text, target, options, exclude=set(liked) | set(disliked),
                         dense_scores=scores, kind=PAPERS if liked else QUESTIONS)


def check_recommender(method: str) -> None:
    """ValueError unless `method` is one of RECOMMENDERS."""
    if method not in RECOMMENDERS:
        raise ValueError(f"unknown recommender {method!r}; expected one of {RECOMMENDERS}")


def channels_over(index: VectorIndex, lexical: Callable[[], LexicalIndex], batch: bool
                  ) -> dict[str, Channel]:
    """Every ranking channel (policy.CHANNELS) over a FAISS `index` and the BM25 index that
    `lexical()` gives (loaded on first use); `batch`: the dense channel batches searches."""
    return {DENSE: DenseChannel(index, batch), LEXICAL: LexicalChannel(lexical),
            SCORES: ScoreChannel()}


def _context(vectors: np.ndarray, rows: np.ndarray, vector: np.ndarray | None
             ) -> np.ndarray | None:
    """The cosines (<= CONTEXT,) of a list's first CONTEXT rows with the question's `vector`."""
    if vector is None:
        return None
    return vectors[rows[:CONTEXT]] @ np.asarray(vector, dtype=np.float32)


def reference(scale: Scale | None) -> tuple[float, ...]:
    """A Scale's quantiles when they are of the hits' own kind (labelled), else ()."""
    return scale.quantiles if scale is not None and scale.labelled else ()
