"""Small OpenAlex and Semantic Scholar files that cite each other, written in each service's
documented format (OpenAlex's Work object: an API results page, the shape pyalex's
`Works().get()` returns; Semantic Scholar's Graph API paper objects, JSON lines), with the
seeds' real abstracts, for the references and What's new tests."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from explorer.corpus.papers import Paper, read_corpus
from tests.conftest import SEEDS

OPENALEX = "https://openalex.org/"
# An abstract no seed paper is near (bread, not machine learning): the "weak" new paper.
BREAD = ("Sourdough bread rises because wild yeasts and lactic acid bacteria ferment the flour. "
         "We compare rye and wheat starters fed twice a day at room temperature, measuring the "
         "loaf volume, crumb structure and sourness after baking in a cast iron pot, and give "
         "bakers a feeding schedule that keeps a starter active through a cold kitchen winter.")


@cache
def seed_papers() -> tuple[Paper, ...]:
    """The seeds' papers (read, not embedded): real abstracts to write into service records."""
    return tuple(read_corpus([SEEDS]).papers)


def inverted(text: str) -> dict[str, list[int]]:
    """An abstract as OpenAlex stores it: {word: [positions]}."""
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split()):
        index.setdefault(word, []).append(position)
    return index


def work(number: int, cites: list[int], seed: int | None = None, abstract: str | None = None,
         title: str | None = None) -> dict:
    """An OpenAlex work W`number` citing the works `cites` (a seed paper's title and abstract)."""
    paper = seed_papers()[seed if seed is not None else number % len(seed_papers())]
    return {
        "id": f"{OPENALEX}W{number}", "doi": f"https://doi.org/10.5555/work.{number}",
        "title": title or paper.title, "display_name": title or paper.title,
        "publication_year": 2020 + number % 5, "type": "article",
        "ids": {"openalex": f"{OPENALEX}W{number}", "doi": f"https://doi.org/10.5555/work.{number}"},
        "primary_location": {"source": {"display_name": "Journal of Tests", "type": "journal"}},
        "authorships": [{"author_position": "first",
                         "author": {"id": f"{OPENALEX}A{number}", "display_name": f"Ada Test{number}"}}],
        "abstract_inverted_index": inverted(abstract or paper.abstract),
        "referenced_works": [f"{OPENALEX}W{cited}" for cited in cites],
        "cited_by_count": 0,
    }


def s2_paper(paper_id: str, seed: int, references: list[str], doi: str | None = None) -> dict:
    """A Graph API paper object (fields=paperId,externalIds,title,abstract,year,references)."""
    paper = seed_papers()[seed]
    ids = {"CorpusId": int(hashlib.sha256(paper_id.encode()).hexdigest()[:7], 16),
           **({"DOI": doi} if doi else {})}
    return {"paperId": paper_id, "externalIds": ids, "title": paper.title,
            "abstract": paper.abstract, "year": 2024, "venue": "",
            "authors": [{"authorId": "1", "name": "Grace Test"}],
            "references": [{"paperId": ref, "title": "?"} for ref in references]}


def write_page(path: Path, works: list[dict]) -> Path:
    """An OpenAlex API results page (`meta`, `results`), as saved with json.dump."""
    path.write_text(json.dumps({"meta": {"count": len(works), "page": 1, "per_page": 25},
                                "results": works, "group_by": []}), encoding="utf-8")
    return path


def write_lines(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
