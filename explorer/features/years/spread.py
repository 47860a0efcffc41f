"""How a set of papers spreads over years: counts per year, the papers without one, and
whether the set leans to recent years more than the corpus does.

What is counted for a question or a paper's neighbourhood is the top SPREAD_DEPTH papers of
the same ranking the results come from, not the few shown: hybrid ranks a pool of that size
anyway (ranking.CANDIDATES), so `ranked_with_spread` asks for it once and cuts the shown hits
from it; nothing is ranked twice. On the 92k paperlists-ml index the cosines of ranks 101-200
are as high as those of ranks 11-100 (median 0.42 against 0.32-0.41 for a question, 0.51-0.55
against 0.56-0.63 for a paper), so the deeper pool is no noisier than a top 100 and twice the
sample.

Everything here is a pure function of papers (or hits) but `corpus_spread`, remembered per
Explorer; all of it is safe to call from many threads.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.corpus.papers import countable_year
from explorer.query.engine import Explorer
from explorer.query.hits import Hit
from explorer.ranking.fusion import CANDIDATES

SPREAD_DEPTH = CANDIDATES  # papers of a ranking counted: the pool hybrid ranks anyway (200)
RECENT_YEARS = 5  # "recent": the last RECENT_YEARS years up to the corpus's latest year
MIN_DATED = 10  # fewer dated papers than this: the share is given, no verdict
# A share further than this many standard errors from the corpus's share gets a verdict.
SIGNIFICANT = 2.0
MORE_RECENT, OLDER, LIKE_CORPUS = "more recent than the corpus", "older than the corpus", \
    "about as recent as the corpus"


@dataclass(frozen=True)
class YearSpread:
    """Papers per year: `counts` ((year, papers), years ascending, only years with papers),
    `undated` the papers without a usable year, `basis` what was counted (for a caption)."""

    counts: tuple[tuple[int, int], ...] = ()
    undated: int = 0
    basis: str = ""

    @property
    def dated(self) -> int:
        return sum(count for _, count in self.counts)

    @property
    def total(self) -> int:
        return self.dated + self.undated

    @property
    def years(self) -> tuple[int, ...]:
        return tuple(year for year, _ in self.counts)

    def count(self, year: int) -> int:
        """Papers of `year` (0 when none)."""
        return dict(self.counts).get(year, 0)

    def between(self, first: int, last: int) -> int:
        """Papers from `first` to `last`, inclusive."""
        return sum(count for year, count in self.counts if first <= year <= last)

    def to_dict(self) -> dict[str, Any]:
        return {"basis": self.basis, "counted": self.total, "undated": self.undated,
                "counts": [{"year": year, "count": count} for year, count in self.counts]}


@dataclass(frozen=True)
class Growth:
    """How much of a spread falls in the recent window `first`..`last` (the corpus's latest
    RECENT_YEARS years): `recent` of `dated` papers, against `reference_share` of the corpus
    (None when not compared); `verdict` MORE_RECENT, OLDER, LIKE_CORPUS or None (too few
    papers, or nothing to compare with)."""

    first: int
    last: int
    recent: int
    dated: int
    reference_share: float | None = None
    verdict: str | None = None

    @property
    def share(self) -> float:
        return self.recent / self.dated if self.dated else 0.0

    def sentence(self) -> str:
        """E.g. 'Recent: 84 of 197 dated papers (43%) are from 2021-2025, against 37% of the
        corpus: more recent than the corpus.'"""
        text = (f"Recent: {self.recent} of {self.dated} dated papers ({self.share:.0%}) are "
                f"from {self.first}–{self.last}")
        if self.reference_share is not None:
            text += f", against {self.reference_share:.0%} of the corpus"
        return text + (f": {self.verdict}." if self.verdict else ".")

    def to_dict(self) -> dict[str, Any]:
        return {"first": self.first, "last": self.last, "recent": self.recent,
                "dated": self.dated, "share": round(self.share, 4),
                "reference_share": None if self.reference_share is None
                else round(self.reference_share, 4), "verdict": self.verdict}


def year_of(item: Any) -> int | None:
    """The year of a paper or hit (or a bare value): a whole number in corpus.papers.YEARS,
    else None (missing, text, a float, a bool, out of range)."""
    return countable_year(getattr(getattr(item, "paper", item), "year", item))


def spread(papers: Iterable[Any], basis: str = "") -> YearSpread:
    """The YearSpread of `papers` (Papers or Hits; anything with a `year`); `basis` says what
    they are ("top 200 papers of this ranking")."""
    counts: Counter[int] = Counter()
    undated = 0
    for item in papers:
        year = year_of(item)
        if year is None:
            undated += 1
        else:
            counts[year] += 1
    return YearSpread(tuple(sorted(counts.items())), undated, basis)


def growth(papers: YearSpread, reference: YearSpread | None = None,
           recent: int = RECENT_YEARS) -> Growth | None:
    """The share of `papers` in the last `recent` years up to `reference`'s latest year (the
    corpus's: corpus_spread) or, without one, its own; None when no paper is dated or every
    year of the reference is in the window (nothing is "before")."""
    if recent < 1:
        raise ValueError(f"recent must be at least 1 year, got {recent!r}")
    base = reference if reference is not None and reference.counts else papers
    if not papers.counts or not base.counts:
        return None
    last = base.years[-1]
    first = last - recent + 1
    if base.years[0] >= first:
        return None
    dated, in_window = papers.dated, papers.between(first, last)
    if reference is None or not reference.counts:
        return Growth(first, last, in_window, dated)
    share = reference.between(first, last) / reference.dated
    return Growth(first, last, in_window, dated, share, _verdict(in_window, dated, share))


def _verdict(recent: int, dated: int, share: float) -> str | None:
    """MORE_RECENT / OLDER when `recent` of `dated` is SIGNIFICANT standard errors away from
    the corpus's `share` (a binomial test's normal approximation), else LIKE_CORPUS."""
    if dated < MIN_DATED:
        return None
    error = math.sqrt(share * (1 - share) / dated)
    if error == 0:
        return None
    distance = (recent / dated - share) / error
    return MORE_RECENT if distance > SIGNIFICANT else OLDER if distance < -SIGNIFICANT \
        else LIKE_CORPUS


@dataclass(frozen=True)
class YearShare:
    """One year of a set of papers against the corpus: its `count` of papers, their `share` of
    the set's dated papers, and `reference` the corpus's share of its dated papers in that year
    (None: no corpus years)."""

    year: int
    count: int
    share: float
    reference: float | None


def year_shares(papers: YearSpread, reference: YearSpread | None) -> list[YearShare]:
    """Each year of `papers` with its share of them and the corpus's share of that year: a
    bigger conference year is then no "growth" (ICLR 2018 had twice ICLR 2017's papers)."""
    dated = papers.dated
    total = reference.dated if reference is not None else 0
    return [YearShare(year, count, count / dated,
                      reference.count(year) / total if total else None)
            for year, count in papers.counts]


def shares_in_words(papers: YearSpread, reference: YearSpread | None) -> str:
    """The years of `papers` as a sentence, for when a chart would say nothing (two years or
    fewer): "2017: 40 papers (36% of these; the corpus 33%) · 2018: 70 papers (64%; the corpus
    67%)."; "None of these papers has a year." without years."""
    if not papers.counts:
        return "None of these papers has a year."
    parts = []
    for item in year_shares(papers, reference):
        against = "" if item.reference is None else f"; the corpus {item.reference:.0%}"
        parts.append(f"{item.year}: {item.count:,} paper{'s' if item.count != 1 else ''} "
                     f"({item.share:.0%} of these{against})")
    return " · ".join(parts) + "."


def pool_basis(count: int, depth: int = SPREAD_DEPTH) -> str:
    """What a ranking's spread counts, for its caption."""
    if count < depth:
        return f"all {count} papers this ranking returns"
    return f"top {count} papers of this ranking"


def ranked_with_spread(rank: Callable[[int], Sequence[Hit]], top_k: int,
                       depth: int = SPREAD_DEPTH) -> tuple[list[Hit], YearSpread]:
    """One ranking for both the results and their years: `rank(n)` (a verb with its options
    bound, returning its n best hits) runs once at max(top_k, depth) -> (its first `top_k`
    hits, the spread of all it returned). For the default (hybrid) ranking and for an exact
    dense one the first top_k are the hits `rank(top_k)` returns (tests/test_years.py)."""
    if top_k < 0 or depth < 0:
        raise ValueError(f"top_k and depth must be >= 0, got {top_k!r} and {depth!r}")
    hits = list(rank(max(top_k, depth)))
    return hits[:top_k], spread(hits, pool_basis(len(hits), depth))


_CORPUS: weakref.WeakKeyDictionary[Explorer, YearSpread] = weakref.WeakKeyDictionary()
_CORPUS_LOCK = threading.Lock()


def corpus_spread(explorer: Explorer) -> YearSpread:
    """The spread of every paper of `explorer`'s index (computed once per Explorer)."""
    with _CORPUS_LOCK:
        known = _CORPUS.get(explorer)
    if known is None:
        counts, undated = explorer.year_counts()
        known = YearSpread(tuple(sorted(counts.items())), undated,
                           f"all {len(explorer.papers)} papers of the corpus")
        with _CORPUS_LOCK:
            _CORPUS[explorer] = known
    return known
