"""A small paperlists-ml sample with years (and a few papers whose year is missing or
unusable), as a real index, built once per test session in a temp folder."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from explorer.ingest.run import build
from tests.app_fixtures import SHARED_DATA
from tests.run_fixtures import made_once

PAPERLISTS = SHARED_DATA / "paperlists-ml" / "corpus.jsonl.gz"
SAMPLE = 300  # papers read from paperlists-ml (fixed seed)
SEED = 14
# Records whose year the corpus reader cannot use: each becomes a paper without a year.
ODD_YEARS = [("odd-none", None), ("odd-text", "n/a"), ("odd-future", 3000), ("odd-ancient", 12),
             ("odd-empty", "")]
ODD_ABSTRACT = ("We study diffusion models for image generation with a learned noise schedule; "
                "sampling needs fewer steps and the images keep their quality ({}).")

_BUILT: dict[str, Path] = {}


def write_sample(folder: Path) -> Path:
    """SAMPLE random paperlists-ml records (SEED) and the ODD_YEARS records, as JSONL."""
    if not PAPERLISTS.is_file():
        pytest.skip(f"{PAPERLISTS} (paperlists-ml) is absent: the years tests need its sample")
    with gzip.open(PAPERLISTS, "rt", encoding="utf-8") as handle:
        lines = handle.readlines()
    picked = random.Random(SEED).sample(lines, SAMPLE)
    odd = [json.dumps({"doc_id": paper_id, "title": f"Odd year record {paper_id}",
                       "abstract": ODD_ABSTRACT.format(paper_id), "venue": "odd",
                       **({} if year is None else {"year": year})}) + "\n"
           for paper_id, year in ODD_YEARS]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "sample.jsonl"
    path.write_text("".join(picked + odd), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def years_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's real index (bundled model, exact FAISS, no sentence vectors: faster)."""
    def make(folder: Path) -> Path:
        out = folder / "index"
        build([write_sample(folder / "corpus")], out, "default", sentences=False)
        return out

    if "years" not in _BUILT:
        _BUILT["years"] = made_once(tmp_path_factory, "years-sample", make)
    return _BUILT["years"]
