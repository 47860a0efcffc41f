"""Explanations in the app: which hits' sentences are highlighted and why a hit sits where it
does (the highlights of a page's cards, computed as each is drawn, and the notes beside them)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from explorer.corpus.papers import Paper
from explorer.features.explanations.explain import explain_match, explain_pair
from explorer.query.engine import Explorer, cut_question
from explorer.ui.results import embed, memo
from explorer.ui.text import escape_markdown, plain, rich_markdown

Lights = tuple[list[tuple[int, int]], list[str]]  # spans of an abstract to highlight, shared terms
# Without stored sentence vectors, the hits of a page that get highlights (their sentences
# embedded in one model run the first time, ~24 ms a paper on two cores: benchmarks/explain.py).
ON_DEMAND_EXPLANATIONS = 20
ON_DEMAND_NOTE = ("Only the first {count} results are highlighted: this index stores no sentence "
                  "vectors, so each highlighted paper's sentences are embedded when it is shown. "
                  "To store them: `{command} --sentences`")


def lights(explorer: Explorer, paper_id: str, text: str = "", other_id: str = "",
           top_k: int = 2, like: tuple[str, ...] = ()) -> Lights:
    """The `top_k` sentences of a paper closest to `text` and the terms they share; or, given
    `other_id`, its one sentence closest to a sentence of that paper and their shared terms;
    or, without either, given the `like`d papers (a recommendation), its sentences closest to
    their mean vector (an index without sentence vectors embeds the paper's sentences the
    first time)."""
    text = cut_question(text)

    def explain() -> Lights:
        if other_id:
            pair = explain_pair(explorer, other_id, paper_id, top_k=1)
            return [(theirs.start, theirs.end) for _, theirs, _ in pair.pairs], list(pair.shared_terms)
        vector = embed(explorer, text) if text.strip() or not like else liked_vector(explorer, like)
        match = explain_match(explorer, vector, paper_id, top_k=top_k, query=text)
        return [(s.start, s.end) for s in match.sentences], list(match.shared_terms)

    return memo(explorer, "lights").get((paper_id, text, other_id, top_k, like), explain)


def liked_vector(explorer: Explorer, like: Sequence[str]) -> np.ndarray:
    """The mean (d,) of the liked papers' unit vectors: what a recommendation is like."""
    return explorer.vectors[[explorer.row(paper_id) for paper_id in like]].mean(axis=0)


def lit(explorer: Explorer, papers: Sequence, text: str = "", other_id: str = "", top_k: int = 2,
        explained: bool = True, like: Sequence[str] = ()) -> Iterator[Lights]:
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
        yield (lights(explorer, item.paper_id, text, other_id, top_k, tuple(like))
               if number < count else ([], []))


# -- what the pages say ---------------------------------------------------------------------
def explained_count(count: int, stored: bool) -> int:
    """How many of `count` hits get sentence highlights: all when the index stores sentence
    vectors (`stored`); else the first ON_DEMAND_EXPLANATIONS, whose sentences are embedded."""
    return count if stored else min(count, ON_DEMAND_EXPLANATIONS)


def snippet_markdown(paper: Paper, spans: Sequence[tuple[int, int]]) -> str:
    """The first highlighted span of the abstract alone, highlighted ("" for none)."""
    if not spans:
        return ""
    start, end = spans[0]
    return rich_markdown(paper.abstract[start:end], [(0, end - start)])


def highlighted_note(query: str) -> str:
    return f"Highlighted: the sentences closest to “{escape_markdown(plain(query, 80))}”."


def terms_note(terms: Sequence[str]) -> str:
    """The caption naming the terms a hit shares with the question or paper ("" for none)."""
    words = escape_markdown(", ".join(terms[:5]))
    return f"shared terms: *{words}*" if terms else ""
