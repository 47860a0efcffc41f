"""Short display titles for papers that have none, derived from the abstract's own words.

The named method, system or dataset when the abstract introduces one ("Lean Finder: a semantic
search engine for Lean and mathlib"), otherwise a short phrase for what the paper is about.
"""

from __future__ import annotations

import re

from explorer.corpus.latex import MATH, fence

MAX_WORDS = 11
MATH_CHARS = 40  # a formula this short is kept in a title as its content, without dollars
_COMMANDS = re.compile(r"\\(?:textbf|textit|emph|underline|texttt|mathbf|mathrm|text)\{([^{}]*)\}")
_MARKUP = [
    (re.compile(r"\*\*?([^*]+)\*\*?"), r"\1"),
    (re.compile(r"\\ell(?![a-zA-Z])"), "\u2113"),
    (re.compile(r"``|''|\\"), ""),
    (re.compile(r"[{}]"), ""),
]
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[$\\*`])")
_INTRO = re.compile(
    r"\b(?:we|this (?:paper|work|study)|our work)\s+(?:first\s+|further\s+|then\s+)?"
    r"(?:propose|introduce|present|develop|design|build|release|construct|curate|create|"
    r"contribute|offer)s?\s+(?P<rest>.+)",
    re.IGNORECASE,
)
_CALLED = re.compile(r"\b(?:called|named|dubbed|termed)\s+(?P<rest>.+)", re.IGNORECASE)
_STUDY = re.compile(
    r"\b(?:we|this (?:paper|work|study))\s+(?:systematically\s+|formally\s+|theoretically\s+)?"
    r"(?:study|studies|investigate|investigates|analy[sz]e|analy[sz]es|examine|examines|explore|"
    r"explores|characteri[sz]e|revisit|prove|show|uncover|"
    r"propose|introduce|present)s?\s+(?P<rest>.+)",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:a|an|the|two|three|our)\s+(?:new|novel|simple|first|unified)?\s*",
                      re.IGNORECASE)
_NAME = re.compile(
    r"^(?P<name>(?:[A-Z0-9][\w.+-]*)(?:\s+(?:[A-Z0-9][\w.+-]*|of|for|and|via|with|in|on)){0,6})"
    r"(?:\s*\((?P<acro>[^()]{2,20})\))?"
)
_STOP_AT = re.compile(
    r"\s(?:that|which|where|while|whereby|by|using|through|to\s+(?!the\b)|in\s+order|"
    r"based\s+on|so\s+that)\s|[,;:(\u2014]|\s-\s|\.\s|\.$"
)
_GENERIC = {"LLM", "LLMs", "VLM", "VLMs", "AI", "ML", "RL", "GPU", "CNN", "GNN", "GNNs", "MLLMs",
            "In", "To", "We", "Our", "This", "These", "It", "However"}


def unwrap_math(text: str, limit: int) -> str:
    """`text` with each formula whose content has at most `limit` characters replaced by that
    content (its dollars dropped); longer formulas are left as written."""
    def content(match: re.Match) -> str:
        formula = match.group()
        inner = formula[len(fence(formula)):-len(fence(formula))]
        return inner if len(inner) <= limit else formula

    return MATH.sub(content, text)


def derive_title(abstract: str) -> str:
    """A short title from the abstract: the introduced name plus what it is, or the topic."""
    text = _clean(abstract)
    if not text:
        return "Untitled"
    sentences = _SENTENCE.split(text)
    for sentence in sentences:
        for pattern in (_INTRO, _CALLED):
            match = pattern.search(sentence)
            if match:
                titled = _named(_ARTICLE.sub("", match.group("rest")))
                if titled:
                    return titled
    for sentence in sentences:
        match = _STUDY.search(sentence)
        if match and not re.match(r"(?:this|these|that|it|how|whether)\b", match.group("rest"), re.I):
            return _phrase(_ARTICLE.sub("", match.group("rest")), capitalise=True)
    return _phrase(sentences[0], capitalise=True)


def _clean(text: str) -> str:
    text = unwrap_math(_COMMANDS.sub(r"\1", text), MATH_CHARS)
    for pattern, repl in _MARKUP:
        text = pattern.sub(repl, text)
    return re.sub(r"\s+", " ", text).strip()


def _named(rest: str) -> str | None:
    """'Lean Finder, a semantic search engine for ...' -> 'Lean Finder: a semantic search engine'."""
    match = _NAME.match(rest)
    if not match:
        return None
    name = match.group("name").strip()
    name = re.sub(r"\s+(?:of|for|and|via|with|in|on)$", "", name)
    acro = (match.group("acro") or "").strip()
    if not _looks_like_name(name) and not _looks_like_name(acro):
        return None
    label = f"{acro} ({name})" if acro and len(name.split()) > 1 else name
    if acro and len(label.split()) > 6:
        label = acro
    after = rest[match.end():].lstrip(" ,:-\u2014").strip()
    described = re.match(r"^(?:which is |that is |i\.e\.,? )?((?:a|an|the)\s+.+)", after)
    if described:
        what = re.sub(r"^(?:an?|the) (?:novel|new) ", "", described.group(1))
        what = what if what.lower().startswith(("a ", "an ", "the ")) else _article(what)
        words = MAX_WORDS - len(label.split())
        return f"{label}: {_phrase(what, max_words=max(words, 5))}"
    return label


def _article(phrase: str) -> str:
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


def _looks_like_name(token: str) -> bool:
    """A coined name: internal capitals or digits (BWCache, R-WoM), or two capitalised words."""
    if not token or token in _GENERIC:
        return False
    words = token.split()
    if len(words) == 1:
        word = words[0]
        return bool(re.search(r"[A-Z].*[A-Z]|\d", word[1:] if len(word) > 1 else "")) or (
            word[0].isupper() and word.lower() not in {"a", "an", "the"} and len(word) > 3
        )
    return sum(w[0].isupper() for w in words) >= 2


def _phrase(text: str, *, max_words: int = MAX_WORDS, capitalise: bool = False) -> str:
    """Cut a clause at its first natural break, then to at most `max_words` words."""
    text = re.sub(r"\s*\([^()]{1,30}\)", "", text)
    clause = text
    for stop in _STOP_AT.finditer(text):
        if len(text[: stop.start()].split()) >= 4:
            clause = text[: stop.start()]
            break
    words = clause.rstrip(" .").split()
    if len(words) > max_words:
        words = words[:max_words]
        while words and words[-1].lower() in {"of", "for", "and", "the", "a", "an", "in", "on",
                                               "with", "to", "via", "from", "at", "by", "or"}:
            words.pop()
        words[-1] = words[-1].rstrip(",;:") + "\u2026"
    phrase = " ".join(words)
    return phrase[:1].upper() + phrase[1:] if capitalise else phrase
