"""Derived titles: complete phrases of at most MAX_WORDS words that name the contribution, inert
on the card whatever the abstract holds, never in place of a real title, and recomputed by a
rebuild (an old index keeps its own until then) without embedding anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.corpus import entries as corpus_entries
from explorer.corpus import phrases
from explorer.corpus.papers import Paper, read_corpus
from explorer.corpus.titles import MAX_WORDS, derive_title
from explorer.ingest import run as builder
from explorer.query.engine import Explorer
from explorer.ui.page import title_markdown
from studies.title_study import judged
from tests.conftest import ROOT, SEEDS
from tests.test_hostile_text import HOSTILE, assert_inert

JUDGED = ROOT / "studies" / "results" / "titles-seeds.md"
# The seeds' weak titles before this version (issue 14): a sentence of the abstract, the start
# the title must have now and words it must hold (the expansion or what the name is).
WEAK_BEFORE = [
    ("modality-agnostic training paradigm", "UML (Unpaired Multimodal Learner):", "paradigm"),
    ("Hidden semi-autoregressive EXperts", "HEX (Hidden semi-autoregressive EXperts", "method"),
    ("Node Affinity prediction model using VIrtual State", "NAVIS:", "Node Affinity prediction"),
    ("alternative framing of the QD problem", "Soft QD:", "framing of the quality-diversity"),
    ("termed TP-Spikformer", "TP-Spikformer:", "token pruning method"),
    ("we introduce **MisinfoTask**", "MisinfoTask:", "realistic tasks"),
    ("we propose a novel TV-$\\ell_1$ framework", "TV-\u2113", "membrane potential"),
    ("Time series foundation models (TSFMs)", "Understanding how", "training process"),
    ("legal LLMs", "Method to analyze the inference patterns", "Large Language Models"),
    ("Recent advances in 3D Large Language Models", "SCoT:", "Chain-of-Thought dataset"),
]


@pytest.fixture(scope="module")
def seed_papers() -> list[Paper]:
    return [p for p in read_corpus([SEEDS]).papers if p.title_is_derived]


def assert_complete(title: str) -> None:
    words = title.split()
    assert 2 <= len(words) <= MAX_WORDS, title
    assert not title.endswith(("\u2026", "...", ",", ":")), title
    assert phrases.bare(words[-1]) not in phrases.TAIL, title
    assert title.count("(") == title.count(")"), title


@pytest.mark.parametrize(("marker", "start", "words"), WEAK_BEFORE)
def test_the_weak_seed_titles_are_complete_and_named(seed_papers: list[Paper], marker: str,
                                                     start: str, words: str):
    (paper,) = [p for p in seed_papers if marker in p.abstract]
    assert paper.title.startswith(start) and words in paper.title, paper.title
    assert_complete(paper.title)


def test_every_seed_title_is_a_complete_phrase_within_the_bound(seed_papers: list[Paper]):
    assert len(seed_papers) == 71
    for paper in seed_papers:
        assert_complete(paper.title)
        assert paper.title == derive_title(paper.abstract)  # what read_corpus stores


def test_the_judged_seed_titles_are_the_ones_derived(seed_papers: list[Paper]):
    """studies/results/titles-seeds.md judges today's titles (a change brings "to judge")."""
    verdicts = judged(JUDGED)
    current = {(p.paper_id, p.title) for p in seed_papers}
    assert set(verdicts) == current
    good = sum(verdict == "good" for verdict, _ in verdicts.values())
    assert good >= 65 and all(reason for _, reason in verdicts.values())


WORDS = st.sampled_from([
    "We", "propose", "introduce", "present", "study", "a", "an", "the", "novel", "framework",
    "for", "of", "that", "which", "and", ",", ".", "(", ")", ":", "GraphNet", "BWCache", "LLMs",
    "(LLMs)", "Large", "Language", "Models", "learning", "graphs", "$x^2$", "$\\alpha$",
    "[x](https://e.org)", "**bold**", "<b>", "`code`", "\u2014", "-", "called", "named",
    "is", "proposed", "In", "this", "paper,", "by", "extending", "models", "data", "\n",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(WORDS, min_size=0, max_size=80).map(" ".join))
def test_any_abstract_gets_a_bounded_title(abstract: str):
    title = derive_title(abstract)
    assert title and len(title.split()) <= MAX_WORDS, (abstract, title)
    assert "\u2026" not in title and "://" not in title and "](" not in title


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_text_in_an_abstract_stays_inert_on_the_card(hostile: str):
    for abstract in (f"We propose {hostile}, a framework for graphs. {hostile} works well.",
                     f"{hostile} We introduce GraphNet ({hostile}), a model for {hostile} data.",
                     f"We study {hostile} in large language models (LLMs) for {hostile}."):
        title = derive_title(abstract)
        assert len(title.split()) <= MAX_WORDS and "://" not in title, title
        card = Paper(paper_id="p", title=title, title_is_derived=True, abstract=abstract)
        assert_inert(title_markdown(card))


def test_markup_and_links_leave_only_their_words():
    title = derive_title("We propose **[FlowNet](https://evil.example/x)**, a <b>model</b> for "
                         "optical flow. See https://x.org and :red[alarm] too.")
    assert title == "FlowNet: a model for optical flow"
    assert derive_title("We propose $\\alpha$-Nets, a network for molecular graphs.") == (
        "\u03b1-Nets: a network for molecular graphs")
    prices = derive_title("We study why cloud prices rise from $5 to $10 per hour for small teams.")
    assert "from $5 to $10" in prices  # amounts, not math: the app shows them as text too


def test_real_titles_are_never_replaced(tmp_path: Path):
    hostile = "**Bold** [x](https://e.org) $\\rule{9em}{9em}$ <b>t</b>"
    rows = [{"id": "a", "title": "Graph Nets", "abstract": "We propose BWCache, a cache."},
            {"id": "b", "title": hostile, "abstract": "We introduce UML: Unpaired Learner."},
            {"id": "c", "title": "  ", "abstract": "We propose BWCache, a training-free cache."}]
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    found = {p.paper_id: p for p in read_corpus([path]).papers}
    assert (found["a"].title, found["a"].title_is_derived) == ("Graph Nets", False)
    assert (found["b"].title, found["b"].title_is_derived) == (hostile, False)
    assert found["c"].title_is_derived and found["c"].title.startswith("BWCache: a")


def test_an_old_index_keeps_its_titles_until_rebuilt(index_copy: Path, monkeypatch):
    """Titles are stored with the papers: reading never re-derives them; a build with other
    titles rewrites the papers (the corpus hash covers titles) and embeds nothing."""
    before = {p.paper_id: p.title for p in Explorer.open(index_copy).papers}
    monkeypatch.setattr(corpus_entries, "derive_title", lambda abstract: "Old " + abstract[:20])
    assert {p.paper_id: p.title for p in Explorer.open(index_copy).papers} == before
    report = builder.build([SEEDS], index_copy, "default")
    assert (report.embedded, report.up_to_date) == (0, False)
    old = Explorer.open(index_copy).papers
    assert all(p.title.startswith("Old ") for p in old if p.title_is_derived)
    monkeypatch.undo()
    report = builder.build([SEEDS], index_copy, "default")
    assert report.embedded == 0
    assert {p.paper_id: p.title for p in Explorer.open(index_copy).papers} == before
