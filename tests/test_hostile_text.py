"""Corpus text never becomes a link, image or HTML element, and math cannot take over the page.

The produced Markdown is parsed the way Streamlit's frontend parses it (tests/markdown_check.py)
and every token is checked; generated text is biased to the characters Markdown, directives
and LaTeX give meaning to.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from explorer.ui.text import (
    MAX_FORMULA_CHARS,
    SAFE_COMMANDS,
    escape_markdown,
    rich_markdown,
    safe_formula,
)
from tests.markdown_check import formulas, live_markup

PHISH = "$][Verify your account](https://example.org/phish)$"
IMAGE = "$]![](https://example.org/pixel.png)$"
HOSTILE = [
    PHISH, IMAGE, "$\\rule{2000px}{1500px}$", "$\\kern{900em}x$", "$\\Huge X$",
    "$\\hspace{5000pt}$", "$\\raisebox{900em}{x}$", "$\\href{https://example.org}{x}$",
    "$\\url{https://example.org}$", "$\\includegraphics{https://example.org/x.png}$",
    "$\\htmlClass{x}{y}$", "$\\htmlStyle{width:9999px}{y}$", "$\\htmlId{x}{y}$",
    "$\\htmlData{a=b}{y}$", "$\\color{red}{\\rule{99em}{99em}}$", "$" + "\\mathrm{x}" * 200 + "$",
    "$\\def\\a{\\a\\a}\\a$", "$a\\\\[9999em]b$", "$$\\\\ \\\\ \\\\$$", "$x](https://e.org)$",
    "$\\sqrt[<img src=x>]{2}$", "$<img src=x onerror=alert(1)>$", "$`code`$",
    "[a](https://example.org) ![b](https://example.org/i.png) <https://example.org>",
    "https://example.org www.example.org me@example.org <b>bold</b> <!-- c -->",
    ":red[x] :yellow-background[y](https://example.org) :material/home:",
    "$a$](https://example.org)", "\\$][x](https://example.org)\\$", "$$][x](https://e.org)$$",
    "a\n\n$$\n][x](https://example.org)\n$$\n\nb", "\\\\]][x](https://example.org)",
]
SAFE_MATH = ["$x^2 + y^2$", "$O(n \\log n)$", "$\\alpha$-stable", "$$\\sum_{i=1}^n x_i$$",
             "$\\mathbb{R}^{d}$", "$a < b > c$", "$\\{x \\mid x > 0\\}$",
             "$\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}$"]
SIZE_COMMANDS = {"rule", "kern", "mkern", "hskip", "mskip", "hspace", "vspace", "raisebox",
                 "Huge", "huge", "LARGE", "Large", "large", "href", "url", "includegraphics",
                 "htmlClass", "htmlStyle", "htmlId", "htmlData", "color", "textcolor",
                 "colorbox", "fcolorbox", "def", "gdef", "newcommand", "renewcommand", "let",
                 "qquad", "char", "vphantom", "phantom"}
# TeX's control sequences: a backslash and its letters, or a backslash and one other character
# (`\\`, a line break, then `A` is no command `\A`: Hypothesis once generated `$\\A$`).
_COMMAND = re.compile(r"\\(?:([A-Za-z]+)|.)", re.DOTALL)


def assert_inert(markdown: str) -> None:
    assert live_markup(markdown) == [], markdown
    for formula in formulas(markdown):
        assert len(formula) <= MAX_FORMULA_CHARS and not set("[]<>`") & set(formula), formula
        commands = {name for name in _COMMAND.findall(formula) if name}
        assert commands <= SAFE_COMMANDS and not commands & SIZE_COMMANDS, formula


def spans_of(text: str, cuts: list[int]) -> list[tuple[int, int]]:
    edges = sorted({min(cut, len(text)) for cut in cuts})
    return list(zip(edges[::2], edges[1::2]))


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_stays_text_highlighted_or_not(text):
    sentence = f"We study this. {text} It works."
    for marked in ([], [(0, len(sentence))], [(sentence.index(text), len(sentence))],
                   [(3, sentence.index(text) + 2)]):
        markdown = rich_markdown(sentence, marked)
        assert_inert(markdown)
        assert "example.org" not in "".join(formulas(markdown))
    assert_inert(escape_markdown(sentence))


def test_the_phishing_formula_is_shown_as_its_characters():
    markdown = rich_markdown(f"Log in: {PHISH}", [(0, 30)])
    assert formulas(markdown) == []
    assert "Verify your account" in markdown and "\\]\\[Verify" in markdown


@pytest.mark.parametrize("formula", SAFE_MATH)
def test_ordinary_math_is_still_rendered(formula):
    markdown = rich_markdown(f"We bound {formula} here.", [(0, 12)])
    assert_inert(markdown)
    assert len(formulas(markdown)) == 1


def test_the_formula_rules():
    assert safe_formula("x^2 + \\frac{a}{b}") and safe_formula("\\{a\\}")
    for bad in ("]", "a[1]", "\\rule{1em}{1em}", "\\unknowncommand", "{", "}{", "a\\",
                "x" * (MAX_FORMULA_CHARS + 1), "\\begin{filecontents}x\\end{filecontents}",
                "\\\\" * 9, "a\x00b"):
        assert not safe_formula(bad), bad


def test_a_highlight_across_paragraphs_is_closed_in_each():
    text = "One sentence.\n\nTwo sentence."
    markdown = rich_markdown(text, [(0, len(text))])
    assert markdown.count(":yellow-background[") == 2
    assert all(part.endswith("]") for part in markdown.split("\n\n"))


HOSTILE_ALPHABET = st.sampled_from(list("$$$[]()!<>*_\\`:{}#|~&@/ \n") + ["\\\\", "](", "![",
                                   "https://e.org", "\\rule", "\\alpha", "$$", "\\frac", "^"])
TEXT = st.one_of(st.text(max_size=80),
                 st.lists(st.one_of(HOSTILE_ALPHABET, st.text(max_size=3)), max_size=40
                          ).map("".join),
                 st.sampled_from(HOSTILE).flatmap(
                     lambda bad: st.text(max_size=20).map(lambda pad: pad + bad + pad)))


@settings(max_examples=1500, deadline=None)
@given(TEXT, st.lists(st.integers(0, 120), max_size=6))
@example("$\\\\A$", [])  # a line break, then a letter (its oracle once read `\A` there)
@example("$\\\\\\A$", [])  # a line break, then the command `\A`: never a formula
def test_generated_text_never_becomes_markup(text, cuts):
    assert_inert(rich_markdown(text, spans_of(text, cuts)))
    assert_inert(escape_markdown(text))
