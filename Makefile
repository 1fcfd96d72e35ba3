# The two commands of the README: `make demo` (main job) and `make test`.
# Both create .venv and install the project (editable) on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Bytecode is written on first import (pip installs with --no-compile). A host that sets PYTHONDONTWRITEBYTECODE
# would have every process of the suite (its workers, the CLI and Dask subprocesses) compile z3, numpy, dask
# and the project from source again: about 2 CPU-s per process. tests/test_suite_setup.py checks it is unset.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --quiet --no-compile -e '.[test]'  # -qq: errors only; --no-compile: bytecode on first import (30 s less)
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/sha1opt demo

test: $(STAMP)
	sh setup/system-packages.sh  # clang, libssl-dev(:i386), llvm, llvm-19, qemu-user when missing (root + apt), else the tests skip
	$(BIN)/python -m pytest -q -m "not slow" -n auto --dist loadgroup --no-loadscope-reorder  # slow-marked checks: bench/slow_checks.py

clean:
	rm -rf $(VENV) build *.egg-info
