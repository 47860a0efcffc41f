"""Pure ranking helpers: top rows of a score vector, score fusion, MMR diversity, the SVM
recommender.

Everything here works on index rows (positions in the paper list) and NumPy arrays; the
policy (policy.py) decides which of them a request gets, the pipeline (pipeline.py) runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

LEXICAL, DENSE, HYBRID = "lexical", "dense", "hybrid"
MODES = (LEXICAL, DENSE, HYBRID)
# The blend's weight of the dense channel (policy.BLEND_FUSION: min-max normalised channel
# scores; hybrid's fusion before plausible fusion). Chosen over RRF on the paragraph queries and
# checked on the sentence and paper queries of two ACM-CR slices (studies/fusion_study.py;
# studies/results/quality-acm-cr-2026-11-30.md).
DENSE_WEIGHT = 0.5
# Rows each channel contributes to a fused ranking: 200 (was 100) with the weight above and the
# feedback pass of feedback.py, chosen together by 2-fold cross-validation on full ACM-CR
# (studies/prf_study.py; studies/results/quality-acm-cr-prf.md).
CANDIDATES = 200
# absolute_fusion's weight of BM25 relative to the query's best attainable score, for a
# question (policy.HYBRID_FUSION), and the power of its plausibility (plausible_by): chosen by
# 2-fold CV under the never-lose rule (studies/plausible_fusion.py, DECISIONS item 15).
LEXICAL_WEIGHT = 1.2
PLAUSIBILITY_POWER = 4
# For a paper as the query on a corpus below policy.PAPER_POLICY_BELOW papers (`similar`, a
# pasted document, recommend's centroid): both folds of the never-lose CV chose 0.2-0.3 without
# feedback, on papers -> references at 100 / 1k ACM-CR papers and the seed pairs
# (studies/size_gate.py, studies/results/quality-size-gate.md).
PAPER_LEXICAL_WEIGHT = 0.3


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown ranking mode {mode!r}; expected one of {MODES}")
    return mode


def top_rows(scores: np.ndarray, top_k: int, blocked: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """The `top_k` best rows of `scores` (n,) with score > 0, best first -> (rows, scores).

    `blocked` (n,) bool marks rows that may not be returned."""
    scores = np.asarray(scores, dtype=np.float32)
    if blocked is not None:
        scores = np.where(blocked, -np.inf, scores)
    top_k = min(top_k, len(scores))
    if top_k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    part = np.argpartition(-scores, top_k - 1)[:top_k]
    part = part[np.argsort(-scores[part], kind="stable")]
    keep = scores[part] > 0
    return part[keep].astype(np.int64), scores[part][keep]


def min_max(scores: np.ndarray) -> np.ndarray:
    """`scores` (m,) rescaled to [0, 1], float64: the lowest to 0, the highest to 1; all ones
    when they are all equal (and empty when `scores` is)."""
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0:
        return scores
    spread = float(scores.max() - scores.min())
    return (scores - scores.min()) / spread if spread > 0 else np.ones(len(scores))


def blend_fusion(channels: Sequence[tuple[np.ndarray, np.ndarray]],
                 weights: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Fuse channels of (rows, scores), best first, by a weighted sum of their scores after
    min-max normalisation within each channel (a row a channel did not return adds 0).

    Returns (rows, fused scores in [0, sum(weights)]), best first; ties keep first appearance."""
    fused: dict[int, float] = {}
    for (rows, scores), weight in zip(channels, weights):
        for row, value in zip(rows, min_max(scores)):
            fused[int(row)] = fused.get(int(row), 0.0) + weight * float(value)
    rows = np.fromiter(fused, dtype=np.int64, count=len(fused))
    values = np.fromiter(fused.values(), dtype=np.float64, count=len(fused))
    order = np.argsort(-values, kind="stable")
    return rows[order], values[order]


def lexical_ceiling(idfs: Sequence[float]) -> float:
    """The best BM25 score a query can reach in this corpus: the sum of the idf of each of its
    terms (repeats counted), since a term's Lucene weight idf * tf / (tf + k1 * ...) stays
    below its idf. It depends on the query and the corpus, never on the candidate list."""
    return float(sum(idfs))


def query_ceiling(index, text: str) -> float:
    """lexical_ceiling of `text` in a LexicalIndex: the idf of each of its known terms."""
    return lexical_ceiling(index.query_idfs(text).tolist())


def absolute_fusion(dense: tuple[np.ndarray, np.ndarray], lexical: tuple[np.ndarray, np.ndarray],
                    ceiling: float, lexical_weight: float = LEXICAL_WEIGHT,
                    plausibility: Callable[[np.ndarray], np.ndarray] | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Fuse the dense channel (rows, cosines) and the lexical one (rows, BM25 scores), each
    best first, keeping each channel's absolute strength:

        fused = cosine + lexical_weight * BM25 / ceiling

    `ceiling` (lexical_ceiling) is the query's best attainable BM25 score, so one shared
    common word adds little however the candidate list looks, and the cosine is used as it is.
    A row only the lexical channel returned gets the dense list's lowest cosine (an upper
    bound of its own); a row only the dense channel returned has BM25 0.
    `plausibility` maps cosines (m,) to factors in [0, 1] that scale each row's lexical share
    (plausible_by): shared words then lift a paper only as far as its meaning is already
    plausible for the query. None: every row gets its whole share.
    Returns (rows, fused scores), best first; ties keep first appearance (dense first).
    Each channel's rows are distinct."""
    dense_rows, cosines = np.asarray(dense[0], dtype=np.int64), np.asarray(dense[1])
    lexical_rows = np.asarray(lexical[0], dtype=np.int64)
    floor = float(cosines.min()) if len(cosines) else 0.0
    cosines = cosines.astype(np.float64)
    at, shared = _positions(dense_rows, lexical_rows)  # each lexical row's place in dense
    base = np.full(len(lexical_rows), floor)
    base[shared] = cosines[at[shared]]
    share = np.full(len(lexical_rows), lexical_weight / ceiling if ceiling > 0 else 0.0)
    if plausibility is not None and len(base):
        share *= np.clip(np.asarray(plausibility(base), dtype=np.float64), 0.0, 1.0)
    lifted = base + share * np.asarray(lexical[1], dtype=np.float64)
    cosines[at[shared]] = lifted[shared]
    rows = np.concatenate([dense_rows, lexical_rows[~shared]])
    values = np.concatenate([cosines, lifted[~shared]])
    order = np.argsort(-values, kind="stable")
    return rows[order], values[order]


def _positions(rows: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each of `wanted`, its position in `rows` (distinct) and whether it is there at all
    (position 0 where not)."""
    if len(rows) == 0:
        return np.zeros(len(wanted), dtype=np.int64), np.zeros(len(wanted), dtype=bool)
    order = np.argsort(rows, kind="stable")
    slots = np.minimum(np.searchsorted(rows[order], wanted), len(rows) - 1)
    found = rows[order][slots] == wanted
    return np.where(found, order[slots], 0), found


def plausible_by(quantiles: Sequence[float], power: float) -> Callable[[np.ndarray], np.ndarray]:
    """absolute_fusion's `plausibility` from a corpus's reference cosines: the share of them
    below each cosine (its percentile / 100, as calibration.Scale places a hit), raised to
    `power` (0: always 1). `quantiles` are evenly spaced percentiles 0..100 of random cosines
    of the query's kind (ranking/calibration.py)."""
    table = np.asarray(quantiles, dtype=np.float64)
    steps = max(1, len(table) - 1)

    def factor(cosines: np.ndarray) -> np.ndarray:
        share = np.minimum(np.searchsorted(table, cosines, side="left"), steps) / steps
        return share ** power

    return factor


def mmr(relevance: np.ndarray, vectors: np.ndarray, top_k: int, balance: float = 0.7
        ) -> list[int]:
    """Maximal marginal relevance: positions into the candidates, in picking order.

    `relevance` (m,) scores the candidates (higher is better), `vectors` (m, d) are their unit
    vectors; each pick maximises balance * relevance - (1 - balance) * max cosine to the picks.
    """
    if not 0.0 <= balance <= 1.0:
        raise ValueError(f"balance must be in [0, 1], got {balance}")
    count = len(relevance)
    relevance = min_max(relevance)
    vectors = np.asarray(vectors, dtype=np.float32)
    picked: list[int] = []
    closest = np.full(count, -np.inf)
    free = np.ones(count, dtype=bool)
    while len(picked) < min(top_k, count):
        penalty = np.where(np.isfinite(closest), closest, 0.0)
        value = np.where(free, balance * relevance - (1 - balance) * penalty, -np.inf)
        choice = int(np.argmax(value))
        picked.append(choice)
        free[choice] = False
        closest = np.maximum(closest, vectors @ vectors[choice])
    return picked


def rocchio(vector: np.ndarray | None, liked: np.ndarray, weight: float = 1.0, *,
            disliked: np.ndarray | None = None, dislike_weight: float = 0.5) -> np.ndarray:
    """Rocchio (1971): the query `vector` (d,), plus `weight` times the mean of the `liked`
    vectors (k, d), minus `dislike_weight` times the mean of the `disliked` ones (j, d); unit
    length (d,). Each part may be missing (None or no rows); a zero sum comes back as it is.

    recommend's centroid is this with weight 1 (liked papers, disliked ones, optional query);
    the feedback pass (feedback.py) moves the query towards its first pass's best papers."""
    if weight < 0 or dislike_weight < 0:
        raise ValueError(f"feedback weights must be >= 0, got {weight} and {dislike_weight}")
    liked = np.asarray(liked, dtype=np.float32)
    target = np.zeros(liked.shape[-1] if vector is None else len(vector), dtype=np.float32)
    if len(liked):
        target += weight * liked.mean(axis=0)
    if disliked is not None and len(disliked):
        target -= dislike_weight * np.asarray(disliked, dtype=np.float32).mean(axis=0)
    if vector is not None:
        target += np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(target))
    return target / norm if norm > 0 else target


def svm_scores(vectors: np.ndarray, positives: Sequence[int], negatives: Sequence[int] = (),
               c: float = 0.1, background: int = 10_000) -> np.ndarray:
    """arxiv-sanity style: a linear SVM per request, positives against the other papers.

    `vectors` (n, d); returns the decision value of every row (n,). The implicit negatives are
    a fixed random sample of `background` papers (all of them in a smaller corpus) so a request
    stays under a second on a large corpus; explicit `negatives` weigh as much as they do."""
    from sklearn.svm import LinearSVC

    positives = np.asarray(list(positives), dtype=np.int64)
    negatives = np.asarray(list(negatives), dtype=np.int64)
    others = np.setdiff1d(np.arange(len(vectors)), positives)
    if len(others) > background:
        others = np.random.default_rng(0).choice(others, background, replace=False)
    others = np.setdiff1d(others, negatives)
    rows = np.concatenate([positives, others, negatives])
    labels = np.r_[np.ones(len(positives)), np.zeros(len(others) + len(negatives))]
    weights = np.r_[np.ones(len(positives) + len(others)),
                    np.full(len(negatives), max(1.0, len(others) / (10 * max(1, len(negatives)))))]
    model = LinearSVC(class_weight="balanced", C=c, max_iter=2000, tol=1e-5, dual="auto",
                      random_state=0)  # the same scores for the same request, every time
    model.fit(vectors[rows], labels, sample_weight=weights)
    return model.decision_function(vectors).astype(np.float32)
