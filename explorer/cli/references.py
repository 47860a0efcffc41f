"""A reference list (.bib, .ris, CSL-JSON) read from a file and matched against an index, for
`explorer missed --bib` and `explorer collection import`."""

from __future__ import annotations

import sys
from pathlib import Path

from explorer.cli.terminal import safe_text
from explorer.errors import ExplorerError
from explorer.settings import Settings

SHOWN_MISSING = 10  # reference-list entries the index lacks, named on stderr


def read_input(path: str, limit: int, what: str) -> bytes:
    """The bytes of file `path` ('-': stdin), at most `limit` of them (one more is read, so a
    longer file is refused by the reader), or ExplorerError naming the file."""
    try:
        if path == "-":
            return sys.stdin.buffer.read(limit + 1)
        with open(path, "rb") as handle:
            return handle.read(limit + 1)
    except OSError as exc:
        raise ExplorerError(f"cannot read {what} {path}: {exc.strerror or exc}. Check the "
                            "path.") from exc


def cited_from_file(path: str, settings: Settings, explorer, *, name_missing: bool = True):
    """The CitedSet of reference list `path` against `explorer`'s papers; its summary on
    stderr, and (`name_missing`) the first entries the index lacks."""
    from explorer.corpus.references import read_references
    from explorer.features.drafts.cited import cited_from_references

    data = read_input(path, settings.max_file_bytes, "reference list")
    references = read_references(data, Path(path).name, settings.max_file_bytes)
    cited = cited_from_references(explorer, references)
    print(f"explorer: note: {safe_text(Path(path).name)}: {safe_text(cited.summary())}",
          file=sys.stderr)
    for entry in cited.missing[:SHOWN_MISSING] if name_missing else ():
        print(f"explorer: note: not in this index: {safe_text(entry.title)} "
              f"({safe_text(entry.paper_id)})", file=sys.stderr)
    if name_missing and len(cited.missing) > SHOWN_MISSING:
        print(f"explorer: note: … and {len(cited.missing) - SHOWN_MISSING} more not in this "
              "index", file=sys.stderr)
    return cited
