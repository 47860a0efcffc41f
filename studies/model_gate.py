"""A model's own gate for the strength words (ranking/fitted.py) when its three judged sets
cannot all be embedded: the seed set's lists under MODEL read by the weights fitted on another
model's three sets (`--weights-of`, held out for MODEL: fitted on other vectors), the gate swept
over 50..95 in steps of 5 and picked by studies/strength_calibration.py's rule (the highest
keeping >= 85% of the seed paraphrase targets strong or good, all targets and the odd half);
beside it, weights fitted on MODEL's seed lists alone (--seeds-only's fit: in-sample here).

    nice -n 10 .venv/bin/python -m studies.model_gate --model mpnet [--weights-of default]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks.common import machine
from explorer.eval.evaluate import model_suffix
from explorer.model.embedder import resolve_model
from explorer.ranking.fitted import calibration_for
from explorer.settings import Settings
from studies.strength_calibration import RESULTS, calibrated, fit, halves, report
from studies.strength_data import SMALL, Embedded, seeds


def sweep(lists: list, weights: np.ndarray) -> list[dict]:
    _, odd = halves({"seeds": lists})
    rows = []
    for gate in range(50, 100, 5):
        every, half = (report(ls, calibrated(weights, gate=gate)) for ls in (lists, odd))
        rows.append({"gate": gate, "targets": every["targets_strong_or_good"],
                     "odd targets": half["targets_strong_or_good"],
                     "absent": every["absent_top_above_weak"],
                     "hand": "{1}/{0}".format(*every["hand_written_absent"]),
                     "strong": every["words"]["strong match"]})
    return rows


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mpnet")
    parser.add_argument("--weights-of", default="default")
    args = parser.parse_args(argv)
    cache = Settings.from_env().cache_dir / f"strength-study{model_suffix(args.model)}{SMALL.suffix()}"
    lists = seeds(Embedded(cache, args.model))
    theirs = calibration_for(resolve_model(args.weights_of).model_id)
    lines = [f"# The gate of {args.model} on its seed lists ({time.strftime('%Y-%m-%d')}, "
             f"{machine()['cpu']})", "", __doc__.split("\n\n")[0].replace("\n", " "), ""]
    for label, weights in ((f"weights of {args.weights_of} (three sets)",
                            np.array(theirs.relevance_weights)),
                           (f"weights fitted on {args.model}'s seeds (in-sample)", fit(lists))):
        rows = sweep(lists, weights)
        chosen = max([r["gate"] for r in rows if min(r["targets"], r["odd targets"]) >= 0.85],
                     default=None)
        lines += [f"## {label}: the rule picks {chosen}", "",
                  "| gate % | targets | odd targets | absent above weak | hand-written | strong: "
                  "share relevant (hits) |", "|---|---|---|---|---|---|"]
        lines += [f"| {r['gate']} | {r['targets']} | {r['odd targets']} | {r['absent']} | "
                  f"{r['hand']} | {r['strong']['relevant']} ({r['strong']['hits']}) |" for r in rows]
        lines.append("")
    out = RESULTS / f"strength-gate{model_suffix(args.model)}.md"
    out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return out


if __name__ == "__main__":
    main()
