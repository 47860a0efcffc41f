"""The papers file memory-mapped, its lines found by the offset table a build stores
(artifacts/paper_list.py): the same papers as a full parse without scanning the file, a table that
does not fit the file not used, the file not copied into the process's memory, rows read from many
threads at once, and an index opened before or during rebuilds that read whole and alike."""

from __future__ import annotations

import io
import json
import random
import threading
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts import paper_list, store
from explorer.artifacts.layout import PAPER_OFFSETS
from explorer.artifacts.paper_list import PaperList, line_offsets
from explorer.corpus.papers import Paper
from explorer.query.engine import Explorer
from tests.shared import PAPERS_HINT, full_parse, papers_file


def test_a_build_stores_the_offsets_and_an_index_opens_without_scanning(index_copy: Path,
                                                                         monkeypatch):
    manifest = json.loads((index_copy / "manifest.json").read_text())
    assert PAPER_OFFSETS in manifest["files"]

    def refused(*args, **kwargs):
        raise AssertionError("the papers file was scanned for its lines")

    monkeypatch.setattr(paper_list, "_line_ends", refused)
    explorer = Explorer.open(index_copy)
    assert list(explorer.papers) == full_parse(papers_file(index_copy))
    assert explorer.papers.ids() == [p.paper_id for p in explorer.papers]


def _written(tmp_path: Path, count: int, abstract_chars: int = 60) -> tuple[Path, list[Paper]]:
    papers = [Paper(f"p{i}", f"Title {i} é", False, f"Abstract {i} " + "x" * abstract_chars,
                    authors=(f"Author {i}",)) for i in range(count)]
    path = tmp_path / "papers.jsonl"
    path.write_bytes("".join(store.paper_lines(papers)).encode("utf-8"))
    return path, papers


@pytest.mark.parametrize("wrong", ["shifted", "short", "float", "none"])
def test_offsets_that_do_not_fit_the_file_are_not_used(tmp_path: Path, wrong: str):
    path, papers = _written(tmp_path, 50)
    good = line_offsets(path.read_bytes())
    offsets = {"shifted": good + 1, "short": good[:-3], "float": good.astype(np.float64),
               "none": None}[wrong]
    with path.open("rb") as handle:
        read = PaperList.read(path, handle, PAPERS_HINT, offsets)
    assert list(read) == papers


def test_a_papers_file_without_a_file_number_still_reads():
    text = "".join(store.paper_lines([Paper("p0", "T", False, "A")]))
    assert PaperList.read(Path("p.jsonl"), io.BytesIO(text.encode()), PAPERS_HINT)[0].paper_id == "p0"


def _anonymous_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    pytest.skip("no RssAnon in /proc/self/status (not Linux)")


def test_the_papers_file_is_not_copied_into_the_process(tmp_path: Path):
    """Before, the whole file was read into the process (plus a scan as large): +40 MB here."""
    path, papers = _written(tmp_path, 8_000, abstract_chars=5_000)
    offsets = line_offsets(path.read_bytes())
    size = path.stat().st_size
    assert size > 40_000_000
    before = _anonymous_kib()
    with path.open("rb") as handle:
        read = PaperList.read(path, handle, PAPERS_HINT, offsets)
    grown = _anonymous_kib() - before
    assert grown * 1024 < size / 8, (grown, size)
    assert read[7_999] == papers[7_999] and len(read) == 8_000


def test_many_threads_read_one_fresh_list_alike(tmp_path: Path):
    path, papers = _written(tmp_path, 3_000)
    with path.open("rb") as handle:
        read = PaperList.read(path, handle, PAPERS_HINT, line_offsets(path.read_bytes()))
    start, errors = threading.Barrier(16), []

    def reader(seed: int) -> None:
        rows = random.Random(seed).choices(range(3_000), k=2_000)
        start.wait()
        try:
            assert [read[row] for row in rows] == [papers[row] for row in rows]
            assert read.ids()[::97] == [p.paper_id for p in papers[::97]]
        except Exception as exc:  # noqa: BLE001 (every failure counts)
            errors.append(repr(exc))

    threads = [threading.Thread(target=reader, args=(seed,)) for seed in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_indexes_opened_before_and_during_rebuilds_read_whole(index_copy: Path):
    """Rebuilds alternate two paper lists (the second: titles changed) in the folder; each load
    sees one of them whole, and an index opened before keeps reading its own papers after its
    files were deleted."""
    found = store.load_artifacts(index_copy)
    first = list(found.papers)
    second = [Paper.from_dict({**p.to_dict(), "title": p.title + " (second)"}) for p in first]
    kept = {k: v for k, v in found.manifest.to_dict().items()
            if k not in ("files", "build_id", "count")}
    arrays = {role: np.asarray(found.arrays[role]) for role in found.arrays}
    opened = store.load_artifacts(index_copy)  # nothing read yet
    failures: list[str] = []
    stop, loads = threading.Event(), [0]

    def load_in_a_loop() -> None:
        while not stop.is_set():
            try:
                titles = [p.title for p in store.load_artifacts(index_copy).papers]
                assert titles in ([p.title for p in first], [p.title for p in second])
            except Exception as exc:  # noqa: BLE001 (every failure counts)
                failures.append(repr(exc))
            loads[0] += 1

    reader = threading.Thread(target=load_in_a_loop)
    reader.start()
    try:
        for number in range(30):
            store.write_artifacts(index_copy, second if number % 2 == 0 else first,
                                  found.index, found.extras, kept, arrays)
    finally:
        stop.set()
        reader.join()
    assert failures == [] and loads[0] >= 10, (failures[:3], loads)
    assert not (index_copy / found.manifest.files["papers"].name).exists()
    assert list(opened.papers) == first
