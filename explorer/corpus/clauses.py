"""An abstract prepared for titling (corpus/titles.py): plain words, sentences, word counts and
acronyms; clauses shortened to what a title keeps; the abstract's topic phrases.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from explorer.corpus import phrases
from explorer.corpus.latex import MATH, fence

KEYPHRASE_CHARS = 700  # YAKE reads the abstract's opening (its cost grows with the text)
# Titling reads an abstract's first READ_CHARS characters (cut at a space): real abstracts are
# shorter (paperlists-ml: 99.9% under 2,200, 1 of 92k over 5,000), and a longer text would
# only cost time (its sentences, acronyms and names are each looked for in the whole text).
READ_CHARS = 20_000
MATH_CHARS = 40  # a formula this short, of letters, digits and Greek, is kept as its content
_GREEK = dict(zip(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta kappa lambda mu nu xi pi rho "
    "sigma tau phi varphi chi psi omega Gamma Delta Theta Lambda Pi Sigma Phi Psi Omega ell "
    "infty".split(), "\u03b1\u03b2\u03b3\u03b4\u03b5\u03b5\u03b6\u03b7\u03b8\u03ba\u03bb\u03bc"
    "\u03bd\u03be\u03c0\u03c1\u03c3\u03c4\u03c6\u03c6\u03c7\u03c8\u03c9\u0393\u0394\u0398"
    "\u039b\u03a0\u03a3\u03a6\u03a8\u03a9\u2113\u221e"))
_COMMANDS = re.compile(r"\\(?:textbf|textit|emph|underline|texttt|mathbf|mathrm|text|textsc|"
                       r"method)\{([^{}]*)\}")
_MARKUP = [
    # Markdown links and images: their text; Streamlit directives: their label. No "[" inside
    # either: a try then stops where the next one would start (else "[[[..." costs n^2).
    (re.compile(r"!?\[([^\[\]]*)\]\([^)\[]*\)"), r"\1"),
    (re.compile(r":[a-z][\w-]*\[([^\[\]]*)\]"), r"\1"),
    (re.compile(r"<[^<>]{0,200}>"), " "),  # HTML tags
    (re.compile(r"\*\*?([^*]+)\*\*?"), r"\1"),
    (re.compile(r"\\ell(?![a-zA-Z])_?"), "\u2113"),
    (re.compile(r"``|''|\\"), ""),
    (re.compile(r"[{}]"), ""),
    # Web and mail addresses: the word holding one (matched from the word's start only: tried
    # at every letter, "\S*" made a long word cost n^2, and "\S+@\S+" n^3).
    (re.compile(r"\burl\S*+|(?<!\S)(?:\S*https?://\S*+|\S*www\.\S++|\S[^\s@]*+@\S+\.\w++)"), ""),
]
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[$\\*`\"])")
FILLER = re.compile(
    r"\b(?:(?:novel|new|very)(?=[\s,])|simple(?:,)? (?:yet|but|and) (?:effective|powerful)|"
    r"first-of-its-kind|"
    r"surprisingly|(?:specifically|explicitly|directly|effectively|efficiently|seamlessly|"
    r"dynamically|adaptively|substantially|significantly|strategically|carefully|meticulously|"
    r"systematically|simultaneously|jointly|naturally|quantitatively|principled(?= evaluation)))"
    r",?\s+", re.IGNORECASE)
_DESIGNED = re.compile(r"\b(?:designed|tailored|dedicated|intended|built|developed)\s+"
                       r"(?:(?P<to>to)\s+(?=(?:the|a|an|[a-z]+-|[A-Z])\b)|(?P<keep>to|for)\s+)")
_STOP = re.compile(r"[;:\u2014?]|\s-\s|\.(?:\s|$)|\s(?:so|such)\s+that\b|\sin\s+order\s+to\b|"
                   r",\s+(?=(?:which|where|while|whereby|thereby|thus|and|or|but|so|as|i\.e|"
                   r"e\.g|including|such|along|without|with|by|a|an|the|using|in which|that|"
                   r"namely|respectively|yet|to|two|three|four|five|[a-z]+ing|(?:pre-|co-|self-)?[a-z]+ed)\b)")
_HYPHENATED = re.compile(r"[\w-]+")  # words as an acronym's uses are counted ("LLMs", "3D-LLM")
_ADJECTIVE = re.compile(r"-|(?:al|ive|ic|ous|ful|less|able|ible|ent|ant|ary|ed)$")


@dataclass(frozen=True)
class Abstract:
    """What title candidates are judged against: the cleaned text, its sentences (questions
    dropped), how often each content word occurs (an acronym's uses count for the words of
    its expansion too) and the acronyms it defines."""

    text: str
    sentences: tuple[str, ...]
    counts: Counter
    acronyms: dict[str, str]

    @classmethod
    def of(cls, abstract: str) -> Abstract:
        text = clean(opening(abstract))
        sentences = tuple(s for s in _SENTENCE.split(text) if not s.rstrip().endswith("?"))
        acronyms = phrases.definitions(text)
        counts = phrases.salience(text)
        for acronym, expansion in acronyms.items():
            for word in expansion.split():
                stem = phrases.stem(word)
                counts[stem] = max(counts[stem], counts[phrases.stem(acronym)])
        return cls(text, sentences or (text,), counts, acronyms)

    def expansion(self, word: str) -> str:
        """The expansion of `word` when it is an acronym the abstract defines (or its plural)."""
        word = word.strip(",.;:()")
        return self.acronyms.get(word) or (self.acronyms.get(word[:-1], "") if word.endswith("s")
                                           else "")


def opening(abstract: str) -> str:
    """The abstract's first READ_CHARS characters, less a word the cut would split."""
    if len(abstract) <= READ_CHARS:
        return abstract
    head = abstract[:READ_CHARS]
    return head if abstract[READ_CHARS].isspace() else head.rsplit(None, 1)[0]


def clean(text: str) -> str:
    """Plain words: markup, links and LaTeX commands dropped; a short formula of letters
    kept as its content ("$\\alpha$-Nets" -> "\u03b1-Nets"), any other one ends the clause."""
    text = MATH.sub(_formula, _COMMANDS.sub(r"\1", text))
    for pattern, repl in _MARKUP:
        text = pattern.sub(repl, text)
    return re.sub(r"\s+", " ", text).strip()


def _formula(match: re.Match) -> str:
    formula = match.group()
    inner = formula[len(fence(formula)):-len(fence(formula))].strip()
    commands = re.findall(r"\\([A-Za-z]+)", inner)
    if len(inner) <= MATH_CHARS and all(c in _GREEK for c in commands) and not re.search(
            r"[\^{}=<>|$\[\]()]|_\{", inner):
        return re.sub(r"\\([A-Za-z]+)\s?", lambda m: _GREEK[m.group(1)], inner).replace("_", "")
    return " ; "


def clause(text: str) -> str:
    """`text` without fillers ('novel', 'specifically') or brackets, cut at its first hard
    stop (a semicolon, ", which", "so that", ...); a list ("A, B, and C") is cut before it
    ends, and a second verb ("datasets and apply ...") is dropped."""
    text = FILLER.sub("", text)
    text = _DESIGNED.sub(lambda m: "for " if m.group("to") else f"{m.group('keep')} ", text)
    text = re.sub(r"(?<!\s)\s*+\([^()]{1,40}\)", "", text)  # from a run's first space only
    stop = _STOP.search(text)
    kept = text[:stop.start()] if stop else text
    if stop and re.match(r",\s+(?:and|or)\b", text[stop.start():]) and "," in kept:
        head = kept.partition(",")[0].split()
        kept = " ".join(head[:-1] if head and _ADJECTIVE.search(head[-1]) else head)
    words = kept.split()
    verb = next((i for i in range(1, len(words)) if phrases.bare(words[i - 1]) in ("and", "or")
                 and phrases.bare(words[i]) in phrases.COMMON_VERBS), None)
    return " ".join(words[:verb - 1] if verb else words).strip(" ,.")


def topics(facts: Abstract, room: int, taken: list[str]) -> list[str]:
    """The abstract's topic phrase (YAKE keyphrases, a defined term first) of at most `room`
    words that shares no content word with `taken` (nor their expansions), as a list of one
    or none. A keyphrase must occur twice or be a defined term: one seen once is often a
    fragment of prose ("efforts target spoken")."""
    taken = [*taken, *(e for w in taken for e in facts.expansion(w).split())]
    used = {phrases.stem(w) for w in taken}
    defined = {e.lower() for e in facts.acronyms.values()}
    lowered = facts.text.lower()
    kept = []
    words = Counter(_HYPHENATED.findall(facts.text))  # one pass, however many acronyms
    uses = {a: words[a] + words[f"{a}s"] for a in facts.acronyms}
    terms = [_plural(facts.acronyms[a]) if f"{a}s" in facts.text else facts.acronyms[a]
             for a in sorted(uses, key=lambda a: -uses[a]) if uses[a] >= 3]
    for phrase in terms + phrases.keyphrases(facts.text[:KEYPHRASE_CHARS], top=15):
        stems = {phrases.stem(w) for w in phrase.split()}
        if 2 <= len(phrase.split()) <= room and not used & stems and (
                lowered.count(phrase.lower()) >= 2 or phrase.lower().rstrip("s") in defined
                or phrase in terms):
            kept.append(phrase)
    kept.sort(key=lambda p: p.lower().rstrip("s") not in defined)
    return [_as_written(p, facts.text) for p in kept[:1]]


def _plural(phrase: str) -> str:
    return phrase if phrase.endswith("s") else phrase + "s"


def _as_written(phrase: str, text: str) -> str:
    """A keyphrase lower-cased when the abstract writes it so ("Synthetic data generation"
    at a sentence start, "synthetic data generation" within one)."""
    lowered = phrase[:1].lower() + phrase[1:]
    return lowered if f" {lowered}" in text else phrase
