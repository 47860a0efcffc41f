"""What a build did: counts for the summary line and for tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


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
