#!/usr/bin/env bash
# The one GPU run (issue 14): run from the repository root on a machine with an NVIDIA GPU,
# CuPy and a CUDA PyTorch (no venv, no network needed). Writes to $OUT (default ./gpu-out):
#   cuda_env.log    nvidia-smi, versions, what chainrule.cuda sees
#   cuda_tests.log  the cuda API tests and the op oracle tests on 'cuda' against PyTorch CUDA
#   cuda_bench.log  bench/gpu.py (the table is also bench-cuda.md)
# Budget: about 6 minutes (tests stopped at TEST_S seconds, the bench at BENCH_S).
set -u
OUT=${OUT:-gpu-out}
PY=${PYTHON:-python3}
TEST_S=${TEST_S:-230}
BENCH_S=${BENCH_S:-100}
JOBS=${JOBS:-8}
mkdir -p "$OUT"
export PYTHONPATH=src
export CUPY_CACHE_DIR=${CUPY_CACHE_DIR:-/tmp/cupy-cache}

{
  date -u
  nvidia-smi || true
  $PY - <<'PY'
import sys, numpy, torch
print("python", sys.version.split()[0], "numpy", numpy.__version__, "torch", torch.__version__,
      "torch.cuda", torch.cuda.is_available())
try:
    import cupy
    print("cupy", cupy.__version__, "devices", cupy.cuda.runtime.getDeviceCount())
except Exception as exc:
    print("cupy import failed:", type(exc).__name__, exc)
import chainrule
print("chainrule.cuda.is_available", chainrule.cuda.is_available())
if chainrule.cuda.is_available():
    print("device", chainrule.cuda.get_device_name())
    x = chainrule.randn(3, device="cuda", requires_grad=True)
    (x * 2).sum().backward()
    print("smoke:", x.grad)
PY
} > "$OUT/cuda_env.log" 2>&1
cat "$OUT/cuda_env.log"

# the bench first (its numbers are what the issue asks for), then the tests
timeout -s INT "$BENCH_S" $PY bench/gpu.py --repeat 10 > "$OUT/cuda_bench.log" 2>&1
echo "bench exit: $?" >> "$OUT/cuda_bench.log"
grep '^|\|^chainrule' "$OUT/cuda_bench.log" > "$OUT/bench-cuda.md"
cat "$OUT/cuda_bench.log"

# the cuda API tests first (quick), then the op oracle tests' CUDA cases; SIGINT at the
# deadline makes pytest stop and still print its summary of failures
# (CuPy's own warnings are not errors here: -W ignore for its modules)
timeout -s INT "$TEST_S" $PY -m pytest -p no:cacheprovider -p no:benchmark -n "$JOBS" -rf -o faulthandler_timeout=60 \
  -W "ignore:::cupy" -W "ignore:::cupyx" -W "ignore:::cupy_backends" \
  tests/gpu tests/ops -k cuda > "$OUT/cuda_tests.log" 2>&1
echo "tests exit: $?" >> "$OUT/cuda_tests.log"
tail -n 5 "$OUT/cuda_tests.log"
grep -c '^FAILED' "$OUT/cuda_tests.log" | sed 's/^/failed tests: /'
