"""The corpus map's first draw at the ~92k papers of paperlists-ml: the deck.gl map
(features/topics/ui_map.py map_chart through st.pydeck_chart) against the Plotly map it replaced
(ui_map.py of commit BASELINE_COMMIT, read from git), in one run and one headless Chromium at
1400x900. `python -m benchmarks.run mapdraw [--runs N]`.

Each sample: a fresh page of an already started server (its data loaded), timed from
`page.goto` to the chart drawn (deck.gl: its canvas mounted, then two animation frames; Plotly:
its legend drawn, then two frames). The deck's first sample is the product's first view of
the map (its papers layer not yet serialised: map_chart without `base`), the later ones reuse
the serialised layer as the product does (topics/ui.py keeps it per Explorer and zoom);
"deck-file" is the product's map now: the papers layer's data a file of Streamlit's static
serving (topics/ui_file.py, written in the warm-up) that the browser fetches, so only the
small rest of the chart crosses the websocket. Plotly draws its even sample of 20,000 points,
deck.gl all of them.

Stand-in data (said in the table's notes): the titles, venues, years and statuses of every
paperlists-ml record, and 2-D points drawn from 100 Gaussian topics in 10 areas (no index of
the 92k corpus is stored on this machine; the map stage's t-SNE of 92k vectors costs many
minutes, and the draw cost depends on the number of points and their text, not on where they
lie).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

from benchmarks.common import PAPERLISTS, ROOT, require_paperlists, save
from benchmarks.indexes import work_dir
from tests.app_fixtures import CHROMIUM, CHROMIUM_ARGS, streamlit_server

BASELINE_COMMIT = "f40d14c"  # main before the deck.gl map: ui_map.py drew with Plotly
TOPICS, AREAS = 100, 10
APP = """
import importlib.util, json, os
import streamlit as st
from explorer.corpus.papers import Paper
from pathlib import Path
from explorer.features.topics.ui_map import Focus, map_chart, papers_data, papers_layer

st.set_page_config(layout="wide")

@st.cache_resource
def load():
    with open(os.environ["MAP_DATA"], encoding="utf-8") as handle:
        data = json.load(handle)
    papers = [Paper(p["id"], p["title"], False, "", year=p["year"], venue=p["venue"],
                    status=p["status"]) for p in data["papers"]]
    return data["map"], data["labels"], papers

@st.cache_resource
def base(_corpus_map, _papers):
    return papers_layer(_corpus_map, _papers)

@st.cache_resource
def served(_corpus_map, _papers):  # the data as a file of Streamlit's static serving
    static = Path(__file__).parent / "static"
    static.mkdir(exist_ok=True)
    (static / "papers.json").write_text(papers_data(_corpus_map, _papers), encoding="utf-8")
    return papers_layer(_corpus_map, _papers, data_url="app/static/papers.json")

corpus_map, labels, papers = load()
chart = st.query_params.get("chart")
if chart == "floor":  # the page alone: what any Streamlit page costs before its chart
    st.write("floor page")
elif chart == "plotly":
    spec = importlib.util.spec_from_file_location("plotly_map", os.environ["MAP_BASELINE"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    st.plotly_chart(module.map_figure(corpus_map, papers, 0, list(range(1, 11))))
else:
    cached = {"deck-warm": base, "deck-file": served, "deck-file-nolabels": served}.get(chart)
    cached = cached(corpus_map, papers) if cached else None
    deck = map_chart(corpus_map, papers, Focus(open_row=0, neighbour_rows=range(1, 11)),
                     [] if chart == "deck-file-nolabels" else labels, base=cached)
    st.pydeck_chart(deck, height=640)
"""
DRAWN = {"plotly": "() => { const el = document.querySelector('.js-plotly-plot');"
                   " return el && el._fullLayout && el.querySelector('.legend'); }",
         "deck": "() => document.querySelector(\"[data-testid='stDeckGlJsonChart'] canvas\")",
         "deck-file": "() => performance.getEntriesByType('resource').some(entry =>"
                      " entry.name.endsWith('/app/static/papers.json') && entry.responseEnd > 0)"
                      " && document.querySelector(\"[data-testid='stDeckGlJsonChart'] canvas\")",
         "floor": "() => document.querySelector(\"[data-testid='stMarkdownContainer']\")"}
DRAWN["deck-file-nolabels"] = DRAWN["deck-file"]
# When the papers file had come in (seconds after the navigation started), if it was fetched.
DATA_IN = ("() => { const got = performance.getEntriesByType('resource').filter(entry =>"
           " entry.name.endsWith('/app/static/papers.json'));"
           " return got.length ? got[0].responseEnd / 1000 : null; }")
FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def stand_in(folder: Path) -> Path:
    """The data file: every paperlists-ml record's title, venue, year, status; 2-D points."""
    require_paperlists()
    with gzip.open(PAPERLISTS, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    rng = np.random.default_rng(0)
    topic = rng.integers(0, TOPICS, len(records))
    centres = rng.normal(size=(TOPICS, 2)) * 40
    points = centres[topic] + rng.normal(size=(len(records), 2)) * 4
    corpus_map = {"x": points[:, 0].round(3).tolist(), "y": points[:, 1].round(3).tolist(),
                  "topic": topic.tolist(),
                  "topics": [{"id": t, "label": f"Topic {t}", "terms": [f"term {t}"],
                              "size": int((topic == t).sum()), "area": t % AREAS}
                             for t in range(TOPICS)],
                  "areas": [{"id": a, "label": f"Area {a}", "topics": list(range(a, TOPICS, AREAS))}
                            for a in range(AREAS)]}
    labels = [{"x": float(centres[t, 0]), "y": float(centres[t, 1]), "text": f"Topic {t}",
               "level": "topic", "size": 12, "priority": 1} for t in range(TOPICS)]
    labels += [{"x": float(centres[a::AREAS, 0].mean()), "y": float(centres[a::AREAS, 1].mean()),
                "text": f"Area {a}", "level": "area", "size": 17, "priority": 1}
               for a in range(AREAS)]
    papers = [{"id": r.get("doc_id") or str(n), "title": r.get("title") or "", "year": r.get("year"),
               "venue": r.get("venue"), "status": r.get("status")} for n, r in enumerate(records)]
    path = folder / "map-draw-data.json"
    path.write_text(json.dumps({"map": corpus_map, "labels": labels, "papers": papers}),
                    encoding="utf-8")
    return path


def baseline_module(folder: Path) -> Path:
    """The Plotly map as main had it (git show BASELINE_COMMIT:explorer/features/topics/ui_map.py)."""
    text = subprocess.run(["git", "show", f"{BASELINE_COMMIT}:explorer/features/topics/ui_map.py"],
                          cwd=ROOT, capture_output=True, text=True, check=True).stdout
    path = folder / "plotly_map.py"
    path.write_text(text, encoding="utf-8")
    return path


def draw_seconds(page, url: str, chart: str, data_in: list | None = None) -> float:
    """Seconds from `page.goto` to `chart` drawn; appends to `data_in` when the papers file
    had come in (seconds after the navigation started; None when none was fetched)."""
    started = time.perf_counter()
    page.goto(f"{url}/?chart={chart}")
    page.wait_for_function(DRAWN.get(chart, DRAWN["deck"]), timeout=300_000)
    page.evaluate(FRAMES)
    seconds = time.perf_counter() - started
    if data_in is not None:
        data_in.append(page.evaluate(DATA_IN))
    return seconds


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.run mapdraw")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    folder = work_dir() / "map-draw"
    folder.mkdir(parents=True, exist_ok=True)
    data, baseline = stand_in(folder), baseline_module(folder)
    app = folder / "map_draw_app.py"
    app.write_text(APP, encoding="utf-8")
    env = {"MAP_DATA": str(data), "MAP_BASELINE": str(baseline), "PYTHONPATH": str(ROOT),
           "STREAMLIT_SERVER_ENABLE_STATIC_SERVING": "true"}
    samples: dict[str, list[float]] = {"floor": [], "deck-cold": [], "deck-warm": [],
                                       "deck-file": [], "deck-file-nolabels": [], "plotly": []}
    data_in: dict[str, list] = {chart: [] for chart in samples}
    with streamlit_server(folder, app=app, env=env) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.set_default_timeout(600_000)  # a loaded machine: Plotly at 92k takes long
        page.goto(url)  # the server loads the data once; the bundle gets cached
        page.wait_for_selector("[data-testid='stDeckGlJsonChart'] canvas", timeout=600_000)
        draw_seconds(page, url, "deck-file")  # its file written and its layer kept, as deck-warm's
        for _ in range(args.runs):
            for chart in samples:
                samples[chart].append(draw_seconds(page, url, chart, data_in[chart]))
        browser.close()
    report(samples, len(json.loads(data.read_text())["papers"]), data_in)


def report(samples: dict[str, list[float]], count: int, data_in: dict[str, list]) -> None:
    plotly = statistics.median(samples["plotly"])
    drawn = {"plotly": "20,000 (sample)", "floor": "none (the page alone)"}
    rows = [{"map": name, "points drawn": drawn.get(name, f"{count:,}"),
             "median s": round(statistics.median(seconds), 2),
             "runs s": " ".join(f"{s:.2f}" for s in seconds),
             "papers file in, s": " ".join(f"{s:.2f}" for s in data_in[name] if s is not None),
             "Plotly / this": round(plotly / statistics.median(seconds), 2)}
            for name, seconds in samples.items()]
    warm = statistics.median(samples["deck-warm"])
    served = statistics.median(samples["deck-file"])
    print(f"first draw, Plotly over deck.gl (warm): {plotly / warm:.2f}x; "
          f"over deck.gl with its papers fetched as a file: {plotly / served:.2f}x")
    save("mapdraw", f"Corpus map, first draw of {count:,} papers (1400x900, headless Chromium)", rows,
         ["map", "points drawn", "median s", "runs s", "papers file in, s", "Plotly / this"],
         notes="Stand-in 2-D points (100 Gaussian topics in 10 areas) with the real titles, "
               "venues, years and statuses of paperlists-ml; see benchmarks/map_draw.py. "
               "deck-cold: the papers layer serialised in that request (the product's first "
               "view per index and zoom); deck-warm: serialised before (every later view); "
               "deck-file: the papers layer's data fetched by the browser as a file of "
               "Streamlit's static serving (written in the warm-up, as the product does once "
               "per index and zoom), not sent over the websocket; 'papers file in': when its "
               "last byte had come (resource timing, from the navigation); deck-file-nolabels: "
               "the same without the label layer (deck.gl's TextLayer with its collision "
               "filter): what the labels cost; floor: a page with one line of text, what "
               "any Streamlit page costs before its chart. "
               "Chromium runs WebGL in software (--disable-gpu: SwiftShader). The 2 cores are "
               "shared with other jobs of this session: compare within the run only.")
