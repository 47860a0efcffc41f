"""The index's papers, each parsed from its line of the papers file when it is first read.

The papers file of a 92k-paper index is 140 MB of JSON lines: parsing every record took
1.2-1.5 s of each cold start (benchmarks/README.md), while a search shows ten. The file is
still checked whole at load (its checksum, its line count against the manifest); its bytes are
kept, and a line becomes a Paper the first time that row is read. A line that is not a valid
paper raises the IndexInvalidError that a full parse at load raised, naming the line, when it
is read. Reading every paper (iteration) costs what the load used to.
"""

from __future__ import annotations

import json
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

    def __init__(self, data: bytes, starts: np.ndarray, ends: np.ndarray, path: Path,
                 hint: str) -> None:
        self._data: bytes | None = data
        self._starts, self._ends = starts, ends  # row i is data[starts[i]:ends[i]]
        self._papers: list[Paper | None] = [None] * len(starts)
        self._left = len(self._papers)  # rows not parsed yet: at 0 the bytes are let go
        self._lock = threading.Lock()
        self._path, self._hint = path, hint
        self._ids: list[str] | None = None

    @classmethod
    def read(cls, path: Path, handle: BinaryIO, hint: str) -> PaperList:
        """The papers file read from `handle` (the caller closes it); blank lines are skipped."""
        handle.seek(0)
        data = handle.read()
        start = len(_BOM) if data.startswith(_BOM) else 0
        ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
        if len(data) > start and not data.endswith(b"\n"):
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
                self._left -= 1
                if self._left == 0:
                    self._data = None
        return paper

    def ids(self) -> list[str]:
        """Every row's paper id, read from the start of its line without parsing the record
        (a line that does not start as store.paper_lines writes it is parsed)."""
        if self._ids is None:
            with self._lock:
                data = self._data
            if data is None:  # every row parsed
                self._ids = [paper.paper_id for paper in self]
            else:
                self._ids = [self._id(data, row) for row in range(len(self))]
        return self._ids

    def _id(self, data: bytes, row: int) -> str:
        start, end = int(self._starts[row]), int(self._ends[row])
        if data.startswith(_ID_START, start):
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
        with self._lock:
            data = self._data
        for row in range(len(self)):
            if self._papers[row] is None and data is not None:
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
        assert self._data is not None  # kept until every row is parsed
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


class _Numbered(PaperList):
    """A papers file with blank lines: rows keep their line numbers for errors."""

    def __init__(self, data: bytes, starts: np.ndarray, ends: np.ndarray, path: Path,
                 hint: str, lines: list[int]) -> None:
        super().__init__(data, starts, ends, path, hint)
        self._lines = lines

    def _line(self, row: int) -> int:
        return self._lines[row]
