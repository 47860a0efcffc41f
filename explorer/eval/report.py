"""The tables `explorer eval` prints: nDCG@10 per query set (rows: the corpus sizes, small ones
and the whole dataset; columns: columns.COLUMNS) and the seed set's table, each under a label
naming the date, the machine and the model that made the vectors."""

from __future__ import annotations

from collections.abc import Sequence

from explorer.eval.columns import DEFAULT
from explorer.eval.evaluate import grid
from explorer.eval.metrics import METRICS
from explorer.ranking.policy import DEFAULT_MODE

FULL = "full"  # the size of a row that scored the whole dataset
TORCH = "sentence-transformers (torch)"  # what an unrecorded backend was
_MODE_OF = {DEFAULT: DEFAULT_MODE}  # column -> evaluate()'s name for it


def model_label(model_id: object, backend: object = None, precision: object = None) -> str:
    """"MODEL (BACKEND PRECISION)", e.g. "sentence-transformers/all-MiniLM-L6-v2 (onnx fp32)"."""
    how = " ".join(str(v) for v in (backend, precision) if v) or TORCH
    return f"{model_id or '?'} ({how})"


def label(date: str, machine: str, model: str) -> str:
    """The line above a table."""
    return f"{date}; {machine}; model {model}"


def full_rows(results: Sequence[dict], papers: int, columns: Sequence[str]) -> list[dict]:
    """`evaluate()` results on the whole dataset -> rows shaped as small.summarise's (size
    FULL), with the columns it scored."""
    rows = []
    for result in results:
        modes = result["modes"]
        scored = [c for c in columns if _MODE_OF.get(c, c) in modes]
        rows.append({"set": result["set"], "size": FULL, "papers": papers, "draws": 1,
                     "runs": result["queries"],
                     "columns": {c: {m: modes[_MODE_OF.get(c, c)][m] for m in METRICS}
                                 for c in scored}})
    return rows


def ranking_tables(rows: Sequence[dict], title: str, metric: str = "ndcg@10") -> str:
    """One table per query set: a row per corpus size, a column per ranking (`metric`)."""
    blocks = []
    for name in dict.fromkeys(row["set"] for row in rows):
        mine = [row for row in rows if row["set"] == name]
        columns = list(dict.fromkeys(c for row in mine for c in row["columns"]))
        header = ["set, size", "papers", "runs", *columns]
        lines = [[_row_name(row), f"{row['papers']:,}", f"{row['runs']:,}",
                  *(f"{row['columns'][c][metric]:.4f}" if c in row["columns"] else "-"
                    for c in columns)] for row in mine]
        blocks.append(f"{metric}, {name}: {title}\n{grid(header, lines)}")
    return "\n\n".join(blocks)


def seed_table(seeds: dict, title: str) -> str:
    """The seed set: MRR@100 and top-5 of the questions, partners in the top 5 of the pairs."""
    columns = list(seeds["columns"])
    questions, directions = seeds["questions"], seeds["pair_directions"]
    cells = {c: seeds["columns"][c] for c in columns}
    lines = [[f"questions ({questions}): MRR@100",
              *(f"{cells[c]['mrr@100']:.4f}" for c in columns)],
             [f"questions ({questions}): target in top 5",
              *(f"{cells[c]['top5']:.4f} ({round(cells[c]['top5'] * questions)})" for c in columns)],
             [f"pair directions ({directions}): partner in top 5",
              *(f"{cells[c]['partners@5']:.4f} ({round(cells[c]['partners@5'] * directions)})"
                for c in columns)]]
    return f"seed set, {seeds['papers']} papers: {title}\n{grid(['measure', *columns], lines)}"


def _row_name(row: dict) -> str:
    return f"{row['set']} {FULL}" if row["size"] == FULL else f"{row['set']} {row['size']:,}"
