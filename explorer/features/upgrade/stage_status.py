"""The upgrade's progress file `.upgrade.json` beside the index: written atomically by the
background process (stage_run.py), read by the app and the CLI. No numpy: the app reads it."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from explorer.files import atomic_write

STATUS = ".upgrade.json"
EMBEDDING, WRITING, DONE, FAILED = "embedding", "writing", "done", "failed"
STATES = (EMBEDDING, WRITING, DONE, FAILED)
STALE_SECONDS = 120.0  # a running upgrade writes at least once per block (32 papers)


@dataclass(frozen=True)
class Status:
    """Where an upgrade stands: `state` (STATES), the stronger model's id, papers embedded
    (`done` of `total`, `resumed` of them from an interrupted run), its rate (papers/s), the
    process id and when it last wrote (epoch seconds); `message` when it failed."""

    state: str
    model: str
    done: int = 0
    total: int = 0
    resumed: int = 0
    rate: float | None = None
    pid: int | None = None
    updated: float = 0.0
    message: str = ""

    @property
    def seconds_left(self) -> float | None:
        if not self.rate or self.state != EMBEDDING:
            return None
        return max(0.0, (self.total - self.done) / self.rate)

    def alive(self) -> bool:
        """True while the process that writes it still runs (embedding or writing)."""
        if self.state not in (EMBEDDING, WRITING) or not self.pid:
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # someone else's process: alive
            pass
        return time.time() - self.updated < STALE_SECONDS or self.state == WRITING


def read_status(folder: Path) -> Status | None:
    """The folder's upgrade status, or None when there is none (or it cannot be read)."""
    try:
        data = json.loads((Path(folder) / STATUS).read_text(encoding="utf-8"))
        status = Status(**data)
    except (OSError, ValueError, TypeError):
        return None
    return status if status.state in STATES else None


def write_status(folder: Path, status: Status) -> None:
    text = json.dumps(asdict(status))
    atomic_write(Path(folder) / STATUS, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def clear_finished(folder: Path) -> None:
    """Remove the status of an upgrade that no longer runs (done, failed or killed): a build
    that starts none leaves no word of an old one (the next upgrade resumes from its checkpoint
    all the same)."""
    status = read_status(folder)
    if status is not None and not status.alive():
        (Path(folder) / STATUS).unlink(missing_ok=True)
