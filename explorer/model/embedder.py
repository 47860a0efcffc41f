"""The model: embed documents and queries into unit float32 vectors (which model: spec.py)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.batching import Batcher
from explorer.model.backends import (
    AUTO,
    BACKENDS,
    ONNX_INT8,
    OPENVINO,
    OPENVINO_INT8,
    TORCH,
    auto_backends,
    int8_weights,
)

# Which model (spec.py): imported from here too by most callers, with the Embedder.
from explorer.model.spec import BUNDLED_ID, BUNDLED_NAMES, ModelSpec, resolve_model
from explorer.settings import DEFAULT_BATCH_SIZE

__all__ = ["BUNDLED_ID", "BUNDLED_NAMES", "Embedder", "ModelSpec", "Reach", "cut_question",
           "reach_of", "resolve_model"]
logger = logging.getLogger(__name__)

QUESTION_BATCH = 8  # questions in one run at most (benchmarks/README.md, "Concurrent answers")
# A page's sentences per run when explained on demand: small batches spread over the cores'
# parallel runs (abstracts gain nothing from it: benchmarks/README.md, "Measured in the code").
SENTENCE_BATCH = 8
# The longest question (or steer text) anything reads: a longer one is cut here, before it is
# tokenised (a huge one held the GIL for seconds: benchmarks/README.md, "Measured in the code").
# The model reads 256 word pieces: in 39,000 titles+abstracts of ACM-CR and paperlists-ml those
# covered at most 1,663 characters (median 1,300), so the cut never changes a real question's
# vector (models reading 384 or 512 word pieces stay under it too); and 99.9% of ACM-CR's and
# 99.997% of paperlists-ml's whole titles+abstracts fit, so a pasted abstract reaches word
# matching whole.
MAX_QUESTION_CHARS = 4_000
WORD_CHARS = 100  # a cut moves back at most this far to a space (BERT reads no longer word)
# A question longer than this (about 65 word pieces, 4 times an ordinary question) is embedded in
# a run of its own, never batched with others: padded to its length, the short questions of its
# batch cost and waited as much as it (benchmarks/README.md, "Measured in the code").
BATCHED_QUESTION_CHARS = 300


@dataclass(frozen=True)
class Reach:
    """How much of a question the model reads: `tokens` in its first MAX_QUESTION_CHARS
    characters (special tokens included, before truncation) and `chars`, the characters of the
    question that the model's first max_seq_length tokens cover (all it was given when fewer)."""

    tokens: int
    chars: int


def cut_question(text: str) -> str:
    """`text` cut to at most MAX_QUESTION_CHARS characters, at a space when one is within
    WORD_CHARS of the cut (no word read in half); reads nothing past the cut."""
    if len(text) <= MAX_QUESTION_CHARS:
        return text
    for end in range(MAX_QUESTION_CHARS, MAX_QUESTION_CHARS - WORD_CHARS, -1):
        if text[end].isspace():
            return text[:end]
    return text[:MAX_QUESTION_CHARS]


def reach_of(offsets: Sequence[tuple[int, int]], special: Sequence[int], limit: int,
             length: int) -> Reach:
    """The Reach of a text of `length` characters from its untruncated tokens' character
    `offsets` and special-token mask, for a model reading `limit` tokens."""
    ends = [end for (_, end), is_special in zip(offsets, special) if not is_special]
    kept = limit - (len(offsets) - len(ends))  # the text's own tokens the model keeps
    return Reach(len(offsets), length if len(ends) <= kept else ends[max(kept, 1) - 1])


class Embedder:
    """The model, on the fastest backend this machine runs well. Vectors are unit float32 rows.

    Backends: ``openvino-int8`` (static int8 by NNCF, run by OpenVINO: quantise.py),
    ``openvino`` (bf16 on CPUs with native bf16, else fp32), ``onnx-int8`` (ONNX
    Runtime, dynamically quantised matrix multiplies, with the int8 weights that suit the
    CPU: backends.int8_weights), ``onnx`` (ONNX Runtime fp32) and
    ``torch`` (sentence-transformers itself). ``auto`` takes the first that fits the CPU and
    loads; see benchmarks/README.md for the measurements behind the order. The exported
    backends need no torch at query time; their export is cached by model fingerprint.
    """

    def __init__(self, spec: ModelSpec, *, batch_size: int = DEFAULT_BATCH_SIZE, backend: str = AUTO,
                 cache_dir: Path | None = None, batch: bool = True) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; expected one of {BACKENDS}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.spec = spec
        self.batch_size = batch_size
        self.fallbacks: list[str] = []  # why earlier candidates of `auto` were skipped
        self._tokenizer_lock = threading.Lock()  # torch: HF tokenizers change state per call
        # Static int8 is automatic only for the model its drift and nDCG were measured on (the
        # bundled one: mean cosine drift 0.0012 from fp32); another model's activations may
        # quantise worse: `openvino-int8` asks. mpnet's, measured on a Zen 4 EPYC (VNNI, bf16):
        # mean drift 0.0064, max 0.0101, 5 of 16 top-10 sets changed, at 1.6x bf16's rate; its
        # bf16 0.00002 (benchmarks/results/embed-mpnet-zen4-bf16.md), so mpnet stays on bf16.
        candidates = auto_backends(static_int8=spec.model_id == BUNDLED_ID) if backend == AUTO \
            else [backend]
        for candidate in candidates:
            try:
                self._load(candidate, cache_dir)
                break
            except (ImportError, OSError, RuntimeError, ValueError) as exc:
                if backend != AUTO or candidate == TORCH:
                    raise
                self.fallbacks.append(f"{candidate}: {type(exc).__name__}: {exc}")
                logger.warning("embedding backend %s unavailable (%s); trying the next",
                               candidate, exc)
        # Questions that threads embed at the same moment share a run (batching.py), up to
        # `query_runs` runs at once; with `batch` False (or dynamic int8) each runs alone.
        exported = self._exported
        batch = batch and (exported is None or exported.batch_independent)
        runs = 1 if exported is None else exported.query_runs
        self._questions = Batcher(self._embed_questions, QUESTION_BATCH, runs) if batch else None

    def _load(self, backend: str, cache_dir: Path | None) -> None:
        if backend == TORCH:
            self._exported, self._pools_spans = None, False
            self._model = _sentence_transformer(self.spec.path)
            self._model.preprocess = self._serialised(self._model.preprocess)
            dimension = getattr(self._model, "get_embedding_dimension", None) or (
                self._model.get_sentence_embedding_dimension)
            self.dimension = int(dimension())
            self.max_seq_length = int(self._model.max_seq_length)
            self.precision = "fp32"
        else:
            from explorer.model.export import INT8_FILES, STATIC_FILE, ensure_export
            from explorer.model.runtimes import ExportedModel

            weights = int8_weights() if backend == ONNX_INT8 else None
            static = backend == OPENVINO_INT8
            folder, meta = ensure_export(self.spec.path, self.spec.fingerprint, int8=weights,
                                         static=static, cache_dir=cache_dir)
            runtime, file = (OPENVINO, STATIC_FILE) if static else (backend, INT8_FILES.get(weights))
            self._exported = ExportedModel(folder, meta, runtime, file)
            self._pools_spans = meta.get("pooling") == "mean"  # CLS models: spans embedded alone
            self.dimension = self._exported.dimension
            self.max_seq_length = self._exported.max_seq_length
            self.precision = self._exported.precision
        self.backend = backend

    @property
    def info(self) -> dict[str, object]:
        """What the manifest records about the model and how its vectors were computed."""
        return {
            "id": self.spec.model_id,
            "fingerprint": self.spec.fingerprint,
            "dimension": self.dimension,
            "max_seq_length": self.max_seq_length,
            "normalized": True,
            "backend": self.backend,
            "precision": self.precision,
        }

    def embed_documents(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Embed texts -> float32 (n, d), unit length. `progress(k)` is called after each chunk."""
        chunks = []
        step = self.batch_size * 16  # length-sorted within a chunk: little padding
        for start in range(0, len(texts), step):
            chunk = list(texts[start : start + step])
            chunks.append(self._encode(chunk))
            if progress:
                progress(len(chunk))
        if not chunks:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.vstack(chunks)

    def embed_sentences(self, texts: Sequence[str]) -> np.ndarray:
        """Embed the short texts a page is waiting for (its hits' sentences) -> float32 (n, d),
        unit length, as `embed_documents` would, in batches of SENTENCE_BATCH."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._encode(list(texts), SENTENCE_BATCH)

    def embed_documents_with_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]],
        progress: Callable[[int], None] | None = None,
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Texts -> (float32 (n, d) as embed_documents gives them, per text float32 (k, d) unit
        vectors of its character `spans`). On an exported mean-pooling model the span vectors
        are pooled from the texts' own pass (model/pooling.py); else each span is embedded as
        a text of its own (a second model run)."""
        vectors, parts = [], []
        step = self.batch_size * 16
        for start in range(0, len(texts), step):
            chunk, chunk_spans = list(texts[start:start + step]), spans[start:start + step]
            if self._exported is not None and self._pools_spans:
                chunk_vectors, chunk_parts = self._exported.embed_spans(chunk, chunk_spans,
                                                                        self.batch_size)
            else:
                chunk_vectors, chunk_parts = self._encode(chunk), self._span_vectors(
                    chunk, chunk_spans)
            vectors.append(chunk_vectors)
            parts.extend(chunk_parts)
            if progress:
                progress(len(chunk))
        if not vectors:
            return np.zeros((0, self.dimension), dtype=np.float32), []
        return np.vstack(vectors), parts

    def _span_vectors(self, texts: list[str], spans: Sequence[Sequence[tuple[int, int]]]
                      ) -> list[np.ndarray]:
        pieces = [text[s:e] for text, text_spans in zip(texts, spans) for s, e in text_spans]
        flat = self._encode(pieces) if pieces else np.zeros((0, self.dimension), np.float32)
        bounds = np.cumsum([0] + [len(text_spans) for text_spans in spans])
        return [flat[bounds[i]:bounds[i + 1]] for i in range(len(texts))]

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query (cut_question: its first MAX_QUESTION_CHARS characters) -> float32
        (d,), unit length. Safe from many threads at once: questions that arrive together are
        embedded in one run (`batch`), but one longer than BATCHED_QUESTION_CHARS in a run of
        its own."""
        text = cut_question(text)
        if self._questions is None or len(text) > BATCHED_QUESTION_CHARS:
            return self._embed_questions([text])[0]
        return self._questions(text)

    def warm_up(self) -> None:
        """Load now what the first question and the first explanations would wait for: a
        question's run and the compiled form that embeds many texts at once."""
        self.embed_query("warm-up")
        if self._exported is not None:
            self._exported.warm_up()

    def embed_asked_together(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a few questions asked at the same moment -> float32 (n, d): in one run on the
        question path when a question's vector ignores its batch-mates (each then as
        embed_query embeds it, up to float rounding), else one run each."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        texts = [cut_question(text) for text in texts]
        if self._questions is None:  # batching off, or a backend whose vectors depend on it
            return np.vstack([self._embed_questions([text]) for text in texts])
        return self._embed_questions(list(texts))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed questions -> float32 (n, d), unit rows, each as embed_query embeds it."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._encode([cut_question(text) for text in texts])

    def token_count(self, text: str) -> int:
        """Tokens the model would see before truncation (special tokens included) in the
        question `text` (its first MAX_QUESTION_CHARS characters: no longer text is tokenised)."""
        return self.reach(text).tokens

    def reach(self, text: str) -> Reach:
        """How much of the question `text` the model reads, tokenising only cut_question(text)."""
        question = cut_question(text)
        if self._exported is not None:
            encoding = self._exported.untruncated(question)
            offsets, special = encoding.offsets, encoding.special_tokens_mask
        else:
            with self._tokenizer_lock:
                encoded = self._model.tokenizer(
                    question, add_special_tokens=True, return_offsets_mapping=True,
                    return_special_tokens_mask=True, verbose=False)
            offsets, special = encoded["offset_mapping"], encoded["special_tokens_mask"]
        return reach_of(offsets, special, self.max_seq_length, len(question))

    def _serialised(self, tokenize: Callable) -> Callable:
        """`tokenize` run by one thread at a time. A transformers fast tokenizer sets truncation
        and padding on its shared Rust tokenizer at every call, which raises "Already borrowed"
        while another thread encodes; the model's forward pass itself runs concurrently."""

        def locked(*args, **kwargs):
            with self._tokenizer_lock:
                return tokenize(*args, **kwargs)

        return locked

    def _embed_questions(self, texts: list[str]) -> np.ndarray:
        """(n, d) for a few questions, on the runtime's question path (runtimes.ExportedModel:
        one thread per run; the vectors are those of embed_queries up to float rounding)."""
        if self._exported is None:
            return self._encode(texts)
        vectors = self._exported.embed(texts, self.batch_size, latency=True)
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def _encode(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        batch_size = batch_size or self.batch_size
        if self._exported is not None:
            vectors = self._exported.embed(texts, batch_size)
        else:
            vectors = self._model.encode(
                texts, batch_size=batch_size, convert_to_numpy=True,
                normalize_embeddings=True, show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)


def _sentence_transformer(path: Path):
    # Switch the hub off before sentence-transformers is imported: no network at run time.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(path), device="cpu", local_files_only=True)

