"""Self-supervised domain adaptation of the bundled model on a corpus's own papers (a study).

No labels: each sampled paper gives two training pairs,
- its title -> its abstract (a short description finds its paper), and
- one random sentence of the abstract -> the title and the rest of the abstract (the inverse
  cloze task of Lee et al., 2019: a sentence that restates a claim finds the paper it is from,
  as a citation sentence does),
trained with in-batch negatives (multiple negatives ranking loss) for one epoch. The result is
a plain sentence-transformers folder: `explorer build --model FOLDER` and `explorer eval
--model FOLDER` use it like any local model.

    nice -n 5 .venv/bin/python -m benchmarks.quality.adapt_study \
        ../shared/data/acm-cr/corpus.jsonl.gz --papers 10000 \
        --out /root/.cache/paper-explorer/models/adapted-acm-cr
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import time
from pathlib import Path

from explorer.corpus.sentences import split_sentences
from explorer.model.embedder import resolve_model

SCALE = 20.0  # cosine -> logit, as sentence-transformers' MultipleNegativesRankingLoss


def read_papers(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return [r for r in records if r.get("title") and len(r.get("abstract") or "") > 200]


def pairs_for(paper: dict, rng: random.Random) -> list[tuple[str, str]]:
    title, abstract = paper["title"].strip(), paper["abstract"].strip()
    pairs = [(title, abstract)]
    spans = split_sentences(abstract)
    if len(spans) >= 3:
        start, end = spans[rng.randrange(len(spans))]
        rest = (abstract[:start] + abstract[end:]).strip()
        pairs.append((abstract[start:end], f"{title}. {rest}"))
    return pairs


def train(model_path: Path, pairs: list[tuple[str, str]], out: Path, batch: int,
          query_tokens: int, doc_tokens: int, lr: float) -> None:
    import torch
    import torch.nn.functional as F
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = SentenceTransformer(str(model_path), device="cpu")
    steps = len(pairs) // batch
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / (steps - warmup))))

    def encode(texts: list[str], tokens: int):
        model.max_seq_length = tokens
        return F.normalize(model(model.tokenize(texts))["sentence_embedding"], dim=-1)

    model.train()
    started = time.perf_counter()
    for step in range(steps):
        chunk = pairs[step * batch:(step + 1) * batch]
        queries = encode([q for q, _ in chunk], query_tokens)
        docs = encode([d for _, d in chunk], doc_tokens)
        loss = F.cross_entropy(SCALE * queries @ docs.T, torch.arange(len(chunk)))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        if step % 10 == 0 or step == steps - 1:
            elapsed = time.perf_counter() - started
            print(f"step {step + 1}/{steps} loss {loss.item():.4f} {elapsed:.0f} s", flush=True)
    model.eval()
    model.max_seq_length = 256
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    model.save(str(partial))
    shutil.rmtree(out, ignore_errors=True)
    partial.rename(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="corpus .jsonl[.gz] with title and abstract")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--query-tokens", type=int, default=64)
    parser.add_argument("--doc-tokens", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-5)
    args = parser.parse_args()
    rng = random.Random(0)
    papers = read_papers(args.corpus)
    sample = rng.sample(papers, min(args.papers, len(papers)))
    pairs = [pair for paper in sample for pair in pairs_for(paper, rng)]
    rng.shuffle(pairs)
    print(f"{len(papers)} papers with title and abstract; {len(pairs)} pairs from {len(sample)}")
    train(resolve_model("default").path, pairs, args.out, args.batch, args.query_tokens,
          args.doc_tokens, args.lr)
    print(f"adapted model written to {args.out}")


if __name__ == "__main__":
    main()
