"""How the entries of reference lists (.bib, .ris, CSL-JSON) join the corpus's papers.

Records of the other formats merge only when exactly equal (papers.read_corpus), so an
existing corpus keeps its papers and ids. An entry of a reference list is matched by the
identity rules (corpus/identity.py): first with the entries before it (the first one is kept),
then with the corpus's papers. A matched entry folds into the paper it matches, which keeps its
id and gains what it lacked (a real title, abstract, authors, year, venue, URL, keywords,
the BibTeX fields) and, as aliases, the entry's DOI, arXiv id and citation key where free. An
entry that joined others must agree with each of them (identity.Registry), and so must the
corpus paper they all join. An unmatched entry becomes a paper with the first free one of
those as its id (else its text hash; else, when another paper holds that too, the hash of all
it says, numbered if need be: an entry is never dropped), placed where it was read.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from explorer.corpus.identity import Identity, Registry, identify, place_of

Entry = dict[str, Any]  # Paper fields, plus the private keys below while reading
FILLED = ("abstract", "authors", "year", "venue", "url", "keywords", "original", "status")
PRIVATE = ("_key", "_names", "_ids", "_after", "_place")
ID_TAKEN = "reference's DOI, arXiv id or citation key already names another paper (next one used)"


def entry_identity(entry: Entry) -> Identity:
    """An entry's identity: its id, aliases, URL, `_names` and raw DOI/arXiv fields (`_ids`),
    and where it is printed (`_place`: volume, issue, pages; else its BibTeX fields')."""
    names = [entry["paper_id"], *entry["aliases"], entry["url"] or "",
             *entry.get("_names", ()), *entry.get("_ids", ())]
    title = "" if entry["title_is_derived"] else entry["title"]
    return identify(names, title, entry["year"], entry["authors"], entry["abstract"],
                    entry.get("_place") or place_of(entry.get("original", ())))


def fold(kept: Entry, entry: Entry) -> None:
    """`entry` is the paper `kept`: keep its sources and fill what `kept` lacks."""
    kept["sources"].extend(entry["sources"])
    if kept["title_is_derived"] and not entry["title_is_derived"]:
        kept["title"], kept["title_is_derived"] = entry["title"], False
    for name in FILLED:
        if not kept.get(name) and entry.get(name):
            kept[name] = entry[name]
    kept.setdefault("_names", [])
    kept["_names"] += [n for n in entry.get("_names", ()) if n not in kept["_names"]]


class References:
    """The reference-list entries of one read, deduplicated among themselves as they arrive."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self._registry = Registry()

    def add(self, entry: Entry, after: int) -> bool:
        """Keep `entry` (read after `after` corpus papers); True if it folded into an earlier one."""
        identity = entry_identity(entry)
        found = self._registry.find(identity)
        if found is None:
            entry["_after"] = after
            self._registry.add(len(self.entries), identity)
            self.entries.append(entry)
            return False
        fold(self.entries[found], entry)
        self._registry.add(found, identity)
        return True

    def join(self, papers: list[Entry], names: dict[str, Any], report: Any) -> list[Entry]:
        """`papers` (the corpus's, in order) with every entry folded in or placed; `names` (id
        or alias -> owner) gains theirs. Counts merges and notes in `report`."""
        registry = Registry()
        for row, paper in enumerate(papers):
            registry.add(row, entry_identity(paper))
        placed: list[tuple[int, Entry]] = []
        taken: Counter = Counter()
        for number, entry in enumerate(self.entries):
            members = self._registry.members(number)
            row = registry.find(entry_identity(entry), also=members)
            if row is not None:
                fold(papers[row], entry)
                _alias(papers[row], entry["_names"], names)
                for member in members:
                    registry.add(row, member)
                report.duplicates_merged += 1
            else:
                _name(entry, names, report.notes, taken)
                placed.append((entry.pop("_after"), entry))
        joined = []
        stream = iter(placed)
        upcoming = next(stream, None)
        for row, paper in enumerate([*papers, None]):
            while upcoming is not None and upcoming[0] <= row:
                joined.append(upcoming[1])
                upcoming = next(stream, None)
            if paper is not None:
                joined.append(paper)
        return joined


def _alias(paper: Entry, candidates: list[str], names: dict[str, Any]) -> None:
    for name in candidates:
        if name not in names and name != paper["paper_id"]:
            names[name] = paper["paper_id"]
            paper["aliases"].append(name)


def _name(entry: Entry, names: dict[str, Any], notes: Counter, taken: Counter) -> None:
    """Give an unmatched entry the first free name of its DOI, arXiv id, citation key and text
    hash as its id, the other free ones as aliases; when none is free, `_unique_id`."""
    preferred = entry["_names"]
    free = [n for n in [*preferred, entry["paper_id"]] if n not in names]
    if preferred and (not free or free[0] != preferred[0]):
        notes[ID_TAKEN] += 1
    entry["paper_id"] = free[0] if free else _unique_id(entry, names, taken)
    names[entry["paper_id"]] = entry["paper_id"]
    _alias(entry, [n for n in preferred if n in free[1:]], names)


def _unique_id(entry: Entry, names: dict[str, Any], taken: Counter) -> str:
    """A free id for an entry whose names all name other papers (a different paper of the
    same short title, say): the hash of all it says, then '-2', '-3'... (`taken`: how many
    ids each hash has given, so n such entries cost O(n))."""
    said = [entry["title"], entry["abstract"], *entry["authors"], str(entry["year"]),
            entry["venue"] or "", *entry.get("_place", ())]
    base = hashlib.sha256("\n".join(said).encode("utf-8")).hexdigest()[:12]
    candidate = base
    while candidate in names:
        taken[base] += 1
        candidate = f"{base}-{taken[base] + 1}"
    return candidate


def strip_private(entry: Entry) -> Entry:
    for key in PRIVATE:
        entry.pop(key, None)
    return entry
