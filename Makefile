# Two commands do all set-up from a fresh clone: `make demo` and `make test`.
# Both create .venv and install the project into it (with the test, twin, Ray and lint
# extras, so that the Ray engine is tested too); the stamp file makes a
# second run skip the install unless pyproject.toml changed. `make test` also
# needs Debian's Chromium for the report-page tests (`make browser`).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
REPORTS := reports

.PHONY: install browser demo test docs lint wheel clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,twin,ray,lint,archive]'
	touch $(STAMP)

# The browser the report-page tests open pages in (tests/report_pages), before the
# first test: nothing if /usr/bin/chromium is there; as root with apt-get, Debian's
# chromium package is installed (one progress line); otherwise make stops with one
# line saying what to install (.ci/ensure-chromium). Its progress goes to the
# terminal and its complaint to $(error), so that make adds no line of its own;
# make -n only shows it.
ENSURE_BROWSER = $(eval BROWSER_MISSING := $(shell sh .ci/ensure-chromium 3>&1 1>&2 2>&3))$\
	$(if $(BROWSER_MISSING),$(error $(BROWSER_MISSING)))
browser:
	@$(if $(findstring n,$(firstword -$(MAKEFLAGS))),sh .ci/ensure-chromium,$(ENSURE_BROWSER):)

# The main job on the embedded default: the emulated controller in its own
# process behind a pty, the physics twin as the plant, every frame judged and
# journalled; then the journal is verified and the drop of the session's first
# no roll (a staged cocked die; round 2 if none) is simulated again and drawn.
DEMO := out/demo
NO_ROLL_ROUND = $(BIN)/python -c 'import json, sys; c = json.load(open(sys.argv[1]))["coverage"]["covered"]; \
	print(next((x["round"] for x in c if x["class"] == "no-roll:1"), 2))'
demo: $(STAMP)
	rm -rf $(DEMO)    # bench run refuses a folder that holds a session: the demo starts afresh
	$(BIN)/bench run --rounds 20 --out $(DEMO)/lightning-dice
	$(BIN)/bench replay $(DEMO)/lightning-dice/session.jsonl --head "$$(cat $(DEMO)/lightning-dice/session.head)" \
		--round "$$($(NO_ROLL_ROUND) $(DEMO)/lightning-dice/summary.json)" \
		--gif $(DEMO)/lightning-dice/no-roll.gif --png $(DEMO)/lightning-dice/no-roll.png
	$(BIN)/bench run --game lightning-roulette --rounds 10 --out $(DEMO)/lightning-roulette
	@echo "journals, JUnit XML and pictures: $(DEMO)/"

# The whole suite on TEST_WORKERS processes, a test file to a worker (a file's
# module fixtures, such as the 1,500-drop campaign, are then made once). The
# Cucumber JSON of the feature scenarios comes from a second, serial run of
# tests/features (seconds): pytest-bdd writes it only in the process that ran
# the scenarios, and under xdist that is a worker, whose report is lost.
TEST_WORKERS ?= 2
test: browser $(STAMP)
	mkdir -p $(REPORTS)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --junitxml=$(REPORTS)/junit.xml
	$(BIN)/python -m pytest -q -p no:xdist tests/features --cucumberjson=$(REPORTS)/cucumber.json

# The figures docs/ holds between <!-- checked: NAME --> markers, written again from
# the tests that make and check them (tests/docs/checked_blocks.py): after a change
# that moves a figure, in the same commit. `make test` fails while one is stale.
DOCS_TESTS := tests/docs tests/bench/test_pytest_controller.py
docs: $(STAMP)
	TABLEBENCH_WRITE_DOCS=1 $(BIN)/python -m pytest -q -p no:xdist $(DOCS_TESTS)

# ruff (the rules in pyproject.toml) and mypy on bench, twin and tablebench_io: any
# type error fails (there is no baseline of known errors).
LINTED := bench twin tablebench_io tests benchmarks features tablebench_pytest.py
lint: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/python -m mypy --config-file pyproject.toml

# The wheel a user of another project installs (README: Using tablebench from another project).
wheel: $(STAMP)
	rm -rf build     # a stale build/ would put removed modules into the wheel
	$(BIN)/python -m pip wheel --no-deps --quiet -w dist .
	@ls dist/tablebench-*.whl

clean:
	rm -rf $(VENV) $(REPORTS) *.egg-info dist build
