"""Export a list of papers (or ranked hits) as CSV or BibTeX text. Pure functions.

Corpus text is untrusted, so both formats make it inert for the program that opens them:
- CSV: a text cell that a spreadsheet would run as a formula (it starts, after blanks, with
  = + - @ or their full-width forms, a tab or a CR) or that starts with ' gets a leading '
  (OWASP's advice; spreadsheets hide that quote). `sources` can be shown relative to a root.
- BibTeX (written with bibtexparser): every TeX special character is escaped, braces become
  \\textbraceleft{} / \\textbraceright{} so BibTeX's brace counting always balances, and control
  characters become spaces; no command from the corpus reaches TeX, `$...$` math included (it
  is shown as the characters written), and the ligatures -- `` '' are broken with {}, so the
  text read back (explorer.corpus.latex.to_unicode) is the text written. `decode_tex` is the
  exact inverse, for tests and tools.
"""

from __future__ import annotations

import csv
import io
import os
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

import bibtexparser
from bibtexparser.model import Entry, Field

from explorer.corpus.papers import Paper
from explorer.query.engine import Hit

CSV_COLUMNS = ("rank", "score", "percentile", "paper_id", "title", "title_is_derived",
               "authors", "year", "venue", "url", "keywords", "abstract", "sources")
FORMULA_STARTS = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20'")
TEX_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
               "$": r"\$", "%": r"\%", "&": r"\&", "#": r"\#", "_": r"\_",
               "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}
_TEX_TABLE = str.maketrans({
    **TEX_ESCAPES,
    **{chr(c): " " for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)},
})
_TEX_UNESCAPE = {escape: char for char, escape in TEX_ESCAPES.items()}
_TEX_ESCAPE_RE = re.compile("|".join(re.escape(e) for e in sorted(_TEX_UNESCAPE, key=len,
                                                                    reverse=True)))
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=`)(?=`)|(?<=')(?=')")
_LIGATURE_BREAK = re.compile(r"(?<=-)\{\}(?=-)|(?<=`)\{\}(?=`)|(?<=')\{\}(?=')")
_URL_SAFE = "-._~:/?#[]@!$&'()*+,;=%"
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
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


def to_bibtex(items: Sequence[Hit | Paper]) -> str:
    """BibTeX entries (@article with a venue, else @misc); keys are unique within the text."""
    seen: set[str] = set()
    library = bibtexparser.Library()
    for _, paper in _as_pairs(items):
        key = _unique_key(_cite_key(paper), seen)
        kind = "article" if paper.venue else "misc"
        library.add(Entry(kind, key, [Field(name, value) for name, value in _bib_fields(paper)]))
    layout = bibtexparser.BibtexFormat()
    layout.indent = "  "
    layout.block_separator = "\n"
    return bibtexparser.write_string(library, bibtex_format=layout)


def _bib_fields(paper: Paper) -> list[tuple[str, str]]:
    fields = [("title", escape_tex(paper.title))]
    if paper.authors:
        fields.append(("author", " and ".join(escape_tex(a) for a in paper.authors)))
    if paper.year:
        fields.append(("year", str(paper.year)))
    if paper.venue:
        fields.append(("journal", escape_tex(paper.venue)))
    url = _safe_url(paper.url or "")
    if url:
        fields.append(("url", url))
    if paper.keywords:
        fields.append(("keywords", escape_tex(", ".join(paper.keywords))))
    if paper.abstract:
        fields.append(("abstract", escape_tex(paper.abstract)))
    note = f"Paper Explorer id {paper.paper_id}"
    if paper.title_is_derived:
        note += "; title derived from the abstract"
    fields.append(("note", escape_tex(note)))
    return fields


def escape_tex(text: str) -> str:
    """Text TeX prints as written and BibTeX sees as brace-balanced; controls become spaces.

    The ligatures TeX (and a reader such as ours) makes of -- --- `` '' are broken with {}, so
    "trees--a forest" comes back as written, not with an en dash."""
    return _LIGATURE.sub("{}", text.translate(_TEX_TABLE))


def decode_tex(text: str) -> str:
    """The inverse of `escape_tex` (up to its control characters, which stay spaces)."""
    text = _LIGATURE_BREAK.sub("", text)  # a literal {} was escaped, so each is a break
    return _TEX_ESCAPE_RE.sub(lambda m: _TEX_UNESCAPE[m.group(0)], text)


def _safe_url(url: str) -> str:
    """An http(s) URL with every character TeX or BibTeX could act on percent-encoded; else ''."""
    if not re.match(r"https?://", url, re.IGNORECASE):
        return ""
    escapes_valid = _BAD_PERCENT.search(url) is None  # keep %41-style escapes already there
    return quote(url, safe=_URL_SAFE if escapes_valid else _URL_SAFE.replace("%", ""))


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
