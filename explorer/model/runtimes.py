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
import queue
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from explorer.batching import IN_PROGRESS
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
from explorer.model.pooling import Spans, pool_spans, windowed
from explorer.model.precision import inference_hint, probe
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
            openvino = _OpenVino(folder / (model_file or FP32_FILE), folder / "openvino-cache")
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


class _OpenVino:
    """The model compiled by OpenVINO for the CPU, in bf16 where it has native bf16, else fp32
    (compiled blobs cached). Many batches run on a queue of parallel streams, one per core
    (one thread each), which measured about 10% more abstracts/s on two cores than batches
    run one after another (benchmarks/README.md).

    A question run alone runs on a low-latency compiled model (every core on one run); one
    that starts while another question's run is going runs on a stream of its own, one thread:
    two runs on the low-latency model share its one stream, in turn, each with a second thread
    spinning, which measured half the questions/s (benchmarks/README.md, "Concurrent
    answers"). Both compiled forms give the same vectors (bit for bit here; the tests hold
    them to float rounding). Every run takes an idle infer request of its pool, so concurrent
    runs never share one."""

    def __init__(self, path: Path, cache: Path) -> None:
        import openvino as ov

        self._ov, self._core = ov, ov.Core()
        # Compiled from the file's path, not a model read first: with CACHE_DIR, OpenVINO then
        # finds the compiled blob without parsing the ONNX file (0.4 s of every cold start).
        self._path = os.fspath(path)
        self._cache = os.fspath(cache)
        capabilities = self._core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")
        self._hint = inference_hint(capabilities, path, ov.__version__, self._probe)
        self.precision = "bf16" if self._hint == "bf16" else "fp32"
        self._requests: queue.Queue | None = None
        self._stream_requests: queue.Queue | None = None
        self._throughput: Any = None  # the streams' compiled model
        self._streams: Any = None
        self._init_lock = threading.Lock()  # held only while compiling, never for an inference
        self._streams_lock = threading.Lock()  # one run_all at a time on the streams queue
        self._running = 0  # runs of `run` going on now
        self._running_lock = threading.Lock()

    def run(self, feed: dict) -> np.ndarray:
        """The output for one feed: alone on the low-latency model, else on a stream (see the
        class); waits while every request of its pool is busy."""
        with self._running_lock:
            self._running += 1
            alone = self._running == 1 and IN_PROGRESS.alone()
        try:
            requests = (self._requests or self._request_pool()) if alone else (
                self._stream_requests or self._stream_pool())
            request = requests.get()
            try:
                return np.array(request.infer(feed)[0], dtype=np.float32, copy=True)
            finally:
                requests.put(request)
        finally:
            with self._running_lock:
                self._running -= 1

    def run_states(self, feed: dict) -> tuple[np.ndarray, np.ndarray]:
        """The vectors and token states for one feed, on an idle request of the pool."""
        requests = self._requests or self._request_pool()
        request = requests.get()
        try:
            outputs = request.infer(feed)
            return (np.array(outputs[0], dtype=np.float32, copy=True),
                    np.array(outputs[1], dtype=np.float32, copy=True))
        finally:
            requests.put(request)

    def run_all(self, feeds: list[dict]) -> list[np.ndarray]:
        """Outputs of every feed, in order, computed on parallel streams. Callers take turns:
        the queue's callback and `wait_all` belong to one caller, and its streams already keep
        every core busy."""
        with self._streams_lock:
            if self._streams is None:
                self._streams = self._ov.AsyncInferQueue(self._throughput_model(), cores())
            results: list[Any] = [None] * len(feeds)

            def done(request: Any, position: int) -> None:
                results[position] = np.array(request.get_output_tensor(0).data,
                                             dtype=np.float32, copy=True)

            self._streams.set_callback(done)
            try:
                for position, feed in enumerate(feeds):
                    self._streams.start_async(feed, position)
            finally:
                self._streams.wait_all()
        return results

    def _request_pool(self) -> queue.Queue:
        with self._init_lock:
            if self._requests is None:
                compiled = self._compile("LATENCY")
                _first_inference(compiled)
                self._requests = _pool_of(compiled)
        return self._requests

    def _stream_pool(self) -> queue.Queue:
        compiled = self._throughput_model()
        with self._init_lock:
            if self._stream_requests is None:
                self._stream_requests = _pool_of(compiled)
        return self._stream_requests

    def _throughput_model(self) -> Any:
        """The model compiled for parallel streams, one per core (compiled once)."""
        with self._init_lock:
            if self._throughput is None:
                compiled = self._compile("THROUGHPUT", cores())
                _first_inference(compiled)
                self._throughput = compiled
        return self._throughput

    def _probe(self, precision: str) -> float:
        """Seconds of a fixed input under `precision` (inference_hint's measurement)."""
        compiled = self._compile("LATENCY", precision=precision)
        _first_inference(compiled)
        return probe(compiled)

    def _compile(self, hint: str, streams: int = 1, precision: str | None = None) -> Any:
        config = {"INFERENCE_PRECISION_HINT": precision or self._hint, "PERFORMANCE_HINT": hint,
                  "INFERENCE_NUM_THREADS": cores(), "CACHE_DIR": self._cache,
                  # Pinned threads of several processes (Ray actors) all land on the first
                  # cores; pin only when this process may use every core.
                  "ENABLE_CPU_PINNING": cores() == cores(capped=False)}
        if hint == "THROUGHPUT":
            config["NUM_STREAMS"] = streams
        with _COMPILE_LOCK:
            return self._core.compile_model(self._path, "CPU", config)


# OpenVINO sets the process's locale to "C" while it reads or writes its model cache (CACHE_DIR)
# and then puts back the locale it found, when the numeric locale is not "C" already (its
# pull request 24431, for issue 24370: its XML parser misread numbers under other locales).
# Two compiles at once in two threads (two engines loading, one model warming while another
# loads) left "C" for good: Python then decoded a subprocess's output and files opened without
# an encoding as ASCII (a test suite's run failed so). Compiles take turns, so each puts back
# the process's own locale. Other threads still see "C" while one runs, which is why
# Explorer.open(warm=True) makes every compiled form before it returns.
_COMPILE_LOCK = threading.Lock()


def _pool_of(compiled: Any) -> queue.Queue:
    """A queue of infer requests of `compiled`, one per core."""
    pool: queue.Queue = queue.Queue()
    for _ in range(cores()):
        pool.put(compiled.create_infer_request())
    return pool


_FIRST_LOCK = threading.Lock()
_first_done = False


def _first_inference(compiled: Any) -> None:
    """Run this process's first OpenVINO inference alone. pyopenvino (2026.4) sets up shared
    state on first use with the GIL released inside a C++ static initialiser: two threads
    inferring for the first time at once deadlocked, every time, in a reproduction here."""
    global _first_done
    with _FIRST_LOCK:
        if not _first_done:
            request = compiled.create_infer_request()
            request.infer({port.any_name: np.ones((1, 1), dtype=np.int64)
                           for port in compiled.inputs})[0]
            _ = request.get_output_tensor(0).data
            _first_done = True
