"""Quiet output: a first build (the ONNX export included) prints its progress bars and summary,
and one line saying the model is being prepared, once: nothing a user cannot act on; warnings
the export does not expect still get through."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from explorer.model import export
from explorer.model.backends import UNSIGNED
from explorer.model.embedder import resolve_model

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
BAR = re.compile(r"^embedding \w+")  # cli/support.py Bar: 'embedding papers: 40%|...'
USABLE = re.compile(r"^explorer: .* is searchable now \([0-9.]+ s\); adding the sentence vectors")
PREPARING = re.compile(r"^explorer: preparing the model for this computer, once \(up to half a "
                       r"minute\); later builds and questions reuse it from ")


@pytest.mark.slow
def test_a_first_build_with_a_fresh_export_prints_no_warning(tmp_path: Path):
    cache = tmp_path / "cache"
    files = sorted(SEEDS.glob("*.txt"))[:4]
    done = _build(files, tmp_path / "index", cache)
    fingerprint = resolve_model("default").fingerprint
    assert (export.export_folder(fingerprint, cache) / export.FP32_FILE).is_file()  # exported
    lines = [line for line in re.split(r"[\r\n]+", done.stderr) if line.strip()]
    noise = [line for line in lines
             if not BAR.match(line) and not USABLE.match(line) and not PREPARING.match(line)]
    assert noise == [], done.stderr
    # the model's preparation is said once, before it starts; a build that reuses it is silent
    assert sum(bool(PREPARING.match(line)) for line in lines) == 1, done.stderr
    assert "Warning" not in done.stderr and "Loading weights" not in done.stderr
    summary, stages = done.stdout.splitlines()
    assert "written to" in summary and stages.startswith("stages (s): read ")
    again = _build(files[:1], tmp_path / "second", cache)
    assert "preparing the model" not in again.stderr, again.stderr


def _build(files: list[Path], out: Path, cache: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("explorer")
    done = subprocess.run([exe, "build", *map(str, files), "--out", str(out)],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "EXPLORER_CACHE": str(cache)})
    assert done.returncode == 0, done.stderr
    return done


def test_only_the_exports_own_warnings_are_silenced():
    import torch

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with export._quiet():
            warnings.warn("trace constant", torch.jit.TracerWarning, stacklevel=1)
            warnings.warn_explicit("aten::index in opset 17", UserWarning, "symbolic_opset11.py",
                                   954, module="torch.onnx._internal.symbolic_opset11")
            warnings.warn("something else", UserWarning, stacklevel=1)
            warnings.warn("deprecated", FutureWarning, stacklevel=1)
    assert sorted(str(w.message) for w in caught) == ["deprecated", "something else"]


def test_the_int8_quantisation_prints_nothing_and_leaves_logging_as_it_was(tmp_path: Path):
    """ONNX Runtime advises 'pre-processing' on the root logger, which would also give the whole
    process a stderr handler (logging.basicConfig); in a plain process (pytest's own log
    capture would hide both) the quantisation prints nothing and leaves the root as it was."""
    spec = resolve_model("default")
    folder, _ = export.ensure_export(spec.path, spec.fingerprint)  # the fp32 export (cached)
    code = ("import logging, sys; from pathlib import Path; from explorer.model import export; "
            "export._quantize(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]); "
            "root = logging.getLogger(); print(len(root.handlers), len(root.filters))")
    done = subprocess.run([sys.executable, "-c", code, str(folder / export.FP32_FILE),
                           str(tmp_path / "int8.onnx"), UNSIGNED],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout.split() == ["0", "0"]
    assert (tmp_path / "int8.onnx").stat().st_size > 1_000_000
