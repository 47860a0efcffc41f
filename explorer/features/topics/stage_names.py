"""Topics at two levels, computed at build time: the map's k-means topics grouped into a few
broad areas, each topic and area named by a short phrase.

Names are class-based TF-IDF over phrases (BERTopic's c-TF-IDF, with phrases of one to three
content words as the terms and a paper counted once per phrase): the phrase most of a topic's
papers use and few others do. Topics and areas keep the order of their ids; `describe` returns
the JSON the map stores (features/topics/stage.py).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from explorer.corpus.papers import Paper
from explorer.corpus.phrases import COMMON_VERBS, GENERIC, TAIL
from explorer.corpus.words import ENGLISH, STOP_WORDS

KEY_PHRASES = 8  # key phrases kept per topic (the first is its name)
NEIGHBOURS = 4  # neighbouring topics kept per topic, by the cosine of their centres
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


def area_count(topics: int) -> int:
    """How many broad areas group `topics` fine topics: one below 4, else about sqrt(topics)."""
    if topics < 4:
        return 1
    return int(min(topics - 1, max(2, round(math.sqrt(topics)))))


def group_topics(vectors: np.ndarray, labels: np.ndarray, ids: Sequence[int],
                 areas: int | None = None) -> dict[int, int]:
    """Fine topic id -> area number (0..areas-1): Ward's linkage of the topics' unit centres
    (`vectors` (n, d), `labels` (n,)), so each area holds whole topics. On paperlists-ml's IJCAI
    and AAAI papers it matched their primary_area better than k-means of the centres at 6
    areas and as well at 12 and 18 (AMI 0.345 vs 0.297 at 6; studies/DECISIONS.md item 14)."""
    from sklearn.cluster import AgglomerativeClustering

    areas = area_count(len(ids)) if areas is None else areas
    if areas <= 1:
        return {int(topic): 0 for topic in ids}
    centres = topic_centres(vectors, labels, ids)
    grouped = AgglomerativeClustering(n_clusters=areas, linkage="ward").fit_predict(centres)
    order = {old: new for new, old in enumerate(dict.fromkeys(int(g) for g in grouped))}
    return {int(topic): order[int(g)] for topic, g in zip(ids, grouped)}


def topic_centres(vectors: np.ndarray, labels: np.ndarray, ids: Sequence[int]) -> np.ndarray:
    """Unit mean vector (k, d) of each topic's papers, in the order of `ids` (zero if empty)."""
    centres = np.zeros((len(ids), vectors.shape[1]), dtype=np.float64)
    for row, topic in enumerate(ids):
        members = vectors[labels == topic]
        if len(members):
            centre = members.mean(axis=0, dtype=np.float64)
            centres[row] = centre / max(float(np.linalg.norm(centre)), 1e-12)
    return centres


def closeness(vectors: np.ndarray, labels: np.ndarray, ids: Sequence[int]) -> np.ndarray:
    """Cosine (n,) of each paper to its own topic's centre: the most central papers first."""
    centres = topic_centres(vectors, labels, ids)
    position = {int(topic): row for row, topic in enumerate(ids)}
    rows = np.array([position[int(label)] for label in labels], dtype=np.int64)
    out = np.empty(len(labels), dtype=np.float64)
    for start in range(0, len(labels), 8192):
        part = slice(start, start + 8192)
        out[part] = np.einsum("ij,ij->i", vectors[part].astype(np.float64), centres[rows[part]])
    return out


def neighbours(centres: np.ndarray, ids: Sequence[int], count: int = NEIGHBOURS) -> dict[int, list[int]]:
    """Topic id -> the ids of the `count` topics whose centres (k, d) are closest, closest first."""
    scores = centres @ centres.T
    np.fill_diagonal(scores, -np.inf)
    kept = min(count, len(ids) - 1)
    return {int(topic): [int(ids[j]) for j in np.argsort(-scores[i], kind="stable")[:kept]]
            for i, topic in enumerate(ids)}


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


def key_phrases(found: Sequence[set[str]], labels: np.ndarray, ids: Sequence[int],
                top: int = KEY_PHRASES,
                allowed: dict[int, set[str]] | None = None) -> dict[int, list[str]]:
    """Topic id -> its `top` key phrases (as phrases() keys), best first, given the phrases()
    of each paper (`found`) and its topic (`labels`); `allowed` restricts each topic's
    candidates. A phrase inside a better one, or holding it, is left out. c-TF-IDF: the share
    of the topic's papers using the phrase times log(1 + papers per topic / papers using it
    anywhere), longer phrases a little ahead; a phrase fewer than MIN_SHARE of the topic's
    papers use, or weighing under WEAKEST of its best, is no key phrase."""
    per_topic = {int(topic): Counter() for topic in ids}
    overall: Counter = Counter()
    for used, label in zip(found, labels):
        per_topic[int(label)].update(used)
        overall.update(used)
    sizes = Counter(int(label) for label in labels)
    mean = len(found) / max(len(ids), 1)
    chosen = {}
    for topic, counts in per_topic.items():
        size = max(sizes[topic], 1)
        least = max(2 if size >= 4 else 1, MIN_SHARE * size)
        weights = {phrase: (n / size) * math.log(1 + mean / overall[phrase])
                   * (1 + LONGER * phrase.count(" "))
                   for phrase, n in counts.items()
                   if n >= least and phrase not in PROSE
                   and (allowed is None or phrase in allowed[topic])}
        ranked = sorted(weights, key=lambda p: (-weights[p], p))
        kept = [p for p in ranked if weights[p] >= WEAKEST * weights[ranked[0]]]
        chosen[topic] = _distinct(kept, top)
    return chosen


def _distinct(ranked: Sequence[str], top: int) -> list[str]:
    kept: list[str] = []
    for phrase in ranked:
        if len(kept) == top:
            break
        padded = f" {phrase} "
        if not any(padded in f" {k} " or f" {k} " in padded for k in kept):
            kept.append(phrase)
    return kept


def names(ranked: dict[int, list[str]]) -> dict[int, str]:
    """Topic id -> its name: its best key phrase that no topic named before it took (topics
    in id order), else its best one; "" for a topic without key phrases."""
    used: set[str] = set()
    out: dict[int, str] = {}
    for topic in sorted(ranked):
        fresh = [p for p in ranked[topic] if p not in used]
        out[topic] = (fresh or ranked[topic] or [""])[0]
        used.add(out[topic])
    return out


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


def paper_text(paper: Paper) -> str:
    """What a topic is named from: the title (unless derived) and the abstract."""
    return paper.abstract if paper.title_is_derived else f"{paper.title}. {paper.abstract}"


def describe(papers: Sequence[Paper], vectors: np.ndarray, labels: np.ndarray,
             counted: np.ndarray) -> dict:
    """The two levels of topics of papers with fine topic `labels` (n,) and `vectors` (n, d);
    phrases are counted on the rows `counted`. Returns {"topics": [{"id", "label", "terms",
    "size", "area", "neighbours"}], "areas": [{"id", "label", "terms", "size", "topics"}],
    "neighbours"}], "closeness": [n]}: each label a short phrase, terms its key phrases."""
    ids = sorted(set(int(label) for label in labels))
    area_of = group_topics(vectors, labels, ids)
    docs = [paper_text(papers[row]) for row in counted]
    found = [phrases(doc) for doc in docs]
    fine = key_phrases(found, labels[counted], ids)
    area_labels = np.array([area_of[int(label)] for label in labels[counted]])
    area_ids = sorted(set(area_of.values()))
    allowed = {a: {p for t in ids if area_of[t] == a for p in fine[t]} for a in area_ids}
    broad = key_phrases(found, area_labels, area_ids, allowed=allowed)
    members = {t: [docs[i] for i in np.flatnonzero(labels[counted] == t)[:300]] for t in ids}
    area_docs = {a: [d for t in ids if area_of[t] == a for d in members[t][:60]] for a in area_ids}
    areas = [{"id": a, "label": _area_name(broad[a], area_docs[a]) or f"area {a + 1}",
              "terms": [surface(p, area_docs[a]) for p in broad[a]],
              "topics": [t for t in ids if area_of[t] == a]} for a in area_ids]
    named = names(fine)
    topics = [{"id": t, "label": surface(named[t], members[t]) if named[t] else f"topic {t}",
               "terms": [surface(p, members[t]) for p in fine[t]], "area": area_of[t]}
              for t in ids]
    return refresh({"topics": topics, "areas": areas}, vectors, labels)


def refresh(described: dict, vectors: np.ndarray, labels: np.ndarray) -> dict:
    """`described` (as describe returns) with sizes, closeness and neighbours recomputed for
    `labels` (n,): names and areas kept (an update that adds papers to known topics)."""
    ids = [int(topic["id"]) for topic in described["topics"]]
    centres = topic_centres(vectors, labels, ids)
    near = neighbours(centres, ids)
    sizes = Counter(int(label) for label in labels)
    topics = [{**topic, "size": sizes[int(topic["id"])], "neighbours": near[int(topic["id"])]}
              for topic in described["topics"]]
    areas = described.get("areas", [])
    area_of = {int(t): int(area["id"]) for area in areas for t in area["topics"]}
    area_ids = [int(area["id"]) for area in areas]
    grouped = np.array([area_of.get(int(label), -1) for label in labels])
    near_areas = neighbours(topic_centres(vectors, grouped, area_ids), area_ids) if areas else {}
    areas = [{**area, "size": sum(sizes[t] for t in area["topics"]),
              "neighbours": near_areas[int(area["id"])]} for area in areas]
    scores = closeness(vectors, labels, ids)
    return {"topics": topics, "areas": areas, "closeness": [round(float(s), 4) for s in scores]}


def _area_name(ranked: Sequence[str], docs: Sequence[str]) -> str:
    """An area's name: its best key phrase, and the next phrase of two or more words ("A and
    B") when both together stay within 2 * MAX_NAME_WORDS words."""
    if not ranked:
        return ""
    first = surface(ranked[0], docs)
    second = next((p for p in ranked[1:3] if " " in p), None)
    if second is None or len(f"{ranked[0]} {second}".split()) > 2 * MAX_NAME_WORDS:
        return first
    written = surface(second, docs)
    return f"{first} and {written if written[:2].isupper() else written[:1].lower() + written[1:]}"
