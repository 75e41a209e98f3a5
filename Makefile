# The two commands a newcomer needs: `make run` and `make test`. Both set up .venv themselves.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
FWLIB  := build/fwlib
ARGS   ?=
PYTEST_ARGS ?=

.PHONY: venv run test test-firmware typecheck bench probes models parts clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

# Firmware libraries come from PyPI (see firmware/tools/fetch_libs.py), never from the MicroPython index.
$(FWLIB)/.fetched: $(STAMP) firmware/tools/fetch_libs.py
	$(BIN)/python firmware/tools/fetch_libs.py $(FWLIB)
	touch $@

venv: $(STAMP) $(FWLIB)/.fetched

## Run the tower service (the simulated tower when no hardware is named).
run: venv
	$(BIN)/dicetower run $(ARGS)

## Every test: firmware tests on the real micropython, the type checks (firmware, host), then pytest.
test: venv test-firmware typecheck
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-firmware: venv
	$(BIN)/python firmware/tools/run_tests.py

typecheck: venv
	$(BIN)/python firmware/tools/typecheck.py
	$(BIN)/python -m mypy host/dicetower

## Printed figures: vision accuracy and speed, audit scale.
bench: venv
	$(BIN)/python -m bench

## The render probes' figures (bench/probes.py): ARGS="p60 crowds --scenes 50" for some of them.
probes: venv
	$(BIN)/python -m bench probes $(ARGS)

## Rebuild the shipped models from licensed data (installs the `train` extra: torch CPU, onnx).
models: venv
	$(BIN)/python -m pip install -q -e '.[train]'
	$(BIN)/python -m dicetower.vision.train_models

## Printable tower parts: one STL per part in build/parts (hardware/parts).
parts: venv
	$(BIN)/python -m hardware.parts build build/parts

clean:
	rm -rf build $(VENV)
