"""Names a reader can trust, chosen from the topics' weighed phrases (features/topics/stage_phrases.py):
no two topics or areas share a name, no name is a near-copy of another (one name plus a word:
"Generative adversarial networks" and "Generative adversarial network training"), no name is
one word ("ReLU", "Accelerated", "Skills": a noun phrase of two content words at least, an
acronym and its noun, "ReLU networks"), and no name is a fragment of a longer phrase ("Single
image", "Future frames", "Strongly convex").

A topic's candidates are weighed by `distinct`: c-TF-IDF against the corpus, times how much
more its papers use the phrase than the rest of its area's papers do (a phrase its whole area
uses names the area, not the topic). Phrases come from titles and abstracts alike: preferring
those of titles (half weight to a phrase fewer than two of a topic's titles use) raised the
share of a topic's papers whose keywords hold its name on ICLR/NeurIPS 2017-18 (0.112 ->
0.122) but halved it on IJCAI 2023-24 (0.089 -> 0.045; studies/results/topic-names-ablation.md), so
it is not done.

Areas are named first, each by a phrase its topics use, then the topics, round by round: each
topic's best free phrase, a stronger claim (c-TF-IDF weight) first when two topics want the
same one, then each one's second best, and so on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from explorer.corpus.words import STOP_WORDS
from explorer.features.topics.stage_phrases import MAX_NAME_WORDS, _stem

MIN_WORDS = 2  # content words of a name, at least ("of" is none)

ROOT = 7  # letters of a word's root: "differential" and "differentially" are one word here
# A phrase continued by one same word in this share of its uses is a fragment of that longer
# phrase: "future frame" of "future frame prediction".
COMPLETED = 0.5
# Words that start no name shorter than MAX_NAME_WORDS: they modify a head the phrase left out
# ("single image" super-resolution, "future frames" prediction, "strongly convex" functions).
VAGUE_STARTS = frozenset(
    "single multiple future past many few several high low large small general specific certain "
    "particular arbitrary standard common typical real various different given whole same "
    "other new novel simple first second two three input output hidden".split())


# Word endings of adjectives: a name does not end on one ("Visual", "Allocation of
# indivisible"), but for the nouns that share them (NOUNS).
ADJECTIVE_ENDINGS = ("al", "ic", "ive", "ous", "ible", "able")
NOUNS = frozenset(
    "retrieval signal interval proposal trial removal arrival animal manual journal hospital "
    "terminal tutorial potential portal capital crystal material survival approval rehearsal "
    "topic logic music metric heuristic traffic graphic epidemic clinic mechanic rhetoric "
    "fabric magic objective alternative derivative perspective incentive directive archive "
    "initiative narrative primitive relative negative positive variable table cable".split())


def roots(name: str) -> frozenset[str]:
    """The roots of a name's content words (lower case, plural folded, ROOT letters)."""
    words = (_stem(w.strip(".,:;()").lower()) for w in name.replace("-", " ").split())
    return frozenset(w[:ROOT] for w in words if w and w not in STOP_WORDS)


def near_copy(first: str, second: str) -> bool:
    """True when one name is the other, or the other with one more word, once plurals, case
    and word endings are folded ("GANs" / "generative adversarial network training" are not;
    "Reinforcement learning" / "Deep reinforcement learning" are)."""
    one, two = roots(first), roots(second)
    if not one or not two:
        return False
    if _initials(first) == _initials(second) and (len(one) == 1 or len(two) == 1):
        return True  # "FL" of "federated learning"
    small, big = sorted((one, two), key=len)
    return small <= big and len(big - small) <= 1


_LINKS = frozenset("of and the for in on a an to with".split())


def _initials(name: str) -> str:
    """"federated learning" -> "fl"; a one-word name is its own letters, plural dropped ("FL",
    "GANs" -> "gan")."""
    words = [w for w in name.replace("-", " ").lower().split() if w not in _LINKS]
    if len(words) == 1:
        return _stem(words[0])
    return "".join(w[0] for w in words)


def content_words(name: str) -> int:
    """How many words of a name are no function word ("Theory of mind": 2; "Few-shot": 1, a
    hyphen joins one word; a name's "and" joins two phrases, each counted apart)."""
    return sum(word.lower() not in _LINKS for word in name.split())


def fragment(phrase: str, used: Counter, longer: Mapping[str, int]) -> bool:
    """True when `phrase` (a phrases() key) is no name on its own: fewer than MIN_WORDS
    content words, or shorter than MAX_NAME_WORDS
    and opening on a vague modifier or an adverb ("strongly convex"), ending on an adjective
    ("visual"; ADJECTIVE_ENDINGS, but NOUNS), or continued by one same
    word in COMPLETED of its uses, two papers at least (one paper's "node classification
    task" leaves "node classification" whole). `used`: the topic's papers per phrase;
    `longer`: phrase -> the most papers of one phrase a word longer that holds it, as
    extensions() counts."""
    words = phrase.split()
    if content_words(phrase) < MIN_WORDS:
        return True  # one word: "ReLU", "Skills", "Video"
    if len(words) < MAX_NAME_WORDS and (words[0] in VAGUE_STARTS or words[0].endswith("ly")):
        return True
    last = words[-1].split("-")[-1]
    if last.endswith(ADJECTIVE_ENDINGS) and last not in NOUNS:
        return True
    return longer.get(phrase, 0) >= max(COMPLETED * used.get(phrase, 0), 2)


def extensions(used: Counter) -> dict[str, int]:
    """Phrase -> the most papers (of `used`) of any phrase one word longer that starts or
    ends with it."""
    out: dict[str, int] = {}
    for phrase, count in used.items():
        words = phrase.split()
        if len(words) > 1:
            for part in (" ".join(words[:-1]), " ".join(words[1:])):
                out[part] = max(out.get(part, 0), count)
    return out


def distinct(weighed: Mapping[str, float], used: Counter, size: int, area_used: Counter,
             area_size: int) -> dict[str, float]:
    """`weighed` (phrase -> c-TF-IDF of a topic of `size` papers, `used` papers per phrase)
    times share / (share + the share of the rest of its area's papers: `area_used` over
    `area_size`, the topic's own papers among them): 1 when only the topic uses a phrase, 1/2
    when the area's other papers use it as often."""
    rest_size = area_size - size
    out = {}
    for phrase, weight in weighed.items():
        share = used[phrase] / max(size, 1)
        rest = (area_used[phrase] - used[phrase]) / rest_size if rest_size > 0 else 0.0
        out[phrase] = weight * share / max(share + rest, 1e-12)
    return out


def choose(candidates: Mapping[int, Sequence[tuple[str, float]]], taken: Sequence[str] = ()
           ) -> dict[int, str]:
    """Topic id -> its name among its `candidates` ((phrase, weight), best first): round by
    round, each topic's next candidate, heavier claims first, kept when it is no near-copy of
    a name already given (or of `taken`). A topic left without one is missing from the result."""
    claims = sorted(((rank, -weight, topic, phrase)
                     for topic, items in candidates.items()
                     for rank, (phrase, weight) in enumerate(items)))
    chosen: dict[int, str] = {}
    given = list(taken)
    for _, _, topic, phrase in claims:
        if topic not in chosen and not any(near_copy(phrase, name) for name in given):
            chosen[topic] = phrase
            given.append(phrase)
    return chosen


def second_phrase(first: str, candidates: Sequence[str], others: Sequence[str]) -> str | None:
    """The phrase an area's name adds to its `first` ("A and B"): the next candidate of two
    or more words that shares no word root with it, is no near-copy of `others` (the other
    names), and keeps the name within 2 * MAX_NAME_WORDS words; None when there is none."""
    for phrase in candidates[:4]:
        if phrase == first or " " not in phrase or _shares_a_word(phrase, first):
            continue
        if len(f"{first} {phrase}".split()) > 2 * MAX_NAME_WORDS:
            continue
        if not any(near_copy(phrase, other) for other in others):
            return phrase
    return None


def _shares_a_word(first: str, second: str) -> bool:
    """True when a word of one starts a word of the other ("fair", "fairness")."""
    return any(a.startswith(b) or b.startswith(a)
               for a in roots(first) for b in roots(second) if min(len(a), len(b)) >= 3)


def unique(labels: Sequence[str], fallbacks: Sequence[str]) -> list[str]:
    """`labels` with a name held twice (case folded) made unique: a later holder gets its
    fallback appended in brackets ("Privacy (federated learning)"), else its place."""
    seen: set[str] = set()
    out = []
    for place, (name, fallback) in enumerate(zip(labels, fallbacks)):
        if name.lower() in seen:
            name = f"{name} ({fallback.lower()})" if fallback else name
        if name.lower() in seen:
            name = f"{name} {place + 1}"
        seen.add(name.lower())
        out.append(name)
    return out
