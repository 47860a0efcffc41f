"""How each cost grows with the corpus (`benchmarks.run scale --growth`): the product's rows of
this CPU's scale result files (SOURCES: the dense index the product serves at each size, at its
breadth, beside the flat scan of the same run; the BM25 build) side by side per size, as a table
(results/scale-growth-<cpu>.md) and a plot (.svg, no plotting library: a few lines of SVG).
It measures nothing: each row's figures come from its own run, named in the `from` column,
beside the load of that run (shared machine: compare ratios within a run, sizes only roughly).
"""

from __future__ import annotations

import json
import math

from benchmarks.common import RESULTS, machine, save
from benchmarks.scale import ADDED
from explorer.index.lexical import BLOCK_ROWS

COLUMNS = ["papers", "index", "build_s", "serve_rss_mb", "rss_anon_mb", "first_answer_s",
           "p50_ms", "p99_ms", "recall_at_10", "flat_p50_ms", "update_s", "update_recall",
           "bm25_build_s", "bm25_peak_mb", "bm25_stored_mb", "from"]
# the dense rows (runs by size: a size's later run wins), the BM25 builds
DENSE = ("scale-{cpu}", "scale-100000-update-{cpu}", "scale-1000000-update-{cpu}",
         "scale-2700000-{cpu}", "scale-2700000-ivf-{cpu}")  # later files' rows win
SOURCES = (*DENSE, "scale-bm25-{cpu}", "scale-bm25-1m-{cpu}")
PANELS = (("build_s", "dense index build, s"), ("serve_rss_mb", "resident while serving, MB"),
          ("p50_ms", "one question p50, ms"), ("flat_p50_ms", "flat scan p50, ms"),
          ("bm25_peak_mb", "BM25 build peak, MB"), ("bm25_build_s", "BM25 build, s"))


def run(argv: list[str]) -> None:
    cpu = machine()["cpu_id"]
    rows = rows_of(cpu)
    save(f"scale-growth-{cpu}", "Scale: how each cost grows with the corpus (the product's "
         "rows of this CPU's scale results)", rows, COLUMNS, notes=__doc__.strip())
    (RESULTS / f"scale-growth-{cpu}.svg").write_text(svg(rows), encoding="utf-8")


def rows_of(cpu: str) -> list[dict]:
    """One row per size: the served approximate index where the product serves one (IVF from
    200k; at 100k the IVF row too, for the curve), its flat scan's p50, the update adding ADDED
    papers to it, the BM25 build (the product's blocks)."""
    by_size: dict[int, dict] = {}
    for name in SOURCES:
        path = RESULTS / f"{name.format(cpu=cpu)}.json"
        if not path.is_file():
            continue
        payload = json.loads(path.read_text(encoding="utf-8"))
        load = payload["machine"]["load_average"][0]
        for row in payload["rows"]:
            updated = "updated" in str(row.get("index"))
            papers = row["papers"] - ADDED if updated else row["papers"]
            entry = by_size.setdefault(papers, {"papers": papers})
            source = f"{path.stem} (load {load})"
            if updated:
                entry.update(update_s=row["build_s"], update_recall=row["recall_at_10"])
            elif "bm25_peak_mb" in row:
                if row.get("block") != BLOCK_ROWS:  # the whole-corpus comparison
                    continue
                entry.update(bm25_build_s=row["build_s"], bm25_peak_mb=row["bm25_peak_mb"],
                             bm25_stored_mb=row["stored_mb"])
            elif row["index"] == "flat":
                entry["flat_p50_ms"] = row["p50_ms"]
            elif "product" in row["index"] or row["index"] == "ivf (probes 64)":
                entry.update({key: row.get(key, "-") for key in COLUMNS[1:9]}, index=row["index"])
            else:
                continue
            entry["from"] = ", ".join(sorted({*entry.get("from", "").split(", "), source} - {""}))
    return [{key: by_size[size].get(key, "-") for key in COLUMNS} for size in sorted(by_size)]


def svg(rows: list[dict], width: int = 240, height: int = 150) -> str:
    """Small multiples: each PANELS cost against papers (log scale), one per panel."""
    parts = []
    for i, (key, title) in enumerate(PANELS):
        points = [(row["papers"], row[key]) for row in rows
                  if isinstance(row[key], (int, float)) and row[key] > 0]
        parts.append(_panel(points, title, (i % 3) * width, (i // 3) * height, width, height))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{3 * width}" '
            f'height="{2 * height}" font-family="sans-serif" font-size="10">'
            + "".join(parts) + "</svg>\n")


def _panel(points: list[tuple[int, float]], title: str, left: int, top: int, width: int,
           height: int) -> str:
    """One panel: x log10(papers) over 10^5..10^6.5, y linear from 0 to the largest value."""
    inner = (left + 40, top + 20, width - 55, height - 45)  # x, y, w, h of the plot area
    out = [f'<text x="{left + 40}" y="{top + 12}">{title}</text>',
           f'<rect x="{inner[0]}" y="{inner[1]}" width="{inner[2]}" height="{inner[3]}" '
           'fill="none" stroke="#999"/>']
    highest = max((y for _, y in points), default=1.0)

    def place(x: float, y: float) -> tuple[float, float]:
        share = (math.log10(x) - 5) / 1.5
        return inner[0] + share * inner[2], inner[1] + inner[3] * (1 - y / highest)

    for papers, label in ((100_000, "100k"), (1_000_000, "1M"), (2_700_000, "2.7M")):
        x, _ = place(papers, 0)
        out.append(f'<text x="{x:.0f}" y="{top + height - 12}" text-anchor="middle">{label}</text>')
    out.append(f'<text x="{inner[0] - 3}" y="{inner[1] + 8}" text-anchor="end">{highest:g}</text>')
    xy = [place(x, y) for x, y in points]
    if len(xy) > 1:
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
        out.append(f'<polyline points="{line}" fill="none" stroke="#2060c0" stroke-width="2"/>')
    out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#2060c0"/>' for x, y in xy]
    out += [f'<text x="{x + 4:.0f}" y="{y - 4:.0f}">{value:g}</text>'
            for (x, y), (_, value) in zip(xy, points)]
    return "".join(out)


