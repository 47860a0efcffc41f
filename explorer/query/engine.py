"""Explorer: open an index folder once, then search, walk to similar papers, recommend."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from explorer.artifacts.manifest import Manifest
from explorer.artifacts.store import Artifacts, load_artifacts, rebuild_hint
from explorer.corpus.papers import Paper
from explorer.corpus.sentences import split_sentences
from explorer.errors import IndexInvalidError, ModelNotFoundError, UnknownPaperError
from explorer.index.lexical import LexicalIndex, has_lexical, lexical_text
from explorer.model.embedder import AUTO, BUNDLED_NAMES, Embedder, resolve_model
from explorer.query.feedback import feedback_channel
from explorer.query.hits import FacetTable, Filters, Hit
from explorer.query.ranking import (
    CANDIDATES,
    DENSE,
    DENSE_WEIGHT,
    HYBRID,
    LEXICAL,
    blend_fusion,
    centroid_target,
    check_mode,
    mmr,
    svm_scores,
    top_rows,
)
from explorer.query.suggest import IdTable, close_ids

# The ranking used when none is asked for, once an index has the lexical channel. Chosen by
# `explorer eval` on ACM-CR slices (benchmarks/results/quality-acm-cr-2026-11-30.md): hybrid
# beat both lexical and dense in nDCG@10 on all three query sets, on 3k and 10k papers.
DEFAULT_MODE = HYBRID
# Hybrid runs a pseudo-relevance feedback pass unless told not to (explorer/feedback.py): it
# won in 2-fold cross-validation on full ACM-CR (benchmarks/results/quality-acm-cr-prf.md).
DEFAULT_FEEDBACK = True
RECOMMENDERS = ("centroid", "svm")
# Same results file: the per-request SVM recovered held-out references better than the centroid.
DEFAULT_RECOMMENDER = "svm"


class Explorer:
    """The engine behind the CLI, the app and notebooks. One Explorer may serve many threads at
    once (the app's sessions share it): queries share no mutable state, and the parts loaded
    on first use (model, BM25 channel, id table) are built once, under a lock held only then."""

    def __init__(self, artifacts: Artifacts, model: str | None = None,
                 backend: str = AUTO) -> None:
        self.artifacts = artifacts
        self.model = model
        self.backend = backend
        self._embedder: Embedder | None = None
        self._rows = {p.paper_id: row for row, p in enumerate(artifacts.papers)}
        for row, paper in enumerate(artifacts.papers):
            for alias in paper.aliases:
                self._rows.setdefault(alias, row)
        self._facets = FacetTable(artifacts.papers)
        self._lexical: LexicalIndex | None = None
        self._ids: IdTable | None = None
        self._embedder_lock = threading.Lock()
        self._lexical_lock = threading.Lock()
        self._ids_lock = threading.Lock()

    @classmethod
    def open(cls, folder: str | Path = "embeddings", model: str | None = None,
             backend: str = AUTO) -> Explorer:
        """Load and check the index in `folder`. The model loads on the first text query.

        `model` overrides the model recorded in the manifest; it must be the same model.
        `backend` picks the embedding runtime (embedder.BACKENDS; default: the fastest here).
        """
        explorer = cls(load_artifacts(Path(folder)), model=model, backend=backend)
        if model is not None:
            explorer._check_model(model)
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
        try:
            return self._rows[paper_id]
        except KeyError:
            close = close_ids(str(paper_id), self._id_table())
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise UnknownPaperError(
                f"No paper with id {paper_id!r} in this index.{hint} "
                "Find ids with `explorer search QUERY`."
            ) from None

    def facets(self) -> dict[str, list]:
        """Values present in the corpus: venues, sources (files), years."""
        return self._facets.values()

    # -- the verbs ------------------------------------------------------------------
    def embed_query(self, query: str) -> np.ndarray:
        """The query's vector (d,)."""
        return self.embedder.embed_query(query)

    def query_note(self, query: str) -> str | None:
        """A note for the user when the query is longer than the model reads."""
        tokens = self.embedder.token_count(query)
        limit = self.embedder.max_seq_length
        if tokens > limit:
            return f"query is {tokens} tokens; the model reads the first {limit}, the rest is ignored"
        return None

    def search(self, query: str, top_k: int = 10, filters: Filters | None = None,
               mode: str | None = None, diverse: bool = False,
               feedback: bool | None = None) -> list[Hit]:
        """Papers ranked for `query` ([] when empty). `mode`: lexical, dense or hybrid
        (default: `default_mode`); `diverse` re-ranks with MMR so near-copies spread out;
        `feedback` (hybrid only, default DEFAULT_FEEDBACK) adds a pseudo-relevance pass."""
        if not query or not query.strip():
            return []
        mode = self._mode(mode)
        vector = None if mode == LEXICAL else self.embed_query(query)
        return self.rank(query, vector, top_k, filters, mode=mode, diverse=diverse,
                         feedback=feedback)

    def search_vector(self, vector: np.ndarray, top_k: int = 10,
                      filters: Filters | None = None, exclude: Iterable[int] = (), *,
                      text: str = "", mode: str | None = None) -> list[Hit]:
        """Papers ranked by inner product with `vector` (d,), skipping rows in `exclude`.

        Give the query's `text` too to rank it with the default mode (hybrid fuses BM25)."""
        if not text:
            return self.rank("", vector, top_k, filters, exclude, mode=DENSE)
        return self.rank(text, vector, top_k, filters, exclude, mode=self._mode(mode))

    def similar(self, paper_id: str, top_k: int = 10, filters: Filters | None = None,
                mode: str | None = None, diverse: bool = False,
                feedback: bool | None = None) -> list[Hit]:
        """Nearest papers to `paper_id`, never the paper itself (nor its merged duplicates)."""
        row = self.row(paper_id)
        mode = self._mode(mode)
        text = lexical_text(self.papers[row]) if mode != DENSE else ""
        return self.rank(text, self.vectors[row], top_k, filters, exclude={row}, mode=mode,
                         diverse=diverse, feedback=feedback)

    def similar_to_text(self, text: str, top_k: int = 10, filters: Filters | None = None,
                        mode: str | None = None, diverse: bool = False,
                        feedback: bool | None = None) -> list[Hit]:
        """Papers most like a document that is not in the index (e.g. a title and abstract):
        the text is embedded as a document and, in lexical/hybrid mode, matched by BM25."""
        if not text or not text.strip():
            return []
        mode = self._mode(mode)
        vector = None if mode == LEXICAL else self.embedder.embed_documents([text])[0]
        return self.rank(text, vector, top_k, filters, mode=mode, diverse=diverse,
                         feedback=feedback)

    def rank(self, text: str, vector: np.ndarray | None, top_k: int = 10,
             filters: Filters | None = None, exclude: Iterable[int] = (), *,
             mode: str = DENSE, diverse: bool = False,
             dense_scores: np.ndarray | None = None, feedback: bool | None = None) -> list[Hit]:
        """The ranking behind every verb: `text` feeds BM25, `vector` (d,) the dense channel.

        Hybrid blends the top CANDIDATES of each channel (min-max normalised scores, equal
        weights; see ranking.blend_fusion), then (`feedback`, default DEFAULT_FEEDBACK)
        re-scores those candidates with the query vector moved towards the first pass's best
        papers and blends again (feedback.py); hits carry the cosine to `vector` as their
        score (BM25 score in lexical mode). `dense_scores` (n,), when given, replaces the
        vector search as the dense channel (e.g. an SVM's; no feedback then)."""
        check_mode(mode)
        exclude = set(exclude)
        depth = max(CANDIDATES, top_k) if (mode == HYBRID or diverse) else top_k
        if mode == LEXICAL:
            rows, scores = self._lexical_rows(text, depth, filters, exclude)
        elif dense_scores is not None:
            shifted = dense_scores - dense_scores.min() + 1e-6  # top_rows keeps scores > 0
            rows, scores = top_rows(shifted, depth, self._facets.blocked(filters, exclude))
        else:
            rows, scores = self._dense_rows(vector, depth, filters, exclude)
        if mode == HYBRID:
            lexical = self._lexical_rows(text, depth, filters, exclude)
            weights = [DENSE_WEIGHT, 1 - DENSE_WEIGHT]
            dense = (rows, scores)
            rows, scores = blend_fusion([dense, lexical], weights)
            if (DEFAULT_FEEDBACK if feedback is None else feedback) and dense_scores is None:
                dense = feedback_channel(self.vectors, vector, rows, [dense[0], lexical[0]], depth)
                rows, scores = blend_fusion([dense, lexical], weights)
        if diverse and len(rows):
            order = mmr(scores, self.vectors[rows], top_k)
            rows, scores = rows[order], scores[order]
        rows, scores = rows[:top_k], scores[:top_k]
        if mode == LEXICAL:
            return [self._hit(i, float(s), int(r), cosine=False)
                    for i, (s, r) in enumerate(zip(scores, rows), start=1)]
        cosines = self.vectors[rows] @ np.asarray(vector, dtype=np.float32)
        return [self._hit(i, float(c), int(r)) for i, (c, r) in enumerate(zip(cosines, rows), 1)]

    def recommend(self, like: Sequence[str], unlike: Sequence[str] = (), query: str | None = None,
                  top_k: int = 10, filters: Filters | None = None,
                  method: str = DEFAULT_RECOMMENDER, diverse: bool = False,
                  mode: str | None = None) -> list[Hit]:
        """Rank papers from several liked papers, optional disliked ones and optional text.

        `method` "centroid" (Rocchio: mean of liked vectors, minus half the mean of disliked
        ones, plus the query's vector) or "svm" (a linear SVM per request, liked papers against
        all others, as arxiv-sanity does; the query's cosine is added). With the centroid,
        lexical/hybrid `mode` also matches the liked papers' words by BM25. Seeds never come back.
        """
        if method not in RECOMMENDERS:
            raise ValueError(f"unknown recommender {method!r}; expected one of {RECOMMENDERS}")
        liked = [self.row(pid) for pid in like]
        disliked = [self.row(pid) for pid in unlike]
        if not liked and not (query and query.strip()):
            raise ValueError("recommend needs at least one liked paper or a query")
        query_vector = self.embed_query(query) if query and query.strip() else None
        target = centroid_target(self.vectors[liked], self.vectors[disliked], query_vector)
        exclude = set(liked) | set(disliked)
        mode = self._mode(mode)
        words = [lexical_text(self.papers[row]) for row in liked] + [query or ""]
        text = " ".join(words) if mode != DENSE else ""
        scores = None
        if method == "svm" and liked and mode != LEXICAL:
            scores = svm_scores(self.vectors, liked, disliked)
            if query_vector is not None:
                scores = scores + self.vectors @ query_vector
        return self.rank(text, target, top_k, filters, exclude, mode=mode, diverse=diverse,
                         dense_scores=scores, feedback=False)

    def percentile(self, score: float) -> float | None:
        """Share of random paper pairs in this corpus less similar than `score` (0-100)."""
        quantiles = self.artifacts.extras.get("pair_quantiles") or []
        if not quantiles:
            return None
        position = bisect.bisect_left(quantiles, score)
        return round(100.0 * min(position, len(quantiles) - 1) / (len(quantiles) - 1), 1)

    # -- internals ------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._embedder_lock:  # two first queries at once load one model
                if self._embedder is None:
                    self._embedder = Embedder(self._check_model(self.model),
                                              backend=self.backend)
        return self._embedder

    def _id_table(self) -> IdTable:
        if self._ids is None:
            with self._ids_lock:
                if self._ids is None:
                    self._ids = IdTable.of(self._rows)
        return self._ids

    def _check_model(self, model: str | None):
        recorded = self.manifest.model
        if model is None:
            name = recorded.model_id or ""
            path = name if recorded.path is None else recorded.path
            model = "default" if name.lower() in BUNDLED_NAMES else path
        try:
            spec = resolve_model(model)
        except ModelNotFoundError as exc:
            raise ModelNotFoundError(
                f"{exc} (this index was built with {recorded.model_id})") from None
        hint = f"`{rebuild_hint(self.artifacts.folder, self.manifest)} --model {model}`"
        if spec.fingerprint != recorded.fingerprint and spec.model_id == recorded.model_id:
            raise IndexInvalidError(
                f"This index was built with another version of {spec.model_id} (the weights' "
                f"fingerprint changed: a new model package, changed weights, or an index from "
                f"before the package version was part of it); their vectors are not "
                f"comparable. Rebuild once: {hint}.")
        if spec.fingerprint != recorded.fingerprint:
            raise IndexInvalidError(
                f"This index was built with model {recorded.model_id} but {spec.model_id} was "
                f"requested (or that folder's weights changed since); their vectors are not "
                f"comparable. Use the same model, or rebuild: {hint}."
            )
        return spec

    def _hit(self, rank: int, score: float, row: int, cosine: bool = True) -> Hit:
        return Hit(rank=rank, score=score, percentile=self.percentile(score) if cosine else None,
                   paper=self.papers[row])

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

    def _mode(self, mode: str | None) -> str:
        return self.default_mode if mode is None else check_mode(mode)

    def _dense_rows(self, vector: np.ndarray, depth: int, filters: Filters | None,
                    exclude: set[int]) -> tuple[np.ndarray, np.ndarray]:
        """Top `depth` rows by inner product with `vector` (d,) -> (rows, scores), best first."""
        allowed = self._facets.allowed_rows(filters)
        if allowed is not None and exclude:
            allowed = np.setdiff1d(allowed, np.fromiter(exclude, dtype=np.int64))
        if allowed is not None and len(allowed) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        extra = 0 if allowed is not None else len(exclude)
        scores, rows = self.artifacts.index.search(vector, depth + extra, allowed)
        keep = [i for i, row in enumerate(rows[0]) if row >= 0 and row not in exclude][:depth]
        return rows[0][keep].astype(np.int64), scores[0][keep]

    def _lexical_rows(self, text: str, depth: int, filters: Filters | None,
                      exclude: set[int]) -> tuple[np.ndarray, np.ndarray]:
        """Top `depth` rows by BM25 score for `text` -> (rows, scores); only rows that match."""
        return self.lexical.top(text, depth, self._facets.blocked(filters, exclude))

    # -- what the app and the explanations read (the storage stays behind the engine) --------
    @property
    def corpus_map(self) -> dict[str, Any] | None:
        """The map stored at build time ({"x", "y", "topic"}: one entry per paper; "topics":
        [{"id", "label", "terms", "size"}]), or None when the index has none for these papers."""
        data = self.artifacts.extras.get("map")
        if not data or len(data.get("x", [])) != len(self.papers):
            return None
        return data

    @property
    def has_sentence_vectors(self) -> bool:
        """True when the index stores sentence vectors (not built with --no-sentences)."""
        return "sentence_table" in self.artifacts.arrays

    def sentences(self, paper_id: str) -> tuple[list[tuple[int, int]], np.ndarray]:
        """Spans into the paper's abstract and unit vectors (k, d) float32 of its sentences:
        stored ones, or (index without sentence vectors) embedded now."""
        row = self.row(paper_id)
        if self.has_sentence_vectors:
            table = self.artifacts.arrays["sentence_table"]
            lo, hi = np.searchsorted(table[:, 0], [row, row + 1])
            spans = [(int(s), int(e)) for _, s, e in table[lo:hi]]
            return spans, self.artifacts.arrays["sentence_vectors"][lo:hi].astype(np.float32)
        abstract = self.papers[row].abstract
        spans = split_sentences(abstract)
        if not spans:
            return [], np.zeros((0, 0), dtype=np.float32)
        return spans, self.embedder.embed_documents([abstract[s:e] for s, e in spans])
