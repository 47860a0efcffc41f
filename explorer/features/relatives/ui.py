"""Close relatives in the app: the corpus-wide list of the closest pairs (?view=relatives) and the
"Close relatives" part of a paper's page, computed without Streamlit (features/relatives/query.py) and
rendered as safe Markdown: every sentence and title is corpus text, escaped by ui/text.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer import wording
from explorer.corpus.papers import Paper
from explorer.features.explanations.ui import ON_DEMAND_EXPLANATIONS
from explorer.features.relatives.query import (
    closest_pairs,
    default_threshold,
    pair_count,
    relatives,
    sentence_pairs,
    stored_pairs,
)
from explorer.query.engine import Explorer
from explorer.ui.page import badged_title, meta_parts
from explorer.ui.results import Memo
from explorer.ui.text import escape_markdown, plain

TITLE = "### Close relatives in this corpus"
INTRO = ("Pairs of papers so alike (cos ≥ {threshold:g}) that they may be one work in two "
         "versions (a workshop and a conference paper, a submission that reappears elsewhere) "
         "or concurrent work on one idea; closest first, each with the sentences that tie them. "
         "Pairs this close: {count}, among {papers} papers.")
PART = "#### Close relatives"
PART_NOTE = ("Papers so alike (cos ≥ {threshold:g}) that they may be another version of this "
             "one or concurrent work, with the sentences that tie them.")
NONE = "No other paper in this corpus is that close (cos ≥ {threshold:g})."
EMPTY = ("No two papers here reach cos {threshold:g}. The closest pair comes to cos {best:.3f}: "
         "*{first}* and *{second}*.")
EMPTY_FLOOR = "No two papers here come even to cos {floor:g}: no versions or concurrent work."
NO_PAIRS = ("This index was built before close relatives were stored. Rebuild it (its vectors "
            "are reused, nothing is embedded again): `{command}`")
SENTENCES = 2  # sentence pairs per pair of papers
_SENTENCES = Memo(4096)  # (build, paper id, other id) -> sentence pairs


@dataclass(frozen=True)
class Shown:
    """One pair of papers as a page shows it; `sentences`: (ours, theirs, cosine) texts."""

    paper: Paper
    other: Paper
    score: float
    sentences: tuple[tuple[str, str, float], ...]


def shown_pairs(explorer: Explorer, top_k: int) -> list[Shown]:
    """The `top_k` closest pairs of the corpus (IndexInvalidError: none stored)."""
    found = closest_pairs(explorer, None, top_k)
    _embed_first(explorer, [paper for t in found for paper in (t.paper, t.other)])
    return [_shown(explorer, t.paper, t.other, t.score, n) for n, t in enumerate(found)]


def paper_relatives(explorer: Explorer, paper_id: str, top_k: int) -> list[Shown]:
    """The close relatives of `paper_id`, closest first (on demand for an older index)."""
    paper = explorer.paper(paper_id)
    found = relatives(explorer, paper.paper_id, None, top_k)
    _embed_first(explorer, [paper] + [r.paper for r in found])
    return [_shown(explorer, paper, r.paper, r.score, n) for n, r in enumerate(found)]


def intro_markdown(explorer: Explorer) -> str:
    """The relatives page's caption (IndexInvalidError: no pairs stored)."""
    return INTRO.format(threshold=default_threshold(explorer), count=f"{pair_count(explorer):,}",
                        papers=f"{len(explorer.papers):,}")


def empty_markdown(explorer: Explorer) -> str:
    """What the relatives page says when no pair reaches the threshold: how close the closest pair
    stored comes, else that none reaches even the stored floor ("" when there are pairs)."""
    stored = stored_pairs(explorer)
    if stored is None or pair_count(explorer):
        return ""
    pairs, floor = stored
    if len(pairs):
        first, second = (explorer.papers[int(row)] for row in pairs.rows[0])
        return EMPTY.format(threshold=default_threshold(explorer), best=float(pairs.scores[0]),
                            first=escape_markdown(plain(first.title)),
                            second=escape_markdown(plain(second.title)))
    return EMPTY_FLOOR.format(floor=floor)


def missing_markdown(hint: str) -> str:
    return NO_PAIRS.format(command=hint)


def score_markdown(shown: Shown) -> str:
    return f":blue-badge[{wording.pair_line(shown.score)}]"


def paper_markdown(paper: Paper) -> str:
    """A paper's title (bold, its LaTeX rendered), its status's badge and its facts, escaped."""
    facts = " · ".join(escape_markdown(part) for part in meta_parts(paper)[:3])
    return badged_title(paper) + (f"  \n{facts}" if facts else "")


def sentences_markdown(shown: Shown) -> str:
    """The sentence pairs, each as two quoted lines (escaped corpus text)."""
    lines = []
    for ours, theirs, score in shown.sentences:
        lines.append(f"> :gray-badge[{score:.2f}] “{escape_markdown(plain(ours, 300))}”  \n"
                     f"> ~ “{escape_markdown(plain(theirs, 300))}”")
    return "\n\n".join(lines)


def _embed_first(explorer: Explorer, papers: list[Paper]) -> None:
    """Without stored sentence vectors, the sentences of the papers whose pairs are explained
    (the first ON_DEMAND_EXPLANATIONS pairs) embedded in one model run."""
    if not explorer.has_sentence_vectors:
        explorer.sentences_of([paper.paper_id for paper in papers[:2 * ON_DEMAND_EXPLANATIONS]])


def _shown(explorer: Explorer, paper: Paper, other: Paper, score: float, number: int) -> Shown:
    """A Shown pair; without stored sentence vectors only the first ON_DEMAND_EXPLANATIONS
    pairs get sentences (embedded beforehand by _embed_first)."""
    if number >= ON_DEMAND_EXPLANATIONS and not explorer.has_sentence_vectors:
        return Shown(paper, other, score, ())
    key = (explorer.manifest.build_id, paper.paper_id, other.paper_id)
    return Shown(paper, other, score, _SENTENCES.get(key, lambda: _sentences(
        explorer, paper.paper_id, other.paper_id)))


def _sentences(explorer: Explorer, paper_id: str, other_id: str
               ) -> tuple[tuple[str, str, float], ...]:
    pairs = sentence_pairs(explorer, paper_id, other_id, SENTENCES).pairs
    return tuple((ours.text, theirs.text, score) for ours, theirs, score in pairs)
