"""How a torch-level call recorded by ``export`` is written as an ATen overload call, in
the form PyTorch's training-IR export writes it: each entry takes the call's arguments
(PyTorch's torch-level signature) and gives the overload and its arguments, trailing
arguments equal to the schema's defaults left out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._data_dependent import DATA_DEPENDENT
from ._translations_attention import canonical_mask, multi_head_attention_forward
from ._translations_casts import CASTS
from ._translations_direct import DIRECT, OVERRIDES
from ._translations_extra import EXTRA
from ._translations_indices import indices_translations
from ._translations_losses import LOSSES
from ._translations_more import MORE, trim
from ._translations_resample import interpolate
from ._translations_sorting import SORTING
from ._translations_transformer import TRANSFORMER
from ._unique import condition_only

Call = tuple[str, list, dict]


def _n(value: Any, n: int) -> list:
    """An int or sequence as a list of ``n`` ints (``2`` -> ``[2, 2]``)."""
    return [value] * n if isinstance(value, int) else list(value)


def _dims(dim: Any) -> list:
    return [dim] if isinstance(dim, int) else list(dim)


def _sizes(size: tuple) -> list:
    if len(size) == 1 and not isinstance(size[0], int):
        return [s if isinstance(s, int) else int(s) for s in size[0]]
    return [s if isinstance(s, int) else int(s) for s in size]


def _unary(op: str) -> Callable[..., Call]:
    return lambda input, *_, **__: (f"{op}.default", [input], {})


def _binary(op: str, swap: bool = False) -> Callable[..., Call]:
    def call(input: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Call:
        kwargs = {} if alpha == 1 else {"alpha": alpha}
        return f"{op}.Tensor", [input, other], kwargs

    return call


def _rsub(input: Any, other: Any) -> Call:
    return "rsub.Scalar", [input, other], {}


def _pow(input: Any, exponent: Any) -> Call:
    from chainrule import Tensor

    overload = "Tensor_Tensor" if isinstance(exponent, Tensor) else "Tensor_Scalar"
    return f"pow.{overload}", [input, exponent], {}


def _reduction(op: str) -> Callable[..., Call]:
    def call(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Call:
        kwargs = {} if dtype is None else {"dtype": dtype}
        if dim is None:
            return f"{op}.default", [input], kwargs
        overload = "dim_IntList" if op == "sum" else "dim"
        return f"{op}.{overload}", trim([input, _dims(dim), keepdim], [False]), kwargs

    return call


def _softmax(op: str) -> Callable[..., Call]:
    def call(input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Call:
        return f"{op}.int", trim([input, dim, dtype], [None]), {}

    return call


def _linear(input: Any, weight: Any, bias: Any = None) -> Call:
    return "linear.default", trim([input, weight, bias], [None]), {}


def _conv(n: int) -> Callable[..., Call]:
    def call(
        input: Any,
        weight: Any,
        bias: Any = None,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
    ) -> Call:
        if isinstance(padding, str):
            args = [input, weight, bias, _n(stride, n), padding, _n(dilation, n), groups]
            return f"conv{n}d.padding", trim(args, [None, [1] * n, "valid", [1] * n, 1]), {}
        args = [input, weight, bias, _n(stride, n), _n(padding, n), _n(dilation, n), groups]
        return f"conv{n}d.default", trim(args, [None, [1] * n, [0] * n, [1] * n, 1]), {}

    return call


def _max_pool2d(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Call:
    if return_indices:
        raise NotImplementedError("chainrule.export cannot export max_pool2d with indices")
    kernel = _n(kernel_size, 2)
    strides = [] if stride is None else _n(stride, 2)
    args = [input, kernel, strides, _n(padding, 2), _n(dilation, 2), ceil_mode]
    return "max_pool2d.default", trim(args, [[], [0, 0], [1, 1], False]), {}


def _avg_pool2d(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Call:
    kernel = _n(kernel_size, 2)
    strides = [] if stride is None else _n(stride, 2)
    args = [input, kernel, strides, _n(padding, 2), ceil_mode, count_include_pad, divisor_override]
    return "avg_pool2d.default", trim(args, [[], [0, 0], False, True, None]), {}


def _adaptive_avg_pool2d(input: Any, output_size: Any) -> Call:
    return "adaptive_avg_pool2d.default", [input, _n(output_size, 2)], {}


def _batch_norm(
    input: Any,
    running_mean: Any,
    running_var: Any,
    weight: Any = None,
    bias: Any = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Call:
    args = [input, weight, bias, running_mean, running_var, training, momentum, eps, False]
    return "batch_norm.default", args, {}


def _layer_norm(
    input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5
) -> Call:
    # PyTorch's F.layer_norm passes every argument (cudnn off on CPU)
    return "layer_norm.default", [input, _n(normalized_shape, 1), weight, bias, eps, False], {}


def _dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Call:
    return "dropout.default", [input, p, training], {}


def _gelu(input: Any, approximate: str = "none") -> Call:
    return "gelu.default", [input], {} if approximate == "none" else {"approximate": approximate}


def _embedding(input: Any, weight: Any, padding_idx: int | None = None, *_: Any, **__: Any) -> Call:
    args = [weight, input] + ([] if padding_idx is None else [padding_idx])
    return "embedding.default", args, {}


def _view(op: str) -> Callable[..., Call]:
    return lambda input, *size: (f"{op}.default", [input, _sizes(size)], {})


def _flatten(input: Any, start_dim: int = 0, end_dim: int = -1) -> Call:
    return "flatten.using_ints", trim([input, start_dim, end_dim], [0, -1]), {}


def _transpose(input: Any, dim0: int, dim1: int) -> Call:
    return "transpose.int", [input, dim0, dim1], {}


def _permute(input: Any, *dims: Any) -> Call:
    return "permute.default", [input, _sizes(dims)], {}


def _unsqueeze(input: Any, dim: int) -> Call:
    return "unsqueeze.default", [input, dim], {}


def _squeeze(input: Any, dim: Any = None) -> Call:
    if dim is None:
        return "squeeze.default", [input], {}
    if isinstance(dim, int):
        return "squeeze.dim", [input, dim], {}
    return "squeeze.dims", [input, list(dim)], {}


def _join(op: str) -> Callable[..., Call]:
    return lambda tensors, dim=0: (f"{op}.default", trim([list(tensors), dim], [0]), {})


def _contiguous(input: Any, memory_format: Any = None) -> Call:
    return "contiguous.default", [input], {}


def _clone(input: Any, *, memory_format: Any = None) -> Call:
    return "clone.default", [input], {}


_UNARY = """relu sigmoid tanh exp log sqrt rsqrt abs sin cos neg log1p expm1 reciprocal
silu""".split()

TRANSLATIONS: dict[str, Callable[..., Call]] = {
    **{name: _unary(name) for name in _UNARY},
    "__neg__": _unary("neg"),
    "t": lambda input: ("t.default", [input], {}),
    "add": _binary("add"),
    "add_": lambda input, other, *, alpha=1: (
        "add_.Tensor",
        [input, other],
        {} if alpha == 1 else {"alpha": alpha},
    ),
    "__add__": _binary("add"),
    "__radd__": _binary("add"),
    "sub": _binary("sub"),
    "__sub__": _binary("sub"),
    "__rsub__": _rsub,
    "mul": _binary("mul"),
    "__mul__": _binary("mul"),
    "__rmul__": _binary("mul"),
    "div": _binary("div"),
    "__truediv__": _binary("div"),
    "pow": _pow,
    "__pow__": _pow,
    "matmul": lambda input, other: ("matmul.default", [input, other], {}),
    "__matmul__": lambda input, other: ("matmul.default", [input, other], {}),
    "mm": lambda input, mat2: ("mm.default", [input, mat2], {}),
    "bmm": lambda input, mat2: ("bmm.default", [input, mat2], {}),
    "sum": _reduction("sum"),
    "mean": _reduction("mean"),
    "softmax": _softmax("softmax"),
    "log_softmax": _softmax("log_softmax"),
    "linear": _linear,
    "conv1d": _conv(1),
    "conv2d": _conv(2),
    "max_pool2d": _max_pool2d,
    "avg_pool2d": _avg_pool2d,
    "adaptive_avg_pool2d": _adaptive_avg_pool2d,
    "batch_norm": _batch_norm,
    "layer_norm": _layer_norm,
    "dropout": _dropout,
    "gelu": _gelu,
    "embedding": _embedding,
    "view": _view("view"),
    "reshape": _view("reshape"),
    "flatten": _flatten,
    "transpose": _transpose,
    "permute": _permute,
    "unsqueeze": _unsqueeze,
    "squeeze": _squeeze,
    "cat": _join("cat"),
    "stack": _join("stack"),
    "contiguous": _contiguous,
    "clone": _clone,
}

TRANSLATIONS.update(MORE)
TRANSLATIONS.update(CASTS)
TRANSLATIONS.update(LOSSES)
TRANSLATIONS.update({k: v for k, v in EXTRA.items() if k not in TRANSLATIONS})
TRANSLATIONS.setdefault("concat", TRANSLATIONS["cat"])  # (aliases PyTorch writes as cat)
TRANSLATIONS.setdefault("concatenate", TRANSLATIONS["cat"])
TRANSLATIONS["multi_head_attention_forward"] = multi_head_attention_forward
TRANSLATIONS["_canonical_mask"] = canonical_mask
TRANSLATIONS.update({k: v for k, v in TRANSFORMER.items() if k not in TRANSLATIONS})
TRANSLATIONS.setdefault("interpolate", interpolate)
TRANSLATIONS.setdefault("upsample", interpolate)  # (F.upsample is F.interpolate)
TRANSLATIONS.update({k: v for k, v in SORTING.items() if k not in TRANSLATIONS})
# the schema-bound calls (torch.addmm, F.selu ...); ``OVERRIDES`` where PyTorch writes
# its own overload (concat, clip, floor_divide, where with a number)
TRANSLATIONS.update({k: v for k, v in DIRECT.items() if k not in TRANSLATIONS or k in OVERRIDES})
TRANSLATIONS.update(DATA_DEPENDENT)  # (nonzero, masked_select, ...: sizes of symbols)
TRANSLATIONS["where"] = condition_only(TRANSLATIONS["where"])  # (where(c): nonzero's)
# max pools with indices, adaptive max pools, unpools, embedding_bag ... (they
# replace the max pools without indices, which they fall back on)
TRANSLATIONS.update(indices_translations(TRANSLATIONS))
