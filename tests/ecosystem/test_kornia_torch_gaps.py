"""The PyTorch names kornia reaches for, against PyTorch: ``torch.torch``, the
``torch._check`` family and ``torch._assert_async``, ``torch.complex32``/``chalf``,
``torch.SymInt``/``SymFloat``/``SymBool``, ``torch._C._are_functorch_transforms_active``
and ``torch._C._functorch``'s queries, ``torch._subclasses.fake_tensor.is_fake`` and
``torch.fx.experimental.proxy_tensor.get_proxy_mode``, and the attention kernel switches
of ``torch.backends.cuda`` (kornia's LightGlue sets them), shared with
``torch.nn.attention.sdpa_kernel``.
"""

from __future__ import annotations

import pickle
import warnings

import pytest

import chainrule as cr
from oracle import assert_same_error

torch = pytest.importorskip("torch")


def test_torch_torch_is_the_module() -> None:
    assert torch.torch is torch
    assert cr.torch is cr
    assert cr.torch.Tensor is cr.Tensor


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t._check(False),
        lambda t: t._check(False, lambda: "custom text"),
        lambda t: t._check(False, None),
        lambda t: t._check(False, "not callable"),
        lambda t: t._check(t.tensor(False)),
        lambda t: t._check(1),
        lambda t: t._check_index(False, lambda: "index"),
        lambda t: t._check_value(False),
        lambda t: t._check_type(False, lambda: "type"),
        lambda t: t._check_not_implemented(False, lambda: "not implemented"),
        lambda t: t._check_tensor_all(t.tensor([True, False])),
        lambda t: t._check_tensor_all(t.tensor([True, False]), lambda: "some false"),
        lambda t: t._check_tensor_all(t.tensor([1, 0])),
        lambda t: t._check_tensor_all(True),
        lambda t: t._assert_async(t.tensor(False)),
        lambda t: t._assert_async(t.tensor(0.0), "zero given"),
        lambda t: t._assert_async(t.tensor(-0.0)),
        lambda t: t._assert_async(t.tensor(0j)),
        lambda t: t._assert_async(t.tensor([[0]]), "one element"),
        lambda t: t._assert_async(t.tensor([1, 2]), "ignored"),
        lambda t: t._assert_async(t.tensor([])),
        lambda t: t._assert_async(1),
    ],
)
def test_checks_raise_as_pytorch(call) -> None:
    assert_same_error(call)


def test_checks_pass() -> None:
    for t in (torch, cr):
        assert t._check(True) is None
        assert t._check_tensor_all(t.tensor([True, True])) is None
        assert t._assert_async(t.tensor(2.5)) is None
        assert t._assert_async(t.tensor(float("nan")), "nan is nonzero") is None
        assert t._assert_async(t.tensor([[3]])) is None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert t._check_is_size(3) is None
        assert [w.category for w in caught] == [FutureWarning]


def test_check_is_size_refuses_negative_and_over_max() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert_same_error(lambda t: t._check_is_size(-1))
        assert_same_error(lambda t: t._check_is_size(5, max=3))


def test_complex32_is_named_as_in_pytorch() -> None:
    for name in ("is_complex", "is_floating_point", "is_signed", "itemsize"):
        assert getattr(cr.complex32, name) == getattr(torch.complex32, name), name
    assert repr(cr.complex32) == repr(torch.complex32) == "torch.complex32"
    assert cr.chalf is cr.complex32
    assert cr.complex32.to_real() is cr.float16
    assert cr.complex32 != cr.complex64
    assert cr.complex32 in (cr.float32, cr.complex32)
    assert pickle.loads(pickle.dumps(cr.complex32)) is cr.complex32


def test_complex32_tensors_are_refused_clearly() -> None:
    with pytest.raises(NotImplementedError, match="complex32"):
        cr.empty(0, dtype=cr.complex32)
    with pytest.raises(NotImplementedError, match="complex32"):
        cr.zeros(2, dtype=cr.chalf)


def test_symbolic_classes() -> None:
    for name in ("SymInt", "SymFloat", "SymBool"):
        ours, theirs = getattr(cr, name), getattr(torch, name)
        assert ours.__name__ == theirs.__name__
        assert ours.__mro__[1:] == theirs.__mro__[1:] == (object,)
        for value in (3, 2.5, True, cr.tensor(1)):
            assert isinstance(value, ours) is isinstance(value, theirs) is False
        with pytest.raises(NotImplementedError, match="symbolic shapes"):
            ours(None)


@pytest.mark.parametrize("t", [torch, cr], ids=["torch", "chainrule"])
def test_functorch_transforms_active(t) -> None:
    assert t._C._are_functorch_transforms_active() is False
    x = t.ones(3)
    seen = t.func.vmap(lambda v: t.tensor(t._C._are_functorch_transforms_active()))(x)
    assert seen.tolist() == [True] * 3
    flags = []
    t.func.grad(lambda v: (flags.append(t._C._are_functorch_transforms_active()), v.sum())[1])(x)
    assert flags == [True]
    assert t._C._are_functorch_transforms_active() is False


def test_functorch_queries_on_plain_tensors() -> None:
    for t in (torch, cr):
        x = t.ones(2)
        f = t._C._functorch
        assert f.is_batchedtensor(x) is False
        assert f.is_legacy_batchedtensor(x) is False
        assert f.is_gradtrackingtensor(x) is False
        assert f.is_functionaltensor(x) is False
        assert f.maybe_get_level(x) == -1


def test_is_fake_and_proxy_mode() -> None:
    from torch._subclasses.fake_tensor import is_fake as theirs
    from torch.fx.experimental.proxy_tensor import get_proxy_mode as their_mode

    from chainrule._subclasses.fake_tensor import is_fake as ours
    from chainrule.fx.experimental.proxy_tensor import get_proxy_mode as our_mode

    assert ours(cr.ones(2)) is theirs(torch.ones(2)) is False
    assert ours(3) is theirs(3) is False
    assert our_mode() is their_mode() is None
    assert cr._subclasses.fake_tensor.is_fake is ours
    with pytest.raises(NotImplementedError, match="FakeTensorMode"):
        cr._subclasses.fake_tensor.FakeTensorMode  # noqa: B018
    with pytest.raises(NotImplementedError, match="make_fx"):
        cr.fx.experimental.proxy_tensor.make_fx  # noqa: B018


def _sdp_story(t) -> list:
    """What the attention switches say and do through a sequence of settings."""
    c = t.backends.cuda
    sdpa_kernel, backend = t.nn.attention.sdpa_kernel, t.nn.attention.SDPBackend
    q = t.ones(1, 2, 3, 4)

    def state() -> tuple:
        flags = (c.flash_sdp_enabled(), c.math_sdp_enabled(), c.mem_efficient_sdp_enabled())
        return (*flags, c.cudnn_sdp_enabled(), c.fp16_bf16_reduction_math_sdp_allowed())

    def attend() -> str:
        try:
            return str(tuple(t.nn.functional.scaled_dot_product_attention(q, q, q).shape))
        except RuntimeError as e:
            return str(e)

    story = [state(), c.is_flash_attention_available()]
    try:
        with sdpa_kernel(backend.MATH):
            story.append(state())
        with sdpa_kernel([backend.FLASH_ATTENTION, backend.CUDNN_ATTENTION]):
            story += [state(), attend()]
        c.enable_cudnn_sdp(False)
        with sdpa_kernel(backend.EFFICIENT_ATTENTION):
            story += [state(), attend()]
        story.append(state())
        c.enable_flash_sdp(False)
        story.append(attend())
        c.enable_math_sdp(False)
        story += [state(), attend()]
        c.enable_flash_sdp(True)
        story.append(attend())
        c.enable_math_sdp(True)
        c.allow_fp16_bf16_reduction_math_sdp(True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with c.sdp_kernel(enable_flash=False, enable_math=False):
                story += [state(), attend()]
        story += [[w.category for w in caught], state()]
        for switch in ("flash", "math", "mem_efficient", "cudnn"):
            try:
                getattr(c, f"enable_{switch}_sdp")(1)
            except RuntimeError as e:
                story.append(str(e))
        story.append(state())
    finally:
        for switch in ("flash", "math", "mem_efficient", "cudnn"):
            getattr(c, f"enable_{switch}_sdp")(True)
        c.allow_fp16_bf16_reduction_math_sdp(False)
    return story


def test_attention_kernel_switches() -> None:
    assert _sdp_story(cr) == _sdp_story(torch)
