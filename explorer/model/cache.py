"""The loaded models of this process: one Embedder per model and way of running it, shared by
every index opened and every build that embeds (`shared_embedder`). A model loads in 0.4 s
(ONNX Runtime) to several seconds (torch, OpenVINO's compile); an app, an API or a test run
that opens indexes again and again loads it once. An Embedder is safe to share between
threads (the app's sessions already share one), so sharing it between indexes adds nothing
that one index's threads do not already do."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple

from explorer.model.backends import AUTO
from explorer.model.embedder import Embedder, ModelSpec
from explorer.settings import DEFAULT_BATCH_SIZE, default_cache_dir

MAX_MODELS = 3  # models kept loaded at once: the least recently asked for is let go past it


class Key(NamedTuple):
    """Everything that changes what an Embedder loads or how it runs: the weights (folder,
    id, fingerprint), the backend asked for, the batching and the export cache folder."""

    path: Path
    model_id: str
    fingerprint: str
    backend: str
    batch_size: int
    batch: bool
    cache_dir: Path


_MODELS: OrderedDict[Key, Embedder] = OrderedDict()
_LOADING: dict[Key, threading.Lock] = {}  # one lock per key, held while that model loads
_LOCK = threading.Lock()  # guards the two dicts only, never held while a model loads


def shared_embedder(spec: ModelSpec, *, backend: str = AUTO, batch_size: int = DEFAULT_BATCH_SIZE,
                    batch: bool = True, cache_dir: Path | None = None) -> Embedder:
    """The Embedder(spec, backend=, batch_size=, batch=, cache_dir=) of this process, loaded on
    the first call for its Key; two threads asking at once wait for one load."""
    key = Key(spec.path, spec.model_id, spec.fingerprint, backend, batch_size, batch,
              Path(cache_dir or default_cache_dir()))
    with _LOCK:
        if key in _MODELS:
            _MODELS.move_to_end(key)
            return _MODELS[key]
        loading = _LOADING.setdefault(key, threading.Lock())
    with loading:
        with _LOCK:
            if key in _MODELS:  # another thread loaded it while this one waited
                return _MODELS[key]
        embedder = Embedder(spec, batch_size=batch_size, backend=backend, cache_dir=cache_dir,
                            batch=batch)
        with _LOCK:
            _MODELS[key] = embedder
            _LOADING.pop(key, None)
            while len(_MODELS) > MAX_MODELS:
                _MODELS.popitem(last=False)
    return embedder

