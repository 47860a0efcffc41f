"""The lexical channel: BM25 over title, abstract and keywords, stored as plain arrays.

Two sparse matrices go into the index folder as .npy arrays (through store.write_artifacts, so
they are written atomically and checksummed like the other artifacts):
- the BM25 score matrix (CSC, one column per term: a query sums the columns of its terms), the
  same eager layout and Lucene formula as bm25s;
- the term counts per paper (CSR, one row per paper) and the SHA-256 of each row's text, so that
  an incremental build tokenises only the new papers and recomputes the scores (which depend on
  document frequencies and the mean length of the whole corpus) with a few vectorised operations.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from explorer.corpus.papers import Paper

LEXICAL_VERSION = 3  # bump when tokenising or scoring changes: the index is then rebuilt
# k1 and b: Anserini's defaults, as in the published ACM-CR BM25 baseline.
SETTINGS = {"version": LEXICAL_VERSION, "method": "lucene", "k1": 0.9, "b": 0.4,
            "stemmer": "english", "stopwords": "en"}
ARRAY_PREFIX = "lexical_"
DENSE_SHARE = 0.25  # a query with more postings than this share of the papers sums densely
BLOCK_ROWS = 65_536  # papers whose BM25 weights are worked out at a time
_TOKEN = re.compile(r"(?u)\b\w\w+\b")


class Tokenizer:
    """Lower-case words of 2+ characters, English stop words removed, Snowball-stemmed.

    Safe to share between threads: PyStemmer documents a Stemmer as not to be called
    concurrently, so each thread stems with its own. `memo` (a build's tokenizer, used by one
    thread) remembers every stem; a query-time tokenizer keeps nothing per query."""

    def __init__(self, memo: bool = False) -> None:
        import bm25s.stopwords

        self._stop = frozenset(bm25s.stopwords.STOPWORDS_EN)
        self._local = threading.local()
        self._cache: dict[str, str] | None = {} if memo else None

    def __call__(self, text: str) -> list[str]:
        words = [w for w in _TOKEN.findall(text.lower()) if w not in self._stop]
        return [self.stem(word) for word in words]

    def stem(self, word: str) -> str:
        if self._cache is None:
            return self._stemmer().stemWord(word)
        stem = self._cache.get(word)
        if stem is None:
            stem = self._cache[word] = self._stemmer().stemWord(word)
        return stem

    def _stemmer(self):
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            import Stemmer

            stemmer = self._local.stemmer = Stemmer.Stemmer(SETTINGS["stemmer"])
        return stemmer


def lexical_text(paper: Paper) -> str:
    """What the lexical channel indexes: title (when real), abstract and keywords."""
    return " ".join([paper.text, *paper.keywords])


class _Texts(Sequence[str]):
    """lexical_text of each of `papers`, made when read."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._papers = papers

    def __len__(self) -> int:
        return len(self._papers)

    def __getitem__(self, row):
        if isinstance(row, slice):
            return [lexical_text(paper) for paper in self._papers[row]]
        return lexical_text(self._papers[row])


class LexicalIndex:
    """BM25 scores of every paper for a text query; rows are positions in the paper list."""

    def __init__(self, scores: sparse.csc_matrix,
                 counts: tuple[sparse.csr_matrix, np.ndarray] | None, vocab: dict[str, int]
                 ) -> None:
        """`counts`: the term counts and the rows' text digests (n, 32), kept for updates."""
        self.count = scores.shape[0]
        self.vocab = vocab
        self.tokenize = Tokenizer()
        self._data, self._indices, self._indptr = scores.data, scores.indices, scores.indptr
        self._counts = counts
        self._df = np.diff(self._indptr).astype(np.float64)

    @classmethod
    def build(cls, texts: Sequence[str], previous: dict[str, np.ndarray] | None = None
              ) -> LexicalIndex:
        """Index `texts`, one per paper row. `previous`: the arrays of an earlier index; texts
        it already counted (found by their SHA-256) are not tokenised again."""
        tokenize = Tokenizer(memo=True)
        vocab: dict[str, int] = {}
        reuse: dict[bytes, int] = {}
        keys = [hashlib.sha256(text.encode("utf-8")).digest() for text in texts]
        if previous is not None and f"{ARRAY_PREFIX}row_keys" in previous:
            vocab = {word: i for i, word in enumerate(_words(previous))}
            old_keys = previous[f"{ARRAY_PREFIX}row_keys"]
            old_counts = _matrix(previous, "counts_", sparse.csr_matrix, len(old_keys), len(vocab))
            reuse = {key.tobytes(): row for row, key in enumerate(old_keys)}
        rows: list[tuple[np.ndarray, np.ndarray]] = []
        for text, key in zip(texts, keys):
            if key in reuse:
                span = slice(old_counts.indptr[reuse[key]], old_counts.indptr[reuse[key] + 1])
                rows.append((old_counts.indices[span], old_counts.data[span]))
            else:
                ids = [vocab.setdefault(token, len(vocab)) for token in tokenize(text)]
                rows.append(_count_row(ids))
        counts = _stack(rows, len(vocab))
        del rows  # a build of millions of papers: the per-paper arrays go before the scores
        row_keys = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 32)
        return cls(bm25_matrix(counts), (counts, row_keys), vocab)

    @classmethod
    def from_papers(cls, papers: Sequence[Paper], previous: dict[str, np.ndarray] | None = None
                    ) -> LexicalIndex:
        """Index `papers`; `previous`: the arrays of the build being updated. Each paper's text
        is made when the build reads it: a build of millions of papers never holds them all."""
        return cls.build(_Texts(papers), previous)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The index as named arrays: both matrices and the vocabulary (UTF-8, one a line)."""
        words = [""] * len(self.vocab)
        for word, position in self.vocab.items():
            words[position] = word
        vocab = np.frombuffer("\n".join(words).encode("utf-8"), dtype=np.uint8)
        arrays = {f"{ARRAY_PREFIX}data": self._data, f"{ARRAY_PREFIX}indices": self._indices,
                  f"{ARRAY_PREFIX}indptr": self._indptr, f"{ARRAY_PREFIX}vocab": vocab}
        if self._counts is not None:
            counts, row_keys = self._counts
            arrays |= {f"{ARRAY_PREFIX}counts_{name}": getattr(counts, name)
                       for name in ("data", "indices", "indptr")}
            arrays[f"{ARRAY_PREFIX}row_keys"] = row_keys
        return arrays

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], count: int) -> LexicalIndex:
        """Rebuild from `to_arrays` output; `count` is the number of papers. Only the score
        matrix is read: searching never needs the counts."""
        words = _words(arrays)
        terms = len(arrays[f"{ARRAY_PREFIX}indptr"]) - 1  # bm25s (version 1) left "" out
        scores = _matrix(arrays, "", sparse.csc_matrix, count, terms)
        return cls(scores, None, {word: i for i, word in enumerate(words) if i < terms})

    def scores(self, text: str) -> np.ndarray:
        """BM25 score of every paper for `text` -> float32 (n,); zeros when no term is known.

        A term repeated in `text` counts as often as it appears (long texts as queries)."""
        out = np.zeros(self.count, dtype=np.float32)
        rows, scores = self._matches(text)
        out[rows] = scores
        return out

    def top(self, text: str, depth: int, blocked: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray]:
        """The `depth` best-scoring papers for `text` that share a term with it, best first
        -> (rows int64, scores float32); `blocked` (n,) bool keeps rows out.

        Only the papers that contain a query term are scored: a short query allocates nothing
        the size of the corpus (a long one, whose terms reach most papers, sums densely)."""
        rows, scores = self._matches(text)
        if blocked is not None and len(rows):
            keep = ~blocked[rows]
            rows, scores = rows[keep], scores[keep]
        depth = min(depth, len(rows))
        if depth <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        part = np.argpartition(-scores, depth - 1)[:depth]
        part = part[np.lexsort((rows[part], -scores[part]))]  # ties: lower row first
        return rows[part].astype(np.int64), scores[part]

    def _matches(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(rows ascending, BM25 scores > 0) of the papers sharing a term with `text`."""
        ids = [self.vocab[t] for t in self.tokenize(text) if t in self.vocab]
        spans = [slice(self._indptr[i], self._indptr[i + 1]) for i in ids]
        postings = sum(span.stop - span.start for span in spans)
        if postings == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        rows = np.concatenate([self._indices[span] for span in spans])
        weights = np.concatenate([self._data[span] for span in spans])
        if postings > DENSE_SHARE * self.count:  # sorting would cost more than a dense pass
            dense = np.bincount(rows, weights=weights, minlength=self.count)
            found = np.flatnonzero(dense > 0)
            return found, dense[found].astype(np.float32)
        found, position = np.unique(rows, return_inverse=True)
        return found.astype(np.int64), np.bincount(position, weights=weights).astype(np.float32)

    def query_idfs(self, text: str) -> np.ndarray:
        """BM25 idf of each token of `text` found in the vocabulary, in order (float64, (t,));
        tokenized exactly as the index's own text was (no second stemming)."""
        ids = [self.vocab[token] for token in self.tokenize(text) if token in self.vocab]
        df = self._df[ids]
        return np.log(1 + (self.count - df + 0.5) / (df + 0.5))

    def idf(self, term: str) -> float:
        """BM25 (Lucene) inverse document frequency of a word (stemmed here); 0 if unknown."""
        position = self.vocab.get(self.tokenize.stem(term.lower()))
        if position is None:
            return 0.0
        df = self._df[position]
        return math.log(1 + (self.count - df + 0.5) / (df + 0.5))


def bm25_matrix(counts: sparse.csr_matrix, block: int | None = None) -> sparse.csc_matrix:
    """BM25 (Lucene variant) weight of every (paper, term) pair -> float32 CSC (n, terms).

    weight = idf(t) * tf / (tf + k1 * (1 - b + b * length / mean length)), with
    idf(t) = log(1 + (n - df + 0.5) / (df + 0.5)); length counts every kept token. Worked out
    `block` rows (default BLOCK_ROWS) at a time: the float64 temporaries are a block's, not
    the corpus's (benchmarks/results/scale-bm25-*.md)."""
    k1, b = SETTINGS["k1"], SETTINGS["b"]
    count = counts.shape[0]
    lengths = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
    mean = lengths.mean() if count and lengths.any() else 1.0
    df = np.bincount(counts.indices, minlength=counts.shape[1]).astype(np.float64)
    idf = np.log(1 + (count - df + 0.5) / (df + 0.5))
    weights = np.empty(len(counts.data), dtype=np.float32)
    block = block or BLOCK_ROWS
    for start in range(0, count, block):
        end = min(count, start + block)
        span = slice(counts.indptr[start], counts.indptr[end])
        tf = counts.data[span].astype(np.float64)
        row_of = np.repeat(np.arange(start, end), np.diff(counts.indptr[start:end + 1]))
        norm = k1 * (1 - b + b * lengths[row_of] / mean)
        weights[span] = idf[counts.indices[span]] * tf / (tf + norm)
    matrix = sparse.csr_matrix((weights, counts.indices, counts.indptr), shape=counts.shape)
    return matrix.tocsc()


def _count_row(ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """One paper's (term ids, counts), ids ascending; counts saturate at 65,535."""
    terms, counts = np.unique(np.asarray(ids, dtype=np.int32), return_counts=True)
    return terms, np.minimum(counts, np.iinfo(np.uint16).max).astype(np.uint16)


def _stack(parts: list[tuple[np.ndarray, np.ndarray]], terms: int) -> sparse.csr_matrix:
    """Rows given as (term ids, counts) pairs -> CSR (n, terms) of uint16 counts."""
    lengths = np.array([len(ids) for ids, _ in parts], dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    indices = np.concatenate([ids for ids, _ in parts]) if parts else np.zeros(0, np.int32)
    data = np.concatenate([c for _, c in parts]) if parts else np.zeros(0, np.uint16)
    return sparse.csr_matrix((data.astype(np.uint16, copy=False),
                              indices.astype(np.int32, copy=False), indptr),
                             shape=(len(parts), terms))


def _words(arrays: dict[str, np.ndarray]) -> list[str]:
    return bytes(arrays[f"{ARRAY_PREFIX}vocab"]).decode("utf-8").split("\n")


def _matrix(arrays: dict[str, np.ndarray], part: str, kind, rows: int, terms: int):
    """The stored matrix `part` ("" for scores, "counts_") as a scipy matrix of `kind`."""
    parts = [arrays[f"{ARRAY_PREFIX}{part}{name}"] for name in ("data", "indices", "indptr")]
    return kind(tuple(parts), shape=(rows, terms))


LEXICAL_ROLES = tuple(f"{ARRAY_PREFIX}{name}" for name in ("data", "indices", "indptr", "vocab"))

