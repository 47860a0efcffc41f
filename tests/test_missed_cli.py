"""`explorer missed` and `explorer collection import` against the real seeds index: JSON and
text output, the cited set from a .bib or a collection, and bad input as one line of error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.features.collections.store import Collections
from tests.paraphrases import PARAPHRASES

DATA = Path(__file__).resolve().parent / "data"
ZOTERO = DATA / "zotero.bib"
SEED_SSM, SEED_GED = "74c6b0a05165", "cab9be834494"  # the two seeds zotero.bib cites
DRAFT = ("We ask which diagonal state-space layers can track the state of a group [3], and "
         "what a single layer cannot do \\cite{merrill}.\n\n"
         "A second paragraph: pairing up the nodes of two graphs, step by step, to compute "
         "their edit distance.")


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Collections:
    monkeypatch.setenv("EXPLORER_DATA", str(tmp_path / "data"))
    return Collections.at(tmp_path / "data")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(folder: Path, name: str, content: str | bytes) -> str:
    path = folder / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return str(path)


def test_missed_with_a_bib_lists_related_papers_it_lacks(seeds_index, tmp_path, capsys):
    draft = write(tmp_path, "draft.txt", DRAFT)
    code, out, err = run(capsys, "missed", "--draft", draft, "--bib", str(ZOTERO), "--index",
                         str(seeds_index), "--k", "4", "--json")
    assert code == 0, err
    result = json.loads(out)
    ids = [p["paper_id"] for p in result["papers"]]
    assert len(ids) == 4 and SEED_SSM not in ids and SEED_GED not in ids
    assert set(result["cited"]) == {SEED_SSM, SEED_GED}
    assert [p["number"] for p in result["passages"]] == [1, 2]
    for paper in result["papers"]:
        assert paper["closest_cited"]["paper_id"] in {SEED_SSM, SEED_GED}
        assert paper["tie"]["draft_sentence"]["text"] in DRAFT
    assert "zotero.bib: 2 of 5 entries are in this index; 3 are not" in err
    assert "not in this index: SparseKV" in err
    code, text, _ = run(capsys, "missed", "--draft", draft, "--bib", str(ZOTERO), "--index",
                        str(seeds_index), "--k", "4")
    assert code == 0 and "Missed papers, most related first:" in text
    assert "By passage of the draft:" in text and "closest cited:" in text and "draft: “" in text


def test_missed_takes_a_collection_as_the_cited_set(seeds_index, data, tmp_path, capsys):
    question, _ = PARAPHRASES[0]
    draft = write(tmp_path, "draft.md", question)
    index = ["--index", str(seeds_index)]
    code, out, _ = run(capsys, "missed", "--draft", draft, *index, "--json")
    first = json.loads(out)["papers"][0]["paper_id"]
    data.create("Cited", [first, "gone-from-this-index"])
    code, out, err = run(capsys, "missed", "--draft", draft, "--collection", "Cited", *index,
                         "--json")
    assert code == 0 and "gone-from-this-index" in err
    assert first not in [p["paper_id"] for p in json.loads(out)["papers"]]


def test_collection_import_matches_entries_and_names_the_rest(seeds_index, data, capsys):
    index = ["--index", str(seeds_index)]
    code, out, err = run(capsys, "collection", "import", "From Zotero", str(ZOTERO), *index)
    assert code == 0, err
    assert data.get("From Zotero").paper_ids == (SEED_SSM, SEED_GED)
    assert out.startswith("created From Zotero: 2 papers")
    assert out.count("not in this index:") == 3 and "SparseKV" in out
    assert "2 of 5 entries are in this index; 3 are not." in err
    code, _, err = run(capsys, "collection", "import", "From Zotero", str(ZOTERO), *index)
    last = err.splitlines()[-1]  # after the note on the file: one line of error
    assert code == 1 and last.startswith("explorer: error: ") and "already exists" in last
    code, out, _ = run(capsys, "collection", "import", "Again", str(ZOTERO), *index, "--json")
    shown = json.loads(out)
    assert shown["paper_ids"] == [SEED_SSM, SEED_GED] and len(shown["not_in_index"]) == 3
    code, _, err = run(capsys, "collection", "import", "Broken", str(DATA / "broken.bib"), *index)
    assert code == 1 and "None of the 3 entries" in err and "Broken" not in data.names()


@pytest.mark.parametrize(("draft", "bib", "says"), [
    ("", None, "is empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00", None, "not UTF-8 text"),
    (b"%PDF-1.5\n", None, "is a PDF file"),
    ("word " * 400_001, None, "more than the 2,000,000"),
    (None, None, "cannot read draft"),
    (DRAFT, ("refs.docx", b"PK\x03\x04"), "not a reference list"),
    (DRAFT, ("refs.bib", b"@article{x,\x00 title={a}}"), "binary file"),
    (DRAFT, ("missing.bib", None), "cannot read reference list"),
])
def test_bad_input_is_one_line_of_error(seeds_index, tmp_path, capsys, draft, bib, says):
    path = str(tmp_path / "no-such-draft.txt") if draft is None else write(tmp_path, "d.txt", draft)
    argv = ["missed", "--draft", path, "--index", str(seeds_index)]
    if bib is not None:
        name, content = bib
        argv += ["--bib", str(tmp_path / name) if content is None else write(tmp_path, name, content)]
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert err.startswith("explorer: error: ") and says in err and "Traceback" not in err


def test_an_unknown_collection_is_one_line_of_error(seeds_index, data, tmp_path, capsys):
    code, _, err = run(capsys, "missed", "--draft", write(tmp_path, "d.txt", DRAFT),
                       "--collection", "Nope", "--index", str(seeds_index))
    assert code == 1 and "No collection named 'Nope'" in err and err.count("\n") == 1
