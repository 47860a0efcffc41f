"""An uploaded reference list is read in a process of its own (corpus/apart.py): the same
entries as reading it in place, the reader's own messages, a time limit, and nothing parsed in
the server's process (issue 29: a 5 MiB .bib read in place held the others' p99 at 5.4x)."""

from __future__ import annotations

import pytest

from explorer.corpus import bibliography
from explorer.corpus.apart import read_references_apart
from explorer.corpus.references import read_references
from explorer.errors import CorpusError
from explorer.features.drafts import ui as drafts
from explorer.query.engine import Explorer

LIMIT = 5 << 20


def _bib(explorer: Explorer, count: int) -> bytes:
    entries = []
    for number, paper in enumerate(explorer.papers[:count]):
        title, abstract = (text.replace("{", "(").replace("}", ")")
                           for text in (paper.title, paper.abstract))
        entries.append(f"@inproceedings{{key{number},\n  title = {{{title}}},\n"
                       f"  abstract = {{{abstract}}},\n"
                       f"  author = {{Doe, Jane and M\\\"uller, J{{\\\"o}}rg}},\n"
                       f"  year = {{2025}},\n}}\n")
    return ("".join(entries) + "@article{broken,\n  title = {no end\n").encode()


def test_the_same_entries_as_reading_in_place(seeds_explorer: Explorer) -> None:
    data = _bib(seeds_explorer, 12)
    apart, here = read_references_apart(data, "refs.bib", LIMIT), read_references(
        data, "refs.bib", LIMIT)
    assert apart == here
    assert len(apart.entries) == 12 and apart.unparsed
    assert apart.entries[0].authors == ("Jane Doe", "Jörg Müller")


@pytest.mark.parametrize(("data", "name", "words"), [
    (b"", "refs.bib", "no references found"),
    (b"\x00\x01binary\xff" * 10, "refs.bib", "binary"),
    (b"[1, 2", "refs.json", "JSON"),
    (b"x" * (LIMIT + 1), "refs.bib", "allowed"),
])
def test_the_readers_own_messages_come_back(data: bytes, name: str, words: str) -> None:
    with pytest.raises(CorpusError) as apart:
        read_references_apart(data, name, LIMIT)
    with pytest.raises(CorpusError) as here:
        read_references(data, name, LIMIT)
    assert str(apart.value) == str(here.value)
    assert words in str(apart.value)


def test_a_read_past_its_time_is_stopped_with_a_message() -> None:
    with pytest.raises(CorpusError, match="took longer than 0.001 s and was stopped"):
        read_references_apart(b"@article{a, title={A}}", "refs.bib", LIMIT, seconds=0.001)


def test_a_read_past_its_cpu_time_is_stopped_with_a_message(seeds_explorer: Explorer) -> None:
    data = _bib(seeds_explorer, 71) * 160  # about 17 MiB: several seconds of CPU on any CPU
    with pytest.raises(CorpusError, match="took longer than 1 s of CPU and was stopped"):
        read_references_apart(data, "refs.bib", 4 * LIMIT, cpu_seconds=1)


def test_an_upload_is_not_parsed_in_the_servers_process(
        seeds_explorer: Explorer, monkeypatch: pytest.MonkeyPatch) -> None:
    def in_this_process(*args, **kwargs):
        raise AssertionError("a reference list was parsed in the server's process")

    monkeypatch.setattr(bibliography, "read_bibtex", in_this_process)
    monkeypatch.setattr("explorer.corpus.references.read_bibtex", in_this_process)
    cited = drafts.uploaded_cited(seeds_explorer, "refs.bib", _bib(seeds_explorer, 5))
    assert cited.entries == 5
    assert len(cited.paper_ids) == 5  # each entry is its corpus paper (by its abstract)
