"""Broad topics against labels a reader trusts: paperlists-ml's primary_area and venue.

About 6,300 IJCAI and AAAI papers of paperlists-ml carry a `primary_area` (51 areas, some
split into sessions: "Machine Learning I".."V"; "folded" drops those numerals); every paper
has a venue. Each method below clusters the papers' vectors (read from an index of the corpus,
by paper id: nothing is embedded) and is scored by adjusted mutual information (sklearn's AMI,
arithmetic mean) and purity (share of papers in their cluster's most common label) against:
- primary_area, raw and folded, over the papers that have one;
- venue, over `--mixed` papers drawn at random (seed `--seed`) from the whole index.
Methods, each with its fit cost (CPU seconds of this process, and wall seconds):
- `today k-means (fine)`: the map's topics as shipped (features/topics/stage.py `_cluster`, 40 here);
- `areas, ...`: the broad level's two candidates for features/topics/stage_names.py `group_topics`, at
  several area counts (the middle one is `area_count`'s): k-means of the fine topics'
  centres weighted by their sizes, and Ward's linkage of the centres;
- `k-means at the area count`: k-means straight on the papers, as many clusters as areas;
- `hdbscan`: scikit-learn's HDBSCAN on the vectors (noise: one more cluster, its share said);
- `umap + hdbscan`, `umap + k-means`: umap-learn to 5 dimensions first (BERTopic's pipeline),
  when umap-learn imports (`--site DIR` adds a folder it was pip-installed to with --target).

    nice -n 19 .venv/bin/python -m studies.topic_study ../shared/data/paperlists-ml \\
        --index ~/.cache/paper-explorer/bench/index-91808-auto \\
        [--mixed 6300] [--seed 0] [--site /tmp/umap] [--out studies/results/topics-paperlists]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from explorer.artifacts.store import load_artifacts
from explorer.eval.evaluate import machine
from explorer.features.topics import stage as maps
from explorer.features.topics import stage_names as topics
from studies.reports import write_report

ROMAN = re.compile(r"\s+(?:I{1,3}|IV|V|VI{0,3})$")
SEED = 0
UMAP_COST: dict[str, float] = {}  # the one UMAP fit of the current vectors: cpu, wall seconds


def labelled(dataset: Path) -> dict[str, dict]:
    """doc_id -> {"area", "venue"} of every paperlists-ml paper."""
    path = dataset / "corpus.jsonl.gz" if dataset.is_dir() else dataset
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return {r["doc_id"]: {"area": str(r.get("primary_area") or ""), "venue": str(r["venue"])}
                for r in map(json.loads, handle)}


def purity(truth: np.ndarray, found: np.ndarray) -> float:
    """Share of papers whose label is their cluster's most common label."""
    total = 0
    for cluster in np.unique(found):
        total += Counter(truth[found == cluster].tolist()).most_common(1)[0][1]
    return total / len(truth)


def scores(truth: np.ndarray, found: np.ndarray) -> dict:
    from sklearn.metrics import adjusted_mutual_info_score

    return {"ami": round(float(adjusted_mutual_info_score(truth, found)), 4),
            "purity": round(purity(truth, found), 4)}


def timed(fit: Callable[[], np.ndarray]) -> tuple[np.ndarray, float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    found = np.asarray(fit())
    return found, round(time.process_time() - cpu, 2), round(time.perf_counter() - wall, 2)


def methods(vectors: np.ndarray, fine: np.ndarray, umap) -> dict[str, Callable[[], np.ndarray]]:
    """Name -> a fit returning one cluster label per row of `vectors` (n, d); the areas' fits
    start from the fine topics `fine` (their cost is added by measure)."""
    from sklearn.cluster import HDBSCAN, KMeans

    ids = sorted(set(fine.tolist()))
    areas = topics.area_count(len(ids))
    minimum = max(5, len(vectors) // 200)

    def weighted(count: int) -> Callable[[], np.ndarray]:
        def fit() -> np.ndarray:
            from sklearn.cluster import KMeans

            centres = topics.topic_centres(vectors, fine, ids)
            sizes = np.bincount(np.searchsorted(ids, fine), minlength=len(ids))
            merged = KMeans(count, n_init=8, random_state=SEED).fit_predict(
                centres, sample_weight=sizes)
            return merged[np.searchsorted(ids, fine)]
        return fit

    def ward(count: int) -> Callable[[], np.ndarray]:
        def fit() -> np.ndarray:
            from sklearn.cluster import AgglomerativeClustering

            centres = topics.topic_centres(vectors, fine, ids)
            merged = AgglomerativeClustering(count, linkage="ward").fit_predict(centres)
            return merged[np.searchsorted(ids, fine)]
        return fit

    reduced: list[np.ndarray] = []  # UMAP's 5-d vectors, fitted once (measure adds its cost)

    def umap_once() -> np.ndarray:
        if not reduced:
            found, cpu, wall = timed(lambda: umap.UMAP(
                n_components=5, n_neighbors=15, min_dist=0.0, metric="cosine", n_jobs=1,
                random_state=SEED).fit_transform(vectors))
            reduced.append(found)
            UMAP_COST.update(cpu=cpu, wall=wall)
        return reduced[0]

    found: dict[str, Callable[[], np.ndarray]] = {
        "k-means at the area count": lambda: KMeans(areas, n_init=4, random_state=SEED
                                                    ).fit_predict(vectors),
        "hdbscan": lambda: HDBSCAN(min_cluster_size=minimum, copy=True).fit_predict(vectors),
    }
    for count in sorted({max(2, areas // 2), areas, areas * 2, min(len(ids) - 1, areas * 3)}):
        found[f"areas, k-means of the centres (weighted), {count}"] = weighted(count)
        found[f"areas, Ward on the centres, {count}"] = ward(count)
    if umap is not None:
        found["umap + hdbscan"] = lambda: HDBSCAN(min_cluster_size=minimum, copy=True
                                                  ).fit_predict(umap_once())
        found["umap + k-means"] = lambda: KMeans(areas, n_init=4, random_state=SEED
                                                 ).fit_predict(umap_once())
    return found


def measure(vectors: np.ndarray, truths: dict[str, np.ndarray], umap) -> dict[str, dict]:
    """Every method's clusters of `vectors` scored against each of `truths`; an area row's
    cost includes the fine k-means it starts from."""
    fine, fine_cpu, fine_wall = timed(lambda: maps._cluster(vectors))
    UMAP_COST.clear()
    fits = {"today k-means (fine)": lambda: fine, **methods(vectors, fine, umap)}
    results = {}
    for name, fit in fits.items():
        found, cpu, wall = timed(fit)
        if name.startswith(("areas", "today")):  # they start from the fine topics
            cpu, wall = round(cpu + fine_cpu, 2), round(wall + fine_wall, 2)
        elif name.startswith("umap") and UMAP_COST:  # and these from UMAP's vectors
            first = name == "umap + hdbscan"
            cpu = round(cpu + (0 if first else UMAP_COST["cpu"]), 2)
            wall = round(wall + (0 if first else UMAP_COST["wall"]), 2)
        row = {"clusters": len(set(found.tolist()) - {-1}),
               "noise": round(float((found == -1).mean()), 4), "cpu s": cpu, "wall s": wall}
        for label, truth in truths.items():
            row[label] = scores(truth, found)
        results[name] = row
        print(f"{name}: {row}", flush=True)
    return results


def names(vectors: np.ndarray, papers: list) -> list[dict]:
    """The product's areas and topics of these papers, named, for a reader to judge."""
    labels = maps._cluster(vectors)
    described = topics.describe(papers, vectors, labels, np.arange(len(papers)))
    by_id = {t["id"]: t for t in described["topics"]}
    return [{"area": a["label"], "size": a["size"],
             "topics": [f"{by_id[t]['label']} ({by_id[t]['size']})" for t in a["topics"]]}
            for a in described["areas"]]


def table(report: dict) -> str:
    lines = [f"# Broad topics against primary_area and venue ({report['date']})", "",
             f"Machine: {report['machine']}. Command: `{report['command']}`. Vectors: "
             f"{report['index']} (all-MiniLM-L6-v2). primary_area: {report['labelled']} IJCAI "
             f"and AAAI papers, {report['areas raw']} areas ({report['areas folded']} folded); "
             f"venue: {report['mixed']} papers drawn from the whole index, "
             f"{report['venues']} venues.", ""]
    for part, columns in (("primary_area", ("area", "area folded")), ("venue", ("venue",))):
        head = " | ".join(f"{c} AMI | {c} purity" for c in columns)
        lines += [f"## {part}", "", f"| method | clusters | noise | {head} | CPU s | wall s |",
                  "|---" * (5 + 2 * len(columns)) + "|"]
        for name, row in report[part].items():
            cells = " | ".join(f"{row[c]['ami']:.3f} | {row[c]['purity']:.3f}" for c in columns)
            lines.append(f"| {name} | {row['clusters']} | {100 * row['noise']:.0f}% | {cells} | "
                         f"{row['cpu s']:.1f} | {row['wall s']:.1f} |")
        lines.append("")
    lines += ["## The product's names on the primary_area papers", ""]
    for area in report["names"]:
        lines.append(f"- **{area['area']}** ({area['size']}): " + "; ".join(area["topics"]))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dataset", type=Path, help="paperlists-ml folder or its corpus.jsonl.gz")
    parser.add_argument("--index", type=Path, required=True, help="an index of its corpus")
    parser.add_argument("--mixed", type=int, default=6300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--site", type=Path, default=None,
                        help="a folder umap-learn was installed to (pip install --target)")
    parser.add_argument("--out", type=Path, default=None, help="write OUT.json and OUT.md")
    args = parser.parse_args(argv)
    umap = _umap(args.site)
    known = labelled(args.dataset)
    found = load_artifacts(args.index)
    vectors = found.index.vectors()
    rows = [r for r, p in enumerate(found.papers) if known.get(p.paper_id, {}).get("area")]
    area = np.array([known[found.papers[r].paper_id]["area"] for r in rows])
    folded = np.array([ROMAN.sub("", a) for a in area])
    ids = [r for r, p in enumerate(found.papers) if p.paper_id in known]
    mixed = np.sort(np.random.default_rng(args.seed).choice(ids, min(args.mixed, len(ids)),
                                                            replace=False))
    venue = np.array([known[found.papers[r].paper_id]["venue"] for r in mixed])
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
              "command": "python -m studies.topic_study " + " ".join(argv or sys.argv[1:]),
              "index": args.index.name, "labelled": len(rows), "areas raw": len(set(area)),
              "areas folded": len(set(folded)), "mixed": len(mixed), "venues": len(set(venue)),
              "umap": umap is not None}
    report["primary_area"] = measure(vectors[rows], {"area": area, "area folded": folded}, umap)
    report["venue"] = measure(vectors[mixed], {"venue": venue}, umap)
    report["names"] = names(vectors[rows], [found.papers[r] for r in rows])
    markdown = table(report)
    write_report(args.out, report, markdown)
    print(markdown)
    return report


def _umap(site: Path | None):
    """umap-learn if it imports (from `site` too, after the environment's own packages)."""
    if site is not None and str(site) not in sys.path:
        sys.path.append(str(site))
    try:
        import umap
    except ImportError:
        return None
    return umap


if __name__ == "__main__":
    main()
