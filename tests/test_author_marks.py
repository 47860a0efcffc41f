"""Equal-contribution and affiliation marks beside a name ('Wieland Brendel *', 'Ze Liu(†)',
'Lihe Zhang¹', as paperlists-ml carries them) are not part of it: a corpus read drops them, so
an exported entry names 'Brendel, Wieland', never '*, Wieland Brendel' (issue 31)."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest
import rispy

from explorer.corpus.authors import strip_marks
from explorer.corpus.papers import read_corpus
from explorer.features.exports.ui_bibtex import to_bibtex
from explorer.features.exports.ui_csl import to_csl_json
from explorer.features.exports.ui_tagged import to_ris

MARKED = ["Wieland Brendel *", "Ze Liu(†)", "†‡ Lihe Zhang¹", "Yutao Hu ¹", "*"]
FAMILIES = ["Brendel", "Liu", "Zhang", "Hu"]


@pytest.mark.parametrize(("text", "name"), [
    ("Wieland Brendel *", "Wieland Brendel"), ("Yihao Feng*", "Yihao Feng"),
    ("Ze Liu(†)", "Ze Liu"), ("Pengfei Ren⁸", "Pengfei Ren"), ("‡Ann Bo", "Ann Bo"),
    ("Smith (Jr.)", "Smith (Jr.)"), ("O'Brien, Pat", "O'Brien, Pat"), ("*", "")])
def test_marks_at_either_end_go_and_nothing_else(text: str, name: str):
    assert strip_marks(text) == name


def test_exports_name_the_authors_without_their_marks(tmp_path: Path):
    record = {"title": "Decision-based adversarial attacks", "abstract": "We attack models.",
              "authors": MARKED, "year": 2018, "venue": "ICLR 2018 Conference"}
    path = tmp_path / "papers.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    (paper,) = read_corpus([path]).papers
    assert paper.authors == ("Wieland Brendel", "Ze Liu", "Lihe Zhang", "Yutao Hu")
    (entry,) = bibtexparser.parse_string(to_bibtex([paper])).entries
    assert entry["author"].strip("{}") == "Brendel, Wieland and Liu, Ze and Zhang, Lihe and Hu, Yutao"
    (ris,) = rispy.loads(to_ris([paper]))
    assert [name.split(",")[0] for name in ris["authors"]] == FAMILIES
    (csl,) = json.loads(to_csl_json([paper]))
    assert [name["family"] for name in csl["author"]] == FAMILIES
