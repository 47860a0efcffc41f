# The two set-up commands (see README): `make run` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# pip on these machines warns about every missing local index folder; keep real messages only.
QUIET_PIP := { grep -v -e 'is ignored: it is neither a file nor a directory' || true; }
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run test index browser clean

$(STAMP): pyproject.toml
	@echo "Setting up $(VENV) (a few minutes the first time)..."
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q torch==2.13.0 2>&1 | $(QUIET_PIP)
	$(PY) -m pip install -q -e '.[test]' 2>&1 | $(QUIET_PIP)
	touch $(STAMP)

## Build the seeds' index if it is missing or stale (incremental: unchanged papers cost nothing).
index: $(STAMP)
	$(VENV)/bin/explorer build seeds --out embeddings

## Open the app on the seeds, on 127.0.0.1 unless HOST says otherwise.
run: index
	EXPLORER_INDEX=$${EXPLORER_INDEX:-embeddings} $(VENV)/bin/streamlit run streamlit_app.py \
		--server.address $(HOST) --server.port $(PORT) --browser.gatherUsageStats false

## Debian's Chromium for the browser tests (Playwright drives it through executable_path).
browser:
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

## Run the whole test suite (this is what .ci/run calls).
test: $(STAMP) browser
	$(VENV)/bin/ruff check explorer tests benchmarks streamlit_app.py
	$(PY) -m pytest -q $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) embeddings test-output
