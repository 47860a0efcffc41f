"""Short display titles for papers that have none, derived from the abstract's own words.

A title names what the paper contributes, is a complete phrase and has at most MAX_WORDS
words. In order of preference:
- the method, system or dataset the abstract introduces, with its expansion or what it is
  ("Lean Finder: a semantic search engine for Lean and mathlib"; corpus/names.py);
- what the paper proposes or studies ("Implicit bias of incremental Adam for logistic
  regression on linearly separable data"), or how ("Extending self-improvement to operate
  over joint multi-agent actions"), led by the name it makes claims for if it has one;
- else the first sentence's opening phrase, or the abstract's top keyphrases (YAKE).
Candidates are cut only where a phrase ends (phrases.cuts); of the first sentence that offers
one naming enough of the abstract's frequent words (phrases.score), the best wins; acronyms
the abstract defines are written out where room allows.
"""

from __future__ import annotations

import re

from explorer.corpus import names, phrases
from explorer.corpus.clauses import Abstract, clause, topics

MAX_WORDS = 12
ENOUGH = 3.0  # a candidate scoring this (phrases.score) names enough of the abstract's words
_STUDY = re.compile(
    r"(?:\bwe\b(?:\s+(?:have|has))?|\b(?:this|the|our)\s+(?:paper|work|study|article|note|"
    r"chapter|thesis|report|letter|research)\b)(?:\s+(?:first|further|then|also|here|thus|now|"
    r"formally|systematically|carefully|theoretically|empirically)\b)*\s+(?:stud|investigat|"
    r"analy[sz]|examin|explor|characteri[sz]|revisit|consider|address|tackl|focus(?:es)? on|"
    r"look at|prove|uncover|identif|quantif|evaluat|benchmark|compar|measur|prob|assess|"
    r"formali[sz]|provid|deriv|give|obtain|initiat|review|survey|summari[sz]|discuss)\w*\s+"
    r"(?P<rest>.+)", re.IGNORECASE)
_MEANS = re.compile(r"\bwe\s+[^,]{0,60}?\bby\s+(?P<verb>[a-z]+ing)\s+(?P<rest>.+)|"
                    r"\b(?:our\s+(?:goal|aim|objective|purpose)\s+(?:here\s+)?is|"
                    r"we\s+(?:aim|seek|set\s+out|strive|attempt|try))\s+to\s+(?P<base>[a-z]+)\s+"
                    r"(?P<more>.+)|^(?:[\w,-]+\s+){0,5}?we\s+(?P<any>[a-z]+)\s+(?P<object>.+)",
                    re.IGNORECASE)
_NOT_MEANS = frozenset("are have has can will would should could may might also show find "
                       "observe demonstrate prove believe hope note argue do did then further "
                       "first next now here thus therefore".split())
_REFUSED = re.compile(r"(?:this|these|that|it|how|whether|why|what|when|us|to|our|on|in|"
                      r"a\s+(?:set|series|number))\b", re.IGNORECASE)
_QUESTION = re.compile(r"(?:how|whether|why|what|when)\s+\w+\s+\w+", re.IGNORECASE)
_LEAD = re.compile(r"^(?:(?:in|over)\s+(?:recent|the\s+(?:last|past))\s+(?:years|decades?)|"
                   r"recently|nowadays|today|to\s+date|currently|in\s+this\s+(?:paper|work|"
                   r"study|article),?\s+we\s+\w+)\s*,?\s*", re.IGNORECASE)
_SUBORDINATE = re.compile(r"(?:while|although|though|if|as|since|despite|given|with|because|"
                          r"when|whereas|unlike|to|in|on|for|from|at|over|during|after|"
                          r"before|under)\b", re.IGNORECASE)
_OBJECT = re.compile(r"^(?:the\s+)?(?:problem|task|question|challenge|issue|use|notion|"
                     r"concept|idea)\s+of\s+", re.IGNORECASE)


def derive_title(abstract: str) -> str:
    """A title of at most MAX_WORDS words from the abstract alone: the introduced name and
    what it is, else what the paper proposes, studies or does, else its opening or keyphrases."""
    facts = Abstract.of(abstract)
    if not re.search(r"\w", facts.text):
        return "Untitled"
    found = names.named(facts)
    if not found:
        name = names.coined(facts)
        room = MAX_WORDS - (len(name.split()) if name else 0)
        found = _contributions(facts, room, name) or _means(facts, room)
        if name and found:
            found = [(f"{name}: {_lower(title)}", index) for title, index in found]
        elif name:
            found = [(title, 0) for title in names.labelled(name, None, "", facts)]
    return _best(found or _fallback(facts), facts) or "Untitled"


def _best(candidates: list[tuple[str, int]], facts: Abstract) -> str:
    """The best-scored candidate, finished, of the first sentence whose best says enough (the
    first statement of a contribution is the main one; later ones elaborate), else the best.
    An acronym left unexplained (no room to write it out) costs a point."""
    scored = []
    for title, index in candidates:
        title = _finish(title, facts)
        words = title.split()
        unexplained = sum(bool(facts.expansion(w)) for w in words[1:] if not w.endswith(":"))
        scored.append((phrases.score(words, facts.counts) - unexplained, index, title))
    for index in sorted({index for _, index, _ in scored}):
        best = max((item for item in scored if item[1] == index), key=lambda item: item[0])
        if best[0] >= ENOUGH:
            return best[2]
    return max(scored, key=lambda item: item[0])[2]


def _contributions(facts: Abstract, room: int, name: str | None = None) -> list[tuple[str, int]]:
    """What the paper proposes or studies, as a noun phrase of at most `room` words:
    'Implicit bias of incremental Adam for logistic regression on linearly separable data'
    (what it proposes listed first in a sentence; `name` is not a topic of its own)."""
    candidates = []
    for index, sentence in enumerate(facts.sentences):
        found = [next(g for g in m.groups() if g) for m in names.INTRO.finditer(sentence)]
        studied = [m.group("rest") for m in _STUDY.finditer(sentence)]
        passive = names.PASSIVE.search(sentence)
        found += studied + ([passive.group("passive")] if passive else [])
        for rest in found:
            if _REFUSED.match(rest) and not (rest in studied and _QUESTION.match(rest)):
                continue  # "we study this": nothing to name; "we study why X": a question
            words = clause(_OBJECT.sub("", names.ARTICLE.sub("", rest))).split()
            cuts = phrases.cuts(words, room, start=2)[:3]
            candidates.extend((" ".join(cut), index) for cut in cuts)
            if cuts and names.says_little(cuts[0]):  # "Causal autoregressive buffer": for what
                candidates.extend((f"{' '.join(cuts[0])} for {topic}", index) for topic in
                                  topics(facts, room - len(cuts[0]) - 1, [*cuts[0], name or ""]))
    return candidates


def _means(facts: Abstract, room: int) -> list[tuple[str, int]]:
    """How the paper does it, as a gerund phrase: 'Extending self-improvement to ...'."""
    candidates = []
    for index, sentence in enumerate(facts.sentences):
        for match in _MEANS.finditer(sentence):
            verb = match.group("verb") or phrases.gerund(match.group("base") or match.group("any"))
            rest = match.group("rest") or match.group("more") or match.group("object")
            if match.group("any") and (match.group("any").lower() in _NOT_MEANS or _REFUSED.match(
                    rest) or match.group("any").lower().endswith(("ed", "s"))):
                continue
            cut = phrases.complete([verb.capitalize(), *clause(rest).split()], room, start=3)
            if cut:
                candidates.append((" ".join(cut), index))
    return candidates


def _fallback(facts: Abstract) -> list[tuple[str, int]]:
    """No contribution statement: the first sentence's main clause ("While X, Y remains
    open" -> Y), cut to a phrase, or the two top keyphrases joined."""
    first = _LEAD.sub("", facts.sentences[0])
    if _SUBORDINATE.match(first) and "," in first:
        first = first.split(",", 1)[1]
    opening = phrases.complete(clause(first).split(), MAX_WORDS, start=2)
    if opening:
        return [(" ".join(opening), 0)]
    top = [t for t in topics(facts, MAX_WORDS // 2, []) if " " in t]
    words = [w for w in first.split() if w != ";"]
    return [(top[0], 0)] if top else [(" ".join(words[:MAX_WORDS]), 0)]


def _lower(title: str) -> str:
    """A phrase as it reads after a name and a colon: 'a method ...', 'Markov fields ...'."""
    first = title.split()[0]
    if first[1:].islower() and first[:1].isupper():
        title = first.lower() + title[len(first):]
    if first.lower().endswith(("ing", "s")):
        return title  # "extending ...", "graphs ...": no article
    return phrases.with_article(title.split())


def _finish(title: str, facts: Abstract) -> str:
    """Acronyms the abstract defines written out (not the name) while the title stays within
    MAX_WORDS; no trailing punctuation; first letter capital."""
    words = title.split()
    index = next((i for i, w in enumerate(words) if w.endswith(":")), -1) + 1
    while index < len(words):
        word = words[index].strip(",.;:()")
        expansion = facts.expansion(word).split()
        if expansion and all(w.islower() for w in expansion[1:]):
            expansion[0] = expansion[0].lower()
        if expansion and word not in facts.acronyms and not expansion[-1].endswith("s"):
            expansion[-1] += "s"  # "LLMs" -> "large language models"
        known = {phrases.stem(w) for w in words}
        if expansion and len(words) - 1 + len(expansion) <= MAX_WORDS and not (
                {phrases.stem(e) for e in expansion} <= known):
            words[index:index + 1] = expansion
            index += len(expansion)
        else:
            index += 1
    title = " ".join(words[:MAX_WORDS]).strip(" ,;:.")
    title = re.sub(r"\b([Aa])n? (?=(\S+))", lambda m: _article(m.group(1), m.group(2)), title)
    return title[:1].upper() + title[1:] if title[:1].isascii() else title  # a Greek letter stays


def _article(letter: str, word: str) -> str:
    """'a' or 'an' before `word`, in the case of `letter` ("a algorithm" -> "an algorithm")."""
    article = phrases.with_article(["a", word]).split()[0]
    return (article if letter == "a" else article.capitalize()) + " "
