"""Explorer: open an index folder once, then search, walk to similar papers, recommend."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from explorer.artifacts.layout import SENTENCE_TABLE
from explorer.artifacts.manifest import Manifest
from explorer.artifacts.store import Artifacts, load_artifacts
from explorer.batching import IN_PROGRESS
from explorer.corpus.papers import Paper
from explorer.features.explanations.vectors import Sentences, SentenceVectors, stored_sentences
from explorer.index.lexical import LexicalIndex
from explorer.model.cache import shared_embedder
from explorer.model.embedder import (
    AUTO,
    BATCHED_QUESTION_CHARS,
    MAX_QUESTION_CHARS,
    Embedder,
    ModelSpec,
    cut_question,
)
from explorer.query.asked import Questions
from explorer.query.compatible import WARMING, comparable_model, start_warming
from explorer.query.hits import Hit
from explorer.query.questions import query_note
from explorer.query.ranker import (
    DEFAULT_RECOMMENDER,
    RECOMMENDERS,
    Ranker,
    check_recommender,
)
from explorer.query.suggest import PaperRows
from explorer.ranking.authors import Named
from explorer.ranking.calibration import PAPERS, QUESTIONS, Scale, scale_for
from explorer.ranking.filters import Filters
from explorer.ranking.fusion import LEXICAL
from explorer.ranking.options import QueryOptions
from explorer.ranking.policy import DEFAULT_MODE
from explorer.settings import DEFAULT_INDEX_DIR

__all__ = ["BATCHED_QUESTION_CHARS", "DEFAULT_RECOMMENDER", "MAX_QUESTION_CHARS", "RECOMMENDERS",
           "Explorer", "Filters", "Hit", "QueryOptions", "cut_question"]

T = TypeVar("T")


def _answering(verb: Callable) -> Callable:
    """The verb's calls count as questions in progress (batching.IN_PROGRESS)."""

    @functools.wraps(verb)
    def counted(self: Explorer, *args: Any, **kwargs: Any) -> Any:
        with IN_PROGRESS.answering():
            return verb(self, *args, **kwargs)

    return counted


def load_model(explorer: Explorer) -> Embedder:
    """The index's model (Explorer.embedder), refused when not comparable (check_model)."""
    return shared_embedder(explorer.check_model(explorer.model), backend=explorer.backend,
                           batch=explorer.batch)


def load_sentences(explorer: Explorer) -> SentenceVectors:
    """The paper's sentences for explanations, stored or embedded once and kept."""
    return SentenceVectors(lambda row: stored_sentences(explorer.artifacts.arrays, row),
                           lambda row: explorer.papers[row].abstract,
                           lambda texts: explorer.embedder.embed_sentences(texts))


def load_bm25(explorer: Explorer) -> LexicalIndex:
    """The index's BM25 channel (Explorer.lexical): every index of format 2 stores it."""
    return LexicalIndex.from_arrays(explorer.artifacts.arrays, len(explorer.papers))


class Explorer:
    """The engine behind the CLI, the app and notebooks: opens an index and delegates (ranking:
    query/ranker.py; a feature's query: its package, through `part`). One Explorer may serve
    many threads at once (the app's sessions share it): queries share no mutable state, and
    what loads on first use (model, BM25, id table, a feature's tables) is made once."""

    def __init__(self, artifacts: Artifacts, model: str | None = None,
                 backend: str = AUTO, *, batch: bool = True) -> None:
        self.artifacts, self.model, self.backend, self.batch = artifacts, model, backend, batch
        self._parts: dict[Callable, Any] = {}
        self._locks: dict[Callable, threading.RLock] = {}  # each held only while its part loads
        self._rows = PaperRows(artifacts.papers)
        self.ranker = Ranker.over(artifacts, lambda: self.lexical, batch, self.scale)
        self.works, self._facets = self.ranker.works, self.ranker.facets  # features/versions
        self._questions = Questions(self.ranker, lambda: self.embedder, batch)

    @classmethod
    def open(cls, folder: str | Path = DEFAULT_INDEX_DIR, model: str | None = None,
             backend: str = AUTO, *, batch: bool = True, warm: bool = False) -> Explorer:
        """Load and check the index in `folder`. The model loads on the first text query.

        `model` overrides the manifest's (it must be the same model); `backend`: the runtime
        (embedder.BACKENDS; default: the fastest here); `batch`: questions that threads ask at
        once share model runs and index scans (same answers); `warm`: load the model now, on a
        thread while the index and BM25 load, compiled whole before this returns."""
        folder = Path(folder)
        warming = start_warming(folder, model, backend, batch) if warm else None
        explorer = cls(load_artifacts(folder), model=model, backend=backend, batch=batch)
        spec = explorer.check_model(model) if model is not None or warming else None
        if warming is not None:
            _take_warmed(explorer, warming, spec)
        return explorer

    def part(self, make: Callable[[Explorer], T]) -> T:
        """`make(self)`, made once per Explorer on first use, under a lock (two threads asking
        at once get one): the model, BM25, a feature's tables (features/topics/table.py)."""
        if make not in self._parts:
            with self._locks.setdefault(make, threading.RLock()):
                if make not in self._parts:
                    self._parts[make] = make(self)
        return self._parts[make]

    @property
    def papers(self) -> list[Paper]:
        return self.artifacts.papers

    @property
    def manifest(self) -> Manifest:
        return self.artifacts.manifest

    @property
    def vectors(self) -> np.ndarray:
        """All paper vectors (n, d), read-only."""
        return self.ranker.vectors

    def paper(self, paper_id: str) -> Paper:
        return self.papers[self.row(paper_id)]

    def row(self, paper_id: str) -> int:
        """Position of a paper (or of a duplicate merged into it); suggests close ids if unknown."""
        return self._rows.row(paper_id)

    def facets(self) -> dict[str, list]:
        """Values present in the corpus: venues, sources (files), years."""
        return self._facets.values()

    def facet_counts(self) -> dict[str, list[list]]:
        """{field: [[value, papers], ...] most first}: what `Filters(facets=...)` takes."""
        return self._facets.columns.counts

    def year_counts(self) -> tuple[dict[int, int], int]:
        """Papers of the corpus per year, and the papers without a year."""
        return self._facets.year_counts()

    def authors(self, limit: int = 1000) -> list[str]:
        """The author filter's suggestions: at most `limit` names, most papers first."""
        return self._facets.authors.suggestions(limit)

    def embed_query(self, query: str) -> np.ndarray:
        """The query's vector (d,) (of its first MAX_QUESTION_CHARS characters)."""
        return self._questions.vector(cut_question(query))

    def query_note(self, query: str) -> str | None:
        """What the reader is told when `query` is cut or the model stops reading it (None:
        all of it is read): query/questions.py."""
        return query_note(self.embedder, query)

    @_answering
    def search(self, query: str, top_k: int | None = None, filters: Filters | None = None, *,
               options: QueryOptions | None = None, **changes: Any) -> list[Hit]:
        """Papers ranked for `query` ([] when empty; its first MAX_QUESTION_CHARS characters:
        `query_note` says so), the papers it `named` first; mode None: `default_mode`."""
        if not query or not query.strip():
            return []
        query = cut_question(query)
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        return self._questions.answer(query, options)  # with others asked at once: asked.py

    @_answering
    def search_vector(self, vector: np.ndarray, top_k: int | None = None,
                      filters: Filters | None = None, exclude: Iterable[int] = (), *,
                      text: str = "", options: QueryOptions | None = None,
                      **changes: Any) -> list[Hit]:
        """Papers ranked by inner product with `vector` (d,), skipping rows in `exclude`; with
        the query's `text` too, as `search` ranks it; without, dense whatever the mode."""
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        return self.ranker.question(cut_question(text), vector, options, exclude)

    def named(self, question: str, filters: Filters | None = None) -> Named | None:
        """The papers `question` names exactly (a title, an author: ranking/authors.py) that
        `filters` allow; None when none. `search` puts them first."""
        return self.ranker.named(cut_question(question), filters)

    @_answering
    def similar(self, paper_id: str, top_k: int | None = None, filters: Filters | None = None,
                *, options: QueryOptions | None = None, **changes: Any) -> list[Hit]:
        """Nearest papers to `paper_id`, never the paper itself (nor its merged duplicates)."""
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        return self.ranker.similar(self.row(paper_id), options)

    @_answering
    def similar_to_text(self, text: str, top_k: int | None = None,
                        filters: Filters | None = None, *, options: QueryOptions | None = None,
                        **changes: Any) -> list[Hit]:
        """Papers most like a document not in the index (a title and abstract, say): `text`
        (its first MAX_QUESTION_CHARS characters) embedded as a document, and matched by BM25."""
        if not text or not text.strip():
            return []
        text = cut_question(text)
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        vector = None if options.mode == LEXICAL else self.embedder.embed_documents([text])[0]
        return self.ranker.rank(text, vector, options, kind=PAPERS, paper_query=True)

    @_answering
    def rank(self, text: str, vector: np.ndarray | None, top_k: int | None = None,  # noqa: PLR0913
             filters: Filters | None = None, exclude: Iterable[int] = (), *,
             dense_scores: np.ndarray | None = None, options: QueryOptions | None = None,
             kind: str = QUESTIONS, paper_query: bool = False,
             within: Sequence[int] | None = None, **changes: Any) -> list[Hit]:
        """The ranking behind every verb (Ranker.rank): `text` for BM25, `vector` (d,) (or
        `dense_scores` (n,)) for the dense channel; rows in `exclude` never come back, only
        rows `within` do (None: any); hits placed on `scale(kind)`."""
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        return self.ranker.rank(text, vector, options, kind=kind, exclude=exclude, within=within,
                                dense_scores=dense_scores, paper_query=paper_query)

    @_answering
    def recommend(self, like: Sequence[str], unlike: Sequence[str] = (), query: str | None = None,
                  top_k: int | None = None, filters: Filters | None = None, *,
                  method: str = DEFAULT_RECOMMENDER, options: QueryOptions | None = None,
                  **changes: Any) -> list[Hit]:
        """Papers ranked from liked papers, optional disliked ones and an optional `query` (its
        first MAX_QUESTION_CHARS characters) by `method` (ranker.RECOMMENDERS); the seeds never
        come back; no feedback pass unless `feedback=True`."""
        query = cut_question(query) if query and query.strip() else None
        check_recommender(method)
        liked, disliked = [self.row(pid) for pid in like], [self.row(pid) for pid in unlike]
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        vector = self.embed_query(query) if query else None
        return self.ranker.recommend(liked, disliked, query, vector, method, options)

    def scale(self, kind: str = PAPERS) -> Scale | None:
        """What a `kind` of cosine (calibration.QUESTIONS or PAPERS) is compared with here."""
        return scale_for(kind, self.artifacts.extras, self.manifest.model.model_id)

    @property
    def has_sentence_vectors(self) -> bool:
        """True when the index stores sentence vectors (built with --sentences, written)."""
        return SENTENCE_TABLE in self.artifacts.arrays

    def sentences(self, paper_id: str) -> Sentences:
        """Spans into the paper's abstract and unit vectors (k, d) float32 of its sentences:
        stored ones (built with --sentences), else embedded the first time and kept."""
        return self.part(load_sentences).of(self.row(paper_id))

    def sentences_of(self, paper_ids: Sequence[str]) -> list[Sentences]:
        """`sentences` of each paper; those not stored or kept yet embedded in one model run."""
        return self.part(load_sentences).of_rows([self.row(paper_id) for paper_id in paper_ids])

    @property
    def embedder(self) -> Embedder:
        return self.part(load_model)

    def check_model(self, model: str | None = None) -> ModelSpec:
        """The model `model` names (None: the one this index was built with), refused with
        the command to run when its vectors would not be comparable to this index's."""
        return comparable_model(self.manifest, self.artifacts.folder, model)

    default_mode = DEFAULT_MODE  # every index of format 2 holds BM25 (policy.DEFAULT_MODE)

    @property
    def lexical(self) -> LexicalIndex:
        """The BM25 channel, loaded on first use."""
        return self.part(load_bm25)

    def _options(self, options: QueryOptions | None, **changes: Any) -> QueryOptions:
        """`options` with `changes` applied and the mode resolved (None: default_mode)."""
        return QueryOptions.of(options, **changes).resolved(self.default_mode)


def _take_warmed(explorer: Explorer, warming: tuple[ModelSpec, Future[Embedder]],
                 spec: ModelSpec | None) -> None:
    """The model `start_warming` loaded becomes `explorer`'s (unless a build swapped the index
    meanwhile); BM25 loads meanwhile, and the id and author tables after, on WARMING's thread."""
    warmed, loading = warming
    _ = explorer.lexical  # BM25, which the first question needs too, meanwhile
    embedder = loading.result()
    if warmed == spec:  # else a build swapped the index meanwhile
        explorer._parts[load_model] = embedder
    WARMING.submit(explorer._rows.warm_up)  # the id table, while the page starts
    WARMING.submit(explorer.authors, 0)  # the author and title tables, likewise
