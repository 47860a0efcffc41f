"""Topic names against the corpus's own labels: paperlists-ml's author `keywords` and
`primary_area`, and how distinctive each name's phrase is for its papers.

For an index of a paperlists-ml slice, two namings of the same topics (the map's stored k-means
labels, so only the names differ) are scored: the names the build stored ("stored": the code
that built the index) and the names this checkout gives them ("now": stage_names.describe
again on the stored labels, vectors read from the index, nothing embedded). Per naming:
- `duplicates`: names (areas and topics, case folded) held by more than one topic or area;
- `near copies`: topics whose name is a near-copy of their area's (naming.near_copy);
- `keyword phrase in / out`: mean over topics (and areas) of the share of its papers whose
  keywords hold the name's phrase (stemmed words in order, inside one keyword), against the
  share of all other papers; `lift` the ratio of the two means (papers without keywords left out);
- `keyword word in / out`: the same with any one of the name's words in any keyword;
- `text in / out`: the share of the topic's papers whose title and abstract use the name's
  phrase against the rest of the corpus (topics/stage_phrases.py, as names are found);
- `name words in / out`: distinctiveness, the mean over a name's content words of the share of
  the topic's papers whose text holds the word, against the share of the other papers;
- `one-word names`, `vague openings` (stage_naming.VAGUE_STARTS or an adverb): the names that
  break the rules, listed;
- `area in / out` (slices with primary_area): an area's papers whose primary_area holds one of
  the name's words, against the other papers;
- `central on topic`: areas whose most central paper's text or keywords use the area's name.
An area named "A and B" counts a paper for either phrase.

    nice .venv/bin/python -m studies.topic_names ../shared/data/paperlists-ml \\
        --index venues=/tmp/venues/index --index ijcai=/tmp/ijcai/index \\
        [--out studies/results/topic-names] [--before studies/results/topic-names-before.json]

`--before`: an earlier run's report (of the same indexes, another checkout): its "now" naming
is the table's first column ("before") in place of the stored names.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from explorer.artifacts.store import load_artifacts
from explorer.corpus.words import STOP_WORDS
from explorer.eval.evaluate import machine
from explorer.features.topics import stage as maps
from explorer.features.topics import stage_names as names
from explorer.features.topics import stage_naming as naming
from explorer.features.topics import stage_phrases as text_phrases
from studies.reports import write_report

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*")


def labels_of(dataset: Path) -> dict[str, dict]:
    """doc_id -> {"keywords": [stemmed keyword word lists], "area": stemmed primary_area words}."""
    path = dataset / "corpus.jsonl.gz" if dataset.is_dir() else dataset
    out = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for record in map(json.loads, handle):
            words = [stems(k) for k in record.get("keywords") or [] if isinstance(k, str)]
            out[record["doc_id"]] = {"keywords": words,
                                     "area": set(stems(str(record.get("primary_area") or "")))}
    return out


def stems(text: str) -> list[str]:
    return [text_phrases._stem(w.lower()) for w in _WORD.findall(text)]


def name_phrases(name: str) -> list[list[str]]:
    """The stemmed phrases of a name: "A and B" -> [A, B]."""
    return [stems(part) for part in re.split(r"\s+and\s+", name) if stems(part)]


def _holds(words: Sequence[str], phrase: Sequence[str]) -> bool:
    size = len(phrase)
    return any(list(words[i:i + size]) == list(phrase) for i in range(len(words) - size + 1))


def scores(groups: dict[str, np.ndarray], named: dict[str, str], label: list[dict],
           texts: list[set[str]], words: list[set[str]]) -> dict[str, float]:
    """Mean in-group and out-of-group shares of each measure over the groups (rows of each)."""
    n = len(label)
    keyed = np.array([bool(item["keywords"]) for item in label])
    sums: Counter = Counter()
    for key, rows in groups.items():
        phrases = name_phrases(named[key])
        inside = np.zeros(n, dtype=bool)
        inside[rows] = True
        phrase_hit = np.array([any(_holds(k, p) for k in item["keywords"] for p in phrases)
                               for item in label])
        word_set = {w for p in phrases for w in p if w not in STOP_WORDS}
        word_hit = np.array([any(word_set & set(k) for k in item["keywords"]) for item in label])
        keys = {" ".join(p) for p in phrases}
        text_hit = np.array([bool(keys & t) for t in texts])
        used = [np.array([w in held for held in words]) for w in word_set]
        for measure, hits in zip(("name words in", "name words out"), (inside, ~inside)):
            sums[measure] += float(np.mean([_share(u, hits) for u in used])) if used else 0.0
        for measure, hits, base in (("keyword phrase", phrase_hit, keyed),
                                    ("keyword word", word_hit, keyed),
                                    ("text", text_hit, np.ones(n, dtype=bool))):
            sums[f"{measure} in"] += _share(hits, inside & base)
            sums[f"{measure} out"] += _share(hits, ~inside & base)
        areas = np.array([bool(item["area"] & word_set) for item in label])
        labelled = np.array([bool(item["area"]) for item in label])
        if labelled.any():
            sums["area in"] += _share(areas, inside & labelled)
            sums["area out"] += _share(areas, ~inside & labelled)
    result = {k: round(v / max(len(groups), 1), 4) for k, v in sums.items()}
    for measure in ROWS:
        if f"{measure} in" in result:
            result[f"{measure} lift"] = round(result[f"{measure} in"]
                                              / max(result[f"{measure} out"], 1e-4), 2)
    return result


def _share(hits: np.ndarray, rows: np.ndarray) -> float:
    return float(hits[rows].mean()) if rows.any() else 0.0


SHOWN = 5  # key phrases a topic's line shows (features/topics/ui.py phrases_line)


def key_phrase_scores(groups: dict[str, np.ndarray], shown: dict[str, list[str]],
                      label: list[dict], texts: list[set[str]]) -> dict:
    """The key phrases a reader sees beside each name (`shown`: its first SHOWN terms the
    name does not say): how many are one word or break the names' rules (naming.fragment's
    word rules), and, per phrase, the share of its group's papers whose text (keywords) hold
    it against the other papers'."""
    n = len(label)
    keyed = np.array([bool(item["keywords"]) for item in label])
    sums: Counter = Counter()
    one_word, weak, total = [], [], 0
    for key, rows in groups.items():
        inside = np.zeros(n, dtype=bool)
        inside[rows] = True
        for phrase in shown[key]:
            total += 1
            words = phrase.lower().split()
            if naming.content_words(phrase) < 2:
                one_word.append(phrase)
            elif words[0] in naming.VAGUE_STARTS or words[0].endswith("ly"):
                weak.append(phrase)
            stem = stems(phrase)
            text_hit = np.array([" ".join(stem) in t for t in texts])
            keyword_hit = np.array([any(_holds(k, stem) for k in item["keywords"])
                                    for item in label])
            for measure, hits, base in (("text", text_hit, np.ones(n, dtype=bool)),
                                        ("keyword phrase", keyword_hit, keyed)):
                sums[f"{measure} in"] += _share(hits, inside & base)
                sums[f"{measure} out"] += _share(hits, ~inside & base)
    result = {k: round(v / max(total, 1), 4) for k, v in sums.items()}
    for measure in ("text", "keyword phrase"):
        result[f"{measure} lift"] = round(result.get(f"{measure} in", 0.0)
                                          / max(result.get(f"{measure} out", 0.0), 1e-4), 2)
    return {**result, "shown": total, "one word": one_word, "vague openings": weak}


def shown_phrases(items: list[dict], prefix: str) -> dict[str, list[str]]:
    """Each topic's (area's) key phrases as its line shows them: those its name does not say."""
    return {f"{prefix}{item['id']}": [p for p in item.get("terms", ())
                                      if p.lower() not in item["label"].lower()][:SHOWN]
            for item in items}


def measured(corpus_map: dict, label: list[dict], texts: list[set[str]],
             words: list[set[str]], papers: Sequence) -> dict:
    """The measures of one naming (a map as stage.compute_map returns it)."""
    labels = np.asarray(corpus_map["topic"])
    close = np.asarray(corpus_map.get("area_closeness") or corpus_map["closeness"])
    topic_rows = {f"t{t['id']}": np.flatnonzero(labels == t["id"]) for t in corpus_map["topics"]}
    area_rows = {f"a{a['id']}": np.flatnonzero(np.isin(labels, a["topics"]))
                 for a in corpus_map["areas"]}
    named = {f"t{t['id']}": t["label"] for t in corpus_map["topics"]}
    named.update({f"a{a['id']}": a["label"] for a in corpus_map["areas"]})
    every = Counter(n.lower() for n in named.values())
    area_of = {t: a["id"] for a in corpus_map["areas"] for t in a["topics"]}
    copies = [t["label"] for t in corpus_map["topics"]
              if naming.near_copy(t["label"], corpus_map["areas"][area_of[t["id"]]]["label"])]
    central = 0
    for key, rows in area_rows.items():
        top = rows[np.argmax(close[rows])]
        phrases = name_phrases(named[key])
        keys = {" ".join(p) for p in phrases}
        central += bool(keys & texts[top]) or any(
            _holds(k, p) for k in label[top]["keywords"] for p in phrases)
    parts = [part for name in named.values() for part in re.split(r"\s+and\s+", name)]
    shown = {**shown_phrases(corpus_map["topics"], "t"), **shown_phrases(corpus_map["areas"], "a")}
    return {"topics": scores(topic_rows, named, label, texts, words),
            "topic phrases": key_phrase_scores(topic_rows, shown, label, texts),
            "area phrases": key_phrase_scores(area_rows, shown, label, texts),
            "phrase lines": {named[key]: shown[key] for key in area_rows},
            "areas": scores(area_rows, named, label, texts, words),
            "duplicates": sorted(n for n, c in every.items() if c > 1),
            "one-word names": sorted(p for p in parts if naming.content_words(p) < 2),
            "vague openings": sorted(p for p in parts if p.split()[0].lower() in
                                     naming.VAGUE_STARTS or p.split()[0].lower().endswith("ly")),
            "near copies": copies, "central on topic": f"{central} of {len(area_rows)}",
            "names": [{"area": a["label"], "central": papers[int(area_rows[f"a{a['id']}"][
                np.argmax(close[area_rows[f"a{a['id']}"]])])].title,
                "topics": [named[f"t{t}"] for t in a["topics"]]} for a in corpus_map["areas"]]}


def study(index: Path, known: dict[str, dict]) -> dict:
    """Stored against recomputed names of one index."""
    found = load_artifacts(index)
    papers = list(found.papers)
    stored = found.extras["map"]
    vectors = found.index.vectors()
    labels = np.asarray(stored["topic"])
    started = time.process_time()
    now = {**stored, **names.describe(papers, vectors, labels,
                                      maps._sample(len(papers), maps.TOPIC_SAMPLE))}
    cost = time.process_time() - started
    label = [known.get(p.paper_id, {"keywords": [], "area": set()}) for p in papers]
    texts = [text_phrases.phrases(names.paper_text(p)) for p in papers]
    words = [set(stems(names.paper_text(p))) for p in papers]
    return {"papers": len(papers), "keyworded": sum(bool(x["keywords"]) for x in label),
            "topics": len(stored["topics"]), "areas": len(stored["areas"]),
            "naming cpu s": round(cost, 1),
            "stored": measured(stored, label, texts, words, papers),
            "now": measured(now, label, texts, words, papers)}


ROWS = ("keyword phrase", "keyword word", "text", "name words", "area")
RULES = ("duplicates", "near copies", "one-word names", "vague openings")


def table(report: dict) -> str:
    lines = [f"# Topic names against the corpus's labels ({report['date']})", "",
             f"Machine: {report['machine']}. Command: `{report['command']}`.", "",
             "Shares are means over topics (areas) of the share of its papers that hold the "
             "name (in / out: the topic's papers / all other papers); lift = in / out.", ""]
    for slice_name, result in report["slices"].items():
        lines += [f"## {slice_name}: {result['papers']} papers ({result['keyworded']} with "
                  f"keywords), {result['topics']} topics in {result['areas']} areas", "",
                  f"| measure | {report['columns'][0]} | {report['columns'][1]} |",
                  "|---|---|---|"]
        for level in ("topics", "areas"):
            for row in ROWS:
                cells = []
                for side in ("stored", "now"):
                    got = result[side][level]
                    if f"{row} in" not in got:
                        break
                    cells.append(f"{got[f'{row} in']:.3f} / {got[f'{row} out']:.3f} "
                                 f"(lift {got[f'{row} lift']:.1f})")
                if len(cells) == 2:
                    lines.append(f"| {level}: {row} in / out | {cells[0]} | {cells[1]} |")
        for row in RULES:
            lines.append(f"| {row} | {len(result['stored'][row])}: "
                         f"{'; '.join(result['stored'][row])} | {len(result['now'][row])}: "
                         f"{'; '.join(result['now'][row])} |")
        lines.append(f"| areas whose most central paper uses the area's name | "
                     f"{result['stored']['central on topic']} | {result['now']['central on topic']} |")
        lines += phrase_rows(result)
        lines.append("")
        lines += name_lines(result, report["columns"])
    return "\n".join(lines) + "\n"


def name_lines(result: dict, columns: list[str]) -> list[str]:
    """The names of every area and topic, with the areas' key phrases, per column."""
    lines = []
    for side, column in zip(("stored", "now"), columns):
        lines += [f"### Names, {column}", ""]
        lines_of = result[side].get("phrase lines", {})
        for area in result[side]["names"]:
            lines.append(f"- **{area['area']}** (most central: {area['central']}): "
                         + "; ".join(area["topics"]))
            if area["area"] in lines_of:
                lines.append(f"  - key phrases: {' · '.join(lines_of[area['area']])}")
        lines.append("")
    return lines


def phrase_rows(result: dict) -> list[str]:
    """The table's rows of the key phrases shown beside the names (key_phrase_scores)."""
    lines = []
    for level in ("topic phrases", "area phrases"):
        sides = [result[side].get(level) for side in ("stored", "now")]
        if None in sides:
            continue
        lines.append(f"| {level}: shown / one word / vague opening | " + " | ".join(
            f"{got['shown']} / {len(got['one word'])} ({'; '.join(got['one word'][:12])}) / "
            f"{len(got['vague openings'])}" for got in sides) + " |")
        for measure in ("text", "keyword phrase"):
            lines.append(f"| {level}: {measure} in / out | " + " | ".join(
                f"{got[f'{measure} in']:.3f} / {got[f'{measure} out']:.3f} "
                f"(lift {got[f'{measure} lift']:.1f})" for got in sides) + " |")
    return lines


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dataset", type=Path, help="paperlists-ml folder or its corpus.jsonl.gz")
    parser.add_argument("--index", action="append", required=True,
                        help="NAME=FOLDER: an index of a slice of that corpus (repeat)")
    parser.add_argument("--out", type=Path, default=None, help="write OUT.json and OUT.md")
    parser.add_argument("--before", type=Path, default=None,
                        help="an earlier report (JSON): its 'now' names are the first column")
    args = parser.parse_args(argv)
    known = labels_of(args.dataset)
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
              "command": "python -m studies.topic_names PAPERLISTS " + " ".join(
                  f"--index {item.partition('=')[0]}=INDEX" for item in args.index),
              "slices": {}}
    for item in args.index:
        slice_name, _, folder = item.partition("=")
        report["slices"][slice_name] = study(Path(folder), known)
    report["columns"] = ["stored (as built)", "now (this checkout)"]
    if args.before:
        earlier = json.loads(args.before.read_text(encoding="utf-8"))
        for slice_name, result in report["slices"].items():
            result["stored"] = earlier["slices"][slice_name]["now"]
        report["columns"] = [f"before ({earlier['date']})", "after"]
    markdown = table(report)
    write_report(args.out, report, markdown)
    print(markdown)
    return report


if __name__ == "__main__":
    main()
