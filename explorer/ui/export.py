"""Export a list of papers (or ranked hits) as CSV text. Pure functions.

Corpus text is untrusted, so CSV makes it inert for the spreadsheet that opens it: a text cell
that a spreadsheet would run as a formula (it starts, after blanks, with = + - @ or their
full-width forms, a tab or a CR) or that starts with ' gets a leading ' (OWASP's advice;
spreadsheets hide that quote). `sources` can be shown relative to a root. Citations (BibTeX,
RIS, CSL-JSON) are explorer/features/exports/'s.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Sequence
from pathlib import Path

from explorer.corpus.papers import Paper
from explorer.query.engine import Hit

CSV_COLUMNS = ("rank", "score", "percentile", "paper_id", "title", "title_is_derived",
               "authors", "year", "venue", "url", "keywords", "abstract", "sources")
FORMULA_STARTS = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20'")
_SOURCE = re.compile(r"(.*?)([:#][0-9]+)?")


def _as_pairs(items: Sequence[Hit | Paper]) -> list[tuple[Hit | None, Paper]]:
    pairs = []
    for item in items:
        if isinstance(item, Hit):
            pairs.append((item, item.paper))
        elif isinstance(item, Paper):
            pairs.append((None, item))
        else:
            raise ValueError(f"expected Hit or Paper, got {type(item).__name__}")
    return pairs


def to_csv(items: Sequence[Hit | Paper], *, source_root: str | os.PathLike[str] | None = None) -> str:
    """One row per paper; rank/score/percentile are empty for plain papers. Lists join with '; '.

    With `source_root`, sources are shown relative to it (a source outside it by its file name
    only), so no absolute server path leaves the machine; without it, as read.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")  # RFC 4180; quotes cells with CR or LF
    writer.writerow(CSV_COLUMNS)
    for hit, paper in _as_pairs(items):
        sources = paper.sources if source_root is None else tuple(
            relative_source(s, source_root) for s in paper.sources)
        cells = [paper.paper_id, paper.title, paper.title_is_derived, "; ".join(paper.authors),
                 paper.year or "", paper.venue or "", paper.url or "", "; ".join(paper.keywords),
                 paper.abstract, "; ".join(sources)]
        writer.writerow([
            hit.rank if hit else "", f"{hit.score:.4f}" if hit else "",
            "" if hit is None or hit.percentile is None else hit.percentile,
            *(inert_cell(c) if isinstance(c, str) else c for c in cells),
        ])
    return buffer.getvalue()


def inert_cell(text: str) -> str:
    """`text` as a spreadsheet shows it, never as a formula: a leading ' when it could be one."""
    stripped = text.lstrip(" ")
    return f"'{text}" if stripped and stripped[0] in FORMULA_STARTS else text


def relative_source(source: str, root: str | os.PathLike[str]) -> str:
    """`path:line` (or `path#record`) with the path relative to `root`, else its name only."""
    match = _SOURCE.fullmatch(source)
    path, where = (match.group(1), match.group(2) or "") if match else (source, "")
    absolute, base = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    try:
        shown = absolute.relative_to(base).as_posix()
    except ValueError:
        shown = absolute.name
    return f"{shown or absolute.name}{where}"
