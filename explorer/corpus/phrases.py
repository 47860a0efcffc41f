"""POS-free phrase tools for derived titles (corpus/titles.py): the abstract's acronym
definitions, cutting a clause to a complete phrase, word salience and YAKE keyphrases.

No part-of-speech tagger: a phrase is cut only just before a preposition, conjunction or
relative word, where English noun phrases end, and never on a function word, inside brackets
or between "between" and its "and".
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence

# Words a noun phrase may end just before: prepositions, relatives, conjunctions.
BOUNDARY = frozenset(
    "of for in on with via to by from across under over between through into using at against "
    "without within among toward towards beyond that which where whose while as and or "
    "based leveraging featuring comprising spanning".split())
# Words a title never ends on.
TAIL = frozenset(
    "a an the of for in on with via to by from at as and or nor but that which who whose where "
    "this these those its their our his her both such more most less very than into onto using "
    "based can may is are be been being was were not also only new novel first each every any "
    "either neither between among over under up down per its it they we us we'll i.e. e.g. "
    "etc so thus toward towards within without upon about through across versus vs according "
    "due prior related compared respect regard namely able order rather instead together "
    "well all whether how what has have had been do does".split())
ANAPHORA = frozenset("this these those such both it its they them their above aforementioned "
                     "former latter".split())
GENERIC = frozenset(
    "method methods approach approaches framework frameworks model models technique techniques "
    "algorithm algorithms system systems paper work study novel new simple effective efficient "
    "problem problems task tasks performance results result existing proposed propose show "
    "state-of-the-art based using use new various different several large data learning "
    "family way ways strategy scheme module paradigm tool tools".split())
VAGUE = frozenset("performance efficiency effectiveness advantage benefit output result ability "
                  "capability level gain achieve superior".split())
_CLOSED = frozenset("where whose which whereby wherein while whereas".split())
_VERBS = ("apply identify show achieve evaluate demonstrate propose introduce present provide "
          "develop design use train learn find solve yield enable improve reduce outperform "
          "release analyze analyse study investigate establish prove derive obtain compute "
          "construct extend combine integrate leverage exploit employ conduct perform test "
          "validate verify compare benchmark discuss explore examine reveal uncover observe "
          "report offer create generate build define formulate characterize quantify measure "
          "assess predict estimate select capture preserve maintain support allow ensure "
          "require reach surpass match exceed attain deliver produce make take give adapt "
          "transfer encode decode align incorporate refine mitigate address tackle remove "
          "cast decompose model simulate annotate curate collect release open-source").split()
# Verbs of abstracts' prose, base, third-person and past forms: "... datasets and apply".
COMMON_VERBS = frozenset(_VERBS + [v + ("es" if v.endswith(("s", "sh", "ch", "x")) else "s")
                                   for v in _VERBS] + [v + ("d" if v.endswith("e") else "ed")
                                                       for v in _VERBS])
_DOUBLED = frozenset("set get run put cut plan stop drop map ship admit submit commit permit "
                     "begin refer prefer control equip scan trim swap tap pin fit split sit "
                     "let tag dig wrap skip clip crop grab strip flip step sidestep "
                     "bootstrap".split())
_WORD = re.compile(r"[A-Za-z][\w'-]*")
_DEFINED = re.compile(r"\(([A-Za-z0-9][A-Za-z0-9-]{0,11}?)(s?)\)")


def bare(word: str) -> str:
    """A word lower-cased without the punctuation around it ("(MAP)," -> "map")."""
    return word.strip(".,;:!?()[]{}\"'`").lower()


def stem(word: str) -> str:
    """A crude stem for counting: lower case, plural s dropped."""
    word = bare(word)
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def salience(text: str) -> Counter:
    """How often each content stem occurs in `text` (function and generic words excluded)."""
    return Counter(s for s in map(stem, _WORD.findall(text)) if s not in TAIL and s not in GENERIC)


def score(words: Sequence[str], counts: Counter) -> float:
    """A phrase's weight: its distinct content stems, each by how often the abstract uses it
    (log2, capped at 8 uses: a word used once adds only its length credit), less for
    anaphora ("both paradigms") and for vague words ("performance", "advantages")."""
    stems = {stem(w) for w in words}
    weight = sum(math.log2(min(counts.get(s, 0), 8)) + 0.25 for s in stems if counts.get(s))
    return weight - 3.0 * sum(bare(w) in ANAPHORA for w in words) - 1.5 * len(stems & VAGUE)


def definitions(text: str) -> dict[str, str]:
    """Acronyms the text defines, "Large Language Models (LLMs)" -> {"LLM": "Large Language
    Model"} (the singular), found as Schwartz and Hearst (2003) do: the shortest run of words
    before the brackets that holds the acronym's characters in order, the first one starting
    a word."""
    found: dict[str, str] = {}
    for match in _DEFINED.finditer(text):
        acronym, plural = match.group(1), bool(match.group(2))
        if acronym in found or sum(c.isupper() for c in acronym) < 2:
            continue
        count = min(len(acronym) + 5, 2 * len(acronym))
        words = text[:match.start()].rsplit(None, count)[-count:]  # read back to them only
        expansion = long_form(acronym, words)
        if expansion:
            if plural and expansion[-1].endswith("s"):
                expansion[-1] = expansion[-1][:-1]
            found[acronym] = " ".join(expansion)
    return found


def long_form(acronym: str, words: Sequence[str]) -> list[str] | None:
    """The shortest run of `words` (ending the list) that spells `acronym`, or None."""
    if not words or any(not _WORD.fullmatch(w) and not w.isdigit() for w in words[-2:]):
        return None
    for size in range(1, len(words) + 1):
        run = list(words[-size:])
        if _spells(acronym, " ".join(run)):
            return run if len(run) >= 2 or run[0].count("-") >= 1 else None
    return None


def _spells(acronym: str, phrase: str) -> bool:
    """Schwartz-Hearst: `acronym`'s letters and digits found right to left in `phrase`, the
    first at the start of the phrase's first word."""
    chars = [c.lower() for c in acronym if c.isalnum()]
    position = len(phrase) - 1
    for index in range(len(chars) - 1, -1, -1):
        while position >= 0 and (phrase[position].lower() != chars[index] or (
                index == 0 and position > 0 and phrase[position - 1].isalnum())):
            position -= 1
        if position < 0:
            return False
        position -= 1
    return " " not in phrase[:position + 1]  # the match starts in the run's first word


def complete(words: Sequence[str], budget: int, *, start: int = 1) -> list[str] | None:
    """The longest prefix of `words` of at most `budget` words (and at least `start`) that
    is a complete phrase, or None."""
    return next(iter(cuts(words, budget, start=start)), None)


def cuts(words: Sequence[str], budget: int, *, start: int = 1, content: int = 2
         ) -> list[list[str]]:
    """Every prefix of `words` of `start` to `budget` words that is a complete phrase with
    at least `content` content words, longest first."""
    ends = [len(words)] + [i for i in range(len(words) - 1, start - 1, -1) if _ends_before(words, i)]
    relative = next((i for i, w in enumerate(words) if bare(w) in _CLOSED), len(words))
    ends = [e for e in ends if e <= relative or e == len(words)]  # "where ..." is kept whole
    found = []
    for end in sorted({e for e in ends if start <= e <= budget}, reverse=True):
        following = bare(words[end]) if end < len(words) else ""
        said = [w for w in words[:end] if bare(w) not in TAIL and bare(w) not in GENERIC]
        if len(said) >= content and is_complete(words[:end], following):
            found.append(list(words[:end]))
    return found


def _ends_before(words: Sequence[str], index: int) -> bool:
    """True when a noun phrase may end just before words[index]: a preposition, relative or
    conjunction, or a participle after a plural ("optimizers assigning", "models trained")."""
    word = bare(words[index])
    if words[index].startswith("(") or not word:
        return False
    if word in BOUNDARY:
        return True
    before = words[index - 1]
    return len(word) > 5 and word.endswith(("ing", "ed")) and (
        before.endswith(",") or (bare(before).endswith("s") and not bare(before).endswith("ss")))


def _ends_well(words: Sequence[str], following: str) -> bool:
    """The last word can end a phrase that `following` would have continued."""
    lowered = [bare(w) for w in words[-2:]]
    if lowered[-1] in TAIL or words[-1].endswith((",", "-", ":", "/")) or not lowered[-1]:
        return False
    before = lowered[0] if len(lowered) > 1 else ""
    if before == "to" or (following == "of" and before in ("the", "a", "an", "its", "their")):
        return False  # "to assess", "the advantages" (of ...)
    if following in BOUNDARY and following not in ("and", "or") and lowered[-1].endswith("ed"):
        return False  # "parametrized" (by ...), "equipped" (with ...)
    if following in ("that", "how", "whether") and lowered[-1].endswith("ing") and (
            before.endswith("s")):
        return False  # "results showing" (that ...)
    return not (len(words) > 1 and words[-2].endswith(","))  # "to characterize, quantify"


def is_complete(words: Sequence[str], following: str = "") -> bool:
    """True when `words` can stand as a phrase: it does not end on a function word, a comma,
    a hyphen or an infinitive ("to assess"), its brackets and quotes close, a "between" has
    its "and", a relative clause has a verb and an object, "the advantages" is not cut from
    its "of ...", and a cut before "and"/"or" does not split a list."""
    if not words or not _ends_well(words, following):
        return False
    last = words[-1]
    lowered = [bare(w) for w in words]
    text = " ".join(words)
    if text.count("(") != text.count(")") or text.count("[") != text.count("]"):
        return False
    if text.count('"') % 2:
        return False
    for pair, mate in (("between", "and"), ("both", "and"), ("either", "or")):
        if pair in lowered and mate not in lowered[lowered.index(pair):]:
            return False
    relatives = [i for i, w in enumerate(lowered) if w in ("that", "which", "whose", "where")]
    if relatives and len(words) - relatives[-1] - 1 < 2:
        return False
    return not (following in ("and", "or") and (last.endswith(",") or "," in text[-40:]))


def gerund(verb: str) -> str:
    """'extend' -> 'extending', 'leverage' -> 'leveraging', 'set' -> 'setting'."""
    verb = verb.lower()
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and verb != "be":
        return verb[:-1] + "ing"
    return verb + (verb[-1] if verb in _DOUBLED else "") + "ing"


def with_article(words: Sequence[str]) -> str:
    """A descriptor with "a"/"an" fitted to its first word ("a action" -> "an action")."""
    words = list(words)
    if words and bare(words[0]) in ("a", "an") and len(words) > 1:
        words[0] = _article(words[1])
    elif words and bare(words[0]) != "the" and not words[0][:1].isupper() and not (
            bare(words[0]).endswith("ing")):
        words.insert(0, _article(words[0]))
    return " ".join(words)


def _article(word: str) -> str:
    """'an' before a vowel sound ("an action", "an LLM"), else 'a' ("a unified", "a UML")."""
    if word.isupper() and len(word) > 1:
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    lowered = word.lower()
    if lowered.startswith(("uni", "use", "usu", "uti", "eu", "one", "ubiq")):
        return "a"
    return "an" if lowered[:1] in "aeiou" else "a"


@functools.lru_cache(maxsize=1)
def _extractor():
    import yake  # loaded on first need: most titles never ask for keyphrases

    return yake.KeywordExtractor(lan="en", n=3, top=25, dedupLim=0.7)


@functools.lru_cache(maxsize=256)
def keyphrases(text: str, top: int = 5) -> list[str]:
    """The text's top keyphrases by YAKE (unsupervised, no model), best first, dropping
    those that start or end on a function word or hold a verb-like word of the prose."""
    kept = []
    for phrase, _ in _extractor().extract_keywords(text):
        words = phrase.split()
        if bare(words[0]) in TAIL or bare(words[-1]) in TAIL or not is_complete(words):
            continue
        if any(w.lower() in _PROSE for w in words):
            continue
        kept.append(phrase)
        if len(kept) == top:
            break
    return kept


_PROSE = frozenset(
    "achieve achieves remains remain shown show shows require requires required limited limit "
    "face faces suffer suffers recent recently emerged demonstrate demonstrated challenge due "
    "typically increasingly significant significantly promising potential potentially common "
    "existing widely used crucial important key critical fundamental major primary main remarkable "
    "attracted attention enable enables enhance improve improves propose proposed introduce "
    "introduced present presented offer offers lack lacks relies rely hinder hinders".split())
