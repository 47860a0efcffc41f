"""The index's papers, each parsed from its line of the papers file when it is first read.

The papers file of a 92k-paper index is 140 MB of JSON lines: parsing every record took
1.2-1.5 s of each cold start (benchmarks/README.md), while a search shows ten; reading it whole
held 140 MB of the process's own memory for as long as the index was open (about 4 GB at arXiv's
2.7M). The file is memory-mapped instead (the kernel's page cache holds what was read, shared by
every process that serves the index, and gives it back under pressure); it is still checked
whole at load (its checksum, its line count against the manifest). Where each line starts comes
from the offset table a build stores beside it (`line_offsets`: (n + 1,) int64, checked against
the file), else (an index built before it, or a table that does not fit the file) from a scan
of the mapped file, a chunk at a time. A line becomes a Paper the first time that row is read.
A line that is not a valid paper raises the IndexInvalidError that a full parse at load raised,
naming the line, when it is read. A rebuild that deletes the file leaves the mapping, and so an
open index, whole.
"""

from __future__ import annotations

import json
import mmap
import re
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, overload

import numpy as np

from explorer import files
from explorer.corpus.papers import Paper
from explorer.errors import IndexInvalidError

_BOM = "\ufeff".encode()
# How the papers file starts each record (store.paper_lines: Paper.to_dict puts the id first).
_ID_FIRST = re.compile(rb'\{"paper_id": ("(?:[^"\\]|\\.)*")')
_ID_START = b'{"paper_id": "'


class PaperList(Sequence[Paper]):
    """Papers by row, parsed on first read (thread-safe: a row is parsed once)."""

    def __init__(self, data: bytes | mmap.mmap, starts: np.ndarray, ends: np.ndarray,
                 path: Path, hint: str) -> None:
        self._data = data
        self._starts, self._ends = starts, ends  # row i is data[starts[i]:ends[i]]
        self._papers: list[Paper | None] = [None] * len(starts)
        self._lock = threading.Lock()
        self._path, self._hint = path, hint
        self._ids: list[str] | None = None

    @classmethod
    def read(cls, path: Path, handle: BinaryIO, hint: str, offsets: np.ndarray | None = None
             ) -> PaperList:
        """The papers file open in `handle`, memory-mapped (the caller may close the handle);
        `offsets`: the build's line offsets (line_offsets), used when they fit the file; blank
        lines are skipped."""
        data = _mapped(handle)
        bounds = _fitting(data, offsets)
        if bounds is not None:
            return cls(data, bounds[:-1], bounds[1:] - 1, path, hint)
        start = len(_BOM) if data[:len(_BOM)] == _BOM else 0
        ends = _line_ends(data)
        if len(data) > start and data[len(data) - 1:] != b"\n":
            ends = np.append(ends, len(data))
        starts = np.concatenate([[start], ends[:-1] + 1]).astype(np.int64)[:len(ends)]
        if ((ends - starts) < 2).any():  # blank lines (or "\r"): keep the lines with a record
            keep = [i for i in range(len(ends)) if data[starts[i]:ends[i]].strip()]
            return _Numbered(data, starts[keep], ends[keep], path, hint, [i + 1 for i in keep])
        return cls(data, starts, ends, path, hint)

    def __len__(self) -> int:
        return len(self._papers)

    @overload
    def __getitem__(self, row: int) -> Paper: ...

    @overload
    def __getitem__(self, row: slice) -> list[Paper]: ...

    def __getitem__(self, row: int | slice) -> Paper | list[Paper]:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        paper = self._papers[row]
        if paper is not None:
            return paper
        with self._lock:
            row = range(len(self))[row]  # a negative row counts from the end; IndexError
            paper = self._papers[row]
            if paper is None:
                paper = self._papers[row] = self._parse(row)
        return paper

    def ids(self) -> list[str]:
        """Every row's paper id, read from the start of its line without parsing the record
        (a line that does not start as store.paper_lines writes it is parsed)."""
        if self._ids is None:
            self._ids = [self._id(self._data, row) for row in range(len(self))]
        return self._ids

    def _id(self, data: bytes | mmap.mmap, row: int) -> str:
        start, end = int(self._starts[row]), int(self._ends[row])
        if data[start:start + len(_ID_START)] == _ID_START:
            first = start + len(_ID_START)
            close = data.find(b'"', first, end)
            if close > 0 and data.find(b"\\", first, close) < 0:  # no escapes: the plain text
                try:
                    return data[first:close].decode("utf-8")
                except UnicodeDecodeError:
                    pass
        found = _ID_FIRST.match(data, start, end)
        try:
            if found is not None:
                return json.loads(found.group(1))
        except ValueError:  # not UTF-8, a bad escape: the parse says what is wrong
            pass
        return self[row].paper_id

    def authored(self) -> Iterator[tuple[tuple[str, ...], str, bool]]:
        """Each row's (authors, title, title_is_derived), read from its line without making or
        keeping its Paper (ranking/authors.py's table must not hold every record parsed); a
        row already parsed, or one that does not read, goes through the Paper."""
        data = self._data
        for row in range(len(self)):
            if self._papers[row] is None:
                try:
                    record = json.loads(data[self._starts[row]:self._ends[row]])
                    yield (tuple(str(name) for name in record.get("authors") or ()),
                           str(record["title"]), bool(record["title_is_derived"]))
                    continue
                except (ValueError, TypeError, KeyError, AttributeError):
                    pass  # the Paper's parse says what is wrong
            paper = self[row]
            yield paper.authors, paper.title, paper.title_is_derived

    def __iter__(self) -> Iterator[Paper]:
        for row in range(len(self)):
            yield self[row]

    def _parse(self, row: int) -> Paper:
        raw = self._data[self._starts[row]:self._ends[row]]
        where = f"{self._path}:{self._line(row)}"
        errors = files.ReadErrors(IndexInvalidError, fix=f"Rebuild: `{self._hint}`.")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise errors(where, f"not valid UTF-8 ({exc.reason})", "") from exc
        record = files.parse_json(text, where, errors)
        try:
            return Paper.from_dict(record)
        except (ValueError, TypeError, AttributeError, KeyError, RecursionError) as exc:
            raise IndexInvalidError(
                f"{where} is not a valid paper record ({exc}). Rebuild: `{self._hint}`."
            ) from exc

    def _line(self, row: int) -> int:
        return row + 1


def line_offsets(data: bytes) -> np.ndarray:
    """Where each line of a papers file as a build writes it (store.paper_lines: no blank lines,
    each ending in a newline) starts, and the file's length last: (n + 1,) int64."""
    return np.concatenate([[0], _line_ends(data) + 1]).astype(np.int64)


def _mapped(handle: BinaryIO) -> bytes | mmap.mmap:
    """The file behind `handle`, memory-mapped read-only (an empty file, or a stream that is
    no file: its bytes)."""
    try:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (ValueError, OSError):  # empty (cannot be mapped), or no file number (io.BytesIO)
        handle.seek(0)
        return handle.read()


def _fitting(data: bytes | mmap.mmap, offsets: np.ndarray | None) -> np.ndarray | None:
    """`offsets` when they describe `data`'s lines (ascending from 0 to its length, each line
    at least a record's two bytes and ending in a newline), else None."""
    if offsets is None or offsets.ndim != 1 or offsets.dtype != np.int64 or len(offsets) < 1:
        return None
    if offsets[0] != 0 or offsets[-1] != len(data) or (np.diff(offsets) < 3).any():
        return None
    view = np.frombuffer(data, dtype=np.uint8) if len(data) else np.zeros(0, np.uint8)
    return offsets if (view[offsets[1:] - 1] == ord("\n")).all() else None


def _line_ends(data: bytes | mmap.mmap, chunk: int = 1 << 24) -> np.ndarray:
    """Positions of every newline in `data` (int64), looked for a `chunk` at a time (no
    temporary array the size of the file)."""
    if not len(data):
        return np.zeros(0, dtype=np.int64)
    view = np.frombuffer(data, dtype=np.uint8)
    found = [np.flatnonzero(view[at:at + chunk] == ord("\n")) + at
             for at in range(0, len(view), chunk)]
    return np.concatenate(found).astype(np.int64)


class _Numbered(PaperList):
    """A papers file with blank lines: rows keep their line numbers for errors."""

    def __init__(self, data: bytes | mmap.mmap, starts: np.ndarray, ends: np.ndarray,
                 path: Path, hint: str, lines: list[int]) -> None:
        super().__init__(data, starts, ends, path, hint)
        self._lines = lines

    def _line(self, row: int) -> int:
        return self._lines[row]
