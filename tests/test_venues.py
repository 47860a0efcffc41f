"""Venues and statuses in one place (corpus/venues.py): venue strings split, full names, the
status vocabulary and which statuses mean published; reference lists' stated statuses."""

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
    PUBLISHED,
    REJECTED,
    SPOTLIGHT,
    STATUSES,
    SUBMITTED,
    WITHDRAWN,
    WORKSHOP,
    citable_rank,
    published,
    status_of,
    venue_named,
    venue_of,
)
from tests.test_corpus import ABSTRACT_A

ICLR = "International Conference on Learning Representations"


@pytest.mark.parametrize(("raw", "short", "year", "status", "track"), [
    ("ICLR 2026 Poster", "ICLR", 2026, POSTER, None),
    ("Submitted to ICLR 2026", "ICLR", 2026, SUBMITTED, None),
    ("ICLR 2026 Conference Withdrawn Submission", "ICLR", 2026, WITHDRAWN, None),
    ("ICLR 2018 Conference Blind Submission", "ICLR", 2018, SUBMITTED, None),
    ("ICLR 2024 Conference Desk Rejected Submission", "ICLR", 2024, DESK_REJECTED, None),
    ("ICLR 2023 notable top 25%", "ICLR", 2023, SPOTLIGHT, None),
    ("NeurIPS 2023 Datasets and Benchmarks Poster", "NeurIPS", 2023, POSTER,
     "Datasets and Benchmarks"),
    ("ICML 2024 Workshop on Machine Learning in Health", "ICML", 2024, WORKSHOP,
     "Workshop on Machine Learning in Health"),
    ("Proceedings of the AAAI Conference on Artificial Intelligence", "AAAI", None, None, None),
    ("nips", "NeurIPS", None, None, None),
    ("Advances in Neural Information Processing Systems", "NeurIPS", None, None, None),
    ("Oral Oncology", "Oral Oncology", None, None, None),  # a journal, not an oral
    ("A change log of rss feeds 2020", "A change log of rss feeds 2020", None, None, None),
    ("", None, None, None, None),
])
def test_venue_strings_are_split(raw, short, year, status, track):
    venue = venue_of(raw)
    assert (venue.short, venue.year, venue.status, venue.track) == (short, year, status, track)


def test_a_venue_is_named_in_full_with_its_kind():
    assert venue_of("ICLR 2026 Poster").full == ICLR
    assert venue_of("ICLR 2026 Poster").kind == "conference"
    assert venue_named("TMLR").kind == "journal" and venue_named("arxiv").kind == "preprint"
    assert venue_named("NeurIPS").proceedings == "Advances in Neural Information Processing Systems"
    assert venue_of("ICML 2024 Workshop on X").kind == "workshop"
    assert venue_named("Journal of Nothing") is None


@pytest.mark.parametrize(("text", "status", "exact"), [
    ("Poster", POSTER, True), ("Oral", ORAL, True), ("Spotlight", SPOTLIGHT, True),
    ("Reject", REJECTED, True), ("Withdraw", WITHDRAWN, True), ("Workshop", WORKSHOP, True),
    ("Poster Workshop", WORKSHOP, False), ("Active", SUBMITTED, True),
    ("Accept (Oral)", ORAL, False), ("Accept (Poster)", POSTER, False),
    ("Accept: notable-top-5%", ORAL, False), ("Invite to Workshop Track", WORKSHOP, False),
    ("Desk Reject", DESK_REJECTED, True), ("under review", SUBMITTED, True),
    ("Long", ACCEPTED, False), ("Findings", ACCEPTED, False),
    ("System Demonstrations", ACCEPTED, False), ("Published", PUBLISHED, True),
])
def test_status_words_map_to_the_vocabulary(text, status, exact):
    found = status_of(text)
    assert (found.status, found.exact) == (status, exact)


@pytest.mark.parametrize("text", ["", "   ", "pending", "TBD", "Main track (see note)"])
def test_other_texts_state_no_status(text):
    assert status_of(text) is None


def test_which_statuses_are_published_and_which_version_to_cite():
    assert {s for s in STATUSES if published(s)} == {ORAL, SPOTLIGHT, POSTER, ACCEPTED,
                                                     PUBLISHED, WORKSHOP}
    assert not published(None)
    ranked = sorted([WITHDRAWN, SUBMITTED, POSTER, None, WORKSHOP, REJECTED], key=citable_rank)
    assert ranked == [WITHDRAWN, REJECTED, SUBMITTED, None, WORKSHOP, POSTER]


def test_reference_lists_state_a_status_where_they_say_one(tmp_path: Path):
    (tmp_path / "refs.bib").write_text(
        "@inproceedings{a, title={Under review paper}, author={A. One}, year={2024},\n"
        "  booktitle={Submitted to The Twelfth International Conference on Learning"
        " Representations}, note={under review}}\n"
        "@article{b, title={Forthcoming paper}, author={B. Two}, journal={J}, pubstate={forthcoming}}\n"
        "@article{c, title={Plain paper}, author={C. Three}, journal={J},"
        " note={Accepted at a workshop, see the talk}}\n", encoding="utf-8")
    (tmp_path / "items.json").write_text(json.dumps([
        {"id": "d", "type": "article-journal", "title": "Submitted item",
         "abstract": ABSTRACT_A, "status": "submitted"}]), encoding="utf-8")
    papers = {p.title: p.status for p in read_corpus([tmp_path]).papers}
    assert papers == {"Under review paper": SUBMITTED, "Forthcoming paper": ACCEPTED,
                      "Plain paper": None, "Submitted item": SUBMITTED}
