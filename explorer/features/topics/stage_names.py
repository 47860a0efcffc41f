"""Topics at two levels, computed at build time: the map's k-means topics grouped into a few
broad areas, each topic and area named by a short phrase.

Names are class-based TF-IDF over phrases (BERTopic's c-TF-IDF, with phrases of one to three
content words as the terms and a paper counted once per phrase): the phrase most of a topic's
papers use and few others do. Topics and areas keep the order of their ids; `describe` returns
the JSON the map stores (features/topics/stage.py).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from explorer.corpus.papers import Paper
from explorer.features.topics.stage_naming import (
    MIN_WORDS,
    choose,
    content_words,
    distinct,
    extensions,
    fragment,
    second_phrase,
    unique,
)
from explorer.features.topics.stage_phrases import (
    KEY_PHRASES,
    MIN_SHARE,
    Counts,
    count,
    phrases,
    ranked,
    surface,
    weights,
)

NEIGHBOURS = 4  # neighbouring topics kept per topic, by the cosine of their centres
NAME_CANDIDATES = 24  # phrases of a topic weighed as its name (its key phrases are the first 8)
NAME_WEAKEST = 0.05  # a candidate name weighs at least this share of its topic's best phrase
# A name is used by this share of its topic's papers at least (key phrases: MIN_SHARE), so
# that two papers of a mixed topic ("Extreme weather events" of 53) do not name it.
NAME_SHARE = 0.05
FEW_PHRASES = 3  # key phrases a topic lists at least, when its papers have that many
# A topic's name is used by at most this many mean topics' worth of the corpus's papers: a
# phrase so common spans topics ("Deep neural networks" in 316 of 3,160 ICLR and NeurIPS
# 2017-18 papers, 4 mean topics); it may name an area.
GENERAL = 3.0
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


def paper_text(paper: Paper) -> str:
    """What a topic is named from: the title (unless derived) and the abstract."""
    return paper.abstract if paper.title_is_derived else f"{paper.title}. {paper.abstract}"


def describe(papers: Sequence[Paper], vectors: np.ndarray, labels: np.ndarray,
             counted: np.ndarray) -> dict:
    """The two levels of topics of papers with fine topic `labels` (n,) and `vectors` (n, d);
    phrases are counted on the rows `counted`. Returns {"topics": [{"id", "label", "terms",
    "size", "area", "neighbours"}], "areas": [{"id", "label", "terms", "size", "topics",
    "neighbours"}], "closeness": [n], "area_closeness": [n]}: each label a short phrase
    (features/topics/stage_naming.py: unique, no near-copies, no fragments), terms its key phrases."""
    ids = sorted(set(int(label) for label in labels))
    area_of = group_topics(vectors, labels, ids)
    docs = [paper_text(papers[row]) for row in counted]
    found = [phrases(doc) for doc in docs]
    area_ids = sorted(set(area_of.values()))
    grouped = np.array([area_of[int(x)] for x in labels[counted]])
    fine_counts, broad_counts = count(found, labels[counted], ids), count(found, grouped, area_ids)
    fine = {t: ranked(weights(fine_counts, t), KEY_PHRASES) for t in ids}
    allowed = {a: {p for t in ids if area_of[t] == a for p in fine[t]} for a in area_ids}
    broad = {a: ranked(weights(broad_counts, a, allowed[a]), KEY_PHRASES) for a in area_ids}
    members = {t: [docs[i] for i in np.flatnonzero(labels[counted] == t)[:300]] for t in ids}
    area_docs = {a: [d for t in ids if area_of[t] == a for d in members[t][:60]] for a in area_ids}
    area_names = _area_names(broad_counts, allowed, area_docs, broad)
    named = [p for a in area_ids for p in broad[a][:1 + (" and " in area_names[a])]]
    candidates = {t: _candidates(fine_counts, t, None, (broad_counts, area_of[t])) for t in ids}
    topic_names, said = _topic_names(candidates, fine, named, members)
    every = unique([*area_names.values(), *topic_names.values()],
                   ["" for _ in area_names] + [fine[t][1] if len(fine[t]) > 1 else "" for t in ids])
    fine = {t: key_phrases(fine_counts, t, said[t]) for t in ids}
    kept = {a: {p for t in ids if area_of[t] == a for p in fine[t]} for a in area_ids}
    broad = {a: key_phrases(broad_counts, a, broad[a][:1 + (" and " in area_names[a])], kept[a])
             for a in area_ids}
    areas = [{"id": a, "label": every[place],
              "terms": [surface(p, area_docs[a]) for p in broad[a]],
              "topics": [t for t in ids if area_of[t] == a]} for place, a in enumerate(area_ids)]
    topics = [{"id": t, "label": every[len(area_ids) + place],
               "terms": [surface(p, members[t]) for p in fine[t]], "area": area_of[t]}
              for place, t in enumerate(ids)]
    return refresh({"topics": topics, "areas": areas}, vectors, labels)


def key_phrases(counts: Counts, topic: int, named: Sequence[str],
                allowed: set[str] | None = None) -> list[str]:
    """A topic's (or an area's) key phrases, what its page lists beside its name: the phrases
    `named` (its name's), then its best c-TF-IDF phrases (of `allowed`, None: any) that pass
    the names' rules (no one word, "Node"; no vague opening or fragment, naming.fragment),
    KEY_PHRASES in all at most; a small topic with fewer than FEW_PHRASES such phrases is
    filled up with its best other ones."""
    used, every = counts.per_topic[topic], weights(counts, topic, allowed)
    longer = extensions(used)
    whole = {p: w for p, w in every.items() if not fragment(p, used, longer)}
    out = _joined(list(named), ranked(whole, KEY_PHRASES) if whole else [], KEY_PHRASES)
    if len(out) < FEW_PHRASES and every:  # a small topic: its best other phrases too
        out = _joined(out, ranked(every, KEY_PHRASES), FEW_PHRASES)
    return out


def _joined(kept: list[str], more: Sequence[str], top: int) -> list[str]:
    """`kept` and then those of `more` inside none of them and holding none, `top` at most."""
    for phrase in more:
        if len(kept) >= top:
            break
        if not any(f" {phrase} " in f" {k} " or f" {k} " in f" {phrase} " for k in kept):
            kept.append(phrase)
    return kept


def _candidates(counts: Counts, topic: int, allowed: set[str] | None = None,
                area: tuple[Counts, int] | None = None) -> list[tuple[str, float]]:
    """A topic's candidate names, (phrase, weight), best first, fragments left out: c-TF-IDF
    against the corpus, made relative to its `area` ((the areas' Counts, its area's id): a
    fine topic, whose name is no phrase of GENERAL use, used by NAME_SHARE of its papers:
    naming.distinct)."""
    used, size = counts.per_topic[topic], counts.sizes[topic]
    longer = extensions(used)
    most, least = (counts.mean * GENERAL, NAME_SHARE) if area is not None else (
        float("inf"), MIN_SHARE)
    weighed = {p: w for p, w in weights(counts, topic, allowed, least).items()
               if counts.overall[p] <= most and not fragment(p, used, longer)}
    if not weighed:
        return []
    area_used, area_size = (used, size) if area is None else (
        area[0].per_topic[area[1]], area[0].sizes[area[1]])
    weighed = distinct(weighed, used, size, area_used, area_size)
    return [(p, weighed[p]) for p in ranked(weighed, NAME_CANDIDATES, NAME_WEAKEST)]


def _area_names(counts: Counts, allowed: dict[int, set[str]], docs: dict[int, list[str]],
                broad: dict[int, list[str]]) -> dict[int, str]:
    """Area id -> its name: its best free phrase (naming.choose), and a second one ("A and
    B", naming.second_phrase) when there is one; the phrases named come first among its key
    phrases (`broad`, changed here)."""
    candidates = {a: _candidates(counts, a, allowed[a]) for a in counts.per_topic}
    chosen = choose(candidates)
    out = {}
    for area in sorted(counts.per_topic):
        first = chosen.get(area)
        if first is None:
            out[area] = f"area {area + 1}"
            continue
        others = [p for a, p in chosen.items() if a != area]
        second = second_phrase(first, [p for p, _ in candidates[area]], others)
        named = [first] if second is None else [first, second]
        broad[area] = [*named, *(p for p in broad[area] if p not in named)][:KEY_PHRASES]
        name = surface(first, docs[area])
        if second is not None:
            written = surface(second, docs[area])
            name += f" and {written if written[:2].isupper() else written[:1].lower() + written[1:]}"
        out[area] = name
    return out


def _topic_names(candidates: dict[int, list[tuple[str, float]]], fine: dict[int, list[str]],
                 areas: Sequence[str], docs: dict[int, list[str]]
                 ) -> tuple[dict[int, str], dict[int, list[str]]]:
    """Topic id -> its name, and topic id -> the phrases its name says: its best phrase that is
    no near-copy of an area's (`areas`: each phrase an area's name holds) or of another
    topic's (naming.choose), put first among its key phrases (`fine`, changed here); its two
    best key phrases of MIN_WORDS words when none is free."""
    chosen = choose(candidates, areas)
    out, said = {}, {}
    for topic in sorted(candidates):
        if topic in chosen:
            fine[topic] = [chosen[topic], *(p for p in fine[topic] if p != chosen[topic])][
                :KEY_PHRASES]
            said[topic] = [chosen[topic]]
        else:
            said[topic] = [p for p in fine[topic] if content_words(p) >= MIN_WORDS][:2]
        out[topic] = (" and ".join(surface(p, docs[topic]) for p in said[topic])
                      or f"topic {topic}")
    return out, said


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
    out = {"topics": topics, "areas": areas, "closeness": [round(float(s), 4) for s in scores]}
    if areas:  # an area's papers, most central first, by their cosine to the area's centre
        out["area_closeness"] = [round(float(s), 4)
                                 for s in closeness(vectors, grouped, area_ids)]
    return out
