"""Issue 12's targets on the machine at hand, in one command (`benchmarks.run targets`).

Runs the benchmarks that measure them, each against its own baseline in the same run as
always (query at ~92k papers, concurrent, coldstart, wholebuild of 1,000 abstracts; with
--with-10k also 10,000), then reads the result files they wrote and prints each target beside
what this run measured and whether it is met. The targets that differ with AMX are taken for
this CPU's flags (the build: >= 4x the plain process with AMX, >= 2.5x without). The build of
all 91,894 papers from scratch (10-40 minutes) runs with --full-build (results/fullbuild-<cpu>.md;
the table reads the last one of this CPU; `benchmarks/results/fullbuild-91894.md` has the
runs of earlier sessions). --summary-only runs nothing and makes the table from this CPU's
result files as they are.

Writes results/targets-<cpu>.md and .json, <cpu> from the CPU's vendor, family and model
(e.g. targets-amd-f26-m2.md), and a copy of each benchmark's result file under the same
suffix (query-amd-f26-m2.md, ...), so runs on different CPUs never overwrite each other's
(each benchmark also writes its unsuffixed file, as when run alone). Every figure is a median
or percentile over that benchmark's own runs; the summary adds no measurement of its own.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

from benchmarks import coldstart, concurrent, query, whole_build
from benchmarks.common import PAPERLISTS, RESULTS, ROOT, machine, require_paperlists, save
from benchmarks.indexes import work_dir
from explorer.model.backends import cpu_flags

FULL_BUILD_LIMIT = 12 * 60  # seconds, the target on a 2-core AMX machine


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run targets")
    parser.add_argument("--with-10k", action="store_true",
                        help="also the whole build of 10,000 abstracts (~5-25 minutes more)")
    parser.add_argument("--full-build", action="store_true",
                        help="also build all of paperlists-ml from scratch (~10-40 minutes)")
    parser.add_argument("--summary-only", action="store_true",
                        help="run nothing: the table from this CPU's result files as they are")
    args = parser.parse_args(argv)
    sizes = ["1000", "10000"] if args.with_10k else ["1000"]
    info = machine()
    suffix = info["cpu_id"]
    if args.full_build:
        _full_build(suffix)
    runs = ((query.run, ["--sizes", "91808"], "query"), (concurrent.run, [], "concurrent"),
            (coldstart.run, [], "coldstart"),
            (whole_build.run, ["--sizes", *sizes], f"wholebuild-{'-'.join(sizes)}"))
    for benchmark, options, name in runs if not args.summary_only else ():
        started = time.time()
        benchmark(options)
        written = max((path for path in RESULTS.glob(f"{name}*.json")
                       if path.stat().st_mtime >= started), key=lambda path: path.stat().st_mtime)
        for kind in ("md", "json"):  # this CPU's copy, beside other CPUs' (never compared)
            source = written.with_suffix(f".{kind}")
            shutil.copyfile(source, RESULTS / f"{source.stem}-{suffix}.{kind}")
    amx = bool({"amx_bf16", "amx_int8"} & cpu_flags())
    rows = [*_build_rows(sizes, amx, suffix), _full_build_row(suffix), *_latency_rows(suffix),
            *_coldstart_rows(suffix)]
    save(f"targets-{suffix}", f"Issue 12's targets on this CPU ({info['cpu']}, "
         f"{'with' if amx else 'without'} AMX)", rows,
         ["target", "measured", "status", "from"], notes=__doc__.strip())


def _result(name: str) -> list[dict[str, Any]]:
    return json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))["rows"]


def _row(target: str, measured: str, met: bool | None, source: str) -> dict[str, str]:
    status = "not run" if met is None else "met" if met else "MISSED"
    return {"target": target, "measured": measured, "status": status, "from": source}


def _build_rows(sizes: list[str], amx: bool, suffix: str) -> list[dict[str, str]]:
    needed = 4.0 if amx else 2.5
    name = f"wholebuild-{'-'.join(sizes)}-{suffix}"
    rows = []
    for size in sizes:
        found = _first(_result(name), lambda row, s=size: row["task"].startswith(
            f"build {s}, explanations on demand"))
        rows.append(_row(f"whole `explorer build` of {int(size):,} abstracts >= {needed}x the "
                         f"plain sentence-transformers process ({'AMX' if amx else 'no AMX'})",
                         f"{found['product_s']} s against {found['baseline_s']} s, "
                         f"{found['ratio']}x (rounds {found['rounds']})",
                         float(found["ratio"]) >= needed, f"{name}.md"))
    return rows


def _full_build(suffix: str) -> None:
    """Build all of paperlists-ml from scratch (an empty folder, the exported model already
    in the cache as after any first build) with the product's defaults, as a user runs it, and
    write results/fullbuild-<cpu>.md/.json: its wall time and the build's own stage times."""
    require_paperlists()
    with tempfile.TemporaryDirectory(prefix="fullbuild-", dir=work_dir()) as out:
        command = [str(ROOT / ".venv" / "bin" / "explorer"), "build", str(PAPERLISTS),
                   "--out", out, "--json"]
        started = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"the full build failed: {result.stderr.strip()[-500:]}")
    report = json.loads(result.stdout)
    stages = ", ".join(f"{name} {value:.1f}" for name, value in report["stages"].items())
    row = {"papers": report["papers"], "seconds": round(seconds, 1),
           "minutes": round(seconds / 60, 1), "papers_per_s": round(report["papers"] / seconds, 1),
           "stages": stages}
    save(f"fullbuild-{suffix}", "The whole paperlists-ml corpus built from scratch "
         "(`explorer build CORPUS --out EMPTY`, the product's defaults)", [row],
         ["papers", "seconds", "minutes", "papers_per_s", "stages"], notes=_full_build.__doc__)


def _full_build_row(suffix: str) -> dict[str, str]:
    target = "91,894 papers from scratch <= 12 min (on a 2-core AMX machine)"
    name = f"fullbuild-{suffix}"
    if not (RESULTS / f"{name}.json").is_file():
        return _row(target, "not run on this CPU: `benchmarks.run targets --full-build`", None,
                    name + ".md")
    found = _result(name)[0]
    return _row(target, f"{found['minutes']} min ({found['papers']:,} papers at "
                f"{found['papers_per_s']}/s; stages: {found['stages']})",
                found["seconds"] <= FULL_BUILD_LIMIT, name + ".md")


def _latency_rows(suffix: str) -> list[dict[str, str]]:
    one = _first(_result(f"query-{suffix}"), lambda row: row["papers"] > 50_000)
    many = _first(_result(f"concurrent-91794-{suffix}"),
                  lambda row: row["variant"] == "product (batching)" and row["sessions"] > 1)
    return [
        _row("one session, ~92k papers: p50 < 15 ms, p99 < 40 ms",
             f"{one['product_p50_ms']} / {one['product_p99_ms']} ms (baseline "
             f"{one['baseline_p50_ms']} / {one['baseline_p99_ms']})",
             one["product_p50_ms"] < 15 and one["product_p99_ms"] < 40, f"query-{suffix}.md"),
        _row(f"{many['sessions']} sessions at once, ~92k: p50 < 50 ms, p99 < 200 ms an answer",
             f"{many['p50_ms']} / {many['p99_ms']} ms, {many['answers_per_s']} answers/s, "
             f"{many['cpu_ms']} ms of CPU an answer",
             many["p50_ms"] < 50 and many["p99_ms"] < 200, f"concurrent-91794-{suffix}.md")]


def _coldstart_rows(suffix: str) -> list[dict[str, str]]:
    rows = []
    for path, label, limit in (("cli", "CLI", 3.0), ("app", "app", 5.0)):
        found = _first(_result(f"coldstart-{suffix}"), lambda row, p=path: row["path"] == p)
        rows.append(_row(f"cold start to the first answer, ~92k, {label} < {limit:g} s",
                         f"{found['product_s']} s (runs {found['product_runs']}; baseline "
                         f"{found['baseline_s']} s)", found["product_s"] < limit,
                         f"coldstart-{suffix}.md"))
    return rows


def _first(rows: list[dict[str, Any]], wanted: Callable[[dict[str, Any]], bool]) -> dict:
    found = next((row for row in rows if wanted(row)), None)
    if found is None:
        raise SystemExit("a benchmark's result file lacks the row a target reads: rerun it")
    return found
