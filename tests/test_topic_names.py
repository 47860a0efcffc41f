"""Topic names a reader trusts (issue 32), on real built indexes (the seeds, and the venue corpus
of ICLR and NeurIPS 2017-18): no two topics or areas share a name, no topic's name is a
near-copy of its area's, no name is a vague fragment, and an area's most central paper is the
one closest to the area's own centre. The rules themselves on small cases."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts.store import load_artifacts
from explorer.features.topics.stage_names import topic_centres
from explorer.features.topics.stage_naming import (
    MAX_NAME_WORDS,
    VAGUE_STARTS,
    choose,
    distinct,
    extensions,
    fragment,
    near_copy,
    second_phrase,
    unique,
)
from explorer.features.topics.table import AREA, TOPIC, topic_table
from explorer.query.engine import Explorer
from tests.venue_fixtures import venue_index  # noqa: F401 (a fixture)


def test_near_copies_are_one_name_plus_at_most_a_word():
    assert near_copy("Generative adversarial networks", "generative adversarial network")
    assert near_copy("Reinforcement learning", "Deep reinforcement learning")
    assert near_copy("GANs", "GAN")
    assert not near_copy("Federated learning", "Differential privacy and federated learning")
    assert not near_copy("Graph neural networks", "Knowledge graph embeddings")
    assert not near_copy("", "anything")


def test_fragments_are_vague_openings_or_phrases_one_word_short():
    used = Counter({"future frame": 10, "future frame prediction": 7, "video prediction": 9,
                    "adversarial example": 12, "adversarial example detection": 3})
    longer = extensions(used)
    assert fragment("future frame", used, longer)  # 7 of its 10 uses go on to "prediction"
    assert not fragment("adversarial example", used, longer)  # 3 of 12: a phrase of its own
    assert not fragment("video prediction", used, longer)
    assert fragment("single image", Counter({"single image": 5}), {})
    assert fragment("strongly convex", Counter({"strongly convex": 5}), {})
    assert not fragment("single image super-resolution", Counter(), {})  # three words: whole
    for one_word in ("relu", "accelerated", "skill", "video"):  # names seen on ICLR/NeurIPS
        assert fragment(one_word, Counter({one_word: 9}), {})
    assert not fragment("relu network", Counter({"relu network": 9}), {})  # acronym + noun
    assert fragment("theory of", Counter(), {}) and not fragment("theory of mind", Counter(), {})
    # one paper's longer phrase does not make a phrase of two papers a fragment
    used = Counter({"node classification": 2, "node classification task": 1})
    assert not fragment("node classification", used, extensions(used))


def test_a_topics_name_is_distinctive_within_its_area():
    """A phrase the rest of the area uses as often weighs half of one only the topic uses."""
    weighed = {"policy gradient": 1.0, "reinforcement learning": 1.0, "reward shaping": 1.0}
    used = Counter({"policy gradient": 10, "reinforcement learning": 10, "reward shaping": 10})
    area = Counter({"policy gradient": 10, "reinforcement learning": 50, "reward shaping": 10})
    out = distinct(weighed, used, 20, area, 100)
    assert out["policy gradient"] == pytest.approx(1.0)
    assert out["reinforcement learning"] == pytest.approx(0.5)  # 10/20 here, 40/80 elsewhere
    assert out["reward shaping"] == pytest.approx(1.0)
    assert distinct(weighed, used, 20, used, 20) == weighed  # the area is this topic alone


def test_a_stronger_claim_wins_and_the_other_topic_takes_its_next_phrase():
    candidates = {0: [("gan", 0.9), ("mode collapse", 0.5)],
                  1: [("gan", 0.4), ("image synthesis", 0.3)],
                  2: [("deep gan", 0.8), ("wasserstein distance", 0.2)]}
    assert choose(candidates) == {0: "gan", 1: "image synthesis", 2: "wasserstein distance"}
    assert choose({0: [("gan", 1.0)]}, taken=["GANs"]) == {}  # an area holds it
    assert second_phrase("differential privacy", ["differentially private", "federated learning"],
                         []) == "federated learning"
    assert unique(["A", "a", "a"], ["", "b", ""]) == ["A", "a (b)", "a 3"]


def check_names(explorer: Explorer, index: Path) -> None:
    areas, fine = topic_table(explorer).topics(AREA), topic_table(explorer).topics(TOPIC)
    names = [t.name.lower() for t in areas + fine]
    assert len(names) == len(set(names)), Counter(names).most_common(3)
    for topic in fine:
        parent = topic_table(explorer).topic(topic.parent)
        assert not any(near_copy(topic.name, part) for part in parent.name.split(" and ")), (
            topic.name, parent.name)
    for topic in areas + fine:
        for part in topic.name.split(" and "):
            words = part.lower().split()
            assert len([w for w in words if w != "of"]) >= 2, topic.name  # no "ReLU", "Skills"
            if len(words) < MAX_NAME_WORDS:
                assert words[0] not in VAGUE_STARTS and not words[0].endswith("ly"), topic.name
    # an area's papers come closest to its own centre first, not to their finer topic's
    found = load_artifacts(index)
    vectors, labels = found.index.vectors(), np.asarray(found.extras["map"]["topic"])
    stored = {int(t["id"]): int(t["area"]) for t in found.extras["map"]["topics"]}
    grouped = np.array([stored[int(label)] for label in labels])
    for area in areas:
        number = int(area.topic_id) - 1
        centre = topic_centres(vectors, grouped, [number])[0]
        rows = np.flatnonzero(grouped == number)
        best = rows[np.argmax(vectors[rows] @ centre)]
        top = topic_table(explorer).papers(area.topic_id, 1)[0]
        assert top.paper_id == explorer.papers[best].paper_id


def test_names_on_the_seeds_index(seeds_explorer: Explorer, seeds_index: Path):
    check_names(seeds_explorer, seeds_index)


@pytest.mark.slow
def test_names_on_the_venue_corpus(venue_index: Path):  # noqa: F811
    """ICLR and NeurIPS 2017-18: before, area 1 and topic 1.4 were both "Generative adversarial
    networks", and "Single image", "Strongly convex" were names."""
    explorer = Explorer.open(venue_index)
    check_names(explorer, venue_index)
    table = topic_table(explorer)
    assert len(table.topics(AREA)) >= 4 and len(table.topics(TOPIC)) >= 30
