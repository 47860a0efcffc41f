"""The venue corpus: every ICLR 2017-18 and NeurIPS 2017-18 paper of paperlists-ml (about 3,160
papers with venues, years, status, authors, keywords; rejected, withdrawn and workshop papers
among them), as a real index built once per test session in a temp folder. The dashboard,
sources and trust tests read it; it skips with a clear message when ../shared is absent."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from explorer.ingest.run import build
from tests.app_fixtures import SHARED_DATA
from tests.run_fixtures import made_once

PAPERLISTS = SHARED_DATA / "paperlists-ml" / "corpus.jsonl.gz"
VENUES = ("iclr2017:", "iclr2018:", "nips2017:", "nips2018:")  # doc_id prefixes kept

_BUILT: dict[str, Path] = {}


def write_venues(folder: Path) -> Path:
    """The VENUES records of paperlists-ml, as written there (JSON lines), in one file."""
    if not PAPERLISTS.is_file():
        pytest.skip(f"{PAPERLISTS} (paperlists-ml) is absent: the venue-corpus tests need it")
    with gzip.open(PAPERLISTS, "rt", encoding="utf-8") as handle:
        kept = [line for line in handle if line[12:30].split('"', 1)[0].startswith(VENUES)]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "venues.jsonl"
    path.write_text("".join(kept), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def venue_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The venue corpus's real index (bundled model, default index type, no sentence vectors)."""
    def make(folder: Path) -> Path:
        out = folder / "index"
        build([write_venues(folder / "corpus")], out, "default", sentences=False)
        return out

    if "venues" not in _BUILT:
        _BUILT["venues"] = made_once(tmp_path_factory, "venue-corpus", make)
    return _BUILT["venues"]
