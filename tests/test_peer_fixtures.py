"""The reference lists of other projects' test suites (../shared/data/peer-fixtures: 396 .bib,
.ris and CSL-JSON files from bibtexparser, pybtex, citeproc, JabRef, rispy and Zotero; see its
SOURCES.md), read by both readers: the build's (read_corpus) and the upload's
(read_references). Each file gives papers, or a one-line error naming the file and line; no
entry is dropped without a word; a merge never joins records that disagree. Skipped with a
message where ../shared is absent (a CI clone may lack it)."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from explorer.corpus.encodings import decode
from explorer.corpus.papers import CorpusReport, Paper, read_corpus
from explorer.corpus.references import ReferenceList, read_references
from explorer.errors import CorpusError
from tests.conftest import SHARED_DATA

PEERS = SHARED_DATA / "peer-fixtures"
FORMATS = {"bib": ".bib", "ris": ".ris", "csl": ".json"}
pytestmark = pytest.mark.skipif(
    not PEERS.is_dir(), reason=f"no peer fixtures at {PEERS} (../shared/data/peer-fixtures, or "
                               "EXPLORER_TEST_SHARED_DATA): this sweep needs the shared data")
# an entry's start as a reader of each format would count it, independently of ours
_STARTS = {"bib": re.compile(r"^[ \t]*@(?!(?:string|comment|preamble)\b)[a-z]+[ \t]*[{(]",
                             re.MULTILINE | re.IGNORECASE),
           "ris": re.compile(r"^(?:TY {1,2}-|PT )", re.MULTILINE)}


@dataclass(frozen=True)
class Read:
    """One file through both readers: what each gave, or its error message."""

    path: Path
    kind: str
    upload: ReferenceList | str
    build: CorpusReport | str


def _read(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except CorpusError as exc:  # anything else fails the test, traceback and all
        return str(exc)


@pytest.fixture(scope="module")
def sweep() -> list[Read]:
    found = []
    for kind, suffix in FORMATS.items():
        for path in sorted((PEERS / kind).glob(f"*{suffix}")):
            found.append(Read(path, kind, _read(lambda p=path: read_references(p.read_bytes(),
                                                                                p.name)),
                              _read(lambda p=path: read_corpus([p]))))
    return found


def test_every_file_gives_papers_or_one_line_errors_naming_its_file_and_line(sweep):
    assert {read.kind for read in sweep} == set(FORMATS)
    for read in sweep:
        for message, name in ((read.upload, read.path.name), (read.build, str(read.path))):
            if isinstance(message, str):
                assert "\n" not in message, message
                assert re.match(rf"{re.escape(name)}:\d+: \S", message), message


def test_no_entry_is_dropped_without_a_word(sweep):
    """Entries read + entries named (did not parse, no title or abstract) cover every entry
    the file starts (counted here by its own rule), and both readers see as many."""
    for read in sweep:
        if isinstance(read.upload, str):
            continue
        upload = read.upload
        accounted = len(upload.entries) + len(upload.unparsed) + len(upload.untitled)
        text = decode(read.path.read_bytes(), read.path.name, bibtex=read.kind == "bib")
        if read.kind == "csl":
            assert accounted == len(json.loads(text)), read.path.name
        else:
            assert accounted >= len(_STARTS[read.kind].findall(text)), read.path.name
        if not isinstance(read.build, str):
            assert read.build.records == accounted, read.path.name


def _family(author: str) -> str:
    """The last word of 'Given Family', case and accents folded (this test's own rule, not
    identity.py's)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", author.casefold())
                    if not unicodedata.combining(c))
    words = [w for w in re.findall(r"\w+", plain) if w not in ("jr", "sr")]
    return words[-1] if words else ""


def _disagree(first: Paper, second: Paper) -> str | None:
    if first.year and second.year and abs(first.year - second.year) > 1:
        return f"years {first.year} and {second.year}"
    families = ({_family(a) for a in first.authors} - {""},
                {_family(a) for a in second.authors} - {""})
    if all(families) and not families[0] & families[1]:
        return f"authors {first.authors} and {second.authors}"
    return None


def test_a_merge_never_joins_records_that_disagree(sweep):
    """Every pair of records that the build joined into one paper agree on what both say:
    years within one, a family name in common."""
    joined = 0
    for read in sweep:
        if isinstance(read.build, str) or isinstance(read.upload, str):
            continue
        by_place = {_place(entry.sources[0]): entry for entry in read.upload.entries}
        for paper in read.build.papers:
            records = [by_place[_place(source)] for source in paper.sources]
            joined += len(records) > 1
            for first, second in combinations(records, 2):
                problem = _disagree(first, second)
                assert problem is None, f"{read.path.name}: {paper.paper_id} joins {problem}"
    assert joined  # the fixtures do hold records of one paper (xampl.bib's -minimal/-full)


def _place(source: str) -> str:
    """'…/name.bib:12' and 'name.bib:12' -> ':12'; '#3' likewise."""
    return re.search(r"[:#]\d+$", source).group()


def test_counts_per_format(sweep, capsys):
    """The counts the README and the issue's closing note quote (run with -s to see them)."""
    rows = []
    for reader in ("upload", "build"):
        for kind in FORMATS:
            counts: Counter = Counter()
            for read in (r for r in sweep if r.kind == kind):
                result = getattr(read, reader)
                counts["files"] += 1
                if isinstance(result, str):
                    counts["errors"] += 1
                elif reader == "upload":
                    counts["read"] += len(result.entries)
                    counts["named"] += len(result.unparsed) + len(result.untitled)
                else:
                    counts["read"] += len(result.papers) + result.duplicates_merged
                    counts["named"] += result.records - _read_as_papers(result)
            rows.append(f"{reader:6} {kind:4} files {counts['files']:3}  entries read "
                        f"{counts['read']:5}  named as not read {counts['named']:4}  errors "
                        f"{counts['errors']:2}")
    with capsys.disabled():
        print("\n" + "\n".join(rows))
    assert len(sweep) == sum(1 for kind in FORMATS for _ in (PEERS / kind).glob("*"))


def _read_as_papers(report: CorpusReport) -> int:
    """Records the build read as (part of) a paper."""
    return len(report.papers) + report.duplicates_merged
