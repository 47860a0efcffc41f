"""Derived titles against real ones: paperlists-ml papers titled from their abstract alone.

For a fixed random sample of papers that have a real title (default 1,000, seed 0), each
method below derives a title from the abstract alone, and each is scored against the real title:
- names: when the real title introduces a name ("Flash3D: Feed-Forward ..."; the part before
  the colon is 1-3 words and one has an inner capital or digit, or is an acronym), whether the
  derived title contains that name (case and hyphens ignored);
- similarity: cosine of the derived and the real title, both embedded by the bundled model,
  with a 95% bootstrap interval of the mean and of its paired difference from the product;
- names given: of the derived titles that lead with a name ("Name: ..." or "Name (...): ..."),
  the share whose name the real title has (a wrong name misleads a reader most);
- shape: mean words, titles over MAX_WORDS words, titles cut mid-phrase (ending in "...").
Methods: the product (`explorer.corpus.titles.derive_title`), the derive_title shipped before
it (studies/titles_before.py, a frozen copy), the first sentence cut at 12 words, and the
abstract's top three YAKE keyphrases joined (`explorer.corpus.phrases.keyphrases`).

    .venv/bin/python -m studies.title_study ../shared/data/paperlists-ml \\
        [--sample 1000] [--seed 0] [--out studies/results/titles-paperlists] \\
        [--seeds seeds --judged studies/results/titles-seeds.md]

`--seeds` also writes the seeds' derived titles as the table `--judged` (a reader's
judgement of each: good / weak, with a reason), keeping the judgement of every title that is
unchanged and marking the others "to judge".
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from explorer.corpus.phrases import keyphrases
from explorer.corpus.sentences import split_sentences
from explorer.corpus.titles import MAX_WORDS, derive_title
from explorer.model.embedder import Embedder, resolve_model
from explorer.settings import DEFAULT_MODEL
from studies import titles_before
from studies.reports import write_report

BOOTSTRAP = 2000
_NAMED = re.compile(r"^\s*(?P<name>[^:\s][^:]{0,40}?)\s*:\s+\S")
_LEADING = re.compile(r"^(?P<name>[^:()]{1,40}?)\s*(?:\([^()]*\))?:\s")
_ROW = re.compile(r"^\|\s*\d+\s*\|\s*(?P<id>[^|]+?)\s*\|\s*(?P<title>.+?)\s*\|\s*"
                  r"(?P<verdict>good|weak|to judge)\s*\|\s*(?P<reason>.*?)\s*\|$")


def first_sentence(abstract: str, words: int = 12) -> str:
    """The abstract's first sentence, cut at `words` words."""
    spans = split_sentences(abstract)
    start, end = spans[0] if spans else (0, len(abstract))
    return " ".join(abstract[start:end].split()[:words])


def top_keyphrases(abstract: str, top: int = 3) -> str:
    """The abstract's top YAKE keyphrases, joined."""
    return ", ".join(keyphrases(abstract, top=top))


METHODS: dict[str, Callable[[str], str]] = {
    "derived (this branch)": derive_title,
    "derive_title before": titles_before.derive_title,
    "first sentence, 12 words": first_sentence,
    "top 3 keyphrases": top_keyphrases,
}


def sample(dataset: Path, size: int, seed: int) -> list[dict]:
    """`size` papers with a title and an abstract of 50+ characters, drawn with `seed` from
    the corpus in file order (the same draw for the same file)."""
    path = dataset / "corpus.jsonl.gz" if dataset.is_dir() else dataset
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        papers = [r for r in map(json.loads, handle)
                  if str(r.get("title") or "").strip() and len(str(r.get("abstract") or "")) >= 50]
    return random.Random(seed).sample(papers, min(size, len(papers)))


def introduced_name(title: str) -> str | None:
    """The name a real title introduces before its colon ("Flash3D"), or None."""
    match = _NAMED.match(title)
    if not match:
        return None
    name = match.group("name").strip()
    words = name.split()
    coined = any(re.search(r"[A-Z0-9]", w[1:]) or (w.isupper() and len(w) > 1) for w in words)
    return name if len(words) <= 3 and coined else None


def names_agree(name: str, derived: str) -> bool:
    """True when `derived` contains `name`, case and hyphens ignored, on word boundaries."""
    def squash(text: str) -> str:
        return " " + re.sub(r"[^0-9a-z]+", " ", text.lower()).strip() + " "

    return squash(name) in squash(derived)


def bootstrap(values: np.ndarray, seed: int = 0) -> tuple[float, float]:
    """A 95% percentile bootstrap interval of the mean of `values`."""
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), (BOOTSTRAP, len(values)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def measure(papers: list[dict], embedder: Embedder) -> dict[str, dict]:
    """Every method's scores against the real titles of `papers`."""
    real = [p["title"].strip() for p in papers]
    real_vectors = embedder.embed_documents(real)  # (n, d)
    names = [introduced_name(t) for t in real]
    named_rows = [i for i, n in enumerate(names) if n]
    results, similarities = {}, {}
    for method, derive in METHODS.items():
        started = time.perf_counter()
        derived = [derive(p["abstract"]) for p in papers]
        seconds = time.perf_counter() - started
        cosines = np.sum(embedder.embed_documents(derived) * real_vectors, axis=1)  # (n,)
        similarities[method] = cosines
        lengths = np.array([len(t.split()) for t in derived])
        given = [(m.group("name"), r) for m, r in zip(map(_LEADING.match, derived), real) if m]
        results[method] = {
            "similarity": round(float(cosines.mean()), 4),
            "similarity 95% CI": [round(v, 4) for v in bootstrap(cosines)],
            "names agree": round(sum(names_agree(names[i], derived[i]) for i in named_rows)
                                 / max(len(named_rows), 1), 4),
            "names given": len(given),
            "names given, in the real title": round(sum(names_agree(n, r) for n, r in given)
                                                    / max(len(given), 1), 4),
            "mean words": round(float(lengths.mean()), 2),
            f"over {MAX_WORDS} words": int((lengths > MAX_WORDS).sum()),
            "cut mid-phrase": sum(t.endswith(("\u2026", "...")) for t in derived),
            "ms per title": round(1000 * seconds / len(papers), 2),
            "examples": [{"real": r, "derived": d} for r, d in zip(real[:12], derived)],
        }
    product = similarities["derived (this branch)"]
    for method, cosines in similarities.items():
        low, high = bootstrap(product - cosines)
        results[method]["product minus this, 95% CI"] = [round(low, 4), round(high, 4)]
    return {"papers": len(papers), "named real titles": len(named_rows), "methods": results}


def table(report: dict, dataset: str, seed: int) -> str:
    """The results as a Markdown table."""
    lines = [f"# Derived titles against real ones ({dataset}, {report['papers']} papers, seed "
             f"{seed})", "",
             f"{report['named real titles']} real titles introduce a name (\"Name: ...\").", "",
             "| method | similarity (95% CI) | product minus method (95% CI) | names agree | "
             f"names given (in real title) | mean words | over {MAX_WORDS} | cut mid-phrase | "
             "ms/title |", "|---|---|---|---|---|---|---|---|---|"]
    for method, r in report["methods"].items():
        low, high = r["similarity 95% CI"]
        d_low, d_high = r["product minus this, 95% CI"]
        lines.append(f"| {method} | {r['similarity']:.3f} ({low:.3f}-{high:.3f}) | "
                     f"{d_low:+.3f} to {d_high:+.3f} | {100 * r['names agree']:.1f}% | "
                     f"{r['names given']} ({100 * r['names given, in the real title']:.0f}%) | "
                     f"{r['mean words']:.1f} | {r[f'over {MAX_WORDS} words']} | "
                     f"{r['cut mid-phrase']} | {r['ms per title']:.1f} |")
    lines += ["", "Examples (real -> derived by the product):", ""]
    lines += [f"- {e['real']} -> {e['derived']}"
              for e in report["methods"]["derived (this branch)"]["examples"]]
    return "\n".join(lines) + "\n"


def judged(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """The judgements in a seeds table: {(paper_id, title): (verdict, reason)}."""
    if not path.exists():
        return {}
    rows = (_ROW.match(line.strip()) for line in path.read_text(encoding="utf-8").splitlines())
    return {(m.group("id"), m.group("title").replace("\\|", "|")): (m.group("verdict"),
                                                                    m.group("reason"))
            for m in rows if m}


def seed_table(seeds: Path, path: Path) -> str:
    """The seeds' derived titles as a Markdown table, with the judgements `path` holds for
    the same titles (others "to judge"), and the count of each verdict."""
    from explorer.corpus.papers import read_corpus

    known = judged(path)
    papers = [p for p in read_corpus([seeds]).papers if p.title_is_derived]
    rows, counts = [], {"good": 0, "weak": 0, "to judge": 0}
    for number, paper in enumerate(papers):
        verdict, reason = known.get((paper.paper_id, paper.title), ("to judge", ""))
        counts[verdict] += 1
        title = paper.title.replace("|", "\\|")
        rows.append(f"| {number} | {paper.paper_id} | {title} | {verdict} | {reason} |")
    head = [f"# Derived titles of {seeds.name}/, as a reader judges them", "",
            f"{counts['good']} good, {counts['weak']} weak, {counts['to judge']} to judge, of "
            f"{len(papers)}. Judged by reading each card's title beside its abstract: good when "
            "it names what the paper contributes, as a complete phrase, and a bare acronym "
            "comes with its expansion or what it is. Regenerate with `python -m "
            "studies.title_study DATASET --seeds seeds --judged THIS_FILE`: changed titles "
            "come back \"to judge\".", "",
            "| # | paper_id | derived title | verdict | why |", "|---|---|---|---|---|"]
    return "\n".join(head + rows) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dataset", type=Path, help="paperlists-ml folder or its corpus.jsonl.gz")
    parser.add_argument("--sample", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="write OUT.json and OUT.md (e.g. studies/results/titles-paperlists)")
    parser.add_argument("--seeds", type=Path, default=None, help="also write the seeds' table")
    parser.add_argument("--judged", type=Path, default=Path("studies/results/titles-seeds.md"))
    args = parser.parse_args(argv)
    if args.seeds:
        table_text = seed_table(args.seeds, args.judged)
        args.judged.write_text(table_text, encoding="utf-8")
    papers = sample(args.dataset, args.sample, args.seed)
    report = measure(papers, Embedder(resolve_model(DEFAULT_MODEL)))
    report.update(dataset=str(args.dataset), seed=args.seed, model=DEFAULT_MODEL)
    markdown = table(report, args.dataset.name, args.seed)
    write_report(args.out, report, markdown)
    print(markdown)
    return report


if __name__ == "__main__":
    main()
