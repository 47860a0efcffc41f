"""When two records are the same paper: DOI, arXiv id, the same abstract, or the same title.

The rules, strongest first:
1. a DOI in common (normalised: lower case, no https://doi.org/ or doi: prefix);
2. an arXiv id in common (no version; an arXiv DOI 10.48550/arXiv.X counts as arXiv id X);
3. the same abstract (normalised, at least ABSTRACT_MIN_WORDS words);
4. the same title (letters and digits only, accents and case folded, so "Pre-Training" and
   "pretraining" agree), or a near one: the same number of words (at least NEAR_MIN_WORDS),
   at most NEAR_MAX_WORDS of them different, each of those a word of letters only, at least
   NEAR_MIN_LETTERS long, one edit (rapidfuzz's Levenshtein distance) from its counterpart:
   "modelling"/"modeling", "labeled"/"labelled", "transformers"/"transformer" match;
   "supervised"/"unsupervised", "convex"/"nonconvex", "GPT-3"/"GPT-4", "is all"/"is not all"
   do not.
A match by abstract or title also needs the two to agree where both say: no two different DOIs
or arXiv ids, years at most one apart, at least one author's family name in common (the last
word of "Given Family", the part before the comma of "Family, Given": given names never count),
the same volume, issue and first page. Where records already joined as one paper, a new one must
agree with every one of them, not only with the last (Registry), so a year never drifts a step
at a time and a family name shared with one member is not enough to join the rest.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from rapidfuzz.distance import Levenshtein

__all__ = ["Identity", "Registry", "arxiv_id", "arxiv_in_text", "family_name", "identify",
           "normalise_doi", "place_of", "title_words"]
ABSTRACT_MIN_WORDS = 10
TITLE_MIN_LETTERS = 12   # a shorter title ("Introduction") never identifies a paper
NEAR_MIN_WORDS = 4
NEAR_MAX_WORDS = 2
NEAR_MIN_LETTERS = 5
YEAR_SLACK = 1
_DOI_PREFIX = re.compile(r"^\s*(?:doi:\s*|(?:https?://)?(?:dx\.)?doi\.org/)", re.IGNORECASE)
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(.+)", re.IGNORECASE)
# An old id's archive ("hep-th", "cond-mat") is at most 20 letters, read possessively: a
# text of "arxivarxiv..." read each one to the end of the run (n^2).
_ARXIV_ID = r"(\d{4}\.\d{4,5}|[a-z][a-z\-]{1,19}+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?"
_ARXIV_PREFIX = re.compile(r"^\s*(?:arxiv:\s*|(?:https?://)?(?:www\.|export\.)?arxiv\.org/"
                           r"(?:abs|pdf)/)", re.IGNORECASE)
_ARXIV = re.compile(_ARXIV_ID + r"(?:\.pdf)?", re.IGNORECASE)
_ARXIV_IN_TEXT = re.compile(r"arxiv(?:\.org/(?:abs|pdf))?[:/\s]*" + _ARXIV_ID, re.IGNORECASE)
_WORDS = re.compile(r"[^\W_]+")


def normalise_doi(text: str) -> str | None:
    """'https://doi.org/10.1000/ABC' -> '10.1000/abc'; None if `text` is not a DOI."""
    candidate = unquote(_DOI_PREFIX.sub("", text.strip(), count=1)).rstrip(".,;")
    return candidate.lower() if _DOI.fullmatch(candidate) else None


def arxiv_id(text: str) -> str | None:
    """'arXiv:1706.03762v5', 'https://arxiv.org/abs/1706.03762', '10.48550/arXiv.1706.03762'
    -> '1706.03762'; None if `text` is not one. Old ids keep their archive: 'hep-th/9901001'."""
    text = text.strip()
    doi = _ARXIV_DOI.fullmatch(unquote(_DOI_PREFIX.sub("", text, count=1)))
    candidate = doi.group(1) if doi else _ARXIV_PREFIX.sub("", text, count=1)
    match = _ARXIV.fullmatch(candidate)
    return match.group(1).lower() if match else None


def arxiv_in_text(text: str) -> str | None:
    """The first 'arXiv:ID' (or arxiv.org/abs/ID) written in a note, journal or URL field."""
    match = _ARXIV_IN_TEXT.search(text)
    return match.group(1).lower() if match else None


def title_words(title: str) -> tuple[str, ...]:
    """A title's words, case and accents folded: 'Pre-Training à la BERT' -> pre training a la bert."""
    if title.isascii():  # nothing to decompose: the common case, several times faster
        return tuple(_WORDS.findall(title.lower()))
    folded = unicodedata.normalize("NFKD", title.casefold())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return tuple(_WORDS.findall(plain))


Place = tuple[str, str, str]  # (volume, issue, first page), each "" where not given
NO_PLACE: Place = ("", "", "")


@dataclass(frozen=True)
class Identity:
    """What says which paper a record is: its DOIs and arXiv ids, an abstract key, its title's
    words, its year, its authors' family names (folded) and where it is printed (`place`)."""

    dois: frozenset[str]
    arxiv: frozenset[str]
    abstract: str
    words: tuple[str, ...]
    year: int | None
    surnames: frozenset[str]
    place: Place = NO_PLACE

    @property
    def title_key(self) -> str:
        key = "".join(self.words)
        return key if len(key) >= TITLE_MIN_LETTERS else ""


def identify(names: Iterable[str], title: str, year: int | None, authors: Sequence[str],
             abstract: str, place: Sequence[str] = NO_PLACE) -> Identity:
    """The identity of a record. `names`: any of its ids, aliases, URLs and DOI or arXiv
    fields (what is neither a DOI nor an arXiv id is ignored); `title` "" when not real;
    `place`: its volume, issue and pages as written ("" where not given)."""
    dois, arxiv = set(), set()
    for name in names:
        if not name:
            continue
        if (found := arxiv_id(name)) is not None:
            arxiv.add(found)
        elif (doi := normalise_doi(name)) is not None:
            dois.add(doi)
    words = " ".join(abstract.split()).casefold()
    abstract_key = (hashlib.sha256(words.encode()).hexdigest()
                    if words.count(" ") + 1 >= ABSTRACT_MIN_WORDS else "")
    surnames = {family_name(author) for author in authors} - {""}
    volume, issue, pages = (_place_value(value) for value in place)
    return Identity(frozenset(dois), frozenset(arxiv), abstract_key, title_words(title), year,
                    frozenset(surnames), (volume, issue, pages))


def place_of(original: Iterable[tuple[str, str]]) -> Place:
    """(volume, issue, pages) of a BibTeX entry's fields as written (the first of each)."""
    fields: dict[str, str] = {}
    for name, value in original:
        fields.setdefault(name.lower(), value)
    volume, issue, pages = (next((fields[n] for n in names if fields.get(n)), "")
                            for names in (("volume",), ("number", "issue"), ("pages",)))
    return volume, issue, pages


def family_name(author: str) -> str:
    """An author's family name, folded: 'Ada Lovelace', 'Lovelace, Ada', 'A. Lovelace' and
    'Joseph Reagle Jr.' -> 'lovelace', 'reagle'; 'J. Parkes-Loach' -> 'parkesloach'; '' for
    none ('others', 'et al.', initials only). Given names never count: 'Jean Cesar' and
    'Jean Aimar' have no name in common."""
    head, comma, _ = author.partition(",")
    words = (head if comma else author).split()
    while words:  # from the last word: 'Given Family [Jr.]' drops a suffix and initials
        family = _name_word(words.pop())
        if comma or (len(family) >= 2 and family not in _SUFFIXES):
            return family if len(family) >= 2 and family not in _NOT_NAMES else ""
    return ""


_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})
_NOT_NAMES = frozenset({"others", "al", "etal"})  # BibTeX's 'and others', 'et al.'
_DIGITS = re.compile(r"[0-9]+")
_NOT_ALNUM = re.compile(r"[^0-9A-Za-z]+")


def _name_word(word: str) -> str:
    """A word of a name folded to its letters and digits: 'Müller' -> 'muller', 'J.' -> 'j'."""
    return _NOT_ALNUM.sub("", word).lower() if word.isascii() else "".join(title_words(word))


def _place_value(value: str) -> str:
    """A volume, issue or page range as compared: its first number ('pp. 121--130' -> '121',
    'Vol. 012' -> '12'), else its folded words ('Spring' -> 'spring'); '' if not given."""
    if not value:
        return ""
    value = value[:64]
    match = _DIGITS.search(value)
    return str(int(match.group())) if match else "".join(title_words(value))


def compatible(first: Identity, second: Identity) -> bool:
    """Nothing that both say tells the two apart (for a match by abstract or title)."""
    return not (
        (first.dois and second.dois and not first.dois & second.dois)
        or (first.arxiv and second.arxiv and not first.arxiv & second.arxiv)
        or (first.year is not None and second.year is not None
            and abs(first.year - second.year) > YEAR_SLACK)
        or (first.surnames and second.surnames and not first.surnames & second.surnames)
        or any(a and b and a != b for a, b in zip(first.place, second.place))
    )


def same_work(first: Identity, second: Identity) -> bool:
    """For records with a DOI or arXiv id in common: False only when they share nothing else
    that both say, neither title (nor a near one) nor a family name (a DOI copied into
    another paper's entry); such an id names one of them, not both."""
    return not (first.title_key and second.title_key and first.title_key != second.title_key
                and not near(first.words, second.words)
                and first.surnames and second.surnames and not first.surnames & second.surnames)


def near(first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    """Titles a typo or a spelling variant apart (the module's rule 4)."""
    if len(first) != len(second) or len(first) < NEAR_MIN_WORDS or first == second:
        return False
    different = [(a, b) for a, b in zip(first, second) if a != b]
    return 0 < len(different) <= NEAR_MAX_WORDS and all(
        a.isalpha() and b.isalpha() and min(len(a), len(b)) >= NEAR_MIN_LETTERS
        and Levenshtein.distance(a, b, score_cutoff=1) <= 1 for a, b in different)


class Registry:
    """Identities of papers seen so far, for `find`: which of them a new record is.

    Lookups are dictionary hits. A near title can differ in at most NEAR_MAX_WORDS words, so
    split into NEAR_MAX_WORDS + 1 runs of words, one run is the same as the other title's: a
    title is only compared with titles of its length that share a run (and every word with a
    digit). A title shared by more than BLOCK_LIMIT papers stops being looked through, so one
    lookup costs at most a few hundred comparisons at any corpus size.

    A paper may be several records joined (`add` with the same `ref` again): a match by
    abstract or title must agree with every one of them. A paper of more than MEMBER_LIMIT
    different records takes no more by abstract or title (only by DOI or arXiv id), which
    bounds that check too."""

    def __init__(self) -> None:
        self._exact: dict[tuple[str, str], list[Hashable]] = defaultdict(list)
        self._blocks: dict[tuple, list[Hashable]] = defaultdict(list)
        self._members: dict[Hashable, list[Identity]] = defaultdict(list)

    def add(self, ref: Hashable, identity: Identity) -> None:
        """File `identity` as (one record of) paper `ref`."""
        members = self._members[ref]
        if len(members) <= MEMBER_LIMIT and identity not in members:
            members.append(identity)
        for kind, values in (("doi", identity.dois), ("arxiv", identity.arxiv),
                             ("abstract", {identity.abstract} - {""}),
                             ("title", {identity.title_key} - {""})):
            for value in values:
                _append(self._exact[kind, value], ref)
        for block in _blocks(identity):
            _append(self._blocks[block], ref)

    def members(self, ref: Hashable) -> tuple[Identity, ...]:
        """The identities filed as paper `ref`."""
        return tuple(self._members.get(ref, ()))

    def find(self, identity: Identity, also: Iterable[Identity] = ()) -> Hashable | None:
        """The first paper added that `identity` is (the module's rules), else None. `also`:
        the identities of records already joined to the one looked up (each must agree too).
        At most COMPARISONS identities are compared in one lookup (past it: no match)."""
        claims = (identity, *also)
        budget = COMPARISONS
        for ref, how in self._candidates(identity):
            members = self._members[ref]
            budget -= len(members) * (len(claims) + (how == NEAR))
            if budget < 0:
                return None
            if len(members) > MEMBER_LIMIT and how != BY_ID:
                continue
            if how == NEAR and not any(near(identity.words, m.words) for m in members):
                continue
            agree = same_work if how == BY_ID else compatible
            if all(agree(claim, member) for claim in claims for member in members):
                return ref
        return None

    def _candidates(self, identity: Identity) -> Iterator[tuple[Hashable, str]]:
        """(paper, how it was found: BY_ID, EXACT or NEAR) that `identity` may be."""
        keys = [("doi", value) for value in sorted(identity.dois)]
        keys += [("arxiv", value) for value in sorted(identity.arxiv)]
        for key in keys:
            yield from ((ref, BY_ID) for ref in self._exact.get(key, ()))
        for key in [("abstract", identity.abstract), ("title", identity.title_key)]:
            if key[1]:
                yield from ((ref, EXACT) for ref in self._exact.get(key, ()))
        for block in _blocks(identity):
            yield from ((ref, NEAR) for ref in self._blocks.get(block, ()))


BY_ID, EXACT, NEAR = "id", "exact", "near"
MEMBER_LIMIT = 16
COMPARISONS = 4_096  # twice what a lookup among single records can cost (1,000 candidates)
BLOCK_LIMIT = 200


def _append(refs: list[Hashable], ref: Hashable) -> None:
    if len(refs) < BLOCK_LIMIT and (not refs or refs[-1] != ref):
        refs.append(ref)


def _blocks(identity: Identity) -> list[tuple]:
    """The keys under which a near title of `identity`'s must be filed too (see Registry)."""
    words = identity.words
    if not identity.title_key or len(words) < NEAR_MIN_WORDS:
        return []
    digits = tuple(w for w in words if not w.isalpha())
    runs = NEAR_MAX_WORDS + 1
    bounds = [len(words) * i // runs for i in range(runs + 1)]
    return [(len(words), i, words[bounds[i]:bounds[i + 1]], digits) for i in range(runs)]
