"""What is new: each build records the papers it added (kept across builds); `explorer new`
lists those added since a build (default: the previous one), nearest first to a collection or
ranked for a question, as text or JSON; an unknown build id and a one-build index get a clear
error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts.layout import BUILDS
from explorer.cli.main import main
from explorer.features.collections.store import Collections
from explorer.features.new.query import added_since, builds
from explorer.features.new.stage import MAX_BUILDS, Before, history
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from explorer.settings import Settings
from explorer.wording import WEAK
from tests.citation_fixtures import BREAD, seed_papers, work, write_page

OLD = [work(n, [], seed=n) for n in range(1, 7)]  # W1..W6
# The update: two machine-learning papers (seeds 7 and 8) and one about bread.
ADDED = [work(7, [1], seed=7), work(8, [], seed=8),
         work(9, [], abstract=BREAD, title="Feeding a sourdough starter through winter")]


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(corpus folder, index) after two builds: W1..W6, then W7..W9 added. Read-only."""
    corpus = tmp_path_factory.mktemp("new-corpus")
    write_page(corpus / "old.json", OLD)
    out = tmp_path_factory.mktemp("new-index") / "index"
    build([corpus], out, "default")
    write_page(corpus / "added.json", ADDED)
    build([corpus], out, "default")
    return corpus, out


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_second_build_records_what_it_added(two_builds):
    explorer = Explorer.open(two_builds[1])
    found, places = builds(explorer)
    assert len(found) == 2 and found[1].build_id == explorer.artifacts.manifest.build_id
    assert (found[0].added, found[0].count, found[1].added, found[1].count) == (6, 6, 3, 9)
    since, rows = added_since(explorer)
    assert since == found[0]
    assert sorted(explorer.papers[int(r)].paper_id for r in rows) == ["W7", "W8", "W9"]
    assert places.dtype == np.int32 and len(explorer.artifacts.extras[BUILDS]) == 1


def test_a_third_build_keeps_the_log_and_an_edit_is_not_news(two_builds, tmp_path: Path):
    corpus, first = two_builds
    out, folder = tmp_path / "index", tmp_path / "corpus"
    shutil.copytree(first, out)
    shutil.copytree(corpus, folder)
    edited = [*OLD[:5], work(6, [], seed=10)]  # W6's abstract replaced in place
    write_page(folder / "old.json", edited)
    write_page(folder / "third.json", [work(10, [], seed=11)])
    build([folder], out, "default")
    explorer = Explorer.open(out)
    found, _ = builds(explorer)
    assert [b.added for b in found] == [6, 3, 1]
    _, rows = added_since(explorer)
    assert [explorer.papers[int(r)].paper_id for r in rows] == ["W10"]  # not W6
    first_id = found[0].build_id
    _, since_first = added_since(explorer, first_id[:-2])  # a unique start is enough
    assert sorted(explorer.papers[int(r)].paper_id for r in since_first) == ["W10", "W7", "W8",
                                                                            "W9"]


def test_new_lists_since_the_previous_build(two_builds, capsys):
    code, out, _ = run(capsys, "new", "--index", str(two_builds[1]))
    assert code == 0 and out.startswith("3 papers added since build ")
    assert [line.split("(id ")[1].split(" ")[0].rstrip(")") for line in out.splitlines()
            if "(id " in line] == ["W7", "W8", "W9"]


def test_new_near_a_collection_is_nearest_first_and_unrelated_reads_weak(two_builds, capsys):
    Collections.at(Settings.from_env().data_dir).create("sequence models", ["W1", "W2", "W3"])
    code, out, err = run(capsys, "new", "--collection", "sequence models", "--json",
                         "--index", str(two_builds[1]))
    assert code == 0, err
    record = json.loads(out)
    papers = record["papers"]
    assert record["added"] == 3 and {p["paper_id"] for p in papers} == {"W7", "W8", "W9"}
    assert [p["score"] for p in papers] == sorted((p["score"] for p in papers), reverse=True)
    assert papers[-1]["paper_id"] == "W9" and papers[-1]["strength"] == WEAK
    assert all(p["near"] in ("W1", "W2", "W3") for p in papers)
    explorer = Explorer.open(two_builds[1])
    vectors = explorer.vectors
    liked = [explorer.row(p) for p in ("W1", "W2", "W3")]
    for paper in papers:  # the score is the cosine with the closest collection paper
        cosines = vectors[liked] @ vectors[explorer.row(paper["paper_id"])]
        assert paper["cosine"] == pytest.approx(float(cosines.max()), abs=1e-5)


def test_new_for_a_question_ranks_only_new_papers(two_builds, capsys):
    code, out, _ = run(capsys, "new", "--query", "baking bread with a sourdough starter",
                       "--json", "--index", str(two_builds[1]))
    papers = json.loads(out)["papers"]
    assert code == 0 and papers[0]["paper_id"] == "W9"
    assert {p["paper_id"] for p in papers} <= {"W7", "W8", "W9"}


def test_an_unknown_build_is_a_clear_error(two_builds, capsys):
    code, out, err = run(capsys, "new", "--since", "20990101-000000-abcdef",
                         "--index", str(two_builds[1]))
    assert code == 1 and out == ""
    assert "'20990101-000000-abcdef' is not a build of this index" in err
    assert "explorer new --builds" in err and "Traceback" not in err


def test_a_first_build_has_nothing_new_and_says_why(tmp_path: Path, capsys):
    write_page(tmp_path / "works.json", OLD[:3])
    build([tmp_path / "works.json"], tmp_path / "index", "default")
    code, _, err = run(capsys, "new", "--index", str(tmp_path / "index"))
    assert code == 1 and "recorded one build only" in err
    code, out, _ = run(capsys, "new", "--builds", "--json", "--index", str(tmp_path / "index"))
    assert code == 0 and json.loads(out)[0]["added"] == 3


def test_the_log_is_bounded():
    papers = list(seed_papers()[:3])
    log = [{"build_id": f"b{n}", "built_at": None, "added": 1, "count": 3}
           for n in range(MAX_BUILDS)]
    places = np.array([0, MAX_BUILDS - 1, MAX_BUILDS], dtype=np.int32)
    before = Before("last", None, [p.text_hash for p in papers], places, log, None)
    added_in, kept = history(papers, before)
    assert len(kept) == MAX_BUILDS and kept[-1]["build_id"] == "last"
    assert added_in.tolist() == [0, MAX_BUILDS - 2, MAX_BUILDS - 1]
