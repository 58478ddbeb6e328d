# Two commands do all the set-up on a fresh machine (see README, Quickstart):
#   make run    starts the main job: the online tables server on http://127.0.0.1:8000/
#   make test   runs the whole test suite (tests, doctests, mypy --strict, ruff), then the engine and
#               RL tests again against the compiled build
#   make compiled  builds the wheel with the mypyc-compiled hot modules into build/compiled (the
#               development install in .venv stays pure Python: an edited .py file is what runs)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

COMPILED := build/compiled
COMPILED_STAMP := $(COMPILED)/.built
# Anything that can change the compiled build rebuilds it (so its tests never run stale code).
BUILD_INPUTS := $(shell find src -name '*.py') setup.py pyproject.toml build_backend/royal_revenge_build.py

.PHONY: run test test-compiled compiled lint bench bench-rl clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/royal-revenge serve --host $(or $(HOST),127.0.0.1) --port $(or $(PORT),8000)

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks setup.py build_backend
	$(BIN)/mypy
	$(BIN)/python -m pytest
	$(MAKE) test-compiled

# The compiled build: a wheel built as a user's `pip install` would build it (isolated, with
# mypyc; ROYAL_REVENGE_COMPILE=1 makes a failed compilation an error instead of a fallback to
# pure Python), installed into a directory of its own that is put first on PYTHONPATH.
$(COMPILED_STAMP): $(STAMP) $(BUILD_INPUTS)
	rm -rf $(COMPILED) build/wheels
	ROYAL_REVENGE_COMPILE=1 $(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir build/wheels .
	$(BIN)/python -m pip install --quiet --no-deps --target $(COMPILED) build/wheels/royal_revenge-*.whl
	touch $@

compiled: $(COMPILED_STAMP)

# The engine and RL tests against the compiled modules (tests/test_build.py checks they are the ones loaded).
test-compiled: $(COMPILED_STAMP)
	ROYAL_REVENGE_EXPECT_COMPILED=1 PYTHONPATH=$(COMPILED) $(BIN)/python -m pytest -p no:cacheprovider \
		tests/test_build.py tests/engine tests/rl

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	$(BIN)/python benchmarks/engine_speed.py

# The RL environments against RLCard, with the compiled build (the figures in the README).
bench-rl: $(COMPILED_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	PYTHONPATH=$(COMPILED) $(BIN)/python benchmarks/rl_speed.py --seconds 2 --repeats 5 --players 2 4 6

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache .hypothesis
