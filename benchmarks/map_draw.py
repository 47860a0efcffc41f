"""The corpus map's first draw at the ~92k papers of paperlists-ml, in one run and one headless
Chromium at 1400x900: the product's deck.gl map (features/topics/ui_map.py map_chart through
st.pydeck_chart, its labels placed on the server by ui_labels.py) against today's map before
that change (ui_map.py of TODAY_COMMIT: deck.gl's collision filter in the browser) and the
Plotly map of BASELINE_COMMIT, both read from git. `python -m benchmarks.run mapdraw [--runs N]`.

Each sample: a fresh page of an already started server (its data loaded, the papers file
written), timed from `page.goto` to the chart drawn (deck.gl: its papers file fetched and its
canvas mounted, then two animation frames; Plotly: its legend drawn, then two frames). The
papers layer's data is a file of Streamlit's static serving, as in the product
(topics/ui_file.py). What the rest of the draw costs is taken apart beside it: no labels, no
tooltip text in the file, the papers layer loaded but not drawn; and the same pages on a second
software renderer (Mesa's llvmpipe) beside Chromium's SwiftShader.

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
import os
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

from benchmarks.common import PAPERLISTS, ROOT, require_paperlists, save
from benchmarks.indexes import work_dir
from tests.app_fixtures import CHROMIUM, CHROMIUM_ARGS, streamlit_server

BASELINE_COMMIT = "f40d14c"  # main before the deck.gl map: ui_map.py drew with Plotly
TODAY_COMMIT = "c0bb37c"  # main before the labels were placed on the server (issue 32)
TOPICS, AREAS = 100, 10
APP = """
import importlib.util, json, os, sys
import streamlit as st
from explorer.corpus.papers import Paper
from pathlib import Path
from explorer.features.topics.ui_map import Focus, map_chart, papers_data, papers_layer

st.set_page_config(layout="wide")

def module(name):
    spec = importlib.util.spec_from_file_location(name, os.environ[name.upper()])
    loaded = sys.modules[name] = importlib.util.module_from_spec(spec)  # its dataclasses ask
    spec.loader.exec_module(loaded)
    return loaded

@st.cache_resource
def load():
    with open(os.environ["MAP_DATA"], encoding="utf-8") as handle:
        data = json.load(handle)
    papers = [Paper(p["id"], p["title"], False, "", year=p["year"], venue=p["venue"],
                    status=p["status"]) for p in data["papers"]]
    return data["map"], data["labels"], papers

@st.cache_resource
def served(_corpus_map, _papers, bare=False):  # the data as a file of Streamlit's static serving
    static = Path(__file__).parent / "static"
    static.mkdir(exist_ok=True)
    text = papers_data(_corpus_map, _papers)
    if bare:  # places and colours only: what the tooltips' text costs
        text = json.dumps([{"p": r["p"], "c": r["c"]} for r in json.loads(text)], separators=(",", ":"))
    name = "bare.json" if bare else "papers.json"
    (static / name).write_text(text, encoding="utf-8")
    return papers_layer(_corpus_map, _papers, data_url="app/static/" + name)

corpus_map, labels, papers = load()
chart = st.query_params.get("chart")
focus = Focus(open_row=0, neighbour_rows=range(1, 11))
if chart == "floor":  # the page alone: what any Streamlit page costs before its chart
    st.write("floor page")
elif chart == "plotly":
    st.plotly_chart(module("map_baseline").map_figure(corpus_map, papers, 0, list(range(1, 11))))
elif chart == "deck-today":  # the map before this change: deck.gl's collision filter in the browser
    layer = served(corpus_map, papers)
    st.pydeck_chart(module("map_today").map_chart(corpus_map, papers, focus, labels, base=layer),
                    height=640)
else:
    layer = served(corpus_map, papers, chart == "deck-bare")
    if chart == "deck-hidden":  # fetched, parsed and uploaded, not drawn
        layer = layer[:-1] + ',"visible":false}'
    shown = [] if chart in ("deck-nolabels", "deck-hidden", "deck-bare") else labels
    st.pydeck_chart(map_chart(corpus_map, papers, focus, shown, base=layer), height=640)
"""
CANVAS = "document.querySelector(\"[data-testid='stDeckGlJsonChart'] canvas\")"
FETCHED = ("performance.getEntriesByType('resource').some(entry =>"
           " entry.name.endsWith('/app/static/{name}') && entry.responseEnd > 0)")
DRAWN = {"plotly": "() => { const el = document.querySelector('.js-plotly-plot');"
                   " return el && el._fullLayout && el.querySelector('.legend'); }",
         "deck": "() => " + FETCHED.format(name="papers.json") + " && " + CANVAS,
         "deck-bare": "() => " + FETCHED.format(name="bare.json") + " && " + CANVAS,
         "floor": "() => document.querySelector(\"[data-testid='stMarkdownContainer']\")"}
# When the papers file had come in (seconds after the navigation started), if it was fetched.
DATA_IN = ("() => { const got = performance.getEntriesByType('resource').filter(entry =>"
           " entry.name.includes('/app/static/'));"
           " return got.length ? got[0].responseEnd / 1000 : null; }")
FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
CHARTS = {"floor": "none (the page alone)", "deck-today": "91,908, labels: collision filter",
          "deck": "91,908, labels placed on the server", "deck-nolabels": "91,908, no labels",
          "deck-bare": "91,908, no labels, no tooltip text", "deck-hidden": "none (91,908 loaded)",
          "plotly": "20,000 (sample)"}
# Chromium's WebGL: SwiftShader (the tests' and the CI's) and, beside it, Mesa's llvmpipe
# through ANGLE's EGL backend (another software renderer: how much of a draw is the renderer's).
RENDERERS = {"": CHROMIUM_ARGS,
             " · llvmpipe": [flag for flag in CHROMIUM_ARGS if flag != "--disable-gpu"]
             + ["--use-gl=angle", "--use-angle=gl-egl", "--ignore-gpu-blocklist"]}


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


def old_module(folder: Path, commit: str) -> Path:
    """ui_map.py as main had it at `commit` (git show), for the same run."""
    text = subprocess.run(["git", "show", f"{commit}:explorer/features/topics/ui_map.py"],
                          cwd=ROOT, capture_output=True, text=True, check=True).stdout
    path = folder / f"ui_map_{commit}.py"
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
    data = stand_in(folder)
    app = folder / "map_draw_app.py"
    app.write_text(APP, encoding="utf-8")
    env = {"MAP_DATA": str(data), "MAP_BASELINE": str(old_module(folder, BASELINE_COMMIT)),
           "MAP_TODAY": str(old_module(folder, TODAY_COMMIT)), "PYTHONPATH": str(ROOT),
           "STREAMLIT_SERVER_ENABLE_STATIC_SERVING": "true"}
    samples = {chart + suffix: [] for suffix in RENDERERS for chart in CHARTS
               if not suffix or chart != "deck-bare"}
    data_in: dict[str, list] = {chart: [] for chart in samples}
    load = os.getloadavg()
    with streamlit_server(folder, app=app, env=env) as url, sync_playwright() as playwright:
        pages = {}
        for suffix, flags in RENDERERS.items():
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=flags)
            pages[suffix] = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
            pages[suffix].set_default_timeout(600_000)  # a loaded machine: Plotly takes long
            for chart in ("deck", "deck-bare"):  # files written, layers kept, bundle cached
                draw_seconds(pages[suffix], url, chart)
        for _ in range(args.runs):
            for key in samples:
                chart, _, renderer = key.partition(" · ")
                page = pages[" · " + renderer if renderer else ""]
                samples[key].append(draw_seconds(page, url, chart, data_in[key]))
        for page in pages.values():
            page.context.browser.close()
    static = folder / "static"
    sizes = {name: (static / name).stat().st_size for name in ("papers.json", "bare.json")}
    report(samples, data_in, load, sizes)


def report(samples: dict[str, list[float]], data_in: dict[str, list], load: tuple,
           sizes: dict[str, int]) -> None:
    median = {name: statistics.median(seconds) for name, seconds in samples.items()}
    rows = [{"map": name, "points drawn": CHARTS[name.split(" · ")[0]],
             "median s": round(median[name], 2),
             "runs s": " ".join(f"{s:.2f}" for s in seconds),
             "papers file in, s": " ".join(f"{s:.2f}" for s in data_in[name] if s is not None),
             "today / this": round(median[_same("deck-today", name)] / median[name], 2),
             "Plotly / this": round(median[_same("plotly", name)] / median[name], 2)}
            for name, seconds in samples.items()]
    print(f"first draw, today's map over the map with labels placed on the server: "
          f"{median['deck-today'] / median['deck']:.2f}x; Plotly's 20k sample over it: "
          f"{median['plotly'] / median['deck']:.2f}x")
    save("mapdraw", "Corpus map, first draw of 91,908 papers (1400x900, headless Chromium)", rows,
         ["map", "points drawn", "median s", "runs s", "papers file in, s", "today / this",
          "Plotly / this"],
         notes=NOTES.format(load=", ".join(f"{x:.1f}" for x in load),
                            papers=sizes["papers.json"] / 1e6, bare=sizes["bare.json"] / 1e6))


def _same(chart: str, name: str) -> str:
    """`chart` drawn by the same renderer as the row `name`."""
    return chart + name[len(name.split(" · ")[0]):]


NOTES = (
    "Load average at the start [{load}]. Stand-in 2-D points (100 Gaussian topics in 10 areas) "
    "with the real titles, venues, years and statuses of paperlists-ml, and 110 labels ('Area "
    "n', 'Topic n'); see benchmarks/map_draw.py. Every deck's papers layer is a file of "
    "Streamlit's static serving ({papers:.1f} MB of JSON; {bare:.1f} MB without the tooltips' "
    "text), fetched by the browser; the open paper and its 10 neighbours drawn on top. "
    "deck-today: the map before this change (main " + TODAY_COMMIT + "): every label in one "
    "TextLayer with deck.gl's collision filter; deck: the product now, the labels placed on "
    "the server (features/topics/ui_labels.py) in plain TextLayers sized in layout units "
    "(sizeUnits common, capped by sizeMaxPixels); deck-nolabels: no label "
    "layer; deck-bare: no labels and points without tooltip text (what the payload's text "
    "costs); deck-hidden: the papers file fetched, parsed and uploaded but the layer not "
    "drawn (visible: false; the gap to deck-nolabels is the software renderer's draw of "
    "92k points); floor: a page with one line of text; plotly: the map before deck.gl (main "
    + BASELINE_COMMIT + "), its even sample of 20,000. Chromium runs WebGL in software "
    "(--disable-gpu: SwiftShader); rows '· llvmpipe': the same page in a second Chromium on "
    "Mesa's llvmpipe (ANGLE's EGL backend, another software renderer), sampled in turn with "
    "the first. 'papers file in': when its last byte had come (resource "
    "timing, from the navigation). The 2 cores are shared with other jobs of this session: "
    "compare within the run only.")
