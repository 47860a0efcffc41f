"""Make the ACM-CR slices the quality results were measured on (outside the repository).

A slice keeps every paper that any of the three qrels files judges relevant plus random
distractors, and links the query and qrels files of the original folder. The slices are
easier than the full corpus (relevant papers are a far larger share), so only compare modes
within one slice; the full corpus is what the issue's targets are about.

    # 3,138 records: relevant + 2,500 distractors (seed 0)
    python -m studies.make_slice ../shared/data/acm-cr SLICES/acm-cr-slice 2500 --seed 0
    # 10,138 records: that slice + 7,000 more distractors (seed 1)
    python -m studies.make_slice ../shared/data/acm-cr SLICES/acm-cr-10k 7000 \
        --seed 1 --base SLICES/acm-cr-slice
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import random
from pathlib import Path

QRELS = ("qrels.tsv", "qrels_sentences.tsv", "qrels_papers.tsv")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("distractors", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--base", type=Path, help="extend this slice instead of the relevant set")
    args = parser.parse_args(argv)
    with gzip.open(args.dataset / "corpus.jsonl.gz", "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    if args.base:
        with gzip.open(args.base / "corpus.jsonl.gz", "rt", encoding="utf-8") as handle:
            kept_ids = {json.loads(line)["doc_id"] for line in handle}
    else:
        kept_ids = set()
        for name in QRELS:
            with (args.dataset / name).open(encoding="utf-8") as handle:
                kept_ids |= {row["doc_id"] for row in csv.DictReader(handle, delimiter="\t")}
    random.seed(args.seed)
    others = [r for r in records if r["doc_id"] not in kept_ids]
    keep = [r for r in records if r["doc_id"] in kept_ids] + random.sample(others, args.distractors)
    random.shuffle(keep)
    args.out.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in keep)
    for name in os.listdir(args.dataset):
        if name.startswith(("queries", "qrels")) and not (args.out / name).exists():
            os.symlink(args.dataset.resolve() / name, args.out / name)
    print(f"{len(keep)} records in {args.out}")
    return len(keep)


if __name__ == "__main__":
    main()
