"""What the verbs return: Hit (how results are restricted: ranking/filters.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.corpus.papers import Paper


@dataclass(frozen=True)
class Hit:
    """One ranked result: `score` is the cosine similarity to the query or paper (in every mode
    but lexical, where it is the BM25 score), `percentile` the share of random cosines of this
    corpus below it, `compared_with` which ones (calibration.QUESTIONS: question-paper,
    calibration.PAPERS: paper-paper), `strength` its word ("strong match", "good match",
    "related", "weak": calibration.STRENGTHS; None when the percentile is not calibrated for
    this kind of score). All three are None for a BM25 score."""

    rank: int
    score: float
    percentile: float | None
    paper: Paper
    compared_with: str | None = None
    strength: str | None = None

    @property
    def paper_id(self) -> str:
        return self.paper.paper_id

    @property
    def title(self) -> str:
        return self.paper.title

    def to_dict(self) -> dict[str, Any]:
        data = {"rank": self.rank, "paper_id": self.paper_id, "title": self.title,
                "title_is_derived": self.paper.title_is_derived,
                "score": round(self.score, 6), "percentile": self.percentile,
                "compared_with": self.compared_with, "strength": self.strength}
        data.update({k: v for k, v in self.paper.to_dict().items()
                     if k not in ("paper_id", "title", "title_is_derived")})
        return data
