"""Find corpus files and read them as streams of raw records, within a size limit per file.

Formats: the seed format (a header line, then abstracts separated by blank lines), JSONL, JSON
(an array, an API page such as {"results": [...]}, or JSON lines in a .json file: the arXiv
snapshot), CSV/TSV and Parquet (corpus/parquet.py), and the reference lists researchers keep:
BibTeX, RIS and CSL-JSON (a JSON array of CSL items; corpus/bibliography.py), Web of Science's
tagged export (in a .ris file, or a .txt file that starts with its `FN` header;
corpus/tagged.py), each optionally gzipped (a bare `.gz`, as the OpenAlex snapshot names its
parts, is read as JSON lines). Records that OpenReview, OpenAlex, arXiv or Semantic Scholar
wrote are recognised by their fields and read into the corpus's (corpus/services.py).
Reference lists and JSON are read in the encoding they declare (corpus/encodings.py: a byte
order mark, or JabRef's `% Encoding:` header in a .bib), else as UTF-8. A file that cannot be
parsed (bytes not in its encoding, bad JSON, JSON nested too deeply, a record that is not an
object, a CSV row with extra fields, more than `limit` decompressed bytes) is a CorpusError
naming the file and line or record; in a .bib or .ris file, an entry that does not parse is a
`bibliography.Unparsed` record at its line, and the others are read.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from explorer.corpus.bibliography import csl_record, is_csl, read_bibtex
from explorer.corpus.encodings import decode
from explorer.corpus.parquet import read_parquet
from explorer.corpus.services import Malformed, convert, unwrap
from explorer.corpus.tagged import read_tagged, read_wos, wos_header
from explorer.errors import CorpusError
from explorer.files import ReadErrors, parse_json, read_chunks, read_jsonl, read_lines

# Each format's suffixes, the usual one first (help texts name that one); each may end in .gz.
FORMATS = {"seed": (".txt", ".text"), "jsonl": (".jsonl", ".ndjson"), "json": (".json",),
           "csv": (".csv", ".tsv"), "parquet": (".parquet",), "bibtex": (".bib",),
           "ris": (".ris",)}
SUPPORTED = {suffix for suffixes in FORMATS.values() for suffix in suffixes}
ABSTRACT_FIELDS = ("abstract", "summary", "text")  # text: BEIR corpora
Record = tuple[str, dict[str, Any]]
ERRORS = ReadErrors(CorpusError, too_big="Split the file, or raise the limit with "
                    "EXPLORER_MAX_FILE_BYTES (e.g. 8G).")


def expand(paths: Iterable[str | Path], exclude: Iterable[str | Path] = ()) -> list[Path]:
    """The files to read, in order: explicit files as given, folders walked in sorted order."""
    excluded = [Path(p).resolve() for p in exclude]
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = [p for p in _walk(path) if not _is_excluded(p, excluded)]
            if not found:
                raise CorpusError(
                    f"{path}: no corpus files found (looked for {', '.join(sorted(SUPPORTED))},"
                    " optionally .gz; hidden files and folders are skipped). Point to a folder"
                    " that holds abstracts."
                )
            files.extend(found)
        elif path.is_file():
            if kind_of(path) is None or (_bare_gz(path) and not _holds_json(path)):
                raise CorpusError(
                    f"{path}: unsupported file type. Use a seed text file (.txt), "
                    ".jsonl, .json (or CSL-JSON), .csv, .tsv, .parquet, .bib or .ris, optionally"
                    " gzipped (.gz)."
                )
            if not _is_excluded(path, excluded):
                files.append(path)
        else:
            raise CorpusError(f"{path}: no such file or folder. Check the path and try again.")
    return files


def _walk(folder: Path) -> list[Path]:
    """Supported files under `folder`, sorted; dot-folders are not entered, dot-files not kept."""
    found = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            candidate = Path(root, name)
            if not name.startswith(".") and kind_of(candidate) is not None and candidate.is_file() \
                    and (not _bare_gz(candidate) or _holds_json(candidate)):
                found.append(candidate)
    return sorted(found)


def _bare_gz(path: Path) -> bool:
    return [s.lower() for s in path.suffixes[-1:]] == [".gz"] and kind_of(path.with_suffix("")) \
        is None


def _holds_json(path: Path) -> bool:
    """Whether a gzipped file starts with a JSON object (a folder walk reads only those of
    its bare .gz files: an OpenAlex snapshot's parts, not a stray archive)."""
    try:
        return _starts_object(path, None)
    except CorpusError:
        return False


def _starts_object(path: Path, limit: int | None) -> bool:
    """Whether the (decompressed) file's first character but blanks is "{"."""
    chunks = read_chunks(path, limit, ERRORS)
    try:
        start = next(chunks, b"")
    finally:
        chunks.close()
    return start.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"


def _is_excluded(path: Path, excluded: list[Path]) -> bool:
    if not excluded:
        return False
    resolved = path.resolve()
    return any(resolved == item or item in resolved.parents for item in excluded)


def kind_of(path: Path) -> str | None:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
        if not suffixes or not any(suffixes[-1] in group for group in FORMATS.values()):
            return "jsonl"  # part_000.gz: the OpenAlex snapshot's JSON lines
    suffix = suffixes[-1] if suffixes else ""
    for kind, group in FORMATS.items():
        if suffix in group:
            return kind
    return None


def format_names() -> str:
    """The formats by their usual suffix, for help texts: 'seed .txt, .jsonl, .json, .csv'."""
    return ", ".join(f"seed {group[0]}" if kind == "seed" else group[0]
                     for kind, group in FORMATS.items())


def read_file(path: Path, limit: int) -> Iterator[Record]:
    """(source, raw record) pairs of one file; source is `file:line` or `file#record`."""
    kind = kind_of(path)
    if kind == "json":
        yield from _read_json(path, limit)
    elif kind == "jsonl":
        yield from _read_jsonl(path, limit)
    elif kind == "seed":
        lines = read_lines(path, limit, ERRORS)
        first = next(lines, None)
        if first is not None and wos_header(first[1]):
            lines.close()
            yield from read_wos(_read_text(path, limit), str(path))
        else:
            yield from _read_seed(path, itertools.chain([first] if first else [], lines))
    elif kind == "bibtex":
        yield from read_bibtex(_read_text(path, limit, bibtex=True), str(path))
    elif kind == "ris":
        yield from read_tagged(_read_text(path, limit), str(path))
    elif kind == "parquet":
        for source, row in read_parquet(path, limit, ERRORS):
            yield source, convert(row)
    else:
        for source, row in _read_csv(path, read_lines(path, limit, ERRORS)):
            yield source, convert(row)


def _read_seed(path: Path, lines: Iterator[tuple[int, str]]) -> Iterator[Record]:
    """First line a header; then abstracts separated by blank lines."""
    block: list[str] = []
    start = 0
    for number, line in lines:
        if number == 1:
            continue
        if line.strip():
            if not block:
                start = number
            block.append(line.rstrip("\n"))
        elif block:
            yield f"{path}:{start}", {"abstract": " ".join(block)}
            block = []
    if block:
        yield f"{path}:{start}", {"abstract": " ".join(block)}


def _read_jsonl(path: Path, limit: int) -> Iterator[Record]:
    for number, value in read_jsonl(path, limit, ERRORS):
        page = unwrap(value)
        if page is None:
            yield _record(value, f"{path}:{number}")
        else:
            for item, record in enumerate(page, start=1):
                yield _record(record, f"{path}:{number}#{item}")


def _record(value: Any, where: str, *, csl: bool = False) -> Record:
    """(where, record) of one JSON value: a service's record read into the corpus's fields,
    a CSL item (when `csl`) as a reference-list entry, else the object itself. A null (the
    Semantic Scholar batch API's "not found") is a Malformed record; anything else that is not
    an object a CorpusError."""
    if value is None:
        return where, Malformed(reason="null: no record")
    record = convert(_require_object(value, where))
    if csl and record is value and is_csl(value):
        record = csl_record(value)
    return where, record


def _read_text(path: Path, limit: int, *, bibtex: bool = False) -> str:
    """The whole file as text, in the encoding it declares (encodings.decode); a CorpusError
    at the line of bytes that are not in it, or of a NUL byte (a binary file)."""
    return decode(b"".join(read_chunks(path, limit, ERRORS)), str(path), bibtex=bibtex)


def json_document(text: str, name: str) -> Any:
    """A whole file's JSON value; a CorpusError naming `name` and the line of an error."""
    try:
        return parse_json(text, f"{name}:1", ERRORS)
    except CorpusError as exc:
        cause = exc.__cause__
        if isinstance(cause, json.JSONDecodeError):  # name the line the error is on
            raise CorpusError(f"{name}:{cause.lineno}: not valid JSON ({cause.msg}). Fix the file.") \
                from cause
        raise


def _read_json(path: Path, limit: int) -> Iterator[Record]:
    """A JSON array, an API page ({"results": [...]}), one record, or JSON lines (a first
    line that is a whole object: the arXiv snapshot's .json)."""
    if _json_lines(path, limit):
        yield from _read_jsonl(path, limit)
        return
    data = json_document(_read_text(path, limit), str(path))
    records = data if isinstance(data, list) else unwrap(data)
    if records is None and isinstance(data, dict) and _is_paper(data):
        records = [data]
    if records is None:
        raise CorpusError(f"{path}: expected a JSON array of paper objects (or an API page of "
                          'them: {"results": [...]}). Wrap records in [...].')
    for number, record in enumerate(records, start=1):
        yield _record(record, f"{path}#{number}", csl=True)


def _json_lines(path: Path, limit: int) -> bool:
    """Whether a .json file holds JSON lines: its first line a whole JSON object."""
    if not _starts_object(path, limit):
        return False
    lines = read_lines(path, limit, ERRORS)
    try:
        first = next((line for _, line in lines if line.strip()), "")
    except CorpusError:  # not UTF-8: the whole-file reader names the encoding
        return False
    finally:
        lines.close()
    try:
        return isinstance(parse_json(first, str(path), ERRORS), dict)
    except CorpusError:
        return False


def _is_paper(data: dict[str, Any]) -> bool:
    return any(key in data for key in ("title", "abstract", *ABSTRACT_FIELDS)) or \
        convert(data) is not data


def _read_csv(path: Path, lines: Iterator[tuple[int, str]]) -> Iterator[Record]:
    delimiter = "\t" if ".tsv" in [s.lower() for s in path.suffixes] else ","
    reader = csv.DictReader((line for _, line in lines), delimiter=delimiter)
    try:
        columns = [c.strip().lower() for c in reader.fieldnames or []]
        if not any(c in columns for c in ABSTRACT_FIELDS + ("title",)):
            raise CorpusError(
                f"{path}:1: no 'abstract' or 'title' column (found: {', '.join(columns) or 'none'})."
                " Add a header row that names the abstract column."
            )
        for row in reader:
            if None in row:
                raise CorpusError(
                    f"{path}:{reader.line_num}: more fields than the header has columns."
                    " Quote fields that contain the delimiter."
                )
            yield f"{path}:{reader.line_num}", {k.strip().lower(): v for k, v in row.items() if k}
    except csv.Error as exc:
        raise CorpusError(f"{path}:{reader.line_num}: malformed CSV ({exc}).") from exc


def _require_object(record: Any, where: str) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise CorpusError(f"{where}: expected a JSON object with an 'abstract' field.")
    return record
