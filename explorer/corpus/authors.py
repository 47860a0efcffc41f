"""People's names as a reader types them: 'Sergey Levine', 'S. Levine', 'Levine, Sergey',
'levine sergey', 'Bernhard Schölkopf' / 'Scholkopf' all name one person.

A name is folded to a `Name`: its family name (accents dropped, case folded, only letters and
digits; a particle such as 'van der' joins it) and its given names, each folded alike ('J.-B.'
-> 'j', 'b'). Two names `agree` when the family names are equal and the first given names are
equal or one of them is the other's initial (or either has none). Only the first given name
counts: middle names are often left out ('Michael I. Jordan' ~ 'Michael Jordan').

Bounded: a name is read up to MAX_NAME_CHARS characters; no regular expression here can
backtrack (each is a character class).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_NAME_CHARS = 200  # no real name is longer; the rest of a longer text is not read
MAX_NAME_WORDS = 8
_SPLIT = re.compile(r"[\s.\-‐‑–]+")  # spaces, dots and hyphens part a name's words
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})
_PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "di", "da", "dos",
                        "du", "le", "la", "ter", "ten", "zu", "af"})
_NOT_NAMES = frozenset({"others", "al", "etal", "et"})
# Equal-contribution and affiliation marks papers put beside a name ('Wieland Brendel *',
# 'Ze Liu(†)', 'Lihe Zhang¹'): never part of the name.
MARKS = frozenset("*∗⁎†‡§¶‖#✝✉⁰¹²³⁴⁵⁶⁷⁸⁹")
_AROUND_MARKS = MARKS | frozenset(" \t,;()[]{}^")


@dataclass(frozen=True)
class Name:
    """A folded name: `family` ('levine', 'vandermaaten'), `given` ('sergey',) or ('s',) or ()."""

    family: str
    given: tuple[str, ...] = ()
    tail: str = ""  # the last word of a family name of several ('maaten'), else ""
    umlauts: str = ""  # the family name with ä ö ü written ae oe ue ('schoelkopf'), else ""

    def matches(self, author: Name) -> bool:
        """True when this name (as typed) may name `author` (as a paper lists it): its family
        name (or its umlauts written out) is one of the author's `keys`, and the first given
        names agree."""
        return not set(self.keys).isdisjoint(author.keys) and _given_agree(self.given,
                                                                          author.given)

    @property
    def keys(self) -> tuple[str, ...]:
        """The family names this name is filed under: the whole one, for one with a particle
        ('vandermaaten') its last word ('maaten'), and its umlauts written out."""
        return tuple(key for key in (self.family, self.tail, self.umlauts) if key)


def strip_marks(text: str) -> str:
    """`text` without the marks (MARKS, with the spaces, commas and brackets around them) at
    either end: 'Wieland Brendel *' -> 'Wieland Brendel', '†Ze Liu' -> 'Ze Liu'; brackets or
    commas with no mark among them are left ('Smith (Jr.)')."""
    end = len(text)
    while end and text[end - 1] in _AROUND_MARKS:
        end -= 1
    if MARKS.isdisjoint(text[end:]):
        end = len(text)
    start = 0
    while start < end and text[start] in _AROUND_MARKS:
        start += 1
    if MARKS.isdisjoint(text[:start]):
        start = 0
    return text[start:end]


def fold(word: str) -> str:
    """A word of a name as compared: accents dropped, case folded, letters and digits only
    ('Schölkopf' -> 'scholkopf', 'O'Brien' -> 'obrien', 'Łukasz' -> 'lukasz')."""
    if word.isascii():  # the common case: no accents to drop
        lower = word.lower()
        return lower if lower.isalnum() else _NOT_ALNUM.sub("", lower)
    decomposed = unicodedata.normalize("NFKD", word.replace("ł", "l").replace("Ł", "L"))
    return "".join(char for char in decomposed.casefold() if char.isalnum())


_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def _words(text: str) -> list[str]:
    words = [fold(word) for word in _SPLIT.split(text[:MAX_NAME_CHARS])]
    return [word for word in words if word][:MAX_NAME_WORDS]


def parse_name(text: str) -> Name | None:
    """The name as written: 'Family, Given' when it has a comma, else 'Given [particles]
    Family [Jr.]'; None for no name ('others', initials only, nothing)."""
    head, comma, rest = text[:MAX_NAME_CHARS].partition(",")
    if comma and rest.strip() and _words(rest) and not _only_suffix(rest):
        family = _words(head)
        given = [word for word in _words(rest) if word not in _SUFFIXES]
        return _name(family, given, _umlauts(head)) if family else None
    pairs = [(word, fold(word)) for word in _SPLIT.split((head if comma else text)[:MAX_NAME_CHARS])]
    kept = [(word, folded) for word, folded in pairs if folded and folded not in _SUFFIXES]
    raw = [word for word, _ in kept[:MAX_NAME_WORDS]]
    words = [folded for _, folded in kept[:MAX_NAME_WORDS]]
    if not words:
        return None
    start = len(words) - 1
    while start > 1 and _particle(raw[start - 1]):  # 'Laurens van der Maaten'
        start -= 1
    lead = 0
    while lead < start and _particle(raw[lead]):  # 'van der Maaten' alone: no given name
        lead += 1
    given = words[lead:start]
    return _name(words[start:], given, _umlauts(head if comma else text, 1))


def _particle(word: str) -> bool:
    """'van', 'der', 'de' written in lower case (a capitalised 'Le' or 'Da' is a given name)."""
    return word.islower() and fold(word) in _PARTICLES


def _umlauts(family: str, last: int = 0) -> str:
    """The family name with its umlauts written out ('Schölkopf' -> 'schoelkopf'); "" when it
    has none. `last`: the family name is the last word of `family` (else all of it)."""
    if not any(char in "äöüÄÖÜ" for char in family[:MAX_NAME_CHARS]):
        return ""
    words = [word for word in _words(family.translate(_UMLAUTS)) if word not in _SUFFIXES]
    return words[-1] if last and words else "".join(words)


def name_readings(text: str) -> tuple[Name, ...]:
    """Every way a typed name may be read: as written (parse_name) and, without a comma, family
    name first too ('Levine Sergey', 'Wang Xiaolong'); () for no name."""
    first = parse_name(text)
    words = [word for word in _words(text) if word not in _SUFFIXES]
    readings = [first] if first else []
    if "," not in text[:MAX_NAME_CHARS] and len(words) >= 2:
        flipped = _name(words[:1], words[1:])
        if flipped and flipped not in readings:
            readings.append(flipped)
    return tuple(readings)


def _name(family: list[str], given: list[str], umlauts: str = "") -> Name | None:
    joined = "".join(family)
    if len(joined) < 2 or joined in _NOT_NAMES:  # initials only, 'et al.'
        return None
    return Name(joined, tuple(given), family[-1] if len(family) > 1 else "",
                umlauts if umlauts != joined else "")


def _only_suffix(text: str) -> bool:
    """'Reagle, Jr.' style: what follows the comma is a suffix, not the given names."""
    return all(word in _SUFFIXES for word in _words(text))


def _given_agree(left: tuple[str, ...], right: tuple[str, ...]) -> bool:
    if not left or not right:
        return True
    a, b = left[0], right[0]
    return a == b or ((len(a) == 1 or len(b) == 1) and a[0] == b[0])

