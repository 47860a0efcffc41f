"""Close relatives: papers so similar they may be one work in two versions (a workshop and a
conference paper, a submission that reappears elsewhere) or concurrent work on one idea.

The pairs are found at build time (features/relatives/stage.py, a self-join of the index above a floor
cosine) and read here; the sentence pairs that tie two papers come from features/explanations/explain.py
(stored sentence vectors, or the two papers' sentences embedded on demand). An index built
before relatives were stored gives a paper's relatives on demand (one search of that paper)
and refuses the corpus-wide list with the command that rebuilds it (its vectors are reused).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from explorer.artifacts.layout import RELATIVE_ROWS, RELATIVE_SCORES, RELATIVES
from explorer.corpus.papers import Paper
from explorer.errors import IndexInvalidError, ThresholdError
from explorer.features.explanations.explain import PairExplanation, explain_pair
from explorer.index.pairs import NEIGHBOURS, Pairs, near_pairs
from explorer.query.engine import Explorer
from explorer.ranking.fitted import MIN_TWINS, MINILM, calibration_for, strictest_relatives

# The default cosine above which two papers are called close relatives is the index's model's
# (ranking/fitted.py: the highest that finds 90% of the paperlists-ml works seen twice of one
# half, by title hash; for all-MiniLM-L6-v2 0.86, the other half held out found at 0.84:
# studies/DECISIONS.md 13, results/twins-paperlists.md): `default_threshold`. DEFAULT_THRESHOLD
# is the default model's, for code that has no index at hand.
DEFAULT_THRESHOLD = MINILM.relatives
RECALL_TARGET, STEP = 0.9, 0.01  # the twins rule (studies/twins_study.py uses these)
DEFAULT_TOP_K = 20
MAX_TOP_K = 10_000
SENTENCE_PAIRS = 2  # sentence pairs shown per pair of papers


@dataclass(frozen=True)
class Relative:
    """A paper's close relative: the other paper and the two papers' cosine."""

    paper: Paper
    score: float

    def to_dict(self) -> dict:
        return {"paper_id": self.paper.paper_id, "title": self.paper.title,
                "venue": self.paper.venue, "year": self.paper.year, "score": self.score}


@dataclass(frozen=True)
class RelativePair:
    """A pair of close relatives in the corpus-wide list (`rank` 1 is the closest pair)."""

    rank: int
    paper: Paper
    other: Paper
    score: float

    def to_dict(self) -> dict:
        return {"rank": self.rank, "score": self.score,
                "papers": [Relative(self.paper, self.score).to_dict(),
                           Relative(self.other, self.score).to_dict()]}


def check_threshold(threshold: float | None, floor: float | None = None,
                    default: float = DEFAULT_THRESHOLD) -> float:
    """`threshold` (None: `default`, the index's: default_threshold) when it is a cosine this
    index can answer for (at least `floor`, the lowest stored; at most 1), else
    ThresholdError saying which are."""
    value = default if threshold is None else threshold
    lowest = 0.0 if floor is None else floor
    if not isinstance(value, (int, float)) or not math.isfinite(value) or not (
            lowest <= value <= 1.0):
        where = (f"this index stores pairs from cos {floor:g} up" if floor is not None
                 else "a threshold is a cosine")
        raise ThresholdError(f"Threshold {value!r} is not usable: {where}, so give a number "
                             f"from {lowest:g} to 1 (default {default:g}).")
    return float(value)


def default_threshold(explorer: Explorer) -> float:
    """The close-relatives default of this index: its model's (fitted.py); for a model without
    one, the twins rule on the index's own versions (twins_threshold) when it has MIN_TWINS
    pairs of them, else the strictest known model's. Made once per Explorer."""
    return explorer.part(_default_threshold)


def twins_threshold(cosines: np.ndarray) -> float | None:
    """The twins rule: the highest cosine, a multiple of STEP, at or below which RECALL_TARGET
    of the known twins' `cosines` (k,) lie above; None below MIN_TWINS twins."""
    if len(cosines) < MIN_TWINS:
        return None
    found = np.quantile(np.asarray(cosines, dtype=np.float64), 1.0 - RECALL_TARGET,
                        method="inverted_cdf")
    return round(math.floor(found / STEP + 1e-9) * STEP, 2)


def _default_threshold(explorer: Explorer) -> float:
    known = calibration_for(explorer.manifest.model.model_id)
    if known is not None:
        return known.relatives
    groups = {tuple(group) for group in explorer.works.groups.values()}
    pairs = [(group[0], other) for group in groups for other in group[1:]]
    vectors = explorer.vectors
    cosines = np.array([float(vectors[a] @ vectors[b]) for a, b in pairs])
    own = twins_threshold(cosines)
    return own if own is not None else strictest_relatives()


def check_top_k(top_k: int) -> int:
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise ThresholdError(f"--top must be a whole number from 1 to {MAX_TOP_K}, not {top_k!r}.")
    return top_k


def closest_pairs(explorer: Explorer, threshold: float | None = None,
                  top_k: int = DEFAULT_TOP_K) -> list[RelativePair]:
    """The `top_k` closest pairs of papers in the corpus with cosine >= `threshold`, best
    first; IndexInvalidError (with the rebuild command) for an index without stored pairs."""
    stored = _stored(explorer)
    threshold = check_threshold(threshold, stored[1], default_threshold(explorer))
    pairs = stored[0].above(threshold)
    count = min(check_top_k(top_k), len(pairs))
    papers = explorer.papers
    return [RelativePair(rank, papers[int(a)], papers[int(b)], float(score))
            for rank, ((a, b), score) in enumerate(zip(pairs.rows[:count], pairs.scores[:count]),
                                                    start=1)]


def pair_count(explorer: Explorer, threshold: float | None = None) -> int:
    """How many pairs of papers have cosine >= `threshold` (stored pairs)."""
    pairs, floor = _stored(explorer)
    return len(pairs.above(check_threshold(threshold, floor, default_threshold(explorer))))


def relatives(explorer: Explorer, paper_id: str, threshold: float | None = None,
              top_k: int = DEFAULT_TOP_K) -> list[Relative]:
    """The close relatives of `paper_id` (never itself nor a merged duplicate), closest first:
    from the stored pairs, or for an index without them one search of the paper."""
    row = explorer.row(paper_id)
    stored, default = stored_pairs(explorer), default_threshold(explorer)
    if stored is not None:
        pairs, floor = stored
        partners, scores = pairs.above(check_threshold(threshold, floor, default)).touching(row)
    else:
        found = near_pairs(explorer.artifacts.index, check_threshold(threshold, None, default),
                           NEIGHBOURS, rows=[row])
        partners, scores = found.touching(row)
        own = explorer.papers[row].text_hash
        kept = [i for i, p in enumerate(partners) if explorer.papers[p].text_hash != own]
        partners, scores = partners[kept], scores[kept]
    check_top_k(top_k)
    return [Relative(explorer.papers[int(p)], float(s))
            for p, s in list(zip(partners, scores))[:top_k]]


def sentence_pairs(explorer: Explorer, paper_id: str, other_id: str,
                   top_k: int = SENTENCE_PAIRS) -> PairExplanation:
    """The sentence pairs (and shared terms) that tie two papers, closest first."""
    return explain_pair(explorer, paper_id, other_id, top_k=top_k)


def stored_pairs(explorer: Explorer) -> tuple[Pairs, float] | None:
    """The close pairs stored at build time (stage.py) and the lowest cosine stored; None for
    an index built before them. Read once per Explorer."""
    return explorer.part(_read_pairs)


def _read_pairs(explorer: Explorer) -> tuple[Pairs, float] | None:
    arrays, found = explorer.artifacts.arrays, explorer.artifacts.extras.get(RELATIVES)
    if RELATIVE_ROWS not in arrays or RELATIVE_SCORES not in arrays or not isinstance(
            found, dict) or not isinstance(found.get("floor"), (int, float)):
        return None
    return (Pairs(np.asarray(arrays[RELATIVE_ROWS], dtype=np.int64),
                  np.asarray(arrays[RELATIVE_SCORES], dtype=np.float32)), float(found["floor"]))


def _stored(explorer: Explorer) -> tuple[Pairs, float]:
    stored = stored_pairs(explorer)
    if stored is None:
        folder = explorer.artifacts.folder
        raise IndexInvalidError(
            f"The index in {folder} was built before close relatives were stored, so the "
            f"corpus-wide list needs a rebuild (its vectors are reused, nothing is embedded): "
            f"`{explorer.manifest.rebuild_hint(folder)}`. A paper's own relatives "
            f"(`explorer twins --paper ID`) work without it.")
    return stored
