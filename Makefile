# The two commands a newcomer needs: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check -q
# Benchmarks are single-threaded, for chainrule, PyTorch and NumPy alike.
THREADS := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

.PHONY: demo test bench lint format docs clean

$(VENV)/.base: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -e .
	touch $@

$(VENV)/.test: $(VENV)/.base
	$(PIP) install -e '.[test]'
	touch $@

demo: $(VENV)/.base
	$(VENV)/bin/chainrule demo

test: $(VENV)/.test
	$(PY) -m pytest $(PYTEST_ARGS)

bench: $(VENV)/.test
	$(THREADS) $(PY) bench/run.py

docs: $(VENV)/.base
	$(PY) -m chainrule._opdocs docs/ops.md

lint: $(VENV)/.test
	$(VENV)/bin/ruff check src tests bench examples
	$(VENV)/bin/ruff format --check src tests bench examples

format: $(VENV)/.test
	$(VENV)/bin/ruff format src tests bench examples
	$(VENV)/bin/ruff check --fix src tests bench examples

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .ruff_cache
