"""Explorer: open an index folder once, then search, walk to similar papers, recommend."""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from explorer.artifacts.layout import (
    FACETS,
    MAP,
    RELATIVE_ROWS,
    RELATIVE_SCORES,
    RELATIVES,
    SENTENCE_TABLE,
    SENTENCE_VECTORS,
    VERSIONS,
)
from explorer.artifacts.manifest import Manifest
from explorer.artifacts.store import Artifacts, load_artifacts, read_manifest, rebuild_hint
from explorer.batching import IN_PROGRESS, Batcher
from explorer.corpus.papers import Paper
from explorer.errors import IndexInvalidError
from explorer.features.explanations.vectors import Sentences, SentenceVectors
from explorer.features.topics.table import Topic, TopicTable
from explorer.features.versions.works import Works
from explorer.index.lexical import LexicalIndex, has_lexical, lexical_text
from explorer.index.pairs import Pairs
from explorer.model.embedder import (
    AUTO,
    BATCHED_QUESTION_CHARS,
    MAX_QUESTION_CHARS,
    Embedder,
    ModelSpec,
    cut_question,
)
from explorer.query.compatible import comparable_model
from explorer.query.hits import Hit, placed
from explorer.query.suggest import PaperRows
from explorer.ranking.authors import Named
from explorer.ranking.calibration import CONTEXT, PAPERS, QUESTIONS, Scale, relevance, scale_for
from explorer.ranking.channels import (
    Channel,
    DenseChannel,
    LexicalChannel,
    Ranked,
    Request,
    ScoreChannel,
)
from explorer.ranking.filters import FacetTable, Filters
from explorer.ranking.fusion import DENSE, LEXICAL, query_ceiling, rocchio, svm_scores
from explorer.ranking.options import QueryOptions
from explorer.ranking.pipeline import run
from explorer.ranking.policy import CHANNELS, DEFAULT_MODE, SCORES, plan_for
from explorer.settings import DEFAULT_INDEX_DIR, cores

__all__ = ["BATCHED_QUESTION_CHARS", "DEFAULT_RECOMMENDER", "MAX_QUESTION_CHARS", "RECOMMENDERS",
           "Explorer", "Filters", "Hit", "QueryOptions", "cut_question"]

RECOMMENDERS = ("centroid", "svm")
# The SVM recovered held-out references better than the centroid
# (studies/results/quality-acm-cr-2026-11-30.md).
DEFAULT_RECOMMENDER = "svm"
# Questions that sessions ask at once are answered in batches of at most this many, one batch
# per core at a time: a model run costs about 4.5 ms + 1.8 ms a question on one core, so a
# batch of 4 costs half a lone question's CPU each, and a bigger one keeps its last callers
# waiting on the others (benchmarks/README.md, "Concurrent answers").
ASKED_TOGETHER = 4
TAIL_CHARS = 40  # the end of what the model read, quoted in query_note
VERSION_ROOM = 10  # more rows ranked when versions fold, so that top_k works still fill a list


def _answering(verb: Callable) -> Callable:
    """The verb's calls count as questions in progress (batching.IN_PROGRESS)."""

    @functools.wraps(verb)
    def counted(self: Explorer, *args: Any, **kwargs: Any) -> Any:
        with IN_PROGRESS.answering():
            return verb(self, *args, **kwargs)

    return counted


def _warming(folder: Path, model: str | None, backend: str, batch: bool
             ) -> tuple[ModelSpec, Future[Embedder]]:
    """The model of the index in `folder` (as its manifest names it now), being loaded and
    warmed up on a thread of its own."""
    spec = comparable_model(read_manifest(folder), folder, model)

    def load() -> Embedder:
        embedder = Embedder(spec, backend=backend, batch=batch)
        embedder.warm_up()
        return embedder

    return spec, _WARMING.submit(load)


_WARMING = ThreadPoolExecutor(1, thread_name_prefix="explorer-warm")


class Explorer:
    """The engine behind the CLI, the app and notebooks. One Explorer may serve many threads at
    once (the app's sessions share it): queries share no mutable state, and the parts loaded
    on first use (model, BM25 channel, id table) are built once, under a lock held only then."""

    def __init__(self, artifacts: Artifacts, model: str | None = None,
                 backend: str = AUTO, *, batch: bool = True) -> None:
        self.artifacts = artifacts
        self.model = model
        self.backend = backend
        self.batch = batch
        self._embedder: Embedder | None = None
        self._rows = PaperRows(artifacts.papers)
        self._facets = FacetTable(artifacts.papers, artifacts.extras.get(FACETS), artifacts.arrays)
        self.works = Works(artifacts.papers, artifacts.extras.get(VERSIONS))
        self._lexical: LexicalIndex | None = None
        self._relatives: Pairs | None = None
        self._embedder_lock = threading.Lock()
        self._lexical_lock = threading.Lock()
        self._topics: TopicTable | None = None
        self._topics_lock = threading.Lock()
        self._sentences = SentenceVectors(self._stored_sentences, lambda row: self.papers[row].abstract,
                                          lambda texts: self.embedder.embed_sentences(texts))
        self._channels: dict[str, Channel] = {
            DENSE: DenseChannel(artifacts.index, batch), LEXICAL: LexicalChannel(lambda: self.lexical),
            SCORES: ScoreChannel()}
        # `search`es from several threads at once: each batch's questions embedded in one model
        # run, then ranked in turn, each caller freed as soon as its own answer is ready.
        self._asked = Batcher(self._search_all, ASKED_TOGETHER, cores()) if batch else None

    @classmethod
    def open(cls, folder: str | Path = DEFAULT_INDEX_DIR, model: str | None = None,
             backend: str = AUTO, *, batch: bool = True, warm: bool = False) -> Explorer:
        """Load and check the index in `folder`. The model loads on the first text query.

        `model` overrides the model recorded in the manifest; it must be the same model.
        `backend` picks the embedding runtime (embedder.BACKENDS; default: the fastest here).
        `batch`: questions that several threads ask at once share model runs and index scans
        (False: each runs alone; the answers are the same). `warm`: load the model now, on a
        thread while the index and BM25 load (Embedder.warm_up), not on the first question
        (the app). The model's compiled forms are all made before it returns: OpenVINO sets
        the process's locale while it compiles (runtimes._COMPILE_LOCK), which other threads see.
        """
        folder = Path(folder)
        warming = _warming(folder, model, backend, batch) if warm else None
        explorer = cls(load_artifacts(folder), model=model, backend=backend, batch=batch)
        spec = explorer.check_model(model) if model is not None or warming else None
        if warming is not None:
            warmed, loading = warming
            if explorer.has_lexical:
                _ = explorer.lexical  # BM25, which the first question needs too, meanwhile
            embedder = loading.result()
            if warmed == spec:  # else a build swapped the index meanwhile
                explorer._embedder = embedder
            _WARMING.submit(explorer._rows.warm_up)  # the id table, while the page starts
            _WARMING.submit(explorer.authors, 0)  # the author and title tables, likewise
        return explorer

    # -- what is loaded -------------------------------------------------------------
    @property
    def papers(self) -> list[Paper]:
        return self.artifacts.papers

    @property
    def manifest(self) -> Manifest:
        return self.artifacts.manifest

    @property
    def vectors(self) -> np.ndarray:
        """All paper vectors (n, d), read-only."""
        return self.artifacts.index.vectors()

    def paper(self, paper_id: str) -> Paper:
        return self.papers[self.row(paper_id)]

    def row(self, paper_id: str) -> int:
        """Position of a paper (or of a duplicate merged into it); suggests close ids if unknown."""
        return self._rows.row(paper_id)

    def facets(self) -> dict[str, list]:
        """Values present in the corpus: venues, sources (files), years."""
        return self._facets.values()

    def facet_counts(self) -> dict[str, list[list]]:
        """The corpus's categorical fields, {field: [[value, papers], ...] most papers first}
        (status, venue, year, track, primary_area, ...): what `Filters(facets=...)` takes."""
        return self._facets.columns.counts

    def year_counts(self) -> tuple[dict[int, int], int]:
        """Papers of the corpus per year, and the papers without a year."""
        return self._facets.year_counts()

    def authors(self, limit: int = 1000) -> list[str]:
        """Authors' names as the corpus writes them, most papers first (at most `limit`): the
        author filter's suggestions."""
        return self._facets.authors.suggestions(limit)

    # -- the verbs ------------------------------------------------------------------
    def embed_query(self, query: str) -> np.ndarray:
        """The query's vector (d,) (of its first MAX_QUESTION_CHARS characters)."""
        return self.embedder.embed_query(query)

    def query_note(self, query: str) -> str | None:
        """A note for the user when the question is longer than a question may be (it is cut
        to MAX_QUESTION_CHARS characters) or than the model reads (where the model stopped);
        None when all of it is read. Tokenises at most MAX_QUESTION_CHARS characters."""
        query = query.strip()
        reach, limit = self.embedder.reach(query), self.embedder.max_seq_length
        notes = []
        if len(query) > MAX_QUESTION_CHARS:
            notes.append(f"Your question is {len(query):,} characters: only its first "
                         f"{MAX_QUESTION_CHARS:,} are used.")
        if reach.tokens > limit:
            read = _tail(query[:reach.chars])
            notes.append(f"The model reads its first {limit} tokens, up to “…{read}”; the rest "
                         "counts only in word matching (lexical and hybrid modes).")
        return " ".join(notes) or None

    # Each verb takes `top_k` and `filters` (positional, as before) and the other options as
    # keywords (mode, diverse, feedback), or all of them as one QueryOptions: `options`, which
    # the keywords change (QueryOptions.of). The verbs delegate to `rank`.
    @_answering
    def search(self, query: str, top_k: int | None = None, filters: Filters | None = None, *,
               options: QueryOptions | None = None, **changes: Any) -> list[Hit]:
        """Papers ranked for `query` ([] when empty; its first MAX_QUESTION_CHARS characters:
        query_note says when it is cut). Default mode: `default_mode`; hybrid runs the
        pseudo-relevance feedback pass unless `feedback=False` (policy.DEFAULT_FEEDBACK)."""
        if not query or not query.strip():
            return []
        query = cut_question(query)
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        if self._asked is not None and len(query) <= BATCHED_QUESTION_CHARS:
            return self._asked((query, options))  # (a long one alone: embedder.py says why)
        return next(self._search_all([(query, options)]))

    def _search_all(self, asked: list[tuple[str, QueryOptions]]) -> Iterator[list[Hit]]:
        """`search`es asked at once -> each one's hits, yielded as each is ranked; the
        questions' vectors (lexical mode needs none) come from one model run."""
        texts = [query for query, options in asked if options.mode != LEXICAL]
        vectors = iter(self.embedder.embed_asked_together(texts))
        for query, options in asked:
            vector = None if options.mode == LEXICAL else next(vectors)
            yield self._question(query, vector, options)

    @_answering
    def search_vector(self, vector: np.ndarray, top_k: int | None = None,
                      filters: Filters | None = None, exclude: Iterable[int] = (), *,
                      text: str = "", options: QueryOptions | None = None,
                      **changes: Any) -> list[Hit]:
        """Papers ranked by inner product with `vector` (d,), skipping rows in `exclude`.

        Give the query's `text` too (its first MAX_QUESTION_CHARS characters are read) to rank
        it with the default mode (hybrid fuses BM25); without it the ranking is dense whatever
        the mode."""
        text = cut_question(text)
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        if not text:
            return self.rank(text, vector, exclude=exclude,
                             options=dataclasses.replace(options, mode=DENSE))
        return self._question(text, vector, options, exclude)

    def named(self, question: str, filters: Filters | None = None) -> Named | None:
        """What `question` names when it is exactly (folded) a paper's title or an author's
        name with a given name or initial (ranking/authors.py), its papers cut to `filters`;
        None otherwise. `search` puts these papers first."""
        found = self._facets.authors.named(" ".join(cut_question(question).split()))
        allowed = self._facets.allowed_rows(filters) if found is not None else None
        if found is None or allowed is None:
            return found
        rows = tuple(int(row) for row in np.intersect1d(found.rows, allowed))
        return dataclasses.replace(found, rows=rows) if rows else None

    def _question(self, text: str, vector: np.ndarray | None, options: QueryOptions,
                  exclude: Iterable[int] = ()) -> list[Hit]:
        """`rank` for a question, the papers it names (`named`) first, in their own ranking."""
        named = self.named(text, options.filters)
        if named is None:
            return self.rank(text, vector, exclude=exclude, options=options)
        first = self.rank(text, vector, exclude=exclude, options=options, within=named.rows)
        room = options.top_k - len(first)
        rest = self.rank(text, vector, exclude={*exclude, *named.rows}, options=dataclasses.replace(
            options, top_k=room)) if room > 0 else []
        return [dataclasses.replace(hit, rank=rank) for rank, hit in enumerate(first + rest, 1)]

    @_answering
    def similar(self, paper_id: str, top_k: int | None = None, filters: Filters | None = None,
                *, options: QueryOptions | None = None, **changes: Any) -> list[Hit]:
        """Nearest papers to `paper_id`, never the paper itself (nor its merged duplicates)."""
        row = self.row(paper_id)
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        text = lexical_text(self.papers[row]) if options.mode != DENSE else ""
        return self.rank(text, self.vectors[row], exclude={row}, options=options, kind=PAPERS,
                         paper_query=True)

    @_answering
    def similar_to_text(self, text: str, top_k: int | None = None,
                        filters: Filters | None = None, *, options: QueryOptions | None = None,
                        **changes: Any) -> list[Hit]:
        """Papers most like a document that is not in the index (e.g. a title and abstract):
        the text (its first MAX_QUESTION_CHARS characters) is embedded as a document and, in
        lexical/hybrid mode, matched by BM25."""
        if not text or not text.strip():
            return []
        text = cut_question(text)
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        vector = None if options.mode == LEXICAL else self.embedder.embed_documents([text])[0]
        return self.rank(text, vector, options=options, kind=PAPERS, paper_query=True)

    @_answering
    def rank(self, text: str, vector: np.ndarray | None, top_k: int | None = None,  # noqa: PLR0913
             filters: Filters | None = None, exclude: Iterable[int] = (), *,
             dense_scores: np.ndarray | None = None, options: QueryOptions | None = None,
             kind: str = QUESTIONS, paper_query: bool = False,
             within: Sequence[int] | None = None, **changes: Any) -> list[Hit]:
        """The ranking behind every verb: `text` feeds BM25, `vector` (d,) the dense channel
        (and is what hits' cosines are to, placed on `scale(kind)`; a hit's score is what the
        list is ordered by: pipeline.run); `paper_query`: the text is one paper's
        (policy.plan_for ranks it as a paper, not a question); rows in `exclude` never come
        back; `dense_scores` (n,), when given, replace the vector search as the dense channel
        (e.g. an SVM's; no feedback). What runs is decided by policy.plan_for (channels,
        fusion, feedback, depth) and carried out by pipeline.run. `within`: only
        these rows may come back."""
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        scale = self.scale(kind)
        judged = (kind == QUESTIONS and options.mode != LEXICAL and scale is not None
                  and scale.labelled)  # a question's hits get their chance of relevance
        fold = options.versions and self.works.any()  # room for the versions folded away
        asked = dataclasses.replace(options, top_k=max(options.top_k, CONTEXT if judged else 0)
                                    + (VERSION_ROOM if fold else 0))  # judged: in context
        plan = plan_for(options.mode, asked, scores=dense_scores is not None,
                        paper_query=paper_query, papers=len(self.papers))
        request = Request(text, vector, dense_scores,
                          ceiling=functools.cache(lambda: query_ceiling(self.lexical, text)),
                          reference=_reference(scale))
        channels = [self._channels[name] for name in plan.channels]
        blocked = self._facets.blocked(options.filters, set(exclude), within)
        rows, scores = run(plan, channels, request, blocked, self.vectors)
        kept, versions = self.works.fold(rows) if fold else (range(len(rows)), [()] * len(rows))
        rows = np.asarray(rows, dtype=np.int64)[list(kept)]
        scores = np.asarray(scores)[list(kept)]
        chances = (relevance(scores[:max(options.top_k, CONTEXT)], scale.quantiles,
                             cosines=_context(self.vectors, rows, vector), absent=scale.absent)
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

    def candidates(self, channel: str, request: Request, depth: int,
                   filters: Filters | None = None, exclude: Iterable[int] = ()) -> Ranked:
        """The `depth` best rows of one ranking channel (policy.CHANNELS: dense, lexical,
        scores) for `request`, keeping out `filters` and `exclude` -> (rows, scores)."""
        if channel not in self._channels:
            raise ValueError(f"unknown channel {channel!r}; expected one of {CHANNELS}")
        return self._channels[channel].top(request, depth, self._facets.blocked(filters, exclude))

    @_answering
    def recommend(self, like: Sequence[str], unlike: Sequence[str] = (), query: str | None = None,
                  top_k: int | None = None, filters: Filters | None = None, *,
                  method: str = DEFAULT_RECOMMENDER, options: QueryOptions | None = None,
                  **changes: Any) -> list[Hit]:
        """Rank papers from several liked papers, optional disliked ones and optional text.

        `method` "centroid" (Rocchio: mean of liked vectors, minus half the mean of disliked
        ones, plus the query's vector) or "svm" (a linear SVM per request, liked papers against
        all others, as arxiv-sanity does; the query's cosine is added). With the centroid,
        lexical/hybrid mode also matches the liked papers' words by BM25. Seeds never come
        back; no feedback pass unless `feedback=True`. `query`: its first MAX_QUESTION_CHARS
        characters."""
        query = cut_question(query) if query else query
        if method not in RECOMMENDERS:
            raise ValueError(f"unknown recommender {method!r}; expected one of {RECOMMENDERS}")
        liked = [self.row(pid) for pid in like]
        disliked = [self.row(pid) for pid in unlike]
        if not liked and not (query and query.strip()):
            raise ValueError("recommend needs at least one liked paper or a query")
        options = self._options(options, top_k=top_k, filters=filters, **changes)
        options = dataclasses.replace(options, feedback=bool(options.feedback))
        query_vector = self.embed_query(query) if query and query.strip() else None
        target = rocchio(query_vector, self.vectors[liked], 1.0, disliked=self.vectors[disliked])
        words = [lexical_text(self.papers[row]) for row in liked] + [query or ""]
        text = " ".join(words) if options.mode != DENSE else ""
        scores = None
        if method == "svm" and liked and options.mode != LEXICAL:
            scores = svm_scores(self.vectors, liked, disliked)
            if query_vector is not None:
                scores = scores + self.vectors @ query_vector
        return self.rank(text, target, exclude=set(liked) | set(disliked), dense_scores=scores,
                         options=options, kind=PAPERS if liked else QUESTIONS)

    def scale(self, kind: str = PAPERS) -> Scale | None:
        """What a `kind` of cosine (calibration.QUESTIONS or PAPERS) is compared with in this
        corpus (a question's: with paper pairs in an index built before question scores)."""
        return scale_for(kind, self.artifacts.extras)

    def reference(self, kind: str = PAPERS) -> tuple[float, ...]:
        """The random cosines a `kind` of cosine is placed among (quantiles at percentiles
        0..100) when this index stores them for that kind; () when it does not (an index built
        before question scores were stored has only paper pairs)."""
        return _reference(self.scale(kind))

    def percentile(self, score: float, kind: str = PAPERS) -> float | None:
        """Share of random pairs' cosines (`scale(kind)`) in this corpus below `score` (0-100)."""
        scale = self.scale(kind)
        return None if scale is None else scale.percentile(score)

    # -- internals ------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._embedder_lock:  # two first queries at once load one model
                if self._embedder is None:
                    self._embedder = Embedder(self.check_model(self.model),
                                              backend=self.backend, batch=self.batch)
        return self._embedder

    def check_model(self, model: str | None = None) -> ModelSpec:
        """The model `model` names (None: the one this index was built with), refused with
        the command to run when its vectors would not be comparable to this index's."""
        return comparable_model(self.manifest, self.artifacts.folder, model)

    @property
    def has_lexical(self) -> bool:
        """True when the index holds the BM25 channel (built by this version or later)."""
        return has_lexical(self.artifacts.arrays)

    @property
    def default_mode(self) -> str:
        """DEFAULT_MODE when the index supports it, else dense."""
        return DEFAULT_MODE if self.has_lexical else DENSE

    @property
    def lexical(self) -> LexicalIndex:
        """The BM25 channel; refused with the command to run when the index predates it."""
        if self._lexical is None:
            if not self.has_lexical:
                raise IndexInvalidError(
                    f"The index in {self.artifacts.folder} has no lexical (BM25) channel: it was "
                    f"built by an older version. Rebuild it: "
                    f"`{rebuild_hint(self.artifacts.folder, self.manifest)}`.")
            with self._lexical_lock:
                if self._lexical is None:
                    self._lexical = LexicalIndex.from_arrays(self.artifacts.arrays,
                                                             len(self.papers))
        return self._lexical

    def _options(self, options: QueryOptions | None, **changes: Any) -> QueryOptions:
        """`options` with `changes` applied and the mode resolved (None: default_mode)."""
        options = QueryOptions.of(options, **changes)
        if options.mode is None:
            options = dataclasses.replace(options, mode=self.default_mode)
        return options

    # -- what the app and the explanations read (the storage stays behind the engine) --------
    @property
    def corpus_map(self) -> dict[str, Any] | None:
        """The map stored at build time ({"x", "y", "topic"}: one entry per paper; "topics":
        [{"id", "label", "terms", "size"}]), or None when the index has none for these papers."""
        data = self.artifacts.extras.get(MAP)
        if not data or len(data.get("x", [])) != len(self.papers):
            return None
        return data

    @property
    def topic_table(self) -> TopicTable:
        """The stored topics (features/topics/table.py), read on first use; empty without a map."""
        if self._topics is None:
            with self._topics_lock:
                if self._topics is None:
                    self._topics = TopicTable(self.corpus_map, self.papers)
        return self._topics

    def topics(self, level: str | None = None) -> list[Topic]:
        """The corpus's topics: broad areas ("3") and the finer topics in each ("3.2"), or only
        those of `level` ("area", "topic")."""
        return self.topic_table.topics(level)

    def topic(self, topic_id: str) -> Topic:
        """One topic (UnknownTopicError when the index has none of that id)."""
        return self.topic_table.topic(topic_id)

    def topic_papers(self, topic_id: str, top_k: int | None = None) -> list[Paper]:
        """The topic's papers, most central (closest to the topic's centre) first."""
        return self.topic_table.papers(topic_id, top_k)

    @property
    def stored_relatives(self) -> tuple[Pairs, float] | None:
        """The close pairs stored at build time (features/relatives/stage.py) and the lowest cosine
        stored; None for an index built before them (features/relatives/query.py reads this)."""
        arrays, found = self.artifacts.arrays, self.artifacts.extras.get(RELATIVES)
        if RELATIVE_ROWS not in arrays or RELATIVE_SCORES not in arrays or not isinstance(
                found, dict) or not isinstance(found.get("floor"), (int, float)):
            return None
        if self._relatives is None:  # two threads may both make it: the same, and immutable
            self._relatives = Pairs(np.asarray(arrays[RELATIVE_ROWS], dtype=np.int64),
                                    np.asarray(arrays[RELATIVE_SCORES], dtype=np.float32))
        return self._relatives, float(found["floor"])

    @property
    def has_sentence_vectors(self) -> bool:
        """True when the index stores sentence vectors (not built with --no-sentences, and its
        build has written them: they come after the index)."""
        return SENTENCE_TABLE in self.artifacts.arrays

    def sentences(self, paper_id: str) -> Sentences:
        """Spans into the paper's abstract and unit vectors (k, d) float32 of its sentences:
        stored ones, or (index without sentence vectors) embedded the first time and kept."""
        return self._sentences.of(self.row(paper_id))

    def sentences_of(self, paper_ids: Sequence[str]) -> list[Sentences]:
        """`sentences` of each paper; those not stored or kept yet embedded in one model run."""
        return self._sentences.of_rows([self.row(paper_id) for paper_id in paper_ids])

    def _stored_sentences(self, row: int) -> Sentences | None:
        if not self.has_sentence_vectors:
            return None
        table = self.artifacts.arrays[SENTENCE_TABLE]
        lo, hi = np.searchsorted(table[:, 0], [row, row + 1])
        spans = [(int(s), int(e)) for _, s, e in table[lo:hi]]
        return spans, self.artifacts.arrays[SENTENCE_VECTORS][lo:hi].astype(np.float32)


def _tail(text: str) -> str:
    """The last words of `text`, at most TAIL_CHARS characters (whole words when it can)."""
    tail = text[-TAIL_CHARS:]
    space = tail.find(" ")
    return tail[space + 1:] if len(text) > TAIL_CHARS and 0 <= space < len(tail) - 1 else tail


def _context(vectors: np.ndarray, rows: np.ndarray, vector: np.ndarray | None
             ) -> np.ndarray | None:
    """The cosines (<= CONTEXT,) of a list's first CONTEXT rows with the question's `vector`."""
    if vector is None:
        return None
    return vectors[rows[:CONTEXT]] @ np.asarray(vector, dtype=np.float32)


def _reference(scale: Scale | None) -> tuple[float, ...]:
    """A Scale's quantiles when they are of the hits' own kind (labelled), else ()."""
    return scale.quantiles if scale is not None and scale.labelled else ()
