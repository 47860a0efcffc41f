"""Candidate phrases of papers' text and their class-based TF-IDF weights per topic (BERTopic's
c-TF-IDF, with phrases of one to three content words as the terms and a paper counted once per
phrase): what features/topics/stage_names.py names topics and areas from.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.corpus.phrases import COMMON_VERBS, GENERIC, TAIL
from explorer.corpus.words import ENGLISH, STOP_WORDS

KEY_PHRASES = 8  # key phrases kept per topic (the first is its name)
MAX_NAME_WORDS = 3
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*")
_JOINING = frozenset({"of"})  # inside a phrase ("theory of mind"), never at its ends
# Head nouns of field names that the stop lists hold: a phrase may end on them.
HEADS = frozenset("learning model models data analysis benchmark benchmarks".split())
_EDGE = STOP_WORDS | TAIL | GENERIC  # no phrase starts on these
_ENDS = (STOP_WORDS | TAIL) - HEADS  # nor ends on these ("reinforcement learning" may)
# Verb forms of abstracts' prose ("yields", "demonstrated"): in no phrase; their -ing forms
# start none ("demonstrating ...").
_VERB_FORMS = frozenset(w for w in COMMON_VERBS if w.endswith(("s", "ed"))) - HEADS
_GERUNDS = frozenset(w + "ing" for w in COMMON_VERBS) | frozenset(
    w[:-1] + "ing" for w in COMMON_VERBS if w.endswith("e"))
_NOISE = re.compile(r"https?://\S+|www\.\S+|\$[^$]*\$|\\[A-Za-z]+")
_SEGMENTS = re.compile(r"[.,;:!?()\[\]{}\"\u201c\u201d]|\s[-\u2013\u2014]\s")
# Nouns of academic prose that name no field (each topic has them); never a key phrase alone.
PROSE = frozenset("set number setting solution consider given dataset network feature "
                  "information representation training structure space sample function "
                  "value case time type form order instance label input output point "
                  "quality term level rate step loss cost goal need objective".split())
# Words of abstracts' prose that no phrase holds ("recent advances", "significant gains").
BREAKS = frozenset("prove million recent advance advances significant substantial consistent "
                   "comparable improvement face demonstrating yield overall affect effect "
                   "follow follows".split())
MIN_SHARE = 0.03  # of a topic's papers, at least, use each of its key phrases
LONGER = 0.3  # bonus of each word past the first
WEAKEST = 0.2  # a key phrase weighs at least this share of its topic's best one



def phrases(text: str) -> set[str]:
    """The candidate phrases of `text`, as keys (lower case, plural s dropped): runs of one to
    MAX_NAME_WORDS words inside one clause (no URL, formula or bracket) that start on a content
    word, end on no function word, hold no function word but "of", and, if one word, are not
    generic ("learning" alone is no name, "reinforcement learning" is)."""
    found = set()
    for segment in _SEGMENTS.split(_NOISE.sub(" ", text)):
        words = [w.lower() for w in _TOKEN.findall(segment)]
        for start, first in enumerate(words):
            if first in _EDGE or first in _GERUNDS or len(first) < 2:
                continue
            for end in range(start, min(start + MAX_NAME_WORDS, len(words))):
                word = words[end]
                if (end > start and word in ENGLISH and word not in _JOINING) or (
                        word in _VERB_FORMS or word in BREAKS):
                    break
                if word in _ENDS or (end == start and (word in GENERIC or word.endswith("ly"))):
                    continue
                found.add(" ".join(_stem(w) for w in words[start:end + 1]))
    return found


@dataclass(frozen=True)
class Counts:
    """Phrase counts of a corpus grouped into topics: `per_topic` topic id -> Counter (papers of
    the topic using each phrase), `overall` papers using each phrase anywhere, `sizes` papers
    per topic."""

    per_topic: dict[int, Counter]
    overall: Counter
    sizes: Counter

    @property
    def mean(self) -> float:
        return sum(self.sizes.values()) / max(len(self.per_topic), 1)


def count(found: Sequence[set[str]], labels: np.ndarray, ids: Sequence[int]) -> Counts:
    """The Counts of papers with phrases `found` (phrases() of each) and topics `labels` (n,)."""
    per_topic = {int(topic): Counter() for topic in ids}
    overall: Counter = Counter()
    for used, label in zip(found, labels):
        per_topic[int(label)].update(used)
        overall.update(used)
    return Counts(per_topic, overall, Counter(int(label) for label in labels))


def weights(counts: Counts, topic: int, allowed: set[str] | None = None,
            least_share: float = MIN_SHARE) -> dict[str, float]:
    """c-TF-IDF of each phrase of `topic`: the share of its papers using it times log(1 +
    papers per topic / papers using it anywhere), longer phrases a little ahead; phrases fewer
    than `least_share` of the topic's papers use (at least 2 papers in a topic of 4 or more),
    PROSE, and those outside `allowed` (None: any) left out."""
    size = max(counts.sizes[topic], 1)
    least = max(2 if size >= 4 else 1, least_share * size)
    return {phrase: (n / size) * math.log(1 + counts.mean / counts.overall[phrase])
            * (1 + LONGER * phrase.count(" "))
            for phrase, n in counts.per_topic[topic].items()
            if n >= least and phrase not in PROSE and (allowed is None or phrase in allowed)}


def ranked(weighed: dict[str, float], top: int, weakest: float = WEAKEST) -> list[str]:
    """The `top` best phrases of `weighed`, best first, none inside or holding a better one,
    none weighing under `weakest` of the best one."""
    order = sorted(weighed, key=lambda p: (-weighed[p], p))
    return _distinct([p for p in order if weighed[p] >= weakest * weighed[order[0]]], top)


def _distinct(ranked: Sequence[str], top: int) -> list[str]:
    kept: list[str] = []
    for phrase in ranked:
        if len(kept) == top:
            break
        padded = f" {phrase} "
        if not any(padded in f" {k} " or f" {k} " in padded for k in kept):
            kept.append(phrase)
    return kept


def _stem(word: str) -> str:
    """A plural folded to its singular, crudely ("processes" -> "process", "entities" ->
    "entity", "networks" -> "network"); surface() finds the written form again."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _written(word: str) -> str:
    """A pattern of the forms of a _stem key word."""
    if word.endswith("y"):
        return re.escape(word[:-1]) + "(?:y|ies)"
    return re.escape(word) + "(?:es|s)?"


def surface(phrase: str, docs: Sequence[str]) -> str:
    """`phrase` as its papers most often write it ("lidar point clouds" -> "LiDAR point
    clouds"), its first letter raised; the lower-case form when no paper has it."""
    pattern = re.compile(r"\b" + r"[\s-]+".join(map(_written, phrase.split())) + r"\b", re.I)
    forms: Counter = Counter()
    for doc in docs:  # Title Case is how titles write, not how the phrase is spelled
        for found in pattern.findall(doc):
            forms[found] += 0.2 if " " in found and found.istitle() else 1
    best = forms.most_common(1)[0][0] if forms else phrase
    best = " ".join(best.split())
    return best[:1].upper() + best[1:]


