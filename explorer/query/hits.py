"""What the verbs return: Hit, and its place among random cosines in words (`placed`); how
results are restricted: ranking/filters.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer import wording
from explorer.corpus.papers import Paper
from explorer.ranking.calibration import Scale


@dataclass(frozen=True)
class Hit:
    """One ranked result: `score` is what the list is ordered by (the fused score of the
    ranking's channels: in dense mode the cosine, in lexical mode the BM25 score; for hybrid
    the cosine plus the shared words' share), `cosine` its cosine similarity to the query or
    paper (None in lexical mode), `percentile` the share of random cosines of this corpus below
    the cosine, `compared_with` which ones (calibration.QUESTIONS: question-paper,
    calibration.PAPERS: paper-paper), `relevance` (a question's hit) the chance that it is
    relevant (calibration.relevance, fitted on judged questions; None for a paper's
    neighbours), `strength` its word ("strong match", "good match", "related", "weak": from
    the chance, wording.RELEVANCE_WORDS, else from the percentile, wording.STRENGTHS; None when
    the percentile is not calibrated for this kind of score). All are None for a BM25 score.
    `versions`: the other versions of the same work (features/versions/), not listed apart."""

    rank: int
    score: float
    percentile: float | None
    paper: Paper
    compared_with: str | None = None
    strength: str | None = None
    cosine: float | None = None
    relevance: float | None = None
    versions: tuple[Paper, ...] = ()

    @property
    def paper_id(self) -> str:
        return self.paper.paper_id

    @property
    def title(self) -> str:
        return self.paper.title

    def to_dict(self) -> dict[str, Any]:
        data = {"rank": self.rank, "paper_id": self.paper_id, "title": self.title,
                "title_is_derived": self.paper.title_is_derived,
                "score": round(self.score, 6),
                "cosine": None if self.cosine is None else round(self.cosine, 6),
                "percentile": self.percentile,
                "relevance": None if self.relevance is None else round(self.relevance, 6),
                "compared_with": self.compared_with, "strength": self.strength}
        data.update({k: v for k, v in self.paper.to_dict().items()
                     if k not in ("paper_id", "title", "title_is_derived")})
        if self.versions:
            data["versions"] = [version_record(paper) for paper in self.versions]
        return data


def version_record(paper: Paper) -> dict[str, Any]:
    """One version of a work as JSON: its id, title, venue, year and status."""
    return {"paper_id": paper.paper_id, "title": paper.title, "venue": paper.venue,
            "year": paper.year, "status": paper.status}


def placed(scale: Scale | None, cosine: float | None, chance: float | None = None
           ) -> dict[str, Any]:
    """A Hit's cosine, percentile, compared_with, strength and relevance for its `cosine` on
    `scale` (None: not placed, the last four None) and, for a question's hit, its `chance` of
    being relevant: the word is wording.relevance_word of the chance when there is one, else
    wording.strength of the percentile when the scale is labelled."""
    if scale is None or cosine is None:
        return {"cosine": cosine, "percentile": None, "compared_with": None, "strength": None,
                "relevance": None}
    place = scale.place(cosine)
    word = wording.strength(place["percentile"]) if place["labelled"] else None
    if chance is not None:
        word = wording.relevance_word(chance)
    return {"cosine": cosine, "percentile": place["percentile"],
            "compared_with": place["compared_with"], "strength": word, "relevance": chance}
