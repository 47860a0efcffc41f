"""LaTeX text markup in snippets and abstracts reads as text (corpus/markup.py), math stays
math, corpus text stays inert, and hostile markup costs linear time."""

from __future__ import annotations

import pytest

from explorer.corpus.markup import readable
from explorer.ui.text import rich_markdown
from tests.markdown_check import formulas
from tests.test_hostile_text import assert_inert
from tests.test_linear_time import SIZE, bounded


@pytest.mark.parametrize(("written", "read"), [
    ("Overfitting \\emph{is} common.", "Overfitting is common."),
    ("as \\citet{zhang2016understanding} show, nets memorise", "as show, nets memorise"),
    ("memorise labels~\\citep{zhang2016understanding}.", "memorise labels."),
    ("known \\cite*{a,b}, \\citep[see][p.~3]{c} and more", "known, and more"),
    ("a \\textbf{bold} and \\textit{slanted} \\texttt{code} word", "a bold and slanted code word"),
    ("{\\em emphasised} and {\\bf bold}", "emphasised and bold"),
    ("Figure~\\ref{fig:1} and Table~2", "Figure and Table 2"),
    ("about ~10x faster", "about ~10x faster"),  # a plain-text tilde, not a tie
    ("see \\url{https://x.org/a} or \\href{https://y.org}{our site}", "see https://x.org/a or our site"),
    ("``quoted'' text", "“quoted” text"),
    ("a \\foo{bar} stays", "a \\foo{bar} stays"),  # nothing guessed
    ("\\emph{unclosed and \\cite{never", "\\emph{unclosed and \\cite{never"),
    ("sets \\{0,1\\} and {grouped}", "sets \\{0,1\\} and {grouped}"),
    ("\\emph{nested {braces} kept}", "nested {braces} kept"),
])
def test_markup_reads_as_text(written: str, read: str):
    assert readable(written)[0] == read


def test_math_stays_math_and_is_rendered_as_before():
    text = "We \\emph{bound} $\\epsilon^{2} \\le \\frac{1}{n}$ and $\\emph{x}$ \\citep{a}."
    cleaned, _ = readable(text)
    assert cleaned == "We bound $\\epsilon^{2} \\le \\frac{1}{n}$ and $\\emph{x}$."
    markdown = rich_markdown(text)
    assert formulas(markdown) == ["\\epsilon^{2} \\le \\frac{1}{n}"]  # \emph is off the list
    assert "emph" not in markdown.split("$")[0] and "citep" not in markdown


def test_highlights_follow_the_words():
    text = "We \\emph{propose} X~\\cite{a}. It \\textbf{works} well."
    first, second = text.index(" It"), len(text)
    cleaned, spans = readable(text, [(0, first), (first + 1, second)])
    assert [cleaned[start:end] for start, end in spans] == ["We propose X.", "It works well."]
    markdown = rich_markdown(text, [(first + 1, second)])
    assert ":yellow-background[It works well\\.]" in markdown and "\\\\emph" not in markdown


def test_markup_never_becomes_live_markup():
    text = ("\\emph{<img src=x onerror=alert(1)>} \\textbf{[link](https://e.org)} "
            "\\href{javascript:alert(1)}{click} {\\em *bold*}")
    for marked in ([], [(0, len(text))], [(5, 40)]):
        assert_inert(rich_markdown(text, marked))


@pytest.mark.parametrize("piece", ["\\emph{", "\\cite[", "\\cite{", "{\\em ", "\\href{a}",
                                   "$x$ ", "}", "{", "~", "\\citet[a]", "\\emph", "``"])
def test_hostile_markup_costs_linear_time(piece: str):
    text = piece * (SIZE // len(piece)) + " \\cite{end}"
    cleaned, spans = bounded("readable", readable, text, [(0, 10), (100, len(text) // 2)])
    assert len(spans) == 2 and len(cleaned) <= len(text)


# -- the cards -------------------------------------------------------------------------------
def _card_snippets(app) -> list[str]:
    """The highlighted sentences shown on the cards: each card's snippet (a sentence, all of
    it highlighted), and its abstract when the best sentence opens it."""
    return [md.value for md in app.markdown if md.value.startswith(":yellow-background[")]


def test_every_recommendation_card_shows_its_best_sentence(seeds_index, seeds_explorer,
                                                           monkeypatch):
    """Without steering words each card still shows the sentence closest to the liked papers."""
    from tests.test_app import card_ids, run_app

    liked = [paper.paper_id for paper in seeds_explorer.papers[:2]]
    app = run_app(seeds_index, monkeypatch, {"view": "marked", "like": liked})
    cards = card_ids(app, "r")
    assert len(cards) == 10 and len(_card_snippets(app)) >= len(cards)  # none before


def test_question_cards_carry_no_caption_about_cosines(seeds_index, monkeypatch):
    from tests.test_app import QUESTION, card_ids, run_app

    app = run_app(seeds_index, monkeypatch, {"q": QUESTION, "k": "20"})
    captions = " ".join(caption.value for caption in app.caption)
    assert len(card_ids(app, "q")) == 20 and len(_card_snippets(app)) >= 20
    assert "higher cosines" not in captions


def test_the_cli_shows_abstracts_and_sentences_as_text(tmp_path):
    """`explorer search` (and --explain) prints the markup as text too; --json keeps the
    abstract as the corpus wrote it."""
    import json
    import subprocess
    import sys

    from explorer.ingest.run import build

    corpus = tmp_path / "papers.jsonl"
    corpus.write_text(json.dumps({"id": "m", "title": "Memorisation in deep networks",
                                  "abstract": "Deep networks \\emph{memorise} random labels~"
                                  "\\citet{zhang2016}. Generalization is \\textbf{hard}."}))
    build([corpus], tmp_path / "index", "default")
    command = [sys.executable, "-m", "explorer.cli", "search", "--index", str(tmp_path / "index"),
               "memorising random labels"]
    shown = subprocess.run([*command, "--explain"], capture_output=True, text=True, check=True)
    assert "Deep networks memorise random labels. Generalization is hard." in shown.stdout
    assert "> match" in shown.stdout and "\\emph" not in shown.stdout and "citet" not in shown.stdout
    raw = subprocess.run([*command, "--json"], capture_output=True, text=True, check=True)
    assert "\\emph{memorise}" in json.loads(raw.stdout)[0]["abstract"]
