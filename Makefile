# Two commands do all set-up from a fresh clone: `make demo` and `make test`.
# Both create .venv and install the project into it; the stamp file makes a
# second run skip the install unless pyproject.toml changed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
REPORTS := reports

.PHONY: install demo test clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/bench rtp fixtures/submissions/*.yaml

test: $(STAMP)
	mkdir -p $(REPORTS)
	$(BIN)/python -m pytest -q --junitxml=$(REPORTS)/junit.xml --cucumberjson=$(REPORTS)/cucumber.json

clean:
	rm -rf $(VENV) $(REPORTS) *.egg-info
