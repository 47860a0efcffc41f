"""Helpers of the command line: argument types, one-line failures, progress bars, and a reference
list (.bib, .ris, CSL-JSON) read from a file and matched against an index (for `explorer missed
--bib` and `explorer collection import`)."""

from __future__ import annotations

import argparse
import errno
import sys
import traceback
from pathlib import Path

from explorer.cli.terminal import safe_text
from explorer.errors import ExplorerError
from explorer.settings import DEFAULT_INDEX_DIR, Settings

EXIT_ERROR = 1
DEBUG_HINT = "Rerun with EXPLORER_DEBUG=1 to see the traceback."
SHOWN_MISSING = 10  # reference-list entries the index lacks, named on stderr
INDEX_HELP = f"index folder (default: EXPLORER_INDEX or {DEFAULT_INDEX_DIR})"  # every --index


def describe(exc: BaseException) -> str:
    """What happened and what to do, for failures that are not ExplorerErrors."""
    if isinstance(exc, MemoryError):
        return ("out of memory. Close other programs, use a smaller --batch-size, or build"
                " without --sentences.")
    if isinstance(exc, UnicodeDecodeError):
        return f"an input is not valid UTF-8 ({exc.reason}). Save it as UTF-8."
    if isinstance(exc, RecursionError):
        return "input nested too deeply to process. Simplify or remove the offending record."
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return f"the disk is full{where}. Free some space and run the command again."
        return (f"{exc.strerror or exc}{where}. Check the path, its permissions and free disk"
                " space, then run the command again.")
    return f"unexpected {type(exc).__name__}: {exc}. {DEBUG_HINT} If it persists, report it."


def fail(message: str, *, unexpected: bool = False, debug: bool = False) -> int:
    """Print `message` as one line on stderr -> the exit code. An `unexpected` failure also
    prints its traceback first with `debug` (Settings.debug, EXPLORER_DEBUG), else says how to."""
    if unexpected and debug:
        traceback.print_exc(file=sys.stderr)
    elif unexpected and DEBUG_HINT not in message:
        message = f"{message} ({DEBUG_HINT})"
    print(f"explorer: error: {safe_text(' '.join(message.split()))}", file=sys.stderr)
    return EXIT_ERROR


def positive_int(text: str) -> int:
    """argparse type: a whole number from 1 to 10,000,000 (ASCII digits)."""
    if not (text.isascii() and text.strip().isdigit()) or len(text.strip()) > 8 \
            or not 1 <= int(text) <= 10_000_000:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to 10000000, got {text!r}")
    return int(text)


def author_name(text: str) -> str:
    """argparse type: a person's name with a family name, at most MAX_NAME_CHARS characters."""
    from explorer.corpus.authors import MAX_NAME_CHARS, parse_name

    if len(text) > MAX_NAME_CHARS:
        raise argparse.ArgumentTypeError(f"a name of at most {MAX_NAME_CHARS} characters")
    if parse_name(text) is None:
        raise argparse.ArgumentTypeError(f"{text!r} names nobody: give a family name, e.g. "
                                         "'Sergey Levine', 'S. Levine' or 'Levine'")
    return " ".join(text.split())


def year(text: str) -> int:
    """argparse type: a year from 1000 to 2100."""
    text = text.strip()
    if not (text.isascii() and text.isdigit() and len(text) == 4 and 1000 <= int(text) <= 2100):
        raise argparse.ArgumentTypeError(f"expected a year from 1000 to 2100, got {text!r}")
    return int(text)


class Bar:
    """tqdm bars on stderr, one per phase, created on the first update (none when none embeds);
    `verb` names the work ("embedding PHASE"), `unit` what is counted."""

    def __init__(self, verb: str = "embedding", unit: str = "text") -> None:
        self._bar = None
        self._phase = ""
        self._verb, self._unit = verb, unit

    def update(self, phase: str, done: int, total: int) -> None:
        if self._bar is None or phase != self._phase:
            from tqdm import tqdm

            self.close()
            self._phase = phase
            self._bar = tqdm(total=total, desc=f"{self._verb} {phase}", unit=self._unit,
                             file=sys.stderr)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


# -- reference lists ----------------------------------------------------------------------------
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
