"""The fields a record has beyond the ones a Paper names: kept with the paper, bounded.

Whatever scalar (text, number, true/false) or list-of-scalar fields a record has besides the
ones `Paper` holds as attributes travel with the paper as `Paper.fields`: (name, value) pairs
in the record's order, a list value as a tuple. A nested object's scalar members are kept one
level down under "parent.member" ("open_access.oa_status"); deeper objects and lists of objects
are not kept (the readers take what they need from them first). Empty values (None, "", [])
are not kept.

Known names, which every reader uses for what the sources call them otherwise (OpenReview's
"TL;DR" and "TLDR", Semantic Scholar's {"tldr": {"text": ...}}): `TRACK`, `PRIMARY_AREA`,
`TLDR`, `CATEGORIES` (arXiv's), and `given(name)` ("status_given", "venue_given"): a
normalised attribute's text as the source wrote it, when it said more than the attribute keeps
("Findings" beside the status Accepted).

Bounds per paper: at most `MAX_FIELDS` fields, names of at most `MAX_NAME` characters, texts of
at most `MAX_TEXT` characters (cut, with an ellipsis), lists of at most `MAX_ITEMS` items, and
`MAX_CHARS` characters of names and values in all; what is past a bound is counted in the
build summary's notes, never silently lost.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from collections import Counter
from collections.abc import Container, Mapping
from typing import Any

Scalar = str | int | float | bool
FieldValue = Scalar | tuple[Scalar, ...]
Fields = tuple[tuple[str, FieldValue], ...]

TRACK, PRIMARY_AREA, TLDR, CATEGORIES = "track", "primary_area", "tldr", "categories"
# Other names of the known fields (lower case, as sources write them) -> the known name.
ALIASES = {"tl;dr": TLDR, "tldr": TLDR, "primary area": PRIMARY_AREA, "primary_area": PRIMARY_AREA,
           "track": TRACK}
MAX_FIELDS = 64
MAX_NAME = 64
MAX_TEXT = 2_000
MAX_ITEMS = 100
MAX_CHARS = 12_000
CUT = "…"
DROPPED = "fields past the bounds of what a paper keeps (dropped)"
SHORTENED = f"field values cut to {MAX_TEXT} characters or {MAX_ITEMS} items"


def given(name: str) -> str:
    """The field that keeps an attribute's text as given: given('status') -> 'status_given'."""
    return f"{name}_given"


class FieldBag:
    """Fields gathered for one paper, in order, within the bounds; `notes` counts what a bound
    cut or dropped (a build summary's notes)."""

    def __init__(self, notes: Counter | None = None) -> None:
        self._fields: dict[str, FieldValue] = {}
        self._chars = 0
        self._notes = notes if notes is not None else Counter()

    def add(self, name: Any, value: Any) -> None:
        """Keep `value` (a scalar or a list of scalars) under `name`, if it is not empty; a
        later value of a name already kept replaces it."""
        if not isinstance(name, str) or value is None or value == "" or value == []:
            return
        key = _name(name[:4 * MAX_NAME])
        kept = _value(value, self._notes)
        if not key or kept is None:
            return
        size = len(key) + _size(kept)
        if key not in self._fields and (len(self._fields) >= MAX_FIELDS
                                        or self._chars + size > MAX_CHARS):
            self._notes[DROPPED] += 1
            return
        self._chars += size - (len(key) + _size(self._fields[key]) if key in self._fields else 0)
        self._fields[key] = kept

    def add_all(self, record: Mapping[str, Any], skip: Container[str] = (),
                also: tuple[str, ...] = ()) -> None:
        """Every field of `record` but those in `skip` or `also`: scalars and lists of
        scalars, and one level into objects ("open_access.oa_status")."""
        for name, value in record.items():
            if name in skip or name in also or not isinstance(name, str):
                continue
            if isinstance(value, Mapping):
                for member, inner in value.items():
                    if isinstance(member, str) and not isinstance(inner, Mapping):
                        self.add(f"{name}.{member}", inner)
            else:
                self.add(name, value)

    def freeze(self) -> Fields:
        return tuple(self._fields.items())


def thaw(data: Any) -> Fields:
    """Fields as stored in a papers file ({"name": value or [values]}) -> Paper.fields; a
    ValueError when they are not of that shape."""
    if not isinstance(data, Mapping):
        raise ValueError("fields are not an object")
    pairs = []
    for name, value in data.items():
        if isinstance(value, list):
            if not all(_is_scalar(item) for item in value):
                raise ValueError(f"field {name!r} holds more than texts and numbers")
            value = tuple(value)
        elif not _is_scalar(value):
            raise ValueError(f"field {name!r} holds more than texts and numbers")
        pairs.append((str(name), value))
    return tuple(pairs)


def as_json(fields: Fields) -> dict[str, Any]:
    """Paper.fields as stored in a papers file: an object, lists for tuples."""
    return {name: list(value) if isinstance(value, tuple) else value for name, value in fields}


@functools.lru_cache(maxsize=4096)
def _name(name: str) -> str:
    """A field's name as kept (NFC, blanks folded, no control characters, at most MAX_NAME
    characters; a known field's other names -> its name). Cached: names repeat."""
    key = " ".join(unicodedata.normalize("NFC", name).split())
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in key):
        key = "".join(c for c in key if unicodedata.category(c) not in ("Cc", "Cf"))
    key = key[:MAX_NAME]
    return ALIASES.get(key.lower(), key)


def _value(value: Any, notes: Counter) -> FieldValue | None:
    """A scalar or a list of scalars as kept (texts NFC, blanks folded, cut to MAX_TEXT;
    lists cut to MAX_ITEMS; non-finite numbers dropped); None when empty or not of that kind."""
    if isinstance(value, (list, tuple)):
        items = [kept for item in value[:MAX_ITEMS] if not isinstance(item, (list, Mapping))
                 and (kept := _scalar(item, notes)) is not None]
        if len(value) > MAX_ITEMS:
            notes[SHORTENED] += 1
        return tuple(items) or None
    return None if isinstance(value, Mapping) else _scalar(value, notes)


def _scalar(value: Any, notes: Counter) -> Scalar | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2 ** 53 else str(value)  # JSON readers keep it exact
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = " ".join(value[:MAX_TEXT * 2].split())  # bounded work on a long text
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    if len(text) > MAX_TEXT or len(value) > MAX_TEXT * 2:
        notes[SHORTENED] += 1
        text = text[:MAX_TEXT - 1] + CUT
    return text or None


def _size(value: FieldValue) -> int:
    if isinstance(value, tuple):
        return sum(len(str(item)) for item in value)
    return len(str(value))


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))
