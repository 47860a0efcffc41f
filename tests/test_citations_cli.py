"""`explorer export ID [ID ...] --format bibtex|ris|csl-json [--index DIR] [--abstract]` on the
real seeds index: the three formats on stdout, read back by their tools; unknown ids refused
in one line, nothing written."""

from __future__ import annotations

import json

import bibtexparser
import pytest
import rispy

from explorer.cli.main import main
from explorer.corpus.references import read_references
from explorer.features.exports.ui import export_text


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def chosen(seeds_explorer) -> list:
    return [h.paper for h in seeds_explorer.search("state space models", 3)]


def test_export_writes_each_format_to_stdout(seeds_index, chosen, capsys):
    ids = [p.paper_id for p in chosen]
    index = ["--index", str(seeds_index)]
    code, out, err = run(capsys, "export", *ids, *index)
    assert code == 0 and out == export_text(chosen, "bibtex") and "exported 3 papers" in err
    assert not bibtexparser.parse_string(out).failed_blocks
    read = read_references(out, "export.bib").entries  # braces of {GAC} and escapes undone
    assert [e.title for e in read] == [p.title for p in chosen]
    assert "abstract = {" not in out
    code, out, _ = run(capsys, "export", *ids, "--format", "ris", "--abstract", *index)
    records = rispy.loads(out)
    assert code == 0 and [r["abstract"] for r in records] == [" ".join(p.abstract.split())
                                                              for p in chosen]
    code, out, _ = run(capsys, "export", ids[0], ids[0], "--format", "csl-json", *index)
    (item,) = json.loads(out)  # an id given twice: exported once
    assert code == 0 and item["title"] == chosen[0].title and item["type"] == "article"


def test_unknown_ids_are_one_clear_line_and_nothing_is_written(seeds_index, chosen, capsys):
    code, out, err = run(capsys, "export", chosen[0].paper_id, "no-such-paper", "also-missing",
                         "--index", str(seeds_index))
    assert code == 1 and out == ""
    assert err.startswith("explorer: error: 2 of 3 ids not in this index, so nothing was exported")
    assert "no-such-paper" in err and "also-missing" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_an_unknown_format_is_refused_by_the_parser(seeds_index, chosen, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["export", chosen[0].paper_id, "--format", "endnote", "--index", str(seeds_index)])
    assert stop.value.code == 2 and "bibtex" in capsys.readouterr().err
