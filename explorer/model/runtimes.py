"""Run an exported model (see model/export.py) with tokenizers plus OpenVINO or ONNX Runtime.

Neither path imports torch or sentence-transformers, so a query-only process starts in about a
second instead of seven. Batches are length-sorted and padded only to their longest text.

Thread safety (the app's sessions share one model): a `tokenizers.Tokenizer` whose truncation
and padding are set once is only read by `encode`/`encode_batch`, which many threads may call at
once (the "Already borrowed" error comes from changing those settings while another thread
encodes); ONNX Runtime's `InferenceSession.run` is thread-safe; an OpenVINO infer request serves
one inference at a time (others get "Infer Request is busy") while creating requests from one
compiled model is thread-safe, so each concurrent query takes its own request from a pool.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from explorer.model.backends import ONNX, ONNX_INT8, OPENVINO
from explorer.model.export import (
    EMBEDDING,
    FP32_FILE,
    INT8_FILE,
    INT8_PRECISIONS,
    STATIC_FILE,
    TOKEN_STATES,
    TOKENIZER_FILE,
)
from explorer.model.inputs import feed
from explorer.model.openvino_model import OpenVinoModel
from explorer.model.pooling import Spans, pool_spans, windowed
from explorer.settings import cores


class ExportedModel:
    """An exported encoder: texts -> unit vectors (n, d) float32, on one of the runtimes.

    `model_file` names the file in `folder` to run instead of the runtime's own (FP32_FILE,
    INT8_FILE for onnx-int8): the int8 file of another weight type, a benchmark's candidate."""

    def __init__(self, folder: Path, meta: dict[str, Any], runtime: str,
                 model_file: str | None = None) -> None:
        from tokenizers import Tokenizer

        text = (folder / TOKENIZER_FILE).read_text(encoding="utf-8")
        self.max_seq_length = int(meta["max_seq_length"])
        self.dimension = int(meta["dimension"])
        self._inputs = tuple(meta["inputs"])
        self._pad_id = int(meta["pad_id"])
        self._tokenizer = Tokenizer.from_str(text)
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(self.max_seq_length)
        self._counter: Any = None
        self._counter_lock = threading.Lock()
        self._text = text
        self._run_all: Callable[[list[dict]], list[np.ndarray]] | None = None
        # Runs of questions (`embed(latency=True)`), `query_runs` of them at once: OpenVINO's
        # pool of infer requests, ONNX Runtime's one-thread session. Whether a text's vector
        # is the same (up to float rounding) in a batch of other texts as alone: not with
        # dynamic int8, which quantises each batch by its own range of activations.
        self.query_runs = cores()
        self.batch_independent = runtime != ONNX_INT8
        self._run_states: Callable[[dict], tuple[np.ndarray, np.ndarray]]
        if runtime == OPENVINO:
            openvino = OpenVinoModel(folder / (model_file or FP32_FILE), folder / "openvino-cache")
            self._run, self._run_all = openvino.run, openvino.run_all
            self._run_query, self._run_states = openvino.run, openvino.run_states
            self.precision = "int8-static" if model_file == STATIC_FILE else openvino.precision
        elif runtime in (ONNX, ONNX_INT8):
            name = model_file or (INT8_FILE if runtime == ONNX_INT8 else FP32_FILE)
            onnx = _OnnxRuntime(folder / name)
            self._run, self._run_query = onnx.run, onnx.run_one_thread
            self._run_states = onnx.run_states
            self.precision = INT8_PRECISIONS.get(name, "int8") if runtime == ONNX_INT8 else "fp32"
        else:
            raise ValueError(f"unknown runtime {runtime!r}")
        self.runtime = runtime

    def warm_up(self) -> None:
        """Compile the form that runs many batches at once (OpenVINO's streams) now."""
        if self._run_all is not None:
            self._run_all([self._feed(self._tokenizer.encode_batch(["warm-up"]))])

    def embed(self, texts: Sequence[str], batch_size: int, latency: bool = False) -> np.ndarray:
        """Unit vectors (n, d) float32 for `texts`, in batches of similar length. `latency`:
        a few questions, run as one of `query_runs` concurrent runs (see _OnnxRuntime)."""
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(-lengths, kind="stable")
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        batches = [order[start:start + batch_size] for start in range(0, len(order), batch_size)]
        run = self._run_query if latency else self._run
        if self._run_all is not None and len(batches) > 1 and not latency:
            results = self._run_all([self._feed([encodings[i] for i in b]) for b in batches])
        else:
            results = [run(self._feed([encodings[i] for i in b])) for b in batches]
        for rows, vectors in zip(batches, results):
            out[rows] = vectors
        return out

    def embed_spans(self, texts: Sequence[str], spans: Sequence[Spans], batch_size: int
                    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Unit vectors (n, d) of `texts`, as `embed` gives them, and for each text the unit
        vectors (k, d) of its character `spans`, pooled from the same pass's token states
        (pooling.py; spans past the window come from further windows)."""
        return windowed(lambda part, part_spans: self._pooled_pass(part, part_spans, batch_size),
                        texts, spans)

    def _pooled_pass(self, texts: list[str], spans: list[Spans], batch_size: int
                     ) -> tuple[np.ndarray, list[np.ndarray], list[int]]:
        encodings = self._tokenizer.encode_batch(texts)
        order = np.argsort(-np.array([len(e.ids) for e in encodings]), kind="stable")
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        pooled: list[Any] = [None] * len(texts)
        whole = [0] * len(texts)
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            vectors, states = self._run_states(self._feed([encodings[i] for i in rows]))
            out[rows] = vectors
            for row, row_states in zip(rows, states):
                encoding = encodings[row]
                pooled[row], whole[row] = pool_spans(row_states, encoding.offsets,
                                                     encoding.special_tokens_mask, spans[row])
        return out, pooled, whole

    def untruncated(self, text: str) -> Any:
        """`text`'s whole tokenizers.Encoding: no truncation, special tokens included (the
        caller bounds `text`: it is tokenised whole)."""
        if self._counter is None:
            with self._counter_lock:  # configured once, before any thread encodes with it
                if self._counter is None:
                    from tokenizers import Tokenizer

                    counter = Tokenizer.from_str(self._text)
                    counter.no_truncation()
                    counter.no_padding()
                    self._counter = counter
        return self._counter.encode(text)

    def _feed(self, encodings: list) -> dict[str, np.ndarray]:
        return feed(encodings, self._inputs, self._pad_id)


class _OnnxRuntime:
    """ONNX Runtime sessions of one model file: one on a single thread for questions, and one
    with a thread per core for batches of documents (and their token states), made on first
    use. `run` is thread-safe on both. A one-thread session computes on the calling thread alone, so that
    questions from several threads run side by side, one per core, instead of each run's
    intra-op threads (spinning while they wait for work) competing for the same cores: on the
    shared 2-core machine a question took half the CPU time and wall time on one thread
    (benchmarks/README.md, "Concurrent answers")."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._sessions: dict[int, Any] = {1: self._make(1)}  # a broken file fails here
        self._lock = threading.Lock()  # held only while a session is made

    def run(self, feed: dict) -> np.ndarray:
        return self._session(cores()).run([EMBEDDING], feed)[0]

    def run_one_thread(self, feed: dict) -> np.ndarray:
        return self._session(1).run([EMBEDDING], feed)[0]

    def run_states(self, feed: dict) -> tuple[np.ndarray, np.ndarray]:
        """The vectors and the last token states, on the session with a thread per core."""
        vectors, states = self._session(cores()).run([EMBEDDING, TOKEN_STATES], feed)
        return vectors, states

    def _session(self, threads: int) -> Any:
        session = self._sessions.get(threads)
        if session is None:
            with self._lock:
                session = self._sessions.get(threads)
                if session is None:
                    session = self._sessions[threads] = self._make(threads)
        return session

    def _make(self, threads: int) -> Any:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads
        return ort.InferenceSession(os.fspath(self._path), options,
                                    providers=["CPUExecutionProvider"])
