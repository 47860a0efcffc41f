"""`explorer eval` with one more row: hybrid without the feedback pass, beside the default.

The product's own pipeline (explorer.eval.evaluate over Explorer.rank), so the rows are what
the CLI, the app and `explorer eval` get; the extra row shows what the feedback pass adds.

    nice -n 10 .venv/bin/python -m studies.feedback_eval ../shared/data/acm-cr \
        --index ~/.cache/paper-explorer/acm-cr-progressive --output RESULT.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from explorer.eval.evaluate import SETS, TOP_K, describe_run, evaluate, format_table, load_set
from explorer.query.engine import Explorer
from explorer.ranking.fusion import HYBRID, MODES


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--set", dest="sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    explorer = Explorer.open(args.index)

    def plain(query, vector):
        hits = explorer.rank(query.text, vector, TOP_K, mode=HYBRID, feedback=False)
        return [explorer.row(hit.paper_id) for hit in hits]

    results = [evaluate(explorer, load_set(args.dataset, name), MODES,
                        rankers={"hybrid, no feedback": plain}) for name in args.sets]
    command = "python -m studies.feedback_eval " + " ".join(sys.argv[1:] if argv is None else argv)
    report = {**describe_run(explorer, args.dataset, command), "results": results}
    if args.output:
        args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(format_table(results))
    return report


if __name__ == "__main__":
    main()
