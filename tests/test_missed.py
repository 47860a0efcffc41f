"""What did I miss (explorer/features/drafts/missed.py) against the real seeds index and model: related
seed papers a reference list lacks come back, cited ones (and their duplicates) never do, each
passage finds its own related work, many threads get what one gets, bad input gets clear
errors. The CLI verbs: test_missed_cli.py; the app page: test_missed_app.py."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from explorer.corpus.references import read_references
from explorer.errors import DraftError, UnknownPaperError
from explorer.features.drafts.cited import cited_from_references, folded_abstract
from explorer.features.drafts.missed import MissedOptions, missed
from explorer.features.drafts.passages import MAX_DRAFT_BYTES, MAX_PASSAGES, check_draft, read_draft
from explorer.features.exports.ui_bibtex import to_bibtex
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.paraphrases import PARAPHRASES, RELATED_PAIRS

FAST = MissedOptions(explain=False)
DATA = Path(__file__).resolve().parent / "data"


def seed(explorer: Explorer, phrase: str):
    (paper,) = [p for p in explorer.papers if phrase in p.abstract]
    return paper


def bib_of(papers) -> bytes:
    """A .bib of `papers` as the app exports it (escaped TeX), as a reader would keep it."""
    return to_bibtex(papers, abstract=True).encode("utf-8")


def test_a_related_seed_paper_the_bib_lacks_comes_back_and_cited_ones_never(seeds_explorer):
    """Draft: paper A's abstract; .bib: A and its three nearest papers other than B (a paper a
    reader relates to A). B is among the first five missed papers for most pairs (similar
    finds 48 of these 60 partners in its top 5); no cited paper ever comes back."""
    found, directions = 0, 0
    for first, second, _ in RELATED_PAIRS:
        for a, b in ((first, second), (second, first)):
            paper, partner = seed(seeds_explorer, a), seed(seeds_explorer, b)
            near = [h.paper for h in seeds_explorer.similar(paper.paper_id, 5)
                    if h.paper_id != partner.paper_id][:3]
            cited = cited_from_references(seeds_explorer, read_references(
                bib_of([paper, *near]), "mine.bib"))
            assert set(cited.paper_ids) == {p.paper_id for p in (paper, *near)}
            result = missed(seeds_explorer, paper.abstract, cited.paper_ids, 5, options=FAST)
            shown = {p.paper_id for p in result.papers} | {
                p.paper_id for _, papers in result.by_passage for p in papers}
            assert not shown & set(cited.paper_ids), (a, b)
            found += partner.paper_id in {p.paper_id for p in result.papers}
            directions += 1
    assert directions == 2 * len(RELATED_PAIRS) and found >= 0.7 * directions, found


def test_each_passage_finds_its_own_related_work_with_the_sentences_that_tie_them(
        seeds_explorer):
    (q1, m1), (q2, m2) = PARAPHRASES[0], PARAPHRASES[5]
    draft = f"{q1}. We build on this line of work.\n\n{q2} [4, 7]. Our method is faster."
    one, two = seed(seeds_explorer, m1), seed(seeds_explorer, m2)
    result = missed(seeds_explorer, draft, (), 3)
    (first, top1), (second, top2) = result.by_passage
    assert one.paper_id == top1[0].paper_id and two.paper_id == top2[0].paper_id
    assert first.text.startswith(q1[:30]) and second.text.startswith(q2[:30])
    groups = {passage.number: [p.paper_id for p in papers] for passage, papers in result.groups()}
    assert one.paper_id in groups[1] and two.paper_id in groups[2]
    for paper in result.papers:
        passage = result.split.passages[paper.passage - 1]
        tie = paper.tie
        assert passage.start <= tie.draft.start < tie.draft.end <= passage.end
        assert draft[tie.draft.start:tie.draft.end] == tie.draft.text
        abstract = paper.hit.paper.abstract
        assert abstract[tie.paper.start:tie.paper.end] == tie.paper.text
        assert paper.closest is None  # nothing cited
    assert "No cited papers" in result.notes[0]
    cited = missed(seeds_explorer, draft, [one.paper_id], 3)
    assert one.paper_id not in {p.paper_id for p in cited.papers}
    assert all(p.closest.paper_id == one.paper_id for p in cited.papers)
    assert cited.by_passage[1][1][0].paper_id == two.paper_id


@pytest.fixture(scope="module")
def duplicates_index(tmp_path_factory) -> Path:
    """An index where one paper has a merged duplicate (an alias) and a second record (its
    preprint: another abstract, the same DOI in its URL) that the corpus does not merge."""
    folder = tmp_path_factory.mktemp("duplicates")
    base = ("Spiking neural networks compute with discrete spikes. We prove that dendritic "
            "neurons with leaky integration preserve correlations between spike trains.")
    records = [
        {"id": "10.5555/dlif.1", "title": "Dendritic spiking neurons", "abstract": base},
        {"id": "copy-of-dlif", "title": "Dendritic spiking neurons", "abstract": base},
        {"id": "preprint-dlif", "title": "Dendritic spiking neurons (preprint)",
         "url": "https://doi.org/10.5555/dlif.1",
         "abstract": base.replace("We prove", "This preprint shows")},
        {"id": "spikformer", "abstract": "A spiking transformer prunes tokens over time so "
         "that spiking neural networks process long inputs with less energy."},
        {"id": "rain", "abstract": "We forecast regional rainfall from satellite images with "
         "convolutional recurrent networks."},
        {"id": "robots", "abstract": "Legged robots learn to walk on rough terrain with "
         "reinforcement learning in simulation."},
    ]
    corpus = folder / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    build([corpus], folder / "index", "default")
    return folder / "index"


def test_merged_duplicates_and_other_records_of_a_cited_paper_never_come_back(duplicates_index):
    explorer = Explorer.open(duplicates_index)
    assert explorer.paper("copy-of-dlif").paper_id == "10.5555/dlif.1"  # merged: an alias
    plain = missed(explorer, "Dendritic spiking neurons preserve spike correlations.", (), 3,
                   options=FAST)
    assert {"10.5555/dlif.1", "preprint-dlif"} <= {p.paper_id for p in plain.papers}
    cited = missed(explorer, "Dendritic spiking neurons preserve spike correlations.",
                   ["copy-of-dlif"], 3, options=FAST)
    assert cited.cited == ("10.5555/dlif.1",)
    ids = [p.paper_id for p in cited.papers]
    assert "10.5555/dlif.1" not in ids and "preprint-dlif" not in ids and ids[0] == "spikformer"
    with pytest.raises(UnknownPaperError):
        missed(explorer, "spikes", ["never-indexed"], options=FAST)


def test_many_threads_get_what_one_thread_gets(seeds_explorer):
    drafts = [f"{PARAPHRASES[i][0]}.\n\n{PARAPHRASES[i + 1][0]}." for i in range(0, 8, 2)]
    cited = [[seed(seeds_explorer, PARAPHRASES[i][1]).paper_id] for i in range(0, 8, 2)]
    serial = [missed(seeds_explorer, d, c, 5).to_dict() for d, c in zip(drafts, cited)]
    results: dict[int, dict] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(number: int) -> None:
        try:
            start.wait()
            results[number] = missed(seeds_explorer, drafts[number % 4], cited[number % 4],
                                     5).to_dict()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert all(results[n] == serial[n % 4] for n in range(8))


@pytest.mark.parametrize(("draft", "says"), [
    ("", "is empty"), ("   \n\t\n", "is empty"), ("[1] [2, 3] 42", "has no words"),
    ("text\x00with a NUL", "binary file"),
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3 binary", "is a PDF file"),
    (b"PK\x03\x04\x14\x00 a docx", "Word"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8 text"),
    ("word " * (MAX_DRAFT_BYTES // 5 + 1), "more than the 2,000,000"),
])
def test_bad_drafts_get_errors_that_name_the_fix(draft, says):
    with pytest.raises(DraftError, match=says) as caught:
        read_draft(draft, "my draft")
    assert "my draft" in str(caught.value)
    assert any(fix in str(caught.value) for fix in ("Paste", "Give", "Save", "save", "text"))


def test_a_huge_draft_is_checked_in_bounded_passages_and_says_so(seeds_explorer):
    paragraphs = [question for question, _ in PARAPHRASES]
    draft = "\n\n".join(paragraphs * 20)[:100_000]
    assert len(check_draft(draft)) == 100_000
    result = missed(seeds_explorer, draft, (), 5, options=FAST)
    assert len(result.split.passages) == MAX_PASSAGES and result.split.more
    assert f"first {MAX_PASSAGES} passages" in result.notes[0] and "Check the rest" in result.notes[0]
    assert len(result.papers) == 5
    blob = "a " * 49_000 + "b" * 2_000  # no sentences, no paragraphs, one 2,000-letter word
    one = missed(seeds_explorer, blob, (), 3, options=MissedOptions(split="whole", explain=False))
    assert len(one.split.passages) == 1 and one.split.more and len(one.papers) == 3


def test_a_broken_bib_gives_its_good_entries_and_names_the_lines(seeds_explorer):
    cited = cited_from_references(seeds_explorer, read_references(
        (DATA / "broken.bib").read_bytes(), "broken.bib"))
    assert cited.paper_ids == () and cited.entries == 3 and len(cited.missing) == 3
    assert cited.unparsed == ("broken.bib:9", "broken.bib:20", "broken.bib:28")
    assert "0 of 3 entries are in this index; 3 are not; 3 did not parse (broken.bib:9" in (
        cited.summary())
    zotero = cited_from_references(seeds_explorer, read_references(
        (DATA / "zotero.bib").read_bytes(), "zotero.bib"))
    assert len(zotero.paper_ids) == 2 and len(zotero.missing) == 3


def test_the_apps_own_bibtex_export_reads_back_exactly_and_is_cited(seeds_explorer):
    """Every seed exported as BibTeX (TeX escaped, ligatures broken) reads back as written,
    `--`, ``quotes'', \\emph{...} and $x^2$ included, and is recognised as its seed."""
    references = read_references(bib_of(seeds_explorer.papers), "export.bib")
    assert [p.abstract for p in references.entries] == [p.abstract for p in seeds_explorer.papers]
    cited = cited_from_references(seeds_explorer, references)
    assert cited.paper_ids == tuple(p.paper_id for p in seeds_explorer.papers) and not cited.missing


def test_an_abstract_another_tool_typeset_is_still_cited(seeds_explorer):
    """A .bib from a tool that writes TeX as TeX (-- for a dash, ``quotes'', \\emph kept as a
    command) changes the abstracts read back; the folded abstract still finds each seed."""
    papers = [p for p in seeds_explorer.papers if "--" in p.abstract or "``" in p.abstract
              or "\\emph{" in p.abstract]
    assert len(papers) >= 3
    entries = "".join(f"@misc{{k{i},\n  abstract = {{{p.abstract.replace('%', '')}}}\n}}\n"
                      for i, p in enumerate(papers))
    references = read_references(entries, "other.bib")
    assert all(a.abstract != b.abstract for a, b in zip(references.entries, papers))
    cited = cited_from_references(seeds_explorer, references)
    assert cited.paper_ids == tuple(p.paper_id for p in papers) and not cited.missing
    assert folded_abstract("too short to name a paper") == ""
