# WiSlice root Makefile: drives every component through the component contract (docs/component-contract.md).
SHELL := /bin/bash
.DEFAULT_GOAL := help

export WISLICE_ROOT  := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
export WISLICE_VENV  ?= $(WISLICE_ROOT)/.venv
export WISLICE_CACHE ?= $(HOME)/.cache/wislice
PY := $(WISLICE_VENV)/bin/python

# Order matters: the shared helpers first (agent-proto: the agents' protocol package), then the data plane, agents,
# controllers, orchestrator, the testbed.
COMPONENTS := $(foreach c,testbed spec agent-proto pof-switch ap-agent testbed/ap-vm mec-agent onos-apps orchestrator-api openwrt,\
                $(if $(wildcard $(WISLICE_ROOT)/$(c)/Makefile),$(c)))

.PHONY: help deps build test test-fast test-integration demo bench report clean lint

help:
	@echo "make demo       set up what is missing, then run the main job on the one-machine testbed"
	@echo "make test       set up what is missing, then run every test (fast tier, then integration tier)"
	@echo "make test-fast  unit tiers only (seconds; needs deps)"
	@echo "make bench      run every benchmark, then render bench/REPORT.md"
	@echo "make deps       install what this machine lacks (idempotent)"
	@echo "components: $(COMPONENTS)"

deps:
	@bash scripts/deps.sh

build: deps
	@set -e; for c in $(COMPONENTS); do echo "== build $$c"; $(MAKE) --no-print-directory -C $$c build; done

lint: deps
	@$(WISLICE_VENV)/bin/ruff check .

# Each tier runs every component even when one fails, then fails if any did: one run shows every failure. Each
# component's time is printed: make test has a 40 min budget on a 2-core machine.
define run_tier
	@failed=""; for c in $(COMPONENTS); do echo "== $(1) $$c"; t0=$$(date +%s); \
	  $(MAKE) --no-print-directory -C $$c $(1) || failed="$$failed $$c"; \
	  echo "== $(1) $$c took $$(( $$(date +%s) - t0 )) s"; done; \
	if [ -n "$$failed" ]; then echo "$(1) FAILED in:$$failed"; exit 1; fi; echo "$(1): all components passed"
endef

test-fast:
	$(call run_tier,test-fast)

# The slowest tests of each integration suite are printed too: where the budget goes, read off any CI log.
test-integration: export PYTEST_ADDOPTS := --durations=6 $(PYTEST_ADDOPTS)
test-integration:
	$(call run_tier,test-integration)

test: deps
	@$(PY) -m wislice_testbed.leakcheck snapshot
	@rc=0; $(MAKE) --no-print-directory lint || rc=1; \
	$(MAKE) --no-print-directory test-fast || rc=1; \
	$(MAKE) --no-print-directory test-integration || rc=1; \
	$(PY) -m wislice_testbed.leakcheck compare || rc=1; exit $$rc

demo: build
	@$(MAKE) --no-print-directory -C testbed demo

bench: deps
	@failed=""; for c in $(COMPONENTS); do echo "== bench $$c"; \
	  $(MAKE) --no-print-directory -C $$c bench || failed="$$failed $$c"; done; \
	$(PY) bench/reliability.py; $(PY) bench/render.py; \
	if [ -n "$$failed" ]; then echo "bench FAILED in:$$failed"; exit 1; fi

report:
	@$(PY) bench/reliability.py && $(PY) bench/render.py

clean:
	@for c in $(COMPONENTS); do $(MAKE) --no-print-directory -C $$c clean; done
