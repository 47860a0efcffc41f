"""The author and title table a build stores (ranking/author_arrays.py): read back, it answers
every name, title and suggestion exactly as the table made from the papers does (also when every
key's hash collides); the first question of a fresh index does not read the papers' authors; an
index without the arrays (or of another version) makes the table from the papers, as before."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from explorer import Explorer
from explorer.artifacts.paper_list import PaperList
from explorer.corpus.papers import Paper
from explorer.ranking import author_arrays
from explorer.ranking.author_arrays import ARRAYS, VERSIONS, Lazy, StoredTable, to_arrays
from explorer.ranking.authors import AuthorTable
from tests.venue_fixtures import venue_index  # noqa: F401


def _asked(papers) -> list[str]:
    """Every author as written, its family name alone, 'S. Family', 'Family, Given', each
    title as written and shouted, and words that name nobody."""
    asked: list[str] = ["", "a", "Levine", "S. Levine", "Introduction", "x" * 500]
    for paper in papers:
        asked.append(paper.title)
        asked.append(paper.title.upper() + " ")
        for author in paper.authors:
            words = author.split()
            asked.append(author)
            if len(words) >= 2:
                asked += [words[-1], f"{words[0][0]}. {words[-1]}", f"{words[-1]}, {words[0]}"]
    return asked


def _same_answers(stored: StoredTable, built: AuthorTable, asked: list[str]) -> None:
    for text in asked:
        assert stored.named(text) == built.named(text), text
        assert stored.entries(text) == built.entries(text), text
    for start in range(0, len(asked), 7):
        names = asked[start:start + 7]
        assert stored.rows(names).tolist() == built.rows(names).tolist(), names
    assert stored.suggestions(10**6) == built.suggestions(10**6)


def test_the_stored_table_answers_as_the_table_made_from_the_papers(venue_index: Path):  # noqa: F811
    explorer = Explorer.open(venue_index)
    arrays = explorer.artifacts.arrays
    assert all(role in arrays for role in ARRAYS)  # the build stored them
    papers = explorer.papers
    stored, built = StoredTable(papers, arrays), AuthorTable(list(papers))
    asked = _asked(list(papers))
    assert sum(built.named(text) is not None for text in asked) > 1000  # names and titles found
    _same_answers(stored, built, asked)


def test_every_hash_colliding_changes_no_answer(monkeypatch):
    """A 64-bit hash collision cannot change an answer: every candidate is checked."""
    papers = [Paper(f"p{i}", title, False, f"Abstract {i}.", authors=authors)
              for i, (title, authors) in enumerate([
                  ("Deep residual learning", ("Kaiming He", "Xiangyu Zhang")),
                  ("Attention is all you need", ("Ashish Vaswani", "Noam Shazeer")),
                  ("Deep residual learning", ("K. He",)),
                  ("Adam: a method for stochastic optimization", ("Diederik P. Kingma",)),
                  ("Auto-encoding variational Bayes", ("Kingma, Diederik", "Max Welling")),
              ])]
    monkeypatch.setattr(author_arrays, "key_hash", lambda key: 7)
    built = AuthorTable(papers)
    stored = StoredTable(papers, to_arrays(built))
    _same_answers(stored, built, _asked(papers) + ["Welling", "Diederik Kingma", "Zhang"])
    assert stored.named("Deep Residual Learning").rows == (0, 2)


def test_the_first_question_does_not_read_every_papers_authors(venue_index: Path,  # noqa: F811
                                                                monkeypatch):
    """Before, the first named() read all authors of the index (8.0 s at 92k papers)."""
    def refused(self):
        raise AssertionError("the author table was made from the papers")
        yield

    monkeypatch.setattr(PaperList, "authored", refused)
    explorer = Explorer.open(venue_index)
    title = explorer.papers[17].title
    named = explorer.named(title)
    assert named is not None and 17 in named.rows
    author = next(a for p in explorer.papers for a in p.authors if len(a.split()) >= 2)
    assert explorer.named(author) is not None
    assert explorer.authors(5)


def test_an_index_without_the_arrays_makes_the_table_from_the_papers():
    papers = [Paper("p0", "Deep residual learning", False, "A.", authors=("Kaiming He",))]
    arrays = to_arrays(AuthorTable(papers))
    assert isinstance(Lazy(papers, arrays).get(), StoredTable)
    assert isinstance(Lazy(papers, {}).get(), AuthorTable)
    assert isinstance(Lazy(papers).get(), AuthorTable)
    other = {**arrays, VERSIONS: np.array([author_arrays.VERSION + 1], dtype=np.int64)}
    table = Lazy(papers, other).get()
    assert isinstance(table, AuthorTable) and table.named("Kaiming He") is not None


def test_many_threads_ask_a_fresh_stored_table_at_once(venue_index: Path):  # noqa: F811
    explorer = Explorer.open(venue_index)
    papers = list(explorer.papers)
    asked = _asked(papers[:300])
    built = AuthorTable(papers)
    expected = [built.named(text) for text in asked]
    stored = StoredTable(explorer.papers, explorer.artifacts.arrays)
    start, results, errors = threading.Barrier(8), {}, []

    def ask(number: int) -> None:
        start.wait()
        try:
            results[number] = [stored.named(text) for text in asked[number::3] + asked]
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for number, answers in results.items():
        assert answers[-len(asked):] == expected, number


@pytest.mark.parametrize("count", [0, 1])
def test_an_empty_or_single_table_round_trips(count: int):
    papers = [Paper(f"p{i}", "Introduction", False, "A.", authors=()) for i in range(count)]
    built = AuthorTable(papers)
    stored = StoredTable(papers, to_arrays(built))
    assert stored.suggestions(10) == [] and stored.named("Anyone Else") is None
    assert stored.named("Introduction") == built.named("Introduction")
    assert stored.rows(["Anyone Else"]).tolist() == []
