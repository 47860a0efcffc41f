"""The author and title table as arrays a build stores, and read back without parsing a name.

Making ranking/authors.py's AuthorTable reads every paper's authors and parses every name: 8.0 s
at 91,908 papers, which the first question of every new process (the CLI) waited for. A build
makes it once and stores it (`to_arrays`, the `ARRAYS` roles); an index opens it as a
`StoredTable`, which answers exactly as the table it was made from: a family name or a title is
found by a 64-bit hash of its key (binary search over the sorted hashes), a name is parsed only
when a lookup meets it (then kept), and every candidate is checked against the key itself, so a
hash collision can only cost time. An index built before (or by another `VERSION` of the name
rules) has no usable arrays: `Lazy` then makes the table from the papers, as before.

Arrays (e authors, k family-name keys, t titles):
  authors_names        (bytes,) uint8: each author's name as first written, UTF-8, one after another
  authors_entries      (e, 2) int64: where each name ends in authors_names, and its rows in authors_rows
  authors_rows         (r,) int32: each author's rows, ascending
  authors_keys         (k, 2) int64: a family-name key's hash (sorted), where its authors end
  authors_key_entries  (m,) int32: the authors filed under each key
  authors_titles       (t, 2) int64: a title key's hash (sorted), where its rows end
  authors_title_rows   (u,) int32: the rows of each title
  authors_order        (e,) int32: the authors, most papers first (the suggestions)
  authors_version      (1,) int64: VERSION
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from explorer.corpus.authors import Name, parse_name
from explorer.corpus.papers import Paper
from explorer.ranking import authors
from explorer.ranking.authors import AuthorTable, Lookups, spelling, title_key

VERSION = 1  # raise when corpus/authors.py's name rules or title_key change
PREFIX = "authors_"
NAMES, ENTRIES, ROWS = "authors_names", "authors_entries", "authors_rows"
KEYS, KEY_ENTRIES = "authors_keys", "authors_key_entries"
TITLES, TITLE_ROWS = "authors_titles", "authors_title_rows"
ORDER, VERSIONS = "authors_order", "authors_version"
ARRAYS = (NAMES, ENTRIES, ROWS, KEYS, KEY_ENTRIES, TITLES, TITLE_ROWS, ORDER, VERSIONS)


def key_hash(key: str) -> int:
    """A key's 64-bit hash as a signed integer (the arrays' int64)."""
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def to_arrays(table: AuthorTable) -> dict[str, np.ndarray]:
    """The arrays a build stores for `table` (module docstring)."""
    names = [source.encode("utf-8") for source in table.sources]
    rows, row_ends = _packed(table.entry_rows)
    keys, key_entries = _hashed(table.filed)
    titles, title_rows = _hashed(table.titles)
    return {
        NAMES: np.frombuffer(b"".join(names), dtype=np.uint8).copy(),
        ENTRIES: np.stack([np.cumsum([len(n) for n in names], dtype=np.int64), row_ends], axis=1),
        ROWS: rows, KEYS: keys, KEY_ENTRIES: key_entries, TITLES: titles, TITLE_ROWS: title_rows,
        ORDER: np.asarray(table._ordered(), dtype=np.int32),
        VERSIONS: np.array([VERSION], dtype=np.int64),
    }


def _packed(groups: Iterable[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Lists of ints one after another (int32) and where each ends (int64)."""
    groups = list(groups)
    values = np.fromiter((v for group in groups for v in group), dtype=np.int32)
    ends = np.cumsum([len(group) for group in groups], dtype=np.int64)
    return values, ends.astype(np.int64)


def _hashed(filed: Mapping[str, Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(k, 2) int64 [hash, end] sorted by hash, and the values of each key in that order."""
    keys = list(filed)
    hashes = np.array([key_hash(key) for key in keys], dtype=np.int64)
    order = np.argsort(hashes, kind="stable")
    values, ends = _packed(filed[keys[i]] for i in order)
    return np.stack([hashes[order], ends], axis=1), values


def stores(arrays: Mapping[str, np.ndarray]) -> bool:
    """True when `arrays` hold a table of this VERSION (read: the version array only)."""
    if not all(role in arrays for role in ARRAYS):
        return False
    version = np.asarray(arrays[VERSIONS])
    return version.shape == (1,) and int(version[0]) == VERSION


class StoredTable(Lookups):
    """The table read from a build's arrays (module docstring); thread-safe (a parsed name is
    kept in a dictionary; two threads parsing one name at once get equal Names)."""

    def __init__(self, papers: Sequence[Paper], arrays: Mapping[str, np.ndarray]) -> None:
        self._papers = papers
        self._bytes = np.asarray(arrays[NAMES]).tobytes()
        entries = np.asarray(arrays[ENTRIES])
        self._name_ends, self._row_ends = entries[:, 0].copy(), entries[:, 1].copy()
        self._rows = np.asarray(arrays[ROWS])
        keys, titles = np.asarray(arrays[KEYS]), np.asarray(arrays[TITLES])
        self._keys, self._key_ends = keys[:, 0].copy(), keys[:, 1].copy()
        self._titles, self._title_ends = titles[:, 0].copy(), titles[:, 1].copy()
        self._key_entries = np.asarray(arrays[KEY_ENTRIES])
        self._title_values = np.asarray(arrays[TITLE_ROWS])
        self._order = np.asarray(arrays[ORDER])
        self._names: dict[int, Name] = {}

    def _source(self, entry: int) -> str:
        start = int(self._name_ends[entry - 1]) if entry else 0
        return self._bytes[start:int(self._name_ends[entry])].decode("utf-8")

    def _filed(self, key: str) -> Sequence[int]:
        return [int(entry) for entry in _found(self._keys, self._key_ends, self._key_entries, key)]

    def _name(self, entry: int) -> Name:
        name = self._names.get(entry)
        if name is None:
            name = parse_name(self._source(entry))
            assert name is not None, "the build stored only names that parse"
            self._names[entry] = name
        return name

    def _rows_of(self, entry: int) -> Sequence[int]:
        start = int(self._row_ends[entry - 1]) if entry else 0
        return self._rows[start:int(self._row_ends[entry])]

    def _spelling(self, entry: int) -> str:
        return spelling(self._source(entry))

    def _title_rows(self, key: str) -> Sequence[int]:
        if not key:
            return ()
        rows = _found(self._titles, self._title_ends, self._title_values, key)
        return sorted(int(row) for row in rows if _titled(self._papers[int(row)], key))

    def _ordered(self) -> Sequence[int]:
        return self._order


def _found(hashes: np.ndarray, ends: np.ndarray, values: np.ndarray, key: str) -> np.ndarray:
    """The values of every key with `key`'s hash (one key, but for a collision)."""
    wanted = key_hash(key)
    lo, hi = np.searchsorted(hashes, wanted, "left"), np.searchsorted(hashes, wanted, "right")
    if lo == hi:
        return values[:0]
    return values[int(ends[lo - 1]) if lo else 0:int(ends[hi - 1])]


def _titled(paper: Paper, key: str) -> bool:
    """True when `paper`'s own title has `key` (checks a hash's find)."""
    return not paper.title_is_derived and title_key(paper.title) == key


class Lazy:
    """The table, on first use, whichever thread asks first (the others wait): a StoredTable
    when `stored` (an index's arrays) holds one, else an AuthorTable made from the papers."""

    def __init__(self, papers: Sequence[Paper], stored: Mapping[str, np.ndarray] | None = None
                 ) -> None:
        self._papers = papers
        self._stored = stored
        self._table: Lookups | None = None
        self._lock = threading.Lock()

    def get(self) -> Lookups:
        if self._table is None:
            with self._lock:
                if self._table is None:
                    self._table = self._make()
        return self._table

    def _make(self) -> Lookups:
        if self._stored is not None and stores(self._stored):
            return StoredTable(self._papers, self._stored)
        return authors.AuthorTable(self._papers)  # (a test may count them)
