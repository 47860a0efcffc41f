"""Corpus text -> BibTeX field text that TeX prints as written, with math kept as math.

Corpus text is hostile: every TeX special character is escaped, braces become
\\textbraceleft{} / \\textbraceright{} so BibTeX's brace counting always balances, control
characters become spaces, and the ligatures -- `` '' are broken with {}, so the text read back
(explorer.corpus.latex.to_unicode) is the text written. The one exception is a `$...$` formula
that `kept_formula` accepts: every command on the app's formula whitelist (ui/formulas.py) and
known to LaTeX with amsmath and amssymb, ASCII only, braces balanced as BibTeX counts them, no
bare % # & (a comment, a macro parameter, an alignment), no ^^ (TeX's character code
notation, which can spell a backslash), no \\\\ or environment, \\left and \\right paired, text
commands only around plain words. Such a formula is written `{$...$}` (inline; the braces keep a
style's case changes off it); any other is escaped like the rest, shown as its characters.
"""

from __future__ import annotations

import re

from explorer.corpus.latex import MATH, fence
from explorer.ui.formulas import SAFE_COMMANDS, safe_formula

TEX_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
               "$": r"\$", "%": r"\%", "&": r"\&", "#": r"\#", "_": r"\_",
               "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}
# The whitelist's commands that LaTeX (with amsmath, amssymb) lacks: KaTeX-only ones, and
# those of other packages (mathtools, bm, mathrsfs); and environments (an & outside one errs).
NOT_IN_LATEX = frozenset({"lt", "gt", "omicron", "coloneqq", "bm", "mathscr", "begin", "end"})
EXPORT_COMMANDS = SAFE_COMMANDS - NOT_IN_LATEX
# Commands that take an argument: one that is itself a command (\\tilde\\mathcal O, \\sqrt\\log)
# or none at all (at the end) stops LaTeX, which KaTeX forgives.
ARGUMENT_COMMANDS = frozenset("""
hat widehat tilde widetilde bar overline underline vec dot ddot acute grave breve check
overrightarrow overleftarrow underbrace overbrace frac dfrac tfrac sqrt binom dbinom tbinom
stackrel overset underset boxed mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak
boldsymbol text textrm textbf textit textsf texttt operatorname mathop mathbin mathrel mathord
""".split())
# Commands that are one symbol to TeX, so they may stand alone after ^, _ or an accent.
SYMBOLS = frozenset("""
alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi
pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda
Xi Pi Sigma Upsilon Phi Psi Omega infty prime top bot star ast dagger ddagger circ bullet perp
ell partial nabla emptyset pm mp times cdot aleph imath jmath wp Re Im
""".split())
_TEX_TABLE = str.maketrans({
    **TEX_ESCAPES,
    **{chr(c): " " for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)},
})
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=`)(?=`)|(?<=')(?=')")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_BARE = re.compile(r"(?<!\\)[%#&]|\^\^|\\\\")
_TAKERS = "|".join(sorted(ARGUMENT_COMMANDS))
_TAKES = re.compile(rf"(?:(?<!\\)[_^]|\\(?:{_TAKERS})(?![A-Za-z]))\s*(\\[A-Za-z]+|$)")
_DOUBLE_SCRIPT = re.compile(r"(?<!\\)([_^])\s*(?:[A-Za-z0-9]|\\[A-Za-z]+|\{[^{}]*\})\s*\1")
_TEXT_COMMAND = re.compile(r"\\text(?:rm|bf|it|sf|tt)?(?![A-Za-z])")
_PLAIN_ARGUMENT = re.compile(r"\s*\{[A-Za-z0-9 .,:;'()/+\-]*\}")
_CAPITALISED = re.compile(r"[^\W_]*[^\W_\d][^\W_]*")


def escape_tex(text: str) -> str:
    """Text TeX prints as written and BibTeX sees as brace-balanced; controls become spaces.

    The ligatures TeX (and a reader such as ours) makes of -- --- `` '' are broken with {}, so
    "trees--a forest" comes back as written, not with an en dash."""
    return _LIGATURE.sub("{}", text.translate(_TEX_TABLE))


def kept_formula(formula: str) -> str | None:
    """The content of a `$...$` / `$$...$$` formula if it may stay math in an export
    (whitespace collapsed), else None."""
    inner = " ".join(formula[len(fence(formula)):-len(fence(formula))].split())
    # brackets are plain math to TeX (the app refuses them for its Markdown only)
    if not inner or not inner.isascii() or _BARE.search(inner) \
            or not safe_formula(inner.replace("[", "(").replace("]", ")")):
        return None
    if not _balanced(inner) or inner.count("\\left") != inner.count("\\right"):
        return None
    if any(name not in EXPORT_COMMANDS for name in _COMMAND.findall(inner)):
        return None
    if any(not _PLAIN_ARGUMENT.match(inner, m.end()) for m in _TEXT_COMMAND.finditer(inner)):
        return None  # text mode around anything but plain words (a _ or ^ there errs)
    return inner if _arguments_given(inner) else None


def _arguments_given(inner: str) -> bool:
    """Whether every ^, _ and argument-taking command has an argument LaTeX takes: a symbol,
    a character or a brace group, not a command of several tokens (\\max, \\mathcal) or
    nothing; and no double script (z_i_j)."""
    for match in _TAKES.finditer(inner):
        if match.group(1)[1:] not in SYMBOLS:
            return False
    return _DOUBLE_SCRIPT.search(inner) is None


def _balanced(text: str) -> bool:
    """Braces balanced as BibTeX counts them (a backslash does not hide one)."""
    depth = 0
    for char in text:
        if char in "{}":
            depth += 1 if char == "{" else -1
            if depth < 0:
                return False
    return depth == 0


def tex_text(text: str, *, protect_case: bool = False) -> str:
    """Field text: kept formulas as `{$...$}`, everything else `escape_tex`d. With
    `protect_case` (titles), words with a capital past their first letter ("BERT", "ImageNet")
    are braced so that a style's sentence case leaves them alone."""
    parts, end = [], 0
    for match in MATH.finditer(text):
        inner = kept_formula(match.group())
        if inner is None:
            continue
        parts.append(_words(text[end:match.start()], protect_case))
        parts.append("{$" + inner + "$}")
        end = match.end()
    parts.append(_words(text[end:], protect_case))
    return "".join(parts)


def _words(text: str, protect_case: bool) -> str:
    if not protect_case:
        return escape_tex(text)
    pieces, end = [], 0
    for match in _CAPITALISED.finditer(text):
        word = match.group()
        if any(c.isupper() for c in word[1:]):
            pieces.append(escape_tex(text[end:match.start()]) + "{" + escape_tex(word) + "}")
            end = match.end()
    pieces.append(escape_tex(text[end:]))
    return "".join(pieces)
