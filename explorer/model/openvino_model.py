"""OpenVINO's side of runtimes.ExportedModel: the exported model compiled for the CPU, its
pools of infer requests and parallel streams, and the locks that its compiles and first
inference need (thread safety: runtimes.py)."""

from __future__ import annotations

import os
import queue
import threading
from pathlib import Path
from typing import Any

import numpy as np

from explorer.batching import IN_PROGRESS
from explorer.model.precision import inference_hint, probe
from explorer.settings import cores


class OpenVinoModel:
    """The model compiled by OpenVINO for the CPU, in bf16 where it has native bf16, else fp32
    (compiled blobs cached). Many batches run on a queue of parallel streams, one per core
    (one thread each), which measured more abstracts/s than batches run one after another
    (benchmarks/README.md, "Measured in the code").

    A question run alone runs on a low-latency compiled model (every core on one run); one
    that starts while another question's run is going runs on a stream of its own, one thread:
    two runs on the low-latency model share its one stream, in turn, each with a second thread
    spinning, which measured fewer questions/s (benchmarks/README.md, "Concurrent answers").
    Both compiled forms give the same vectors (bit for bit here; the tests hold them to float
    rounding). Every run takes an idle infer request of its pool, so concurrent
    runs never share one."""

    def __init__(self, path: Path, cache: Path) -> None:
        import openvino as ov

        self._ov, self._core = ov, ov.Core()
        # Compiled from the file's path, not a model read first: with CACHE_DIR, OpenVINO then
        # finds the compiled blob without parsing the ONNX file (a cold start's time).
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
