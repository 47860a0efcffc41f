"""The method, system or dataset an abstract introduces, and title candidates that name it
with its expansion or what it is (corpus/titles.py): "Lean Finder: a semantic search engine
for Lean and mathlib", "HEX (Hidden semi-autoregressive EXperts for test-time scaling): a
training-free inference method", "UML (Unpaired Multimodal Learner): a modality-agnostic
training paradigm".
"""

from __future__ import annotations

import re

from explorer.corpus import phrases
from explorer.corpus.clauses import FILLER, Abstract, clause, topics

_SUBJECT = (r"(?:\bwe\b(?:\s+(?:have|has))?|\b(?:this|the|our|the present)\s+(?:paper|work|"
            r"study|article|note|chapter|thesis|report|letter|research)\b)(?:\s+(?:first|"
            r"further|then|also|here|thus|now|additionally|newly|formally|systematically|"
            r"carefully|therefore|hence|finally|subsequently)\b)*\s+")
INTRO_VERBS = (r"propos|introduc|present|develop|design|build|built|releas|construct|curat|"
               r"creat|contribut|offer|annotat|establish|devis|formulat|describ|puts? forth|"
               r"put forward")
INTRO = re.compile(rf"{_SUBJECT}(?:{INTRO_VERBS})\w*\s+(?P<rest>.+)|"
                   rf"\b(?:by|and)\s+(?:{INTRO_VERBS})\w*\s+(?P<by>.+)|"
                   r"\bwe\s+(?:address|tackle|solve|overcome|meet)\s+[^,]{0,40}?\bwith\s+"
                   r"(?P<with>.+)", re.IGNORECASE)
PASSIVE = re.compile(
    r"^(?:(?:in\s+this\s+(?:paper|work|study|article|letter)|here)\s*,?\s+|[^,]{1,60},\s+)?"
    r"(?P<passive>(?!(?:it|this|that|these|those|there|such|although|though|while|since|"
    r"because|as|when|if|many|several|various|numerous|most|some|existing|previous|recent|"
    r"recently|prior|other|different|from|in|on|for|with|by|to|at|based|using|after|before|"
    r"under|over|through|a\s+(?:number|variety|lot))\b).{8,300}?),?\s+(?:is|are|has\s+been)"
    r"\s+(?:(?:\w+ly|also|here|first|then)\s+)?(?:proposed|presented|introduced|developed|"
    r"described|devised|put\s+forward)\b(?!\s+(?:to|by|as|in\s+(?:the|recent)))",
    re.IGNORECASE)
ARTICLE = re.compile(r"^(?:(?:and|or)\s+[a-z]+\s+)?(?:a|an|the|two|three|our|this|some|several|"
                     r"various|many|a\s+few)\s+", re.IGNORECASE)
_NAME_WORD = r"[A-Z0-9\u2113\u0391-\u03c9][\w.+\u2113-]*"
_NAME = re.compile(rf"^(?P<name>{_NAME_WORD}(?:\s+(?:{_NAME_WORD}))" + r"{0,3})")
_INNER = re.compile(r"^(?P<before>[^()]{2,120}?)\s*\((?P<acro>[^()\s]{2,16})\)\s*(?P<after>.*)")
_CALLED = re.compile(r"^(?P<what>.*?),?\s+\(?\b(?:called|named|namely|dubbed|termed|coined|"
                     r"referred\s+to|known)\s+(?:as\s+)?" rf"(?P<name>{_NAME_WORD}.*)")
_REVERSED = re.compile(rf"(?:{_SUBJECT}|\band\s+)(?:{INTRO_VERBS})\w*\s+(?P<what>[^,]{{5,100}}?),"
                       rf"\s+(?P<name>{_NAME_WORD})(?=\s*(?:[.;]|$|,\s+(?:which|that|a|an)\b|"
                       r"which\b|that\b))", re.IGNORECASE)
_CLAIM = (r"(?:achieves?|outperforms?|surpass(?:es)?|improves?|yields?|enjoys?|obtains?|"
          r"reduces?|attains?|delivers?|consistently|significantly|substantially|establishes?)")
# Possessive: "A0A0...A0_" gave back each character to [A-Z0-9]* in turn (n^2 a word).
_OWNED = re.compile(r"\b(?:our|proposed)\s+(?=([\w-]+))")  # the word after, as a lookahead: "our our X"
_CLAIMING = re.compile(rf"(?<![\w-])([\w-]++)(?=\s+{_CLAIM}\b)")  # from a word's start only
_COINED = re.compile(r"(?<![\w-])(?:[A-Za-z\u03bc][a-z]++[A-Z][\w-]*+|[A-Z][A-Z0-9-]{2,}+[a-z]*+"
                     r"[A-Z0-9]*+)(?![\w-])")
# "UML: Unpaired Multimodal Learner, a ...": 2-9 words, or one word that has a second letter
# (as the words used to be split anywhere, exponentially often: each word is now read whole).
_SPELLED_OUT = re.compile(r"^(?:\s*:\s*|\s+-\s+|\s*\u2014\s*)(?P<exp>[A-Za-z][\w-]*+\s*"
                          r"(?:[A-Za-z][\w-]*+\s*){1,8}?|(?=[A-Za-z][\w-]*?[A-Za-z])[A-Za-z][\w-]*+"
                          r"\s*)(?=,|$|\.)")
_AFTER_NAME = frozenset("to for that which is are was with as in on by via".split())
_HEADS = frozenset("system method framework model algorithm approach dataset benchmark library "
                   "toolkit tool architecture network platform pipeline corpus suite "
                   "simulator".split())
GENERIC_NAMES = frozenset(
    "LLM LLMs VLM VLMs AI ML RL GPU GPUs CNN CNNs GNN GNNs MLLM MLLMs NLP CV SOTA SoTA In To We "
    "Our This These It However A An The Large Recent Deep Neural Graph API APIs CPU DNN DNNs "
    "RNN RNNs LSTM MLP MLPs GAN GANs NeRF BERT GPT ImageNet COCO CIFAR MNIST PyTorch GitHub "
    "ChatGPT AUC RGB RGB-D IoT From Recently Moreover Furthermore Finally Then Here Thus "
    "Specifically Particularly Additionally Also Both Each Such".split())


def named(facts: Abstract) -> list[tuple[str, int]]:
    """Candidate titles, with their sentence's index, for the first sentence that introduces
    a named method, system or dataset."""
    for index, sentence in enumerate(facts.sentences):
        found = _name_in(sentence, facts)
        if found:
            return [(title, index) for title in found]
    return []


def coined(facts: Abstract) -> str | None:
    """A coined name the abstract uses at least twice and makes claims for ("TextGTL
    outperforms", "our GIANT"), though it never says it introduces it; else None."""
    counts: dict[str, int] = {}
    for token in _COINED.findall(facts.text):
        counts[token] = counts.get(token, 0) + 1
    claimed = _claimed(facts.text)
    for token, count in sorted(counts.items(), key=lambda item: -item[1]):
        if count < 2 or token in GENERIC_NAMES or token.rstrip("s") in GENERIC_NAMES:
            continue
        if token in claimed:
            return token
    return None


def _claimed(text: str) -> set[str]:
    """Every word (or part of a hyphenated one, as `\\b` cuts it) written after "our" or
    "proposed", or before a claim ("... outperforms"): what `rf"\\b(?:our|proposed)\\s+{token}
    \\b|\\b{token}\\s+{_CLAIM}\\b"` finds for any coined token, found in one pass of the text
    rather than one per token."""
    found = set()
    for run in _OWNED.findall(text):  # "our CoT-based": "CoT", "CoT-", "CoT-based"
        found.update(run[:end] for end in range(1, len(run) + 1)
                     if (end == len(run) and run[-1] != "-")
                     or (end < len(run) and (run[end - 1] == "-") != (run[end] == "-")))
    for run in _CLAIMING.findall(text):  # "the X-IF-based outperforms": "IF-based", ...
        found.update(run[start:] for start in range(len(run))
                     if (start == 0 and run[0] != "-") or (start and (run[start - 1] == "-")
                                                           != (run[start] == "-")))
    return found


def _name_in(sentence: str, facts: Abstract) -> list[str]:
    """The candidates of `sentence` when it introduces a name, else []."""
    bracketed = re.search(rf"\s*\((?:named|called|dubbed|termed)\s+(?P<name>{_NAME_WORD})\)",
                          sentence)
    if bracketed and is_name(bracketed.group("name")):  # "an algorithm (named GloCAL) that"
        head = re.search(r"\b(?:a|an|the)\s+(?:[\w-]+\s+){0,10}[\w-]+$",
                         sentence[:bracketed.start()])
        if head:
            what = head.group() + sentence[bracketed.end():]
            return labelled(bracketed.group("name"), None, ARTICLE.sub("", what), facts)
    for rest in _introduced(sentence):
        found = _name_titles(ARTICLE.sub("", rest), facts)
        if found:
            return found
    called = re.search(r"\b(?P<what>(?:a|an|the)\s+(?:[\w-]+\s+){0,8}?[\w-]+),?\s+(?:called|"
                       rf"named|dubbed|termed)\s+(?:as\s+)?(?P<name>{_NAME_WORD})", sentence)
    if called and is_name(called.group("name")) and facts.text.count(called.group("name")) > 1:
        return labelled(called.group("name"), None, called.group("what"), facts)  # "... called MVFNet"
    reversed_ = _REVERSED.search(sentence)
    if reversed_ and is_name(reversed_.group("name")):
        return labelled(reversed_.group("name"), None, reversed_.group("what"), facts)
    return []


def _introduced(sentence: str) -> list[str]:
    """What `sentence` says is introduced: the object of "we propose ...", the subject of
    "... is proposed"."""
    found = [next(g for g in m.groups() if g) for m in INTRO.finditer(sentence)
             if any(m.groups())]
    passive = PASSIVE.search(sentence)
    return found + ([passive.group("passive")] if passive else [])


def _name_titles(rest: str, facts: Abstract) -> list[str]:
    """Candidates for 'BWCache, a training-free method ...', 'Block-Wise Caching (BWCache),
    a ...', 'a Token Compression (MARC) method for ...', 'a framework for X, namely Y'."""
    called = _CALLED.match(rest.split(". ")[0])
    found = _label(called.group("name")) if called and len(called.group("what")) > 8 else None
    if found:  # "a framework for X, namely TextGTL": the name, and what comes before it
        return labelled(found[0], found[1], called.group("what"), facts)
    found = _label(rest, facts.text)
    return labelled(*found, facts) if found else []


def _label(rest: str, text: str = "") -> tuple[str, str | None, str] | None:
    """(name, its expansion or None, what it is) when `rest` starts with a name; `text`,
    the abstract, tells a coined acronym (used again) from a concept's."""
    inner = _INNER.match(rest)
    spelled = _spelled(inner.group("before"), inner.group("acro")) if inner and is_name(
        inner.group("acro")) else None
    if spelled:
        acro, before, after = inner.group("acro"), inner.group("before"), inner.group("after")
        expansion, lead = spelled
        if after[:1].isalpha() and not re.match(r"(?:which|that|a|an)\b", after):
            if not _titled(expansion) and text.count(acro) < 3:
                return None  # "a semidefinite programming (SDP) relaxation": a concept's
            return acro, None, f"{before} {after}"  # "a ... Token Compression (MARC) method"
        what = lead.rstrip(",") if lead.endswith(",") else ""  # "a framework, Hybrid ... (HTC)"
        return acro, expansion, phrases.with_article(what.split()) if what else _descriptor(after)
    return _headed(rest) or _leading(rest)


def _titled(phrase: str) -> bool:
    """Title case, as a coined name's expansion is: "Memory-Augmented ... Token Compression"."""
    words = [w for w in phrase.split() if phrases.bare(w) not in phrases.TAIL]
    return sum(w[:1].isupper() for w in words) * 2 >= len(words)


def _headed(rest: str) -> tuple[str, str | None, str] | None:
    """A name beside a common noun: "system GenAug that ...", "... gait system CORBYS"."""
    headed = re.match(rf"^(?P<head>[a-z][\w-]*)\s+(?P<name>{_NAME_WORD})(?=[\s,.(:]|$)", rest)
    if headed and phrases.bare(headed.group("head")) in _HEADS and is_name(headed.group("name")):
        name, after = headed.group("name"), rest[headed.end():]  # "a system GenAug that ..."
        return name, None, f"a {headed.group('head')}{after}"
    tailed = re.match(rf"^(?P<what>(?:[\w-]+\s+){{0,8}}(?P<head>[a-z]+))\s+(?P<name>{_NAME_WORD})"
                      r"\s*(?:[.,;]|$)", rest)
    if tailed and tailed.group("head") in _HEADS and is_name(tailed.group("name")):
        return tailed.group("name"), None, f"a {tailed.group('what')}"  # "... system CORBYS"
    return None


def _leading(rest: str) -> tuple[str, str | None, str] | None:
    """A name first: "HEX (Hidden ...), a ...", "UML: Unpaired ..., a ...", "Gelato, a ..."."""
    match = _NAME.match(rest)
    if not match or not is_name(match.group("name").strip()):
        return None
    name = re.sub(r"\s+(?:of|for|and|via|with|in|on)$", "", match.group("name").strip())
    after = rest[len(name):]
    if re.match(r"\s+[a-z]", after) and phrases.bare(after.split()[0]) not in _AFTER_NAME:
        return None  # "an ILP formulation", "a UCB-type algorithm": a modifier, not a name
    if " " not in name and not _coined(name) and not re.match(
            r"\s*(?:[,:(.;\u2014]|$)|\s+(?:-|is)\s", after):
        return None  # "Results on ...": a capitalised word is a name only set off as one
    bracket = re.match(r"^\s*\((?P<exp>[^()]{2,80})\)\s*", after) or _SPELLED_OUT.match(after)
    if not bracket:
        return name, None, _descriptor(after)
    expansion, what = bracket.group("exp").strip(), _descriptor(after[bracket.end():])
    if is_name(expansion) and len(expansion) < len(name) and " " in name:
        return expansion, name, what  # "Matting Anything 2 (MAM2)": the short name first
    if sum(w[:1].isupper() for w in expansion.split()) >= 2:
        return name, expansion, what
    return name, None, what


def _spelled(before: str, acronym: str) -> tuple[str, str] | None:
    """(expansion, the words before it) when `before` (less fillers) ends with the expansion
    of `acronym` and at most one word or an appositive ("a framework, ...") comes first."""
    left = FILLER.sub("", before).split()
    expansion = phrases.long_form(acronym, left[-2 * len(acronym):])
    if not expansion:
        return None
    lead = left[:len(left) - len(expansion)]
    if len(lead) > 1 and not lead[-1].endswith(","):
        return None
    return " ".join(expansion), " ".join(lead)


def _descriptor(after: str) -> str:
    """The appositive after a name: 'a training-free method to ...' ('' when there is none)."""
    after = re.sub(r"^(?:\s*[,:]\s*|\s+-\s+|\s*\u2014\s*|\s+)", "", after, count=1)
    described = re.match(r"^(?:which is |that is |i\.e\.,? |is )?((?:a|an|the)\s+.+)", after)
    purpose = re.match(r"^(?:to|for)\s+(?P<verb>[a-z]+)\s+(?P<rest>.+)", after)
    if purpose and not described:  # "Seq2Path to generate tuples" -> "generating tuples"
        verb = purpose.group("verb")
        return f"{verb if verb.endswith('ing') else phrases.gerund(verb)} {purpose.group('rest')}"
    return described.group(1) if described else ""


def labelled(name: str, expansion: str | None, what: str, facts: Abstract) -> list[str]:
    """Candidate titles for a name: with its expansion, what it is, or both; a descriptor
    that says little ("a generation method") gets what it is for, from the topics."""
    name = name.strip(" ,.")
    words = clause(what).split()
    if expansion and words and " ".join(words).lower().startswith(expansion.lower()):
        expansion = None  # "the Dendritic LIF (DLIF) model": the descriptor says it
    labels = [f"{name} ({expansion})", name] if expansion and expansion != name else [name]
    candidates = []
    for label in labels:
        room = 12 - len(label.split())
        cuts = phrases.cuts(words, room, start=2, content=1)[:3] if words else []
        candidates.extend(f"{label}: {phrases.with_article(cut)}" for cut in cuts)
        if not cuts:
            continue
        if says_little(cuts[0]) and room - len(cuts[0]) >= 3:
            candidates.extend(f"{label}: {phrases.with_article(cuts[0])} for {topic}"
                              for topic in topics(facts, room - len(cuts[0]) - 1, [label, *cuts[0]]))
    if expansion:
        candidates.append(f"{name}: {expansion}")
    if not candidates:
        candidates = [f"{name}: {t}" for t in topics(facts, 11, name.split())]
    return candidates or [name]


def says_little(words: list[str]) -> bool:
    """True for a phrase of seven words or fewer that says nothing of what it is for or about
    ("a generation method", "a million-scale Chain-of-Thought dataset")."""
    return len(words) <= 7 and not _DOMAIN & {w.lower() for w in words}


_DOMAIN = frozenset("for in on to via with from over under across by".split())


def is_name(token: str) -> bool:
    """A coined name: internal capitals or digits (BWCache, R-WoM), or two capitalised words."""
    token = token.strip(" ,.")
    if not token or token in GENERIC_NAMES or ";" in token:
        return False
    words = token.split()
    if len(words) == 1:
        return _coined(words[0]) or (words[0][0].isupper() and len(words[0]) > 3)
    return sum(w[0].isupper() for w in words) >= 2 and words[0] not in GENERIC_NAMES


def _coined(word: str) -> bool:
    """Inner capitals or digits: 'BWCache', 'MoS', 'R-WoM', 'Gaze360', 'TV-\u2113'."""
    return bool(re.search(r"[a-z][A-Z]|[A-Z]{2}|\d|\u2113", word[1:] if len(word) > 1 else "")
                or re.match(r"[\u0391-\u03c9]-[A-Z]", word))
