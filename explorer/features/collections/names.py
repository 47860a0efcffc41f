"""What a collection name may hold, and when two names are the same collection.

A name is shown to people (the app's lists, the terminal), so it may not hold characters that
change what is shown without being seen: control characters, bidirectional overrides and
isolates (U+202E turns "txt.exe" into "exe.txt"), other invisible format characters, lone
surrogates, line and paragraph separators, private-use characters. Such a name is refused, the
character named by its code point; it is never silently stripped, so the name kept is the name
typed. The zero-width joiner and non-joiner stay allowed: Persian, Indic scripts and emoji
sequences need them.

Two names are the same collection when their `name_key`s are equal: compatibility-normalised
(NFKC: full-width, ligature and superscript forms become plain ones), case-folded, with the
invisible characters dropped and runs of white space made one space. "Reading list",
"reading  list" and a full-width "Reading list" look alike in a list, so a second of them is refused as
"already exists". Look-alikes across scripts (a Cyrillic "a", U+0430, for a Latin "a") are not refused:
telling them needs Unicode's confusables table, names mixing scripts are common in research
("β-VAE"), and on a shared server a visitor's names are seen only in that visitor's browser.
"""

from __future__ import annotations

import unicodedata

# Bidirectional controls: embeddings, overrides, isolates and marks (UAX #9).
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
JOINERS = frozenset("\u200c\u200d")  # zero-width non-joiner, joiner: needed by some scripts
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
# Letters and marks that draw nothing (Hangul fillers, the braille blank, the combining
# grapheme joiner, variation selectors): allowed inside a name, ignored when names are compared.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u180b\u180c\u180d\u180f")


def refused_character(name: str) -> tuple[int, str] | None:
    """(1-based position, character) of the first character a name may not hold, else None."""
    for position, char in enumerate(name, 1):
        if char in JOINERS:
            continue
        if char in BIDI or unicodedata.category(char) in REFUSED_CATEGORIES:
            return position, char
    return None


def describe(char: str) -> str:
    """A character as 'U+202E (RIGHT-TO-LEFT OVERRIDE)': its code point and Unicode name."""
    name = unicodedata.name(char, "") or ("a control character" if unicodedata.category(char)
                                          == "Cc" else "unnamed")
    return f"U+{ord(char):04X} ({name})"


def _invisible(char: str) -> bool:
    return (char in _BLANK or char in JOINERS or 0xFE00 <= ord(char) <= 0xFE0F
            or 0xE0100 <= ord(char) <= 0xE01EF or unicodedata.category(char) in REFUSED_CATEGORIES)


def name_key(name: str) -> str:
    """What two names must share to be the same collection (see the module's text): NFKC,
    case-folded, invisible characters dropped, white space collapsed; "" when nothing visible."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join("".join(c for c in folded if not _invisible(c)).split())


def visible(name: str) -> str:
    """`name` with every character a name may not hold written as its code point ("[U+202E]"),
    for showing a name read from a file written before these rules, or edited by hand."""
    if refused_character(name) is None:
        return name
    return "".join(f"[U+{ord(c):04X}]" if refused_character(c) else c for c in name)
