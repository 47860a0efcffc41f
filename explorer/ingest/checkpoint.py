"""Resumable embedding: vectors of a build in progress, saved in blocks beside the index.

A long build (100k abstracts takes an hour on a laptop) that is interrupted keeps what it has
embedded: the next build with the same model loads these blocks and embeds only the rest.
The folder is removed once the new index is written.
"""

from __future__ import annotations

import json
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from explorer.files import atomic_write, make_dirs

BLOCK = 2048  # papers embedded between two saves


class Checkpoint:
    """Blocks of (text hash -> vector) under `out/.partial-<key>/`; `key` names the model.

    Written under the build's folder lock; block names are unique all the same, so no two
    writers can ever overwrite each other's block."""

    def __init__(self, out: Path, key: str) -> None:
        self.folder = out / f".partial-{key}"

    def load(self, model_info: Callable[[], dict]) -> dict[str, np.ndarray]:
        """Every complete block saved so far (a block's hash list is written last), if they
        were embedded the way `model_info()` describes (same backend and precision)."""
        cache: dict[str, np.ndarray] = {}
        if not self.folder.is_dir():
            return cache
        try:
            recorded = json.loads((self.folder / "model.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            recorded = None
        if recorded != _comparable(model_info()):
            self.clear()  # other backend or precision: those vectors are not reused
            return cache
        for names in sorted(self.folder.glob("block-*.json")):
            vectors_path = names.with_suffix(".npy")
            try:
                hashes = json.loads(names.read_text(encoding="utf-8"))
                vectors = np.load(vectors_path, allow_pickle=False)
            except (OSError, ValueError):
                continue  # a block cut short by a crash: embed those papers again
            if len(hashes) == len(vectors):
                cache.update(zip(hashes, vectors))
        return cache

    def save(self, hashes: list[str], vectors: np.ndarray, model_info: dict) -> None:
        """Save one block of vectors (n, d) for papers with these text hashes."""
        if not self.folder.is_dir():
            make_dirs(self.folder)  # fsynced in its parent
            info = json.dumps(_comparable(model_info))
            atomic_write(self.folder / "model.json", lambda tmp: tmp.write_text(info))
        name = f"block-{secrets.token_hex(8)}"

        def write_vectors(tmp: Path) -> None:
            with tmp.open("wb") as handle:
                np.save(handle, vectors, allow_pickle=False)

        atomic_write(self.folder / f"{name}.npy", write_vectors)
        text = json.dumps(hashes)
        atomic_write(self.folder / f"{name}.json", lambda tmp: tmp.write_text(text))

    def clear(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _comparable(model_info: dict) -> dict:
    """The parts of a model's description that change its vectors."""
    return json.loads(json.dumps({k: v for k, v in model_info.items() if k != "path"}))
