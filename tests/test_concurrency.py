"""Many threads on one Explorer (Streamlit runs each session in its own thread and shares the
cached engine): every backend returns, under load, exactly what one thread gets."""

from __future__ import annotations

import importlib.util
import locale
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from explorer.batching import IN_PROGRESS
from explorer.model.backends import AUTO, ONNX, ONNX_INT8, OPENVINO, TORCH, auto_backends
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


def test_questions_answered_at_once_run_on_streams_with_their_vectors_alone():
    """OpenVINO runs a question answered alone on its low-latency model and one answered
    beside others on a stream of one thread: the vectors are those of one thread alone."""
    _loadable(OPENVINO)
    embedder = Embedder(resolve_model("default"), backend=OPENVINO, batch=False)
    asked = QUESTIONS[:32]
    alone = np.vstack([embedder.embed_query(question) for question in asked])
    runtime = embedder._exported._run_query.__self__  # which pool ran: the test's point
    assert runtime._stream_requests is None  # alone, every question took the latency model

    def session(i: int) -> list[np.ndarray]:
        with IN_PROGRESS.answering():
            return [embedder.embed_query(question) for question in asked[i::4]]

    together = _together(session, 4)
    assert runtime._stream_requests is not None
    for i, vectors in enumerate(together):
        np.testing.assert_allclose(np.vstack(vectors), alone[i::4], rtol=0, atol=ATOL)


def test_models_compiled_in_several_threads_at_once_leave_the_locale_as_it_was():
    """OpenVINO sets the process's locale to "C" while it compiles and puts back what it found:
    compiles in two threads at once once left "C" for good, and Python decoded subprocess
    output as ASCII from then on (openvino_model._COMPILE_LOCK)."""
    _loadable(OPENVINO)
    previous = locale.setlocale(locale.LC_ALL)
    try:  # OpenVINO switches only from a numeric locale other than "C": a process's usual one
        locale.setlocale(locale.LC_ALL, "C.UTF-8")
    except locale.Error:
        pytest.skip("no C.UTF-8 locale on this machine to compile under")
    try:
        for _ in range(3):  # each engine compiles its question form and its form for many texts
            _together(lambda _: Embedder(resolve_model("default"), backend=OPENVINO).warm_up(), 4)
            assert locale.setlocale(locale.LC_ALL) == "C.UTF-8"
    finally:
        locale.setlocale(locale.LC_ALL, previous)


# -- batching: questions that arrive together share model runs and index scans ----------------
def _alone_and_batched(index, queries: np.ndarray, top_k: int, label: str) -> None:
    for size in (2, 4, len(queries)):
        scores, rows = index.search(queries[:size], top_k)
        for i, query in enumerate(queries[:size]):
            alone_scores, alone_rows = index.search(query, top_k)
            np.testing.assert_array_equal(rows[i], alone_rows[0], err_msg=f"{label} {size}")
            np.testing.assert_array_equal(scores[i], alone_scores[0], err_msg=f"{label} {size}")


def test_a_batch_of_queries_gets_what_each_query_gets_alone(monkeypatch, seeds_explorer: Explorer):
    """VectorIndex.search of up to FEW_QUERIES queries: every query's scores and rows are
    bit for bit those of its search alone, on each path (small flat; a big flat index split
    into parallel ranges; HNSW), with duplicated rows for ties."""
    from explorer.index import dense, scan

    vectors = np.vstack([seeds_explorer.vectors, seeds_explorer.vectors[:5]])
    rng = np.random.default_rng(3)
    queries = vectors[rng.choice(len(vectors), dense.FEW_QUERIES)]
    queries = queries + 0.05 * rng.normal(size=queries.shape).astype(np.float32)
    for kind in ("flat", "hnsw"):
        _alone_and_batched(dense.VectorIndex.build(vectors, kind), queries, 30, kind)
    big = rng.normal(size=(scan.SPLIT_ROWS + 5000, 64)).astype(np.float32)
    big /= np.linalg.norm(big, axis=1, keepdims=True)
    big[-300:] = big[:300]  # ties across the parallel ranges
    big_queries = big[rng.choice(len(big), dense.FEW_QUERIES)] + 0.3 * rng.normal(
        size=(dense.FEW_QUERIES, 64)).astype(np.float32)
    index = dense.VectorIndex.build(big, "flat")
    assert scan.parts(index.count, dense.FEW_QUERIES) >= 1
    _alone_and_batched(index, big_queries, 200, "big flat")
    monkeypatch.setattr(scan, "RESCORED", 0)  # no room: every batched query searched again
    _alone_and_batched(index, big_queries, 200, "big flat, no room")
    monkeypatch.setattr(scan, "SPLIT_ROWS", 16)  # the seeds as a big index
    _alone_and_batched(dense.VectorIndex.build(vectors, "flat"), queries, 30, "split seeds")


def _recording(monkeypatch) -> dict[str, list[int]]:
    """Sizes of the question runs and of the index searches made from now on."""
    from explorer.index.dense import VectorIndex
    from explorer.model.runtimes import ExportedModel

    sizes: dict[str, list[int]] = {"questions": [], "searches": []}
    embed, search = ExportedModel.embed, VectorIndex.search

    def recorded_embed(self, texts, batch_size, latency=False):
        if latency:
            sizes["questions"].append(len(texts))
        return embed(self, texts, batch_size, latency)

    def recorded_search(self, queries, top_k, allowed=None):
        sizes["searches"].append(len(np.atleast_2d(queries)))
        return search(self, queries, top_k, allowed)

    monkeypatch.setattr(ExportedModel, "embed", recorded_embed)
    monkeypatch.setattr(VectorIndex, "search", recorded_search)
    return sizes


@pytest.mark.parametrize("backend", [AUTO, ONNX, OPENVINO])
def test_batched_answers_are_the_answers_of_one_thread_without_batching(
        monkeypatch, backend: str, seeds_index: Path, cpu_branch):
    """8 threads x 20 fresh questions at once through `search` (hybrid: model, FAISS, BM25,
    feedback) on a batching Explorer, against one thread on an Explorer that batches nothing:
    the same papers in the same order, the same scores up to float rounding (a question's
    vector in a batch of several differs from its vector alone in the last bits), and the
    threads' questions were in fact batched in the model. Then the same through
    `search_vector` (the paths that reach the index from many threads at once): the same
    answers, and the index searched several vectors at once. The automatic backend first:
    the one every session gets (it must not depend on a text's batch-mates)."""
    from explorer.index import scan

    _loadable(backend)
    automatic = auto_backends()[0]
    if backend != AUTO and backend == automatic:
        cpu_branch(f"skipped: {backend} is the automatic backend here, tested as auto")
        pytest.skip(f"{backend} is the automatic backend here: tested as auto")
    cpu_branch(f"ran {backend} (the automatic backend here: {automatic})")
    monkeypatch.setattr(scan, "SPLIT_ROWS", 16)  # the seeds take the big index's path
    alone = Explorer.open(seeds_index, backend=backend, batch=False)
    expected = {q: [(h.paper_id, h.score) for h in alone.search(q, 10)] for q in QUESTIONS}
    sizes = _recording(monkeypatch)
    shared = Explorer.open(seeds_index, backend=backend)
    shared.search("warm up the model and the lexical channel")
    answers = _together(lambda i: [[(h.paper_id, h.score) for h in shared.search(q, 10)]
                                   for q in QUESTIONS[i::THREADS]])
    for i, session in enumerate(answers):
        for question, hits in zip(QUESTIONS[i::THREADS], session):
            assert [pid for pid, _ in hits] == [pid for pid, _ in expected[question]], question
            np.testing.assert_allclose([s for _, s in hits], [s for _, s in expected[question]],
                                       rtol=0, atol=1e-6)
    assert max(sizes["questions"]) > 1, sizes
    assert sum(sizes["questions"]) == len(QUESTIONS) + 1  # every question embedded once
    vectors = {q: alone.embed_query(q) for q in QUESTIONS}
    expected = {q: [(h.paper_id, h.score) for h in alone.search_vector(vectors[q], 10, text=q)]
                for q in QUESTIONS}
    sizes["searches"].clear()
    answers = _together(lambda i: [[(h.paper_id, h.score) for h in
                                    shared.search_vector(vectors[q], 10, text=q)]
                                   for q in QUESTIONS[i::THREADS]])
    for i, session in enumerate(answers):
        for question, hits in zip(QUESTIONS[i::THREADS], session):
            assert hits == expected[question], question  # the same vector: bit for bit
    assert max(sizes["searches"]) > 1, sizes


def test_questions_are_batched_only_where_a_vector_ignores_its_batch_mates():
    """The automatic backend batches questions; dynamic int8 (one activation scale per batch:
    a question's vector would depend on who asked at the same moment) and batch=False never."""
    _loadable(ONNX_INT8)
    spec = resolve_model("default")
    assert Embedder(spec)._questions is not None
    assert Embedder(spec, batch=False)._questions is None
    assert Embedder(spec, backend=ONNX_INT8)._questions is None


def test_a_batcher_hands_each_caller_its_own_answer_and_error():
    """The batcher's plumbing with a stand-in `answer` (the real ones are tested above): each
    caller gets its item's answer, one bad item fails only its caller, at most `workers`
    batches run at once, and a lone caller runs at once."""
    from explorer.batching import Batcher

    running, most, lock = [0], [0], threading.Lock()
    sizes: list[int] = []

    def answer(items: list[int]) -> list[int]:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            sizes.append(len(items))
        try:
            if 13 in items:
                raise ValueError("unlucky")
            threading.Event().wait(0.005)
            return [item * 2 for item in items]
        finally:
            with lock:
                running[0] -= 1

    batcher = Batcher(answer, limit=4, workers=2)
    assert batcher(5) == 10 and sizes == [1]

    def caller(i: int) -> list:
        found = []
        for item in range(i * 10, i * 10 + 10):
            try:
                found.append(batcher(item))
            except ValueError as exc:
                found.append(str(exc))
        return found

    results = _together(caller)
    for i, found in enumerate(results):
        items = range(i * 10, i * 10 + 10)
        assert found == ["unlucky" if item == 13 else item * 2 for item in items]
    assert most[0] <= 2 and max(sizes) <= 4 and max(sizes) > 1


def test_a_batcher_frees_each_caller_as_soon_as_its_answer_is_yielded():
    """An `answer` that yields: a caller whose result came is free while the batch goes on
    (the thread running the batch waits for all); an error half-way through a batch reaches
    only its own caller, and the batch's other requests are answered alone."""
    from explorer.batching import Batcher

    first, rest = threading.Event(), threading.Event()
    runner: list[int] = []
    returned: dict[str, str] = {}

    def answer(items: list[str]):
        if items == ["first"]:
            first.wait(5)
        if len(items) == 3 and "a" in items:
            runner.append(threading.get_ident())
        for position, item in enumerate(items):
            if item == "bad":
                raise ValueError("bad item")
            if len(items) == 3 and position == 2:
                rest.wait(5)  # the third answer waits: the first two are out already
            yield item.upper()

    batcher = Batcher(answer, limit=3, workers=1)
    threads = _one_batch_behind(batcher, first, ["a", "b", "c"], returned)
    _until(lambda: bool(runner))  # one of the three runs their batch
    running = next(item for item in "abc" if threads[item].ident == runner[0])
    freed = {"a", "b"} - {running}
    _until(lambda: freed <= set(returned))
    assert set(returned) == {"first"} | freed, returned  # the runner and 'c' wait for the rest
    rest.set()
    for thread in threads.values():
        thread.join(5)
    assert returned == {"first": "FIRST", "a": "A", "b": "B", "c": "C"}

    first.clear()
    returned.clear()
    for thread in _one_batch_behind(batcher, first, ["x", "bad", "y"], returned).values():
        thread.join(5)
    assert returned == {"first": "FIRST", "x": "X", "bad": "bad item", "y": "Y"}


def test_a_batcher_under_many_callers_never_leaves_one_waiting():
    """Many sessions at once, as the app makes them: 16 threads asking 150 times each, with
    answers of uneven length, all finish (a lost wake-up would leave one waiting for ever),
    each with its own answers, and the requests went in batches."""
    from explorer.batching import Batcher

    def answer(items: list[int]):
        for item in items:
            if item % 7 == 0:
                threading.Event().wait(0.0005)
            yield -item

    batcher = Batcher(answer, limit=3, workers=2)
    finished: list[list[int]] = [[] for _ in range(16)]

    def caller(i: int) -> None:
        finished[i] = [batcher(i * 1000 + n) for n in range(150)]

    threads = [threading.Thread(target=caller, args=(i,), daemon=True) for i in range(16)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    assert not any(thread.is_alive() for thread in threads), "a caller was never woken"
    assert finished == [[-(i * 1000 + n) for n in range(150)] for i in range(16)]
    assert batcher.requests == 16 * 150 and batcher.batches < batcher.requests


def _one_batch_behind(batcher, gate: threading.Event, items: list[str], returned: dict
                      ) -> dict[str, threading.Thread]:
    """Threads asking `batcher` for "first" (its answer waits for `gate`, holding the one
    worker) and then for `items`, queued in order behind it: they make one batch when `gate`
    opens (here). Each thread's answer, or its error's text, lands in `returned`."""
    def ask(item: str) -> None:
        try:
            returned[item] = batcher(item)
        except ValueError as exc:
            returned[item] = str(exc)

    threads = {item: threading.Thread(target=ask, args=(item,)) for item in ["first", *items]}
    done = batcher.batches
    threads["first"].start()
    _until(lambda: batcher.batches == done + 1)
    for queued, item in enumerate(items, start=1):
        threads[item].start()
        _until(lambda n=queued: len(batcher._queue) == n)
    gate.set()
    return threads


def _until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    """Wait (polling) until `condition()` holds; fail the test after `seconds`."""
    for _ in range(int(seconds * 1000)):
        if condition():
            return
        threading.Event().wait(0.001)
    raise AssertionError("timed out waiting")
