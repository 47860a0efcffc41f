"""OpenReview notes as openreview-py writes them (`json.dump([n.to_json() for n in notes])`):
API v2 (`content.X.value`) and v1 (`content.X`), as a JSON array or JSON lines; venue, year
and status split from the venue string, the venue id, a decision among the replies or the
invitation; the forum's URL kept; malformed notes named, the others read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.corpus.papers import read_corpus
from explorer.corpus.venues import (
    ACCEPTED,
    DESK_REJECTED,
    ORAL,
    POSTER,
    REJECTED,
    SUBMITTED,
    WITHDRAWN,
    WORKSHOP,
)

ABSTRACT = "We study how sparse attention changes the memory cost of long-context transformers."
CDATE_2025 = 1_758_000_000_000  # 2025-09-16 in milliseconds, as OpenReview stores dates


def v2_note(note_id: str, venue: str | None, venueid: str | None = None, **content) -> dict:
    """A submission as openreview.api.Note.to_json() gives it."""
    fields = {"title": f"Paper {note_id}", "abstract": f"{ABSTRACT} ({note_id})",
              "authors": ["Ada Lovelace", "Alan Turing"],
              "authorids": ["~Ada_Lovelace1", "~Alan_Turing1"],
              "keywords": ["attention", "memory"], "TLDR": "Sparse attention saves memory.",
              "primary_area": "foundation or frontier models", "pdf": f"/pdf/{note_id}.pdf",
              "_bibtex": "@inproceedings{lovelace2026paper, title={Paper}}", **content}
    if venue is not None:
        fields["venue"] = venue
    if venueid is not None:
        fields["venueid"] = venueid
    return {"id": note_id, "forum": note_id, "content": {k: {"value": v} for k, v in fields.items()},
            "invitations": ["ICLR.cc/2026/Conference/-/Submission",
                            "ICLR.cc/2026/Conference/-/Post_Submission"],
            "cdate": CDATE_2025, "pdate": None, "mdate": CDATE_2025 + 1000,
            "signatures": ["ICLR.cc/2026/Conference/Submission7/Authors"],
            "writers": ["ICLR.cc/2026/Conference"], "readers": ["everyone"]}


def v1_note(note_id: str, invitation: str, replies: list[dict] | None = None, **content) -> dict:
    """An API v1 note (openreview.Note.to_json(): plain content values, one invitation)."""
    note = {"id": note_id, "original": None, "number": 12, "cdate": 1_509_000_000_000,
            "tcdate": 1_509_000_000_000, "tmdate": 1_519_000_000_000, "ddate": None,
            "forum": note_id, "referent": None, "invitation": invitation, "replyto": None,
            "readers": ["everyone"], "nonreaders": [], "signatures": ["ICLR.cc/2018/Conference"],
            "writers": ["ICLR.cc/2018/Conference"],
            "content": {"title": f"Old paper {note_id}", "abstract": f"{ABSTRACT} [{note_id}]",
                        "authors": ["Grace Hopper"], "authorids": ["grace@navy.mil"],
                        "keywords": ["compilers"], "TL;DR": "Compilers are good.",
                        "pdf": f"/pdf/{note_id}.pdf", "paperhash": "hopper|old_paper",
                        **content}}
    if replies is not None:
        note["details"] = {"directReplies": replies}
    return note


def decision(text: str) -> dict:
    return {"id": "d1", "invitation": "ICLR.cc/2018/Conference/-/Acceptance_Decision",
            "content": {"title": "ICLR 2018 Conference Acceptance Decision", "decision": text}}


def read(tmp_path: Path, notes: list[dict], name: str = "notes.json") -> dict:
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(notes), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps(n) + "\n" for n in notes), encoding="utf-8")
    return {paper.paper_id: paper for paper in read_corpus([path]).papers}


@pytest.mark.parametrize("name", ["notes.json", "notes.jsonl"])
def test_v2_notes_in_an_array_or_lines_keep_every_field(tmp_path: Path, name: str):
    papers = read(tmp_path, [v2_note("abc123", "ICLR 2026 Poster", "ICLR.cc/2026/Conference")],
                  name)
    paper = papers["abc123"]
    assert (paper.title, paper.authors, paper.keywords) == (
        "Paper abc123", ("Ada Lovelace", "Alan Turing"), ("attention", "memory"))
    assert paper.abstract == f"{ABSTRACT} (abc123)" and not paper.title_is_derived
    assert (paper.venue, paper.year, paper.status) == ("ICLR", 2026, POSTER)
    assert paper.url == "https://openreview.net/forum?id=abc123"
    assert paper.external_id("openreview") == "abc123"
    assert paper.field("tldr") == "Sparse attention saves memory."
    assert paper.field("primary_area") == "foundation or frontier models"
    assert paper.field("venue_given") == "ICLR 2026 Poster"
    assert paper.field("venueid") == "ICLR.cc/2026/Conference"
    assert paper.field("authorids") == ("~Ada_Lovelace1", "~Alan_Turing1")
    assert paper.field("cdate") == CDATE_2025
    assert paper.field("readers") is None and paper.field("signatures") is None  # access lists


@pytest.mark.parametrize(("venue", "venueid", "status"), [
    ("ICLR 2026 Oral", "ICLR.cc/2026/Conference", ORAL),
    ("ICLR 2023 notable top 5%", "ICLR.cc/2023/Conference", ORAL),
    ("Submitted to ICLR 2026", "ICLR.cc/2026/Conference/Submission", SUBMITTED),
    ("Submitted to ICLR 2026", None, SUBMITTED),
    ("Submitted to ICLR 2024", "ICLR.cc/2024/Conference/Rejected_Submission", REJECTED),
    ("ICLR 2026 Conference Withdrawn Submission", "ICLR.cc/2026/Conference/Withdrawn_Submission",
     WITHDRAWN),
    ("ICLR 2026 Conference Desk Rejected Submission", None, DESK_REJECTED),
    ("COLM 2024", "colmweb.org/COLM/2024/Conference", ACCEPTED),
    ("Accepted by TMLR", "TMLR", ACCEPTED),
    ("Under review for TMLR", "TMLR/Under_Review", SUBMITTED),
    ("ICML 2024 Workshop on Foundation Models", None, WORKSHOP),
])
def test_the_status_comes_from_the_venue_and_the_venue_id(tmp_path: Path, venue, venueid,
                                                           status):
    paper = read(tmp_path, [v2_note("n1", venue, venueid)])["n1"]
    assert paper.status == status


def test_the_venue_string_gives_the_venue_year_and_track(tmp_path: Path):
    papers = read(tmp_path, [
        v2_note("d1", "NeurIPS 2023 Datasets and Benchmarks Poster",
                "NeurIPS.cc/2023/Track/Datasets_and_Benchmarks"),
        v2_note("c1", "Submitted to ICLR 2026")])
    assert (papers["d1"].venue, papers["d1"].year, papers["d1"].status) == (
        "NeurIPS", 2023, POSTER)
    assert papers["d1"].field("track") == "Datasets and Benchmarks"
    # the year is the venue's (2026), not the note's creation (September 2025)
    assert (papers["c1"].venue, papers["c1"].year) == ("ICLR", 2026)


def test_v1_notes_take_the_decision_among_their_replies(tmp_path: Path):
    blind = "ICLR.cc/2018/Conference/-/Blind_Submission"
    papers = read(tmp_path, [
        v1_note("r1", blind, [decision("Reject")]),
        v1_note("o1", blind, [{"id": "c", "invitation": "x/-/Official_Comment",
                               "content": {"comment": "Nice"}}, decision("Accept (Oral)")]),
        v1_note("w1", blind, [decision("Invite to Workshop Track")]),
        v1_note("u1", blind),
        v1_note("x1", "ICLR.cc/2018/Conference/-/Withdrawn_Submission"),
    ], "notes.jsonl")
    assert {k: p.status for k, p in papers.items()} == {
        "r1": REJECTED, "o1": ORAL, "w1": WORKSHOP, "u1": SUBMITTED, "x1": WITHDRAWN}
    old = papers["u1"]
    assert (old.venue, old.year, old.authors) == ("ICLR", 2018, ("Grace Hopper",))
    assert old.field("tldr") == "Compilers are good." and old.field("paperhash") == "hopper|old_paper"
    assert old.url == "https://openreview.net/forum?id=u1"


def test_a_note_without_venue_or_invitation_year_takes_its_creation_year(tmp_path: Path):
    note = v2_note("y1", None)
    note["invitations"] = ["Some/Workshop/-/Submission"]
    paper = read(tmp_path, [note])["y1"]
    assert paper.year == 2025 and paper.venue is None and paper.status is None


def test_malformed_notes_are_named_and_the_others_read(tmp_path: Path):
    good = v2_note("ok1", "ICLR 2026 Poster")
    bad_title = v2_note("bad1", "ICLR 2026 Poster", title={"nested": "object"})
    bad_authors = v2_note("bad2", "ICLR 2026 Poster", authors="Ada Lovelace")
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps(n) + "\n" for n in (bad_title, good, bad_authors)))
    report = read_corpus([path])
    assert [p.paper_id for p in report.papers] == ["ok1"]
    assert dict(report.skipped) == {
        f"records not read ('title' is not text): {path}:1": 1,
        f"records not read ('authors' is not a list): {path}:3": 1}


def test_v2_contents_saved_without_their_notes_are_read(tmp_path: Path):
    """`json.dump([n.content for n in notes])`: the content alone, each value {"value": x}."""
    content = v2_note("c1", "ICLR 2025 Spotlight")["content"]
    path = tmp_path / "contents.json"
    path.write_text(json.dumps([content]), encoding="utf-8")
    (paper,) = read_corpus([path]).papers
    assert (paper.title, paper.venue, paper.year, paper.status) == (
        "Paper c1", "ICLR", 2025, "Spotlight")
    assert paper.field("tldr") == "Sparse attention saves memory." and paper.url is None


def test_a_forum_id_with_odd_characters_is_quoted_in_the_link(tmp_path: Path):
    paper = read(tmp_path, [v2_note("a&b=c d", "ICLR 2026 Poster")])["a&b=c d"]
    assert paper.url == "https://openreview.net/forum?id=a%26b%3Dc%20d"
