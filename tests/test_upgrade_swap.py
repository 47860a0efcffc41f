"""The upgrade's swap under concurrent readers: threads keep asking while the index is
re-embedded with the stronger model and replaced; every question is answered (no failed load)
and each answer is entirely one model's: equal to the old index's answer or the new one's, the
model the answer names. The readers open the index as the app does (a cached Explorer per build
id, app/shell.py's load_explorer), so the swap also shows them picking up the new index."""

from __future__ import annotations

import threading

from explorer.artifacts.store import read_manifest
from explorer.features.upgrade.stage_run import run_upgrade
from explorer.query.engine import Explorer
from explorer.ui.page import build_key
from tests.conftest import SEEDS
from tests.test_upgrade import strong_model  # noqa: F401 - the fixture

QUESTIONS = ["neural machine translation with attention", "protein structure prediction",
             "reinforcement learning for games", "image classification with deep networks",
             "graph neural networks", "speech recognition"]
READERS = 6


class AppLike:
    """An Explorer per build, swapped when the manifest names a new one (the app's cache)."""

    def __init__(self, folder) -> None:
        self.folder, self.lock, self.cached = folder, threading.Lock(), (None, None)

    def explorer(self) -> Explorer:
        key = build_key(read_manifest(self.folder))
        with self.lock:
            if self.cached[0] != key:
                self.cached = (key, Explorer.open(self.folder))
            return self.cached[1]


def answer(explorer: Explorer, question: str) -> tuple[str, tuple[str, ...]]:
    hits = explorer.search(question, 5, mode="dense")
    return explorer.manifest.model.fingerprint, tuple(hit.paper_id for hit in hits)


def test_readers_see_one_model_whole_through_the_swap(index_copy, strong_model):  # noqa: F811
    before = Explorer.open(index_copy)
    old = {q: answer(before, q) for q in QUESTIONS}
    app, stop = AppLike(index_copy), threading.Event()
    answers: list[tuple[str, str, tuple[str, ...]]] = []
    failures: list[BaseException] = []

    def read(offset: int) -> None:
        turn = offset
        while not stop.is_set():
            question = QUESTIONS[turn % len(QUESTIONS)]
            turn += 1
            try:
                answers.append((question, *answer(app.explorer(), question)))
            except BaseException as exc:  # noqa: BLE001 - every failure is the test's finding
                failures.append(exc)

    readers = [threading.Thread(target=read, args=(n,)) for n in range(READERS)]
    for thread in readers:
        thread.start()
    try:
        run_upgrade(index_copy, [str(SEEDS)], str(strong_model), batch_size=8)
        swapped = len(answers)
        while len(answers) < swapped + 2 * READERS and not failures:  # some after the swap
            stop.wait(0.05)
    finally:
        stop.set()
        for thread in readers:
            thread.join()
    assert not failures, failures[:3]
    after = Explorer.open(index_copy)
    new = {q: answer(after, q) for q in QUESTIONS}
    assert new[QUESTIONS[0]][0] != old[QUESTIONS[0]][0]  # the stronger model answers now
    assert any(new[q][1] != old[q][1] for q in QUESTIONS)  # a mixed answer would show
    expected = {(q, *old[q]) for q in QUESTIONS}
    expected |= {(q, *new[q]) for q in QUESTIONS}
    mixed = [a for a in answers if a not in expected]
    assert not mixed, mixed[:3]
    models = {fingerprint for _, fingerprint, _ in answers}
    assert models == {old[QUESTIONS[0]][0], new[QUESTIONS[0]][0]}, "both models answered"
    assert answers[-1][1] == new[QUESTIONS[0]][0]  # the readers picked up the new index
