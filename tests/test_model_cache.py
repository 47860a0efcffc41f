"""The process's loaded models (explorer/model/cache.py): indexes opened again and again, and
builds, share one real model; another model folder, backend or batching loads its own."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import numpy as np

from explorer.ingest.embedding import LazyEmbedder
from explorer.model import cache
from explorer.model.backends import ONNX
from explorer.model.embedder import resolve_model
from explorer.query.engine import Explorer


def test_two_opens_of_an_index_and_a_build_share_one_model(seeds_index: Path):
    first, second = Explorer.open(seeds_index), Explorer.open(seeds_index, warm=True)
    assert first.embedder is second.embedder
    spec = resolve_model("default")
    built = LazyEmbedder(spec, first.embedder.batch_size, None)
    assert built.embed("documents", ["a text"]).shape == (1, first.embedder.dimension)
    assert built._embedder is first.embedder  # a build in this process loads nothing again
    assert cache.shared_embedder(spec, batch=False) is not first.embedder  # its own batching
    # the shared model still answers each Explorer as its own index asks
    question = "training robots with reinforcement learning"
    assert [h.paper_id for h in first.search(question, 5)] == \
        [h.paper_id for h in second.search(question, 5)]


def test_another_model_folder_gets_a_model_of_its_own(tmp_path: Path):
    bundled = resolve_model("default")
    copy = tmp_path / "model"
    shutil.copytree(bundled.path, copy)
    spec = resolve_model(str(copy))
    assert spec.path != bundled.path
    # one backend for both: the automatic one differs (static int8 is automatic only for the
    # bundled model, on CPUs with VNNI), and the vectors are compared below
    mine = cache.shared_embedder(spec, backend=ONNX)
    theirs = cache.shared_embedder(bundled, backend=ONNX)
    assert mine is not theirs and mine.spec == spec and theirs.spec == bundled
    assert cache.shared_embedder(spec, backend=ONNX) is mine
    texts = ["graph neural networks for molecules"]
    np.testing.assert_allclose(mine.embed_queries(texts), theirs.embed_queries(texts), atol=1e-5)


def test_threads_asking_at_once_wait_for_one_load_and_the_oldest_is_let_go(monkeypatch):
    """Four threads asking for a model nobody loaded yet: one load (slowed, so that they
    overlap), one Embedder; past MAX_MODELS the least recently asked for is let go."""
    loads: list[str] = []
    real = cache.Embedder

    def slow(spec, **options):
        loads.append(options["backend"])
        time.sleep(0.3)
        return real(spec, **options)

    monkeypatch.setattr(cache, "Embedder", slow)
    monkeypatch.setattr(cache, "_MODELS", cache.OrderedDict())
    spec = resolve_model("default")
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(cache.shared_embedder(spec)))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1 and len(got) == 4 and all(e is got[0] for e in got)
    for batch_size in range(1, cache.MAX_MODELS + 1):  # MAX_MODELS more: the first goes
        cache.shared_embedder(spec, batch_size=batch_size)
    assert cache.shared_embedder(spec) is not got[0] and len(loads) == cache.MAX_MODELS + 2
    onnx = cache.shared_embedder(spec, backend=ONNX)  # asked by name: a backend of its own
    assert onnx.backend == ONNX and onnx is not cache.shared_embedder(spec)
