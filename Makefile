# The two commands of the README: `make run` and `make test`. Everything else builds on them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

# Installs come from the lock files (exact versions with hashes); `make lock` regenerates them after a change
# to pyproject.toml, keeping every pin it can.
LOCK := requirements.lock
TEST_LOCK := requirements-test.lock
COMPILE = $(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes --quiet \
	--custom-compile-command "make lock"

.PHONY: run test test-pg lint format lock migrate worker bench clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m pip check
	@touch $@

$(VENV)/.installed-test: pyproject.toml $(TEST_LOCK) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r $(TEST_LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e '.[test]'
	$(BIN)/python -m pip check
	@touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/warranty migrate
	$(BIN)/warranty serve --host $(HOST) --port $(PORT)

migrate: $(VENV)/.installed
	$(BIN)/warranty migrate

test: $(VENV)/.installed-test
	$(BIN)/pytest

# The suite on PostgreSQL: it creates its own database on this server and drops it afterwards.
test-pg: $(VENV)/.installed-test
	WARRANTY_TEST_DATABASE_URL=$${WARRANTY_TEST_DATABASE_URL:-postgresql+asyncpg://postgres@127.0.0.1:5432/postgres} $(BIN)/pytest

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy app

format: $(VENV)/.installed-test
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

lock: | $(BIN)/python
	$(BIN)/python -m pip install --quiet uv
	$(COMPILE) --extra test -o $(TEST_LOCK)
	$(COMPILE) --constraint $(TEST_LOCK) -o $(LOCK)

# Benchmarks on PostgreSQL (WARRANTY_BENCH_PG, default postgres@127.0.0.1:5432); needs wrk (Debian: wrk).
bench: $(VENV)/.installed-test
	@command -v wrk >/dev/null || { echo "bench needs wrk: apt-get install wrk"; exit 1; }
	ulimit -n 65536 2>/dev/null || true; $(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
