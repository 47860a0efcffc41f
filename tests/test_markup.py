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
