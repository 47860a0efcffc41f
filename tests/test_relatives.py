"""Close relatives (issue 14): the build-time self-join, its incremental update, `closest_pairs`
and `relatives` from the library and the CLI, with the real model and real FAISS indexes."""

from __future__ import annotations

import dataclasses
import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from explorer.cli.main import main
from explorer.corpus.sentences import split_sentences
from explorer.errors import IndexInvalidError, ThresholdError
from explorer.features.relatives.query import (
    DEFAULT_THRESHOLD,
    check_threshold,
    closest_pairs,
    pair_count,
    relatives,
    sentence_pairs,
    stored_pairs,
)
from explorer.features.relatives.stage import FLOOR
from explorer.index.dense import EXACT, VectorIndex
from explorer.index.pairs import Pairs, near_pairs
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.conftest import SEEDS

EDITED = "edited-copy"


def brute_force(vectors: np.ndarray, floor: float, neighbours: int) -> dict[tuple[int, int], float]:
    """The self-join by hand: every cosine, each row's `neighbours` best others, symmetric."""
    scores = vectors.astype(np.float64) @ vectors.T.astype(np.float64)
    np.fill_diagonal(scores, -np.inf)
    found = {}
    for row in range(len(vectors)):
        for other in np.argsort(-scores[row])[:neighbours]:
            if scores[row, other] >= floor:
                found[tuple(sorted((row, int(other))))] = scores[row, other]
    return found


@pytest.mark.parametrize(("floor", "neighbours"), [(0.3, 5), (0.5, 20), (0.0, 3)])
def test_self_join_equals_brute_force(seeds_explorer: Explorer, floor: float, neighbours: int):
    pairs = near_pairs(seeds_explorer.artifacts.index, floor, neighbours)
    expected = brute_force(seeds_explorer.vectors, floor, neighbours)
    assert len(pairs) > 10
    assert {tuple(map(int, r)) for r in pairs.rows} == set(expected)
    for (a, b), score in zip(pairs.rows, pairs.scores):
        assert score == pytest.approx(expected[(int(a), int(b))], abs=1e-5)
    assert (np.diff(pairs.scores) <= 0).all() and (pairs.rows[:, 0] < pairs.rows[:, 1]).all()


def test_rows_of_identical_text_are_never_paired(seeds_explorer: Explorer):
    vectors = np.vstack([seeds_explorer.vectors[:5], seeds_explorer.vectors[:1]])
    keys = np.array([0, 1, 2, 3, 4, 0])
    pairs = near_pairs(VectorIndex.build(vectors, EXACT), -1.0, 10, keys=keys)
    assert (0, 5) not in {tuple(map(int, r)) for r in pairs.rows}
    assert len(pairs) == 5 * 4 // 2 + 4  # every other pair, once


@pytest.fixture(scope="module")
def near_copy(seeds_explorer: Explorer, tmp_path_factory) -> tuple[Path, Path, dict]:
    """A corpus of the seeds plus one seed abstract with one sentence edited, and its index."""
    corpus = tmp_path_factory.mktemp("near-copy-corpus")
    shutil.copytree(SEEDS, corpus / "seeds")
    original = next(p for p in seeds_explorer.papers[7:] if len(split_sentences(p.abstract)) > 4)
    spans = split_sentences(original.abstract)
    start, end = spans[1]
    edited_sentence = "In contrast, our approach is evaluated on three further benchmarks."
    abstract = original.abstract[:start] + edited_sentence + original.abstract[end:]
    (corpus / "extra.jsonl").write_text(json.dumps({"id": EDITED, "abstract": abstract}) + "\n",
                                        encoding="utf-8")
    out = tmp_path_factory.mktemp("near-copy-index")
    build([corpus], out, "default")
    facts = {"original": original.paper_id, "edited_sentence": edited_sentence,
             "original_sentence": original.abstract[start:end]}
    return corpus, out, facts


def test_a_near_copy_is_the_closest_pair_with_the_edited_sentence_paired(near_copy):
    _, out, facts = near_copy
    explorer = Explorer.open(out)
    top = closest_pairs(explorer)[0]
    assert {top.paper.paper_id, top.other.paper_id} == {facts["original"], EDITED}
    assert top.score > 0.9
    found = relatives(explorer, EDITED)
    assert [r.paper.paper_id for r in found][:1] == [facts["original"]]
    everything = sentence_pairs(explorer, EDITED, facts["original"], top_k=50).pairs
    partner = next(theirs for ours, theirs, _ in everything if ours.text == facts["edited_sentence"])
    assert partner.text == facts["original_sentence"]
    assert everything[0][2] > 0.99  # untouched sentences pair with themselves


def test_merged_duplicates_are_never_their_own_relatives(seeds_explorer: Explorer):
    merged = [p for p in seeds_explorer.papers if len(p.sources) > 1]
    assert len(merged) == 5  # the five abstracts in two seed files
    stored, floor = stored_pairs(seeds_explorer)
    assert floor == FLOOR and (stored.rows[:, 0] != stored.rows[:, 1]).all()
    for paper in seeds_explorer.papers:
        for threshold in (FLOOR, 1.0):
            found = relatives(seeds_explorer, paper.paper_id, threshold)
            assert paper.paper_id not in {r.paper.paper_id for r in found}
    texts = {p.text_hash for p in seeds_explorer.papers}
    assert len(texts) == len(seeds_explorer.papers)  # the merged ones are one paper each


def test_an_update_gives_the_pairs_of_a_fresh_build(near_copy, seeds_index: Path,
                                                    tmp_path: Path):
    corpus, fresh, facts = near_copy  # fresh: the same texts, built afresh by near_copy
    seeds_only, grown = tmp_path / "seeds", tmp_path / "grown"
    shutil.copytree(corpus / "seeds", seeds_only)
    shutil.copytree(seeds_index, grown)  # the seeds' vectors: this first build embeds none
    build([seeds_only], grown, "default")
    assert not any(EDITED in pair for pair in _pairs_by_id(grown))
    shutil.copy(corpus / "extra.jsonl", seeds_only / "extra.jsonl")
    report = build([seeds_only], grown, "default")
    assert report.embedded == 1
    assert _pairs_by_id(grown) == _pairs_by_id(fresh)
    assert frozenset({EDITED, facts["original"]}) in _pairs_by_id(grown)
    (seeds_only / "extra.jsonl").unlink()
    build([seeds_only], grown, "default")
    assert not any(EDITED in pair for pair in _pairs_by_id(grown))


def _pairs_by_id(folder: Path) -> dict[frozenset, float]:
    explorer = Explorer.open(folder)
    pairs, _ = stored_pairs(explorer)
    papers = explorer.papers
    return {frozenset({papers[a].paper_id, papers[b].paper_id}): round(float(s), 4)
            for (a, b), s in zip(pairs.rows, pairs.scores)}


def test_an_index_without_stored_pairs(near_copy):
    _, out, facts = near_copy
    explorer = Explorer.open(out)
    artifacts = explorer.artifacts
    arrays = {k: v for k, v in artifacts.arrays.items() if not k.startswith("relative_")}
    extras = {k: v for k, v in artifacts.extras.items() if k != "relatives"}
    old = Explorer(dataclasses.replace(artifacts, arrays=arrays, extras=extras))
    assert stored_pairs(old) is None
    with pytest.raises(IndexInvalidError, match="explorer build .* --out"):
        closest_pairs(old)
    on_demand = [(r.paper.paper_id, round(r.score, 4)) for r in relatives(old, EDITED)]
    stored = [(r.paper.paper_id, round(r.score, 4)) for r in relatives(explorer, EDITED)]
    assert on_demand == stored and on_demand[0][0] == facts["original"]


def test_threads_get_the_same_answers(near_copy):
    explorer = Explorer.open(near_copy[1])
    ids = [p.paper_id for p in explorer.papers]

    def answer(paper_id: str):
        return ([(r.paper.paper_id, r.score) for r in relatives(explorer, paper_id, FLOOR)],
                [(t.paper.paper_id, t.other.paper_id) for t in closest_pairs(explorer, FLOOR)])

    expected = [answer(i) for i in ids]
    with ThreadPoolExecutor(8) as pool:
        for _ in range(3):
            assert list(pool.map(answer, ids)) == expected


@pytest.mark.parametrize("bad", [float("nan"), 1.5, -0.2, FLOOR - 0.01, float("inf")])
def test_bad_thresholds_are_refused_with_the_usable_range(seeds_explorer: Explorer, bad):
    with pytest.raises(ThresholdError, match="give a number from"):
        closest_pairs(seeds_explorer, bad)
    with pytest.raises(ThresholdError, match="give a number from"):
        relatives(seeds_explorer, seeds_explorer.papers[0].paper_id, bad)
    assert check_threshold(None) == DEFAULT_THRESHOLD


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_lists_pairs_with_their_sentences(capsys, near_copy):
    _, out, facts = near_copy
    code, text, _ = run(capsys, "relatives", "--index", str(out))
    assert code == 0 and text.splitlines()[0].startswith("1 pair of papers at cos >= 0.86")
    assert f"id {EDITED}" in text and f"id {facts['original']}" in text and "~ 1.00" in text
    code, text, _ = run(capsys, "relatives", "--index", str(out), "--json", "--threshold", "0.8")
    records = json.loads(text)
    assert code == 0 and records[0]["rank"] == 1 and len(records[0]["sentence_pairs"]) == 2
    assert {p["paper_id"] for p in records[0]["papers"]} == {EDITED, facts["original"]}
    code, text, _ = run(capsys, "relatives", "--index", str(out), "--paper", EDITED, "--json")
    found = json.loads(text)
    assert found["paper_id"] == EDITED and found["relatives"][0]["paper_id"] == facts["original"]
    code, text, _ = run(capsys, "twins", "--index", str(out), "--paper", EDITED)  # the old name
    assert code == 0 and "Close relatives of" in text and facts["original"] in text


@pytest.mark.parametrize("threshold", ["1.5", "nan", "0.5"])
def test_cli_bad_threshold_is_one_line(capsys, seeds_index: Path, threshold: str):
    code, out, err = run(capsys, "twins", "--index", str(seeds_index), "--threshold", threshold)
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "give a number from" in err and "Traceback" not in err


def test_pairs_helpers():
    pairs = Pairs.of(np.array([[3, 1], [1, 3], [0, 2]]), np.array([0.9, 0.95, 0.8]))
    assert pairs.rows.tolist() == [[1, 3], [0, 2]] and pairs.scores.tolist() == pytest.approx(
        [0.95, 0.8])
    assert len(pairs.above(0.9)) == 1 and pairs.touching(3)[0].tolist() == [1]


def test_the_relatives_page_says_how_close_the_closest_pair_comes_when_none_is_listed(
        seeds_explorer: Explorer, near_copy, monkeypatch):
    """On the seeds no pair reaches the default threshold: the page names the closest pair
    stored (the brute-force best above the floor), or says none reaches the floor."""
    from explorer.features.relatives.ui import EMPTY_FLOOR, empty_markdown
    from tests.test_app import run_app

    assert pair_count(seeds_explorer) == 0
    expected = brute_force(seeds_explorer.vectors, FLOOR, 20)
    text = empty_markdown(seeds_explorer)
    if expected:
        assert f"comes to cos {max(expected.values()):.3f}" in text
    else:
        assert text == EMPTY_FLOOR.format(floor=FLOOR)
    assert empty_markdown(Explorer.open(near_copy[1])) == ""  # a pair is listed: nothing to say
    app = run_app(seeds_explorer.artifacts.folder, monkeypatch, {"view": "relatives"})
    assert not app.exception and [i.value for i in app.info] == [text]
