"""A paper's neighbourhood, in the spirit of Connected Papers: the paper, its nearest papers, and
the strongest links among them, laid out so that clusters show.

The links are cosines of the stored vectors (each paper keeps its `LINKS_PER_PAPER` strongest);
where the corpus records what a paper cites (`Paper.references`, resolved to the corpus's
papers by features/references/query.py: a .bib's citation key or DOI, an OpenAlex W id, ...),
`citation_links` adds those between the graph's papers as links of their own kind, in place of
the similarity link of the same pair. The
layout is force-directed (Fruchterman-Reingold over the links, weighted by cosine), started
from the vectors' two main directions, so it is the same at every call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.features.references.query import links as citation_table
from explorer.query.engine import Explorer

NEIGHBOURS = 24  # nearest papers drawn around the open one
MAX_NEIGHBOURS = 60
LINKS_PER_PAPER = 3
ITERATIONS = 300
SIMILAR, CITES = "similar", "cites"


@dataclass(frozen=True)
class Link:
    """Two nodes (positions in Neighbourhood.paper_ids) and how they are tied: `kind` SIMILAR
    (`weight` the cosine of their vectors) or CITES (`source` cites `target`)."""

    source: int
    target: int
    weight: float
    kind: str = SIMILAR


@dataclass(frozen=True)
class Neighbourhood:
    """The graph of one paper: node 0 is the paper, then its nearest papers in rank order.
    `positions` (n, 2) within [-1, 1]; `centrality` (n,) in [0, 1]: each node's summed link
    weight over the largest node's."""

    paper_ids: tuple[str, ...]
    links: tuple[Link, ...]
    positions: np.ndarray
    centrality: np.ndarray


def neighbourhood(explorer: Explorer, paper_id: str, size: int = NEIGHBOURS) -> Neighbourhood:
    """The paper `paper_id`, its `size` nearest papers (dense cosine, the whole corpus) and
    their links."""
    if not 1 <= size <= MAX_NEIGHBOURS:
        raise ValueError(f"size must be 1..{MAX_NEIGHBOURS}, not {size}")
    hits = explorer.similar(paper_id, size, mode="dense")
    paper_ids = (explorer.paper(paper_id).paper_id, *(hit.paper_id for hit in hits))
    vectors = np.asarray(explorer.vectors[[explorer.row(p) for p in paper_ids]], dtype=np.float64)
    cosines = vectors @ vectors.T
    cites = citation_links(explorer, paper_ids)
    cited = {frozenset((link.source, link.target)) for link in cites}
    links = [link for link in strongest_links(cosines)
             if frozenset((link.source, link.target)) not in cited] + cites
    return Neighbourhood(paper_ids, tuple(links), force_layout(vectors, links),
                         centrality(len(paper_ids), links))


def strongest_links(cosines: np.ndarray, per_node: int = LINKS_PER_PAPER) -> list[Link]:
    """Each node's `per_node` most similar others (cosines (n, n)), each pair once."""
    count = len(cosines)
    masked = cosines - np.eye(count) * 4.0
    pairs = set()
    for node in range(count):
        for other in np.argsort(-masked[node], kind="stable")[:per_node]:
            pairs.add((min(node, int(other)), max(node, int(other))))
    return [Link(a, b, float(cosines[a, b])) for a, b in sorted(pairs)]


def citation_links(explorer: Explorer, paper_ids: Sequence[str]) -> list[Link]:
    """A CITES link wherever one of `paper_ids` cites another (the corpus's resolved
    citations: a reference names a paper by any id it carries, not only its paper id; none in
    a corpus without references)."""
    table = citation_table(explorer)
    place = {explorer.row(paper_id): number for number, paper_id in enumerate(paper_ids)}
    found = []
    for row, number in place.items():
        for cited in table.references(row):
            target = place.get(int(cited))
            if target is not None and target != number:
                found.append(Link(number, target, 1.0, CITES))
    return sorted(found, key=lambda link: (link.source, link.target))


def centrality(count: int, links: Sequence[Link]) -> np.ndarray:
    """Each node's summed link weight (n,), over the largest (weighted degree)."""
    degree = np.zeros(count)
    for link in links:
        degree[link.source] += link.weight
        degree[link.target] += link.weight
    return degree / degree.max() if degree.max() > 0 else degree


def force_layout(vectors: np.ndarray, links: Sequence[Link], iterations: int = ITERATIONS
                 ) -> np.ndarray:
    """Positions (n, 2) within [-1, 1]: Fruchterman-Reingold (every pair repels, links
    attract by their weight), started from the vectors' (n, d) first two principal axes."""
    count = len(vectors)
    position = _start(vectors)
    weight = np.zeros((count, count))
    for link in links:
        weight[link.source, link.target] = weight[link.target, link.source] = max(
            weight[link.source, link.target], link.weight)
    ideal = 1.0 / np.sqrt(count)
    for step in range(iterations):
        delta = position[:, None, :] - position[None, :, :]
        distance = np.maximum(np.linalg.norm(delta, axis=2), 1e-3)
        force = ideal ** 2 / distance - weight * distance ** 2 / ideal
        np.fill_diagonal(force, 0.0)
        move = (delta / distance[:, :, None] * force[:, :, None]).sum(axis=1)
        length = np.maximum(np.linalg.norm(move, axis=1, keepdims=True), 1e-9)
        temperature = 0.1 * (1 - step / iterations) + 1e-3
        position += move / length * np.minimum(length, temperature)
    return _fit(position)


def _start(vectors: np.ndarray) -> np.ndarray:
    centred = vectors - vectors.mean(axis=0)
    if len(vectors) < 3:
        return np.column_stack([np.arange(len(vectors)), np.zeros(len(vectors))]).astype(float)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    return _fit(centred @ axes[:2].T)


def _fit(position: np.ndarray) -> np.ndarray:
    """`position` (n, 2) moved and scaled into [-1, 1] (both axes by one factor)."""
    centred = position - (position.max(axis=0) + position.min(axis=0)) / 2
    return centred / max(float(np.abs(centred).max()), 1e-9)
