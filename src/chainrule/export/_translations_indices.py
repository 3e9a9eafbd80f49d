"""Calls whose ATen operator gives several results, and a few more that PyTorch's export
writes in a form of their own (see ``_translations``): max pools with their indices
(``max_pool2d_with_indices``, read by ``getitem`` nodes), adaptive max pools (always
both results, the indices read or not), ``max_unpool1d/2d/3d`` (1-d through the 2-d
operator), ``embedding_bag`` (``embedding_bag.padding_idx``, a 2-d input flattened with
an ``arange`` of offsets), ``local_response_norm`` (an average pool of the squares),
``rand_like``/``randn_like`` and the matrix views ``mT``/``mH``/``H``; with the ATen
functions that run them (``INDICES_TABLE``) and their argument names (``INDICES_ARGS``).

A translation giving one result of an operator with several returns a ``Chain`` whose
``results`` name (link, item) pairs: the tensors the call gives read those ``getitem``
nodes."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import chainrule as torch
import chainrule.nn.functional as F

from ._translations_factories import factory_kwargs
from ._translations_more import PREV, Chain, Step, trim

Call = tuple[str, list, dict]
Tensor = torch.Tensor

# the first results of the only link, the values then the indices (a call giving one
# tensor reads the values alone)
_BOTH = [(0, 0), (0, 1)]


def _n(value: Any, n: int) -> list:
    """An int or sequence as a list of ``n`` ints (``2`` -> ``[2, 2]``)."""
    return [value] * n if isinstance(value, int) else list(value)


_MAX_POOL = inspect.Signature(
    [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default)
        for name, default in [
            ("input", inspect.Parameter.empty),
            ("kernel_size", inspect.Parameter.empty),
            ("stride", None),
            ("padding", 0),
            ("dilation", 1),
            ("ceil_mode", False),
            ("return_indices", False),
        ]
    ]
)


def _max_pool(n: int, plain: Callable[..., Any] | None) -> Callable[..., Any]:
    """``max_pool{n}d``: with ``return_indices``, ``max_pool{n}d_with_indices`` (values
    and indices); else ``plain``, the translation without indices (None: always with
    indices, ``F.max_pool{n}d_with_indices``)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        given = _MAX_POOL.bind(*args, **kwargs)
        given.apply_defaults()
        a = given.arguments
        if plain is not None and not a["return_indices"]:
            return plain(*args, **kwargs)
        strides = [] if a["stride"] is None else _n(a["stride"], n)
        head = [a["input"], _n(a["kernel_size"], n), strides, _n(a["padding"], n)]
        full = head + [_n(a["dilation"], n), a["ceil_mode"]]
        return f"max_pool{n}d_with_indices.default", trim(full, [[], [0] * n, [1] * n, False]), {}

    return call


def _adaptive_max_pool(n: int) -> Callable[..., Chain]:
    """``adaptive_max_pool{n}d``: the operator gives values and indices either way (a
    ``None`` output size is the input's size there)."""

    def call(input: Any, output_size: Any, return_indices: bool = False) -> Chain:
        sizes = _n(output_size, n)
        sizes = [int(input.shape[d - n]) if s is None else s for d, s in enumerate(sizes)]
        return Chain([(f"adaptive_max_pool{n}d.default", [input, sizes], {})], _BOTH)

    return call


def _unpool_size(input: Any, n: int, kernel: Any, stride: Any, padding: Any, given: Any) -> list:
    """The output's last ``n`` sizes: ``output_size`` (without its batch and channel
    sizes), else each window placed back at its stride."""
    if given is not None:
        sizes = [int(s) for s in given]
        return sizes[2:] if len(sizes) == n + 2 else sizes
    shape = input.shape[-n:]
    return [(int(h) - 1) * s + k - 2 * p for h, k, s, p in zip(shape, kernel, stride, padding)]


def _max_unpool(n: int) -> Callable[..., Any]:
    """``max_unpool{n}d``: the 2-d and 3-d operators with the output size (3-d: with its
    stride and padding); 1-d as 2-d with a last dim of one."""

    def call(input: Any, indices: Any, kernel_size: Any, stride: Any = None,
             padding: Any = 0, output_size: Any = None) -> Any:  # fmt: skip
        kernel = _n(kernel_size, n)
        strides = kernel if stride is None else _n(stride, n)
        pads = _n(padding, n)
        sizes = _unpool_size(input, n, kernel, strides, pads, output_size)
        if n == 3:
            return "max_unpool3d.default", [input, indices, sizes, strides, pads], {}
        if n == 2:
            return "max_unpool2d.default", [input, indices, sizes], {}
        return Chain([
            ("unsqueeze.default", [input, -1], {}),
            ("unsqueeze.default", [indices, -1], {}),
            ("max_unpool2d.default", [Step(0), Step(1), sizes + [1]], {}),
            ("squeeze.dim", [PREV, -1], {}),
        ])  # fmt: skip

    return call


def _local_response_norm(input: Any, size: int, alpha: float = 1e-4, beta: float = 0.75,
                         k: float = 1.0) -> Any:  # fmt: skip
    """``x / (k + alpha * mean of the squares over size channels)^beta``: the squares
    padded and averaged along the channels (a 2-d pool of a 3-d input, else a 3-d pool
    of the input viewed as (N, 1, C, H, rest))."""
    if input.numel() == 0:
        return []  # (the input itself)
    before, after = size // 2, (size - 1) // 2
    calls: list = [("mul.Tensor", [input, input], {})]
    if input.dim() == 3:
        calls += [
            ("unsqueeze.default", [PREV, 1], {}),
            ("pad.default", [PREV, [0, 0, before, after]], {}),
            ("avg_pool2d.default", [PREV, [size, 1], [1, 1]], {}),
            ("squeeze.dim", [PREV, 1], {}),
        ]
    else:
        shape = [int(s) for s in input.shape]
        calls += [
            ("view.default", [PREV, [shape[0], 1, shape[1], shape[2], -1]], {}),
            ("pad.default", [PREV, [0, 0, 0, 0, before, after]], {}),
            ("avg_pool3d.default", [PREV, [size, 1, 1], [1, 1, 1]], {}),
            ("squeeze.dim", [PREV, 1], {}),
            ("view.default", [PREV, shape], {}),
        ]
    return Chain(calls + [
        ("mul.Tensor", [PREV, alpha], {}),
        ("add.Tensor", [PREV, k], {}),
        ("pow.Tensor_Scalar", [PREV, beta], {}),
        ("div.Tensor", [input, PREV], {}),
    ])  # fmt: skip


_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


def _embedding_bag(input: Any, weight: Any, offsets: Any = None, max_norm: Any = None,
                   norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean",
                   sparse: bool = False, per_sample_weights: Any = None,
                   include_last_offset: bool = False, padding_idx: Any = None) -> Chain:  # fmt: skip
    """``embedding_bag.padding_idx`` with every argument, reading its first result; a
    2-d input is flattened, its offsets an ``arange`` of its rows' starts."""
    if weight.dtype == torch.int64 and input.is_floating_point():
        weight, input = input, weight  # (the deprecated order, which PyTorch swaps)
    if max_norm is not None:
        raise NotImplementedError(
            "chainrule.export cannot export embedding_bag with max_norm yet (PyTorch's "
            "export renormalizes the weight in place first); renormalize before exporting"
        )
    calls: list = []
    if input.dim() == 2:
        starts = [0, int(input.numel()), int(input.shape[1])]
        calls.append(("arange.start_step", starts, factory_kwargs(input.dtype)))
        calls.append(("reshape.default", [input, [-1]], {}))
        offsets, input, include_last_offset = Step(0), Step(1), False
        if per_sample_weights is not None:
            calls.append(("reshape.default", [per_sample_weights, [-1]], {}))
            per_sample_weights = Step(2)
    args = [weight, input, offsets, scale_grad_by_freq, _BAG_MODES[mode], sparse]
    args += [per_sample_weights, include_last_offset, padding_idx]
    calls.append(("embedding_bag.padding_idx", args, {}))
    return Chain(calls, [(len(calls) - 1, 0)])


def _random_like(op: str) -> Callable[..., Call]:
    def call(input: Any, *, dtype: Any = None, **_: Any) -> Call:
        kwargs = {} if dtype is None else {"dtype": dtype}
        return f"{op}.default", [input], {**kwargs, "pin_memory": False}

    return call


def indices_translations(plain: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """This module's translations; the max pools fall back on ``plain``'s without
    indices."""
    return {
        **{f"max_pool{n}d": _max_pool(n, plain[f"max_pool{n}d"]) for n in (1, 2, 3)},
        **{f"max_pool{n}d_with_indices": _max_pool(n, None) for n in (1, 2, 3)},
        **{f"adaptive_max_pool{n}d": _adaptive_max_pool(n) for n in (1, 2, 3)},
        **{f"adaptive_max_pool{n}d_with_indices": _adaptive_max_pool(n) for n in (1, 2, 3)},
        **{f"max_unpool{n}d": _max_unpool(n) for n in (1, 2, 3)},
        "local_response_norm": _local_response_norm,
        "embedding_bag": _embedding_bag,
        "rand_like": _random_like("rand_like"),
        "randn_like": _random_like("randn_like"),
        "mT.__get__": lambda input: ("mT.default", [input], {}),
        "mH.__get__": lambda input: ("mH.default", [input], {}),
        "H.__get__": lambda input: ("matrix_H.default", [input], {}),
    }


def _max_pool_run(n: int) -> Callable[..., tuple]:
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[n]

    def run(self: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
            dilation: Any = 1, ceil_mode: bool = False) -> tuple:  # fmt: skip
        strides = list(stride) if stride else None
        return tuple(pool(self, kernel_size, strides, padding, dilation, ceil_mode, True))

    return run


def _adaptive_max_run(n: int) -> Callable[..., tuple]:
    pool = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d, 3: F.adaptive_max_pool3d}[n]
    return lambda self, output_size: tuple(pool(self, list(output_size), return_indices=True))


def _unpool_run(n: int) -> Callable[..., Tensor]:
    from ..api.parsers.pooling import _max_unpool as unpool

    return lambda self, indices, output_size, *_: unpool(n, self, indices, list(output_size))


def _random_like_run(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    return lambda self, *, dtype=None, **_: fn(self, dtype=dtype)


INDICES_TABLE: dict[str, Callable] = {
    "max_pool1d_with_indices.default": _max_pool_run(1),
    "max_pool2d_with_indices.default": _max_pool_run(2),
    "max_pool3d_with_indices.default": _max_pool_run(3),
    **{f"adaptive_max_pool{n}d.default": _adaptive_max_run(n) for n in (1, 2, 3)},
    "max_unpool2d.default": _unpool_run(2),
    "max_unpool3d.default": _unpool_run(3),
    "embedding_bag.padding_idx": lambda *args: tuple(torch.embedding_bag(*args)),
    "rand_like.default": _random_like_run(torch.rand_like),
    "randn_like.default": _random_like_run(torch.randn_like),
    "mT.default": lambda self: self.mT,
    "mH.default": lambda self: self.mH,
    "matrix_H.default": lambda self: self.H,
}

INDICES_ARGS: dict[str, str] = {
    "max_pool1d_with_indices.default": "self kernel_size stride padding dilation ceil_mode",
    "adaptive_max_pool1d.default": "self output_size",
    "adaptive_max_pool3d.default": "self output_size",
    "max_unpool2d.default": "self indices output_size",
    "max_unpool3d.default": "self indices output_size stride padding",
    "embedding_bag.padding_idx": (
        "weight indices offsets scale_grad_by_freq mode sparse per_sample_weights "
        "include_last_offset padding_idx"
    ),
    "rand_like.default": "self",
    "randn_like.default": "self",
    "mT.default": "self",
    "mH.default": "self",
    "matrix_H.default": "self",
}
