# Workspace: two commands on a fresh machine.
#   make run   venv, install, migrate, seed the demo on first run, serve on :5000
#   make test  install what the tests need (PostgreSQL client libs, slapd, Chromium)
#              and run the whole suite on SQLite and PostgreSQL, in two xdist workers
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 5000
TEST_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/test
PYTEST_ARGS ?=
# Two workers, each its own session (own SQLite file, PostgreSQL database, slapd,
# OIDC provider, live server, Chromium); a file's tests stay on one worker so its
# module fixtures are built once. PYTEST_XDIST= runs serially.
PYTEST_XDIST ?= -n 2 --dist loadfile

export FLASK_APP := app

.PHONY: run test install install-test test-deps lint format bench clean

# What running needs; the test extras come only with `make test`.
$(BIN)/flask: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.test-installed: $(BIN)/flask pyproject.toml
	$(BIN)/pip install --quiet -e ".[test]"
	touch $@

install: $(BIN)/flask

install-test: $(VENV)/.test-installed

run: install
	$(BIN)/flask db upgrade
	BASE_URL=$${BASE_URL:-http://$(HOST):$(PORT)} $(BIN)/flask demo --if-empty
	@echo "Serving on http://$(HOST):$(PORT)  (sign-in details above; Ctrl-C stops)"
	BASE_URL=$${BASE_URL:-http://$(HOST):$(PORT)} SYSTEM_OPERATORS=$${SYSTEM_OPERATORS-owner@acme.test} \
	  $(BIN)/flask run --host $(HOST) --port $(PORT)

# System packages the tests talk to: a real OpenLDAP, headless Chromium, pdftoppm.
test-deps:
	@missing=""; \
	command -v slapd >/dev/null || [ -x /usr/sbin/slapd ] || missing="$$missing slapd ldap-utils"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v pdftoppm >/dev/null || missing="$$missing poppler-utils"; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq $$missing fonts-dejavu-core >/dev/null; \
	fi

test: install-test test-deps lint
	TEST_DATABASE_URL=$(TEST_DATABASE_URL) $(BIN)/pytest $(PYTEST_XDIST) $(PYTEST_ARGS)

# ruff, and the import contract (.importlinter): packages import downward only.
lint: install-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: install-test
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
