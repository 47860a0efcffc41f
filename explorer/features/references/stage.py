"""References inside the corpus, resolved at build time (corpus/citations.py) and stored as the
array REFERENCE_ROWS: (k, 2) int32 rows (citing, cited), sorted by the citing row.

Every build resolves the whole corpus's references again, and that is the incremental update:
it is linear in the references (dictionary lookups, nothing embedded), and it has to be whole,
because an old paper's reference to a work outside the corpus resolves once that work is
added (an update that adds papers gives old papers both cited-by and references).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.artifacts.layout import REFERENCE_ROWS
from explorer.corpus.citations import resolve
from explorer.corpus.papers import Paper


def reference_arrays(papers: Sequence[Paper]) -> dict[str, np.ndarray]:
    """{REFERENCE_ROWS: (k, 2) int32}; stored even when empty (k = 0): every index of format 2
    has it (layout.EVERY_BUILD)."""
    return {REFERENCE_ROWS: resolve(papers)}
