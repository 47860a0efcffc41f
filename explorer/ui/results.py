"""What the app's pages show, computed without Streamlit and remembered across reruns: the
ranking a location asks for (under a hashable key) and the highlights of its hits.

The memos are per Explorer (a rebuilt index is a new Explorer: nothing stale is served, and
nothing here keeps an old one alive) and safe to share between the app's sessions; question
vectors are remembered per model, so a rebuild with the same model embeds no question again.
Questions and steer texts are cut (engine.cut_question) before they become part of a key, so no
key holds more than MAX_QUESTION_CHARS characters of a visitor's text.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import plotly.graph_objects as go

from explorer.query.engine import Explorer, Filters, Hit, cut_question
from explorer.query.explain import explain_match, explain_pair
from explorer.query.years import SPREAD_DEPTH, corpus_spread
from explorer.ranking.options import QueryOptions
from explorer.ui.links import Location
from explorer.ui.map_figure import map_figure
from explorer.ui.page import explained_count, model_key
from explorer.ui.public import narrowing, public_facets
from explorer.ui.topics import known_topic, map_zoom

Lights = tuple[list[tuple[int, int]], list[str]]  # spans of an abstract to highlight, shared terms
NO_FILTERS = ((), (), None, None)
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


def _memo(explorer: Explorer, kind: str) -> Memo:
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
    venues, sources, year_min, year_max = narrowing(facets, location) if narrow else NO_FILTERS
    return QueryOptions(top_k=top_k or location.top_k,
                        filters=Filters(venues, sources, year_min, year_max))


def ranked(explorer: Explorer, location: Location, verb: str, *subject, top_k: int = 0,
           narrow: bool = True) -> list[Hit]:
    """Hits of search(question) / similar(paper_id) / recommend(like, unlike, steer) under the
    filters of `location` (none when not `narrow`); `top_k` 0 is the location's. They are the
    first of `pool`, which the years chart counts: one ranking for both."""
    top_k = top_k or location.top_k
    return pool(explorer, location, verb, *subject, top_k=top_k, narrow=narrow)[:top_k]


def pool(explorer: Explorer, location: Location, verb: str, *subject, top_k: int = 0,
         narrow: bool = True) -> list[Hit]:
    """The best max(top_k, SPREAD_DEPTH) hits of `ranked`'s ranking (query/years.py: hybrid
    ranks that many anyway), remembered; `top_k` 0 is the location's. In a corpus without
    years (no chart to count for) only `top_k`: the deeper ranking would cost for nothing."""
    depth = top_k or location.top_k
    subject = _bounded(verb, subject)
    if corpus_spread(explorer).counts:
        depth = max(depth, SPREAD_DEPTH)
    options = query_options(public_facets(explorer), location, depth, narrow)

    def rank() -> list[Hit]:
        if verb == "search":
            vector = embed(explorer, subject[0])
            return explorer.search_vector(vector, text=subject[0], options=options)
        if verb == "similar":
            return explorer.similar(subject[0], options=options)
        return explorer.recommend(*subject, options=options)

    return _memo(explorer, "hits").get((verb, subject, options), rank)


def _bounded(verb: str, subject: tuple) -> tuple:
    """`subject` with its question (search) or steer text (recommend) cut_question'ed."""
    if verb == "search":
        return (cut_question(subject[0]), *subject[1:])
    if verb == "recommend" and len(subject) > 2 and subject[2]:
        return (*subject[:2], cut_question(subject[2]), *subject[3:])
    return subject


def lights(explorer: Explorer, paper_id: str, text: str = "", other_id: str = "",
           top_k: int = 2) -> Lights:
    """The `top_k` sentences of a paper closest to `text` and the terms they share; or, given
    `other_id`, its one sentence closest to a sentence of that paper and their shared terms
    (an index without sentence vectors embeds the paper's sentences the first time)."""
    text = cut_question(text)

    def explain() -> Lights:
        if other_id:
            pair = explain_pair(explorer, other_id, paper_id, top_k=1)
            return [(theirs.start, theirs.end) for _, theirs, _ in pair.pairs], list(pair.shared_terms)
        match = explain_match(explorer, embed(explorer, text), paper_id, top_k=top_k, query=text)
        return [(s.start, s.end) for s in match.sentences], list(match.shared_terms)

    return _memo(explorer, "lights").get((paper_id, text, other_id, top_k), explain)


def lit(explorer: Explorer, papers: Sequence, text: str = "", other_id: str = "", top_k: int = 2,
        explained: bool = True) -> Iterator[Lights]:
    """`lights` of each paper or hit, computed as it is asked for (as its card is drawn);
    without stored sentence vectors only the first ON_DEMAND_EXPLANATIONS get any (none when
    not `explained`), their sentences embedded in two model runs: the first card's, so that
    it is drawn at once, then the rest's (a page's ~70 sentences took 0.2-0.7 s on two cores)."""
    count = explained_count(len(papers), explorer.has_sentence_vectors) if explained else 0
    ids = [item.paper_id for item in papers[:count]]
    runs = {} if explorer.has_sentence_vectors else {0: ids[:1], 1: ids[1:]}  # before card 0, 1
    others = [other_id] if other_id else []  # (kept sentences are not embedded again)
    for number, item in enumerate(papers):
        if runs.get(number):
            explorer.sentences_of(runs[number] + others)
        yield lights(explorer, item.paper_id, text, other_id, top_k) if number < count else ([], [])


def corpus_figure(explorer: Explorer, location: Location) -> go.Figure | None:
    """The map of the corpus with the location's open paper and its 10 nearest papers (over
    the whole corpus) marked; None when the index stores no map."""
    if explorer.corpus_map is None:
        return None
    open_row, neighbours = None, []
    if location.paper_id:
        open_row = explorer.row(location.paper_id)
        nearest = ranked(explorer, location, "similar", location.paper_id, top_k=10, narrow=False)
        neighbours = [explorer.row(hit.paper_id) for hit in nearest]
    zoom = known_topic(explorer.topic_table, location.topic)
    labels, ranges = map_zoom(explorer.corpus_map, explorer.topic_table, zoom)
    return map_figure(explorer.corpus_map, explorer.papers, open_row, neighbours, labels, ranges)
