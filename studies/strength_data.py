"""The judged lists the strength study (studies/strength_calibration.py) fits and checks on: per
set, each question's top-10 list as the product ranks it (hybrid, fused scores best first),
which of its hits are judged relevant, and whether the question is "absent".

Every question is asked twice: as written ("present"), and with its relevant papers removed
from the corpus together with any paper whose cosine with one of them is above VERSIONS (their
other versions): an "absent-topic" question, self-supervised (nothing in its list is relevant).
- seeds: the seed set's paraphrased questions (tests/data/seed_judgments.json) and each seed
  paper's title over seeds/, plus the 14 hand-written absent-topic questions
  (tests/absent_topics.py), asked once;
- paperlists: TLDRs and titles of paperlists-ml papers as questions for their own paper, over
  PAPERS papers (abstracts only: titles would give the title questions away);
- acm-cr: ACM-CR citation contexts, their cited papers relevant, over those papers and
  ACM_OTHERS random others (unjudged papers count as not relevant).
Vectors are embedded once by the model asked for (the default one unless --model) and cached
under EXPLORER_CACHE/strength-study[-NAME].
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.corpus.papers import Paper, read_corpus
from explorer.eval.columns import Corpus
from explorer.eval.evaluate import model_suffix
from explorer.model.embedder import Embedder, resolve_model
from explorer.ranking.calibration import (
    ABSENT_BEST,
    QUESTIONS,
    absent_quantiles,
    pair_quantiles,
    question_quantiles,
)
from explorer.ranking.calibration import PAPERS as PAPER_KIND
from explorer.ranking.channels import Request
from explorer.ranking.filters import Blocked
from explorer.ranking.fitted import versions_cosine
from explorer.ranking.fusion import query_ceiling
from explorer.ranking.options import QueryOptions
from explorer.ranking.pipeline import run
from explorer.ranking.policy import DEFAULT_MODE, plan_for
from explorer.settings import Settings
from tests.absent_topics import ABSENT_TOPICS
from tests.paraphrases import PARAPHRASES

PAPERS = 800  # paperlists papers (small: embedded on 2 shared cores)
ACM_OTHERS = 400  # random ACM-CR papers beside the cited ones


@dataclass(frozen=True)
class Sizes:
    """How much of each set the study embeds: `papers` of paperlists, ACM-CR's queries (file
    order) while their cited papers stay within `acm_cited` (None: all), plus `acm_others`.
    Smaller sizes (`--small`) let a slow model (mpnet: ~10x MiniLM's compute) be studied on two
    shared cores; both models are then read at the same sizes."""

    papers: int = PAPERS
    acm_cited: int | None = None
    acm_others: int = ACM_OTHERS

    def suffix(self) -> str:
        return "" if self == Sizes() else f"-{self.papers}-{self.acm_cited}-{self.acm_others}"


SMALL = Sizes(papers=150, acm_cited=100, acm_others=50)
QUESTIONS_PER_KIND = 150
TOP = 10
# A topic-absent list (Judged.topic) also drops every paper at or above this percentile of the
# corpus's random paper-pair cosines with a relevant paper: a paper's title asked without that
# paper and its versions still finds its close neighbours ('FlowNet3D ...' -> 'HPLFlowNet ...
# Scene Flow'), a near-but-absent question, not an absent topic.
KIN = 97.0
VERSIONS = 0.95  # the default model's (fitted.py); a model's own: Embedded.versions
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Judged:
    """One ranked list: its set and kind of question, whether its relevant papers were removed
    (`absent`), fused `scores` (<= TOP,), `relevant` (<= TOP,) bool, the corpus's question-paper
    `quantiles`, for a seed paraphrase its target's rank (None: below TOP or removed), and
    the corpus's `absent_best` (calibration.absent_quantiles, as a build stores them)."""

    set: str
    kind: str
    absent: bool
    scores: np.ndarray
    cosines: np.ndarray
    relevant: np.ndarray
    quantiles: tuple[float, ...]
    target_rank: int | None = None
    absent_best: tuple[float, ...] = ()
    topic: Judged | None = None  # an absent list's question with the topic gone too (kin_of)


class Embedded:
    """Texts embedded by `model` (a name resolve_model knows), cached by name in `cache`."""

    def __init__(self, cache: Path, model: str = "default") -> None:
        self.cache, self.model, self._embedder = cache, model, None
        self.versions = versions_cosine(resolve_model(model).model_id)  # the model's
        cache.mkdir(parents=True, exist_ok=True)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = Embedder(resolve_model(self.model))
        return self._embedder

    def vectors(self, name: str, texts: Sequence[str], documents: bool) -> np.ndarray:
        """(n, d) vectors of `texts` as documents or as questions, cached as NAME.npy."""
        path = self.cache / f"{name}.npy"
        if path.is_file():
            saved = np.load(path)
            if len(saved) == len(texts):
                return saved
        embed = self.embedder.embed_documents if documents else self.embedder.embed_queries
        vectors = np.asarray(embed(list(texts)), dtype=np.float32)
        np.save(path, vectors)
        return vectors


def ranked(corpus: Corpus, text: str, vector: np.ndarray, exclude: Sequence[int] = ()
           ) -> tuple[np.ndarray, np.ndarray]:
    """(rows, fused scores) of the product's default ranking of a question, best first."""
    request = Request(text, vector, ceiling=lambda: query_ceiling(corpus.lexical, text),
                      reference=corpus.references[QUESTIONS])
    blocked = Blocked(len(corpus), excluded=frozenset(int(row) for row in exclude))
    plan = plan_for(DEFAULT_MODE, QueryOptions(top_k=TOP), papers=len(corpus))
    channels = [corpus.channels[name] for name in plan.channels]
    return run(plan, channels, request, blocked, corpus.vectors)


def asked(corpus: Corpus, name: str, kind: str, text: str, vector: np.ndarray,
          relevant: set[int], both: bool = True, versions: float = VERSIONS) -> list[Judged]:
    """The question as written and (`both`) absent: its relevant rows and their versions
    (cosine above `versions`, the model's) gone."""
    out = []
    quantiles, absent = corpus.references[QUESTIONS], corpus.references[ABSENT_BEST]
    rows, scores = ranked(corpus, text, vector)
    out.append(Judged(name, kind, not relevant, scores, corpus.vectors[rows] @ vector,
                      np.isin(rows, list(relevant)), quantiles, absent_best=absent))
    if both and relevant:
        near = corpus.vectors @ corpus.vectors[sorted(relevant)].T  # (n, r)
        gone = set(relevant) | set(np.flatnonzero((near > versions).any(axis=1)).tolist())
        kin = gone | kin_of(corpus, relevant)
        lists = []
        for removed in (kin, gone):
            rows, scores = ranked(corpus, text, vector, sorted(removed))
            lists.append(Judged(name, kind, True, scores, corpus.vectors[rows] @ vector,
                                np.zeros(len(rows), bool), quantiles, absent_best=absent,
                                topic=lists[0] if lists else None))
        out.append(lists[1])
    return out


def kin_of(corpus: Corpus, relevant: set[int], percent: float = KIN) -> set[int]:
    """The rows whose cosine with one of the `relevant` rows reaches `percent`% of the corpus's
    random paper pairs (`similar` would call them a "good match" at KIN = 97): the relevant
    papers' topic, which a question about a topic the corpus lacks must not find either."""
    pairs = corpus.references[PAPER_KIND]
    level = pairs[round(percent / 100 * (len(pairs) - 1))]
    near = corpus.vectors @ corpus.vectors[sorted(relevant)].T  # (n, r)
    return set(np.flatnonzero((near >= level).any(axis=1)).tolist())


def corpus_of(papers: list[Paper], vectors: np.ndarray, named: list[Paper],
              title_vectors: np.ndarray, versions: float = VERSIONS) -> Corpus:
    """A Corpus with the references a build of `named` (the papers with their titles) stores."""
    lookup = {paper.title: vector for paper, vector in zip(named, title_vectors)}
    def embed(texts: list[str]) -> np.ndarray:
        return np.stack([lookup[t] for t in texts])
    references = {QUESTIONS: tuple(question_quantiles(named, vectors, embed)),
                  PAPER_KIND: tuple(pair_quantiles(vectors)),
                  ABSENT_BEST: tuple(absent_quantiles(named, vectors, embed, versions=versions))}
    return Corpus.of(papers, vectors, references=references)


def seeds(embedded: Embedded) -> list[Judged]:
    papers = list(read_corpus([ROOT / "seeds"]).papers)
    vectors = embedded.vectors("seeds-papers", [p.text for p in papers], True)
    titles = embedded.vectors("seeds-titles", [p.title for p in papers], False)
    corpus = corpus_of(papers, vectors, papers, titles, embedded.versions)
    out = []
    questions = embedded.vectors("seeds-paraphrases", [q for q, _ in PARAPHRASES], False)
    for (query, marker), vector in zip(PARAPHRASES, questions):
        (row,) = [i for i, p in enumerate(papers) if marker in p.abstract]
        judged = asked(corpus, "seeds", "paraphrase", query, vector, {row},
            versions=embedded.versions)
        rows, _ = ranked(corpus, query, vector)
        hit = np.flatnonzero(rows == row)
        out += [Judged(**{**j.__dict__, "target_rank": int(hit[0]) + 1 if len(hit) and not
                          j.absent else None}) for j in judged]
    absent = embedded.vectors("seeds-absent", ABSENT_TOPICS, False)
    for query, vector in zip(ABSENT_TOPICS, absent):
        out += asked(corpus, "seeds", "absent-topic", query, vector, set(),
            versions=embedded.versions)
    for row, (paper, vector) in enumerate(zip(papers, titles)):
        out += asked(corpus, "seeds", "title", paper.title, vector, {row},
            versions=embedded.versions)
    return out


def paperlists(embedded: Embedded, dataset: Path, sizes: Sizes = Sizes()) -> list[Judged]:
    with gzip.open(dataset / "corpus.jsonl.gz", "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    rng = np.random.default_rng(0)
    usable = [r for r in records if (r.get("abstract") or "").strip() and r.get("title")]
    chosen = [usable[i] for i in sorted(rng.choice(len(usable), sizes.papers, replace=False))]
    papers = [Paper(str(r["doc_id"]), "", True, str(r["abstract"])) for r in chosen]
    named = [Paper(str(r["doc_id"]), str(r["title"]).strip(), False, str(r["abstract"]))
             for r in chosen]
    vectors = embedded.vectors("paperlists-papers", [p.abstract for p in papers], True)
    titles = embedded.vectors("paperlists-titles", [p.title for p in named], False)
    corpus = corpus_of(papers, vectors, named, titles, embedded.versions)
    tldr = [i for i, r in enumerate(chosen) if (r.get("tldr") or "").strip()][:QUESTIONS_PER_KIND]
    tldr_vectors = embedded.vectors("paperlists-tldrs", [chosen[i]["tldr"].strip() for i in tldr],
                                    False)
    out = []
    for row, vector in zip(tldr, tldr_vectors):
        out += asked(corpus, "paperlists", "tldr", chosen[row]["tldr"].strip(), vector, {row},
            versions=embedded.versions)
    for row in rng.choice(len(chosen), min(QUESTIONS_PER_KIND, len(chosen)),
                          replace=False).tolist():
        out += asked(corpus, "paperlists", "title", named[row].title, titles[row], {row},
            versions=embedded.versions)
    return out


def acm_cr(embedded: Embedded, dataset: Path, sizes: Sizes = Sizes()) -> list[Judged]:
    queries = [json.loads(line) for line in (dataset / "queries.jsonl").open(encoding="utf-8")]
    cited: dict[str, set[str]] = {}
    for line in (dataset / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        query, doc, relevance, _, available = line.split("\t")
        if int(relevance) > 0 and available.strip() == "1":
            cited.setdefault(query, set()).add(doc)
    cited = _within(cited, [q["query_id"] for q in queries], sizes.acm_cited)
    wanted = set().union(*cited.values())
    with gzip.open(dataset / "corpus.jsonl.gz", "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    rng = np.random.default_rng(0)
    others = [i for i, r in enumerate(records) if r["doc_id"] not in wanted and r.get("abstract")]
    fill = rng.choice(len(others), sizes.acm_others, replace=False)
    chosen = [r for r in records if r["doc_id"] in wanted] + [records[others[i]] for i in fill]
    papers = [Paper(str(r["doc_id"]), str(r.get("title") or ""), False, str(r.get("abstract") or ""))
              for r in chosen]
    row = {p.paper_id: i for i, p in enumerate(papers)}
    vectors = embedded.vectors("acm-papers", [p.text for p in papers], True)
    titles = embedded.vectors("acm-titles", [p.title for p in papers], False)
    corpus = corpus_of(papers, vectors, papers, titles, embedded.versions)
    asked_ = [q for q in queries if q["query_id"] in cited]
    query_vectors = embedded.vectors("acm-queries", [q["text"] for q in asked_], False)
    out = []
    for query, vector in zip(asked_, query_vectors):
        relevant = {row[doc] for doc in cited[query["query_id"]] if doc in row}
        out += asked(corpus, "acm-cr", "citation", query["text"], vector, relevant,
            versions=embedded.versions)
    return out


def _within(cited: dict[str, set[str]], order: list[str], limit: int | None
            ) -> dict[str, set[str]]:
    """The queries of `cited`, in file `order`, while their cited papers stay within `limit`."""
    if limit is None:
        return cited
    kept: dict[str, set[str]] = {}
    for query in (q for q in order if q in cited):
        if len(set().union(*kept.values(), cited[query])) <= limit:
            kept[query] = cited[query]
    return kept


def judged_sets(paperlists_dir: Path, acm_dir: Path, model: str = "default",
                sizes: Sizes = Sizes()) -> dict[str, list[Judged]]:
    """The judged lists of each set found, embedded by `model` (cached per model and sizes)."""
    cache = Settings.from_env().cache_dir / f"strength-study{model_suffix(model)}{sizes.suffix()}"
    embedded = Embedded(cache, model)
    sets = {"seeds": seeds(embedded)}
    if paperlists_dir.is_dir():
        sets["paperlists"] = paperlists(embedded, paperlists_dir, sizes)
    if acm_dir.is_dir():
        sets["acm-cr"] = acm_cr(embedded, acm_dir, sizes)
    return sets
