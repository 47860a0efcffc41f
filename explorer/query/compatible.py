"""Which model may embed questions for an index: the one it was built with, or one whose
weights have the same fingerprint; anything else is refused with the command to run. And that
model loaded and warmed on a thread while an index opens (`Explorer.open(warm=True)`)."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from explorer.artifacts.manifest import Manifest
from explorer.artifacts.store import read_manifest, rebuild_hint
from explorer.errors import IndexInvalidError, ModelNotFoundError
from explorer.model.cache import shared_embedder
from explorer.model.embedder import BUNDLED_NAMES, Embedder, ModelSpec, resolve_model


def recorded_model(manifest: Manifest) -> str:
    """The model name or folder an index was built with ("default" for the bundled one)."""
    name = manifest.model.model_id or ""
    path = name if manifest.model.path is None else manifest.model.path
    return "default" if name.lower() in BUNDLED_NAMES else path


def comparable_model(manifest: Manifest, folder: Path, model: str | None = None) -> ModelSpec:
    """The model `model` names (None: the one recorded in `manifest`), refused when its
    vectors would not be comparable to those of the index in `folder`."""
    recorded = manifest.model
    model = recorded_model(manifest) if model is None else model
    try:
        spec = resolve_model(model)
    except ModelNotFoundError as exc:
        raise ModelNotFoundError(
            f"{exc} (this index was built with {recorded.model_id})") from None
    if spec.fingerprint == recorded.fingerprint:
        return spec
    hint = f"`{rebuild_hint(folder, manifest)} --model {model}`"
    if spec.model_id == recorded.model_id:
        raise IndexInvalidError(
            f"This index was built with another version of {spec.model_id} (the weights' "
            f"fingerprint changed: a new model package, changed weights, or an index from "
            f"before the package version was part of it); their vectors are not "
            f"comparable. Rebuild once: {hint}.")
    raise IndexInvalidError(
        f"This index was built with model {recorded.model_id} but {spec.model_id} was "
        f"requested (or that folder's weights changed since); their vectors are not "
        f"comparable. Use the same model, or rebuild: {hint}.")


def start_warming(folder: Path, model: str | None, backend: str, batch: bool
                  ) -> tuple[ModelSpec, Future[Embedder]]:
    """The model of the index in `folder` (as its manifest names it now), being loaded and
    warmed up on a thread of its own."""
    spec = comparable_model(read_manifest(folder), folder, model)

    def load() -> Embedder:
        embedder = shared_embedder(spec, backend=backend, batch=batch)
        embedder.warm_up()
        return embedder

    return spec, WARMING.submit(load)


WARMING = ThreadPoolExecutor(1, thread_name_prefix="explorer-warm")
