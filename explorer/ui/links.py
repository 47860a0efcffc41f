"""Where the user is in the app, and its shareable link: a Location <-> URL query parameters.

A link reopens exactly one location: ``?q=...`` (a question), ``?paper=ID`` (a paper and its
neighbours), ``?view=map`` / ``?view=marked`` / ``?view=draft`` / ``?view=relatives``
(``?view=twins``, its older name, opens it too),
``?view=topic&topic=2.3`` (a topic; ``?view=topic`` alone lists them; ``?view=map&topic=2``
zooms the map to one), plus the marked set (``like=ID&like=ID&unlike=ID``), the filters
(``venue=``, ``source=``, ``year=2019-2023``, ``filter=status:Rejected``: a facet, features/facets/)
and ``k=`` when not the default.
Repeated keys carry lists, so ids and venue names may contain any character. Links come from
anyone: `decode` reads any parameters (any types, any text) into a valid Location, never raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from urllib.parse import urlencode

from explorer.corpus.authors import MAX_NAME_CHARS
from explorer.query.engine import MAX_QUESTION_CHARS, Filters
from explorer.ranking.facets import FacetSpec, facet_spec
from explorer.ranking.filters import MAX_AUTHORS

ASK, PAPER, MARKED, MAP, DRAFT, TOPIC, RELATIVES, NEW = (
    "ask", "paper", "marked", "map", "draft", "topic", "relatives", "new")
PAGE_NAMES = (ASK, PAPER, MARKED, MAP, DRAFT, TOPIC, RELATIVES, NEW)
# the pages a link names with ?view= (the others follow from q and paper); a draft is never in
# a link (it is the reader's own text): ?view=draft opens the empty page
VIEWS = (MARKED, MAP, DRAFT, TOPIC, RELATIVES, NEW)
OLD_VIEWS = {"twins": RELATIVES}  # names a view had in older links, still opened
WITH_PAPER = (PAPER, MAP)  # the pages that show an open paper (and whose links name it)
WITH_TOPIC = (TOPIC, MAP)  # the pages that show a topic (the map: zoomed to it)
DEFAULT_TOP_K = 10
MAX_TOP_K = 100
MAX_MARKED = 200  # ids per marked list (and venues, sources) read from a link
MAX_ID_CHARS = 300
MAX_YEAR = 9999
_YEARS = re.compile(r"([0-9]{1,4})?(?:-([0-9]{1,4})?)?")  # ASCII digits: '²'.isdigit() is True
_COUNT = re.compile(r"[0-9]+")
_TOPIC = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,4})?")  # "2", "2.3": features/topics/table.py ids


@dataclass(frozen=True)
class Location:
    """Where the user is: the page and everything on it that a link restores. `query` is the
    question; `steer` the text steering recommendations."""

    page: str = ASK
    query: str = ""
    paper_id: str | None = None
    like: tuple[str, ...] = ()
    unlike: tuple[str, ...] = ()
    steer: str = ""
    venues: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    year_min: int | None = None
    year_max: int | None = None
    top_k: int = DEFAULT_TOP_K
    topic: str | None = None
    authors: tuple[str, ...] = ()  # as typed: Filters.authors matches their variants
    facets: FacetSpec = ()  # Filters.facets: (field, values) pairs

    def __post_init__(self) -> None:
        if self.page not in PAGE_NAMES:
            raise ValueError(f"page must be one of {PAGE_NAMES}, not {self.page!r}")
        if self.page == PAPER and not self.paper_id:
            raise ValueError("the paper page needs a paper_id")

    def filters(self) -> Filters:
        return Filters(venues=frozenset(self.venues), sources=frozenset(self.sources),
                       year_min=self.year_min, year_max=self.year_max, authors=self.authors,
                       facets=self.facets)

    def mark(self, paper_id: str, liked: bool | None) -> Location:
        """Mark a paper as liked (True), unliked (False) or neither (None)."""
        like = tuple(p for p in self.like if p != paper_id)
        unlike = tuple(p for p in self.unlike if p != paper_id)
        if liked is True:
            like += (paper_id,)
        elif liked is False:
            unlike += (paper_id,)
        return replace(self, like=like, unlike=unlike)


def encode(location: Location) -> dict[str, list[str]]:
    """Query parameters for `location`; every value is a list (repeated keys)."""
    params: dict[str, list[str]] = {}
    if location.page in VIEWS:
        params["view"] = [location.page]
    if location.query:
        params["q"] = [location.query[:MAX_QUESTION_CHARS]]
    if location.paper_id and location.page in WITH_PAPER:
        params["paper"] = [location.paper_id]
    if location.topic and location.page in WITH_TOPIC:
        params["topic"] = [location.topic]
    for key, values in (("like", location.like), ("unlike", location.unlike),
                        ("venue", location.venues), ("source", location.sources),
                        ("author", location.authors), ("filter", tuple(
                            f"{name}:{value}" for name, picked in location.facets
                            for value in picked))):
        if values:
            params[key] = list(values)
    if location.steer:
        params["steer"] = [location.steer[:MAX_QUESTION_CHARS]]
    if location.year_min is not None or location.year_max is not None:
        params["year"] = [f"{location.year_min or ''}-{location.year_max or ''}"]
    if location.top_k != DEFAULT_TOP_K:
        params["k"] = [str(location.top_k)]
    return params


def link(base_url: str, location: Location) -> str:
    """The full shareable URL of `location` on the app at `base_url` (without a query string)."""
    query = urlencode(encode(location), doseq=True)
    return f"{base_url}?{query}" if query else base_url


def decode(params: Mapping[str, str | Iterable[str]]) -> Location:
    """The location a link describes. Never raises: unreadable parts fall back to defaults, a paper
    marked both ways is marked neither way, lists and text are cut to sane sizes (a value to
    MAX_QUESTION_CHARS characters, the longest question)."""
    values = _lists(params)

    def last(key: str) -> str:
        found = values.get(key) or [""]
        return found[-1].strip()[:MAX_QUESTION_CHARS].strip()

    paper_id = last("paper")
    paper_id = paper_id if 0 < len(paper_id) <= MAX_ID_CHARS else None
    view = OLD_VIEWS.get(last("view"), last("view"))
    if view in VIEWS:
        page = view
    else:
        page = PAPER if paper_id else ASK
    if page not in WITH_PAPER:  # e.g. the marked page: no open paper (and its link names none)
        paper_id = None
    like, unlike = _unique(values.get("like", [])), _unique(values.get("unlike", []))
    both = set(like) & set(unlike)
    year_min, year_max = _years(last("year"))
    return Location(
        page=page, query=last("q"), paper_id=paper_id,
        like=tuple(p for p in like if p not in both),
        unlike=tuple(p for p in unlike if p not in both), steer=last("steer"),
        venues=_unique(values.get("venue", [])), sources=_unique(values.get("source", [])),
        year_min=year_min, year_max=year_max, top_k=_top_k(last("k")),
        topic=topic if page in WITH_TOPIC and _TOPIC.fullmatch(topic := last("topic")) else None,
        authors=author_names(values.get("author", [])),
        facets=_facets(values.get("filter", [])),
    )


def author_names(names: Iterable[str]) -> tuple[str, ...]:
    """Names for the author filter: spaces collapsed, each at most MAX_NAME_CHARS characters
    (longer ones dropped), the first MAX_AUTHORS different ones."""
    kept = (" ".join(name.split()) for name in names if len(name) <= MAX_NAME_CHARS)
    return tuple(dict.fromkeys(name for name in kept if name))[:MAX_AUTHORS]


def _facets(items: Iterable[str]) -> FacetSpec:
    """`filter=field:value` parameters -> Filters.facets (the first MAX_MARKED readable ones)."""
    pairs = [(name, (value,)) for item in _unique(items)[:MAX_MARKED]
             for name, colon, value in [item.partition(":")] if colon and name and value]
    try:
        return facet_spec(pairs)
    except ValueError:  # past facet_spec's bounds: none
        return ()


def _lists(params: object) -> dict[str, list[str]]:
    """`params` as {key: [text, ...]}, keeping only string keys and string values."""
    items = params.items() if isinstance(params, Mapping) else ()
    values: dict[str, list[str]] = {}
    for key, value in items:
        if isinstance(value, str):
            value = [value]
        elif not isinstance(value, Iterable):
            continue
        if isinstance(key, str):
            values[key] = [item for item in value if isinstance(item, str)]
    return values


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    kept = (item.strip() for item in items if item.strip() and len(item) <= MAX_ID_CHARS)
    return tuple(dict.fromkeys(kept))[:MAX_MARKED]


def _years(text: str) -> tuple[int | None, int | None]:
    match = _YEARS.fullmatch(text.replace(" ", ""))
    if not match:
        return None, None
    low, high = (int(part) or None if part else None for part in match.groups())
    if low and high and low > high:
        low, high = high, low
    return low, high


def _top_k(text: str) -> int:
    if not _COUNT.fullmatch(text):
        return DEFAULT_TOP_K
    if len(text.lstrip("0")) > 3:  # int() of thousands of digits is slow, then refused
        return MAX_TOP_K
    return min(max(int(text), 1), MAX_TOP_K)
