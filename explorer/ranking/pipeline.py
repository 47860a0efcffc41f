"""The ranking mechanism: carry out a Plan (policy.py) over channels (channels.py).

Ask each channel for its candidates, fuse them, run the feedback pass, re-rank with MMR,
keep the first top_k and score them. Nothing here depends on which channels a mode uses.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.ranking.channels import Channel, Ranked, Request
from explorer.ranking.feedback import feedback_channel
from explorer.ranking.filters import Blocked
from explorer.ranking.fusion import mmr, plausible_by
from explorer.ranking.policy import EXACT_PERCENTILE, Plan


def run(plan: Plan, channels: Sequence[Channel], request: Request, blocked: Blocked | None,
        vectors: np.ndarray) -> Ranked:
    """Rank for `request` as `plan` says -> (rows, scores), best first, at most plan.top_k.

    `channels` are the plan's, in its order; `vectors` (n, d) all papers (for the feedback
    pass and MMR). The scores are the ones the rows are ordered by (the fused score; one
    channel's own), so they never rise down the list, except where MMR (plan.diverse) re-orders
    it for variety; an exact match the feedback pass kept first takes the pass's best score."""
    ranked = [channel.top(request, plan.depth, blocked) for channel in channels]
    rows, scores = _fuse(plan, ranked, request)
    if plan.feedback:
        exact = exact_match(rows, ranked, request, vectors)
        pools = [candidates for candidates, _ in ranked]
        ranked[0] = feedback_channel(vectors, request.vector, rows, pools, plan.depth)
        rows, scores = _fuse(plan, ranked, request)
        if exact is not None:  # the pass never moves a query away from its exact match
            first = np.flatnonzero(rows == exact)[:1]
            order = np.concatenate([first, np.delete(np.arange(len(rows)), first)])
            rows, scores = rows[order], scores[order]
            scores[:1] = scores.max(initial=-np.inf)
    if plan.diverse and len(rows):
        order = mmr(scores, vectors[rows], plan.top_k)
        rows, scores = rows[order], scores[order]
    return rows[: plan.top_k], scores[: plan.top_k]


def exact_match(rows: np.ndarray, ranked: Sequence[Ranked], request: Request,
                vectors: np.ndarray) -> int | None:
    """The first pass's top row when it is an exact match, else None: it leads the lexical
    channel too (the last of `ranked`) and its cosine is above policy.EXACT_PERCENTILE of the
    corpus's random cosines of the request's kind (request.reference; none stored: never exact)."""
    if len(ranked) < 2 or not len(rows) or not len(ranked[-1][0]) or not request.reference:
        return None
    top = int(rows[0])
    if int(ranked[-1][0][0]) != top or request.vector is None:
        return None
    cosine = np.array([float(vectors[top] @ np.asarray(request.vector, dtype=np.float32))])
    return top if plausible_by(request.reference, 1)(cosine)[0] * 100 >= EXACT_PERCENTILE else None


def _fuse(plan: Plan, ranked: list[Ranked], request: Request) -> Ranked:
    if len(ranked) == 1:
        return ranked[0]
    return plan.fusion(ranked, plan.weights, request)
