"""Speed benchmarks (issue 4): `.venv/bin/python -m benchmarks.run NAME [options]`.

NAME is one of: embed, query, build, wholebuild, coldstart, coldscale, coldparts, appparts, large,
ndcg, app, ray, load, bib, years, profile, concurrent, explain, blas, targets, collections, abuse,
mapdraw, references, scale. Each prints a markdown table (the product's path beside a plain
baseline measured in the same run, with the ratio) and writes it to benchmarks/results/NAME.md
and NAME.json. See benchmarks/README.md.
"""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = {"embed": "benchmarks.embed", "query": "benchmarks.query",
              "build": "benchmarks.build_time", "wholebuild": "benchmarks.whole_build",
              "coldstart": "benchmarks.coldstart", "coldscale": "benchmarks.cold_scale",
              "coldparts": "benchmarks.cold_parts", "appparts": "benchmarks.app_parts",
              "large": "benchmarks.large", "ndcg": "benchmarks.ndcg", "app": "benchmarks.app",
              "ray": "benchmarks.ray_scaling", "load": "benchmarks.load",
              "bib": "benchmarks.bibliography", "years": "benchmarks.years",
              "profile": "benchmarks.profile", "concurrent": "benchmarks.concurrent",
              "explain": "benchmarks.explain", "blas": "benchmarks.blas",
              "targets": "benchmarks.targets", "collections": "benchmarks.collections",
              "abuse": "benchmarks.abuse", "mapdraw": "benchmarks.map_draw",
              "references": "benchmarks.references",
              "scale": "benchmarks.scale"}


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if not argv or argv[0] not in BENCHMARKS:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    importlib.import_module(BENCHMARKS[argv[0]]).run(argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
