"""The PyTorch pieces tensordict and torchrl reach for, each against the real PyTorch:
``torch.from_file``, ``Tensor(t)`` of a tensor (an alias), ``copy_`` of a number,
``argmax`` of a 1-D tensor along a dim, the quantized dtypes' names, the DataLoader
worker's ``_generate_state``, ``torch.utils._contextlib``'s decorator context managers,
``swap_tensor``, ``torch._functorch.vmap``'s helpers, ``Parameter``'s ``_is_param``
check, vmap over a tensor-like and functorch's ``make_functional``."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import chainrule as cr
from oracle import assert_same_error

torch = pytest.importorskip("torch")


def test_from_file_shared_and_private(tmp_path) -> None:
    for lib in (torch, cr):
        path = tmp_path / f"{lib.__name__}.bin"
        t = lib.from_file(str(path), shared=True, size=4, dtype=lib.float32)
        assert path.stat().st_size == 16 and t.tolist() == [0.0] * 4
        t[1] = 3.0  # (written to the file)
        assert np.frombuffer(path.read_bytes(), np.float32).tolist() == [0, 3, 0, 0]
        p = lib.from_file(str(path), shared=False, size=4, dtype=lib.float32)
        p[0] = 9.0  # (a private copy)
        assert p.tolist() == [9, 3, 0, 0] and path.read_bytes()[:4] == b"\0\0\0\0"
        longer = lib.from_file(str(path), shared=True, size=6, dtype=lib.float32)
        assert longer.tolist() == [0, 3, 0, 0, 0, 0] and path.stat().st_size == 24
        assert lib.from_file(str(path), size=0).shape == (0,)
    assert_same_error(lambda lib: lib.from_file(str(tmp_path / "x.bin"), size=2))
    big = str(tmp_path / "torch.bin")
    assert_same_error(lambda lib: lib.from_file(big, shared=False, size=100))


def test_tensor_of_tensor_is_alias() -> None:
    for lib in (torch, cr):

        class Sub(lib.Tensor):
            pass

        a = lib.arange(3)
        t = lib.Tensor(a)
        assert t.dtype == lib.int64
        a[0] = 7
        assert t.tolist() == [7, 1, 2]
        b = lib.ones(2, requires_grad=True)
        s = Sub(b * 2)
        assert type(s) is Sub and s.requires_grad and type(s.grad_fn).__name__ == "AliasBackward0"


def test_copy_of_number() -> None:
    for lib in (torch, cr):
        t = lib.zeros((), dtype=lib.int64)
        assert t.copy_(5).item() == 5
        f = lib.zeros(3)
        assert f.copy_(2.5).tolist() == [2.5] * 3
        assert f.copy_(True).tolist() == [1.0] * 3
    assert_same_error(lambda lib: lib.zeros(2).copy_("a"))


def test_argmax_of_1d_along_dim() -> None:
    x = cr.tensor([0, 3, 1])
    out = x.argmax(-1)
    assert isinstance(out.numpy(), np.ndarray) and out.item() == 1
    assert repr(out) == repr(torch.tensor([0, 3, 1]).argmax(-1))
    assert cr.tensor([2.0, 1.0]).argmin(0).numpy().shape == ()


def test_quantized_dtypes() -> None:
    for name in ("qint8", "quint8", "qint32", "quint4x2", "quint2x4"):
        ours, theirs = getattr(cr, name), getattr(torch, name)
        assert repr(ours) == repr(theirs) and ours.itemsize == theirs.itemsize
        assert ours.is_floating_point is False and ours.is_complex is False
        assert_same_error(lambda lib, n=name: getattr(lib, n).is_signed)
        assert_same_error(lambda lib, n=name: getattr(lib, n).to_complex())
    with pytest.raises(NotImplementedError, match="quantized"):
        cr.zeros(2, dtype=cr.qint8)


def test_generate_state() -> None:
    ours = importlib.import_module("chainrule.utils.data._utils.worker")._generate_state
    from torch.utils.data._utils.worker import _generate_state

    for base, worker in [(0, 0), (12345, 3), (2**40 + 17, 1), (2**64 - 1, 7)]:
        assert ours(base, worker) == _generate_state(base, worker)


def _decorator_log(mod) -> list:
    """What a _DecoratorContextManager subclass of ``mod`` logs around a function, a
    generator and a bare (no-parentheses) use."""
    log: list = []

    class Mode(mod._DecoratorContextManager):
        def __enter__(self) -> None:
            log.append("in")

        def __exit__(self, *exc: object) -> None:
            log.append("out")

    @Mode()
    def f(x: int) -> int:
        log.append(x)
        return x + 1

    @Mode()
    def gen():
        log.append((yield 1))
        yield 2

    log.append(f(1))
    g = gen()
    log.append(next(g))
    log.append(g.send("s"))
    g.close()

    class Bare(mod._NoParamDecoratorContextManager):
        def __enter__(self) -> None:
            log.append("bare")

        def __exit__(self, *exc: object) -> None:
            log.append("done")

    @Bare
    def h() -> int:
        return 3

    log.append(h())
    with pytest.raises(RuntimeError, match="Cannot decorate classes"):
        mod.context_decorator(lambda: Bare(), type("C", (), {}))
    return log


def test_decorator_context_manager() -> None:
    import torch.utils._contextlib as theirs

    ours = importlib.import_module("chainrule.utils._contextlib")
    want = _decorator_log(theirs)
    assert len(want) > 10
    assert _decorator_log(ours) == want


def test_swap_tensor() -> None:
    from torch.nn.utils import _named_member_accessor as theirs

    ours = importlib.import_module("chainrule.nn.utils._named_member_accessor")
    for lib, mod in ((torch, theirs), (cr, ours)):
        m = lib.nn.Linear(2, 3)
        w = m.weight
        new = lib.zeros(3, 2)
        assert mod.swap_tensor(m, "weight", new) is w
        assert m._parameters["weight"] is new  # (as it is, not made a Parameter)
        acc = mod.NamedMemberAccessor(lib.nn.Sequential(m))
        assert acc.get_tensor("0.weight") is new
    assert_same_error(
        lambda lib: (theirs if lib is torch else ours).swap_tensor(lib.nn.Linear(1, 1), "a.b", None)
    )


def test_functorch_vmap_helpers() -> None:
    from torch._functorch import vmap as theirs
    from torch.utils import _pytree

    ours = importlib.import_module("chainrule._functorch.vmap")
    ours_pytree = importlib.import_module("chainrule.utils._pytree")
    tree = (1, [2, 3])
    for prefix in (0, (0, [1, None]), (0, 1), (0, [1])):
        want = theirs._broadcast_to_and_flatten(prefix, _pytree.tree_flatten(tree)[1])
        got = ours._broadcast_to_and_flatten(prefix, ours_pytree.tree_flatten(tree)[1])
        assert got == want, prefix
    x = np.arange(6.0).reshape(2, 3)
    want = theirs._maybe_remove_batch_dim("f", torch.tensor(x), 1, 4, 0)
    got = ours._maybe_remove_batch_dim("f", cr.tensor(x), 1, 4, 0)
    assert got.shape == want.shape and got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert_same_error(
        lambda lib: (theirs if lib is torch else ours)._maybe_remove_batch_dim("f", 3, 1, 4, 0)
    )


def test_parameter_instancecheck() -> None:
    for lib in (torch, cr):
        t = lib.zeros(2)
        assert not isinstance(t, lib.nn.Parameter)
        t._is_param = True
        assert isinstance(t, lib.nn.Parameter)

        class P(lib.nn.Parameter):
            pass

        assert not isinstance(t, P)
        assert type(lib.nn.Parameter).__name__ == "_ParameterMeta"


def test_make_functional() -> None:
    import functorch

    ours = importlib.import_module("chainrule.functorch")
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    results = []
    for lib, ft in ((torch, functorch), (cr, ours)):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Tanh())
        state = {
            k: lib.tensor(np.full(tuple(v.shape), 0.1 * (i + 1), np.float32))
            for i, (k, v) in enumerate(model.state_dict().items())
        }
        model.load_state_dict(state)
        with pytest.warns(FutureWarning, match="functorch.make_functional. is deprecated"):
            fmodel, params = ft.make_functional(model)
        assert fmodel.param_names == ("0.weight", "0.bias")
        doubled = [p * 2 for p in params]
        out = fmodel(doubled, lib.tensor(x))
        out.sum().backward()
        results.append((out.detach().numpy(), params[0].grad.numpy()))
        with pytest.warns(FutureWarning):
            fb, pb, bb = ft.make_functional_with_buffers(lib.nn.BatchNorm1d(3))
        assert fb.buffer_names == ("running_mean", "running_var", "num_batches_tracked")
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6)


class _TensorLike:
    """A tensor-like without the batching hooks of tensordict's collections."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented

    def dim(self) -> int:
        return 1


def test_vmap_refuses_plain_tensor_likes() -> None:
    assert_same_error(lambda lib: lib.vmap(lambda t: t)(_TensorLike()))
