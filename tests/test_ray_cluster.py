"""`build --engine ray` on a multi-node Ray cluster: a head (no CPUs) and two worker nodes of
one CPU each, separate `ray start` processes joined over TCP (benchmarks/ray_cluster.py), the
driver connected by address as on a real cluster. The index equals a local build's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts.store import load_artifacts
from tests.conftest import SEEDS, same_text_cosine

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[test]'")

@pytest.fixture(scope="module")
def cluster():
    """The simulated cluster, with this process as its driver; stopped afterwards."""
    from benchmarks.ray_cluster import LocalCluster

    if ray.is_initialized():
        ray.shutdown()
    with LocalCluster(workers=2, cpus_per_worker=1) as running:
        saved = {name: os.environ.get(name) for name in running.driver_env}
        os.environ.update(running.driver_env)  # this process is a driver too
        ray.init(address=running.address, log_to_driver=False)
        try:
            yield running
        finally:
            ray.shutdown()
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def test_the_cluster_has_two_worker_nodes_and_a_head_without_cpus(cluster):
    nodes = [node for node in ray.nodes() if node["Alive"]]
    with_cpus = [node for node in nodes if node["Resources"].get("CPU", 0) > 0]
    assert len(nodes) == 3 and len(with_cpus) == 2
    assert all(node["Resources"]["CPU"] == 1 for node in with_cpus)
    assert not any("node:__internal_head__" in node["Resources"] for node in with_cpus)


def test_a_build_on_the_cluster_gives_the_local_index(cluster, seeds_index: Path,
                                                     tmp_path: Path, cpu_branch):
    out = tmp_path / "cluster-index"
    # A driver of its own, as a user's build is: `explorer build --engine ray` in a new process
    # finds the cluster by RAY_ADDRESS, with the cluster's auth settings (a build after
    # test_ray.py's local Ray, whose ray.init left RAY_AUTH_MODE=token in os.environ, found its
    # actors dead at start).
    # Two actors of one CPU each: one per worker node, the head has none; batch 4 -> Ray
    # batches of 64 texts, so the 71 seeds go to both nodes.
    command = [str(Path(sys.executable).with_name("explorer")), "build", str(SEEDS), "--out",
               str(out), "--engine", "ray", "--no-sentences", "--batch-size", "4",
               "--no-upgrade", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **cluster.driver_env,
                               "RAY_ADDRESS": cluster.address})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["embedded"] == report["papers"] > 0
    local, remote = load_artifacts(seeds_index), load_artifacts(out)
    assert [p.paper_id for p in remote.papers] == [p.paper_id for p in local.papers]
    assert [p.to_dict() for p in remote.papers] == [p.to_dict() for p in local.papers]
    ours, theirs = remote.index.vectors(), local.index.vectors()
    assert ours.shape == theirs.shape
    cosine = same_text_cosine(local.manifest.model.precision)
    cpu_branch(f"{local.manifest.model.precision}: least cosine {cosine}")
    np.testing.assert_allclose(ours, theirs, atol=2e-3 if cosine > 0.9995 else 6e-3)
    assert np.einsum("ij,ij->i", ours, theirs).min() > cosine
    assert remote.manifest.model.backend.startswith("ray:")
    assert remote.manifest.model.fingerprint == local.manifest.model.fingerprint
    _, rows = remote.index.search(ours[:20], 1)
    np.testing.assert_array_equal(rows[:, 0], np.arange(20))  # each paper finds itself
