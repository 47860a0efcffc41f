"""Which papers of a corpus cite which: each paper's `references` (the ids of the works it cites,
as its source names them) resolved to the corpus's own papers.

A reference resolves when it names a paper of the corpus by any id that paper carries: its
paper id or an alias (a corpus whose records list each other's ids), its OpenAlex W id or
Semantic Scholar paperId (`external_ids` "openalex", "s2"), its DOI or arXiv id (compared
normalised: 'https://doi.org/10.1/ABC' is '10.1/abc'). Bare numbers (corpus ids, MAG ids,
PubMed ids) name a paper only as its own paper id: one scheme's number is another's too.
References to works outside the corpus are left out; a paper never cites itself.

Used at build time (features/references/stage.py stores the pairs) and, for an index built
before they were stored, on first use at query time (features/references/query.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from explorer.corpus.identity import arxiv_id, normalise_doi
from explorer.corpus.papers import Paper

OPENALEX = "https://openalex.org/"
NAMING = ("openalex", "s2")  # external id schemes whose values name one work unambiguously


def paper_keys(paper: Paper) -> set[str]:
    """Every key a reference may name `paper` by (see the module's note)."""
    # its id and aliases as a reference would name them (a reference list's DOI or arXiv id as id)
    keys = {key for name in (paper.paper_id, *paper.aliases) for key in reference_keys(name)}
    for scheme, value in paper.external_ids:
        if scheme in NAMING:
            keys.add(value)
        elif scheme == "doi" and (doi := normalise_doi(value)):
            keys.add("doi:" + doi)
        elif scheme == "arxiv" and (found := arxiv_id(value)):
            keys.add("arxiv:" + found)
    return keys


def reference_keys(reference: str) -> list[str]:
    """The keys one reference text is looked up under, most literal first."""
    text = reference.strip()
    keys = [text]
    if text.startswith(OPENALEX):
        keys.append(text[len(OPENALEX):])
    doi_like = text.startswith("10.") or "doi.org/10." in text  # no arXiv id starts "10."
    if (not doi_like or "arxiv" in text.lower()) and (found := arxiv_id(text)):
        keys.append("arxiv:" + found)  # before the DOI: an arXiv DOI names the preprint
    elif doi := normalise_doi(text):
        keys.append("doi:" + doi)
    return keys


def key_table(papers: Iterable[Paper]) -> dict[str, int]:
    """key -> row of the paper it names (the first paper, when two carry one key)."""
    table: dict[str, int] = {}
    for row, paper in enumerate(papers):
        for key in paper_keys(paper):
            table.setdefault(key, row)
    return table


def resolve(papers: Sequence[Paper]) -> np.ndarray:
    """(k, 2) int32 rows (citing, cited) of every reference between papers of `papers`, sorted,
    each pair once, no paper citing itself. Linear in the number of references: a reference
    is normalised only when its literal text names no paper and could be a DOI or an arXiv id,
    and each such text once (most references, to works outside the corpus, repeat)."""
    table = key_table(papers)
    normalised: dict[str, int | None] = {}
    pairs: set[tuple[int, int]] = set()
    for row, paper in enumerate(papers):
        for reference in paper.references:
            cited = _cited(reference.strip(), table, normalised)
            if cited is not None and cited != row:
                pairs.add((row, cited))
    if not pairs:
        return np.zeros((0, 2), dtype=np.int32)
    return np.array(sorted(pairs), dtype=np.int32)


def _cited(text: str, table: dict[str, int], normalised: dict[str, int | None]) -> int | None:
    """The row `text` names (reference_keys' order), through the cache `normalised`."""
    found = table.get(text)
    if found is not None:
        return found
    if text.startswith(OPENALEX):
        return table.get(text[len(OPENALEX):])
    if "." not in text and "/" not in text:  # a W id, a paperId, a corpus's own id: no DOI
        return None
    if text not in normalised:
        normalised[text] = next((table[key] for key in reference_keys(text)[1:] if key in table),
                                None)
    return normalised[text]
