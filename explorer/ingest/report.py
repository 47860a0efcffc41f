"""What a build did: counts and stage times for the summary lines and for tests."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from explorer.corpus.papers import CorpusReport

# The build's stages in the order they run; the summary and --json name them so.
STAGES = ("read", "check", "model", "papers", "sentences", "bm25", "authors", "index", "quantiles",
          "map", "relatives", "links", "write")


@dataclass
class BuildReport:
    """What a build did, for the summary line and for tests."""

    papers: int
    records: int
    duplicates_merged: int
    skipped: dict[str, int]
    embedded: int
    reused: int
    model_id: str
    index_type: str
    seconds: float
    up_to_date: bool = False
    folder: Path = field(default_factory=Path)
    notes: dict[str, int] = field(default_factory=dict)  # values dropped from kept records
    stages: dict[str, float] = field(default_factory=dict)  # wall seconds per stage (STAGES)

    @classmethod
    def of(cls, corpus: CorpusReport, model_id: str, index_type: str, folder: Path,
           stages: dict[str, float]) -> BuildReport:
        """A build's report as it starts: what reading `corpus` found, nothing embedded yet."""
        return cls(papers=len(corpus.papers), records=corpus.records,
                   duplicates_merged=corpus.duplicates_merged, skipped=dict(corpus.skipped),
                   embedded=0, reused=0, model_id=model_id, index_type=index_type, seconds=0.0,
                   folder=folder, notes=dict(corpus.notes), stages=stages)

    def summary(self) -> str:
        skipped = sum(self.skipped.values())
        reasons = ", ".join(f"{n} {why}" for why, n in self.skipped.items())
        state = "already up to date" if self.up_to_date else f"written to {self.folder}/"
        notes = "; ".join(f"{n} {why}" for why, n in self.notes.items())
        return (
            f"{self.papers} papers from {self.records} records ({self.duplicates_merged} "
            f"duplicates merged, {skipped} skipped{': ' + reasons if reasons else ''}); "
            f"embedded {self.embedded}, reused {self.reused}; model {self.model_id}; "
            f"{self.index_type} index {state} in {self.seconds:.1f} s"
            + (f"; noted: {notes}" if notes else "")
        )

    def stage_line(self) -> str:
        """One short line: seconds per stage that ran, in build order, e.g.
        'stages (s): read 0.3, model 1.2, papers 40.1, ...'."""
        ran = [f"{name} {seconds:.1f}" for name, seconds in self.ordered_stages().items()]
        return "stages (s): " + ", ".join(ran) if ran else ""

    def ordered_stages(self) -> dict[str, float]:
        """`stages` in build order (STAGES), whichever started first."""
        return {name: self.stages[name] for name in STAGES if name in self.stages}

    def to_dict(self) -> dict:
        """The report as JSON-ready values (`explorer build --json`)."""
        return {"papers": self.papers, "records": self.records,
                "duplicates_merged": self.duplicates_merged, "skipped": dict(self.skipped),
                "embedded": self.embedded, "reused": self.reused, "model_id": self.model_id,
                "index_type": self.index_type, "seconds": round(self.seconds, 3),
                "up_to_date": self.up_to_date, "folder": str(self.folder),
                "notes": dict(self.notes),
                "stages": {name: round(s, 3) for name, s in self.ordered_stages().items()}}


class Stopwatch:
    """Wall time per stage into `seconds` (name -> seconds, in the order stages first run).

    A stage timed while another runs (the model loading on the first embedding) is charged to
    itself only: the outer stage pauses meanwhile, so the stages add up to the build's time.
    One build's thread uses it; it is not for sharing between threads."""

    def __init__(self, seconds: dict[str, float]) -> None:
        self.seconds = seconds
        self._open: list[list] = []  # [name, started] of the stages running, innermost last

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        if name not in STAGES:
            raise ValueError(f"unknown build stage {name!r}; expected one of {STAGES}")
        now = time.perf_counter()
        if self._open:
            self._charge(*self._open[-1], now)
        self._open.append([name, now])
        try:
            yield
        finally:
            end = time.perf_counter()
            self._charge(*self._open.pop(), end)
            if self._open:
                self._open[-1][1] = end

    def _charge(self, name: str, started: float, now: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + (now - started)
