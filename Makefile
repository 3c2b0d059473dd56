# The arena's developer entry points. `make help` lists them.
# `make run` and `make test` do all the set-up they need (a virtual environment in .venv).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PY := $(BIN)/python

.DEFAULT_GOAL := help

.PHONY: help setup system-deps run demo test test-fast chaos check alert-rules fmt lint typecheck proto proto-check buf-lint buf-breaking proto-release pytest bench golden conformance clean front front-test

help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml clients/python/pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(PY) -m pip install --quiet -e '.[server,test]'
	$(PY) -m pip install --quiet --no-deps -e clients/python
	@touch $@

setup: $(STAMP) ## Create .venv and install the project with its test extras

run: $(STAMP) ## The main job: an arena, starter bots, a league with a live progress bar, its leaderboard
	$(BIN)/arena run

demo: $(STAMP) ## One readable in-process match between built-in bots, turn by turn (GAME=coloretto for another)
	$(BIN)/arena demo $(if $(GAME),--game $(GAME))

# `make test` starts the background builds (see pytest) once the Debian packages are in, so that they
# also have the time the virtual environment's install and the static checks take.
test: system-deps ## The whole suite: format, lint, types, proto, alert rules, tests
	$(WITH_PREBUILD) $(SUBMAKE) --no-print-directory setup check alert-rules; $(TESTS)

SUBMAKE := $(MAKE)
# (not $(MAKE) in that recipe: make -n would run a line naming it, the tests with it)

system-deps: ## The Debian packages the suite uses (Redis 7, gRPC C++), installed when missing
	scripts/install-system-deps.sh

check: $(STAMP) ## Static checks only: format, lint, types, the import contracts (docs/architecture.md)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/mypy benchmarks
	$(BIN)/lint-imports
	$(BIN)/buf lint
	$(BIN)/buf breaking --against proto/released.binpb

alert-rules: ## Check the Prometheus alerting rules and run their unit tests (promtool: make system-deps)
	cd deploy/prometheus && promtool check rules alerts.yml && promtool test rules alerts.test.yml

fmt: $(STAMP) ## Format and auto-fix
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

proto: $(STAMP) ## Regenerate arena/v1/ from proto/arena/v1/*.proto
	$(PY) scripts/gen_proto.py

proto-check: $(STAMP) ## Fail if arena/v1/ is stale (run make proto)
	$(BIN)/pytest -q tests/wire/test_proto_fresh.py

buf-lint: $(STAMP) ## Lint the wire contract with Buf (STANDARD + COMMENTS)
	$(BIN)/buf lint

buf-breaking: $(STAMP) ## Fail if the wire contract breaks clients of the last released one (proto/released.binpb)
	$(BIN)/buf breaking --against proto/released.binpb

proto-release: $(STAMP) ## Record the current wire contract as the released one that buf-breaking checks against
	$(BIN)/buf build -o proto/released.binpb

UNIT := tests/games tests/league tests/wire tests/referee tests/service tests/store
# The unit, property and conformance tests: no timing, no shared ports, so one worker a core.

test-fast: $(STAMP) ## Unit, property and conformance tests only (under a minute: one worker a core)
	$(BIN)/pytest -q -n 2 -m "not slow" $(UNIT)

chaos: $(STAMP) system-deps ## The long fault-injection trial: nodes and the store's host crashing mid-league
	$(PY) benchmarks/chaos.py

# The kits, the deploy checker and the front build in the background meanwhile (scripts/prebuild.sh, at
# the lowest priority, stopped when the commands after WITH_PREBUILD end), and their tests run last;
# one that comes before its build is done waits for it.
WITH_PREBUILD = @setsid scripts/prebuild.sh & prebuild=$$!; \
	trap 'kill -- -'$$prebuild' 2>/dev/null || true' EXIT; trap 'exit 130' INT TERM; \
	set -e;
TESTS = $(BIN)/pytest -q -n 2 --durations=10 $(UNIT); \
	$(BIN)/pytest -q -n 2 --dist loadfile --durations=25 $(addprefix --ignore=,$(UNIT)) tests

pytest: $(STAMP) ## The tests alone: the unit tests one worker a core, then the rest (servers, nodes, kits) two workers, a file each
	$(WITH_PREBUILD) $(TESTS)

bench: $(STAMP) front ## Benchmarks: print figures and ratios (see BENCHMARKS.md)
	$(PY) benchmarks/bench_games.py
	$(PY) benchmarks/bench_games.py --game coloretto --observe --target 1000
	$(PY) benchmarks/bench_games.py --game azul --observe --target 150
	$(PY) benchmarks/bench_games.py --game azul --option wall=grey --observe --target 150
	$(PY) benchmarks/bench_games.py --game fool --target 250 --target-players 6
	$(PY) benchmarks/bench_referee.py
	$(PY) benchmarks/bench_stack.py
	$(PY) benchmarks/bench_stack.py --front
	$(PY) benchmarks/bench_workers.py
	$(PY) benchmarks/bench_workers.py --front
	$(PY) benchmarks/bench_duplicate.py
	$(PY) benchmarks/bench_calibration.py
	$(PY) benchmarks/bench_leaderboard.py
	$(PY) benchmarks/bench_sprt.py
	$(PY) benchmarks/bench_heuristic.py
	$(PY) benchmarks/bench_heuristic.py --game coloretto --players 3 4 5
	$(PY) benchmarks/bench_heuristic.py --game azul --players 2 3 4
	$(PY) benchmarks/bench_heuristic.py --game azul --option wall=grey --players 2 3 4
	$(PY) benchmarks/bench_heuristic.py --game fool --players 4 6 8
	$(PY) benchmarks/bench_memory.py
	$(PY) benchmarks/bench_memory.py --front
	$(PY) benchmarks/bench_store.py
	$(PY) benchmarks/bench_ladder.py
	$(PY) benchmarks/bench_matchmaker.py

CARGO ?= $(shell command -v cargo || echo $(HOME)/.cargo/bin/cargo)

front: ## Build arena-front, the compiled front of `arena serve --front` (front/; needs cargo)
	$(CARGO) build --release --quiet --locked --manifest-path front/Cargo.toml

front-test: front ## The front's own tests (cargo test; tests/test_front.py runs them)
	$(CARGO) test --release --quiet --locked --manifest-path front/Cargo.toml

golden: $(STAMP) ## Regenerate the golden playthrough files in tests/games/golden/
	$(PY) -m tests.games.golden --write

conformance: $(STAMP) ## Check every game's engine against its public case files (docs/conformance/GAME/)
	@for game in $$($(PY) -c 'from arena import catalogue; print(*catalogue.names())'); do \
		$(BIN)/arena conformance $$game || exit 1; \
	done

clean: ## Remove the virtual environment and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .import_linter_cache
