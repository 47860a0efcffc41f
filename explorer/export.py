"""Export a list of papers (or ranked hits) as CSV or BibTeX text. Pure functions."""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Sequence

from explorer.corpus import Paper
from explorer.search import Hit

CSV_COLUMNS = ("rank", "score", "percentile", "paper_id", "title", "title_is_derived",
               "authors", "year", "venue", "url", "keywords", "abstract", "sources")
_MATH = re.compile(r"(\$\$.+?\$\$|\$[^$\n]+?\$)", re.DOTALL)
_BIBTEX_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&",
                    "%": r"\%", "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}",
                    "^": r"\textasciicircum{}", "$": r"\$"}


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


def to_csv(items: Sequence[Hit | Paper]) -> str:
    """One row per paper; rank/score/percentile are empty for plain papers. Lists join with '; '."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for hit, paper in _as_pairs(items):
        writer.writerow([
            hit.rank if hit else "", f"{hit.score:.4f}" if hit else "",
            "" if hit is None or hit.percentile is None else hit.percentile,
            paper.paper_id, paper.title, paper.title_is_derived, "; ".join(paper.authors),
            paper.year or "", paper.venue or "", paper.url or "", "; ".join(paper.keywords),
            paper.abstract, "; ".join(paper.sources),
        ])
    return buffer.getvalue()


def to_bibtex(items: Sequence[Hit | Paper]) -> str:
    """BibTeX entries (@article with a venue, else @misc); keys are unique within the text."""
    seen: set[str] = set()
    entries = []
    for _, paper in _as_pairs(items):
        key = _unique_key(_cite_key(paper), seen)
        fields = [("title", _escape(paper.title))]
        if paper.authors:
            fields.append(("author", " and ".join(_escape(a) for a in paper.authors)))
        if paper.year:
            fields.append(("year", str(paper.year)))
        if paper.venue:
            fields.append(("journal", _escape(paper.venue)))
        if paper.url:
            fields.append(("url", paper.url.replace("{", "%7B").replace("}", "%7D")))
        if paper.keywords:
            fields.append(("keywords", _escape(", ".join(paper.keywords))))
        if paper.abstract:
            fields.append(("abstract", _escape(paper.abstract)))
        note = f"Paper Explorer id {paper.paper_id}"
        if paper.title_is_derived:
            note += "; title derived from the abstract"
        fields.append(("note", _escape(note)))
        kind = "article" if paper.venue else "misc"
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{kind}{{{key},\n{body}\n}}\n")
    return "\n".join(entries)


def _escape(text: str) -> str:
    """LaTeX-safe text: `$...$` math is kept as written (when its braces balance), the rest escaped."""
    parts = []
    for index, piece in enumerate(_MATH.split(text)):
        if index % 2 == 1 and _balanced(piece):
            parts.append(piece)
        else:
            parts.append("".join(_BIBTEX_SPECIALS.get(char, char) for char in piece))
    return "".join(parts)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text.replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _cite_key(paper: Paper) -> str:
    names = paper.authors[0].split(",")[0].split() if paper.authors else []
    surname = names[-1] if names else ""
    words = [w for w in re.findall(r"\w+", paper.title) if len(w) > 3]
    raw = f"{surname}{paper.year or ''}{words[0] if words else ''}" or paper.paper_id
    ascii_key = unicodedata.normalize("NFKD", raw).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9]", "", ascii_key).lower() or "paper"


def _unique_key(key: str, seen: set[str]) -> str:
    candidate, suffix = key, 0
    while candidate in seen:
        suffix += 1
        candidate = f"{key}{chr(ord('a') + suffix - 1) if suffix <= 26 else suffix}"
    seen.add(candidate)
    return candidate
