"""What an index folder holds, by name: its files, their roles, and the named arrays.

The one place these names are written down; the store, the build and the readers of the arrays
(explanations, the app) ask here. The BM25 channel names its own arrays (index/lexical.py sits
below this step and serialises itself); LEXICAL_PREFIX only points to them.
"""

from __future__ import annotations

from collections.abc import Iterable

from explorer.index.lexical import ARRAY_PREFIX
from explorer.ranking.author_arrays import ARRAYS as AUTHOR_ARRAYS
from explorer.ranking.calibration import PAIR_QUANTILES, QUESTION_QUANTILES  # noqa: F401

MANIFEST = "manifest.json"  # replaced last, in one rename, by every build
WRITTEN = ".written.json"  # names this index's builds wrote (or were about to write)
# Roles of the files a manifest names: three every index has, then one per named array.
PAPERS, INDEX, EXTRAS = "papers", "index", "extras"
REQUIRED = (PAPERS, INDEX, EXTRAS)
SENTENCE_TABLE = "sentence_table"  # (m, 3) int32: paper row, start, end of each sentence
SENTENCE_VECTORS = "sentence_vectors"  # (m, d) float16, in table order
PAPER_OFFSETS = "paper_offsets"  # (n + 1,) int64: where each line of the papers file starts
TEXT_HASHES = "text_hashes"  # (n, 32) uint8: the SHA-256 of each paper's embedded text
# Close relatives (features/relatives/stage.py): pairs of rows (k, 2) int32 and their cosines
# (k,) float32, best first; the extras key RELATIVES records how they were found (floor, neighbours).
RELATIVE_ROWS, RELATIVE_SCORES, RELATIVES = "relative_rows", "relative_scores", "relatives"
# References inside the corpus (features/references/stage.py): (k, 2) int32 rows (citing, cited).
REFERENCE_ROWS = "reference_rows"
# What each build added (features/new/stage.py): (n,) int32, each row's place in the extras key
# BUILDS (the earlier builds, oldest first; the place len(BUILDS) is the build itself).
# ID_HASHES (n,) uint64: the first 8 bytes of the SHA-256 of each paper's id (matched by id
# without reading the papers file).
ADDED_IN, BUILDS, ID_HASHES = "added_in", "builds", "id_hashes"
LEXICAL_PREFIX = ARRAY_PREFIX  # lexical_*: the BM25 score matrix, term counts, vocabulary
# Keys of the extras file (JSON): percentiles of random cosines, of paper pairs and of title-like
# questions with other papers (PAIR_QUANTILES, QUESTION_QUANTILES: named by ranking/calibration.py,
# below this step, which computes and reads them), and the map.
MAP = "map"
# The filter values present in the corpus (corpus.papers.facet_values: venues, source files,
# years), so that the app's sidebar does not parse every paper record.
FACETS = "facets"
# The versions of one work (corpus/versions.py: {"groups": [[row, ...], ...]}; read by
# features/versions/works.py).
VERSIONS = "versions"
# Arrays that every build of format 2 writes (besides BM25's, index/lexical.LEXICAL_ROLES): a
# manifest without one is refused (manifest.py), so their readers need no fallback.
EVERY_BUILD = (TEXT_HASHES, RELATIVE_ROWS, RELATIVE_SCORES, REFERENCE_ROWS, ADDED_IN, ID_HASHES)
# Read (and checksummed) on first use, not at open: only explanations need the sentence vectors,
# and at 106k papers they are 475 MB, +0.7 s on every cold start. The author and title table
# (authors_*: ranking/author_arrays.py) is read when a question or a filter first needs it.
ON_DEMAND = (SENTENCE_TABLE, SENTENCE_VECTORS, *AUTHOR_ARRAYS)


def file_names(build_id: str, arrays: Iterable[str]) -> dict[str, str]:
    """role -> the name a build writes that file under (new names for every build)."""
    names = {PAPERS: f"papers-{build_id}.jsonl", INDEX: f"index-{build_id}.faiss",
             EXTRAS: f"extras-{build_id}.json"}
    names.update({role: f"array-{role}-{build_id}.npy" for role in arrays})
    return names
