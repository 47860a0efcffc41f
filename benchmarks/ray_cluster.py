"""A multi-node Ray cluster simulated on one machine: a head and worker nodes, each its own
`ray start --block` process with its own CPU share and ports, joined over TCP as the nodes of
a real cluster are (benchmarks.run ray --cluster, tests/test_ray_cluster.py).

The head gets no CPUs, so every embedding actor runs on a worker node and the driver (the
process that calls `ray.init(address=cluster.address)`) only reads, writes and coordinates,
as a build's driver does on a real cluster. Each node is a process group of ours: stopping
the cluster ends those groups only, never another Ray on the machine (no `ray stop`).

Authentication: the nodes run without Ray's tokens and are pointed away from ~/.ray/auth_token
(RAY_AUTH_MODE=disabled, RAY_AUTH_TOKEN_PATH in the cluster's temp folder): a token file that
another Ray on the machine left there made the head refuse its own worker nodes.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OBJECT_STORE_BYTES = 256 * 2**20  # per node: the vectors of a block are a few MB
JOIN_SECONDS = 90.0
# a `ray start --block` node seldom ends on SIGTERM within 30 s (the test's teardown waited
# them out); its process group is killed after this wait instead
STOP_SECONDS = 5.0


def free_ports(count: int) -> list[int]:
    """`count` TCP ports that nothing listens on now (held open together, so all differ)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for held in sockets:
            held.bind(("127.0.0.1", 0))
        return [held.getsockname()[1] for held in sockets]
    finally:
        for held in sockets:
            held.close()


def ray_command() -> list[str]:
    """The `ray` command of this Python environment (the nodes run the driver's packages)."""
    script = Path(sys.executable).with_name("ray")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from ray.scripts.scripts import main; main()"]


class LocalCluster:
    """`with LocalCluster(workers=2) as cluster:` a head and `workers` worker nodes of
    `cpus_per_worker` CPUs each; `cluster.address` is what RAY_ADDRESS or ray.init takes."""

    def __init__(self, workers: int = 2, cpus_per_worker: int = 1) -> None:
        self.cpus_per_worker = cpus_per_worker
        self._workers_wanted = workers
        self._nodes: list[subprocess.Popen] = []
        self._names: list[str] = []
        self._root = Path(tempfile.mkdtemp(prefix="rc-", dir="/tmp"))  # short: unix sockets
        self.port = free_ports(1)[0]
        self.address = f"127.0.0.1:{self.port}"
        self._auth = {"RAY_AUTH_MODE": "disabled",
                      "RAY_AUTH_TOKEN_PATH": str(self._root / "no-token")}

    @property
    def driver_env(self) -> dict[str, str]:
        """What a driver's environment must hold to join these nodes: their auth settings (a
        `ray.init()` earlier in the same process leaves RAY_AUTH_MODE=token in os.environ)."""
        return dict(self._auth)

    def __enter__(self) -> LocalCluster:
        try:
            self._start(["--head", f"--port={self.port}", "--num-cpus=0",
                         f"--temp-dir={self._root}", "--include-dashboard=false"], "head")
            for _ in range(self._workers_wanted):
                self.add_worker()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def workers(self) -> int:
        return len(self._nodes) - 1

    def add_worker(self) -> None:
        """Start one more worker node and wait until the cluster counts its CPUs."""
        self._start([f"--address={self.address}", f"--num-cpus={self.cpus_per_worker}"],
                    f"worker{self.workers + 1}")
        self.wait_for_cpus(self.workers * self.cpus_per_worker)

    def wait_for_cpus(self, cpus: int) -> None:
        """Block until the cluster reports `cpus` CPUs (its worker nodes have joined)."""
        deadline = time.monotonic() + JOIN_SECONDS
        check = ("import ray, sys; ray.init(address=sys.argv[1], log_to_driver=False); "
                 "print(int(ray.cluster_resources().get('CPU', 0)))")
        while time.monotonic() < deadline:
            self._check_alive()
            done = subprocess.run([sys.executable, "-c", check, self.address], text=True,
                                  capture_output=True, timeout=JOIN_SECONDS)
            if done.returncode == 0 and int(done.stdout.split()[-1]) >= cpus:
                return
            time.sleep(1.0)
        raise RuntimeError(f"the simulated Ray cluster did not reach {cpus} CPUs in "
                           f"{JOIN_SECONDS:.0f} s; node logs under {self._root}")

    def stop(self) -> None:
        """End every node's process group (workers first), then remove the temp folder."""
        for node in reversed(self._nodes):
            if node.poll() is None:
                os.killpg(node.pid, signal.SIGTERM)
        for node in reversed(self._nodes):
            try:
                node.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(node.pid, signal.SIGKILL)
                node.wait()
        self._nodes.clear()
        self._names.clear()
        shutil.rmtree(self._root, ignore_errors=True)


    def _start(self, args: list[str], name: str) -> None:
        node_manager, object_manager, agent, grpc, metrics, runtime_env = free_ports(6)
        ports = [f"--node-manager-port={node_manager}",
                 f"--object-manager-port={object_manager}",
                 f"--dashboard-agent-listen-port={agent}", f"--dashboard-agent-grpc-port={grpc}",
                 f"--metrics-export-port={metrics}", f"--runtime-env-agent-port={runtime_env}",
                 "--min-worker-port=0", "--max-worker-port=0"]  # 0: the system's free ports
        log = open(self._root / f"{name}.log", "wb")  # noqa: SIM115 - the node writes it
        env = {**os.environ, **self._auth, "RAY_USAGE_STATS_ENABLED": "0"}
        env.pop("RAY_ADDRESS", None)
        self._nodes.append(subprocess.Popen(
            [*ray_command(), "start", "--block", "--disable-usage-stats",
             f"--object-store-memory={OBJECT_STORE_BYTES}", *ports, *args],
            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True))
        log.close()
        self._names.append(name)

    def _check_alive(self) -> None:
        for node, name in zip(self._nodes, self._names):
            if node.poll() is not None:
                log = (self._root / f"{name}.log").read_text(errors="replace")[-1500:]
                raise RuntimeError(f"the {name} node of the simulated Ray cluster exited "
                                   f"({node.returncode}); the end of its log:\n{log}")
