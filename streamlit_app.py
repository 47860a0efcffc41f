"""Paper Explorer in the browser: ask, read, walk from paper to paper, see the corpus map.

Run: `EXPLORER_INDEX=embeddings streamlit run streamlit_app.py`. The app only reads an index
built by `explorer build`; all search logic lives in the `explorer` package, and what the pages
say in `explorer.ui` and the features' ui modules. The app itself is explorer/app/ (the frame,
shell.py; the core pages; kit.py, what pages are made of) and the features' page modules
(explorer/features/*/page.py). Session state holds the Location (mirrored in the URL): it
changes in `kit.go`, the callback of every widget that navigates, and in `shell.app_ui`, from
the filters the sidebar returns.
"""

from explorer.app.shell import run

run()
