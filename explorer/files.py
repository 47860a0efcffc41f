"""Generic file helpers: atomic writes, fsync of folders, checksums, a folder lock, and reading
text and JSON lines within a size limit, with errors that name the file, the line and the fix."""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import json
import os
import re
import secrets
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO

from explorer.errors import ExplorerError

LOCK_NAME = ".build.lock"
_CHUNK = 1 << 20
_BOM = "\ufeff"
_BLANKS = re.compile(r"[ \t\n\r]*")


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
    return temp_target(name) == target


def temp_target(name: str) -> str | None:
    """The file that `name` is an `atomic_write` temp name of (`.<target>.<8 hex>.tmp`), else
    None."""
    if not (name.startswith(".") and name.endswith(".tmp")):
        return None
    target, dot, token = name[1:-4].rpartition(".")
    if dot and target and len(token) == 8 and all(c in "0123456789abcdef" for c in token):
        return target
    return None


def remove_temps(folder: Path, ours: Callable[[str], bool]) -> list[str]:
    """Delete the temp files that writers killed mid-write (kill -9, a power cut) left in
    `folder` for the files `ours(target name)` claims; returns the names deleted.

    Only for a caller holding the lock that every writer of those files takes (so none of them
    is writing now: each temp file of theirs is stale), and only temp names of `atomic_write`
    for files of theirs: any other file, a user's `.notes.tmp` say, is never touched."""
    removed = []
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries if entry.name.endswith(".tmp")]
    except FileNotFoundError:
        return removed
    for name in names:
        target = temp_target(name)
        if target is not None and ours(target) and (folder / name).is_file():
            (folder / name).unlink(missing_ok=True)
            removed.append(name)
    return removed


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


BUSY = ("another build is writing {folder} (pid {pid}); wait for it to finish (or stop it) and "
        "run this build again, or give it longer with --wait SECONDS.")


class FolderLock:
    """An exclusive lock on a folder (`flock` on `<folder>/.build.lock`), held by one process.

    Waits up to `wait` seconds for another holder, then raises ExplorerError naming it (`busy`,
    with {folder} and {pid}). The kernel releases the lock when its process dies, even by
    kill -9, so it never goes stale. `name`: another lock file, for another kind of writer.
    """

    def __init__(self, folder: Path, wait: float, *, name: str = LOCK_NAME, busy: str = BUSY) -> None:
        self.folder, self.wait, self.name, self.busy = folder, wait, name, busy
        self._fd: int | None = None

    def __enter__(self) -> FolderLock:
        make_dirs(self.folder)
        fd = os.open(self.folder / self.name, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + max(0.0, self.wait)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
                    os.close(fd)
                    raise ExplorerError(self.busy.format(folder=self.folder, pid=holder)) from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the lock; the file stays (see flock(2))
            self._fd = None


# -- reading text and JSON lines -------------------------------------------------------------
@dataclass(frozen=True)
class ReadErrors:
    """How a reader reports a file it cannot read: the error to raise, and the fix its message
    names (`fix`: one fix for every problem, e.g. the command that rebuilds an index; else the
    fix that suits each; `too_big`: the fix for a file over its size limit)."""

    kind: type[ExplorerError] = ExplorerError
    fix: str | None = None
    too_big: str = "Split the file."

    def __call__(self, where: object, problem: str, fix: str) -> ExplorerError:
        return self.kind(f"{where}: {problem}. {self.fix or fix}")


PLAIN = ReadErrors()


def read_chunks(path: Path, limit: int | None = None, errors: ReadErrors = PLAIN, *,
                handle: BinaryIO | None = None) -> Iterator[bytes]:
    """The bytes of `path` (gunzipped when named .gz) in pieces, at most `limit` in all.

    `handle`: the file already open (read from its start; the caller closes it)."""
    total, gzipped = 0, path.suffix.lower() == ".gz"
    with _opened(path, errors, handle) as stream:
        while True:
            try:
                chunk = stream.read(_CHUNK)
            except (OSError, EOFError, zlib.error) as exc:
                if not gzipped and isinstance(exc, OSError):
                    raise errors(path, f"cannot read ({exc})", "Check the disk and the file.") \
                        from exc
                raise errors(path, f"not a valid gzip file ({exc})", "Re-create the file.") \
                    from exc
            if not chunk:
                return
            total += len(chunk)
            if limit is not None and total > limit:
                raise errors(path, f"more than {limit} bytes{' decompressed' if gzipped else ''}",
                             errors.too_big)
            yield chunk


@contextmanager
def _opened(path: Path, errors: ReadErrors, handle: BinaryIO | None) -> Iterator[IO[bytes]]:
    """`path` open for reading, gunzipped when named .gz; a given `handle` is read from its
    start and left open."""
    if handle is None:
        try:
            raw: IO[bytes] = path.open("rb")
        except OSError as exc:
            raise errors(path, f"cannot read ({exc.strerror})", "Check the file's permissions.") \
                from exc
    else:
        handle.seek(0)
        raw = handle
    try:
        if path.suffix.lower() == ".gz":
            with gzip.GzipFile(fileobj=raw, mode="rb") as stream:
                yield stream
        else:
            yield raw
    finally:
        if handle is None:
            raw.close()


def read_lines(path: Path, limit: int | None = None, errors: ReadErrors = PLAIN, *,
               handle: BinaryIO | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text + '\\n') for every line of `path` (see `read_chunks`), decoded as UTF-8;
    CR LF and a lone CR end lines too; a byte order mark is dropped."""
    for number, text in _text_lines(path, limit, errors, handle):
        yield number, text + "\n"


def _text_lines(path: Path, limit: int | None, errors: ReadErrors, handle: BinaryIO | None
                ) -> Iterator[tuple[int, str]]:
    """`read_lines` without the line ends."""
    number = 0
    for raw in _byte_lines(read_chunks(path, limit, errors, handle=handle)):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise errors(f"{path}:{number + 1}", f"not valid UTF-8 ({exc.reason})",
                         "Save the file as UTF-8.") from exc
        if number == 0 and text.startswith(_BOM):
            text = text[1:]
        if "\r" not in text:
            number += 1
            yield number, text
            continue
        for piece in (text[:-1] if text.endswith("\r") else text).split("\r"):
            number += 1
            yield number, piece


def _byte_lines(chunks: Iterator[bytes]) -> Iterator[bytes]:
    pending: list[bytes] = []
    for chunk in chunks:
        parts = chunk.split(b"\n")
        if len(parts) == 1:
            pending.append(chunk)
            continue
        parts[0] = b"".join([*pending, parts[0]])
        pending = [parts.pop()]
        yield from parts
    tail = b"".join(pending)
    if tail:
        yield tail


def read_jsonl(path: Path, limit: int | None = None, errors: ReadErrors = PLAIN, *,
               handle: BinaryIO | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) for every non-blank line of `path` (see `read_lines`)."""
    for number, line in _text_lines(path, limit, errors, handle):
        line = line.strip()
        if line:
            yield number, parse_json(line, f"{path}:{number}", errors)


def _keep_big_int(digits: str) -> int | str:
    """JSON integers past 100 digits stay text (int() refuses 4,300+ digits; no year is that long)."""
    return int(digits) if len(digits) <= 100 else digits


_DECODE = json.JSONDecoder().raw_decode
_DECODE_BIG = json.JSONDecoder(parse_int=_keep_big_int).raw_decode  # a quarter slower


def _decode(text: str, start: int) -> tuple[Any, int]:
    try:
        return _DECODE(text, start)
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer int() refuses: read again, keeping long ones as text
        return _DECODE_BIG(text, start)


def parse_json(text: str, where: str, errors: ReadErrors = PLAIN) -> Any:
    """One JSON value (blanks around it allowed); an error naming `where` when it is not valid
    JSON, holds a number Python refuses, or is nested deeper than Python's recursion limit."""
    try:
        value, end = _decode(text, _BLANKS.match(text).end())
        if end != len(text) and _BLANKS.match(text, end).end() != len(text):
            raise json.JSONDecodeError("Extra data", text, end)
    except RecursionError as exc:
        raise errors(where, "JSON nested too deeply", "Flatten the record.") from exc
    except ValueError as exc:  # JSONDecodeError, or a number Python refuses
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "a number is too long"
        raise errors(where, f"not valid JSON ({reason})", "Fix or remove it.") from exc
    return value
