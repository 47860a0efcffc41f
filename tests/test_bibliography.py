"""Reference lists as corpus input: BibTeX, RIS and CSL-JSON exports of the same papers, ids,
LaTeX decoding, broken and binary files, a library of 10,000 entries, a real index built on them.
(Identity across sources: test_identity.py.)"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.corpus.latex import to_unicode
from explorer.corpus.papers import Paper, read_corpus, stable_id
from explorer.corpus.references import read_references
from explorer.errors import CorpusError
from explorer.query.engine import Explorer
from tests.conftest import SEEDS
from tests.test_cli import explorer_command

DATA = Path(__file__).resolve().parent / "data"
ZOTERO = [DATA / "zotero.bib", DATA / "zotero.ris", DATA / "zotero.json"]
TITLE_ONLY = "Curriculum Learning for Robotic Cloth Folding from Video Demonstrations"
SEED_SSM = "74c6b0a05165"  # the seeds' id of a paper in zotero.bib
SHOWN = ("title", "title_is_derived", "abstract", "authors", "year", "venue", "url", "keywords")


def _seed_abstract(paper_id: str) -> str:
    return next(p.abstract for p in read_corpus([SEEDS]).papers if p.paper_id == paper_id)


def test_a_zotero_bib_reads_as_plain_unicode_with_macros_resolved_and_comments_ignored():
    report = read_corpus([DATA / "zotero.bib"])
    assert report.records == 5 and not report.skipped  # comments and @string are not records
    by_key = {dict(p.original)["ID"]: p for p in report.papers}
    gelato, sparse = by_key["lefevre_gelato_2026"], by_key["nakamura_sparsekv_2025"]
    assert gelato.title == "Gelato: Autoregressive Graph Neural Networks for Graph Edit Distance"
    assert gelato.authors == ("François Lefèvre", "Søren Madsen")
    assert gelato.venue == "Transactions on Machine Learning Research"  # @STRING macro
    assert sparse.venue == "Advances in Neural Information Processing Systems"  # "..." # macro
    assert sparse.title == "SparseKV: Memory-Efficient KV Caching for Long-Context Transformers"
    assert "key\u2013value (KV) cache" in sparse.abstract and "$O(\\log n)$ time" in sparse.abstract
    assert "by 60% while losing less than 1%" in sparse.abstract
    assert "question answering & summarization" in sparse.abstract
    assert "\\" not in sparse.abstract.replace("\\log", "") and "{" not in sparse.abstract
    ssm = by_key["muller_expressivity_2026"]
    assert ssm.authors == ("Jörg Müller", "Zoë Fernández")
    assert ssm.abstract == _seed_abstract(SEED_SSM)  # Zotero's \$k\$ is the seed's $k$
    assert ssm.keywords == ("Computer Science - Machine Learning", "State-space models")
    assert by_key["odegaard_calibrated_2024"].authors == ("Ingrid Ødegaard", "Élodie Dubois")
    assert by_key["kowalski_curriculum_2024"].authors == ("Łukasz Kowalski", "Inés Núñez")


def test_the_bibtex_fields_as_written_stay_on_the_paper_for_export():
    paper = next(p for p in read_corpus([DATA / "zotero.bib"]).papers if "Gelato" in p.title)
    original = dict(paper.original)
    assert original["ENTRYTYPE"] == "article" and original["ID"] == "lefevre_gelato_2026"
    assert original["author"] == "Lef{\\`e}vre, Fran{\\c{c}}ois and Madsen, S{\\o}ren"
    assert original["title"] == "{Gelato}: Autoregressive Graph Neural Networks for Graph Edit Distance"
    assert original["journal"] == "Transactions on Machine Learning Research"
    ssm = next(p for p in read_corpus([DATA / "zotero.bib"]).papers if p.year == 2026 and p is not paper)
    assert "file" not in dict(ssm.original) and dict(ssm.original)["month"] == "jan"  # no local paths
    again = Paper.from_dict(json.loads(json.dumps(paper.to_dict())))
    assert again == paper and again.original == paper.original


def test_papers_from_other_sources_store_no_original_field():
    paper = read_corpus([SEEDS]).papers[0]
    assert "original" not in paper.to_dict() and paper.original == ()


def test_ris_and_csl_json_exports_of_the_same_papers_give_the_same_papers():
    bib, ris, csl = (read_corpus([path]).papers for path in ZOTERO)
    assert len(bib) == len(ris) == len(csl) == 5
    for field in SHOWN:
        assert [getattr(p, field) for p in ris] == [getattr(p, field) for p in csl], field
        assert [getattr(p, field) for p in bib] == [getattr(p, field) for p in ris], field
    assert [p.paper_id for p in ris] == [p.paper_id for p in csl]
    assert [p.aliases for p in ris] == [p.aliases for p in csl]


def test_ids_are_the_doi_else_the_arxiv_id_else_the_citation_key_else_the_text_hash():
    bib, ris, _ = (read_corpus([path]).papers for path in ZOTERO)
    assert [p.paper_id for p in bib] == [
        "2510.01234",                  # arXiv id (no DOI), from the note and the URL
        "10.5555/gelato.2026.17",      # DOI, lower-cased
        "10.5555/sparsekv.2025.3",     # DOI written as https://doi.org/...
        "kowalski_curriculum_2024",    # neither: the citation key
        "10.48550/arxiv.2409.04567",   # arXiv's DOI
    ]
    assert bib[0].aliases == ("muller_expressivity_2026",)
    assert bib[4].aliases == ("2409.04567", "odegaard_calibrated_2024")
    assert ris[3].paper_id == stable_id(TITLE_ONLY)  # RIS has no citation key


def test_entries_without_an_abstract_are_kept_and_counted():
    report = read_corpus([DATA / "zotero.ris"])
    title_only = next(p for p in report.papers if not p.abstract)
    assert title_only.title == TITLE_ONLY and not title_only.title_is_derived
    assert title_only.text == TITLE_ONLY  # what gets embedded and searched
    assert report.notes["entries without an abstract: searched by title"] == 1


@pytest.mark.parametrize(("latex", "plain"), [
    ("{\\'E}cole", "École"), ('M{\\"u}ller', "Müller"), ("\\c{c}a", "ça"), ("{\\ss}", "ß"),
    ("{\\O}degaard", "Ødegaard"), ("\\emph{very} {BERT}", "very BERT"),
    ("a--b---c", "a\u2013b\u2014c"), ("50\\% \\& more", "50% & more"), ("50% raw", "50% raw"),
    ("the $k$-layer model", "the $k$-layer model"), ("``quoted''", "\u201cquoted\u201d"),
    ("plain words", "plain words"), ("{" * 800 + "x" + "}" * 800, "x"),
])
def test_latex_in_fields_becomes_unicode(latex, plain):
    assert to_unicode(latex) == plain


WORDS = st.sampled_from(["graph", "Caf\\'e", 'M\\"{u}ller', "{\\ss}", "\\&", "\\%", "--", "---",
                         "``a''", "\\c{c}", "\\o", "$x_1$", "\\alpha", "{BERT}", "a~b", "\\\\",
                         "\\i", "x\\_y", "\\textbf{bold}", "\\LaTeX{}", "\\url{http://a.b/c}"])
FIELDS = st.recursive(WORDS, lambda inner: st.lists(inner, min_size=1, max_size=4).map(
    lambda parts: "{" + " ".join(parts) + "}") | st.lists(inner, max_size=3).map(
    lambda parts: "\\emph{" + " ".join(parts) + "}"), max_leaves=12)
TEXTS = st.lists(FIELDS, max_size=12).map(" ".join)
FAST = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _whole_field_decoder():
    """pylatexenc as bibtexparser's LatexDecodingMiddleware sets it up (\\url{x} -> x)."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    context.add_context_category("url", prepend=True, macros=[MacroTextSpec("url", "%s")])
    return LatexNodes2Text(latex_context=context, math_mode="verbatim", keep_braced_groups=False)


WHOLE = _whole_field_decoder()


@FAST
@given(TEXTS)
def test_decoding_piece_by_piece_equals_pylatexenc_on_the_whole_field(text):
    assert " ".join(to_unicode(text).split()) == " ".join(WHOLE.latex_to_text(text).split())


BIB_PIECES = st.sampled_from(["@article{", "@string{", "@comment{", "@preamble{", "@", "{", "}",
                              '"', ",", "=", "#", " ", "\n", "title", "author", "abstract", "doi",
                              "k1", "\\'e", "\\", "$", "%", " and ", "10.1000/x", "arXiv:1706.03762",
                              "TY  - JOUR\n", "ER  - \n", "TI  - ", "AU  - ", "AB  - ", "DO  - "])


@FAST
@given(st.lists(BIB_PIECES | st.text(max_size=4), max_size=50), st.sampled_from(["bib", "ris"]))
def test_generated_reference_lists_give_papers_or_a_clear_error(tmp_path_factory, parts, kind):
    path = tmp_path_factory.mktemp("fuzz") / f"refs.{kind}"
    path.write_text("".join(parts), encoding="utf-8", errors="surrogatepass")
    try:
        report = read_corpus([path])
    except CorpusError as exc:
        assert str(exc).startswith(str(path))
        return
    names = [n for p in report.papers for n in (p.paper_id, *p.aliases)]
    assert len(names) == len(set(names)) and report.records >= len(report.papers)
    assert all(isinstance(p, Paper) and (p.title or p.abstract) for p in report.papers)


def test_a_broken_bib_keeps_its_good_entries_and_names_the_lines_that_did_not_parse():
    report = read_corpus([DATA / "broken.bib"])
    assert [p.paper_id for p in report.papers] == ["good_one", "good_two", "good_three"]
    path = DATA / "broken.bib"
    assert dict(report.skipped) == {
        f"entries that did not parse: {path}:9, {path}:20, {path}:28": 3}
    assert report.records == 6


def test_a_bib_that_names_many_broken_entries_names_the_first_ten(tmp_path: Path):
    path = tmp_path / "many.bib"
    path.write_text("".join(f"@article{{bad{i} title = {{x}}}}\n" for i in range(25))
                    + "@article{ok, title = {One Good Entry About Graph Matching}}\n")
    report = read_corpus([path])
    [(reason, count)] = report.skipped.items()
    assert count == 25 and reason.endswith(f"{path}:10 and 15 more") and f"{path}:11" not in reason
    assert [p.paper_id for p in report.papers] == ["ok"]


@pytest.mark.parametrize("name", ["refs.bib", "refs.ris", "refs.json", "refs.bib.gz"])
def test_a_binary_file_is_a_clear_error(tmp_path: Path, name: str):
    path = tmp_path / name
    data = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    if name.endswith(".gz"):
        import gzip

        data = gzip.compress(b"@article{k, title={T}}\n\x00\x00\x00")
    path.write_bytes(data)
    with pytest.raises(CorpusError, match=r"binary file") as caught:
        read_corpus([path])
    assert str(caught.value).startswith(str(path))


def test_a_ris_reference_without_its_end_line_is_named_and_the_rest_kept(tmp_path: Path):
    path = tmp_path / "cut.ris"
    path.write_text("TY  - JOUR\nTI  - First Paper on Graph Matching\nER  - \n\n"
                    "TY  - JOUR\nTI  - A Reference Cut Short\n\n"
                    "TY  - JOUR\nTI  - Third Paper on Cloth Folding\nER  - \n")
    report = read_corpus([path])
    assert [p.title for p in report.papers] == ["First Paper on Graph Matching",
                                                "Third Paper on Cloth Folding"]
    assert dict(report.skipped) == {f"entries that did not parse: {path}:5": 1}


def test_a_plain_json_corpus_is_not_read_as_csl(tmp_path: Path):
    path = tmp_path / "plain.json"
    path.write_text(json.dumps([{"id": "p1", "title": "T", "abstract": "We fold proteins.",
                                 "authors": ["Ada Lovelace"], "venue": "V"}]))
    [paper] = read_corpus([path]).papers
    assert (paper.paper_id, paper.authors, paper.venue) == ("p1", ("Ada Lovelace",), "V")


def test_ten_thousand_entries_with_latex_duplicates_and_broken_ones(tmp_path: Path):
    """A large Zotero library: every entry read once, duplicates (same DOI) merged, broken ones
    named. (Its speed is measured in benchmarks/bibliography.py, not here.)"""
    path = tmp_path / "library.bib"
    entries = []
    for i in range(10_000):
        if i % 1000 == 999:
            entries.append(f"@article{{broken{i}, title = {{Unclosed\n")
            continue
        doi = f"10.5555/lib.{i % 9_500}"  # the last 500 repeat earlier DOIs
        entries.append(f"@article{{key{i},\n  title = {{Caf{{\\'e}} Study Number {i}}},\n"
                       f"  author = {{M{{\\\"u}}ller, J. and Doe, Jane}},\n  doi = {{{doi}}},\n"
                       f"  abstract = {{We measure \\emph{{effect}} {i} at 50\\% -- again.}},\n"
                       f"  year = {{{2000 + i % 25}}},\n}}\n")
    path.write_text("\n".join(entries), encoding="utf-8")
    report = read_corpus([path])
    assert report.records == 10_000
    [(reason, broken)] = report.skipped.items()
    assert broken == 10 and reason.startswith(f"entries that did not parse: {path}:")
    assert len(report.papers) == 9_500 - 9 and report.duplicates_merged == 500 - 1
    ids = [n for p in report.papers for n in (p.paper_id, *p.aliases)]
    assert len(ids) == len(set(ids))
    first = report.papers[0]
    assert first.title == "Café Study Number 0" and first.authors == ("J. Müller", "Jane Doe")
    assert first.abstract == "We measure effect 0 at 50% \u2013 again."


def test_read_references_parses_uploads_in_memory_and_refuses_binary():
    ris = read_references((DATA / "zotero.ris").read_bytes(), "my refs.ris")
    assert [p.paper_id for p in ris.entries][:3] == ["2510.01234", "10.5555/gelato.2026.17",
                                                     "10.5555/sparsekv.2025.3"]
    assert ris.entries[0].sources == ("my refs.ris:1",)
    broken = read_references((DATA / "broken.bib").read_text(), "broken.bib")
    assert broken.unparsed == ("broken.bib:9", "broken.bib:20", "broken.bib:28")
    assert len(broken.entries) == 3
    for data, name, says in ((b"\x00\x01binary", "x.bib", "binary"), (b"\xff\xfe\x00", "x.ris", "UTF-8"),
                             (b"{}", "x.json", "JSON array"), (b"@article{k,}", "x.docx", ".bib"),
                             (b"x" * 2000, "x.bib", "more than")):
        with pytest.raises(CorpusError, match=says):
            read_references(data, name, max_bytes=1000)


def test_uploads_parse_the_same_from_many_threads():
    """The app parses uploads on its server threads: the shared LaTeX decoder, at the same time
    (each upload has a piece of LaTeX no other has, so no answer comes from the cache)."""
    base = (DATA / "zotero.bib").read_bytes()
    expected = [p.title for p in read_references(base, "zotero.bib").entries]

    def parse(number: int) -> list[str]:
        extra = f"@article{{x, title={{Th\\'eor\\`eme {{\\o}}{number}}}}}".encode()
        return [p.title for p in read_references(base + extra, "zotero.bib").entries]

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(parse, range(64)))
    assert results == [[*expected, f"Théorème ø{number}"] for number in range(64)]


def test_explorer_build_on_a_bib_searches_title_only_entries(tmp_path: Path):
    out = tmp_path / "index"
    done = explorer_command(["build", str(DATA / "zotero.bib"), str(DATA / "broken.bib"),
                             "--out", str(out)], dict(os.environ))
    assert done.returncode == 0, done.stderr
    broken = DATA / "broken.bib"
    assert f"3 entries that did not parse: {broken}:9, {broken}:20, {broken}:28" in done.stdout
    assert "noted: 2 entries without an abstract: searched by title" in done.stdout
    explorer = Explorer.open(out)
    hits = explorer.search("curriculum for robots that fold cloth, learned from videos", top_k=3)
    assert hits[0].paper.paper_id == "kowalski_curriculum_2024"
    assert all(h.paper.paper_id != "kowalski_curriculum_2024"
               for h in explorer.similar("kowalski_curriculum_2024", top_k=5))
    stored = {p.paper_id: p for p in explorer.papers}
    assert dict(stored["10.5555/gelato.2026.17"].original)["author"].startswith("Lef{\\`e}vre")


def test_a_build_of_only_broken_entries_says_which_lines(tmp_path: Path):
    path = tmp_path / "bad.bib"
    path.write_text("@article{a title = {x}}\n@article{b,\n title = {never closed\n")
    done = explorer_command(["build", str(path), "--out", str(tmp_path / "index")],
                            dict(os.environ))
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert f"2 entries that did not parse: {path}:1, {path}:2" in done.stderr
    assert "Traceback" not in done.stderr
