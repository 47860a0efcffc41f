"""Many threads on one Explorer (Streamlit runs each session in its own thread and shares the
cached engine): every backend returns, under load, exactly what one thread gets."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from explorer.model.backends import ONNX, ONNX_INT8, OPENVINO, TORCH
from explorer.model.embedder import Embedder, resolve_model
from explorer.query.engine import Explorer

THREADS, PER_THREAD = 8, 20
_TOPICS = ["graph neural networks", "protein structure", "video matting", "chain of thought",
           "speech recognition", "federated learning", "diffusion models", "robot grasping",
           "sparse attention", "language model reasoning", "image segmentation",
           "reinforcement learning", "molecular property prediction", "code generation",
           "machine translation", "anomaly detection", "knowledge distillation",
           "recommender systems", "contrastive pretraining", "time series forecasting"]
_ASKS = ["how does {} work", "recent progress in {}", "{} with little labelled data",
         "benchmarks for {}", "what limits {}", "{} on small devices", "theory of {}",
         "is {} robust to noise"]
# 160 distinct questions nobody asked before in this process (no cache can answer them).
QUESTIONS = [ask.format(topic) for topic in _TOPICS for ask in _ASKS]
QUESTIONS[7] = "a very long question " + "about attention in transformers " * 80  # note
assert len(set(QUESTIONS)) == THREADS * PER_THREAD
ATOL = 1e-5


def _answer(explorer: Explorer, question: str) -> tuple:
    """What a session does with a fresh question: its vector, the default (hybrid) ranking
    through FAISS, BM25 and the feedback pass, and the truncation note."""
    vector = explorer.embed_query(question)
    hits = [(h.paper_id, h.score) for h in explorer.search_vector(vector, 10, text=question)]
    return vector, hits, explorer.query_note(question)


def _together(work: Callable[[int], object], threads: int = THREADS) -> list:
    """Run work(i) for i < threads, all released at once by a barrier; re-raise any error."""
    barrier = threading.Barrier(threads)
    results: list = [None] * threads
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = work(i)
        except BaseException as exc:  # noqa: BLE001 - reported below, with every thread's failures
            errors.append(exc)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if errors:
        raise AssertionError(f"{len(errors)} of {threads} threads failed: {errors[0]!r}")
    return results


def _loadable(backend: str) -> None:
    if backend == OPENVINO and importlib.util.find_spec("openvino") is None:
        pytest.skip("openvino is not installed on this machine")
    if backend in (ONNX, ONNX_INT8) and importlib.util.find_spec("onnxruntime") is None:
        pytest.skip("onnxruntime is not installed on this machine")


@pytest.mark.parametrize("backend", [OPENVINO, ONNX, ONNX_INT8, TORCH])
def test_threads_on_one_explorer_get_what_one_thread_gets(backend: str, seeds_index: Path):
    _loadable(backend)
    explorer = Explorer.open(seeds_index, backend=backend)  # model and BM25 load lazily

    def session(i: int) -> tuple:
        answers = [_answer(explorer, q) for q in QUESTIONS[i::THREADS]]
        return answers, explorer.embedder, explorer.lexical

    sessions = _together(session)
    assert len({id(embedder) for _, embedder, _ in sessions}) == 1  # one model loaded
    assert len({id(lexical) for _, _, lexical in sessions}) == 1
    assert sessions[0][1].backend == backend
    for i, (answers, _, _) in enumerate(sessions):
        for question, (vector, hits, note) in zip(QUESTIONS[i::THREADS], answers):
            alone_vector, alone_hits, alone_note = _answer(explorer, question)
            np.testing.assert_allclose(vector, alone_vector, rtol=0, atol=ATOL)
            assert [pid for pid, _ in hits] == [pid for pid, _ in alone_hits], question
            np.testing.assert_allclose([s for _, s in hits], [s for _, s in alone_hits],
                                       rtol=0, atol=ATOL)
            assert note == alone_note
    assert sessions[7 % THREADS][0][0][2] is not None  # the long question got its note


@pytest.mark.parametrize("backend", [OPENVINO, ONNX])
def test_two_threads_embedding_documents_at_once_get_serial_vectors(backend: str,
                                                                      seeds_explorer: Explorer):
    """The build's path (several batches per call; OpenVINO runs them on parallel streams)
    called from two threads at once."""
    _loadable(backend)
    texts = [p.abstract[:300] for p in seeds_explorer.papers[:32]]
    embedder = Embedder(resolve_model("default"), backend=backend, batch_size=4)  # 8 batches
    alone = embedder.embed_documents(texts)
    together = _together(lambda i: embedder.embed_documents(texts[::-1] if i else texts), 2)
    np.testing.assert_allclose(together[0], alone, rtol=0, atol=ATOL)
    np.testing.assert_allclose(together[1], alone[::-1], rtol=0, atol=ATOL)
