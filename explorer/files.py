"""Generic file helpers: atomic writes, fsync of folders, checksums, and a folder lock."""

from __future__ import annotations

import fcntl
import hashlib
import os
import secrets
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from explorer.errors import ExplorerError

LOCK_NAME = ".build.lock"


def atomic_write(path: Path, write: Callable[[Path], Any]) -> None:
    """Write through `write(tmp)` to a temp name in the same folder, fsync, rename."""
    tmp = temp_name(path)
    try:
        write(tmp)
        with tmp.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def temp_name(path: Path) -> Path:
    """Where `atomic_write` writes `path` first: `.<name>.<8 hex>.tmp` beside it."""
    return path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")


def is_temp_of(name: str, target: str) -> bool:
    """True when `name` is a temp name `atomic_write` uses for a file named `target`."""
    prefix, suffix = f".{target}.", ".tmp"
    middle = name[len(prefix):-len(suffix)]
    return (name.startswith(prefix) and name.endswith(suffix) and len(middle) == 8
            and all(c in "0123456789abcdef" for c in middle))


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def make_dirs(folder: Path) -> None:
    """Create `folder` and any missing parents, each fsynced in its parent (so a crash right
    after cannot lose the folder that files were then written into)."""
    missing = []
    for path in (folder, *folder.parents):
        if path.is_dir():
            break
        missing.append(path)
    for path in reversed(missing):
        path.mkdir(exist_ok=True)
        fsync_dir(path.parent)


def file_checksum(path: Path, kind: str) -> str:
    """CRC-32 (catches corruption and truncation; 2x faster than SHA-256 here, which matters
    for every cold start of a 100k-paper index) or SHA-256, as hex."""
    with path.open("rb") as handle:
        return checksum_stream(handle, kind)


def checksum_stream(handle: BinaryIO, kind: str) -> str:
    """The CRC-32 or SHA-256 (hex) of what is left to read in `handle`."""
    digest = hashlib.sha256() if kind == "sha256" else None
    crc = 0
    for block in iter(lambda: handle.read(1 << 22), b""):
        if digest is None:
            crc = zlib.crc32(block, crc)
        else:
            digest.update(block)
    return f"{crc:08x}" if digest is None else digest.hexdigest()


class FolderLock:
    """An exclusive lock on a folder (`flock` on `<folder>/.build.lock`), held by one process.

    Waits up to `wait` seconds for another holder, then raises ExplorerError naming it. The
    kernel releases the lock when its process dies, even by kill -9, so it never goes stale.
    """

    def __init__(self, folder: Path, wait: float) -> None:
        self.folder, self.wait = folder, wait
        self._fd: int | None = None

    def __enter__(self) -> FolderLock:
        make_dirs(self.folder)
        fd = os.open(self.folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + max(0.0, self.wait)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
                    os.close(fd)
                    raise ExplorerError(
                        f"another build is writing {self.folder} (pid {holder}); wait for it to "
                        f"finish (or stop it) and run this build again, or give it longer with --wait "
                        f"SECONDS.") from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the lock; the file stays (see flock(2))
            self._fd = None
