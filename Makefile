# Two commands do all the set-up on a fresh machine (see README, Quickstart):
#   make run    starts the main job: the online tables server on http://127.0.0.1:8000/, from the
#               compiled build (as `pip install .` installs it; pure Python where nothing compiles)
#   make test   runs the whole test suite (tests, doctests, mypy --strict, ruff, the browser game's type check), then the suite's
#               engine, RL, bots, server and terminal tests again against the compiled build
#   make run-dev   the server from the development install (pure Python: an edited .py file is what runs)
#   make cluster   several server processes behind HAProxy with a throwaway PostgreSQL, from the compiled build
#               (`royal-revenge cluster`, docs/scaling.md; needs Debian's haproxy and postgresql packages)
#   make compiled  builds the wheel with the mypyc-compiled hot modules into build/compiled (the
#               development install in .venv stays pure Python)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The browser game: its sources (src/royal_revenge/web/src) are bundled by esbuild into web/dist, which the
# server serves and the wheel ships; npm installs what package-lock.json pins.
NODE_STAMP := node_modules/.installed
WEB_DIST := src/royal_revenge/web/dist/main.js
WEB_SOURCES := $(shell find src/royal_revenge/web/src -name '*.js' -o -name '*.css' 2>/dev/null)

COMPILED := build/compiled
COMPILED_STAMP := $(COMPILED)/.built
# Anything that can change the compiled build rebuilds it (so its tests never run stale code).
BUILD_INPUTS := $(shell find src -name '*.py') setup.py pyproject.toml build_backend/royal_revenge_build.py

.PHONY: web run run-dev cluster test test-compiled compiled lint bench bench-rl bench-rl-batch bench-server bench-cluster clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(WEB_DIST): $(NODE_STAMP) $(WEB_SOURCES)
	npm run -s build

web: $(WEB_DIST)

# The server runs from the compiled build; if it cannot be compiled here, the build is pure Python (a warning
# says so) and the server runs all the same.
run: $(STAMP) $(WEB_DIST)
	@$(MAKE) --no-print-directory compiled COMPILE=auto
	PYTHONPATH=$(COMPILED) $(BIN)/royal-revenge serve --host $(or $(HOST),127.0.0.1) --port $(or $(PORT),8000)

# A cluster on this machine: PROCESSES server processes (2 by default) behind HAProxy on HOST:PORT, sharing a
# throwaway PostgreSQL (or DB=postgresql://...); Ctrl-C stops it all.
cluster: $(STAMP) $(WEB_DIST)
	@$(MAKE) --no-print-directory compiled COMPILE=auto
	PYTHONPATH=$(COMPILED) $(BIN)/royal-revenge cluster --host $(or $(HOST),127.0.0.1) --port $(or $(PORT),8000) \
		--processes $(or $(PROCESSES),2) $(if $(DB),--db $(DB))

run-dev: $(STAMP) $(WEB_DIST)
	$(BIN)/royal-revenge serve --host $(or $(HOST),127.0.0.1) --port $(or $(PORT),8000)

test: $(STAMP) $(WEB_DIST)
	$(BIN)/ruff check src tests benchmarks setup.py build_backend
	$(BIN)/mypy
	npm run -s typecheck
	$(BIN)/python -m pytest
	$(MAKE) test-compiled

# The compiled build: a wheel built as a user's `pip install` would build it (isolated, with
# mypyc; COMPILE=1, the default, makes a failed compilation an error instead of a fallback to
# pure Python), installed into a directory of its own that is put first on PYTHONPATH.
COMPILE ?= 1
$(COMPILED_STAMP): $(STAMP) $(WEB_DIST) $(BUILD_INPUTS)
	rm -rf $(COMPILED) build/wheels
	ROYAL_REVENGE_COMPILE=$(COMPILE) $(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir build/wheels .
	$(BIN)/python -m pip install --quiet --no-deps --target $(COMPILED) build/wheels/royal_revenge-*.whl
	touch $@

compiled: $(COMPILED_STAMP)

# The tests of everything the compiled modules run in, against them (tests/test_build.py checks they are the
# ones loaded): the engine, the RL environments, the bots, the tables, the server, the terminal game, simulations.
test-compiled: $(COMPILED_STAMP)
	ROYAL_REVENGE_EXPECT_COMPILED=1 PYTHONPATH=$(COMPILED) $(BIN)/python -m pytest -p no:cacheprovider \
		tests/test_build.py tests/engine tests/rl tests/bots tests/session tests/server tests/tui tests/sim tests/test_cli.py

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	$(BIN)/python benchmarks/engine_speed.py

# The RL environments against RLCard, with the compiled build (the figures in docs/benchmarks.md).
bench-rl: $(COMPILED_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	PYTHONPATH=$(COMPILED) $(BIN)/python benchmarks/rl_speed.py --seconds 2 --repeats 5 --players 2 4 6

# The batched core (NumPy and JAX, batches of 1 to 8,192) against RLCard, raw_env and gym_env, on one core.
bench-rl-batch: $(COMPILED_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	PYTHONPATH=$(COMPILED) $(BIN)/python benchmarks/rl_batch_speed.py --seconds 2 --repeats 3 --players 2 4 6

# The online tables server under load, as `make run` runs it (the compiled build): the figures in docs/benchmarks.md.
bench-server: $(COMPILED_STAMP)
	PYTHONPATH=$(COMPILED) $(BIN)/python benchmarks/server_load.py --tables 250 --seconds 30 --repeat 5

# The tables on 1 and on 2 server processes behind HAProxy on PostgreSQL, one process on SQLite for reference, and a
# failover's cost (benchmarks/cluster_load.py, the compiled build; needs Debian's haproxy and postgresql packages).
bench-cluster: $(COMPILED_STAMP)
	PYTHONPATH=$(COMPILED) $(BIN)/python benchmarks/cluster_load.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache .hypothesis node_modules src/royal_revenge/web/dist
