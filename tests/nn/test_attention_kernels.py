"""``chainrule.nn.attention`` against ``torch.nn.attention``: ``sdpa_kernel`` (the math
kernel serves MATH and FLASH_ATTENTION, as on PyTorch's CPU build; none of them raises
PyTorch's error; the previous choice comes back on leaving), ``SDPBackend``, and the
causal masks of ``nn.attention.bias`` as ``attn_mask``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import chainrule as cr
from oracle import compare, error_of

Q = np.random.default_rng(0).standard_normal((1, 2, 3, 4))
K = np.random.default_rng(1).standard_normal((1, 2, 5, 4))


def _attention(lib, **kw):
    q, k = lib.tensor(Q, requires_grad=True), lib.tensor(K, requires_grad=True)
    out = lib.nn.functional.scaled_dot_product_attention(q, k, k, **kw)
    return out, lib.autograd.grad(out.sum(), (q, k))


@pytest.mark.parametrize(
    "backends",
    ["MATH", "FLASH_ATTENTION", ["FLASH_ATTENTION", "MATH"], ["EFFICIENT_ATTENTION", "MATH"]],
    ids=str,
)
def test_a_kernel_choice_with_the_math_kernel_computes_as_torch(backends):
    def run(lib):
        A = lib.nn.attention
        chosen = (
            getattr(A.SDPBackend, backends)
            if isinstance(backends, str)
            else [getattr(A.SDPBackend, b) for b in backends]
        )
        with A.sdpa_kernel(chosen, set_priority=True):
            return _attention(lib)

    compare(run, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("backends", ["CUDNN_ATTENTION", "EFFICIENT_ATTENTION", "ERROR"])
def test_no_kernel_that_serves_raises_as_torch_and_the_choice_ends_with_the_block(backends):
    def run(lib):
        A = lib.nn.attention
        with A.sdpa_kernel([getattr(A.SDPBackend, backends)]):
            _attention(lib)

    want, got = error_of(run, torch), error_of(run, cr)
    assert (type(got), str(got)) == (type(want), str(want))
    compare(lambda lib: _attention(lib)[0], rtol=1e-12)  # (every kernel back on)


def test_sdp_backend_and_argument_errors_as_torch():
    for name, member in torch.nn.attention.SDPBackend.__members__.items():
        ours = getattr(cr.nn.attention.SDPBackend, name)
        assert int(ours) == int(member) and repr(ours) == repr(member)
    fn = lambda lib: lib.nn.attention.sdpa_kernel("math").__enter__()  # noqa: E731
    want, got = error_of(fn, torch), error_of(fn, cr)
    assert (type(got), str(got)) == (type(want), str(want))


@pytest.mark.parametrize("variant", ["causal_upper_left", "causal_lower_right"])
def test_causal_bias_masks_as_torch(variant):
    def run(lib):
        from importlib import import_module

        bias = import_module(f"{lib.__name__}.nn.attention.bias")
        mask = getattr(bias, variant)(3, 5)
        return (
            mask._materialize(),
            (mask.seq_len_q, mask.seq_len_kv, int(mask.variant)),
            _attention(lib, attn_mask=mask),
        )

    compare(run, rtol=1e-12, atol=1e-13)
    want = error_of(lambda lib: getattr(lib.nn.attention.bias, variant)(3), torch)
    got = error_of(lambda lib: getattr(lib.nn.attention.bias, variant)(3), cr)
    assert (type(got), str(got)) == (type(want), str(want))


def test_causal_bias_is_a_tensor_subclass_answered_by_torch_function():
    def run(lib):
        import warnings

        bias = lib.nn.attention.bias
        upper, lower = bias.causal_upper_left(3, 5), bias.causal_lower_right(3, 5)
        square = bias.causal_lower_right(5, 5)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            bias.causal_lower_right(5, 3)
        try:
            _attention(lib, attn_mask=upper, is_causal=True)
        except ValueError as e:
            error = str(e)
        return [
            isinstance(upper, lib.Tensor),
            type(upper) is type(lower),
            tuple(upper.shape),
            repr(lower),
            _attention(lib, attn_mask=lower),
            _attention(lib, attn_mask=square),
            [str(w.message) for w in caught],
            error,
        ]

    compare(run, rtol=1e-12, atol=1e-13)
