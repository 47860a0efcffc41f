"""A paper as a reference list cites it (`Citation`): what kind of work it is, where it
appeared, its authors as (family, given) names and a stable citation key. The three formats
(ui_bibtex.py, ui_tagged.py, ui_csl.py) only spell a Citation out.

The kind comes from the venue and the status (corpus/venues.py), never from the bare venue
string: an accepted paper of a conference is a `CONFERENCE` paper in the venue's proceedings
(its full name, "International Conference on Learning Representations"); a journal's an
`ARTICLE`; a submission that was rejected, withdrawn or is still under review is `UNPUBLISHED`,
with the note "Submitted to ICLR 2018" and its status kept (BibLaTeX `pubstate`, CSL `status`),
never cited as published; an arXiv paper a `PREPRINT`; a venue the table does not know is
read by its words ("Journal ...", "Proceedings ...", "Conference ...") else `OTHER`, with the
name as given (BibTeX `howpublished`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from urllib.parse import quote

from explorer.corpus.fields import given as given_name
from explorer.corpus.latex import MATH
from explorer.corpus.papers import Paper
from explorer.corpus.venues import WORKSHOP, Venue, published, venue_named, venue_of
from explorer.corpus.versions import preferred
from explorer.query.engine import Hit

CONFERENCE, ARTICLE, UNPUBLISHED, PREPRINT, OTHER = (
    "conference", "article", "unpublished", "preprint", "other")
DERIVED_NOTE = "Title derived from the abstract"
MAX_AUTHORS = 500  # a record listing more names is cut (consortium papers list ~3,000)
# Words of a name that belong to the family name when they come before it ("van der Maaten").
PARTICLES = frozenset("van von der den de del della di da dos du la le ten ter zu y".split())
SUFFIXES = frozenset("jr jr. sr sr. ii iii iv".split())
# The title words a key skips (Google Scholar's keys: vaswani2017attention).
KEY_SKIPS = frozenset("a an the on of in for to and with from towards toward is are do does "
                      "can how what when why via by at as".split())
# Words of a track or a given status that name a kind of paper of the main proceedings.
MAIN_TRACK_WORDS = frozenset("main long short paper papers technical oral poster spotlight accept "
                             "accepted talk conference track industry demo demos system systems "
                             "demonstration demonstrations tutorial student research workshop "
                             "(oral) (poster) (spotlight)".split())
_JOURNAL_WORDS = frozenset("journal transactions letters review reviews magazine".split())
_PROCEEDINGS_WORDS = frozenset("proceedings conference symposium workshop meeting congress".split())
_URL_SAFE = "-._~:/?#[]@!$&'()*+,;=%"
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_DOI = re.compile(r"10\.[0-9]{4,9}/[!-~]+")
_ARXIV = re.compile(r"[a-z\-]+(?:\.[A-Z]{2})?/[0-9]{7}(?:v[0-9]+)?|[0-9]{4}\.[0-9]{4,5}(?:v[0-9]+)?")


@dataclass(frozen=True)
class Name:
    """One author: `family` (with its particles, "van der Maaten"), `given` and `suffix`
    ("Jr."); a one-word name has only a family name."""

    family: str
    given: str = ""
    suffix: str = ""


@dataclass(frozen=True)
class Citation:
    """What a reference list needs of one paper; texts as the corpus has them (not escaped)."""

    key: str
    kind: str  # CONFERENCE, ARTICLE, UNPUBLISHED, PREPRINT or OTHER
    title: str
    names: tuple[Name, ...]
    year: int | None
    container: str = ""  # the proceedings' or journal's full name (CONFERENCE, ARTICLE)
    published_in: str = ""  # OTHER: where it appeared, as the corpus names it
    note: str = ""  # "Submitted to ICLR 2018"; a derived title says so
    status: str = ""  # of an UNPUBLISHED paper, lower case: "rejected", "withdrawn", ...
    url: str = ""
    doi: str = ""
    arxiv: str = ""
    abstract: str = ""
    keywords: tuple[str, ...] = ()
    paper_id: str = ""


def citations(items: Sequence[Hit | Paper], *, abstract: bool = False) -> list[Citation]:
    """One Citation per paper or hit, in order, keys unique within the list (a, b, ...)."""
    seen: set[str] = set()
    return [citation_of(paper, seen, abstract=abstract) for paper in papers_of(items)]


def papers_of(items: Sequence[Hit | Paper]) -> list[Paper]:
    """The papers of hits or papers; anything else is a ValueError."""
    papers = []
    for item in items:
        if isinstance(item, Hit):  # a work shown once: the version to cite (features/versions/)
            papers.append(preferred((item.paper, *item.versions)))
        elif isinstance(item, Paper):
            papers.append(item)
        else:
            raise ValueError(f"expected Hit or Paper, got {type(item).__name__}")
    return papers


def citation_of(paper: Paper, seen: set[str], *, abstract: bool = False) -> Citation:
    """`paper` as cited; its key is made unique against `seen` (and added to it)."""
    venue = venue_of(paper.venue or "")
    year = paper.year or venue.year
    given = paper.field(given_name("status"))
    track = " ".join(t for t in (venue.track, given if isinstance(given, str) else "") if t)
    kind, container, published_in, note, status = placement(
        replace(venue, track=track or None), paper.status, year, bool(paper.arxiv_id))
    if paper.title_is_derived:
        note = "; ".join(part for part in (note, DERIVED_NOTE) if part)
    names = tuple(n for n in (split_name(a) for a in paper.authors[:MAX_AUTHORS]) if n.family)
    key = unique_key(base_key(names, year, paper.title, paper.paper_id), seen)
    return Citation(key, kind, paper.title, names, year, container, published_in, note, status,
                    paper.url or "", paper.doi or "", paper.arxiv_id or "",
                    paper.abstract if abstract else "", paper.keywords, paper.paper_id)


def placement(venue: Venue, status: str | None, year: int | None,
              has_arxiv: bool) -> tuple[str, str, str, str, str]:
    """(kind, container, published_in, note, status) of a paper at `venue` with `status`
    (the paper's own, else what the venue string says)."""
    status = status or venue.status
    if status is not None and not published(status):
        when = venue.year or year  # the year the venue string names: the submission's
        label = " ".join(p for p in (venue.short or "", str(when) if when else "") if p)
        note = f"Submitted to {label}" if label else "Submitted for publication"
        return UNPUBLISHED, "", "", note, status.lower()
    if venue.full is None:
        return _unknown_venue(venue.short or "", has_arxiv)
    if venue.kind == "preprint":
        return PREPRINT, "", "", "", ""
    if venue.kind == "journal":
        return ARTICLE, venue.full, "", "", ""
    return CONFERENCE, _proceedings(venue, status, year), "", "", ""


def _proceedings(venue: Venue, status: str | None, year: int | None) -> str:
    """The proceedings' name: the table's, with a workshop or a track named ("..., Datasets
    and Benchmarks Track"); a Findings paper of an ACL venue is in "Findings of the
    Association for Computational Linguistics: ACL 2022", not in the main proceedings. Kinds
    of main-track papers (long, short, demo, ...) name no other proceedings."""
    named = venue_named(venue.short or "")
    container = named.proceedings if named and named.proceedings else venue.full or ""
    words = set((venue.track or "").lower().split())
    if "findings" in words:
        when = venue.year or year
        label = " ".join(p for p in (venue.short or "", str(when) if when else "") if p)
        return f"Findings of the Association for Computational Linguistics: {label}"
    if status == WORKSHOP or venue.kind == "workshop":
        return f"{container}, Workshop Track"
    if not venue.track or words <= MAIN_TRACK_WORDS:
        return container
    return f"{container}, {venue.track}" + ("" if "track" in words else " Track")


def _unknown_venue(name: str, has_arxiv: bool) -> tuple[str, str, str, str, str]:
    """A venue the table does not know, read by its words; no venue: a preprint or other."""
    words = set(re.findall(r"[a-z]+", name.lower()))
    if words & _JOURNAL_WORDS:
        return ARTICLE, name, "", "", ""
    if words & _PROCEEDINGS_WORDS:
        return CONFERENCE, name, "", "", ""
    if not name and has_arxiv:
        return PREPRINT, "", "", "", ""
    return OTHER, "", name, "", ""


def split_name(text: str) -> Name:
    """'Ada Lovelace' / 'Lovelace, Ada' / 'Laurens van der Maaten' / 'Martin Luther King Jr.'
    -> Name(family, given, suffix). Whitespace collapsed; an empty text an empty Name."""
    text = " ".join(text.split())
    if "," in text:
        family, _, rest = text.partition(",")
        parts = [p.strip() for p in rest.split(",")]
        if len(parts) > 1 and parts[0].lower() in SUFFIXES:  # "King, Jr., Martin Luther"
            return Name(family.strip(), ", ".join(parts[1:]), parts[0])
        return Name(family.strip(), ", ".join(parts))
    words = text.split(" ") if text else []
    suffix = words.pop() if len(words) > 2 and words[-1].lower() in SUFFIXES else ""
    if not words:
        return Name("")
    start = len(words) - 1
    while start > 1 and words[start - 1] in PARTICLES:  # lower-case particles only
        start -= 1
    return Name(" ".join(words[start:]), " ".join(words[:start]), suffix)


def base_key(names: Sequence[Name], year: int | None, title: str, paper_id: str) -> str:
    """familyYEARword: the first author's last family word, the year and the title's first
    word that says something, ASCII letters and digits only ("vaswani2017attention")."""
    family = _ascii(names[0].family.split(" ")[-1]) if names else ""
    words = [_ascii(w) for w in re.findall(r"\w+", MATH.sub(" ", title))]
    word = next((w for w in words if w and w not in KEY_SKIPS), "")
    return f"{family}{year or ''}{word}" or _ascii(paper_id)[:40] or "paper"


def _ascii(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def unique_key(key: str, seen: set[str]) -> str:
    """`key`, else key + a, b, ..., z, then key + 27, 28, ...; added to `seen`."""
    candidate, suffix = key, 0
    while candidate in seen:
        suffix += 1
        candidate = f"{key}{chr(ord('a') + suffix - 1) if suffix <= 26 else suffix}"
    seen.add(candidate)
    return candidate


def safe_url(url: str) -> str:
    """An http(s) URL with every character TeX or BibTeX could act on percent-encoded; else ''."""
    if not re.match(r"https?://", url, re.IGNORECASE):
        return ""
    escapes_valid = _BAD_PERCENT.search(url) is None  # keep %41-style escapes already there
    return quote(url, safe=_URL_SAFE if escapes_valid else _URL_SAFE.replace("%", ""))


def safe_doi(doi: str) -> bool:
    """Whether `doi` is a DOI (10.NNNN/printable ASCII), the only ones exported."""
    return bool(doi) and _DOI.fullmatch(doi) is not None


def safe_arxiv(arxiv: str) -> bool:
    """Whether `arxiv` is an arXiv id (2101.00001v2, hep-th/9901001), the only ones exported."""
    return bool(arxiv) and _ARXIV.fullmatch(arxiv) is not None
