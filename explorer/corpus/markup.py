"""LaTeX text markup as a person reads it: `\\emph{is}` -> is, `\\textbf{x}` -> x, `{\\em x}` ->
x, `\\citet{zhang2016}` / `\\citep[p.~3]{a,b}` / `\\cite*{x}` and `\\ref{fig:1}` dropped,
`Figure~1` -> Figure 1, ``` ``quoted'' ``` -> “quoted”, `\\url{x}` -> x, `\\href{u}{text}` ->
text. Math (`$...$`, corpus/latex.py's MATH) is left exactly as written: the app renders it
through its own whitelist. Any other command stays as written (nothing is guessed).

`readable` also moves character spans of the text (highlights) to the same words in what it
returns. It reads the text once (braces matched by one pass with a stack, each token found by
a regular expression without nested repeats, each optional argument looked for within
OPTION_CHARS), so hostile text costs time linear in its length.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence

from explorer.corpus.latex import math_spans

KEPT = frozenset(("emph textbf textit texttt textsc textrm textsf textsl textup textmd "
                  "textnormal underline uline text mbox url").split())
DROPPED = frozenset(("cite citet citep citealp citealt citeauthor citeyear citeyearpar nocite "
                     "parencite textcite autocite footcite label ref eqref cref Cref autoref "
                     "pageref").split())
SWITCHES = frozenset(("em bf it tt sc rm sf sl itshape bfseries ttfamily scshape rmfamily "
                      "sffamily upshape mdseries normalfont").split())
SPACING = {"\\\\": " ", "\\,": " ", "\\;": " ", "\\:": " ", "\\ ": " ", "\\!": "", "\\/": ""}
QUOTES = {"``": "“", "''": "”"}
OPTION_CHARS = 200  # an optional argument ([p.~3]) longer than this is not one
# A command; a run of spacing commands, of ties (~ between two non-spaces) or of TeX quotes;
# a brace that opens a font switch's group ({\em x}). Other braces are no token: a kept
# command's closing brace is found by position (_Cleaner.closings).
_TOKEN = re.compile(r"\\[A-Za-z]+\*?|(?:\\[\\,;:! /])+|(?<=\S)~+(?=\S)|(?:``)+|(?:'')+"
                    r"|\{(?=\\[A-Za-z])")
_SPACING_RUN = re.compile(r"\\[\\,;:! /]")
_AFTER_DROP = frozenset(".,;:)]!? \t\n")

Span = tuple[int, int]


def readable(text: str, spans: Sequence[Span] = ()) -> tuple[str, list[Span]]:
    """`text` with its LaTeX text markup as a reader reads it (math kept as written), and
    `spans` (character spans of `text`) moved to the same characters in it."""
    if "\\" not in text and "~" not in text and "``" not in text and "''" not in text:
        return text, list(spans)
    cleaner = _Cleaner(text)
    cleaner.run()
    where = cleaner.where
    return "".join(cleaner.out), [(where[min(max(s, 0), len(text))],
                                   where[min(max(e, 0), len(text))]) for s, e in spans]


def _matching_braces(text: str) -> dict[int, int]:
    """{index of "{": index of its "}"} for the balanced braces of `text` (`\\{` is no brace)."""
    matches: dict[int, int] = {}
    stack: list[int] = []
    escaped = {position + 1 for position in _escapes(text)}
    for index, char in enumerate(text):
        if char == "{" and index not in escaped:
            stack.append(index)
        elif char == "}" and index not in escaped and stack:
            matches[stack.pop()] = index
    return matches


def _escapes(text: str) -> list[int]:
    """Indexes of the backslashes that escape the next character (a `\\\\` pair escapes none)."""
    found, index = [], text.find("\\")
    while index >= 0:
        found.append(index)
        index = text.find("\\", index + 2)
    return found


class _Cleaner:
    """One pass over a text: `out` the pieces written, `where[i]` the offset in the output at
    which the text's character i lands (len(text)+1 entries)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[str] = []
        self.size = 0
        self.where: list[int] = [0] * (len(text) + 1)
        self.braces = _matching_braces(text)
        self.closings: list[int] = []  # heap: the "}" of kept commands' groups, dropped

    def copy(self, start: int, end: int) -> None:
        if end > start:
            self.where[start:end] = range(self.size, self.size + end - start)
            self.out.append(self.text[start:end])
            self.size += end - start

    def replace(self, start: int, end: int, new: str) -> None:
        self.where[start:end] = [self.size] * (end - start)
        if new:
            self.out.append(new)
            self.size += len(new)

    def run(self) -> None:
        text, position, closings = self.text, 0, self.closings
        maths = math_spans(text)
        maths.append((len(text), len(text)))
        for math_start, math_end in maths:
            while position < math_start:
                while closings and closings[0] < position:
                    heapq.heappop(closings)  # inside a dropped citation or a formula
                limit = min(math_start, closings[0]) if closings else math_start
                token = _TOKEN.search(text, position, limit)
                if token is None:
                    self.copy(position, limit)
                    position = limit
                    if closings and closings[0] == limit < math_start:
                        heapq.heappop(closings)
                        self.replace(limit, limit + 1, "")
                        position = limit + 1
                    continue
                self.copy(position, token.start())
                position = self.token(token.group(), token.start(), token.end())
            self.copy(position, math_end)
            position = max(position, math_end)
        self.where[len(text)] = self.size

    def token(self, token: str, start: int, end: int) -> int:
        """Write what the token at text[start:end] reads as -> where to go on reading."""
        first = token[0]
        if first == "~":
            self.replace(start, end, " " * len(token))
        elif first in "`'":
            self.replace(start, end, QUOTES[token[:2]] * (len(token) // 2))
        elif first == "{":
            return self.group(start, end)
        elif token[1:2].isalpha():
            return self.command(token[1:].rstrip("*"), start, end)
        else:
            self.replace(start, end, _SPACING_RUN.sub(lambda m: SPACING[m.group()], token))
        return end

    def group(self, start: int, end: int) -> int:
        """`{\\em x}`: the braces of a group that starts with a font switch are dropped."""
        switch = _TOKEN.match(self.text, end)
        close = self.braces.get(start)
        if switch and switch.group()[1:] in SWITCHES and close is not None:
            heapq.heappush(self.closings, close)
            self.replace(start, end, "")
        else:
            self.copy(start, end)
        return end

    def command(self, name: str, start: int, end: int) -> int:
        text = self.text
        if name in SWITCHES:
            after = end + 1 if end < len(text) and text[end] == " " else end
            self.replace(start, after, "")
            return after
        if name in DROPPED:
            return self.drop(start, end)
        argument = self.braces.get(end) if end < len(text) and text[end] == "{" else None
        if name == "href" and argument is not None:
            second = argument + 1
            if self.braces.get(second) is not None and text[second:second + 1] == "{":
                heapq.heappush(self.closings, self.braces[second])
                self.replace(start, second + 1, "")
                return second + 1
        if name in KEPT and argument is not None:
            heapq.heappush(self.closings, argument)
            self.replace(start, end + 1, "")
            return end + 1
        self.copy(start, end)
        return end

    def drop(self, start: int, end: int) -> int:
        """A citation or reference with its [options] and {keys}, and the space before it when
        punctuation or a space follows ("results~\\cite{x}." -> "results.")."""
        text, position = self.text, end
        while position < len(text) and text[position] == "[":
            close = text.find("]", position, position + OPTION_CHARS)
            if close < 0:
                break
            position = close + 1
        close = self.braces.get(position) if text[position:position + 1] == "{" else None
        if close is None:
            self.copy(start, end)
            return end
        position = close + 1
        if (position == len(text) or text[position] in _AFTER_DROP) and self.out and \
                self.out[-1][-1:].isspace():
            self.out[-1] = self.out[-1][:-1]
            self.size -= 1
        self.replace(start, position, "")
        return position
