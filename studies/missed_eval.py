"""What did I miss, on ACM-CR: a citing paper's draft and half its references as the cited set;
how many of the other half come back.

Drafts: the citing paper's title and abstract ("abstract"), and its citation contexts (the
paragraph queries of queries.jsonl, as written, "[12]" markers in) joined by blank lines
("contexts"). Each citing paper with at least MIN_REFERENCES references in the index has them
split at random (seed 0) into a given half (the cited set: the smaller half) and a held-out
half, the relevant papers: Recall@10, Recall@20 and nDCG@10 of the held-out half.

Against: `search` with the draft alone (its citation markers removed; the given half dropped
from its list, as a reader skips what they cite) and `recommend` with the given half alone
(its default SVM). `missed` is run through its public steps (split_draft, passage vectors
embedded as embed_passages does and cached, passage_rankings, ranked_rows, fuse) for every
split x ranker x fusion; the smoke test checks that those steps give what `missed` gives.

Cross-validation: the citing papers split in two folds (cases.folds); each fold picks the
configuration with the best mean nDCG@10 over both drafts on its own papers, the other fold
reports, the halves are pooled.

    nice -n 10 .venv/bin/python -m studies.missed_pool ../shared/data/acm-cr   # the index
    nice -n 10 .venv/bin/python -m studies.missed_eval ../shared/data/acm-cr \\
        --index ~/.cache/paper-explorer/missed-pool/index \\
        --output studies/results/quality-missed.json
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import UnknownPaperError
from explorer.eval.evaluate import load_set, machine
from explorer.eval.metrics import ndcg_at_k, recall_at_k
from explorer.eval.small import citing_papers
from explorer.features.drafts.missed import FUSIONS, MissedOptions, fuse, passage_rankings, ranked_rows
from explorer.features.drafts.passages import SPLITS, WHOLE, clean_query, split_draft
from explorer.query.engine import Explorer
from studies.cases import cached_vectors, folds, study_parser

MIN_REFERENCES = 4
TOP = 20
DRAFTS = ("abstract", "contexts")
RANKERS = (("text", 0.0), ("centroid", 0.5), ("centroid", 1.0), ("svm", 0.0))
BASELINES = ("search (draft alone)", "recommend (cited half alone)")


@dataclass(frozen=True)
class Task:
    citing: str  # the citing paper's DOI
    fold: int
    drafts: dict[str, str]
    given: tuple[str, ...]  # paper ids of the cited half
    held: dict[int, float]  # rows of the held-out half


def configs() -> list[tuple[str, str, float, str]]:
    """(split, ranker, weight, fusion); one passage ("whole") needs no fusion."""
    return [(split, ranker, weight, fusion) for split in SPLITS for ranker, weight in RANKERS
            for fusion in (FUSIONS if split != WHOLE else ("-",))]


def name(config: tuple[str, str, float, str]) -> str:
    split, ranker, weight, fusion = config
    ranked = f"{ranker} {weight:g}" if ranker == "centroid" else ranker
    return f"{split} | {ranked}" + ("" if fusion == "-" else f" | {fusion}")


def tasks(explorer: Explorer, dataset: Path, seed: int = 0) -> list[Task]:
    papers = load_set(dataset, "papers")
    fold_of, contexts = folds(dataset), _contexts(dataset)
    rng = random.Random(seed)
    out = []
    for query in papers.queries:
        rows: dict[int, str] = {}
        for doc_id in sorted(papers.qrels.get(query.query_id, {})):
            try:
                rows.setdefault(explorer.row(doc_id), explorer.paper(doc_id).paper_id)
            except UnknownPaperError:
                continue
        if len(rows) < MIN_REFERENCES:
            continue
        given = set(rng.sample(sorted(rows), len(rows) // 2))
        drafts = {"abstract": query.text, "contexts": contexts.get(query.query_id, "")}
        out.append(Task(query.query_id, fold_of[("papers", query.query_id)],
                        {k: v for k, v in drafts.items() if v.strip()},
                        tuple(rows[r] for r in sorted(given)),
                        {r: 1.0 for r in rows if r not in given}))
    return out


def _contexts(dataset: Path) -> dict[str, str]:
    """Citing paper DOI -> its paragraph queries as written, in file order, joined."""
    citing = citing_papers(dataset)
    dois = {doi.rsplit(".", 1)[-1]: doi for (kind, doi) in citing if kind == "papers"}
    joined: dict[str, list[str]] = {}
    for line in (dataset / "queries.jsonl").open(encoding="utf-8"):
        if line.strip():
            record = json.loads(line)
            key = citing.get(("paragraphs", str(record["query_id"])))
            if key in dois:
                joined.setdefault(dois[key], []).append(str(record["text"]).strip())
    return {doi: "\n\n".join(texts) for doi, texts in joined.items()}


METRICS = ("recall@10", "recall@20", "ndcg@10")


def means(scores: list[dict[str, float]]) -> dict[str, float]:
    """Each metric's mean over citing papers (each weighs the same), rounded."""
    return {m: round(sum(s[m] for s in scores) / len(scores), 4) if scores else 0.0
            for m in METRICS}


def score(rows: list[int], held: dict[int, float]) -> dict[str, float]:
    return {"recall@10": recall_at_k(rows, held, 10), "recall@20": recall_at_k(rows, held, 20),
            "ndcg@10": ndcg_at_k(rows, held, 10)}


def run_task(explorer: Explorer, task: Task, cache: Path | None = None) -> dict:
    """{draft: {configuration or baseline: metrics}} of one citing paper; "cited returned"
    counts given papers found in any `missed` list (it must stay 0)."""
    given_rows = {explorer.row(pid) for pid in task.given}
    out: dict = {"cited returned": 0}
    for draft_name, draft in task.drafts.items():
        results = {}
        hits = explorer.search(clean_query(draft), top_k=TOP + len(given_rows))
        ranked = [explorer.row(h.paper_id) for h in hits]
        results[BASELINES[0]] = score([r for r in ranked if r not in given_rows][:TOP], task.held)
        hits = explorer.recommend(list(task.given), top_k=TOP)
        results[BASELINES[1]] = score([explorer.row(h.paper_id) for h in hits], task.held)
        for split in SPLITS:
            passages = split_draft(draft, split).passages
            vectors = cached_vectors(explorer, [p.query for p in passages], cache)
            for ranker, weight in RANKERS:
                fused = config_rows(explorer, passages, vectors, task.given, (split, ranker, weight))
                for fusion, merged in fused.items():
                    out["cited returned"] += len(given_rows.intersection(merged))
                    results[name((split, ranker, weight, fusion))] = score(merged, task.held)
        out[draft_name] = results
    return out


def config_rows(explorer: Explorer, passages, vectors, given: tuple[str, ...],
                config: tuple[str, str, float]) -> dict[str, list[int]]:
    """{fusion: the top TOP rows} of one (split, ranker, weight), by missed's public steps."""
    split, ranker, weight = config
    options = MissedOptions(top_k=TOP, split=split, ranker=ranker, weight=weight, explain=False)
    rankings = passage_rankings(explorer, passages, vectors, given, options)
    rows, closeness = ranked_rows(explorer, rankings, vectors)
    return {fusion: [row for row, _, _ in fuse(rows, closeness, "rrf" if fusion == "-" else fusion,
                                               TOP)]
            for fusion in (FUSIONS if split != WHOLE else ("-",))}


def choose(runs: list[dict], fold: int) -> str:
    """The configuration with the best mean nDCG@10 over both drafts on `fold`'s papers."""
    mine = [run for run in runs if run["fold"] == fold]
    return max((name(c) for c in configs()), key=lambda c: _mean(mine, c))


def _mean(runs: list[dict], config: str, draft: str | None = None, metric: str = "ndcg@10"
          ) -> float:
    values = [run[d][config][metric] for run in runs for d in DRAFTS
              if d in run and (draft is None or d == draft)]
    return sum(values) / len(values) if values else 0.0


def summarise(runs: list[dict]) -> dict:
    """Every configuration's means on all papers, the folds' choices and the pooled CV."""
    names = [*BASELINES, *(name(c) for c in configs())]
    table = {config: {draft: means([run[draft][config] for run in runs if draft in run])
                      for draft in DRAFTS} for config in names}
    chosen = {fold: choose(runs, fold) for fold in (0, 1)}
    pooled = {draft: means([run[draft][chosen[1 - run["fold"]]] for run in runs if draft in run])
              for draft in DRAFTS}
    overall = max((name(c) for c in configs()), key=lambda c: _mean(runs, c))
    return {"table": table, "chosen": {str(k): v for k, v in chosen.items()},
            "cross_validated": pooled, "chosen_on_all": overall,
            "papers": len(runs), "per_fold": {str(f): sum(r["fold"] == f for r in runs)
                                             for f in (0, 1)},
            "cited_returned": sum(run["cited returned"] for run in runs)}


def markdown(summary: dict) -> str:
    metrics = METRICS
    head = " | ".join(f"{d} {m}" for d in DRAFTS for m in metrics)
    lines = [f"# What did I miss, on ACM-CR ({summary.get('date', '?')})", "",
             f"Machine: {summary.get('machine', '?')}. Model: {summary.get('model', '?')}. "
             f"Corpus: {summary.get('corpus', '?'):,} papers (small_cache's pool: every judged "
             "paper plus random others, easier than the full corpus). Time: "
             f"{summary.get('seconds', '?')} s. Command: `python -m studies.missed_eval ACM-CR "
             "--index POOL_INDEX` (POOL_INDEX: `python -m studies.missed_pool ACM-CR`).",
             "", " ".join(__doc__.split("\n\n")[1].split()), "",
             f"| configuration | {head} |", "|---" * (1 + len(DRAFTS) * len(metrics)) + "|"]
    for config, row in summary["table"].items():
        cells = " | ".join(f"{row[d].get(m, 0):.4f}" for d in DRAFTS for m in metrics)
        lines.append(f"| {config} | {cells} |")
    cv = summary["cross_validated"]
    lines += ["", f"Fold 0 chose `{summary['chosen']['0']}`, fold 1 `{summary['chosen']['1']}`;"
              f" all papers `{summary['chosen_on_all']}`.",
              "Cross-validated (each fold reported with the other's choice, pooled): " + "; ".join(
                  f"{d} " + " / ".join(f"{m} {cv[d].get(m, 0):.4f}" for m in metrics)
                  for d in DRAFTS) + ".",
              f"{summary['papers']} citing papers (folds {summary['per_fold']}); cited papers "
              f"returned by `missed`: {summary['cited_returned']}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    args = study_parser(__doc__).parse_args(argv)
    explorer = Explorer.open(args.index)
    started = time.perf_counter()
    done = _resumed(args.output)
    runs = []
    for number, task in enumerate(tasks(explorer, args.dataset), start=1):
        if task.citing not in done:
            done[task.citing] = {"citing": task.citing, "fold": task.fold,
                                 **run_task(explorer, task, args.cache)}
            _keep(args.output, done[task.citing])
        runs.append(done[task.citing])
        print(f"{number} citing papers, {time.perf_counter() - started:.0f} s", flush=True)
    summary = summarise(runs)
    summary.update(seconds=round(time.perf_counter() - started, 1), corpus=len(explorer.papers),
                   date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), machine=machine(),
                   model=explorer.manifest.model.model_id)
    text = markdown(summary)
    print(text)
    if args.output:
        args.output.write_text(json.dumps({**summary, "runs": runs}, indent=1) + "\n")
        args.output.with_suffix(".md").write_text(text)
    return summary


def _progress(output: Path | None) -> Path | None:
    """Where the runs of citing papers are kept as they finish (a rerun resumes from them)."""
    return None if output is None else output.with_suffix(".runs.jsonl")


def _resumed(output: Path | None) -> dict[str, dict]:
    path = _progress(output)
    if path is None or not path.is_file():
        return {}
    runs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {run["citing"]: run for run in runs}


def _keep(output: Path | None, run: dict) -> None:
    path = _progress(output)
    if path is not None:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(run) + "\n")


if __name__ == "__main__":
    main()
