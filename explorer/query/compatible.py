"""Which model may embed questions for an index: the one it was built with, or one whose
weights have the same fingerprint; anything else is refused with the command to run."""

from __future__ import annotations

from pathlib import Path

from explorer.artifacts.manifest import Manifest
from explorer.artifacts.store import rebuild_hint
from explorer.errors import IndexInvalidError, ModelNotFoundError
from explorer.model.embedder import BUNDLED_NAMES, ModelSpec, resolve_model


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
