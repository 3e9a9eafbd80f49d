# The two commands a newcomer needs: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check -q
# Benchmarks are single-threaded, for chainrule, PyTorch and NumPy alike.
THREADS := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

.PHONY: demo test bench lint format docs clean browser test-cuda bench-cuda test-standin

$(VENV)/.base: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -e .
	touch $@

$(VENV)/.test: $(VENV)/.base
	$(PIP) install -e '.[test]'
	touch $@

demo: $(VENV)/.base
	$(VENV)/bin/chainrule demo

# the suite runs on JOBS processes (pytest-xdist); JOBS=0 runs it in this one
JOBS ?= 2

test: $(VENV)/.test browser
	$(PY) -m pytest -n $(JOBS) $(PYTEST_ARGS)

# tests/test_explain_browser.py loads the explain page in headless Chromium: Debian's
# chromium and chromium-driver, installed here when missing (as root, or through sudo).
CHROMIUM_BIN ?= /usr/bin/chromium
CHROMEDRIVER_BIN ?= /usr/bin/chromedriver
browser:
	@if [ ! -x $(CHROMIUM_BIN) ] || [ ! -x $(CHROMEDRIVER_BIN) ]; then \
	  echo "Installing Debian's chromium and chromium-driver for the browser tests"; \
	  SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	fi

# make bench BENCH_ARGS=--quick: about two minutes on a quiet machine
# Some machines set OPENBLAS_CORETYPE (and OPENBLAS_L2_SIZE) for older OpenBLAS builds; they
# hold NumPy's current OpenBLAS to older kernels than the processor runs (Haswell's on an
# AVX-512 one), slowing chainrule and the NumPy baseline but not PyTorch, which has its own
# kernels. The benchmarks run without them (tests and CI keep them); the table names the
# kernels OpenBLAS then chose.
BENCH_ENV := env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE

bench: $(VENV)/.test
	$(BENCH_ENV) $(THREADS) $(PY) bench/run.py $(BENCH_ARGS)
	$(THREADS) $(PY) bench/distributed.py

# On a GPU machine with CuPy and a CUDA PyTorch (no venv there: the image's python3 runs the
# sources): the op oracle tests on 'cuda' against PyTorch CUDA, and the cuda API tests.
CUDA_PYTHON ?= python3
CUDA_JOBS ?= 8
test-cuda:
	PYTHONPATH=src $(CUDA_PYTHON) -m pytest -p no:cacheprovider -p no:benchmark -n $(CUDA_JOBS) -rf \
	  -W "ignore:::cupy" -W "ignore:::cupyx" -W "ignore:::cupy_backends" \
	  tests/gpu tests/ops -k cuda $(PYTEST_ARGS)

# chainrule on CuPy against PyTorch CUDA (bench/gpu.py); BENCH_ARGS=--write writes
# docs/benchmarks-cuda.md
bench-cuda:
	PYTHONPATH=src $(CUDA_PYTHON) bench/gpu.py $(BENCH_ARGS)

# without a GPU: the same CUDA oracle tests with chainrule's 'cuda' on the CPU stand-in
test-standin: $(VENV)/.test
	CHAINRULE_CUDA=standin $(PY) -m pytest -n $(JOBS) -rf tests/gpu tests/ops -k cuda $(PYTEST_ARGS)

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
