"""The build's model: loaded only once something needs embedding, reporting progress by phase."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import numpy as np

from explorer.model.embedder import Embedder, ModelSpec

Progress = Callable[[str, int, int], None]  # (phase, done, total)
Watch = Callable[[str], AbstractContextManager]  # stage name -> its timer (report.Stopwatch)


class LazyEmbedder:
    """Loads the model only when something actually needs embedding."""

    def __init__(self, spec: ModelSpec, batch_size: int, progress: Progress | None,
                 engine: str = "local", watch: Watch | None = None) -> None:
        self.spec, self.batch_size, self.progress = spec, batch_size, progress
        self.watch = watch  # times loading the model (export included) as the stage 'model'
        self.engine = engine  # 'local' or 'ray' (explorer/model/distributed.py)
        self._embedder: Embedder | None = None

    @property
    def loaded(self) -> bool:
        return self._embedder is not None

    @property
    def info(self) -> dict:
        return self._get().info

    def embed(self, phase: str, texts: list[str], done: int = 0, total: int | None = None
              ) -> np.ndarray:
        """Embed `texts` -> float32 (n, d), reporting progress under `phase` (counting from
        `done` of `total`, for callers that embed in blocks)."""
        total = len(texts) if total is None else total

        def step(count: int) -> None:
            nonlocal done
            done += count
            if self.progress:
                self.progress(phase, done, total)

        return self._get().embed_documents(texts, progress=step)

    def embed_with_spans(self, phase: str, texts: list[str], spans: list[list[tuple[int, int]]],
                         done: int = 0, total: int | None = None
                         ) -> tuple[np.ndarray, list[np.ndarray]]:
        """`embed`, plus per text the unit vectors (k, d) of its character `spans` (pooled from
        the same pass: Embedder.embed_documents_with_spans; an engine without it, Ray, embeds
        the spans as texts of their own)."""
        total = len(texts) if total is None else total

        def step(count: int) -> None:
            nonlocal done
            done += count
            if self.progress:
                self.progress(phase, done, total)

        embedder = self._get()
        if hasattr(embedder, "embed_documents_with_spans"):
            return embedder.embed_documents_with_spans(texts, spans, progress=step)
        vectors = embedder.embed_documents(texts, progress=step)
        pieces = [text[s:e] for text, text_spans in zip(texts, spans) for s, e in text_spans]
        flat = embedder.embed_documents(pieces)
        bounds = np.cumsum([0] + [len(text_spans) for text_spans in spans])
        return vectors, [flat[bounds[i]:bounds[i + 1]] for i in range(len(texts))]

    def embed_questions(self, texts: list[str]) -> np.ndarray:
        """Embed `texts` as questions are embedded (Embedder.embed_queries) -> float32 (n, d)."""
        return self._get().embed_queries(texts)

    def _get(self) -> Embedder:
        if self._embedder is None:
            from explorer.model.distributed import create_embedder

            with self.watch("model") if self.watch else nullcontext():
                self._embedder = create_embedder(self.spec, batch_size=self.batch_size,
                                                 engine=self.engine)
        return self._embedder
