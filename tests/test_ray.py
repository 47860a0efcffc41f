"""`build --engine ray` against a local Ray instance with two workers: the same index as local."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts.store import load_artifacts
from explorer.ingest.run import build
from tests.conftest import SEEDS, same_text_cosine

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[test]'")


@pytest.fixture(scope="module")
def local_ray():
    """A private two-CPU Ray instance (never an outside cluster), shut down afterwards."""
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_build_gives_the_local_index(local_ray, seeds_index: Path, tmp_path: Path,
                                        cpu_branch):
    out = tmp_path / "ray-index"
    # batch 4 -> Ray batches of 64 texts: the 71 seeds go to both actors.
    report = build([SEEDS], out, "default", sentences=False, batch_size=4, engine="ray")
    assert report.embedded == report.papers > 0
    local, remote = load_artifacts(seeds_index), load_artifacts(out)
    assert [p.to_dict() for p in remote.papers] == [p.to_dict() for p in local.papers]
    ours, theirs = remote.index.vectors(), local.index.vectors()
    assert ours.shape == theirs.shape
    cosine = same_text_cosine(local.manifest.model.precision)  # other batches: rounding
    cpu_branch(f"{local.manifest.model.precision}: least cosine {cosine}")
    np.testing.assert_allclose(ours, theirs, atol=2e-3 if cosine > 0.9995 else 6e-3)
    assert np.einsum("ij,ij->i", ours, theirs).min() > cosine
    model = remote.manifest.model
    assert model.backend.startswith("ray:") and model.dimension == ours.shape[1]
    assert model.fingerprint == local.manifest.model.fingerprint


def test_unknown_engine_is_refused(tmp_path: Path):
    from explorer.errors import ExplorerError

    with pytest.raises(ExplorerError, match="engine"):
        build([SEEDS], tmp_path / "x", "default", sentences=False, engine="spark")
