"""The lexical channel: BM25 (bm25s) over title, abstract and keywords, stored as plain arrays.

The index is bm25s's eager score matrix (CSC, one column per term) plus the vocabulary; all of
it goes into the index folder as .npy arrays through store.write_artifacts, so it is written
atomically and checksummed like the other artifacts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from explorer.corpus import Paper

LEXICAL_VERSION = 1  # bump when tokenising or scoring changes: the index is then rebuilt
# k1 and b: Anserini's defaults, as in the published ACM-CR BM25 baseline.
SETTINGS = {"version": LEXICAL_VERSION, "method": "lucene", "k1": 0.9, "b": 0.4,
            "stemmer": "english", "stopwords": "en"}
ARRAY_PREFIX = "lexical_"
_TOKEN = re.compile(r"(?u)\b\w\w+\b")


class Tokenizer:
    """Lower-case words of 2+ characters, English stop words removed, Snowball-stemmed."""

    def __init__(self) -> None:
        import bm25s.stopwords
        import Stemmer

        self._stop = frozenset(bm25s.stopwords.STOPWORDS_EN)
        self._stemmer = Stemmer.Stemmer(SETTINGS["stemmer"])
        self._cache: dict[str, str] = {}

    def __call__(self, text: str) -> list[str]:
        words = [w for w in _TOKEN.findall(text.lower()) if w not in self._stop]
        return [self.stem(word) for word in words]

    def stem(self, word: str) -> str:
        stem = self._cache.get(word)
        if stem is None:
            stem = self._cache[word] = self._stemmer.stemWord(word)
        return stem


def lexical_text(paper: Paper) -> str:
    """What the lexical channel indexes: title (when real), abstract and keywords."""
    return " ".join([paper.text, *paper.keywords])


class LexicalIndex:
    """BM25 scores of every paper for a text query; rows are positions in the paper list."""

    def __init__(self, retriever, vocab: dict[str, int], count: int) -> None:
        self._retriever = retriever
        self.vocab = vocab
        self.count = count
        self.tokenize = Tokenizer()
        indptr = retriever.scores["indptr"]
        self._df = np.diff(indptr).astype(np.float64)

    @classmethod
    def build(cls, texts: Sequence[str]) -> LexicalIndex:
        """Index `texts`, one per paper row."""
        tokenize = Tokenizer()
        tokens = [tokenize(text) for text in texts]
        retriever = _retriever()
        retriever.index(tokens, show_progress=False)
        return cls(retriever, dict(retriever.vocab_dict), len(texts))

    @classmethod
    def from_papers(cls, papers: Sequence[Paper]) -> LexicalIndex:
        return cls.build([lexical_text(p) for p in papers])

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The index as named arrays: score matrix parts and the vocabulary (UTF-8, one a line)."""
        scores = self._retriever.scores
        words = [""] * len(self.vocab)
        for word, position in self.vocab.items():
            words[position] = word
        vocab = np.frombuffer("\n".join(words).encode("utf-8"), dtype=np.uint8)
        return {f"{ARRAY_PREFIX}{name}": np.asarray(scores[name])
                for name in ("data", "indices", "indptr")} | {f"{ARRAY_PREFIX}vocab": vocab}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], count: int) -> LexicalIndex:
        """Rebuild from `to_arrays` output; `count` is the number of papers."""
        words = bytes(arrays[f"{ARRAY_PREFIX}vocab"]).decode("utf-8").split("\n")
        retriever = _retriever()
        retriever.scores = {name: arrays[f"{ARRAY_PREFIX}{name}"]
                            for name in ("data", "indices", "indptr")} | {"num_docs": count}
        retriever.vocab_dict = {word: position for position, word in enumerate(words)}
        retriever.nonoccurrence_array = None
        return cls(retriever, retriever.vocab_dict, count)

    def scores(self, text: str) -> np.ndarray:
        """BM25 score of every paper for `text` -> float32 (n,); zeros when no term is known.

        A term repeated in `text` counts as often as it appears (long texts as queries)."""
        ids = [self.vocab[t] for t in self.tokenize(text) if t in self.vocab]
        if not ids:
            return np.zeros(self.count, dtype=np.float32)
        return np.asarray(self._retriever.get_scores_from_ids(ids), dtype=np.float32)

    def idf(self, term: str) -> float:
        """BM25 (Lucene) inverse document frequency of a word (stemmed here); 0 if unknown."""
        position = self.vocab.get(self.tokenize.stem(term.lower()))
        if position is None:
            return 0.0
        df = self._df[position]
        return math.log(1 + (self.count - df + 0.5) / (df + 0.5))


def has_lexical(arrays: dict[str, np.ndarray]) -> bool:
    return all(f"{ARRAY_PREFIX}{name}" in arrays for name in ("data", "indices", "indptr", "vocab"))


def _retriever():
    import bm25s

    return bm25s.BM25(k1=SETTINGS["k1"], b=SETTINGS["b"], method=SETTINGS["method"])
