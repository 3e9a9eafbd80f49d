"""chainrule on CuPy against PyTorch on CUDA: three workloads, synchronized timings.

- the 4M-element expression ((x * 2 + 1).tanh() * x).sum(), forward and backward;
- a 4096x4096 matmul, forward and backward (both operands require grad);
- the LeNet train step (bench/run.py's CNN plus an SGD step) at batch 256.

Each library runs its own workload interleaved with the other's; a run is timed from a
synchronize to a synchronize (``perf_counter``, so each run's Python overhead counts, as it
does in training), and the table gives the best of ``--repeat`` runs and the ratio
chainrule / PyTorch (target: at most 1.2).

    PYTHONPATH=src python3 bench/gpu.py [--repeat 20] [--write]

On a machine without a GPU, ``CHAINRULE_CUDA=standin`` runs chainrule's side on the CPU
stand-in (and PyTorch's on the CPU): a check that the script runs, not a measurement.
``--write`` writes the table to docs/benchmarks-cuda.md.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import torch
from run import lenet as lenet_model  # bench/run.py: the CPU table's LeNet

import chainrule

TARGET = 1.2


def _devices() -> tuple[str, str]:
    if not chainrule.cuda.is_available():
        sys.exit("chainrule sees no CUDA device: install CuPy (chainrule[cuda]) on a GPU machine")
    return "cuda", "cuda" if torch.cuda.is_available() else "cpu"


def expression(lib, dev: str):
    x0 = lib.randn(4_000_000, device=dev)

    def run():
        x = x0.detach().requires_grad_()
        ((x * 2 + 1).tanh() * x).sum().backward()
        return x.grad

    return run


def matmul(lib, dev: str, n: int = 4096):
    a = lib.randn(n, n, device=dev, requires_grad=True)
    b = lib.randn(n, n, device=dev, requires_grad=True)

    def run():
        a.grad = b.grad = None
        (a @ b).sum().backward()
        return a.grad

    return run


def lenet(lib, dev: str, batch: int = 256):
    F = lib.nn.functional
    model = lenet_model(lib).to(dev)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = lib.randn(batch, 1, 28, 28).to(dev)
    target = lib.randint(0, 10, (batch,)).to(dev)

    def run():
        opt.zero_grad()
        F.cross_entropy(model(x), target).backward()
        opt.step()
        return model.conv1.weight.grad

    return run


def _sync(lib, dev: str) -> None:
    if dev == "cuda":
        lib.cuda.synchronize()


def race(ours, theirs, devs: tuple[str, str], repeat: int) -> tuple[float, float]:
    """The best time (ms) of each over ``repeat`` interleaved runs, after two warm-ups."""
    runs = ((chainrule, ours, devs[0]), (torch, theirs, devs[1]))
    for lib, fn, dev in runs:
        for _ in range(2):
            fn()
        _sync(lib, dev)
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for i, (lib, fn, dev) in enumerate(runs):
            _sync(lib, dev)
            t0 = time.perf_counter()
            fn()
            _sync(lib, dev)
            best[i] = min(best[i], (time.perf_counter() - t0) * 1e3)
    return best[0], best[1]


ROWS = [
    ("4M-element expression, fwd+bwd", expression),
    ("4096x4096 matmul, fwd+bwd", matmul),
    ("LeNet train step, batch 256", lenet),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--only", default="", help="run only the rows containing this")
    parser.add_argument("--write", action="store_true", help="write docs/benchmarks-cuda.md")
    args = parser.parse_args()
    devs = _devices()
    name = chainrule.cuda.get_device_name()
    import numpy

    mod = chainrule._backend.module_of_device("cuda")
    head = (
        f"chainrule on {mod.__name__} {getattr(mod, '__version__', '')} ({name}) vs PyTorch "
        f"{torch.__version__} on {devs[1]}; NumPy {numpy.__version__}, Python "
        f"{platform.python_version()}; best of {args.repeat}, synchronized"
    )
    lines = [
        head,
        "",
        "| workload | chainrule (ms) | PyTorch (ms) | ratio | target |",
        "|---|---:|---:|---:|---:|",
    ]
    print("\n".join(lines), flush=True)
    for label, make in ROWS:
        if args.only not in label:
            continue
        try:
            ours, theirs = make(chainrule, devs[0]), make(torch, devs[1])
            a, b = race(ours, theirs, devs, args.repeat)
            line = f"| {label} | {a:.2f} | {b:.2f} | {a / b:.2f}x | <= {TARGET}x |"
        except Exception as exc:  # noqa: BLE001 - a failing row is reported, the others run
            line = f"| {label} | failed: {type(exc).__name__}: {exc} | | | |"
        print(line, flush=True)
        lines.append(line)
    if args.write:
        out = Path(__file__).resolve().parent.parent / "docs" / "benchmarks-cuda.md"
        out.write_text(
            "# chainrule on CUDA (CuPy) against PyTorch CUDA\n\n"
            "`make bench-cuda` (bench/gpu.py); written with `--write`.\n\n"
            + "\n".join(lines)
            + "\n"
        )
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
