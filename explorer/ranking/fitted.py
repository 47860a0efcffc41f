"""The values fitted on one model's cosines, one table per model (issue 35: the swap to another
model never changes what a word means). A cosine of 0.86 is a near-copy to all-MiniLM-L6-v2 and
an ordinary neighbour to all-mpnet-base-v2, so every number read off raw cosines is kept here,
keyed by the model an index's manifest names; everything read off an index's own percentiles
(ranking/calibration.py's quantiles, computed from the index at build time) needs no table.

Per model (each row says how it was fitted; studies/results/per-model-calibration.md):
  relevance_weights     the strength model's seven weights (calibration.SIGNALS), fitted by
                        studies/strength_calibration.py on that model's embeddings of its three
                        judged sets and checked held out;
  three_signal_weights  the same for an index without the absent-topic bests;
  gate                  the percentile of the corpus's absent-topic bests below which a list's
                        hits are capped (the study's rule: the highest, in steps of 5, that keeps
                        >= 85% of the seed paraphrase targets strong or good, held out);
  versions              the cosine above which two papers are taken as one work's versions (the
                        absent-topic questions drop them): the median cosine of paperlists-ml's
                        known twins under that model (studies/twins_study.py --pairs);
  relatives             the close-relatives default: the highest cosine (steps of 0.01) that
                        finds 90% of fold 0's known twins (studies/twins_study.py).

An index of a model not in the table (another --model folder, or one that records none) gets
no fitted number silently borrowed from another model. The rule instead, stated where it shows:
- a question's hits carry their percentile among the corpus's own question-paper cosines
  (computed from the index at build time) and no strength word (hits.placed, ranker);
- a paper's hits keep their word, which reads only the index's own paper-pair percentiles;
- close relatives default to the twins rule on the index's own versions (same title and an
  author, or a shared DOI / arXiv id: extras "versions") when it has MIN_TWINS of them, else to
  the strictest threshold of the known models (features/relatives/query.py), said so;
- the absent-topic questions of a build drop versions above the highest known `versions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class ModelCalibration:
    """The fitted values of one model (see the module for how each was fitted)."""

    name: str  # the model id's last part, case-folded: "all-minilm-l6-v2"
    relevance_weights: tuple[float, ...]
    three_signal_weights: tuple[float, ...]
    gate: float
    versions: float
    relatives: float


MINILM = ModelCalibration(
    "all-minilm-l6-v2",
    relevance_weights=(-7.974, 1.666, 2.891, -6.146, 3.104, 0.544, 6.505),
    three_signal_weights=(-10.798, 2.488, 7.518, -2.425),
    gate=50, versions=0.95, relatives=0.86)
# mpnet: the twins rule on its own embeddings of paperlists-ml's 68 known twins (0.89; fold 1
# held out finds 88% there; median twin cosine 0.972 -> versions 0.97; the same rule on
# MiniLM's fp32 vectors gives 0.85 and 0.952, its shipped 0.86 came from the int8 index's join:
# studies/results/twins-models.md). Strength weights and gate: studies/strength_calibration.py
# --model mpnet --small (mpnet embedded ~0.1 abstracts/s on the loaded shared cores, so its sets
# are smaller: 150 paperlists papers, 100 cited + 50 other ACM-CR papers, the whole seed set;
# results/strength-calibration-mpnet-small.md, MiniLM at the same sizes beside it in
# strength-calibration-small.md). The rule's gate, 80, reads 88% of the seed targets strong or
# good on the product's own path too (the seeds index, explorer.search).
MPNET = ModelCalibration(
    "all-mpnet-base-v2",
    relevance_weights=(-6.295, 1.087, 2.456, -5.261, 3.734, -0.096, 7.041),
    three_signal_weights=(-8.603, 1.848, 6.862, -2.316),
    gate=80, versions=0.97, relatives=0.89)
CALIBRATIONS = {model.name: model for model in (MINILM, MPNET)}
MIN_TWINS = 10  # version pairs an index needs for its own relatives threshold


def model_name(model_id: str | None) -> str | None:
    """The key of a manifest's model id: its last path part, case-folded (the bundled
    "sentence-transformers/all-MiniLM-L6-v2" and a local folder of it named alike agree)."""
    if not model_id or not model_id.strip():
        return None
    return PurePosixPath(model_id.strip().replace("\\", "/")).name.casefold() or None


def calibration_for(model_id: str | None) -> ModelCalibration | None:
    """The fitted values of the model `model_id` names; None for a model not in CALIBRATIONS
    (then the module's rule for unknown models applies)."""
    return CALIBRATIONS.get(model_name(model_id) or "")


def versions_cosine(model_id: str | None) -> float:
    """The cosine above which a build takes two papers as versions of one work (absent-topic
    questions drop them): the model's, else the highest known (fewest papers dropped)."""
    found = calibration_for(model_id)
    return found.versions if found else max(m.versions for m in CALIBRATIONS.values())


def strictest_relatives() -> float:
    """The highest relatives threshold of the known models (an unknown model's last resort)."""
    return max(m.relatives for m in CALIBRATIONS.values())
