"""Identity across sources: the same paper from a reference list and from the corpus, by DOI,
arXiv id, abstract or (near) title; near misses kept apart; importing a list against an index."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from explorer.corpus.identity import arxiv_id, family_name, normalise_doi
from explorer.corpus.merging import ID_TAKEN
from explorer.corpus.papers import read_corpus, stable_id
from explorer.corpus.references import Matcher, match_entries, read_references
from explorer.query.engine import Explorer
from tests.conftest import SEEDS
from tests.test_cli import explorer_command

DATA = Path(__file__).resolve().parent / "data"
SEED_SSM, SEED_GELATO = "74c6b0a05165", "cab9be834494"  # the seeds' ids of two .bib papers


@pytest.mark.parametrize(("text", "found"), [
    ("1706.03762", "1706.03762"), ("arXiv:1706.03762v5", "1706.03762"),
    ("https://arxiv.org/abs/2409.04567v2", "2409.04567"), ("arxiv.org/pdf/2409.04567.pdf", "2409.04567"),
    ("10.48550/arXiv.2409.04567", "2409.04567"), ("hep-th/9901001", "hep-th/9901001"),
    ("math.GT/0309136v1", "math.gt/0309136"), ("17060.3762", None), ("2409.04567 and more", None),
])
def test_arxiv_ids_are_normalised(text, found):
    assert arxiv_id(text) == found


@pytest.mark.parametrize(("text", "doi"), [
    ("10.1145/3292500.3330701", "10.1145/3292500.3330701"),
    ("https://doi.org/10.1000/ABC.def", "10.1000/abc.def"),
    ("http://dx.doi.org/10.1000/x%2Fy", "10.1000/x/y"), ("doi: 10.1000/xyz.", "10.1000/xyz"),
    ("10.1000", None), ("see 10.1000/xyz", None), ("", None),
])
def test_dois_are_normalised(text, doi):
    assert normalise_doi(text) == doi


def test_the_same_papers_from_a_bib_and_the_corpus_merge_and_the_corpus_keeps_its_ids():
    seeds = read_corpus([SEEDS]).papers
    for order in ([SEEDS, DATA / "zotero.bib"], [DATA / "zotero.bib", SEEDS]):
        report = read_corpus(order)
        assert len(report.papers) == len(seeds) + 3 and report.duplicates_merged == 5 + 2
        by_id = {p.paper_id: p for p in report.papers}
        seed_ids = [p.paper_id for p in report.papers if p.paper_id in {s.paper_id for s in seeds}]
        assert seed_ids == [p.paper_id for p in seeds]  # same ids, same order
        ssm = by_id[SEED_SSM]
        assert ssm.title.startswith("Expressivity of Complex-Valued") and not ssm.title_is_derived
        assert ssm.aliases == ("2510.01234", "muller_expressivity_2026")
        assert ssm.authors == ("Jörg Müller", "Zoë Fernández") and ssm.year == 2026
        assert dict(ssm.original)["ID"] == "muller_expressivity_2026"
        assert by_id[SEED_GELATO].aliases == ("10.5555/gelato.2026.17", "lefevre_gelato_2026")


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _bib(path: Path, entries: list[tuple[str, str, str, str]]) -> Path:
    path.write_text("".join(
        f"@article{{{key},\n title = {{{title}}},\n author = {{{author}}},\n year = {{{year}}},\n}}\n"
        for key, title, author, year in entries), encoding="utf-8")
    return path


def test_near_titles_merge_and_near_misses_do_not(tmp_path: Path):
    corpus = _jsonl(tmp_path / "corpus.jsonl", [
        {"id": "c1", "title": "Modeling Long-Range Dependencies with State Space Models",
         "abstract": "Corpus abstract one about sequence models.", "authors": ["Ada Lovelace"],
         "year": 2023},
        {"id": "c2", "title": "BERT: Pre-Training of Deep Bidirectional Transformers",
         "abstract": "Corpus abstract two about language models.", "year": 2019},
        {"id": "c3", "title": "A Theory of Supervised Machine Translation",
         "abstract": "Corpus abstract three.", "authors": ["Grace Hopper"], "year": 2022},
        {"id": "c4", "title": "Convex Optimization for Large Scale Machine Learning",
         "abstract": "Corpus abstract four.", "year": 2021},
        {"id": "c5", "title": "Scaling Laws for Neural Language Models Part 1",
         "abstract": "Corpus abstract five.", "year": 2020},
        {"id": "c6", "title": "Graph Neural Networks for Molecular Property Prediction",
         "abstract": "Corpus abstract six.", "authors": ["Marie Curie"], "year": 2020},
        {"id": "c7", "title": "Learning to Rank with Partially Labeled Data",
         "abstract": "Corpus abstract seven.", "year": 2015},
    ])
    bib = _bib(tmp_path / "refs.bib", [
        ("near", "Modelling Long-Range Dependencies with State-Space Models", "Lovelace, Ada", "2023"),
        ("case", "{BERT}: Pre-training of Deep Bidirectional {Transformers}", "Devlin, J.", "2019"),
        ("negated", "A Theory of Unsupervised Machine Translation", "Hopper, Grace", "2022"),
        ("prefixed", "Nonconvex Optimization for Large Scale Machine Learning", "Doe, J.", "2021"),
        ("numbered", "Scaling Laws for Neural Language Models Part 2", "Doe, J.", "2020"),
        ("others", "Graph Neural Networks for Molecular Property Prediction", "Smith, Sam", "2020"),
        ("later", "Learning to Rank with Partially Labelled Data", "Doe, J.", "2023"),
    ])
    report = read_corpus([corpus, bib])
    by_id = {p.paper_id: p for p in report.papers}
    assert "near" in by_id["c1"].aliases and by_id["c1"].title.startswith("Modeling")
    assert "case" in by_id["c2"].aliases and by_id["c2"].authors == ("J. Devlin",)
    for kept in ("negated", "prefixed", "numbered", "others", "later"):
        assert kept in by_id, kept  # not the same paper: a paper of its own
    assert len(report.papers) == 7 + 5 and report.duplicates_merged == 2


def test_records_of_other_formats_still_merge_only_when_exactly_equal(tmp_path: Path):
    corpus = _jsonl(tmp_path / "corpus.jsonl", [
        {"id": "a", "title": "Modeling Long-Range Dependencies with State Space Models",
         "abstract": "First text.", "doi": "10.1000/same"},
        {"id": "b", "title": "Modelling Long-Range Dependencies with State Space Models",
         "abstract": "Second text.", "doi": "10.1000/same"},
    ])
    assert [p.paper_id for p in read_corpus([corpus]).papers] == ["a", "b"]


def test_a_corpus_doi_field_matches_a_bib_entry(tmp_path: Path):
    corpus = _jsonl(tmp_path / "corpus.jsonl", [
        {"id": "s2-123", "title": "An Entirely Different Title", "abstract": "Text.",
         "doi": "10.1000/XYZ"}])
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{k, title = {Another Title Entirely}, doi = {10.1000/xyz}}\n")
    [paper] = read_corpus([bib, corpus]).papers
    assert paper.paper_id == "s2-123" and paper.aliases == ("10.1000/xyz", "k")


def test_a_citation_key_used_by_two_bib_files_gives_the_second_paper_its_text_hash(tmp_path: Path):
    second = "Robots Folding Laundry from Video"
    one = _bib(tmp_path / "one.bib", [("smith2020", "Sparse Attention for Long Documents",
                                       "Smith, A.", "2020")])
    two = _bib(tmp_path / "two.bib", [("smith2020", second, "Smith, B.", "2020")])
    report = read_corpus([one, two])
    assert [p.paper_id for p in report.papers] == ["smith2020", stable_id(second)]
    assert report.notes[ID_TAKEN] == 1


def test_a_bib_added_to_the_seeds_index_merges_into_its_papers(index_copy: Path):
    done = explorer_command(["build", str(SEEDS), str(DATA / "zotero.bib"), "--out",
                             str(index_copy)], dict(os.environ))
    assert done.returncode == 0, done.stderr
    # 2 seed papers gained a real title (their text changed) and 3 papers are new
    assert "74 papers from 81 records (7 duplicates merged" in done.stdout
    assert "embedded 5," in done.stdout
    explorer = Explorer.open(index_copy)
    assert explorer.similar("2510.01234", top_k=3) == explorer.similar(SEED_SSM, top_k=3)
    hits = explorer.search("Gelato autoregressive graph edit distance", top_k=1)
    assert hits[0].paper.paper_id == SEED_GELATO and hits[0].paper.title.startswith("Gelato:")


def test_match_entries_finds_the_corpus_papers_a_reference_list_names(seeds_explorer: Explorer):
    entries = read_references((DATA / "zotero.ris").read_bytes(), "zotero.ris").entries
    matched, missing = match_entries(entries, seeds_explorer.papers)
    assert matched == {"2510.01234": SEED_SSM, "10.5555/gelato.2026.17": SEED_GELATO}
    assert [p.title for p in missing] == [entries[i].title for i in (2, 3, 4)]


NEAR_AND_MISSES = """
@article{near, title = {Calibrated Uncertainty for Tabular Foundation Model}, year = 2024}
@article{renamed, title = {Uncalibrated Uncertainty for Tabular Foundation Models}, year = 2024}
@article{by_doi, title = {Gelato (preprint)}, doi = {10.5555/gelato.2026.17}}
@article{by_arxiv, title = {Something Else Entirely}, note = {arXiv:2510.01234}}
@article{other_year, title = {SparseKV: Memory-Efficient KV Caching for Long-Context Transformers},
  year = 2019}
"""


def test_a_matcher_is_safe_from_many_threads_and_keeps_near_misses_apart():
    papers = read_corpus([DATA / "zotero.bib"]).papers
    entries = read_references(NEAR_AND_MISSES, "mine.bib").entries
    matcher = Matcher(papers)
    # keys are the entries' ids: DOI, else arXiv id, else citation key
    expected = ({"near": "10.48550/arxiv.2409.04567", "10.5555/gelato.2026.17":
                 "10.5555/gelato.2026.17", "2510.01234": "2510.01234"}, ["renamed", "other_year"])
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: matcher.match(entries), range(64)))
    for matched, missing in results:
        assert (matched, [p.paper_id for p in missing]) == expected


def _entries(path: Path, entries: list[str]) -> Path:
    path.write_text("\n".join(entries) + "\n", encoding="utf-8")
    return path


def test_given_names_in_common_do_not_make_different_authors_one(tmp_path: Path):
    bib = _entries(tmp_path / "jeans.bib", [
        f"@article{{{key}, author = {{{author}}}, title = {{An amazing title}}, year = {{2013}},"
        f" journal = {{Nice Journal}}}}"
        for key, author in (("cesar", "Jean Cesar"), ("baltazar", "Baltazar, Jean"),
                            ("aimar", "Jean Aimar"), ("doute", "J. Doute"))])
    report = read_corpus([bib])
    assert [p.paper_id for p in report.papers] == ["cesar", "baltazar", "aimar", "doute"]
    assert report.duplicates_merged == 0


@pytest.mark.parametrize(("first", "second"), [
    ("Ada Lovelace", "Lovelace, Ada"), ("A. Lovelace", "Lovelace, A."),
    ("Joseph M. Reagle Jr.", "Reagle, Jr., Joseph"), ("P. S. Parkes-Loach", "Parkes-Loach, PS"),
    ("Jörg Müller", "Muller, J."), ("Eric von Hippel", "von Hippel, Eric"),
])
def test_one_author_written_two_ways_has_one_family_name(first, second):
    assert family_name(first) == family_name(second) != ""


def test_years_never_drift_through_a_chain_of_joined_entries(tmp_path: Path):
    """An annual column: one title, one author, a year apart each (no volume or pages). Each
    paper must hold only entries within a year of each other, not one 1988-2003 paper."""
    bib = _entries(tmp_path / "column.bib", [
        f"@article{{ed{year}, author = {{Barbara Beeton}}, title = {{Editorial comments}},"
        f" journal = {{TUGboat}}, year = {{{year}}}}}" for year in range(1988, 2004)])
    report = read_corpus([bib])
    spans = [sorted(int(s.rsplit(":", 1)[1]) for s in p.sources) for p in report.papers]
    assert len(report.papers) == 8 and all(len(lines) == 2 for lines in spans)
    assert [p.year for p in report.papers] == list(range(1988, 2004, 2))


def test_the_same_title_at_another_volume_issue_or_page_is_another_paper(tmp_path: Path):
    entries = [f"@article{{tb{n}, author = {{Barbara Beeton}}, title = {{Editorial comments}},"
               f" journal = {{TUGboat}}, volume = {{{volume}}}, number = {{{number}}},"
               f" pages = {{{pages}}}, year = {{1989}}}}"
               for n, (volume, number, pages) in enumerate(
                   [("10", "1", "6--7"), ("10", "2", "147--150"), ("10", "3", "314--316"),
                    ("10", "3", "314")])]
    report = read_corpus([_entries(tmp_path / "tugboat.bib", entries)])
    assert [p.paper_id for p in report.papers] == ["tb0", "tb1", "tb2"]  # tb3: pages as tb2
    assert report.papers[2].aliases == ("tb3",)


def test_an_entry_must_agree_with_every_entry_it_joins_and_with_the_corpus_paper(tmp_path: Path):
    title = "Sparse Attention for Very Long Documents"
    corpus = _jsonl(tmp_path / "corpus.jsonl", [
        {"id": "c1", "title": title, "abstract": "Corpus text.", "year": 2020}])
    bib = _bib(tmp_path / "refs.bib", [("early", title, "Smith, Ann", "2019"),
                                       ("late", title, "Smith, Ann", "2021")])
    by_id = {p.paper_id: p for p in read_corpus([corpus, bib]).papers}
    # each is within a year of the corpus paper, not of each other: one joins, one stays
    assert by_id["c1"].aliases == ("early",) and by_id["late"].year == 2021


def test_the_same_abstract_by_other_authors_is_not_the_same_paper(tmp_path: Path):
    abstract = ("We present a method for learning sparse attention patterns that scale to very "
                "long documents without losing accuracy.")
    corpus = _jsonl(tmp_path / "corpus.jsonl", [
        {"id": "a", "title": "One", "abstract": abstract, "authors": ["Ann Smith"]},
        {"id": "b", "title": "Two", "abstract": abstract, "authors": ["Bo Li"]}])
    bib = _entries(tmp_path / "refs.bib", [
        f"@article{{k, author = {{Li, Bo}}, title = {{Two}}, abstract = {{{abstract}}}}}"])
    report = read_corpus([corpus, bib])
    assert [p.paper_id for p in report.papers] == ["a", "b"]
    assert report.papers[1].aliases == ("k",)  # the entry is Bo Li's paper, not Ann Smith's


def test_a_doi_copied_into_another_papers_entry_does_not_join_them(tmp_path: Path):
    bib = _entries(tmp_path / "refs.bib", [
        "@article{yan, author = {Yan, Jeff and Blackwell, Alan}, title = {Password "
        "Memorability and Security: Empirical Results}, doi = {10.1109/MSP.2004.81}}",
        "@article{hippel, author = {von Hippel, Eric}, title = {Article with Complex Author "
        "Names}, doi = {10.1109/MSP.2004.81}}",
        "@article{again, author = {Jeff Yan}, title = {Password memorability and security}, "
        "doi = {https://doi.org/10.1109/msp.2004.81}}"])
    report = read_corpus([bib])
    assert [p.paper_id for p in report.papers] == ["10.1109/msp.2004.81", "hippel"]
    assert report.papers[0].aliases == ("yan", "again") and report.notes[ID_TAKEN] == 1


def test_different_entries_of_one_short_title_are_all_kept(tmp_path: Path):
    """A title too short to identify a paper, no DOI or key: the text hash names the first;
    the others are named by all they say, numbered when that is the same too."""
    ris = tmp_path / "templates.ris"
    ris.write_text("".join(f"TY  - JOUR\nTI  - Title\nAU  - {name}\nER  - \n\n"
                           for name in ("Smith, Ann", "Li, Bo", "Smith, Ann", "Smith, Ann")))
    report = read_corpus([ris])
    ids = [p.paper_id for p in report.papers]
    assert len(ids) == 4 == len(set(ids)) and not report.skipped
    assert ids[0] == stable_id("Title") and ids[3] == f"{ids[2]}-2"
