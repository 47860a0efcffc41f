"""What a build finds in its folder: whether the index there is already current, and the
previous build that an update reuses (its vectors, arrays and extras, matched by text hash).
An index of an older format is read here too (`older=True`): a rebuild reuses its vectors."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explorer.artifacts.layout import ADDED_IN, BUILDS, EXTRAS, ID_HASHES, RELATIVES, TEXT_HASHES
from explorer.artifacts.manifest import Manifest
from explorer.artifacts.store import load_artifacts, read_manifest, verify_files
from explorer.corpus.sentences import SPLITTER_VERSION
from explorer.errors import ExplorerError
from explorer.features.new.stage import Before
from explorer.features.relatives import stage as relatives
from explorer.index.dense import VectorIndex
from explorer.index.lexical import SETTINGS as LEXICAL_SETTINGS
from explorer.model.embedder import ModelSpec


def stored_sentences(out: Path) -> bool:
    """Whether the index in `out` stores sentence vectors (a default build keeps doing so)."""
    try:
        return bool(read_manifest(out, older=True).sentences)
    except ExplorerError:
        return False


@dataclass(frozen=True)
class BuildSettings:
    """What, besides the model, a build must share with the index in its folder for that index
    to be current; the manifest records each under its name."""

    corpus_hash: str | None
    index_type: str | None
    sentences: bool | None
    sentence_splitter: int | None
    lexical: Mapping[str, Any] | None

    @classmethod
    def of_build(cls, lines: Sequence[str], index_type: str, sentences: bool) -> BuildSettings:
        """A build's settings: its papers' `lines` (as the papers file stores them) hashed."""
        corpus_hash = hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()
        return cls(corpus_hash, index_type, sentences, SPLITTER_VERSION, LEXICAL_SETTINGS)

    @classmethod
    def of(cls, manifest: Manifest) -> BuildSettings:
        return cls(manifest.corpus_hash, manifest.index_type, manifest.sentences,
                   manifest.sentence_splitter, manifest.lexical)


def is_current(out: Path, spec: ModelSpec, settings: BuildSettings) -> bool:
    """True when the folder already holds exactly this corpus, model and settings."""
    try:
        manifest = read_manifest(out)
    except ExplorerError:
        return False
    if manifest.model.fingerprint != spec.fingerprint or BuildSettings.of(manifest) != settings:
        return False
    try:
        verify_files(out, manifest)  # checksums last: they read every file
        extras = json.loads((out / manifest.files[EXTRAS].name).read_text(encoding="utf-8"))
    except (ExplorerError, OSError, ValueError):
        return False
    # close relatives found as this build would find them (the index type among their settings)
    return (isinstance(extras, dict)
            and extras.get(RELATIVES) == relatives.settings(settings.index_type))


@dataclass
class Previous:
    """What an update reuses from the build already in the folder; its paper records are not
    parsed: rows are matched by the stored text hashes."""

    manifest: Manifest
    vectors: np.ndarray  # (n, d)
    arrays: dict[str, np.ndarray]
    extras: dict
    text_hashes: list[str]  # (n,) the text hash of each row
    index: VectorIndex | None = None  # its vector index (an IVF update keeps its trained lists)

    @property
    def sentence_source(self) -> tuple[Manifest, dict[str, np.ndarray], list[str]]:
        """What features/explanations/stage.sentence_arrays reuses of this build."""
        return self.manifest, self.arrays, self.text_hashes


def previous_build(out: Path, spec: ModelSpec) -> Previous | None:
    """The previous build in `out` (of an older format too) when it used the same model."""
    try:
        found = load_artifacts(out, papers=False, older=True)
    except ExplorerError:
        return None
    if found.manifest.model.fingerprint != spec.fingerprint:
        return None
    stored = found.arrays.get(TEXT_HASHES)
    if stored is not None and len(stored) == found.index.count:
        hashes = [row.tobytes().hex() for row in stored]
    else:  # built before the hashes were stored
        hashes = [p.text_hash for p in load_artifacts(out, older=True).papers]
    return Previous(found.manifest, found.index.vectors(), found.arrays, found.extras, hashes,
                    found.index)


def before(previous: Previous | None) -> Before | None:
    """What features/new/stage.py needs of the previous build."""
    if previous is None:
        return None
    return Before(previous.manifest.build_id, previous.manifest.built_at, previous.text_hashes,
                  previous.arrays.get(ADDED_IN), previous.extras.get(BUILDS),
                  previous.arrays.get(ID_HASHES))
