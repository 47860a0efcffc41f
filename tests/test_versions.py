"""Versions of one work (corpus/versions.py, features/versions/): which records are linked, on
small hand-written corpora; a record with the same text at another venue kept as a version;
on the venue corpus (ICLR + NeurIPS 2017-18), a version pair shown once, in the API, the CLI,
`show` and the exports (which cite the accepted version)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer import Explorer
from explorer.cli.main import main
from explorer.corpus.papers import Paper, read_corpus
from explorer.corpus.versions import MAX_BUCKET, preferred, version_groups
from explorer.features.versions.works import Works
from tests.venue_fixtures import venue_index  # noqa: F401


def paper(paper_id: str, title: str, authors: tuple[str, ...], venue: str = "ICLR",
          year: int = 2018, status: str | None = None, doi: str | None = None,
          derived: bool = False) -> Paper:
    return Paper(paper_id=paper_id, title=title, title_is_derived=derived,
                 abstract=f"Abstract of {paper_id}.", authors=authors, venue=venue, year=year,
                 status=status, external_ids=(("doi", doi),) if doi else ())


PROTO = "Prototypical Networks for Few-shot Learning"


def test_same_title_and_a_shared_author_link_versions_and_nothing_else_does():
    papers = [
        paper("a", PROTO, ("Jake Snell", "Kevin Swersky"), status="Rejected"),
        paper("b", "Prototypical networks for few-shot learning!", ("J. Snell", "R. Zemel"),
              venue="NeurIPS", status="Poster"),
        paper("c", PROTO, ("Someone Else",), venue="ICML"),  # same title, other people
        paper("d", "A different title altogether", ("Ann Other",), doi="10.1/x"),
        paper("e", "Its journal version, renamed", ("Ann Other",), doi="10.1/X", year=2019),
        paper("f", "Short", ("Jake Snell",)),  # too short a title to say anything
        paper("g", "Short", ("Jake Snell",)),
        paper("h", PROTO, ("Jake Snell",), derived=True),  # a derived title is no title
    ]
    assert version_groups(papers) == [[0, 1], [3, 4]]


def test_a_generic_title_shared_by_many_links_nothing():
    many = [paper(str(i), "Neural networks for graph data", ("Ann Smith",))
            for i in range(MAX_BUCKET + 1)]
    assert version_groups(many) == []
    assert version_groups(many[:3]) == [[0, 1, 2]]


def test_the_version_to_cite_is_the_accepted_one():
    rejected = paper("a", PROTO, (), status="Rejected", year=2017)
    withdrawn = paper("w", PROTO, (), status="Withdrawn", year=2019)
    poster = paper("b", PROTO, (), venue="NeurIPS", status="Poster", year=2017)
    assert preferred([rejected, withdrawn, poster]) is poster
    assert preferred([rejected, withdrawn]) is rejected
    works = Works([rejected, poster, withdrawn], {"groups": [[0, 1, 2]]})
    assert works.cited(0) == works.cited(2) == 1 and works.others(1) == (0, 2)


def test_an_older_index_finds_its_versions_and_a_bad_stored_list_is_not_trusted():
    papers = [paper("a", PROTO, ("Jake Snell",)), paper("b", PROTO, ("Jake Snell",), "NeurIPS")]
    for stored in (None, {"groups": [[0, 7]]}, {"groups": "x"}, []):
        works = Works(papers, stored)
        assert works.groups == {0: (0, 1), 1: (0, 1)}
    assert Works(papers, {"groups": []}).any() is False  # stored: none
    assert Works(papers, None).fold([1, 0, 1]) == ([0], [(0,)])


def test_the_same_text_at_another_venue_is_kept_as_a_version(tmp_path: Path):
    record = {"title": PROTO, "abstract": "We propose prototypical networks for few-shot "
              "classification.", "authors": ["Jake Snell"]}
    rows = [{**record, "id": "iclr2017:x", "venue": "ICLR 2017", "status": "Reject"},
            {**record, "id": "nips2017:y", "venue": "NeurIPS 2017", "status": "Poster"},
            {**record, "id": "nips2017:z", "venue": "NeurIPS 2017", "status": "Poster"}]
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    report = read_corpus([path])
    assert [(p.paper_id, p.venue, p.status) for p in report.papers] == [
        ("iclr2017:x", "ICLR", "Rejected"), ("nips2017:y", "NeurIPS", "Poster")]
    assert report.papers[1].aliases == ("nips2017:z",)  # a copy at one venue: merged
    assert version_groups(report.papers) == [[0, 1]]


# -- the venue corpus ----------------------------------------------------------------------------
REJECT, POSTER = "iclr2017:B1-Hhnslg", "nips2017:9188"  # Prototypical Networks


@pytest.fixture(scope="module")
def venues(venue_index: Path) -> Explorer:  # noqa: F811
    return Explorer.open(venue_index)


def test_the_venue_corpus_links_its_known_pairs(venues: Explorer):
    ids = [[venues.papers[row].paper_id for row in group]
           for group in {tuple(g) for g in venues.works.groups.values()}]
    pairs = {frozenset(group) for group in ids}
    assert frozenset({REJECT, POSTER}) in pairs
    assert frozenset({"iclr2017:SyOvg6jxx", "nips2017:9061"}) in pairs  # #Exploration
    assert all(len(group) == 2 for group in ids)


def test_a_work_is_listed_once_with_its_versions(venues: Explorer):
    hits = venues.search(PROTO, 10)
    found = [hit for hit in hits if hit.paper_id in (REJECT, POSTER)]
    assert len(hits) == 10 and len(found) == 1
    assert [v.paper_id for v in found[0].versions] == [{REJECT: POSTER, POSTER: REJECT}[
        found[0].paper_id]]
    both = venues.search(PROTO, 10, versions=False)
    assert {REJECT, POSTER} <= {hit.paper_id for hit in both}


def test_the_cli_lists_a_work_once_and_show_has_its_versions(capsys, venue_index: Path):  # noqa: F811
    assert main(["search", PROTO, "--index", str(venue_index)]) == 0
    out = capsys.readouterr().out
    assert out.count(f"id {REJECT} ·") + out.count(f"id {POSTER} ·") == 1  # one result line
    assert f"also: NeurIPS 2017 Poster ({POSTER})" in out or \
        f"also: ICLR 2017 Rejected ({REJECT})" in out
    assert main(["show", REJECT, "--index", str(venue_index), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["paper"]["status"] == "Rejected" and record["paper"]["fields"]["track"] == "main"
    assert [(v["paper_id"], v["venue"], v["year"], v["status"]) for v in record["versions"]] == [
        (POSTER, "NeurIPS", 2017, "Poster")]
    assert "topic" in record  # relatives: only when one is above the threshold
    assert main(["show", REJECT, "--index", str(venue_index)]) == 0
    text = capsys.readouterr().out
    assert "status: Rejected" in text and f"version: {POSTER}" in text
    assert main(["show", "nope", "--index", str(venue_index)]) == 1


def test_an_export_cites_the_accepted_version(capsys, venue_index: Path, venues: Explorer):  # noqa: F811
    assert main(["export", REJECT, "--index", str(venue_index), "--format", "bibtex"]) == 0
    bibtex, note = capsys.readouterr()
    assert f"cited as its version {POSTER} (NeurIPS 2017 Poster)" in note
    assert "@inproceedings" in bibtex and "Neural Information Processing Systems" in bibtex
    from explorer.features.exports.ui import export_text

    hit = next(h for h in venues.search(PROTO, 10) if h.paper_id in (REJECT, POSTER))
    assert "Neural Information Processing Systems" in export_text([hit], "bibtex")
