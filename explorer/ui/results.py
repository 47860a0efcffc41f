"""What the app's pages show, computed without Streamlit and remembered across reruns: the
ranking a location asks for (under a hashable key), and the memos of its hits' highlights
(features/explanations/ui.py).

The memos are per Explorer (a rebuilt index is a new Explorer: nothing stale is served, and
nothing here keeps an old one alive) and safe to share between the app's sessions; question
vectors (for the highlights) are remembered per model, so a rebuild with the same model
embeds no question again.
Questions and steer texts are cut (engine.cut_question) before they become part of a key, so no
key holds more than MAX_QUESTION_CHARS characters of a visitor's text.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

import numpy as np

from explorer.features.years.spread import SPREAD_DEPTH, corpus_spread
from explorer.query.engine import Explorer, Filters, Hit, cut_question
from explorer.ranking.authors import Named
from explorer.ranking.options import QueryOptions
from explorer.ui.links import Location
from explorer.ui.page import model_key
from explorer.ui.public import narrowing, public_facets

NO_FILTERS = ((), (), None, None, ())
T = TypeVar("T")


class Memo:
    """The `size` most recently used results, each computed once (two threads asking for a new
    one at the same moment may both compute it); safe to share between threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


_VECTORS = Memo(256)  # (model fingerprint, question) -> vector (d,)
_MEMOS: weakref.WeakKeyDictionary[Explorer, dict[str, Memo]] = weakref.WeakKeyDictionary()
_MEMOS_LOCK = threading.Lock()


def memo(explorer: Explorer, kind: str) -> Memo:
    """The Explorer's memo of `kind`: "hits" (rankings) or "lights" (highlights)."""
    with _MEMOS_LOCK:
        memos = _MEMOS.setdefault(explorer, {"hits": Memo(512), "lights": Memo(4096)})
    return memos[kind]


def embed(explorer: Explorer, text: str) -> np.ndarray:
    """The (d,) vector of a question (its first MAX_QUESTION_CHARS characters), embedded once
    per server and model."""
    text = cut_question(text)
    return _VECTORS.get((model_key(explorer.manifest), text), lambda: explorer.embed_query(text))


def query_options(facets: Mapping[str, Any], location: Location, top_k: int = 0,
                  narrow: bool = True) -> QueryOptions:
    """The options of a ranking at `location` (hashable: it is the memo's key): its result
    count (`top_k` 0: the location's) and filters, sources named by their files (none when
    not `narrow`); `facets` as public_facets."""
    venues, sources, year_min, year_max, authors = (narrowing(facets, location) if narrow
                                                    else NO_FILTERS)
    return QueryOptions(top_k=top_k or location.top_k,
                        filters=Filters(venues, sources, year_min, year_max, authors,
                                        location.facets if narrow else ()))


def named(explorer: Explorer, location: Location) -> Named | None:
    """What the location's question names (a title, an author: Explorer.named) under its
    filters; the search puts those papers first and the page says so."""
    if not location.query:
        return None
    filters = query_options(public_facets(explorer), location).filters
    return memo(explorer, "hits").get(("named", cut_question(location.query), filters),
                                      lambda: explorer.named(location.query, filters))


def ranked(explorer: Explorer, location: Location, verb: str, *subject, top_k: int = 0,
           narrow: bool = True) -> list[Hit]:
    """Hits of search(question) / similar(paper_id) / recommend(like, unlike, steer) under the
    filters of `location` (none when not `narrow`); `top_k` 0 is the location's. They are the
    first of `pool`, which the years chart counts: one ranking for both."""
    top_k = top_k or location.top_k
    return pool(explorer, location, verb, *subject, top_k=top_k, narrow=narrow)[:top_k]


def pool(explorer: Explorer, location: Location, verb: str, *subject, top_k: int = 0,
         narrow: bool = True) -> list[Hit]:
    """The best max(top_k, SPREAD_DEPTH) hits of `ranked`'s ranking (features/years/spread.py: hybrid
    ranks that many anyway), remembered; `top_k` 0 is the location's. In a corpus without
    years (no chart to count for) only `top_k`: the deeper ranking would cost for nothing."""
    depth = top_k or location.top_k
    subject = _bounded(verb, subject)
    if corpus_spread(explorer).counts:
        depth = max(depth, SPREAD_DEPTH)
    options = query_options(public_facets(explorer), location, depth, narrow)

    def rank() -> list[Hit]:
        if verb == "search":  # as the CLI and the API ask (Explorer.search: batched)
            return explorer.search(subject[0], options=options)
        if verb == "similar":
            return explorer.similar(subject[0], options=options)
        return explorer.recommend(*subject, options=options)

    return memo(explorer, "hits").get((verb, subject, options), rank)


def _bounded(verb: str, subject: tuple) -> tuple:
    """`subject` with its question (search) or steer text (recommend) cut_question'ed."""
    if verb == "search":
        return (cut_question(subject[0]), *subject[1:])
    if verb == "recommend" and len(subject) > 2 and subject[2]:
        return (*subject[:2], cut_question(subject[2]), *subject[3:])
    return subject


