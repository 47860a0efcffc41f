"""How venues are named and what a paper's status is: the one place for both.

A status is one word of a small vocabulary (`STATUSES`), read from what sources say:
paperlists-ml's `status` ("Poster", "Reject", "Withdraw"), an OpenReview venue string ("ICLR
2026 Poster", "Submitted to ICLR 2026", "ICLR 2026 Conference Withdrawn Submission") or decision
("Accept (Oral)", "Invite to Workshop Track"), BibTeX's `pubstate` and CSL's `status`. Which
words give which status is `_PHRASES` (the first that a text holds wins; see `status_of`).

A venue string is split into a `Venue` (`venue_of`): the venue's short name from `VENUE_NAMES`
(ICLR, NeurIPS, ...: its full name and whether it is a conference, a journal or a preprint
server), the year, the status and what else the string names (a track: "Datasets and
Benchmarks", "Workshop on Foundation Models"). Only a string that names a venue of the table is
split: "Oral Oncology" stays a journal's name, not an oral. Exports ask `published(status)`
before citing a paper as published (features/exports/ui_citation.py: "Submitted to ICLR 2018").

Texts are read in linear time: at most `MAX_CHARS` characters, split once into words.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

ORAL, SPOTLIGHT, POSTER, ACCEPTED, PUBLISHED = "Oral", "Spotlight", "Poster", "Accepted", "Published"
WORKSHOP, SUBMITTED = "Workshop", "Submitted"
REJECTED, DESK_REJECTED, WITHDRAWN = "Rejected", "Desk rejected", "Withdrawn"
STATUSES = (ORAL, SPOTLIGHT, POSTER, ACCEPTED, PUBLISHED, WORKSHOP, SUBMITTED, REJECTED,
            DESK_REJECTED, WITHDRAWN)
# Accepted to the main venue (and so cited as published); a workshop paper appeared too, but
# a version of the work at the main venue is the one to cite (`citable_rank`).
PUBLISHED_STATUSES = frozenset({ORAL, SPOTLIGHT, POSTER, ACCEPTED, PUBLISHED, WORKSHOP})
_RANK = {ORAL: 6, SPOTLIGHT: 6, POSTER: 6, ACCEPTED: 6, PUBLISHED: 6, WORKSHOP: 4, None: 3,
         SUBMITTED: 2, REJECTED: 1, DESK_REJECTED: 1, WITHDRAWN: 0}
MAX_CHARS = 500  # of a venue or status text read

# (words in a row, status), in the order tried: "Withdrawn Submission" is withdrawn, not a
# submission; "Accept (Oral)" an oral; "Oral Workshop" a workshop paper.
_PHRASES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("desk", "rejected"), DESK_REJECTED), (("desk", "reject"), DESK_REJECTED),
    (("withdrawn",), WITHDRAWN), (("withdraw",), WITHDRAWN), (("retracted",), WITHDRAWN),
    (("rejected",), REJECTED), (("reject",), REJECTED), (("rejection",), REJECTED),
    (("workshop",), WORKSHOP),
    (("top", "5%"), ORAL), (("oral",), ORAL), (("talk",), ORAL),
    (("top", "25%"), SPOTLIGHT), (("spotlight",), SPOTLIGHT),
    (("poster",), POSTER),
    (("accept",), ACCEPTED), (("accepted",), ACCEPTED), (("in", "press"), ACCEPTED),
    (("to", "appear"), ACCEPTED), (("forthcoming",), ACCEPTED), (("inpress",), ACCEPTED),
    (("published",), PUBLISHED),
    (("submitted",), SUBMITTED), (("submission",), SUBMITTED), (("under", "review"), SUBMITTED),
    (("active",), SUBMITTED),
)
# Kinds of accepted papers that paperlists-ml and the ACL Anthology give as a status (their
# word is kept beside the status: `status_of(...).exact` is False).
_ACCEPTED_KINDS = frozenset(
    "long short main findings technical industry demo demos demonstration demonstrations "
    "system tutorial".split())
# Words of a venue string that say nothing beyond the venue, year and status; small words
# are dropped only at the ends of what is left ("Submitted to", "Workshop on X in Y").
_CONSUMED = frozenset(
    "conference track submitted submission submissions blind paper papers under review accept "
    "accepted notable top 5% 25% decision proceedings desk withdrawn withdraw retracted rejected "
    "reject rejection oral talk spotlight poster published forthcoming inpress".split())
_SMALL = frozenset("the to for by at of in on and with".split())

@dataclass(frozen=True)
class VenueName:
    """A venue a user meets: its short name, full name, kind ("conference", "journal",
    "preprint") and, where it differs from the full name, the title of its proceedings."""

    short: str
    full: str
    kind: str
    proceedings: str | None = None


@dataclass(frozen=True)
class Status:
    """A status read from a text: `exact` when the text is just a spelling of it ("Reject"),
    False when it says more ("Findings", "Accept (Poster)") and is worth keeping as given."""

    status: str
    exact: bool


@dataclass(frozen=True)
class Venue:
    """A venue string split: `short` ("ICLR") or the text as given when the table does not
    know it, `full` and `kind` from the table (None when unknown), `year`, `status` (one of
    STATUSES or None) and `track` (the rest it names: "Datasets and Benchmarks")."""

    short: str | None
    full: str | None = None
    kind: str | None = None
    year: int | None = None
    status: str | None = None
    track: str | None = None

    @property
    def label(self) -> str:
        """'ICLR 2018' (the short name and the year, as far as known)."""
        return " ".join(part for part in (self.short, str(self.year) if self.year else "")
                        if part)


_C, _J = "conference", "journal"
VENUE_NAMES = tuple(VenueName(*row) for row in (
    ("ICLR", "International Conference on Learning Representations", _C),
    ("NeurIPS", "Conference on Neural Information Processing Systems", _C,
     "Advances in Neural Information Processing Systems"),
    ("ICML", "International Conference on Machine Learning", _C,
     "Proceedings of the International Conference on Machine Learning"),
    ("CVPR", "IEEE/CVF Conference on Computer Vision and Pattern Recognition", _C),
    ("ICCV", "IEEE/CVF International Conference on Computer Vision", _C),
    ("ECCV", "European Conference on Computer Vision", _C),
    ("WACV", "IEEE/CVF Winter Conference on Applications of Computer Vision", _C),
    ("3DV", "International Conference on 3D Vision", _C),
    ("ACL", "Annual Meeting of the Association for Computational Linguistics", _C),
    ("EMNLP", "Conference on Empirical Methods in Natural Language Processing", _C),
    ("NAACL", "Conference of the North American Chapter of the Association for "
              "Computational Linguistics", _C),
    ("EACL", "Conference of the European Chapter of the Association for Computational "
             "Linguistics", _C),
    ("COLING", "International Conference on Computational Linguistics", _C),
    ("COLM", "Conference on Language Modeling", _C),
    ("AAAI", "AAAI Conference on Artificial Intelligence", _C),
    ("IJCAI", "International Joint Conference on Artificial Intelligence", _C),
    ("AISTATS", "International Conference on Artificial Intelligence and Statistics", _C),
    ("UAI", "Conference on Uncertainty in Artificial Intelligence", _C),
    ("COLT", "Conference on Learning Theory", _C),
    ("ALT", "International Conference on Algorithmic Learning Theory", _C),
    ("ACML", "Asian Conference on Machine Learning", _C),
    ("AutoML", "International Conference on Automated Machine Learning", _C),
    ("CoRL", "Conference on Robot Learning", _C),
    ("RSS", "Robotics: Science and Systems", _C),
    ("ICRA", "IEEE International Conference on Robotics and Automation", _C),
    ("IROS", "IEEE/RSJ International Conference on Intelligent Robots and Systems", _C),
    ("KDD", "ACM SIGKDD Conference on Knowledge Discovery and Data Mining", _C),
    ("WWW", "The ACM Web Conference", _C),
    ("SIGIR", "International ACM SIGIR Conference on Research and Development in "
              "Information Retrieval", _C),
    ("WSDM", "ACM International Conference on Web Search and Data Mining", _C),
    ("CIKM", "ACM International Conference on Information and Knowledge Management", _C),
    ("RecSys", "ACM Conference on Recommender Systems", _C),
    ("CHI", "ACM CHI Conference on Human Factors in Computing Systems", _C),
    ("VLDB", "International Conference on Very Large Data Bases", _C),
    ("SIGMOD", "ACM SIGMOD International Conference on Management of Data", _C),
    ("ICASSP", "IEEE International Conference on Acoustics, Speech and Signal Processing", _C),
    ("Interspeech", "Annual Conference of the International Speech Communication "
                    "Association", _C),
    ("MICCAI", "International Conference on Medical Image Computing and Computer-Assisted "
               "Intervention", _C),
    ("MIDL", "Medical Imaging with Deep Learning", _C),
    ("MLSys", "Conference on Machine Learning and Systems", _C),
    ("LoG", "Learning on Graphs Conference", _C),
    ("CoLLAs", "Conference on Lifelong Learning Agents", _C),
    ("L4DC", "Learning for Dynamics and Control Conference", _C),
    ("TMLR", "Transactions on Machine Learning Research", _J),
    ("JMLR", "Journal of Machine Learning Research", _J),
    ("TACL", "Transactions of the Association for Computational Linguistics", _J),
    ("TPAMI", "IEEE Transactions on Pattern Analysis and Machine Intelligence", _J),
    ("IJCV", "International Journal of Computer Vision", _J),
    ("arXiv", "arXiv", "preprint"),
))
# Other spellings of a short name (lower case) -> the short name.
_ALIASES = {"nips": "NeurIPS", "thewebconf": "WWW", "sigkdd": "KDD", "pvldb": "VLDB",
            "corr": "arXiv", "automl-conf": "AutoML", "pami": "TPAMI", "arxiv.org": "arXiv"}
# Other spellings of a full name (lower case), as Semantic Scholar and OpenAlex write them.
_FULL_ALIASES = {
    "neural information processing systems": "NeurIPS",
    "computer vision and pattern recognition": "CVPR",
    "ieee international conference on computer vision": "ICCV",
    "north american chapter of the association for computational linguistics": "NAACL",
    "international conference on computational linguistics": "COLING",
    "trans. mach. learn. res.": "TMLR", "j. mach. learn. res.": "JMLR",
    "ieee transactions on pattern analysis and machine intelligence": "TPAMI",
    "knowledge discovery and data mining": "KDD", "the web conference": "WWW",
    "robotics: science and systems": "RSS", "conference on robot learning": "CoRL",
    "ieee/rsj international conference on intelligent robots and systems": "IROS",
    "ieee international conference on robotics and automation": "ICRA",
    "international conference on artificial intelligence and statistics": "AISTATS",
    "annual conference computational learning theory": "COLT",
    "arxiv (cornell university)": "arXiv"}
_BY_SHORT = {name.short: name for name in VENUE_NAMES}
_BY_WORD = {name.short.lower(): name for name in VENUE_NAMES} | {
    alias: _BY_SHORT[short] for alias, short in _ALIASES.items()}
_BY_FULL = {name.full.lower(): name for name in VENUE_NAMES} | {
    name.proceedings.lower(): name for name in VENUE_NAMES if name.proceedings} | {
    full: _BY_SHORT[short] for full, short in _FULL_ALIASES.items()}
_PUNCTUATION = "()[]{},;:.!?'\"“”‘’"


def venue_named(name: str) -> VenueName | None:
    """The table's entry for a short name, another spelling of one ("nips", "NIPS") or a
    full name (any case); None for other names."""
    key = " ".join(name[:MAX_CHARS].split()).lower()
    return _BY_WORD.get(key) or _BY_FULL.get(key)


def status_of(text: str) -> Status | None:
    """The status a status or decision text states ("Poster", "Reject", "Accept (Oral)",
    "Withdraw", "Findings": accepted), None when it states none of them."""
    return _status_of(text[:MAX_CHARS])


@functools.lru_cache(maxsize=4096)
def _status_of(text: str) -> Status | None:
    words = _words(text)
    found = _phrase_status(words)
    if found is None:
        if not words or not set(words) <= _ACCEPTED_KINDS:
            return None
        return Status(ACCEPTED, exact=False)
    return Status(found, exact=len(words) == 1 or " ".join(words) in _EXACT)


def venue_of(raw: str) -> Venue:
    """A venue string split ("ICLR 2026 Poster" -> ICLR, 2026, Poster; "Submitted to ICLR
    2026" -> Submitted; "NeurIPS 2023 Datasets and Benchmarks Poster" -> track "Datasets and
    Benchmarks"). A string naming no venue of the table is kept whole as `short`, with no year
    or status read from it; an empty one gives Venue(None). Inside a longer string a venue's
    short name counts only when written with a capital ("Change log" names no LoG)."""
    return _venue_of(raw[:MAX_CHARS])


@functools.lru_cache(maxsize=4096)
def _venue_of(raw: str) -> Venue:
    text = " ".join(raw.split())
    if not text:
        return Venue(None)
    whole = venue_named(text)
    if whole is not None:
        return Venue(whole.short, whole.full, whole.kind)
    tokens = text.split(" ")
    keys = [token.strip(_PUNCTUATION).lower() for token in tokens]
    known = next(((i, _BY_WORD[k]) for i, k in enumerate(keys)
                  if k in _BY_WORD and not tokens[i].islower()), None)
    if known is None:
        return Venue(text)
    at, name = known
    year = next((int(k) for k in keys if len(k) == 4 and k.isdigit() and 1900 <= int(k) <= 2100),
                None)
    status = _phrase_status(_words(text))
    kind = "workshop" if status == WORKSHOP else name.kind
    return Venue(name.short, name.full, kind, year, status, _track(tokens, keys, at, name))


def _track(tokens: list[str], keys: list[str], at: int, name: VenueName) -> str | None:
    """What a venue string names beyond the venue, year and status, as written ("Datasets and
    Benchmarks", "Workshop on Foundation Models"); None when that is nothing, or only words
    of the venue's full name ("Proceedings of the AAAI Conference on Artificial Intelligence")."""
    rest = [(token, key) for i, (token, key) in enumerate(zip(tokens, keys))
            if i != at and key and key not in _CONSUMED and not _is_year(key)]
    while rest and rest[0][1] in _SMALL:
        rest.pop(0)
    while rest and rest[-1][1] in _SMALL:
        rest.pop()
    full = set(name.full.lower().split())
    if not rest or all(key in full or key in _SMALL for _, key in rest):
        return None
    return " ".join(token for token, _ in rest)


def _is_year(key: str) -> bool:
    return len(key) == 4 and key.isdigit()


def published(status: str | None) -> bool:
    """Whether a paper of this status appeared at its venue (a workshop counts)."""
    return status in PUBLISHED_STATUSES


def citable_rank(status: str | None) -> int:
    """Which version of a work to cite: higher is better (accepted > workshop > unknown >
    submitted > rejected > withdrawn)."""
    return _RANK.get(status, 3)


def stated_status(pubstate: str = "", note: str = "", venue: str = "") -> str | None:
    """The status a reference-list entry states, conservatively: BibLaTeX's `pubstate` or
    CSL's `status` as `status_of` reads it; a note that is only a status ("under review");
    a venue "Submitted to ...". None when it states none."""
    found = status_of(pubstate) if pubstate else None
    if found is None and note:
        found = status_of(note)
        found = found if found is not None and found.exact else None
    if found is None and venue.lstrip().lower().startswith("submitted to "):
        return SUBMITTED
    return found.status if found else None


def _words(text: str) -> list[str]:
    """Lower-case words of `text`: '-', ':', '/', '_' and brackets split words too."""
    table = str.maketrans({c: " " for c in "-:/_()[],;"})
    return text[:MAX_CHARS].lower().translate(table).split()


def _phrase_status(words: list[str]) -> str | None:
    """The first of `_PHRASES` that `words` holds (words in a row), else None."""
    present = set(words)
    for phrase, status in _PHRASES:
        if phrase[0] not in present:
            continue
        if len(phrase) == 1 or any(words[i:i + len(phrase)] == list(phrase)
                                   for i, word in enumerate(words) if word == phrase[0]):
            return status
    return None

# Texts that are just one status, beyond single words: kept with `exact`.
_EXACT = frozenset({"desk rejected", "desk reject", "under review", "in press", "to appear"})
