"""Why a paper matched: its best sentences for a query, or sentence pairs tying two papers.

Computed from each paper's sentence vectors: stored by a build with --sentences, else embedded
the first time a paper is explained and kept (features/explanations/vectors.py); `explain_hits` embeds
the sentences of all its hits in one model run.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Protocol

import numpy as np

from explorer.corpus.markup import readable
from explorer.corpus.papers import Paper
from explorer.corpus.words import STOP_WORDS
from explorer.index.lexical import LexicalIndex, Tokenizer
from explorer.index.lexical import lexical_text as _indexed_text
from explorer.model.embedder import cut_question

_TERM = re.compile(r"[A-Za-z][A-Za-z0-9-]{2,}")


class Explainable(Protocol):
    """What an explanation reads of an index (an Explorer is one)."""

    @property
    def lexical(self) -> LexicalIndex: ...

    def paper(self, paper_id: str) -> Paper: ...

    def embed_query(self, query: str) -> np.ndarray: ...

    def sentences(self, paper_id: str) -> tuple[list[tuple[int, int]], np.ndarray]: ...

    def sentences_of(self, paper_ids: Sequence[str]) -> list: ...


@dataclass(frozen=True)
class SentenceMatch:
    """A sentence of `paper.abstract[start:end]` and its cosine to the query or partner."""

    text: str
    start: int
    end: int
    score: float


@dataclass(frozen=True)
class MatchExplanation:
    sentences: list[SentenceMatch]
    shared_terms: list[str]

    def to_dict(self) -> dict:
        return {"sentences": [asdict(s) for s in self.sentences],
                "shared_terms": list(self.shared_terms)}


@dataclass(frozen=True)
class PairExplanation:
    pairs: list[tuple[SentenceMatch, SentenceMatch, float]]
    shared_terms: list[str]

    def to_dict(self) -> dict:
        return {"pairs": [{"sentence": asdict(a), "other_sentence": asdict(b), "score": score}
                          for a, b, score in self.pairs],
                "shared_terms": list(self.shared_terms)}


def explain_match(explorer: Explainable, query_vector: np.ndarray, paper_id: str,
                  top_k: int = 2, query: str = "") -> MatchExplanation:
    """The `top_k` sentences of the paper closest to `query_vector` (d,), best first, and the
    key terms the paper shares with `query` text (its first MAX_QUESTION_CHARS characters)."""
    paper = explorer.paper(paper_id)
    terms = shared_terms(cut_question(query), _indexed_text(paper), idf=_idf(explorer))
    spans, vectors = explorer.sentences(paper_id)
    if not spans:
        return MatchExplanation([], terms)
    scores = vectors @ np.asarray(query_vector, dtype=np.float32)
    best = np.argsort(-scores)[:top_k]
    matches = [_match(paper.abstract, spans[i], float(scores[i])) for i in best]
    return MatchExplanation(matches, terms)


def explain_pair(explorer: Explainable, paper_id: str, other_id: str, top_k: int = 3
                 ) -> PairExplanation:
    """The `top_k` most similar (sentence of paper, sentence of other) pairs, best first; each
    sentence is used once."""
    paper, other = explorer.paper(paper_id), explorer.paper(other_id)
    spans_a, vectors_a = explorer.sentences(paper_id)
    spans_b, vectors_b = explorer.sentences(other_id)
    pairs: list[tuple[SentenceMatch, SentenceMatch, float]] = []
    if spans_a and spans_b:
        scores = vectors_a @ vectors_b.T
        used_a: set[int] = set()
        used_b: set[int] = set()
        for flat in np.argsort(-scores, axis=None):
            i, j = divmod(int(flat), scores.shape[1])
            if i in used_a or j in used_b:
                continue
            used_a.add(i)
            used_b.add(j)
            score = float(scores[i, j])
            pairs.append((_match(paper.abstract, spans_a[i], score),
                          _match(other.abstract, spans_b[j], score), score))
            if len(pairs) == top_k:
                break
    terms = shared_terms(_indexed_text(paper), _indexed_text(other), idf=_idf(explorer))
    return PairExplanation(pairs, terms)


def shared_terms(left: str, right: str, limit: int = 6,
                 idf: Callable[[str], float] | None = None) -> list[str]:
    """Content words of `right` that `left` also has, as `right` spells them.

    With `idf` (the BM25 inverse document frequency of the corpus) words match by stem
    ("ranking" ~ "ranked") and the rarest come first; without it, exact words, longest first."""
    if idf is None:
        found = _terms(left) & _terms(right)
        return sorted(found, key=lambda term: (-len(term), term))[:limit]
    stem = _stemmer()
    left_stems = {stem(w) for w in _terms(left)}
    by_stem: dict[str, str] = {}
    for word in _terms(right):
        key = stem(word)
        if key in left_stems and (key not in by_stem or len(word) < len(by_stem[key])):
            by_stem[key] = word
    ranked = sorted(by_stem.values(), key=lambda word: (-idf(word), word))
    return [word for word in ranked if idf(word) > 0][:limit]


def _terms(text: str) -> set[str]:
    words = {w.lower() for w in _TERM.findall(text)}
    return {w for w in words if w not in STOP_WORDS}


def _idf(explorer: Explainable) -> Callable[[str], float] | None:
    return explorer.lexical.idf


@functools.lru_cache(maxsize=1)
def _stemmer() -> Callable[[str], str]:
    return Tokenizer().stem


def _match(abstract: str, span: tuple[int, int], score: float) -> SentenceMatch:
    start, end = span
    return SentenceMatch(text=abstract[start:end], start=start, end=end, score=score)


def explain_hits(explorer: Explainable, hits, *, query: str = "", paper_id: str | None = None
                 ) -> list[dict]:
    """One explanation dict per hit: for a search (`query`) its best sentences and shared
    terms; for papers similar to `paper_id` the sentence pairs and shared terms."""
    explorer.sentences_of([hit.paper_id for hit in hits]
                          + ([paper_id] if paper_id is not None else []))  # one model run
    if paper_id is not None:
        return [explain_pair(explorer, paper_id, hit.paper_id).to_dict() for hit in hits]
    vector = explorer.embed_query(query)
    return [explain_match(explorer, vector, hit.paper_id, query=query).to_dict() for hit in hits]


def explanation_lines(explanation: dict, width: int = 100) -> list[str]:
    """A plain-text rendering of an `explain_hits` entry, for the command line."""
    lines = []
    for sentence in explanation.get("sentences", []):
        lines.append(f"match {sentence['score']:.2f}: {_shorten(sentence['text'], width)}")
    for pair in explanation.get("pairs", []):
        lines.append(f"pair {pair['score']:.2f}: {_shorten(pair['sentence']['text'], width)}")
        lines.append(f"        ~ {_shorten(pair['other_sentence']['text'], width)}")
    if explanation.get("shared_terms"):
        lines.append("shared terms: " + ", ".join(explanation["shared_terms"]))
    return lines


def _shorten(text: str, width: int) -> str:
    text = readable(text)[0]  # LaTeX text markup as a reader reads it (corpus/markup.py)
    return text if len(text) <= width else text[: width - 2].rstrip() + " …"
