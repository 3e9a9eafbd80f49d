"""torch.bfloat16: the dtype, its casts, creation, promotion, printing and the ops' boundary
(each op computes in float32 and rounds once), against PyTorch."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

import chainrule as cr

LIBS = (cr, torch)


def bits(t) -> list:
    """A bfloat16 tensor's bit patterns (int16), to compare roundings exactly."""
    return t.detach().view(cr.int16 if isinstance(t, cr.Tensor) else torch.int16).tolist()


def same(fn) -> None:
    """fn(lib) gives the same dtype, shape and values (bit for bit) in both libraries."""
    got, want = fn(cr), fn(torch)
    assert str(got.dtype) == str(want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    if str(want.dtype) == "torch.bfloat16":
        assert bits(got) == bits(want)
    else:
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())


def test_the_dtype_as_torch():
    b = cr.bfloat16
    assert repr(b) == "torch.bfloat16" and b.itemsize == 2
    assert b.is_floating_point and b.is_signed and not b.is_complex
    assert repr(cr.finfo(b)) == repr(torch.finfo(torch.bfloat16))
    for name in ("float16", "float32", "float64", "int64", "int8", "uint8", "bool", "complex64"):
        got = cr.promote_types(b, getattr(cr, name))
        assert str(got) == str(torch.promote_types(torch.bfloat16, getattr(torch, name)))
    assert cr.can_cast(cr.float32, b) and not cr.can_cast(b, cr.int32)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.zeros(2, 3, dtype=lib.bfloat16),
        lambda lib: lib.ones(2, dtype=lib.bfloat16),
        lambda lib: lib.full((2,), 1.1, dtype=lib.bfloat16),
        lambda lib: lib.arange(0, 300, 37, dtype=lib.bfloat16),
        lambda lib: lib.arange(0, 1, 0.3, dtype=lib.bfloat16),
        lambda lib: lib.linspace(0, 1, 5, dtype=lib.bfloat16),
        lambda lib: lib.logspace(0, 2, 3, dtype=lib.bfloat16),
        lambda lib: lib.eye(2, dtype=lib.bfloat16),
        lambda lib: lib.zeros_like(lib.ones(2), dtype=lib.bfloat16),
        lambda lib: lib.tensor([[1.1, 2], [3, 4]], dtype=lib.bfloat16),
        lambda lib: lib.tensor(3, dtype=lib.bfloat16),
        lambda lib: lib.tensor([True, False], dtype=lib.bfloat16),
        lambda lib: lib.ones(2, dtype=lib.bfloat16).new_tensor([1.1]),
        lambda lib: lib.tensor([1.5]).type(lib.BFloat16Tensor),
        lambda lib: lib.tensor([1.5]).type("torch.BFloat16Tensor"),
    ],
)
def test_creation_as_torch(make):
    same(make)


def test_casts_round_to_nearest_even_as_torch():
    """Ties to even, subnormals, the largest finite values, overflow to inf, nan, -0."""
    values = [1.00390625, 1.01171875, 1.0078125 + 2**-9, 1e-40, 1e-39, 3e38, 3.3895e38]
    values += [-0.0, float("inf"), -1e-45, 2.0**-133]
    same(lambda lib: lib.tensor(values).bfloat16())
    same(lambda lib: lib.tensor(values, dtype=lib.float64).to(lib.bfloat16))
    same(lambda lib: lib.tensor([257, 259, -1025]).bfloat16())
    nan = cr.tensor([float("nan")]).bfloat16()
    assert nan.isnan().item() and nan.dtype is cr.bfloat16
    same(lambda lib: lib.tensor([1.1, -2.7], dtype=lib.bfloat16).float())
    same(lambda lib: lib.tensor([1.1, -2.7], dtype=lib.bfloat16).double())
    same(lambda lib: lib.tensor([1.9, -2.7], dtype=lib.bfloat16).long())
    same(lambda lib: lib.tensor([1.1, -2.7], dtype=lib.bfloat16).half())


def test_storage_and_bit_views_as_torch():
    for lib in LIBS:
        x = lib.ones(2, 3, dtype=lib.bfloat16)
        assert (x.element_size(), x.nbytes, x.itemsize, x.t().stride()) == (2, 12, 2, (1, 3))
        assert x.is_floating_point()
    same(lambda lib: lib.tensor([1.1, 2.5, -3.3], dtype=lib.bfloat16).view(lib.int16))
    same(lambda lib: lib.tensor([16256, -16512], dtype=lib.int16).view(lib.bfloat16))
    same(lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float16).view(lib.bfloat16))


def test_numpy_is_refused_as_torch():
    for lib in LIBS:
        x = lib.ones(2, dtype=lib.bfloat16)
        with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
            x.numpy()
        with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
            np.asarray(x)
        assert (
            x.tolist() == [1.0, 1.0] and lib.tensor([1.1], dtype=lib.bfloat16).item() == 1.1015625
        )


def test_fill_values_checked_as_torch():
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="c10::BFloat16 without overflow"):
            lib.full((2,), 1e39, dtype=lib.bfloat16)
    same(lambda lib: lib.full((2,), 3.3e38, dtype=lib.bfloat16))


X = [1.1, 2.5, -3.3]


@pytest.mark.parametrize(
    "fn",
    [
        # a Python number is rounded to bfloat16 before the op, as PyTorch casts it
        lambda lib, x: x + 1.7,
        lambda lib, x: x * 257,
        lambda lib, x: x + lib.tensor(1.7),  # a 0-d float32 tensor: cast to bfloat16
        lambda lib, x: x + lib.tensor([1.7]),  # a dimensioned float32 one: float32 wins
        lambda lib, x: x + lib.ones(3, dtype=lib.float16),  # neither holds the other: float32
        lambda lib, x: lib.tensor([257, 1, 2]) + x,  # the int tensor rounded first
        lambda lib, x: x.exp(),
        lambda lib, x: (x * x).sum(),
        lambda lib, x: x.mean(),
        lambda lib, x: x.sum(dtype=lib.float32),  # the asked dtype, unrounded
        lambda lib, x: x.float().sum(dtype=lib.bfloat16),
        lambda lib, x: lib.relu(x),
        lambda lib, x: x.max(),
        lambda lib, x: x[1:],
        lambda lib, x: x.clamp(0, 2),
        lambda lib, x: x.sort().values,
        lambda lib, x: x.cumsum(0),
        lambda lib, x: lib.cat([x, x]),
        lambda lib, x: x == lib.tensor(X),
        lambda lib, x: x.reshape(3, 1) @ x.reshape(1, 3),
        lambda lib, x: lib.nn.functional.linear(
            x.reshape(1, 3), x.reshape(1, 3).expand(2, 3), x[:2]
        ),
    ],
)
def test_ops_compute_in_float32_and_round_once_as_torch(fn):
    same(lambda lib: fn(lib, lib.tensor(X, dtype=lib.bfloat16)))


def test_in_place_writes_round_as_torch():
    def steps(lib):
        x = lib.ones(3, dtype=lib.bfloat16)
        x.add_(0.001)
        x.mul_(lib.tensor([1.1, 1.2, 1.3]))
        x[0] = 3.3
        x[1:].copy_(lib.tensor([1.01, 1.02]))
        return x

    same(steps)

    def into_float32(lib):
        y = lib.tensor([1.01, 1.02, 1.03])
        return y.copy_(lib.tensor([1.01, 1.02, 1.03], dtype=lib.bfloat16))

    same(into_float32)


def test_gradients_are_bfloat16_as_torch():
    def grad(lib, f):
        a = lib.tensor([0.3, 0.7, 1.9], dtype=lib.bfloat16, requires_grad=True)
        f(a).sum().backward()
        return a.grad

    same(lambda lib: grad(lib, lambda a: a * a))
    same(lambda lib: grad(lib, lambda a: a.float() * 3))  # cast back to the leaf's dtype
    got, want = grad(cr, lambda a: a.sin() * a.exp()), grad(torch, lambda a: a.sin() * a.exp())
    assert got.dtype is cr.bfloat16
    # (the VJPs round per NumPy call, PyTorch per backward op: within a bfloat16 ulp)
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=2**-7)


def test_printing_as_torch():
    cases = [
        lambda lib: lib.tensor([1.1, 2.5, -3.3], dtype=lib.bfloat16),
        lambda lib: lib.tensor(1.1, dtype=lib.bfloat16),
        lambda lib: lib.tensor([1e10, 1e-10], dtype=lib.bfloat16),
        lambda lib: lib.tensor([[1e5, 1], [2, 3]], dtype=lib.bfloat16),
        lambda lib: lib.arange(0, 300, 37, dtype=lib.bfloat16),
        lambda lib: lib.tensor([1.0, 2.0], dtype=lib.bfloat16, requires_grad=True) * 2,
    ]
    for make in cases:
        assert repr(make(cr)) == repr(make(torch))


def test_without_ml_dtypes_bfloat16_names_the_extra():
    """ml_dtypes is an optional extra: chainrule imports without it, and the first use of
    bfloat16 raises the error that names it."""
    code = (
        "import sys; sys.modules['ml_dtypes'] = None\n"
        "import chainrule as cr\n"
        "print(cr.bfloat16, cr.finfo(cr.bfloat16).eps, cr.ones(2).sum().item())\n"
        "try:\n"
        "    cr.ones(2).bfloat16()\n"
        "except NotImplementedError as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines()[0] == "torch.bfloat16 0.0078125 2.0"
    assert "NotImplementedInChainrule" in out and "pip install 'chainrule[bfloat16]'" in out


def test_arrays_of_ml_dtypes_are_bfloat16_tensors():
    import ml_dtypes

    a = np.array([1.1, 2.0], dtype=ml_dtypes.bfloat16)
    t = cr.from_numpy(a)
    assert t.dtype is cr.bfloat16 and t.tolist() == [1.1015625, 2.0]


@pytest.mark.parametrize("s", [1.7, 257.0, 1 / 3])
@pytest.mark.parametrize(
    "fn",
    [
        lambda x, s: x + s,
        lambda x, s: s + x,
        lambda x, s: x - s,
        lambda x, s: s - x,
        lambda x, s: x * s,  # (mul and div read the number unrounded, as PyTorch's kernels)
        lambda x, s: x / s,
        lambda x, s: x.abs() ** s,
        lambda x, s: x.clamp(min=s),
    ],
)
def test_python_number_operands_as_torch(fn, s):
    same(lambda lib: fn(lib.tensor([1.1, 2.5, -3.3, 0.7, 100.3], dtype=lib.bfloat16), s))


def test_bfloat16_as_the_default_dtype_as_torch():
    for lib in LIBS:
        lib.set_default_dtype(lib.bfloat16)
        try:
            assert lib.tensor([1.1]).tolist() == [1.1015625]
            assert str(lib.randn(2).dtype) == str(lib.nn.Linear(2, 2).weight.dtype)
            assert str(lib.get_default_dtype()) == "torch.bfloat16"
            assert (lib.tensor([1, 2]) * 1.1).tolist() == [1.1015625, 2.203125]
            with pytest.raises(RuntimeError, match="invalid default scalar type for complex"):
                lib.tensor(1j)
        finally:
            lib.set_default_dtype(lib.float32)
        assert lib.tensor([1.5], dtype=lib.bfloat16).is_signed()


def test_assert_close_takes_bfloat16_as_torch():
    messages = []
    for lib in LIBS:
        a = lib.tensor([1.1, 2.2], dtype=lib.bfloat16)
        lib.testing.assert_close(a, a + 0.01)  # within bfloat16's rtol 1.6e-2
        with pytest.raises(AssertionError) as info:
            lib.testing.assert_close(a, a + 0.1)
        messages.append(str(info.value))
        assert lib.testing.make_tensor((2, 3), dtype=lib.bfloat16, device="cpu").dtype is (
            lib.bfloat16
        )
    assert messages[0] == messages[1]


def test_no_bfloat16_on_cuda_named():
    """CuPy has no bfloat16: on the CPU stand-in of 'cuda' (the code paths of CuPy's) a
    bfloat16 tensor on the device is refused with an error that says so; meta has it."""
    code = (
        "import chainrule as cr\n"
        "for f in (lambda: cr.ones(2, dtype=cr.bfloat16, device='cuda'),\n"
        "          lambda: cr.ones(2, device='cuda').bfloat16(),\n"
        "          lambda: cr.ones(2, dtype=cr.bfloat16).cuda()):\n"
        "    try:\n"
        "        f()\n"
        "    except TypeError as e:\n"
        "        print(e)\n"
        "print(cr.ones(2, device='meta').bfloat16().dtype)\n"
    )
    env = dict(__import__("os").environ, CHAINRULE_CUDA="standin")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.splitlines()
    assert (
        out[:3]
        == [
            "chainrule has no bfloat16 on 'cuda': CuPy has no bfloat16 dtype (a "
            "bfloat16 tensor lives on the CPU; cast it to float16 or float32 first)"
        ]
        * 3
    )
    assert out[3] == "torch.bfloat16"


def test_large_casts_on_the_bits_equal_ml_dtypes_casts():
    """From 2^12 (widening) and 2^16 (rounding) values the casts run on the bits
    (autograd/bfloat16.py): the same bits as ml_dtypes' casts, specials included."""
    import ml_dtypes

    from chainrule.autograd import bfloat16 as boundary

    cr.ones(1, dtype=cr.bfloat16)  # (loads the dtype)
    rng = np.random.default_rng(0)
    with np.errstate(over="ignore"):  # (some overflow to ±inf: specials too)
        a = rng.standard_normal(1 << 16) * 10.0 ** rng.integers(-40, 38, 1 << 16)
        a = a.astype(np.float32)
    specials = [np.nan, -np.nan, np.inf, -np.inf, 3.4e38, -3.4e38, -0.0, 0.0]
    specials += [1 + 2**-8, 1 + 3 * 2**-8, 2**-130, -(2**-133), 3.3895314e38]
    a[: len(specials)] = np.array(specials, np.float32)
    a[20:30] = np.frombuffer(np.array([0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x00008000,
                                       0x00018000, 0x3F80_8000, 0x3F81_8000, 0x7F7F_8000,
                                       0xFF7F_8000, 0x80008000], np.uint32).tobytes(),
                             np.float32)  # fmt: skip
    got = boundary.into(a, np.dtype(ml_dtypes.bfloat16))
    with np.errstate(invalid="ignore"):  # (ml_dtypes warns of a signalling nan's cast)
        want = a.astype(ml_dtypes.bfloat16)
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16))
    wide = boundary.widened_array(want)
    assert np.array_equal(wide.view(np.uint32), want.astype(np.float32).view(np.uint32))
