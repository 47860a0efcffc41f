"""What a build derives from the papers and their vectors, stage by stage (each timed by the
report's Stopwatch): the arrays and extras that the artifacts folder stores beside the index,
each updated from the previous build's where that is cheaper (features/*/stage.py)."""

from __future__ import annotations

import numpy as np

from explorer.artifacts.layout import (
    ADDED_IN,
    BUILDS,
    FACETS,
    ID_HASHES,
    MAP,
    PAIR_QUANTILES,
    QUESTION_QUANTILES,
    RELATIVES,
    TEXT_HASHES,
    VERSIONS,
)
from explorer.corpus.facets import facet_counts
from explorer.corpus.papers import Paper, facet_values
from explorer.corpus.versions import version_groups
from explorer.features.new.stage import history, id_hashes
from explorer.features.references.stage import reference_arrays
from explorer.features.relatives import stage as relatives
from explorer.features.topics.stage import compute_map, update_map
from explorer.index.dense import VectorIndex
from explorer.index.lexical import LexicalIndex
from explorer.ingest.embedding import LazyEmbedder
from explorer.ingest.previous import Previous, before
from explorer.ingest.report import BuildReport, Stopwatch
from explorer.ranking import author_arrays
from explorer.ranking.authors import AuthorTable
from explorer.ranking.calibration import (
    ABSENT_BEST,
    kept_question_quantiles,
    pair_quantiles,
    question_references,
)


def derived(papers: list[Paper], vectors: np.ndarray, previous: Previous | None,
             embedder: LazyEmbedder, report: BuildReport, watch: Stopwatch
             ) -> tuple[VectorIndex, dict[str, np.ndarray], dict]:
    """What the build derives from the papers' vectors, stage by stage: the BM25 channel and
    text hashes, the vector index, the score quantiles, the map, the close relatives, the
    references inside the corpus and what this build added (features/new/stage.py)."""
    old = previous.arrays if previous is not None else None
    with watch("bm25"):
        arrays = LexicalIndex.from_papers(papers, old).to_arrays()  # BM25 channel
    arrays[TEXT_HASHES] = np.frombuffer(b"".join(bytes.fromhex(p.text_hash) for p in papers),
                                        dtype=np.uint8).reshape(len(papers), 32)
    with watch("authors"):  # the author and title table, so that no question waits for it
        arrays.update(author_arrays.to_arrays(AuthorTable(papers)))
    with watch("index"):
        index = VectorIndex.build(vectors, report.index_type,
                                  previous.index if previous is not None else None)
    with watch("quantiles"):
        extras = {PAIR_QUANTILES: pair_quantiles(vectors),
                  **_questions(papers, vectors, previous, embedder),
                  FACETS: {**facet_values(papers), "fields": facet_counts(papers)}}
    with watch("map"):
        extras[MAP] = _map(papers, vectors, previous)
    with watch("relatives"):
        arrays.update(_relatives(index, arrays[TEXT_HASHES], previous))
        extras[RELATIVES] = relatives.settings(index.kind)
    extras[VERSIONS] = {"groups": version_groups(papers)}
    with watch("links"):  # references inside the corpus; what this build added
        arrays.update(reference_arrays(papers))
        arrays[ADDED_IN], extras[BUILDS] = history(papers, before(previous))
        arrays[ID_HASHES] = id_hashes(papers)
    return index, arrays, extras


def _map(papers: list[Paper], vectors: np.ndarray, previous: Previous | None) -> dict:
    """The corpus map: updated from the previous build's when little changed, else afresh."""
    if previous is None:
        return compute_map(papers, vectors)
    return update_map(papers, vectors, previous.text_hashes, previous.extras.get(MAP))


def _relatives(index: VectorIndex, hashes: np.ndarray, previous: Previous | None
               ) -> dict[str, np.ndarray]:
    """The close pairs (features/relatives/stage.py), updated from the previous build's when it
    has them."""
    if previous is None:
        return relatives.to_arrays(relatives.compute_relatives(index, hashes))
    stored, found_with = relatives.from_arrays(previous.arrays, previous.extras,
                                               len(previous.text_hashes))
    return relatives.to_arrays(relatives.update_relatives(index, hashes, previous.text_hashes,
                                                          stored, found_with))


def _questions(papers: list[Paper], vectors: np.ndarray, previous: Previous | None,
               embedder: LazyEmbedder) -> dict[str, list[float]]:
    """calibration.question_references (QUESTION_QUANTILES, ABSENT_BEST), or the previous
    build's when an update may keep them (so an update that embeds nothing still never loads
    the model)."""
    if previous is not None and previous.extras.get(ABSENT_BEST):
        kept = kept_question_quantiles(previous.extras.get(QUESTION_QUANTILES),
                                       len(previous.text_hashes), len(papers), embedder.loaded)
        if kept is not None:
            return {QUESTION_QUANTILES: kept, ABSENT_BEST: list(previous.extras[ABSENT_BEST])}
    return question_references(papers, vectors, embedder.embed_questions, embedder.spec.model_id)
