"""Named arrays of an index read on demand, and the checksum check of an open file."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

import numpy as np

from explorer import files
from explorer.artifacts.manifest import FileEntry
from explorer.errors import IndexInvalidError

Opened = dict[str, tuple[Path, FileEntry, BinaryIO]]  # role -> (path, entry, handle)


class Arrays(Mapping[str, np.ndarray]):
    """The named arrays of an index; those given open (`later`) are read and checksummed on
    first use.

    Their files are opened with the index, so a later build that replaces them (and deletes the old
    files) cannot take them away from an index that is already open. Safe to share between
    threads: one lock per role, none once read; a file that failed is not read again."""

    def __init__(self, loaded: dict[str, np.ndarray], later: Opened, hint: str) -> None:
        self._loaded = loaded
        self._later = later
        self._hint = hint
        self._locks = {role: threading.Lock() for role in later}
        self._failed: dict[str, str] = {}  # role -> the message it failed with

    def __getitem__(self, role: str) -> np.ndarray:
        array = self._loaded.get(role)
        if array is not None:
            return array
        if role not in self._later:
            raise KeyError(role)
        with self._locks[role]:
            if role not in self._loaded:
                if role not in self._failed:
                    self._read(role)
                if role in self._failed:
                    raise IndexInvalidError(self._failed[role])
        return self._loaded[role]

    def _read(self, role: str) -> None:
        path, entry, handle = self._later[role]
        try:
            check_sum(handle, path, entry, self._hint)
            self._loaded[role] = read_array(handle)
        except IndexInvalidError as exc:
            self._failed[role] = str(exc)
        except (OSError, ValueError) as exc:
            self._failed[role] = f"{path} cannot be read ({exc}). Rebuild: `{self._hint}`."
        finally:
            handle.close()

    def __contains__(self, role: object) -> bool:  # without reading the file
        return role in self._loaded or role in self._later

    def __iter__(self) -> Iterator[str]:
        yield from self._loaded
        yield from (role for role in self._later if role not in self._loaded)

    def __len__(self) -> int:
        return len(self._loaded.keys() | self._later.keys())


# numpy reads a .npy header with ast.literal_eval, and CPython 3.11.7's AST conversion is not
# safe in two threads at once ("SystemError: AST constructor recursion depth mismatch": a load
# beside a rebuild, two sessions opening arrays). One array read at a time: each index reads
# each array once, so the lock is taken a few dozen times per index opened.
_READS = threading.Lock()


MAPPED_BYTES = 1 << 20  # arrays in files from this size are memory-mapped, not read


def read_array(handle: BinaryIO) -> np.ndarray:
    """The array in the open .npy file `handle`. From MAPPED_BYTES it is memory-mapped, read
    only (its pages are the page cache's, read when used; the mapping keeps the file's data
    even once a rebuild deletes the file), where the system names open files (/proc)."""
    handle.seek(0)
    by_handle = Path(f"/proc/self/fd/{handle.fileno()}")
    with _READS:
        if os.fstat(handle.fileno()).st_size >= MAPPED_BYTES and by_handle.exists():
            return np.asarray(np.load(by_handle, mmap_mode="r", allow_pickle=False))
        return np.load(handle, allow_pickle=False)


def check_sum(handle: BinaryIO, path: Path, entry: FileEntry, hint: str) -> None:
    """Refuse the file read from `handle` unless it has the checksum `entry` records."""
    kind, expected = entry.checksum
    handle.seek(0)
    if files.checksum_stream(handle, kind) != expected:
        raise IndexInvalidError(
            f"{path} fails its checksum: the file is corrupted. Rebuild the index: `{hint}`."
        )
