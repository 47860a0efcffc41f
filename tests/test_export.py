"""CSV and BibTeX export of results and of the marked set: every character of corpus text inert
(the citations' types, venues and other formats: test_citations.py)."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import bibtexparser
import pytest

from explorer.corpus.entries import PLACEHOLDER_TITLES
from explorer.corpus.latex import MATH
from explorer.corpus.papers import Paper, normalise
from explorer.corpus.references import read_references
from explorer.features.exports.ui_bibtex import to_bibtex
from explorer.features.exports.ui_tex import TEX_ESCAPES, kept_formula
from explorer.query.engine import Hit
from explorer.ui.export import CSV_COLUMNS, to_csv

FULL = Paper(paper_id="p1", title="Graphs & {Braces}: 50% of #tags_here", title_is_derived=False,
             abstract="We bound $\\mathcal{O}(n^{2})$ cost, save $5 and 10%, and use a\\b path.",
             authors=("Ada Lovelace", "Turing, Alan", "Émile Borel"), year=2021,
             venue="Proc. A & B", url="https://example.org/p?a=1&b={2}",
             keywords=("graphs", "braces"), sources=("data/x.jsonl:3",))
BARE = Paper(paper_id="abc123", title="Lean Finder: a search engine", title_is_derived=True,
             abstract="Plain text, with a quote \" and a comma,\nand a newline.",
             sources=("seeds/a.txt:2", "seeds/b.txt:9"))

_TEX_UNESCAPE = {escape: char for char, escape in TEX_ESCAPES.items()}
_DECODE = re.compile("|".join([*(re.escape(e) for e in sorted(_TEX_UNESCAPE, key=len, reverse=True)),
                               r"(?<=[-`'])\{\}(?=[-`'])", r"[{}]"]))


def decode_tex(text: str) -> str:
    """The inverse of ui_tex.escape_tex (up to its control characters, which stay spaces); the
    braces `tex_text` adds around words and formulas are dropped too."""
    return _DECODE.sub(lambda m: _TEX_UNESCAPE.get(m.group(0), ""), text)


def test_csv_rows_round_trip_through_a_csv_reader():
    hits = [Hit(rank=1, score=0.81234567, percentile=99.5, paper=FULL),
            Hit(rank=2, score=0.5, percentile=None, paper=BARE)]
    rows = list(csv.DictReader(io.StringIO(to_csv(hits))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [row["paper_id"] for row in rows] == ["p1", "abc123"]
    assert rows[0]["score"] == "0.8123" and rows[0]["percentile"] == "99.5"
    assert rows[0]["authors"] == "Ada Lovelace; Turing, Alan; Émile Borel"
    assert rows[1]["abstract"] == BARE.abstract  # quotes, commas and newlines survive
    assert rows[1]["title_is_derived"] == "True" and rows[1]["percentile"] == ""
    assert rows[1]["sources"] == "seeds/a.txt:2; seeds/b.txt:9"


def test_csv_of_plain_papers_leaves_the_ranking_columns_empty():
    rows = list(csv.DictReader(io.StringIO(to_csv([FULL]))))
    assert (rows[0]["rank"], rows[0]["score"], rows[0]["year"]) == ("", "", "2021")
    assert to_csv([]).strip() == ",".join(CSV_COLUMNS)


def test_bibtex_entries_escape_every_tex_special_but_keep_whitelisted_math():
    text = to_bibtex([FULL, BARE], abstract=True)
    assert text.count("@") == 2
    assert text.startswith("@misc{lovelace2021graphs,")  # a venue of no known kind
    assert "@misc{lean," in text
    assert (r"title = {Graphs \& \textbraceleft{}Braces\textbraceright{}: 50\% of \#tags\_here}"
            in text)
    assert "author = {Lovelace, Ada and Turing, Alan and Borel, Émile}" in text
    assert r"howpublished = {Proc. A \& B}" in text and "journal" not in text
    assert r"{$\mathcal{O}(n^{2})$}" in text  # math on the formula whitelist stays math
    assert r"save \$5 and 10\%" in text and r"a\textbackslash{}b" in text
    assert "url = {https://example.org/p?a=1&b=%7B2%7D}" in text
    assert "note = {Title derived from the abstract}" in text
    assert "abstract" not in to_bibtex([FULL])  # only when asked for
    for entry in text.split("\n@"):
        assert entry.count("{") == entry.count("}")


def test_bibtex_keys_stay_unique():
    keys = re.findall(r"@\w+\{([^,]+),", to_bibtex([FULL, FULL, FULL, BARE]))
    assert keys == ["lovelace2021graphs", "lovelace2021graphsa", "lovelace2021graphsb", "lean"]


def test_anything_but_papers_and_hits_is_refused():
    with pytest.raises(ValueError, match="expected Hit or Paper"):
        to_csv(["p1"])
    with pytest.raises(ValueError, match="expected Hit or Paper"):
        to_bibtex([{"paper_id": "p1"}])


HOSTILE = [
    r"$\input{/etc/hostname}$", r"$\immediate\write18{touch /tmp/pwned}$", "$a}{b$ cost",
    r"}} \def\x{1} {{", r"\\ \\\\ \{ \} \catcode`\^^M=13", "^^5cinput{/etc/passwd}",
    "50% off # tags _ & ~ ^ $$x$$", "a\nb\rc\x00d\x1be\x7f\x85\u2028f",
    "{\\csname input\\endcsname{/etc/hostname}}", "@comment{x} @preamble{\\input{x}}",
]


def _paper(text: str) -> Paper:
    return Paper(paper_id=text, title=text, title_is_derived=False, abstract=text,
                 authors=(text,), venue=text, keywords=(text,), url="https://e.org/" + text)


def _tex_visible(text: str) -> str:
    """What the text should read as after decoding: controls and line breaks become spaces,
    a formula kept as math is written inline ($x$ for $$x$$)."""
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text)
    return MATH.sub(lambda m: "$" + kept + "$" if (kept := kept_formula(m.group())) else m.group(),
                    text)


KEPT_MATH = re.compile(r"\{\$([^$]*)\$\}")
WORD_BRACES = re.compile(r"\{([^\W_]+)\}")  # a title's word kept from case changes: {BERT}


def _kept(match: re.Match) -> str:
    """A `{$...$}` of the export: gone when its formula is one the export may keep."""
    return "" if kept_formula(f"${match.group(1)}$") == match.group(1) else match.group()


def _titled(title: str) -> str:
    return "" if " ".join(title.split()).lower() in PLACEHOLDER_TITLES else title


def assert_bibtex_is_inert_and_decodes(papers: list[Paper]) -> None:
    """Shared with the generated tests: parse the .bib back, check each field is inert TeX."""
    library = bibtexparser.parse_string(to_bibtex(papers, abstract=True))
    assert not library.failed_blocks and len(library.entries) == len(papers)
    known = re.compile("|".join([*(re.escape(e) for e in TEX_ESCAPES.values()),
                                 r"(?<=[-`'])\{\}(?=[-`'])"]))  # a broken ligature: -{}-
    read_back = read_references(to_bibtex(papers, abstract=True), "export.bib").entries
    kept = [p for p in papers  # a placeholder title ("Untitled") is no title: corpus/entries.py
            if any(re.search(r"\w{2,}", t) for t in (p.abstract, _titled(p.title)))]
    assert [p.abstract for p in read_back] == [normalise(_tex_visible(p.abstract)) for p in kept]
    for entry, paper in zip(library.entries, papers):
        fields = entry.fields_dict
        for name, original in (("title", paper.title), ("howpublished", paper.venue or ""),
                               ("journal", paper.venue or ""), ("booktitle", paper.venue or ""),
                               ("abstract", paper.abstract)):
            if name in fields:
                inner = fields[name].value  # the parser removes the enclosing braces
                if name == "title" or name == "abstract":
                    assert decode_tex(inner) == _tex_visible(original)
                else:  # a venue's name is read with its spaces collapsed (venues.venue_of)
                    assert decode_tex(inner).split() == _tex_visible(original).split()
                bare = WORD_BRACES.sub(r"\1", known.sub("", KEPT_MATH.sub(_kept, inner)))
                assert "\\" not in bare and "{" not in bare and "}" not in bare, inner
        assert re.fullmatch(r"https?://[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*|",
                            fields["url"].value if "url" in fields else "")


@pytest.mark.parametrize("text", HOSTILE)
def test_bibtex_of_hostile_text_is_inert_and_reads_back(text: str):
    assert_bibtex_is_inert_and_decodes([_paper(text)])
    bib = to_bibtex([_paper(text)])
    assert "\\input" not in bib and "\\write18" not in bib and "\\immediate" not in bib


def test_bibtex_drops_urls_that_are_not_http():
    paper = Paper(paper_id="x", title="t", title_is_derived=False, abstract="a",
                  url="javascript:alert(1)")
    assert "url" not in to_bibtex([paper])


FORMULAS = ['=HYPERLINK("http://e.org")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1",
            "  =1", "\uff1dcmd", "'=kept quote"]


@pytest.mark.parametrize("text", FORMULAS)
def test_csv_cells_that_a_spreadsheet_would_run_get_a_leading_quote(text: str):
    paper = _paper(text)
    (row,) = list(csv.DictReader(io.StringIO(to_csv([paper]))))
    for column in ("paper_id", "title", "authors", "venue", "keywords", "abstract"):
        assert row[column] == "'" + text, column
    assert row["url"] == "https://e.org/" + text  # not a formula start: left alone


def test_csv_numbers_are_not_quoted():
    hit = Hit(rank=1, score=-0.25, percentile=None, paper=BARE)
    (row,) = list(csv.DictReader(io.StringIO(to_csv([hit]))))
    assert row["score"] == "-0.2500"


def test_csv_sources_relative_to_a_root_never_show_server_paths(tmp_path: Path):
    root = tmp_path / "corpus"
    paper = Paper(paper_id="p", title="t", title_is_derived=False, abstract="a",
                  sources=(f"{root}/sub/a.jsonl:3", f"{root}/b.json#2", "/srv/secret/c.csv:9",
                           "relative/d.txt:4"))
    (row,) = list(csv.DictReader(io.StringIO(to_csv([paper], source_root=root))))
    assert row["sources"] == "sub/a.jsonl:3; b.json#2; c.csv:9; d.txt:4"
    (row,) = list(csv.DictReader(io.StringIO(to_csv([paper]))))
    assert row["sources"] == "; ".join(paper.sources)  # the CLI's default: as read


@pytest.mark.skipif(not (shutil.which("latex") and shutil.which("bibtex")),
                    reason="no TeX toolchain: apt-get install --no-install-recommends "
                           "texlive-latex-base to compile the BibTeX export for real")
def test_the_bibtex_export_compiles_and_runs_nothing_from_the_corpus(tmp_path: Path):
    (tmp_path / "payload.tex").write_text("\\immediate\\write16{IN\\string PUT-RAN}\n")
    attacks = [*HOSTILE, r"$\input{payload}$", r"\input payload ",
               r"\immediate\write16{WR\string ITE-RAN}", r"}\immediate\write16{BR\string ACE-RAN}{",
               "%\n\\immediate\\write16{PER\\string CENT-RAN}"]
    papers = [Paper(paper_id=f"p{i}", title=text, title_is_derived=False, abstract=text,
                    authors=(f"A {text}",), venue=text, year=2020)
              for i, text in enumerate(attacks)]
    (tmp_path / "refs.bib").write_text(to_bibtex(papers, abstract=True), encoding="utf-8")
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage[utf8]{inputenc}\n"
        "\\begin{document}\\nocite{*}\\bibliographystyle{plain}\\bibliography{refs}"
        "\\end{document}\n")
    logs = []
    for command in (["latex"], ["bibtex"], ["latex"]):
        args = [*command, "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error",
                "main"] if command == ["latex"] else [*command, "main"]
        run = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                             errors="replace")
        logs.append(run.stdout)
        assert run.returncode == 0, run.stdout[-3000:]
    log = "\n".join(logs) + (tmp_path / "main.log").read_text(errors="replace")
    for marker in ("INPUT-RAN", "WRITE-RAN", "BRACE-RAN", "PERCENT-RAN"):
        assert marker not in log
    assert "Undefined control sequence" not in log and "Warning--" not in logs[1]
    assert (tmp_path / "main.bbl").read_text().count("\\bibitem") == len(papers)
