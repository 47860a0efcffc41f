"""The upgrade with the real all-mpnet-base-v2 (installed by `make mpnet`, which `make run` and
`make test` run): a fast index of a few seed papers is upgraded in the background by
`explorer build` itself, and the swapped index answers with mpnet's own 768-d vectors and its
own calibration. Skipped only where mpnet is not installed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.artifacts.layout import PAIR_QUANTILES, QUESTION_QUANTILES
from explorer.artifacts.store import load_artifacts
from explorer.cli.main import main
from explorer.corpus.papers import read_corpus
from explorer.features.upgrade.stage_status import DONE, FAILED
from explorer.model import catalog
from explorer.model.embedder import Embedder, resolve_model
from explorer.query.engine import Explorer
from explorer.settings import default_cache_dir
from tests.conftest import SEEDS
from tests.test_upgrade import any_question_time, wait_for  # noqa: F401 (a fixture)

PAPERS = 12  # seed papers: mpnet embeds a few a second on two loaded cores

pytestmark = pytest.mark.skipif(
    catalog.installed("mpnet", catalog.default_root(default_cache_dir())) is None,
    reason="all-mpnet-base-v2 is not installed (`make mpnet`)")


def test_a_fast_index_becomes_mpnet_in_the_background(tmp_path, monkeypatch, capsys):
    corpus = tmp_path / "papers.jsonl"
    records = [{"id": p.paper_id, "title": p.title, "abstract": p.abstract}
               for p in read_corpus([SEEDS]).papers[:PAPERS]]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "index"
    monkeypatch.delenv("EXPLORER_UPGRADE", raising=False)
    monkeypatch.delenv("EXPLORER_MODEL", raising=False)
    assert main(["build", str(corpus), "--out", str(out)]) == 0
    fast = load_artifacts(out)
    assert fast.manifest.model.dimension == 384
    assert "upgrading" in capsys.readouterr().err
    status = wait_for(out, lambda s: s.state in (DONE, FAILED), pause=0.5)
    assert status.state == DONE, status.message
    upgraded = load_artifacts(out)
    mpnet = resolve_model("mpnet")
    assert upgraded.manifest.model.fingerprint == mpnet.fingerprint
    assert upgraded.manifest.model.dimension == 768
    direct = Embedder(mpnet).embed_documents([upgraded.papers[0].text])[0]
    assert float(direct @ upgraded.index.vectors()[0]) > 0.999
    # Calibrated from mpnet's own vectors, not carried over from MiniLM's.
    for key in (PAIR_QUANTILES, QUESTION_QUANTILES):
        assert not np.allclose(upgraded.extras[key], fast.extras[key])
    asked = upgraded.papers[3]
    hits = Explorer.open(out).search(asked.title, 3)
    assert hits[0].paper_id == asked.paper_id
