"""``torch.utils.cpp_extension`` on chainrule: the module imports (libraries import it to
try a compiled fast path), and every build or load raises, as PyTorch's CPU build does
without CUDA for CUDA sources (the same ``OSError``), and with a clear ``RuntimeError``
for C++ ones (chainrule has no libtorch to build against)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch.utils.cpp_extension as real

import chainrule.utils.cpp_extension as ours


def test_constants_as_on_a_machine_without_cuda() -> None:
    assert ours.CUDA_HOME is None and ours.ROCM_HOME is None
    assert ours.IS_HIP_EXTENSION is False
    assert (ours.IS_LINUX, ours.IS_MACOS, ours.IS_WINDOWS) == (
        real.IS_LINUX,
        real.IS_MACOS,
        real.IS_WINDOWS,
    )
    assert ours.is_ninja_available() == real.is_ninja_available()


@pytest.mark.skipif(real.CUDA_HOME is not None, reason="PyTorch's error needs no CUDA_HOME")
def test_cuda_sources_raise_pytorchs_error(tmp_path: Path) -> None:
    src = tmp_path / "kernel.cu"
    src.write_text("// empty\n")
    for lib in (ours, real):
        with pytest.raises(OSError, match="CUDA_HOME environment variable is not set") as e:
            lib.load("kernel", [str(src)], build_directory=str(tmp_path))
        assert type(e.value) is OSError
    with pytest.raises(OSError, match="CUDA_HOME"):
        ours.load_inline("k", "", cuda_sources="__global__ void f() {}")
    with pytest.raises(OSError, match="CUDA_HOME"):
        ours.CUDAExtension("k", [str(src)])


def test_missing_source_and_cpp_sources(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.cu")
    for lib in (ours, real):
        with pytest.raises(FileNotFoundError, match="No such file or directory"):
            lib.load("nope", [missing])
    src = tmp_path / "ext.cpp"
    src.write_text("int f() { return 1; }\n")
    with pytest.raises(RuntimeError, match="chainrule cannot build the C\\+\\+ extension 'ext'"):
        ours.load("ext", str(src))
    with pytest.raises(RuntimeError, match="no libtorch"):
        ours.load_inline("ext", "int f() { return 1; }")
    for make in (ours.CppExtension, ours.BuildExtension):
        with pytest.raises(RuntimeError, match="chainrule cannot build"):
            make("ext", [str(src)])
    with pytest.raises(RuntimeError, match="no libtorch"):
        ours.include_paths()
