"""`explorer build --engine ray`: embed with Ray Data over an actor pool, one model per actor.

The driver (the machine running `explorer build`) reads the corpus, writes the index and keeps
the incremental cache exactly as a local build does; only the embedding of new texts runs on the
Ray cluster. Ray connects where `ray.init()` would: RAY_ADDRESS (an existing cluster) or, when
unset, a fresh local instance. Every node needs Paper Explorer and the model installed; a local
model folder must exist at the same path on each node (its fingerprint is checked per actor).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from explorer.errors import ExplorerError
from explorer.model.cache import shared_embedder
from explorer.model.embedder import AUTO, BUNDLED_NAMES, Embedder, ModelSpec, resolve_model
from explorer.settings import DEFAULT_BATCH_SIZE

LOCAL, RAY = "local", "ray"
ENGINES = (LOCAL, RAY)
CPUS_PER_ACTOR = 1


def create_embedder(spec: ModelSpec, *, batch_size: int = DEFAULT_BATCH_SIZE, engine: str = LOCAL):
    """An object with Embedder's interface for `engine` ('local' or 'ray')."""
    if engine == LOCAL:
        return shared_embedder(spec, batch_size=batch_size)  # model/cache.py: loaded once
    if engine == RAY:
        return RayEmbedder(spec, batch_size=batch_size)
    raise ExplorerError(f"Unknown engine {engine!r}: use {' or '.join(ENGINES)}.")


class _EmbedActor:
    """One Ray actor: loads the model once, then embeds batches {'row', 'text'}."""

    def __init__(self, model: str, fingerprint: str, batch_size: int, backend: str) -> None:
        spec = resolve_model(model)
        if spec.fingerprint != fingerprint:
            raise ExplorerError(f"the model {model} on this Ray node differs from the driver's "
                                f"(fingerprint {spec.fingerprint}, expected {fingerprint})")
        self._embedder = Embedder(spec, batch_size=batch_size, backend=backend)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        vectors = self._embedder.embed_documents([str(text) for text in batch["text"]])
        info = self._embedder.info
        label = f"{info['backend']}/{info['precision']}"
        return {"row": batch["row"], "vector": vectors,
                "backend": np.array([label] * len(vectors)),
                "max_seq_length": np.full(len(vectors), self._embedder.max_seq_length)}


class RayEmbedder:
    """Embeds with a Ray Data actor pool; same interface and vectors as Embedder.

    `workers` actors (default: the cluster's CPUs, one CPU each) each load the model once per
    call of `embed_documents`. Rows come back in input order.
    """

    def __init__(self, spec: ModelSpec, *, batch_size: int = DEFAULT_BATCH_SIZE,
                 workers: int | None = None, backend: str = AUTO) -> None:
        try:
            import ray
        except ImportError as exc:
            raise ExplorerError("--engine ray needs Ray Data: `pip install 'ray[data]'` "
                                "(or `pip install -e '.[ray]'`).") from exc
        if not ray.is_initialized():
            ray.init(log_to_driver=False, include_dashboard=False)  # reads RAY_ADDRESS itself
        self.spec, self.batch_size, self.backend = spec, batch_size, backend
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = workers or max(1, cpus // CPUS_PER_ACTOR)
        self.dimension: int | None = None
        self.max_seq_length: int | None = None
        self._backends: set[str] = set()

    @property
    def info(self) -> dict[str, object]:
        """Model info for the manifest; backend lists what the actors ran (e.g. ray:openvino/bf16)."""
        return {"id": self.spec.model_id, "fingerprint": self.spec.fingerprint,
                "dimension": self.dimension, "max_seq_length": self.max_seq_length,
                "normalized": True, "backend": "ray:" + ",".join(sorted(self._backends)),
                "precision": "per actor"}

    def embed_documents(self, texts: Sequence[str],
                        progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed texts -> float32 (n, d), unit rows, in input order."""
        import ray.data

        if not texts:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        name = self.spec.model_id if self.spec.model_id.lower() in BUNDLED_NAMES else str(
            self.spec.path)
        items = [{"row": row, "text": text} for row, text in enumerate(texts)]
        dataset = ray.data.from_items(items).map_batches(
            _EmbedActor, batch_size=self._ray_batch(len(texts)), batch_format="numpy",
            fn_constructor_kwargs={"model": name, "fingerprint": self.spec.fingerprint,
                                   "batch_size": self.batch_size, "backend": self.backend},
            concurrency=self.workers, num_cpus=CPUS_PER_ACTOR)
        out: np.ndarray | None = None
        for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
            vectors = np.asarray(batch["vector"], dtype=np.float32)
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[np.asarray(batch["row"], dtype=np.int64)] = vectors
            self._backends.update(str(label) for label in set(batch["backend"]))
            self.max_seq_length = int(batch["max_seq_length"][0])
            if progress:
                progress(len(vectors))
        self.dimension = int(out.shape[1])
        return out

    def _ray_batch(self, count: int) -> int:
        """Texts per Ray batch: about four per worker, so every actor gets work and the last
        batches even out; between one model batch and 16 of them."""
        share = -(-count // (4 * self.workers))
        return int(min(16 * self.batch_size, max(self.batch_size, share)))

    def embed_query(self, text: str) -> np.ndarray:
        """One query -> (d,): embedded on the cluster like any document."""
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Questions -> (n, d), each as embed_query embeds it."""
        return self.embed_documents(texts)
